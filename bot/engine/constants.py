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
  code in the compiled build (``bit_count`` is not a mypyc primitive at all);
* no integer constant may lie outside -2^62 .. 2^62 - 1: mypyc keeps such a constant as a boxed
  Python int (even a ``Final[i64]``) and unboxes it at every use, so masks stay below 2^62 and
  the top two bits are reached by shifts or table entries.

The tables keep python-chess's names and values in mypyc's native vectors (``librt.vecs``
``vec[i64]``: a read is a C array access in the compiled build, against a boxed list item or a
dictionary lookup; the pure build uses the same type through its Python API). Tables python-chess
indexes twice are flat here (the pawn attacks by ``colour << 6 | square``), and slider attacks
are read by kindergarten indexing (:func:`diagonal_attacks`, :func:`straight_attacks`) instead of
python-chess's dictionaries keyed by occupancy.
"""

from __future__ import annotations

from typing import Final

import chess
from librt.vecs import vec
from mypy_extensions import i64

#: A bitboard in the engine's signed 64-bit form (h8 is the sign bit).
Bitboard = i64

WHITE: Final = chess.WHITE
BLACK: Final = chess.BLACK


def signed(bitboard: int) -> Bitboard:
    """A python-chess bitboard (0 .. 2^64 - 1) in the engine's signed form."""
    return bitboard - (1 << 64) if bitboard >> 63 else bitboard


def unsigned(bitboard: Bitboard) -> int:
    """An engine bitboard as python-chess writes it (for tests and messages, not the search)."""
    return int(bitboard) & chess.BB_ALL


def top_square(bitboard: Bitboard) -> int:
    """The highest square of a non-empty *bitboard* (h8 first): the engine's bit scan. Bit 62 is
    tested by a shift, not by comparing with 2^62, a constant mypyc would keep boxed."""
    if bitboard < 0:
        return 63
    if bitboard >> 62:
        return 62
    return int(bitboard).bit_length() - 1


def popcount(bitboard: Bitboard) -> i64:
    """How many squares *bitboard* holds: the sign bit and bit 0 counted apart, then bits 1-62,
    shifted down below 2^62, by the classic bit-slice count, with no multiply and with every mask
    below 2^62, so the result is the same in both builds and all of it native in the compiled one
    (mypyc keeps an integer constant of 2^62 or more as a Python object, unboxed at each use)."""
    x = bitboard >> 1 & 0x3FFF_FFFF_FFFF_FFFF
    x -= x >> 1 & 0x1555_5555_5555_5555
    x = (x & 0x3333_3333_3333_3333) + (x >> 2 & 0x3333_3333_3333_3333)
    x = (x + (x >> 4)) & 0x0F0F_0F0F_0F0F_0F0F
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return (x & 0x7F) + (bitboard & 1) + (bitboard < 0)


def _signed_vec(bitboards: list[int]) -> vec[i64]:
    return vec[i64]([signed(bitboard) for bitboard in bitboards])


BB_EMPTY: Final[i64] = 0
BB_ALL: Final[i64] = -1
BB_SQUARES: Final = _signed_vec(chess.BB_SQUARES)
BB_FILES: Final = _signed_vec(chess.BB_FILES)
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

BB_KNIGHT_ATTACKS: Final = _signed_vec(chess.BB_KNIGHT_ATTACKS)
BB_KING_ATTACKS: Final = _signed_vec(chess.BB_KING_ATTACKS)
#: Indexed ``colour << 6 | square`` (the squares a pawn of that colour on that square attacks).
BB_PAWN_ATTACKS: Final = _signed_vec(chess.BB_PAWN_ATTACKS[chess.BLACK] + chess.BB_PAWN_ATTACKS[chess.WHITE])

# Slider attacks, kindergarten style: the pieces on one line through a square (its edge squares
# left out: they never block anything beyond) are gathered into a 6-bit index, and a table
# indexed ``square << 6 | index`` holds the attacks along that line. A rank's pieces are one byte
# of the board already; a file's are moved to the a-file and folded into one byte by shifts of 7,
# 14 and 28 (bit 8k lands on bit k and nowhere else among bits 1-6); a diagonal holds one square
# per file, so OR-ing the board's eight bytes together gives a byte with bit f set when its
# square on file f is occupied. No multiplication, so no overflow: the pure build computes the
# same indices as the compiled one, and every mask but the rank shift stays clear of h8's sign
# bit (the rank shift is arithmetic, and its index mask takes bits below the sign).

