"""The evaluation's numbers: piece values, phase weights, and every number fitted to game results.

Data only, kept apart from the algorithms that use them: the numbers live in
``bot/engine/data/weights.json`` (package data), which ``bench/training/tune_evaluation.py --write``
rewrites; no tool ever edits Python source to change a number. This module reads that file once,
checks its shape, and offers the numbers as constants, together with the tables built from them
(:data:`MG`, :data:`EG`). It imports nothing of the engine, so the position (which keeps the
material and piece-square sums), the evaluation, move ordering and the search all import it and
none of them imports another for its numbers.

What each number means, and why the term exists, is said where the evaluation uses it
(:mod:`bot.engine.evaluation`). In the file: scalars; tuples as lists (index by python-chess
piece type for ``PIECE_VALUES``, ``PHASE_WEIGHTS`` and ``ROYAL_ATTACK_UNITS``, where COMMONER is
chess.KNIGHT; by count, rank or distance elsewhere; (middlegame, endgame) pairs); a slider's ``*_MOBILITY`` as
[middlegame, endgame, typical squares], read into a :class:`Mobility`; the piece-square tables as 8
rows of 8 entries, rank 1 first, from White's view (a pawn's first and last ranks hold 0).

In the compiled build the constants are mypyc ``Final`` module attributes: native statics that
the other compiled modules read without a dictionary lookup.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Final

import chess
from librt.vecs import vec
from mypy_extensions import i64

#: Where the numbers live, inside the package (``importlib.resources`` path parts).
DATA_FILE: Final = ("data", "weights.json")


def read_data(text: str | None = None) -> dict[str, Any]:
    """The weights file's content (the shipped file unless *text* is given), as parsed JSON."""
    if text is None:
        text = resources.files("bot.engine").joinpath(*DATA_FILE).read_text()
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("weights.json: expected an object of named numbers")
    return data


_DATA: Final = read_data()


def _ints(name: str, length: int) -> tuple[int, ...]:
    value = _DATA.get(name)
    if not isinstance(value, list) or len(value) != length or not all(isinstance(v, int) for v in value):
        raise ValueError(f"weights.json: {name} must be a list of {length} integers")
    return tuple(value)


def _int(name: str) -> int:
    value = _DATA.get(name)
    if not isinstance(value, int):
        raise ValueError(f"weights.json: {name} must be an integer")
    return value


def _pair(name: str) -> tuple[int, int]:
    first, second = _ints(name, 2)
    return first, second


class Mobility:
    """A piece type's mobility weights: centipawns per square its piece reaches (that does not
    hold an own piece) beyond the *typical* count, in the middlegame and in the endgame. The
    typical counts come from chess practice and are not fitted (the score is not linear in them)."""

    def __init__(self, middlegame: int, endgame: int, typical: int) -> None:
        self.middlegame: Final = middlegame
        self.endgame: Final = endgame
        self.typical: Final = typical


def _mobility(name: str) -> Mobility:
    """A slider's mobility weights, which the file holds as [middlegame, endgame, typical]."""
    middlegame, endgame, typical = _ints(name, 3)
    return Mobility(middlegame, endgame, typical)


def _rows(name: str) -> tuple[int, ...]:
    value = _DATA.get(name)
    if not isinstance(value, list) or len(value) != 8 \
            or not all(isinstance(row, list) and len(row) == 8 and all(isinstance(v, int) for v in row)
                       for row in value):
        raise ValueError(f"weights.json: {name} must be 8 rows of 8 integers")
    return tuple(v for row in value for v in row)


#: Material in centipawns, by python-chess piece type (the royal knight's is 0: it is never taken).
PIECE_VALUES: Final = _ints("PIECE_VALUES", 7)
#: Game phase weight of each piece type; the phase of the start position is :data:`PHASE_TOTAL`.
PHASE_WEIGHTS: Final = _ints("PHASE_WEIGHTS", 7)
PHASE_TOTAL: Final = 2 * sum(2 * PHASE_WEIGHTS[piece] for piece in (chess.KNIGHT, chess.BISHOP, chess.ROOK)) \
    + 2 * PHASE_WEIGHTS[chess.QUEEN]
BISHOP_PAIR: Final = _int("BISHOP_PAIR")

