"""Fairy-Stockfish (pyffish) as the independent referee for the rules tests.

Every pyffish call sets a position up from a FEN, which costs about 2 ms whatever else it does,
so callers ask for whole move lists at once where they can (SAN of a whole game in one call).
"""

from __future__ import annotations

import pyffish

VARIANT = "knightmate"


def legal_moves(fen: str) -> set[str]:
    return set(pyffish.legal_moves(VARIANT, fen, []))


def fen_after(fen: str, uci: str) -> str:
    return str(pyffish.get_fen(VARIANT, fen, [uci]))


def san_of_game(fen: str, moves: list[str]) -> list[str]:
    return list(pyffish.get_san_moves(VARIANT, fen, moves))


def san(fen: str, uci: str) -> str:
    return str(pyffish.get_san(VARIANT, fen, uci))


def insufficient_material(fen: str) -> tuple[bool, bool]:
    white, black = pyffish.has_insufficient_material(VARIANT, fen, [])
    return bool(white), bool(black)


def result_without_moves(fen: str) -> int:
    """Fairy-Stockfish's score for a position with no legal move: negative mate or draw."""
    return int(pyffish.game_result(VARIANT, fen, []))


def is_valid(fen: str) -> bool:
    return int(pyffish.validate_fen(fen, VARIANT)) == pyffish.FEN_OK
