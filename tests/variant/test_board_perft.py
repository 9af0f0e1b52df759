"""Perft: move-generator node counts against Fairy-Stockfish's reference counts."""

from __future__ import annotations

import pytest

from tests.helpers.perft_counts import PERFT_COUNTS, QUICK_PERFT_CASES
from variant import STARTING_FEN, KnightmateBoard, perft


@pytest.mark.parametrize(("fen", "depth"), QUICK_PERFT_CASES)
def test_perft_matches_fairy_stockfish(fen: str, depth: int) -> None:
    assert perft(KnightmateBoard(fen), depth) == PERFT_COUNTS[fen][depth - 1]


@pytest.mark.slow
def test_perft_depth_5_from_the_start_position() -> None:
    assert perft(KnightmateBoard(), 5) == PERFT_COUNTS[STARTING_FEN][4]


def test_perft_leaves_the_board_as_it_found_it() -> None:
    board = KnightmateBoard("r3k2r/8/b7/8/8/7B/m7/R3K2R w KQkq - 0 1")
    before = board.fen()
    perft(board, 3)
    assert board.fen() == before and not board.move_stack
