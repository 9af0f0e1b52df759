"""Makes bench/match/openings.txt: a seeded list of short, balanced Knightmate opening lines.

Knightmate has no opening book, so the lines are grown with Fairy-Stockfish: at each ply it
ranks its best few moves (MultiPV) and a seeded random choice picks one of those within
``--margin`` centipawns of the best, so the lines are varied but never silly. A finished line is
kept only if Fairy-Stockfish's deeper look calls it balanced (within ``--max-eval``) and it is new.
pyffish, the match referee, checks every line again when the file is written and when it is read.

It writes the file and prints nothing else of note; it never plays a match.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pyffish as sf

from bench.match.referee import STARTING_FEN, VARIANT, Referee
from bench.match.uci_player import UciPlayer

MATCH = Path(__file__).resolve().parents[1] / "match"


def ranked_moves(engine: UciPlayer, moves: Sequence[str], depth: int) -> list[tuple[str, int]]:
    """Each MultiPV line's first move and score (centipawns for the side to move) at the last depth."""
    position = "startpos moves " + " ".join(moves) if moves else "startpos"
    reply = engine.go(position, f"depth {depth}", deadline_s=120)
    best: dict[int, tuple[str, int]] = {}
    for line in reply.output:
        words = line.split()
        if words[:1] != ["info"] or "multipv" not in words or "pv" not in words or "score" not in words:
            continue
        kind, value = words[words.index("score") + 1: words.index("score") + 3]
        centipawns = int(value) if kind == "cp" else (100_000 if int(value) > 0 else -100_000)
        best[int(words[words.index("multipv") + 1])] = (words[words.index("pv") + 1], centipawns)
    return [best[rank] for rank in sorted(best)]


def grow_line(engine: UciPlayer, rng: random.Random, plies: int, depth: int, margin: int) -> list[str]:
    moves: list[str] = []
    for _ in range(plies):
        ranked = ranked_moves(engine, moves, depth)
        top = ranked[0][1]
        moves.append(rng.choice([move for move, value in ranked if value >= top - margin]))
    return moves


def evaluation(engine: UciPlayer, moves: Sequence[str], depth: int) -> int:
    """Fairy-Stockfish's score of the line's end, in centipawns for White."""
    engine.send("setoption name MultiPV value 1")
    value = ranked_moves(engine, moves, depth)[0][1]
    return value if len(moves) % 2 == 0 else -value


def numbered_san(moves: Sequence[str]) -> str:
    """``1. e4 h5 2. d4 c6``: the line as a reader writes it."""
    sans = sf.get_san_moves(VARIANT, STARTING_FEN, list(moves))
    return " ".join(f"{ply // 2 + 1}. {san}" if ply % 2 == 0 else san for ply, san in enumerate(sans))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--count", type=int, default=50, help="number of lines (default 50)")
    parser.add_argument("--plies", type=int, default=8, help="length of each line (default 8)")
    parser.add_argument("--multipv", type=int, default=5, help="candidate moves per ply (default 5)")
    parser.add_argument("--margin", type=int, default=40, help="candidates this close to the best (cp)")
    parser.add_argument("--depth", type=int, default=9, help="search depth per ply (default 9)")
    parser.add_argument("--check-depth", type=int, default=13, help="depth of the final check (default 13)")
    parser.add_argument("--max-eval", type=int, default=60, help="keep lines scored within this (cp)")
    parser.add_argument("--output", type=Path, default=MATCH / "openings.txt")
    parser.add_argument("--engine", default=str(MATCH / "fairy_stockfish.sh"))
    args = parser.parse_args(argv)

    engine = UciPlayer("Fairy-Stockfish", [args.engine], {})
    engine.start()
    rng = random.Random(args.seed)
    lines: dict[tuple[str, ...], int] = {}
    attempts = 0
    try:
        while len(lines) < args.count:
            attempts += 1
            if attempts > 10 * args.count:
                parser.error(f"only {len(lines)} balanced lines in {attempts - 1} tries: loosen --max-eval")
            engine.send(f"setoption name MultiPV value {args.multipv}")
            engine.new_game()
            moves = tuple(grow_line(engine, rng, args.plies, args.depth, args.margin))
            value = evaluation(engine, moves, args.check_depth)
            Referee(STARTING_FEN, moves)
            if abs(value) <= args.max_eval and moves not in lines:
                lines[moves] = value
                print(f"{len(lines)}/{args.count} {' '.join(moves)} {value:+d}", file=sys.stderr)
    finally:
        engine.close()

    header = [
        "# Knightmate opening lines for bench/match/strength.py: UCI moves from the start position.",
        f"# Made {time.strftime('%Y-%m-%d')} by: "
        + " ".join(["python -m bench.datagen.make_openings", *(sys.argv[1:] if argv is None else argv)]),
        f"# (seed {args.seed}; Fairy-Stockfish MultiPV {args.multipv} at depth {args.depth}, moves within "
        f"{args.margin} cp of the best; kept if |eval| <= {args.max_eval} cp at depth {args.check_depth}).",
        "# After each line: its SAN and Fairy-Stockfish's evaluation for White in pawns.",
    ]
    body = [f"{' '.join(moves)}  # {numbered_san(moves)} ({value / 100:+.2f})" for moves, value in lines.items()]
    args.output.write_text("\n".join(header + body) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
