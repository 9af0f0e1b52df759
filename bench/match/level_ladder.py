"""Calibrates the strength levels: each level against Fairy-Stockfish limited to the same ``UCI_Elo``.

A level is a ``UCI_Elo`` on Fairy-Stockfish's scale (bot/engine/levels.py), so the test of its
label is a match against Fairy-Stockfish (WebAssembly, ``bench/match/fairy_stockfish.sh``) with
``UCI_LimitStrength`` and the same ``UCI_Elo``: a true label scores about 50%. A level far from
its label is better measured against another ``UCI_Elo`` (``--offset``: Fairy-Stockfish plays at
the level's ``UCI_Elo`` plus this). Each match is a ``strength.py`` match (same openings, referee,
clocks and output); after each level a Markdown row of the table in bench/RESULTS.md is printed,
so a run stopped early still has the rows of its finished levels::

    python -m bench.match.level_ladder --levels 1,3,5,8 --games 40 --tc 10+0.1
    python -m bench.match.level_ladder --self-play --levels 2,3,4,5,6,7,8 --games 20 --concurrency 2

``--self-play`` tests that the levels climb: each level plays the one below it (our engine on both
sides). Levels 1-7 search within their own node limits, far below what the clock allows, so their
games do not depend on the machine's load and may run two at once; level 8 is bounded by its
clock, so its pair wants the ladder's clock on a quiet machine.

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

from bench.match.elo import EloEstimate, estimate, score
from bench.match.strength import BENCH, DEFAULT_OPENINGS, Match, MatchConfig, Tally, TimeControl, load_openings
from bench.match.uci_player import EngineError
from bot.engine.levels import LEVELS, level

FAIRY_STOCKFISH = str(BENCH / "fairy_stockfish.sh")
#: Fairy-Stockfish's Move Overhead in the ladder (bench/RESULTS.md: at its default 10 ms it flags at 10+0.1).
FAIRY_MOVE_OVERHEAD_MS = 100
#: Fairy-Stockfish's UCI_Elo bounds (bench/README.md).
FAIRY_MIN_ELO, FAIRY_MAX_ELO = 500, 2850
SELF_PLAY_HEADER = ("| level | against level | games | score (+ = -) | Elo difference (95%) |\n"
                    "|---|---|---|---|---|")
HEADER = ("| level | label | UCI_Elo | Fairy-Stockfish UCI_Elo | games | score (+ = -) | Elo difference (95%) "
          "| measured UCI_Elo |\n|---|---|---|---|---|---|---|---|")


def opponent_elo(level_number: int, offset: int) -> int:
    return max(FAIRY_MIN_ELO, min(FAIRY_MAX_ELO, level(level_number).elo + offset))


def strength_options(elo: int) -> dict[str, str]:
    """The UCI options that limit either engine to *elo*."""
    return {"UCI_LimitStrength": "true", "UCI_Elo": str(elo)}


def match_config(level_number: int, args: argparse.Namespace) -> MatchConfig:
    """Level *level_number* against Fairy-Stockfish, or with ``--self-play`` against the level below."""
    entry = level(level_number)
    if args.self_play:
        command_b, options_b = shlex.split(args.engine), strength_options(level(level_number - 1).elo)
        name_b = f"level {level_number - 1}"
    else:
        opponent = opponent_elo(level_number, args.offset)
        command_b = shlex.split(args.fairy_stockfish)
        options_b = strength_options(opponent) | {"Move Overhead": str(FAIRY_MOVE_OVERHEAD_MS)}
        name_b = f"Fairy-Stockfish {opponent}"
    return MatchConfig(
        command_a=shlex.split(args.engine), command_b=command_b, options_a=strength_options(entry.elo),
        options_b=options_b, name_a=f"level {entry.number}", name_b=name_b, games=args.games,
        openings=load_openings(args.openings), time_control=TimeControl.parse(args.tc), lag_grace_ms=100,
        concurrency=args.concurrency, pgn=args.pgn, nodes=args.nodes)


def score_cells(tally: Tally, result: EloEstimate) -> tuple[str, str]:
    """The score and the Elo difference (*result*) with its 95% interval, as the table's cells."""
    interval = f"{result.lower:+.0f} .. {result.upper:+.0f}"
    elo = f"{result.elo:+.0f} ± {result.error:.0f}" if not math.isinf(result.error) else f"{result.elo:+.0f}"
    return f"{score(tally.wins, tally.draws, tally.losses):.1%} ({tally.score_line()})", f"{elo} ({interval})"


def row(level_number: int, opponent: int, tally: Tally) -> str:
    """The level's row of the calibration table."""
    entry = level(level_number)
    start = f"| {entry.number} | {entry.label} | {entry.elo} | {opponent} | {tally.games} |"
    if tally.games == 0:
        return start + " - | - | - |"
    result = estimate(tally.wins, tally.draws, tally.losses)
    measured = (f"{opponent + result.elo:.0f} ({opponent + result.lower:.0f} .. {opponent + result.upper:.0f})"
                if not math.isinf(result.error) else f"at least {opponent + result.lower:.0f}"
                if math.isinf(result.upper) else f"at most {opponent + result.upper:.0f}")
    score_cell, elo_cell = score_cells(tally, result)
    return f"{start} {score_cell} | {elo_cell} | {measured} |"


def self_play_row(level_number: int, tally: Tally) -> str:
    """The row of the self-play table: the level against the one below."""
    start = f"| {level_number} | {level_number - 1} | {tally.games} |"
    if tally.games == 0:
        return start + " - | - |"
    score_cell, elo_cell = score_cells(tally, estimate(tally.wins, tally.draws, tally.losses))
    return f"{start} {score_cell} | {elo_cell} |"


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
    parser.add_argument("--self-play", action="store_true",
                        help="each level against the level below it instead of Fairy-Stockfish")
    args = parser.parse_args(argv)
    try:
        numbers = [level(int(text)).number for text in args.levels.split(",")]
    except ValueError as error:
        parser.error(f"--levels: {error}")
    if args.self_play and LEVELS[0].number in numbers:
        parser.error(f"--self-play: level {LEVELS[0].number} has no level below it")
    header = SELF_PLAY_HEADER if args.self_play else HEADER

    def table_row(number: int, tally: Tally) -> str:
        return self_play_row(number, tally) if args.self_play else row(number, opponent_elo(number, args.offset), tally)

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
                rows.append(table_row(number, tally))
            break
        finally:
            match.close()
        rows.append(table_row(number, tally))
        print("\n".join(tally.summary()), flush=True)
        print(f"Wall time {time.monotonic() - started:.0f} s\n{header}\n{rows[-1]}\n", flush=True)
    print(header)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