_INNER_FILE_A: Final[i64] = signed(chess.BB_FILE_A & ~chess.BB_RANK_1 & ~chess.BB_RANK_8)
_INNER: Final = chess.BB_ALL & ~(chess.BB_RANK_1 | chess.BB_RANK_8 | chess.BB_FILE_A | chess.BB_FILE_H)


def _ray_attacks(square: int, occupied: int, directions: tuple[tuple[int, int], ...]) -> int:
    """The squares a slider on *square* reaches along *directions* (file, rank steps), python-chess
    bitboards: the reference the tables are filled from."""
    attacks = 0
    for file_step, rank_step in directions:
        file, rank = chess.square_file(square) + file_step, chess.square_rank(square) + rank_step
        while 0 <= file < 8 and 0 <= rank < 8:
            target = chess.square(file, rank)
            attacks |= chess.BB_SQUARES[target]
            if occupied & chess.BB_SQUARES[target]:
                break
            file, rank = file + file_step, rank + rank_step
    return attacks


def _line_squares(square: int, directions: tuple[tuple[int, int], ...]) -> int:
    return _ray_attacks(square, 0, directions) | chess.BB_SQUARES[square]


_RANK: Final = ((1, 0), (-1, 0))
_FILE: Final = ((0, 1), (0, -1))
_DIAGONAL: Final = ((1, 1), (-1, -1))
_ANTI_DIAGONAL: Final = ((1, -1), (-1, 1))


def _line_table(directions: tuple[tuple[int, int], ...], by_file: bool) -> vec[i64]:
    """Attacks along one line by ``square << 6 | index``: index bit i stands for the line's square
    on file i + 1 (ranks, diagonals) or on rank i + 1 (files)."""
    table = []
    for square in chess.SQUARES:
        line = _line_squares(square, directions)
        for index in range(64):
            occupied = 0
            for bit in range(6):
                if index >> bit & 1:
                    occupied |= line & (chess.BB_RANKS[bit + 1] if by_file else chess.BB_FILES[bit + 1])
            table.append(signed(_ray_attacks(square, occupied, directions)))
    return vec[i64](table)


#: Each square's diagonal and anti-diagonal without the board's edge squares.
_DIAGONAL_INNER: Final = vec[i64]([signed(_line_squares(square, _DIAGONAL) & _INNER) for square in chess.SQUARES])
_ANTI_DIAGONAL_INNER: Final = vec[i64]([signed(_line_squares(square, _ANTI_DIAGONAL) & _INNER)
                                        for square in chess.SQUARES])
_RANK_ATTACKS: Final = _line_table(_RANK, by_file=False)
_FILE_ATTACKS: Final = _line_table(_FILE, by_file=True)
_DIAGONAL_ATTACKS: Final = _line_table(_DIAGONAL, by_file=False)
_ANTI_DIAGONAL_ATTACKS: Final = _line_table(_ANTI_DIAGONAL, by_file=False)
#: Each square's lines on an empty board (its own square excluded).
BB_DIAGONAL_RAYS: Final = vec[i64]([signed(_ray_attacks(square, 0, _DIAGONAL + _ANTI_DIAGONAL))
                                    for square in chess.SQUARES])
BB_ORTHOGONAL_RAYS: Final = vec[i64]([signed(_ray_attacks(square, 0, _RANK + _FILE)) for square in chess.SQUARES])


def diagonal_attacks(square: i64, occupied: Bitboard) -> Bitboard:
    """The squares a bishop on *square* attacks when *occupied* holds the pieces."""
    diagonal = occupied & _DIAGONAL_INNER[square]
    diagonal |= diagonal >> 32
    diagonal |= diagonal >> 16
    diagonal |= diagonal >> 8
    anti = occupied & _ANTI_DIAGONAL_INNER[square]
    anti |= anti >> 32
    anti |= anti >> 16
    anti |= anti >> 8
    base = square << 6
    return _DIAGONAL_ATTACKS[base | (diagonal >> 1 & 63)] | _ANTI_DIAGONAL_ATTACKS[base | (anti >> 1 & 63)]


def straight_attacks(square: i64, occupied: Bitboard) -> Bitboard:
    """The squares a rook on *square* attacks when *occupied* holds the pieces."""
    file = occupied >> (square & 7) & _INNER_FILE_A
    file |= file >> 7
    file |= file >> 14
    file |= file >> 28
    base = square << 6
    return _RANK_ATTACKS[base | (occupied >> ((square & 56) + 1) & 63)] | _FILE_ATTACKS[base | (file >> 1 & 63)]
