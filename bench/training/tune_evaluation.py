"""Fits the evaluation's numbers to game results (Texel's method) and can write them into weights.json.

Each position of the data (``make_tuning_data.py``) carries the result of its game for White
(1, 0.5, 0). With the evaluation ``s`` for White in centipawns, the model says White's expected
score is ``sigmoid(s) = 1 / (1 + 10 ** (-k * s / 400))``. The tuner

1. keeps the quiet positions: the side to move is not in check and the data engine's best move is
   not a capture (a static score of a position in the middle of an exchange predicts nothing);
2. computes each position's feature counts once (``evaluation_features.py``), so a score is a
   row of a matrix times the vector of numbers;
3. fits ``k`` with the current numbers, then holds it and minimizes the mean squared error between
   ``sigmoid(s)`` and a target over all the numbers (L-BFGS, with a small pull towards the
   current numbers so that numbers the data hardly sees stay where they are); the target is the
   results, or with ``--result-weight`` below 1 a blend of them with the data engine's own
   prediction from its score, which is far less noisy than one game's result;
4. chooses the pull and the result weight by cross-validation over games (positions of one game
   are alike, so a fold holds whole games): each fold's error is that of a fit to the other
   folds, rounded as it would be written, measured against the results alone;
5. fits all games with the chosen settings, prints the numbers that changed and, with
   ``--write``, puts them into ``bot/engine/data/weights.json`` (never into Python source).

    python -m bench.training.tune_evaluation bench/data/*.tsv [--result-weight 1 0.5] [--write]

Whether the new numbers play better is for a match to say (bench/README.md), not for this error.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize, minimize_scalar

import bot.engine
from bench.training import evaluation_features as model
from bench.training import weights_file
from bot.engine import weights
from variant import KnightmateBoard

Array = npt.NDArray[np.float64]
#: Games are split into this many folds (by a hash of their tag) for cross-validation.
FOLDS = 5


@dataclass
class DataSet:
    """Rows of effective feature counts (the blend already applied), results for White, the data
    engine's scores for White, and the game tags."""

    rows: Array
    results: Array
    engine_scores: Array
    games: list[str]

    def subset(self, mask: npt.NDArray[np.bool_]) -> DataSet:
        return DataSet(self.rows[mask], self.results[mask], self.engine_scores[mask],
                       [game for game, inside in zip(self.games, mask, strict=True) if inside])


def load(paths: Sequence[Path], min_ply: int, jobs: int) -> DataSet:
    """:func:`read`, through a cache next to the first data file: computing the features takes about
    2 ms a position, and the cache key covers everything they depend on (the data files, the
    model's and the evaluation's source, and the weights file, whose phase weights and typical mobility
    counts the features use)."""
    evaluation_path = Path(bot.engine.__file__).with_name("evaluation.py")  # the source, in either build
    key = [min_ply, model.__file__, str(evaluation_path)]
    key += [(str(path), path.stat().st_size, path.stat().st_mtime_ns) for path in paths]
    sources = Path(model.__file__).read_bytes() + evaluation_path.read_bytes() + weights_file.PATH.read_bytes()
    digest = f"{zlib.crc32(repr(key).encode() + sources):08x}"
    cache = paths[0].parent / f".features-{digest}.npz"
    if cache.exists():
        saved = np.load(cache)
        return DataSet(saved["rows"], saved["results"], saved["engine_scores"], list(saved["games"]))
    data = read(paths, min_ply, jobs)
    np.savez(cache, rows=data.rows, results=data.results, engine_scores=data.engine_scores,
             games=np.array(data.games))
    return data


@dataclass(frozen=True)
class LabelledPosition:
    """One line of the data: a position, its game's result for White, the data engine's score for
    White (mates as +-10000) and the game's tag."""

    fen: str
    result: float
    engine_score: float
    game: str


def quiet_positions(paths: Sequence[Path], min_ply: int) -> Iterator[LabelledPosition]:
    """The quiet positions of the data files (see the module docstring) from ply *min_ply* on,
    each position once (the first time it is seen)."""
    seen: set[str] = set()
    for path in paths:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            fields = line.split("\t")
            if len(fields) != 7:
                raise ValueError(f"{path}:{number}: expected 7 tab-separated fields, got {len(fields)}")
            fen, result, game, ply, in_check, capture, engine_score = fields
            position = " ".join(fen.split()[:4])
            if int(in_check) or int(capture) or int(ply) < min_ply or position in seen:
                continue
            seen.add(position)
            yield LabelledPosition(fen, float(result), float(engine_score), f"{path.name}:{game}")


