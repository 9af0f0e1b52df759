"""Fits an analysing engine's curve from centipawns to winning chances to game results.

The analysis (:mod:`bot.analysis.judgement`) turns an engine's centipawns into winning chances with
``2 / (1 + exp(-slope * cp)) - 1`` and judges moves by the drop. Lichess's slope (0.00368208) was
made for Stockfish's centipawns; an engine whose centipawns spread less for the same positions
(the built-in engine's) needs a steeper curve for its verdicts to mean the same. This tool finds
that slope from games, as ``tune_evaluation.py`` fits its scaling constant ``k``:

1. it reads the quiet positions of ``make_tuning_data.py``'s files (Fairy-Stockfish's games, each
   position with its game's result for White and Fairy-Stockfish's score), a sample of
   ``--positions`` of them;
2. the engine (the built-in one, or ``--engine CMD``) scores each within ``--nodes`` (or ``--depth``);
3. it fits ``k`` of the tuner's logistic, ``1 / (1 + 10 ** (-k * cp / 400))``, to the results, for
   the engine's scores and for Fairy-Stockfish's on the same positions (mates left out).

The tuner's logistic predicts the expected score ``(1 + w) / 2`` of winning chances ``w``, and
``(1 + w) / 2 = 1 / (1 + exp(-slope * cp))``, so ``slope = k * ln(10) / 400``: that is the slope
"from results". Fairy-Stockfish's own fit on these games (engine self-play at few nodes) differs
from Lichess's slope, made on human games; so the slope that puts the engine on Lichess's scale
is Lichess's slope times the ratio of the two fits, ``0.00368208 * k_engine / k_fsf``, the one to
ship (it is the one the verdicts of Fairy-Stockfish, which keeps Lichess's slope, agree with).

    python -m bench.training.fit_slope bench/data/tuning.tsv [--engine CMD] [--positions 3000] [--nodes 20000]
"""

from __future__ import annotations

import argparse
import math
import random
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import chess.engine
import numpy as np

from bench.training.tune_evaluation import LabelledPosition, fit_k_of_scores, quiet_positions
from bot.analysis import AnalysisEngineError, EngineCommand, analyse_position, close_engine
from bot.analysis.judgement import LICHESS_SLOPE
from variant import KnightmateBoard

#: make_tuning_data's mate score: a score this large is a mate, not centipawns.
MATE_CP = 10_000


def slope_of_k(k: float) -> float:
    """The winning-chances slope of the tuner's ``k`` (the module docstring has the algebra)."""
    return k * math.log(10) / 400


def engine_scores(engine: chess.engine.SimpleEngine, positions: Sequence[LabelledPosition],
                  limit: chess.engine.Limit) -> list[float | None]:
    """Each position's score for White by *engine* within *limit*, None at a mate."""
    scores: list[float | None] = []
    for done, position in enumerate(positions, start=1):
        score = analyse_position(engine, KnightmateBoard(position.fen), limit).score.white()
        scores.append(None if score.is_mate() else float(score.score() or 0))
        if done % 500 == 0:
            print(f"{done}/{len(positions)} positions scored", file=sys.stderr, flush=True)
    return scores


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help="files written by make_tuning_data.py")
    parser.add_argument("--engine", help="the UCI engine to fit, e.g. /usr/games/fairy-stockfish "
                                         "(default: the built-in one)")
    parser.add_argument("--positions", type=int, default=3000, help="quiet positions sampled (default 3000)")
    depth_or_nodes = parser.add_mutually_exclusive_group()
    depth_or_nodes.add_argument("--nodes", type=int, default=20_000, help="nodes a position (default 20000)")
    depth_or_nodes.add_argument("--depth", type=int, help="search each position to this depth instead")
    parser.add_argument("--min-ply", type=int, default=8, help="skip positions before this ply (default 8)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the sample (default 1)")
    args = parser.parse_args(argv)

    every = [position for position in quiet_positions(args.data, args.min_ply) if abs(position.engine_score) < MATE_CP]
    sample = random.Random(args.seed).sample(every, min(args.positions, len(every)))
    limit = chess.engine.Limit(depth=args.depth) if args.depth else chess.engine.Limit(nodes=args.nodes)
    command = EngineCommand(tuple(shlex.split(args.engine)) if args.engine else None)
    started = time.monotonic()
    try:
        engine = command.open()
    except AnalysisEngineError as error:
        print(error, file=sys.stderr)
        return 2
    try:
        scores = engine_scores(engine, sample, limit)
    finally:
        close_engine(engine)
    kept = [(score, position) for score, position in zip(scores, sample, strict=True) if score is not None]
    results = np.array([position.result for _, position in kept])
    k_engine = fit_k_of_scores(np.array([score for score, _ in kept]), results)
    k_fsf = fit_k_of_scores(np.array([position.engine_score for _, position in kept]), results)
    print(f"{command.name}, {limit}: {len(kept)} quiet positions of {len({p.game for _, p in kept})} games "
          f"({len(sample) - len(kept)} mates left out), {time.monotonic() - started:.0f} s")
    print(f"k = {k_engine:.4f}: slope from results {slope_of_k(k_engine):.6f}")
    print(f"Fairy-Stockfish's scores in the data: k = {k_fsf:.4f}, slope from results {slope_of_k(k_fsf):.6f}")
    print(f"slope on Lichess's scale: {LICHESS_SLOPE} * {k_engine:.4f} / {k_fsf:.4f} = "
          f"{LICHESS_SLOPE * k_engine / k_fsf:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
