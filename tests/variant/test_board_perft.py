"""Perft: move-generator node counts against Fairy-Stockfish's reference counts."""

from __future__ import annotations

import pytest

from variant import STARTING_FEN, KnightmateBoard, perft

# Counts for depths 1, 2, 3, ... as Fairy-Stockfish reports them.
REFERENCE = {
    STARTING_FEN: [18, 324, 6765, 139774, 3249033],
    "r3k2r/8/b7/8/8/7B/m7/R3K2R w KQkq - 0 1": [18, 480, 10870, 310732],
    "4k3/8/8/KPp4r/8/8/4P3/8 w - c6 0 1": [7, 108, 728, 11766],
    "1r2k3/P1P5/8/8/8/8/5p1p/3K2R1 w - - 0 1": [29, 493, 9310, 172065],
    "4r2k/1b6/8/8/4K3/8/8/R6M w - - 0 1": [8, 190, 3444, 77452],
}


@pytest.mark.parametrize(("fen", "depth"), [
    (fen, depth) for fen, counts in REFERENCE.items() for depth in range(1, min(len(counts), 4) + 1)
])
def test_perft_matches_fairy_stockfish(fen: str, depth: int) -> None:
    assert perft(KnightmateBoard(fen), depth) == REFERENCE[fen][depth - 1]


@pytest.mark.slow
def test_perft_depth_5_from_the_start_position() -> None:
    assert perft(KnightmateBoard(), 5) == REFERENCE[STARTING_FEN][4]


def test_perft_leaves_the_board_as_it_found_it() -> None:
    board = KnightmateBoard("r3k2r/8/b7/8/8/7B/m7/R3K2R w KQkq - 0 1")
    before = board.fen()
    perft(board, 3)
    assert board.fen() == before and not board.move_stack
