"""Fits the evaluation's numbers to game results (Texel's method) and can write them into evaluation.py.

Each position of the data (``make_tuning_data.py``) carries the result of its game for White
(1, 0.5, 0). With the evaluation ``s`` for White in centipawns, the model says White's expected
score is ``sigmoid(s) = 1 / (1 + 10 ** (-k * s / 400))``. The tuner

1. keeps the quiet positions: the side to move is not in check and the data engine's best move is
   not a capture (a static score of a position in the middle of an exchange predicts nothing);
2. computes each position's feature counts once (``evaluation_features.py``), so a score is a
   row of a matrix times the vector of numbers;
3. fits ``k`` with the current numbers, then holds it and minimizes the mean squared error between
   ``sigmoid(s)`` and the results over all the numbers (L-BFGS, with a small pull towards the
   current numbers so that numbers the data hardly sees stay where they are);
4. reports the error on the training games and on held-out games (one game in ten) for the
   current, the fitted and the rounded numbers, and the numbers that changed;
5. with ``--write``, puts the rounded numbers into ``bot/engine/evaluation.py``.

    python bench/tune_evaluation.py bench/data/*.tsv [--write]

Whether the new numbers play better is for a match to say (bench/README.md), not for this error.
"""

from __future__ import annotations

import argparse
import re
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import evaluation_features as model
import evaluation_source
import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize, minimize_scalar

from bot.engine import evaluation
from variant import KnightmateBoard

Array = npt.NDArray[np.float64]


@dataclass
class DataSet:
    """Rows of effective feature counts (the blend already applied), results, and the game tags."""

    rows: Array
    results: Array
    games: list[str]


def load(paths: Sequence[Path], min_ply: int) -> DataSet:
    """Reads the quiet positions of the data files, each position once (the first time it is seen)."""
    seen: set[str] = set()
    rows: list[list[float]] = []
    results: list[float] = []
    games: list[str] = []
    for path in paths:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            fields = line.split("\t")
            if len(fields) != 7:
                raise ValueError(f"{path}:{number}: expected 7 tab-separated fields, got {len(fields)}")
            fen, result, game, ply, in_check, capture, _ = fields
            position = " ".join(fen.split()[:4])
            if int(in_check) or int(capture) or int(ply) < min_ply or position in seen:
                continue
            seen.add(position)
            rows.append(effective_counts(model.features(KnightmateBoard(fen))))
            results.append(float(result))
            games.append(f"{path.name}:{game}")
    return DataSet(np.array(rows), np.array(results), games)


def effective_counts(f: model.Features) -> list[float]:
    """The counts with the phase blend applied, for White's view: score = row . numbers."""
    total = evaluation.PHASE_TOTAL
    row = [(mg * f.phase + eg * (total - f.phase)) / total for mg, eg in zip(f.mg, f.eg, strict=True)]
    row[model.TEMPO] = 1.0 if f.white_to_move else -1.0
    return row


def is_held_out(game: str) -> bool:
    return zlib.crc32(game.encode()) % 10 == 0


def sigmoid(scores: Array, k: float) -> Array:
    result: Array = 1.0 / (1.0 + np.power(10.0, -k * scores / 400.0))
    return result


def error(data: DataSet, values: Array, k: float) -> float:
    return float(np.mean((sigmoid(data.rows @ values, k) - data.results) ** 2))


def fit_k(data: DataSet, values: Array) -> float:
    found = minimize_scalar(lambda k: error(data, values, k), bounds=(0.1, 5.0), method="bounded")
    return float(found.x)


def fit_values(data: DataSet, start: Array, k: float, pull: float, frozen: Sequence[bool]) -> Array:
    """Minimizes the error plus ``pull`` times the mean squared change (in pawns) of the numbers,
    holding the *frozen* ones where they are."""
    scale = np.log(10.0) * k / 400.0
    count = len(start)

    def objective(values: Array) -> tuple[float, Array]:
        predicted = sigmoid(data.rows @ values, k)
        residual = predicted - data.results
        change = (values - start) / 100.0
        loss = float(np.mean(residual**2)) + pull * float(np.mean(change**2))
        slope = 2.0 * residual * predicted * (1.0 - predicted) * scale
        gradient: Array = data.rows.T @ slope / len(residual) + pull * 2.0 * change / 100.0 / count
        return loss, gradient

    bounds = [(value, value) if hold else (None, None) for value, hold in zip(start, frozen, strict=True)]
    found = minimize(objective, start, jac=True, method="L-BFGS-B", bounds=bounds, options={"maxiter": 2000})
    result: Array = found.x
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help="files written by make_tuning_data.py")
    parser.add_argument("--min-ply", type=int, default=8, help="skip positions before this ply (default 8)")
    parser.add_argument("--pull", type=float, default=0.001,
                        help="weight of the pull towards the current numbers (default 0.001)")
    parser.add_argument("--freeze", action="append", default=[], metavar="REGEX",
                        help="hold the numbers whose name (as printed) matches, e.g. '_PAWN_' (repeatable)")
    parser.add_argument("--write", action="store_true", help="write the rounded numbers into evaluation.py")
    args = parser.parse_args(argv)

    data = load(args.data, args.min_ply)
    held_out = np.array([is_held_out(game) for game in data.games])
    train = DataSet(data.rows[~held_out], data.results[~held_out], [])
    test = DataSet(data.rows[held_out], data.results[held_out], [])
    print(f"{len(data.results)} quiet positions from {len(set(data.games))} games; "
          f"{len(test.results)} held out; {len(model.KEYS)} numbers")

    current = np.array(model.current_values(), dtype=np.float64)
    k = fit_k(train, current)
    frozen = [any(re.search(pattern, model.label(key)) for pattern in args.freeze) for key in model.KEYS]
    print(f"{len(model.KEYS) - sum(frozen)} numbers fitted, {sum(frozen)} held")
    fitted = fit_values(train, current, k, args.pull, frozen)
    rounded = np.round(fitted)
    print(f"k = {k:.4f}")
    print(f"{'numbers':<10} {'train error':>12} {'held-out error':>15}")
    for name, values in (("current", current), ("fitted", fitted), ("rounded", rounded)):
        print(f"{name:<10} {error(train, values, k):>12.6f} {error(test, values, k):>15.6f}")
    print("changed numbers:")
    for key, old, new in zip(model.KEYS, current, rounded, strict=True):
        if old != new:
            print(f"  {model.label(key):<32} {old:>6.0f} -> {new:>6.0f}")

    if args.write:
        path = evaluation_source.PATH
        path.write_text(evaluation_source.with_values(path.read_text(), [int(v) for v in rounded]))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
