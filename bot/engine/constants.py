"""Bitboards as native 64-bit integers: python-chess's tables in the engine's signed form, the
bit scans and counts that form needs, and the slider lookups every module shares.

Why a form of our own: python-chess's bitboards are Python ints up to 2^64 - 1, and in code
compiled by mypyc an ``int`` is native only below 2^62; any bitboard holding g8 or h8 (bits 62
and 63: Black's pieces, ``occupied``, every complement) would be a heap object with generic
arithmetic. The engine's bitboards are :data:`Bitboard` (mypyc's ``i64``): the same 64 bits read
as a signed number, so h8 is the sign bit and a bitboard holding it is negative. In the compiled
build they are C ``int64_t``; in the pure build plain ints in [-2^63, 2^63), which stay in that
range under ``&``, ``|``, ``^`` and ``~``, so both builds compute the same values. What needs care:

* no arithmetic may leave the range (the pure build would grow, the compiled one wrap): bits are
  cleared with ``^`` of a table entry, never with ``b & (b - 1)`` or ``b & -b``;
* ``>>`` is arithmetic in both builds (it copies the sign bit), so a right-shifted bitboard is
  only used under a mask that excludes the top bits it brought in;
* ``int.bit_length`` and ``int.bit_count`` read a negative number's magnitude, not its bits:
  :func:`top_square` and :func:`popcount` are the bit scan and the count, and they are native
  code in the compiled build (``bit_count`` is not a mypyc primitive at all).

The tables keep python-chess's names and indexing; the slider tables stay dictionaries keyed by
the masked occupancy, which never holds h8, so the keys are python-chess's own.
"""

from __future__ import annotations

from typing import Final

import chess
from mypy_extensions import i64

#: A bitboard in the engine's signed 64-bit form (h8 is the sign bit).
Bitboard = i64

WHITE: Final = chess.WHITE
BLACK: Final = chess.BLACK

_BIT_62: Final[i64] = 1 << 62
#: Every square but h8.
_BELOW_H8: Final[i64] = (1 << 63) - 1


def signed(bitboard: int) -> Bitboard:
    """A python-chess bitboard (0 .. 2^64 - 1) in the engine's signed form."""
    return bitboard - (1 << 64) if bitboard >> 63 else bitboard


def unsigned(bitboard: Bitboard) -> int:
    """An engine bitboard as python-chess writes it (for tests and messages, not the search)."""
    return int(bitboard) & chess.BB_ALL


def top_square(bitboard: Bitboard) -> int:
    """The highest square of a non-empty *bitboard* (h8 first): the engine's bit scan."""
    if bitboard < 0:
        return 63
    if bitboard >= _BIT_62:
        return 62
    return int(bitboard).bit_length() - 1


def popcount(bitboard: Bitboard) -> int:
    """How many squares *bitboard* holds: the sign bit counted apart, then the classic bit-slice
    count of the other 63 bits, in steps that stay non-negative and below 2^63 (no multiply), so
    the result is the same in both builds and native in the compiled one."""
    count = 0
    if bitboard < 0:
        count = 1
        bitboard &= _BELOW_H8
    x = bitboard - (bitboard >> 1 & 0x5555_5555_5555_5555)
    x = (x & 0x3333_3333_3333_3333) + (x >> 2 & 0x3333_3333_3333_3333)
    x = (x + (x >> 4)) & 0x0F0F_0F0F_0F0F_0F0F
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return count + int(x & 0x7F)


def _signed_list(bitboards: list[int]) -> list[Bitboard]:
    return [signed(bitboard) for bitboard in bitboards]


def _signed_values(tables: list[dict[int, int]]) -> list[dict[Bitboard, Bitboard]]:
    return [{key: signed(value) for key, value in table.items()} for table in tables]


BB_EMPTY: Final[i64] = 0
BB_ALL: Final[i64] = -1
BB_SQUARES: Final[list[Bitboard]] = _signed_list(chess.BB_SQUARES)
BB_FILES: Final[list[Bitboard]] = _signed_list(chess.BB_FILES)
BB_FILE_A: Final[i64] = signed(chess.BB_FILE_A)
BB_FILE_H: Final[i64] = signed(chess.BB_FILE_H)
BB_RANK_1: Final[i64] = signed(chess.BB_RANK_1)
BB_RANK_2: Final[i64] = signed(chess.BB_RANK_2)
BB_RANK_7: Final[i64] = signed(chess.BB_RANK_7)
BB_RANK_8: Final[i64] = signed(chess.BB_RANK_8)
BB_DARK_SQUARES: Final[i64] = signed(chess.BB_DARK_SQUARES)
BB_B1: Final[i64] = signed(chess.BB_B1)
BB_C1: Final[i64] = signed(chess.BB_C1)
BB_D1: Final[i64] = signed(chess.BB_D1)
BB_F1: Final[i64] = signed(chess.BB_F1)
BB_G1: Final[i64] = signed(chess.BB_G1)
BB_B8: Final[i64] = signed(chess.BB_B8)
BB_C8: Final[i64] = signed(chess.BB_C8)
BB_D8: Final[i64] = signed(chess.BB_D8)
BB_F8: Final[i64] = signed(chess.BB_F8)
BB_G8: Final[i64] = signed(chess.BB_G8)

BB_KNIGHT_ATTACKS: Final[list[Bitboard]] = _signed_list(chess.BB_KNIGHT_ATTACKS)
BB_KING_ATTACKS: Final[list[Bitboard]] = _signed_list(chess.BB_KING_ATTACKS)
#: Indexed [colour][square].
BB_PAWN_ATTACKS: Final[list[list[Bitboard]]] = [_signed_list(table) for table in chess.BB_PAWN_ATTACKS]
#: Slider attacks: indexed [square][occupied & the square's mask]. No mask holds h8, so the
#: masks and keys are non-negative and equal to python-chess's.
BB_DIAG_MASKS: Final[list[Bitboard]] = _signed_list(chess.BB_DIAG_MASKS)
BB_DIAG_ATTACKS: Final[list[dict[Bitboard, Bitboard]]] = _signed_values(chess.BB_DIAG_ATTACKS)
BB_FILE_MASKS: Final[list[Bitboard]] = _signed_list(chess.BB_FILE_MASKS)
BB_FILE_ATTACKS: Final[list[dict[Bitboard, Bitboard]]] = _signed_values(chess.BB_FILE_ATTACKS)
BB_RANK_MASKS: Final[list[Bitboard]] = _signed_list(chess.BB_RANK_MASKS)
BB_RANK_ATTACKS: Final[list[dict[Bitboard, Bitboard]]] = _signed_values(chess.BB_RANK_ATTACKS)

assert all(mask >= 0 for mask in (*BB_DIAG_MASKS, *BB_FILE_MASKS, *BB_RANK_MASKS))


def diagonal_attacks(square: int, occupied: Bitboard) -> Bitboard:
    """The squares a bishop on *square* attacks when *occupied* holds the pieces."""
    return BB_DIAG_ATTACKS[square][BB_DIAG_MASKS[square] & occupied]


def straight_attacks(square: int, occupied: Bitboard) -> Bitboard:
    """The squares a rook on *square* attacks when *occupied* holds the pieces."""
    return (BB_RANK_ATTACKS[square][BB_RANK_MASKS[square] & occupied]
            | BB_FILE_ATTACKS[square][BB_FILE_MASKS[square] & occupied])