ESCAPE_SQUARE_BONUS: Final = _ints("ESCAPE_SQUARE_BONUS", 8)
ESCAPE_SQUARE_BONUS_EG: Final = _ints("ESCAPE_SQUARE_BONUS_EG", 8)
QUEEN_CHECK_PENALTY: Final = _int("QUEEN_CHECK_PENALTY")
ROOK_CHECK_PENALTY: Final = _int("ROOK_CHECK_PENALTY")
BISHOP_CHECK_PENALTY: Final = _int("BISHOP_CHECK_PENALTY")
COMMONER_CHECK_PENALTY: Final = _int("COMMONER_CHECK_PENALTY")
QUEEN_NEAR_PENALTY: Final = _ints("QUEEN_NEAR_PENALTY", 8)
SAFE_CHECK_BONUS: Final = _int("SAFE_CHECK_BONUS")
#: Attack units per square of the enemy royal knight's zone a piece attacks, by python-chess piece
#: type; fixed small integers from practice, not fitted (the score is not linear in them).
ROYAL_ATTACK_UNITS: Final = _ints("ROYAL_ATTACK_UNITS", 7)
ROYAL_DANGER: Final = _int("ROYAL_DANGER")

#: A commoner's steps count in the middlegame only, all of them (the file holds one number).
COMMONER_MOBILITY: Final = Mobility(_int("COMMONER_MOBILITY"), 0, 0)
BISHOP_MOBILITY: Final = _mobility("BISHOP_MOBILITY")
ROOK_MOBILITY: Final = _mobility("ROOK_MOBILITY")
QUEEN_MOBILITY: Final = _mobility("QUEEN_MOBILITY")
ROOK_OPEN_FILE: Final = _pair("ROOK_OPEN_FILE")
ROOK_HALF_OPEN_FILE: Final = _pair("ROOK_HALF_OPEN_FILE")

THREAT_BY_PAWN: Final = _pair("THREAT_BY_PAWN")
THREAT_BY_MINOR: Final = _pair("THREAT_BY_MINOR")
THREAT_BY_ROOK: Final = _pair("THREAT_BY_ROOK")
HANGING: Final = _pair("HANGING")
TEMPO: Final = _int("TEMPO")

PASSED_PAWN_MG: Final = _ints("PASSED_PAWN_MG", 8)
PASSED_PAWN_EG: Final = _ints("PASSED_PAWN_EG", 8)
PASSED_FREE_PATH: Final = _ints("PASSED_FREE_PATH", 8)
PASSED_ROYAL_DISTANCE: Final = _pair("PASSED_ROYAL_DISTANCE")
PASSED_COMMONER_DISTANCE: Final = _pair("PASSED_COMMONER_DISTANCE")
DOUBLED_PAWN: Final = _int("DOUBLED_PAWN")
ISOLATED_PAWN: Final = _int("ISOLATED_PAWN")

#: The piece-square tables' names in the file, by python-chess piece type (each name is followed
#: by ``_MG`` or ``_EG``; index 0 is no piece).
TABLE_NAMES: Final = ("", "PAWN", "COMMONER", "BISHOP", "ROOK", "QUEEN", "ROYAL")


def _piece_square_tables(half: str) -> tuple[tuple[int, ...], ...]:
    """The middlegame (*half* ``"MG"``) or endgame (``"EG"``) piece-square tables from White's
    view, a1 first, by python-chess piece type (index 0, no piece, empty)."""
    return ((), *(_rows(f"{name}_{half}") for name in TABLE_NAMES[1:]))


MG_TABLES: Final = _piece_square_tables("MG")
EG_TABLES: Final = _piece_square_tables("EG")


def piece_square_index(color: chess.Color, piece_type: int, square: chess.Square) -> int:
    """Where :data:`MG` and :data:`EG` (and the position's piece keys) keep a piece on a square."""
    return color << 9 | piece_type << 6 | square


def _signed_tables(tables: tuple[tuple[int, ...], ...]) -> vec[i64]:
    """Material + table value, positive for White, by :func:`piece_square_index`."""
    out = [0] * (2 << 9)
    for piece_type in range(1, 7):
        table = tables[piece_type]
        for square in chess.SQUARES:
            out[piece_square_index(chess.WHITE, piece_type, square)] = PIECE_VALUES[piece_type] + table[square]
            out[piece_square_index(chess.BLACK, piece_type, square)] = \
                -(PIECE_VALUES[piece_type] + table[chess.square_mirror(square)])
    return vec[i64](out)


#: Signed (White positive) material + piece-square value of each piece on each square, by
#: :func:`piece_square_index` (``colour << 9 | piece type << 6 | square``), in a native vector: the
#: position reads six of them a move.
MG: Final = _signed_tables(MG_TABLES)
EG: Final = _signed_tables(EG_TABLES)
