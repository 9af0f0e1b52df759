"""Engine speed: nodes per second and time to depth on a fixed set of Knightmate positions.

    python bench/search.py [--depth 6 | --movetime 400] [--hash 64]

Each position is searched to a fixed depth from an empty hash table, or with ``--movetime`` for
that many milliseconds, which shows the depth a move of a real game reaches (at 10+0.1 the
engine spends 0.3-0.9 s on a middlegame move). As a baseline measured in
the same run (so figures from a busy or slow machine can still be compared), the script times a
plain KnightmateBoard perft to depth 3 from the same positions: the engine's nodes per second
divided by the perft leaf rate says how much of the raw move-generation speed the search keeps.
CPU seconds are printed beside wall seconds: on a shared machine they are the steadier figure.

This is a benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import time

from bot.engine import Engine, Limits
from variant import KnightmateBoard, perft

POSITIONS = {
    "start": "rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq - 0 1",
    "open game": "r1bqkb1r/ppp2ppp/2m2m2/3pp3/4P3/2M2M2/PPPP1PPP/R1BQKB1R w KQkq - 0 4",
    "middlegame": "r3k2r/pp1b1ppp/2mqpm2/3p4/3P4/2MBPM2/PPQ2PPP/R3K2R w KQkq - 4 10",
    "queens off": "2r1k2r/pp3ppp/2m1pm2/3p4/3P4/2M1PM2/PP3PPP/2R1K2R b Kk - 2 16",
    "endgame": "8/5pk1/3m2p1/8/3P4/5MP1/5P2/6K1 w - - 0 40",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=6, help="search depth per position (default 6)")
    parser.add_argument("--movetime", type=int, help="search each position this many ms instead of to a depth")
    parser.add_argument("--hash", type=int, default=64, help="hash table size in MB (default 64)")
    args = parser.parse_args()
    limits = Limits(movetime=args.movetime, move_overhead_ms=0) if args.movetime else Limits(depth=args.depth)

    print(f"{'position':<12} {'depth':>5} {'nodes':>9} {'time s':>7} {'cpu s':>6} {'nps':>7} {'cpu nps':>7} "
          f"{'perft3 leaves/s':>16} {'ratio':>6}  best move")
    total_nodes = total_time = total_cpu = total_leaves = total_perft_time = 0.0
    for name, fen in POSITIONS.items():
        board = KnightmateBoard(fen)
        started = time.perf_counter()
        leaves = perft(board, 3)
        perft_time = time.perf_counter() - started
        engine = Engine(hash_mb=args.hash)
        started, cpu_started = time.perf_counter(), time.process_time()
        result = engine.search(board, limits)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        nps = result.nodes / elapsed
        leaf_rate = leaves / perft_time
        move = board.uci(result.move) if result.move else "(none)"
        print(f"{name:<12} {result.depth:>5} {result.nodes:>9} {elapsed:>7.2f} {cpu:>6.2f} {nps:>7.0f} "
              f"{result.nodes / cpu:>7.0f} {leaf_rate:>16.0f} {nps / leaf_rate:>6.3f}  {move}")
        total_nodes += result.nodes
        total_time += elapsed
        total_cpu += cpu
        total_leaves += leaves
        total_perft_time += perft_time
    nps, leaf_rate = total_nodes / total_time, total_leaves / total_perft_time
    depth_column = "" if args.movetime else args.depth
    print(f"{'total':<12} {depth_column:>5} {total_nodes:>9.0f} {total_time:>7.2f} {total_cpu:>6.2f} {nps:>7.0f} "
          f"{total_nodes / total_cpu:>7.0f} {leaf_rate:>16.0f} {nps / leaf_rate:>6.3f}")


if __name__ == "__main__":
    main()
