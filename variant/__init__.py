"""Knightmate rules for python-chess.

Importing this package registers :class:`KnightmateBoard` with python-chess, so that
``chess.variant.find_variant("Knightmate")`` finds it and ``chess.pgn`` reads and writes games
with a ``[Variant "Knightmate"]`` header. Registration adds the class to python-chess's list of
variants and the commoner's letter to its PGN movetext tokenizer (see :mod:`variant.pgn`); it
changes nothing about standard boards.
"""

import chess.variant

from variant import pgn
from variant.board import (
    COMMONER,
    ROYAL_KNIGHT,
    STARTING_BOARD_FEN,
    STARTING_FEN,
    GameMoveError,
    KnightmateBoard,
    describe_status,
    insufficient_material,
)
from variant.perft import perft

__all__ = ["COMMONER", "ROYAL_KNIGHT", "STARTING_BOARD_FEN", "STARTING_FEN", "GameMoveError", "KnightmateBoard",
           "describe_status", "insufficient_material", "perft"]

if KnightmateBoard not in chess.variant.VARIANTS:
    chess.variant.VARIANTS.append(KnightmateBoard)
pgn.register()
