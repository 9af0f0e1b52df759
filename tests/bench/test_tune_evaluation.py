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
