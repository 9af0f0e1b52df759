"""Calibrates the strength levels: each level against Fairy-Stockfish limited to the same ``UCI_Elo``.

A level is a ``UCI_Elo`` on Fairy-Stockfish's scale (bot/engine/levels.py), so the test of its
label is a match against Fairy-Stockfish (WebAssembly, ``bench/fairy_stockfish.sh``) with
``UCI_LimitStrength`` and the same ``UCI_Elo``: a true label scores about 50%. A level far from
its label is better measured against another ``UCI_Elo`` (``--offset``: Fairy-Stockfish plays at
the level's ``UCI_Elo`` plus this). Each match is a ``strength.py`` match (same openings, referee,
clocks and output); after each level a Markdown row of the table in bench/README.md is printed,
so a run stopped early still has the rows of its finished levels::

    python bench/levels.py --levels 1,3,5,8 --games 40 --tc 10+0.1

Columns: level, label, ``UCI_Elo``, Fairy-Stockfish's ``UCI_Elo``, games, the level's score (wins,
draws, losses), its Elo difference to Fairy-Stockfish with the 95% interval, and so its strength on
Fairy-Stockfish's scale.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from elo import estimate, score
from strength import BENCH, DEFAULT_OPENINGS, Match, MatchConfig, Tally, TimeControl, load_openings
from uci_player import EngineError

from bot.engine.levels import LEVELS, level

FAIRY_STOCKFISH = str(BENCH / "fairy_stockfish.sh")
#: Fairy-Stockfish's Move Overhead in the ladder (bench/README.md: at its default 10 ms it flags at 10+0.1).
FAIRY_MOVE_OVERHEAD_MS = 100
#: Fairy-Stockfish's UCI_Elo bounds (bench/README.md).
FAIRY_MIN_ELO, FAIRY_MAX_ELO = 500, 2850
HEADER = ("| level | label | UCI_Elo | Fairy-Stockfish UCI_Elo | games | score (+ = -) | Elo difference (95%) "
          "| measured UCI_Elo |\n|---|---|---|---|---|---|---|---|")


def opponent_elo(level_number: int, offset: int) -> int:
    return max(FAIRY_MIN_ELO, min(FAIRY_MAX_ELO, level(level_number).elo + offset))


def match_config(level_number: int, args: argparse.Namespace) -> MatchConfig:
    entry = level(level_number)
    opponent = opponent_elo(level_number, args.offset)
    return MatchConfig(
        command_a=shlex.split(args.engine), command_b=shlex.split(args.fairy_stockfish),
        options_a={"UCI_LimitStrength": "true", "UCI_Elo": str(entry.elo)},
        options_b={"UCI_LimitStrength": "true", "UCI_Elo": str(opponent),
                   "Move Overhead": str(FAIRY_MOVE_OVERHEAD_MS)},
        name_a=f"level {entry.number}", name_b=f"Fairy-Stockfish {opponent}", games=args.games,
        openings=load_openings(args.openings), time_control=TimeControl.parse(args.tc), lag_grace_ms=100,
        concurrency=args.concurrency, pgn=args.pgn, nodes=args.nodes)


def row(level_number: int, opponent: int, tally: Tally) -> str:
    """The level's row of the calibration table."""
    entry = level(level_number)
    start = f"| {entry.number} | {entry.label} | {entry.elo} | {opponent} | {tally.games} |"
    if tally.games == 0:
        return start + " - | - | - |"
    result = estimate(tally.wins, tally.draws, tally.losses)
    interval = f"{result.lower:+.0f} .. {result.upper:+.0f}"
    elo = f"{result.elo:+.0f} ± {result.error:.0f}" if not math.isinf(result.error) else f"{result.elo:+.0f}"
    measured = (f"{opponent + result.elo:.0f} ({opponent + result.lower:.0f} .. {opponent + result.upper:.0f})"
                if not math.isinf(result.error) else f"at least {opponent + result.lower:.0f}"
                if math.isinf(result.upper) else f"at most {opponent + result.upper:.0f}")
    return (f"{start} {score(tally.wins, tally.draws, tally.losses):.1%} ({tally.score_line()}) | "
            f"{elo} ({interval}) | {measured} |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default=",".join(str(entry.number) for entry in LEVELS),
                        help="comma-separated levels, played in this order (default: all)")
    parser.add_argument("--games", type=int, default=40, help="games per level (default 40)")
    parser.add_argument("--tc", default="10+0.1", help="seconds+increment per side (default 10+0.1, the ladder's)")
    parser.add_argument("--nodes", type=int, help="a node budget per move instead of the clocks")
    parser.add_argument("--offset", type=int, default=0,
                        help="Fairy-Stockfish's UCI_Elo less the level's (default 0: the same)")
    parser.add_argument("--engine", default="knightmate-bot uci", help="our engine's command")
    parser.add_argument("--fairy-stockfish", default=FAIRY_STOCKFISH, help="Fairy-Stockfish's command")
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS, help="openings file")
    parser.add_argument("--seed", type=int, default=1, help="seed of the order of the openings (default 1)")
    parser.add_argument("--concurrency", type=int, default=1, help="games played at once (default 1)")
    parser.add_argument("--pgn", type=Path, help="append the games to this PGN file")
    args = parser.parse_args(argv)
    try:
        numbers = [level(int(text)).number for text in args.levels.split(",")]
    except ValueError as error:
        parser.error(f"--levels: {error}")
    rows = []
    for number in numbers:
        match = Match(match_config(number, args))
        started = time.monotonic()
        tally: Tally | None = None
        try:
            tally = Tally(*match.start_engines())
            match.run(tally, args.seed)
        except EngineError as error:
            print(f"levels.py: {error}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("Interrupted: the last row counts the finished games only.", file=sys.stderr)
            if tally is not None:
                rows.append(row(number, opponent_elo(number, args.offset), tally))
            break
        finally:
            match.close()
        rows.append(row(number, opponent_elo(number, args.offset), tally))
        print("\n".join(tally.summary()), flush=True)
        print(f"Wall time {time.monotonic() - started:.0f} s\n{HEADER}\n{rows[-1]}\n", flush=True)
    print(HEADER)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
