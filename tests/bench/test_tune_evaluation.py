"""The evaluation tuner's fit (bench/training/tune_evaluation.py) on data whose answer is known."""

from __future__ import annotations

import numpy as np

from bench.training import tune_evaluation


def test_the_fit_finds_a_number_whose_effect_is_small() -> None:
    """A number worth 3 centipawns moves the loss by so little that scipy's default tolerance calls
    a start at 0 fitted already; the fit must still find it (and the held number stays put)."""
    rng = np.random.default_rng(5)
    rows = np.column_stack([rng.integers(-1, 2, 40000), rng.integers(-2, 3, 40000)]).astype(np.float64)
    truth = np.array([3.0, 50.0])
    aims = tune_evaluation.sigmoid(rows @ truth, 1.0)
    start = np.array([0.0, 50.0])
    data = tune_evaluation.DataSet(rows, aims, np.zeros(len(aims)), ["game"] * len(aims))
    fitted = tune_evaluation.fit_values(data, aims, start, 1.0, 0.0, [False, True])
    assert abs(fitted[0] - 3.0) < 0.1
    assert fitted[1] == 50.0


def test_each_fold_is_judged_by_numbers_given_the_other_folds() -> None:
    """fold_error hands the numbers' maker the mask of every fold but one, and averages the error
    of what it returns on that one fold: numbers that fit fold f alone score 0 only there."""
    folds = np.arange(20) % tune_evaluation.FOLDS
    rows = np.eye(tune_evaluation.FOLDS)[folds]  # position i counts number folds[i] once
    results = np.full(20, 0.5)
    data = tune_evaluation.DataSet(rows, results, np.zeros(20), [f"game {fold}" for fold in folds])
    masks = []

    def values_for(train_mask: np.ndarray) -> np.ndarray:
        masks.append(train_mask)
        held_out = int(folds[~train_mask][0])
        values = np.full(tune_evaluation.FOLDS, 400.0)
        values[held_out] = 0.0  # sigmoid(0) = 0.5: exact on the held-out fold
        return values

    assert tune_evaluation.fold_error(data, folds, 1.0, values_for) == 0.0
    assert [sorted(set(folds[~mask])) for mask in masks] == [[fold] for fold in range(tune_evaluation.FOLDS)]
