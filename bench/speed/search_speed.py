"""Engine speed: time to a fixed depth and nodes per second on fixed positions, compiled against
pure Python, and this install against another one.

    python -m bench.speed.search_speed [--depth 6 | --movetime 400 | --game 120 [--nodes 8000]] [--hash 64]
                           [--build compiled|pure] [--baseline /other/worktree/.venv/bin/python [--rounds 3]]
                           [--nnue]

Each position is searched to a fixed depth from an empty hash table, or with ``--movetime`` for
that many milliseconds, which shows the depth a move of a real game reaches (at 10+0.1 the
engine spends 0.3-0.9 s on a middlegame move).

``--game PLIES`` measures what a fresh table per position cannot show: the cost a node takes in
play, where one engine searches move after move and its hash table, history and caches carry
over (a table that fills up, or keeps entries across moves, costs more a node than an empty
one). This install plays a game of at most PLIES plies against itself at ``--nodes`` a move
first; then every build searches each position of that game in turn at the same node count.
The nodes being equal, the CPU seconds compare directly.

Every measurement runs in a fresh child process of this script. By default the installed build
(compiled by mypyc, when it is) and the pure-Python sources (``KNIGHTMATE_BOT_PURE=1``, which
makes :mod:`bot.engine.build` import the ``.py`` files beside the compiled modules: the same
code, not a copy) each search the positions once; the script prints both, the speed ratio, and,
at a fixed depth, whether both builds searched exactly the same nodes (they must: the compiled
build is the same source). CPU seconds are printed beside wall seconds: on a shared machine they
are the steadier figure, and the ratios are taken from them. ``--build`` runs one build only.

``--baseline PYTHON`` also measures the compiled build of another install of the engine (say a
worktree of an older commit with its own virtual environment): this script runs under that
interpreter, which imports that install's engine. The builds take turns, ``--rounds`` times,
so that the machine's load falls on all of them alike, and each position's best (least) CPU
time over the rounds is kept. Then the time to depth of the baseline over this install's is
printed. Nodes per second of two installs compare only if both count nodes the same way; the
time to depth compares whenever both search the same tree, which equal node counts (or, across
a change of counting, equal best moves) show.

``--nnue`` also measures this install's compiled build scoring positions with its NNUE
(``Engine(nnue=True)``), taking turns with the others, and prints the network's cost a node: its
CPU nodes per second against the hand evaluation's, and the CPU microseconds a node each. The
two evaluations search different trees, so only the per-node figures compare.

This is a benchmark, not a test: it prints figures; it exits 1 only when node counts differ
between the compiled and the pure build of this install.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any, Literal

POSITIONS = {
    "start": "rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq - 0 1",
    "open game": "r1bqkb1r/ppp2ppp/2m2m2/3pp3/4P3/2M2M2/PPPP1PPP/R1BQKB1R w KQkq - 0 4",
    "middlegame": "r3k2r/pp1b1ppp/2mqpm2/3p4/3P4/2MBPM2/PPQ2PPP/R3K2R w KQkq - 4 10",
    "queens off": "2r1k2r/pp3ppp/2m1pm2/3p4/3P4/2M1PM2/PP3PPP/2R1K2R b Kk - 2 16",
    "endgame": "8/5pk1/3m2p1/8/3P4/5MP1/5P2/6K1 w - - 0 40",
}

Row = dict[str, Any]


def measure(depth: int, movetime: int | None, hash_mb: int, nnue: bool) -> tuple[str, list[Row]]:
    """Searches every position with the build this process imported; returns the build's name
    and one row per position."""
    from bot.engine import Limits, build
    from variant import KnightmateBoard

    limits = Limits(movetime_ms=movetime, move_overhead_ms=0) if movetime else Limits(depth=depth)
    rows = []
    for name, fen in POSITIONS.items():
        board = KnightmateBoard(fen)
        engine = new_engine(hash_mb, nnue)
        started, cpu_started = time.perf_counter(), time.process_time()
        result = engine.search(board, limits)
        rows.append({"position": name, "depth": result.depth, "nodes": result.nodes,
                     "seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu_started,
                     "move": board.uci(result.move) if result.move else "(none)"})
    return build.running_build(), rows


def new_engine(hash_mb: int, nnue: bool) -> Any:
    """An engine of the install this process imported; asked for the NNUE only with *nnue*, so a
    baseline from before the NNUE (whose Engine takes no ``nnue``) still runs."""
    from bot.engine import Engine

    return Engine(hash_mb=hash_mb, nnue=True) if nnue else Engine(hash_mb=hash_mb)


def measure_game(moves: list[str], nodes: int, hash_mb: int, nnue: bool) -> tuple[str, list[Row]]:
    """Searches each position of the game *moves* in turn with one engine, *nodes* a move, as in
    play; returns the build's name and one row for the whole game."""
    from bot.engine import Limits, build
    from variant import KnightmateBoard

    board, engine = KnightmateBoard(), new_engine(hash_mb, nnue)
    searched = deepest = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    for uci in moves:
        result = engine.search(board, Limits(nodes=nodes))
        searched += result.nodes
        deepest = max(deepest, result.depth)
        board.push_uci(uci)
    row = {"position": f"{len(moves)} plies", "depth": deepest, "nodes": searched,
           "seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu_started, "move": "-"}
    return build.running_build(), [row]


def record_game(plies: int, nodes: int, hash_mb: int) -> list[str]:
    """The moves of a game this install plays against itself at *nodes* a move, to its end or
    *plies* plies: the positions every build then searches."""
    from bot.engine import Engine, Limits
    from variant import KnightmateBoard

    board, engine = KnightmateBoard(), Engine(hash_mb=hash_mb)
    while len(board.move_stack) < plies and not board.is_game_over(claim_draw=True):
        move = engine.search(board, Limits(nodes=nodes)).move
        assert move is not None  # the game is not over, so there is a legal move
        board.push(move)
    return [move.uci() for move in board.move_stack]


def measure_in_child(python: str, pure: bool, nnue: bool, args: argparse.Namespace) -> tuple[str, list[Row]]:
    """:func:`measure` (or :func:`measure_game`, given a game's moves) in a fresh interpreter
    *python*, so each build is imported on its own."""
    env = dict(os.environ)
    env.pop("KNIGHTMATE_BOT_PURE", None)
    if pure:
        env["KNIGHTMATE_BOT_PURE"] = "1"
    command = [python, __file__, "--child", "--depth", str(args.depth), "--hash", str(args.hash)]
    if args.movetime:
        command += ["--movetime", str(args.movetime)]
    if args.moves:
        command += ["--nodes", str(args.nodes), "--moves", " ".join(args.moves)]
    if nnue:
        command.append("--use-nnue")
    output = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    build, rows = json.loads(output)
    return build, rows


def best_of(rounds: list[list[Row]]) -> list[Row]:
    """Each position's row from the round with the least CPU time (the least disturbed one)."""
    return [min(rows, key=lambda row: row["cpu"]) for rows in zip(*rounds, strict=True)]


def print_build(title: str, rows: list[Row]) -> None:
    print(title)
    print(f"  {'position':<12} {'depth':>5} {'nodes':>9} {'time s':>7} {'cpu s':>6} {'nps':>7} {'cpu nps':>7}"
          "  best move")
    for row in rows:
        print(f"  {row['position']:<12} {row['depth']:>5} {row['nodes']:>9} {row['seconds']:>7.2f} {row['cpu']:>6.2f} "
              f"{row['nodes'] / row['seconds']:>7.0f} {row['nodes'] / row['cpu']:>7.0f}  {row['move']}")
    nodes, seconds, cpu = (sum(row[key] for row in rows) for key in ("nodes", "seconds", "cpu"))
    print(f"  {'total':<12} {'':>5} {nodes:>9} {seconds:>7.2f} {cpu:>6.2f} {nodes / seconds:>7.0f} {nodes / cpu:>7.0f}")


def compare(compiled: list[Row], pure: list[Row], fixed_depth: bool) -> bool:
    """Prints the speed ratio per position and in total; returns whether node counts agree
    (always true for timed searches, whose node counts are not comparable)."""
    print("compiled / pure (cpu nodes per second)")
    for fast, slow in zip(compiled, pure, strict=True):
        ratio = (fast["nodes"] / fast["cpu"]) / (slow["nodes"] / slow["cpu"])
        same = "" if not fixed_depth else "  same nodes" if fast["nodes"] == slow["nodes"] else "  NODES DIFFER"
        print(f"  {fast['position']:<12} {ratio:>5.2f}x{same}")
    total = (sum(row["nodes"] for row in compiled) / sum(row["cpu"] for row in compiled)) \
        / (sum(row["nodes"] for row in pure) / sum(row["cpu"] for row in pure))
    print(f"  {'total':<12} {total:>5.2f}x")
    agree = not fixed_depth or [row["nodes"] for row in compiled] == [row["nodes"] for row in pure]
    if fixed_depth:
        print("node counts: identical" if agree else "node counts: DIFFERENT (the builds do not search alike)")
    return agree


#: What one measurement holds fixed: a depth per position, a time per position (``--movetime``),
#: or nodes per move along one game (``--game``).
Mode = Literal["depth", "time", "game"]


def compare_nnue(hand: list[Row], nnue: list[Row]) -> None:
    """Prints the NNUE's CPU nodes per second over the hand evaluation's, and each one's CPU
    microseconds a node, per position and in total (same build, same install)."""
    print("NNUE / hand evaluation (cpu nodes per second; cpu microseconds a node)")
    for name, new, old in [*((row["position"], row, base) for row, base in zip(nnue, hand, strict=True)),
                           ("total", _total(nnue), _total(hand))]:
        ratio = (new["nodes"] / new["cpu"]) / (old["nodes"] / old["cpu"])
        print(f"  {name:<12} {ratio:>5.2f}x  {1e6 * old['cpu'] / old['nodes']:>6.2f} -> "
              f"{1e6 * new['cpu'] / new['nodes']:>6.2f} us a node")


def _total(rows: list[Row]) -> Row:
    return {key: sum(row[key] for row in rows) for key in ("nodes", "cpu")}


def compare_installs(this: list[Row], baseline: list[Row], mode: Mode) -> None:
    """At a fixed depth, prints the baseline's CPU time to depth over this install's, per position
    and in total, with both installs' node counts and best moves, which say whether they searched
    one tree; at fixed nodes (a game), the CPU time for those nodes; in timed searches, the depths
    reached and the ratio of CPU nodes per second."""
    if mode == "game":
        new, old = this[0], baseline[0]
        print(f"baseline / this install (cpu seconds for the same {new['nodes']} nodes: above 1 is faster here)")
        print(f"  {new['position']:<12} {old['cpu'] / new['cpu']:>5.2f}x"
              f"  deepest search {old['depth']} -> {new['depth']}")
        return
    if mode == "time":
        print("this install / baseline (cpu nodes per second; depth reached)")
        for new, old in zip(this, baseline, strict=True):
            ratio = (new["nodes"] / new["cpu"]) / (old["nodes"] / old["cpu"])
            print(f"  {new['position']:<12} {ratio:>5.2f}x  depth {old['depth']} -> {new['depth']}")
        return
    print("baseline / this install (cpu seconds to depth: above 1 is faster here)")
    for new, old in zip(this, baseline, strict=True):
        same_move = "same move" if new["move"] == old["move"] else f"moves differ ({old['move']} before)"
        print(f"  {new['position']:<12} {old['cpu'] / new['cpu']:>5.2f}x  nodes {old['nodes']:>9} -> {new['nodes']:>9}"
              f"  {same_move}")
    total = sum(row["cpu"] for row in baseline) / sum(row["cpu"] for row in this)
    print(f"  {'total':<12} {total:>5.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=6, help="search depth per position (default 6)")
    parser.add_argument("--movetime", type=int, help="search each position this many ms instead of to a depth")
    parser.add_argument("--game", type=int, metavar="PLIES",
                        help="search the positions of one game in turn, as in play, instead")
    parser.add_argument("--nodes", type=int, default=8000, help="nodes a move with --game (default 8000)")
    parser.add_argument("--hash", type=int, default=64, help="hash table size in MB (default 64)")
    parser.add_argument("--build", choices=("compiled", "pure"), help="run only this build (default: both)")
    parser.add_argument("--baseline", metavar="PYTHON",
                        help="also measure the compiled build of the install this interpreter runs")
    parser.add_argument("--rounds", type=int, default=1, help="measurements per build, taking turns (default 1)")
    parser.add_argument("--nnue", action="store_true",
                        help="also measure this install's compiled build with its NNUE (cost a node)")
    parser.add_argument("--use-nnue", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--moves", type=str.split, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_game(args.moves, args.nodes, args.hash, args.use_nnue) if args.moves
                         else measure(args.depth, args.movetime, args.hash, args.use_nnue)))
        return 0
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.game is not None and (args.game < 1 or args.movetime):
        parser.error("--game takes a positive number of plies, and no --movetime")
    if args.game:
        args.moves = record_game(args.game, args.nodes, args.hash)
        print(f"a game of {len(args.moves)} plies, {args.nodes} nodes a move")

    # (title, interpreter, pure, NNUE, the build it must report)
    runs = [(wanted, sys.executable, wanted == "pure", False, wanted)
            for wanted in (("compiled", "pure") if args.build is None else (args.build,))]
    if args.baseline:
        runs.append(("baseline", args.baseline, False, False, "compiled"))
    if args.nnue:
        runs.append(("nnue", sys.executable, False, True, "compiled"))
    measured: dict[str, list[list[Row]]] = {title: [] for title, *_ in runs}
    for _ in range(args.rounds):
        for title, python, pure, nnue, wanted in runs:
            build, rows = measure_in_child(python, pure, nnue, args)
            if build != wanted:
                print(f"the {wanted} build is not installed for {python} (it runs the {build} build): "
                      "see docs/engine.md, 'The compiled engine'")
                return 1
            measured[title].append(rows)
    results = {title: best_of(rounds) for title, rounds in measured.items()}
    for title, rows in results.items():
        name = (f"baseline ({args.baseline}), compiled build" if title == "baseline"
                else "compiled build with the NNUE" if title == "nnue" else f"{title} build")
        print_build(name + (f", best of {args.rounds} rounds" if args.rounds > 1 else ""), rows)
    mode: Mode = "game" if args.moves else "time" if args.movetime else "depth"
    agree = True
    if "compiled" in results and "pure" in results:
        agree = compare(results["compiled"], results["pure"], fixed_depth=mode == "depth")
    if "baseline" in results and "compiled" in results:
        compare_installs(results["compiled"], results["baseline"], mode)
    if "nnue" in results and "compiled" in results:
        compare_nnue(results["compiled"], results["nnue"])
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