def read(paths: Sequence[Path], min_ply: int, jobs: int) -> DataSet:
    """Reads the quiet positions of the data files, each position once (the first time it is seen),
    and computes their features in *jobs* processes (in order, so the rows do not depend on it)."""
    fens: list[str] = []
    results: list[float] = []
    engine_scores: list[float] = []
    games: list[str] = []
    for position in quiet_positions(paths, min_ply):
        fens.append(position.fen)
        results.append(position.result)
        engine_scores.append(position.engine_score)
        games.append(position.game)
    with multiprocessing.Pool(jobs) as pool:
        rows = pool.map(_row, fens, chunksize=2000)
    return DataSet(np.vstack(rows) if rows else np.zeros((0, len(model.KEYS))), np.array(results),
                   np.array(engine_scores), games)


def _row(fen: str) -> Array:
    return np.array(effective_counts(model.features(KnightmateBoard(fen))))


def effective_counts(f: model.Features) -> list[float]:
    """The counts with the phase blend applied, for White's view: score = row . numbers (all zero
    where the evaluation scores 0 whatever the numbers)."""
    if f.lone_piece:
        return [0.0] * len(f.mg)
    total = weights.PHASE_TOTAL
    row = [(mg * f.phase + eg * (total - f.phase)) / total for mg, eg in zip(f.mg, f.eg, strict=True)]
    row[model.TEMPO] = 1.0 if f.white_to_move else -1.0
    return row


def sigmoid(scores: Array, k: float) -> Array:
    result: Array = 1.0 / (1.0 + np.power(10.0, -k * scores / 400.0))
    return result


def error(data: DataSet, values: Array, k: float) -> float:
    return float(np.mean((sigmoid(data.rows @ values, k) - data.results) ** 2))


def fit_k(data: DataSet, values: Array) -> float:
    return fit_k_of_scores(data.rows @ values, data.results)


def fit_k_of_scores(scores: Array, results: Array) -> float:
    """The ``k`` whose sigmoid of *scores* (centipawns for White) best predicts *results* (least squares)."""
    found = minimize_scalar(lambda k: float(np.mean((sigmoid(scores, k) - results) ** 2)),
                            bounds=(0.1, 5.0), method="bounded")
    return float(found.x)


def targets(data: DataSet, result_weight: float, engine_k: float) -> Array:
    """What the fit aims at: the game results, or with *result_weight* below 1 a blend with the
    data engine's own predictions (its scores through the sigmoid), which are far less noisy than
    one game's result. The error that judges a fit is always measured against the results."""
    blended: Array = result_weight * data.results + (1.0 - result_weight) * sigmoid(data.engine_scores, engine_k)
    return blended


def fit_values(data: DataSet, aims: Array, start: Array, k: float, pull: float, frozen: Sequence[bool]) -> Array:
    """Minimizes the squared distance to *aims* plus ``pull`` times the mean squared change (in
    pawns) of the numbers, holding the *frozen* ones where they are."""
    scale = np.log(10.0) * k / 400.0
    count = len(start)

    def objective(values: Array) -> tuple[float, Array]:
        predicted = sigmoid(data.rows @ values, k)
        residual = predicted - aims
        change = (values - start) / 100.0
        loss = float(np.mean(residual**2)) + pull * float(np.mean(change**2))
        slope = 2.0 * residual * predicted * (1.0 - predicted) * scale
        gradient: Array = data.rows.T @ slope / len(residual) + pull * 2.0 * change / 100.0 / count
        return loss, gradient

    bounds = [(value, value) if hold else (None, None) for value, hold in zip(start, frozen, strict=True)]
    # The loss's slope in a number worth a few centipawns is about 1e-5 a centipawn, which is
    # scipy's default gradient tolerance: with it, a fit could stop before its first step.
    found = minimize(objective, start, jac=True, method="L-BFGS-B", bounds=bounds,
                     options={"maxiter": 2000, "gtol": 1e-12, "ftol": 1e-15})
    result: Array = found.x
    return result


