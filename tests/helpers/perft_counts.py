"""Perft counts of Knightmate positions as Fairy-Stockfish reports them: the reference both move
generators (the board's and the engine's) must match."""

from __future__ import annotations

from variant import STARTING_FEN

#: Counts for depths 1, 2, 3, ... as Fairy-Stockfish reports them.
PERFT_COUNTS = {
    STARTING_FEN: [18, 324, 6765, 139774, 3249033],
    "r3k2r/8/b7/8/8/7B/m7/R3K2R w KQkq - 0 1": [18, 480, 10870, 310732],
    "4k3/8/8/KPp4r/8/8/4P3/8 w - c6 0 1": [7, 108, 728, 11766],
    "1r2k3/P1P5/8/8/8/8/5p1p/3K2R1 w - - 0 1": [29, 493, 9310, 172065],
    "4r2k/1b6/8/8/4K3/8/8/R6M w - - 0 1": [8, 190, 3444, 77452],
}

#: (fen, depth) for each count up to depth 4: quick enough for every run.
QUICK_PERFT_CASES = [(fen, depth) for fen, counts in PERFT_COUNTS.items()
                     for depth in range(1, min(len(counts), 4) + 1)]
