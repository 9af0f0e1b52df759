"""Threads: the wall-clock time to a fixed depth of one search process against several (Lazy SMP).

    python -m bench.speed.threads_speed [--depth 12] [--threads 2] [--hash 64] [--rounds 1]

Each of eight positions (the five of :mod:`bench.speed.search_speed` and three more from games) is
searched to ``--depth`` from an empty table by an engine with one thread and by one with
``--threads``, the two taking turns (which goes first alternates by position, so a change of the
machine's load falls on both alike). Wall seconds are what compare here: several processes spend
more CPU seconds for fewer wall seconds. Each engine is made once and its helpers started before
the clock runs (a player's are started once, at ``setoption``), and the table is cleared between
positions. Nodes are every process's; a search of several threads does not search one tree, so
its nodes are more than one thread's for the same depth.

Beside the wall seconds it prints the CPU seconds of the engine's own process (the main search,
whose move is played): on a quiet machine with a core for each thread they are about its wall
seconds, so their ratio is the speedup such a machine sees. On a machine busy with other work the
wall seconds say little: Linux's autogroup scheduling gives a session's processes one share of
the CPU, which the helpers then split with the main search instead of adding to it.

This is a benchmark, not a test: it prints figures, and the machine's load average beside them.
"""

from __future__ import annotations

import argparse
import os
import time

from bench.speed.search_speed import POSITIONS
from bot.engine import Engine, Limits
from variant import KnightmateBoard

#: The search speed benchmark's positions, and three more: a middlegame with queens, one with
#: pawns racing, and a rook ending.
THREADS_POSITIONS = {
    **POSITIONS,
    "queens on": "r1b1k2r/ppq2ppp/2mbpm2/3p4/3P4/2MBPM2/PPQ2PPP/R1B1K2R w KQkq - 2 9",
    "pawn race": "8/pp3k2/8/2P5/8/5KPP/8/8 w - - 0 40",
    "rook ending": "8/5pk1/6p1/8/3R4/6P1/r4PK1/8 b - - 3 45",
}


#: Wall seconds, the main process's CPU seconds, nodes and the best move of one search.
Measured = tuple[float, float, int, str]


def time_to_depth(engine: Engine, fen: str, depth: int) -> Measured:
    """One search of *fen* to *depth* from an empty table."""
    engine.new_game()
    board = KnightmateBoard(fen)
    started, cpu_started = time.perf_counter(), time.process_time()
    result = engine.search(board, Limits(depth=depth))
    return (time.perf_counter() - started, time.process_time() - cpu_started, result.nodes,
            board.uci(result.move) if result.move else "(none)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=12, help="depth of every search (default 12)")
    parser.add_argument("--threads", type=int, default=2, help="threads of the engine compared (default 2)")
    parser.add_argument("--hash", type=int, default=64, help="hash table size, MB (default 64)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="searches of each position (the least wall time kept; default 1)")
    args = parser.parse_args()
    engines = {1: Engine(hash_mb=args.hash), args.threads: Engine(hash_mb=args.hash, threads=args.threads)}
    try:
        engines[args.threads].search(KnightmateBoard(), Limits(depth=1))  # the helpers are up and mapped
        print(f"load average before: {os.getloadavg()[0]:.2f}  depth {args.depth}, hash {args.hash} MB")
        many = args.threads
        print(f"{'position':<12} {'1: s':>6} {'cpu s':>6} {'nodes':>9} {f'{many}: s':>6} {'cpu s':>6} {'nodes':>9}"
              f" {'wall':>6} {'cpu':>6}  moves")
        totals = {threads: [0.0, 0.0] for threads in engines}
        for index, (name, fen) in enumerate(THREADS_POSITIONS.items()):
            order = list(engines) if index % 2 == 0 else list(reversed(engines))
            best: dict[int, Measured] = {}
            for _ in range(args.rounds):
                for threads in order:
                    measured = time_to_depth(engines[threads], fen, args.depth)
                    if threads not in best or measured[0] < best[threads][0]:
                        best[threads] = measured
            (one_s, one_cpu, one_nodes, one_move), (many_s, many_cpu, many_nodes, many_move) = best[1], best[many]
            for threads, (seconds, cpu, _, _) in best.items():
                totals[threads][0] += seconds
                totals[threads][1] += cpu
            print(f"{name:<12} {one_s:>6.2f} {one_cpu:>6.2f} {one_nodes:>9} {many_s:>6.2f} {many_cpu:>6.2f}"
                  f" {many_nodes:>9} {one_s / many_s:>5.2f}x {one_cpu / many_cpu:>5.2f}x  {one_move} {many_move}")
        (one_s, one_cpu), (many_s, many_cpu) = totals[1], totals[many]
        print(f"{'total':<12} {one_s:>6.2f} {one_cpu:>6.2f} {'':>9} {many_s:>6.2f} {many_cpu:>6.2f} {'':>9}"
              f" {one_s / many_s:>5.2f}x {one_cpu / many_cpu:>5.2f}x")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        for engine in engines.values():
            engine.close()


if __name__ == "__main__":
    main()