def fold_error(data: DataSet, folds: npt.NDArray[np.int64], k: float,
               values_for: Callable[[npt.NDArray[np.bool_]], Array]) -> float:
    """The mean error on each fold of games of the numbers *values_for* gives for the other folds
    (it gets their mask, and copies their rows only if it fits to them: the rows of a few hundred
    thousand positions take gigabytes). Folds of whole games differ in size, so this is not the
    error over all positions: numbers are compared by this alone."""
    errors = []
    for fold in range(FOLDS):
        errors.append(error(data.subset(folds == fold), values_for(folds != fold), k))
    return float(np.mean(errors))


def cross_validated_error(data: DataSet, folds: npt.NDArray[np.int64], start: Array, k: float, pull: float,
                          frozen: Sequence[bool], result_weight: float, engine_k: float) -> float:
    """The :func:`fold_error` of a fit (rounded) to the other folds."""

    def fitted(train_mask: npt.NDArray[np.bool_]) -> Array:
        train = data.subset(train_mask)
        return np.round(fit_values(train, targets(train, result_weight, engine_k), start, k, pull, frozen))

    return fold_error(data, folds, k, fitted)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help="files written by make_tuning_data.py")
    parser.add_argument("--min-ply", type=int, default=8, help="skip positions before this ply (default 8)")
    parser.add_argument("--pull", type=float, nargs="+", default=[0.03, 0.1, 0.3, 1.0, 3.0, 10.0],
                        help="weights of the pull towards the current numbers to try; the one with the "
                             "least cross-validated error wins (default 0.03 0.1 0.3 1 3 10)")
    parser.add_argument("--result-weight", type=float, nargs="+", default=[1.0],
                        help="weights of the game result in the fit's target, against the data engine's "
                             "predictions, to try (default 1: results only, pure Texel)")
    parser.add_argument("--freeze", action="append", default=[], metavar="REGEX",
                        help="hold the numbers whose name (as printed) matches, e.g. 'PAWN_' (repeatable)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes that compute the features (default: one per core)")
    parser.add_argument("--write", action="store_true",
                        help="write the chosen rounded numbers into bot/engine/data/weights.json")
    args = parser.parse_args(argv)

    data = load(args.data, args.min_ply, args.jobs)
    folds = np.array([zlib.crc32(game.encode()) % FOLDS for game in data.games])
    frozen = [any(re.search(pattern, model.label(key)) for pattern in args.freeze) for key in model.KEYS]
    print(f"{len(data.results)} quiet positions from {len(set(data.games))} games; "
          f"{len(model.KEYS) - sum(frozen)} numbers fitted, {sum(frozen)} held")

    current = np.array(model.current_values(), dtype=np.float64)
    k = fit_k(data, current)
    engine_k = fit_k_of_scores(data.engine_scores, data.results)
    print(f"k = {k:.4f} (the data engine's scores: {engine_k:.4f}, error "
          f"{float(np.mean((sigmoid(data.engine_scores, engine_k) - data.results) ** 2)):.6f})")
    print(f"error over {FOLDS} folds of games, each predicted by a fit to the others:")
    current_error = fold_error(data, folds, k, lambda train_mask: current)
    print(f"{'current':<24} {current_error:.6f}")
    best_choice, best_error = None, current_error
    for weight in args.result_weight:
        for pull in args.pull:
            validated = cross_validated_error(data, folds, current, k, pull, frozen, weight, engine_k)
            print(f"{f'result weight {weight:g}, pull {pull:g}':<24} {validated:.6f}", flush=True)
            if validated < best_error:
                best_choice, best_error = (weight, pull), validated
    if best_choice is None:
        print("no fit beats the current numbers on games it was not fitted to")
        return 0
    weight, pull = best_choice
    best = np.round(fit_values(data, targets(data, weight, engine_k), current, k, pull, frozen)) + 0.0  # no "-0"
    print(f"fit to all games with result weight {weight:g}, pull {pull:g}: error {error(data, best, k):.6f}; "
          "changed numbers:")
    for key, old, new in zip(model.KEYS, current, best, strict=True):
        if old != new:
            print(f"  {model.label(key):<32} {old:>6.0f} -> {new:>6.0f}")
    if args.write:
        weights_file.write([int(v) for v in best])
        print(f"wrote {weights_file.PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
