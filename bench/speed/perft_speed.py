"""Perft speed of KnightmateBoard against python-chess's own chess.Board, measured in one run.

Each pair of positions is comparable: the same opening array, or middlegames of similar width.
Runs alternate between the two boards and each keeps its best time, so that load from other
processes on a shared machine hurts both alike. Prints nodes per second and the ratio
KnightmateBoard / chess.Board (the target is at least 0.9).

    python -m bench.speed.perft_speed [--repeats N]
"""

from __future__ import annotations

import argparse
import time

import chess

from variant import KnightmateBoard, perft

PAIRS = [
    # (label, chess FEN, Knightmate FEN, depth)
    ("start position", chess.STARTING_FEN, "rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq - 0 1", 4),
    ("middlegame, castling",
     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
     "r3k2r/pppq1ppp/2m1bm2/3pp3/1b1PP3/2MB1M2/PPPQBPPP/R3K2R w KQkq - 4 8", 3),
    ("ending with promotions", "1r2k3/P1P5/8/8/8/8/5p1p/3K2R1 w - - 0 1",
     "1r2k3/P1P5/8/8/8/8/5p1p/3K2R1 w - - 0 1", 4),
]


def nodes_per_second(board: chess.Board, depth: int) -> float:
    start = time.perf_counter()
    nodes = perft(board, depth)
    return nodes / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="runs per board and position (best kept)")
    args = parser.parse_args()

    print(f"{'position':<24} {'depth':>5} {'chess nodes/s':>14} {'knightmate nodes/s':>19} {'ratio':>6}")
    ratios = []
    for label, chess_fen, knightmate_fen, depth in PAIRS:
        chess_rate = knightmate_rate = 0.0
        for _ in range(args.repeats):  # interleave so drifting load hits both boards
            chess_rate = max(chess_rate, nodes_per_second(chess.Board(chess_fen), depth))
            knightmate_rate = max(knightmate_rate, nodes_per_second(KnightmateBoard(knightmate_fen), depth))
        ratio = knightmate_rate / chess_rate
        ratios.append(ratio)
        print(f"{label:<24} {depth:>5} {chess_rate:>14,.0f} {knightmate_rate:>19,.0f} {ratio:>6.2f}")
    geometric_mean = 1.0
    for ratio in ratios:
        geometric_mean *= ratio
    print(f"KnightmateBoard / chess.Board, geometric mean: {geometric_mean ** (1 / len(ratios)):.2f}x (target >= 0.9x)")


if __name__ == "__main__":
    main()
