"""bench/training/fit_slope.py: the tuner's k as a winning-chances slope, a fit that finds a known
scale, and a run on a few positions of real data."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from bench.training import fit_slope
from bench.training.tune_evaluation import fit_k_of_scores, sigmoid
from bot.analysis import WinningChancesCurve

#: make_tuning_data's lines: fen, result for White, game, ply, in check, best move a capture, score for White.
LINES = [
    "rmq1kbmr/1pp2ppp/p7/4pP2/2Bp4/P1P2Q2/1PMP1PPP/R1B1K1MR b KQkq - 0 7\t1\t1\t12\t0\t0\t541",
    "rmbqkbmr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RMBQKBMR w KQkq - 0 2\t0.5\t2\t12\t0\t0\t20",
    "rmbqkbmr/pppp1ppp/8/4p3/4P3/3P4/PPP2PPP/RMBQKBMR b KQkq - 0 2\t0\t3\t12\t0\t0\t-30",
    "rmbqkbmr/pppp1ppp/8/4p3/4P3/3P4/PPP2PPP/RMBQKBMR b KQkq - 0 2\t0\t4\t12\t0\t0\t-30",  # seen: left out
    "rmbqkbmr/pppp1ppp/8/8/4p3/3P4/PPP2PPP/RMBQKBMR w KQkq - 0 3\t0\t5\t12\t0\t1\t-30",  # a capture: left out
]


@pytest.mark.parametrize("k", [0.4, 0.82, 1.3])
def test_the_tuners_logistic_is_the_expected_score_of_the_winning_chances_of_its_slope(k: float) -> None:
    curve = WinningChancesCurve(fit_slope.slope_of_k(k))
    for cp in (-700, -120, 0, 35, 400):
        assert float(sigmoid(np.array([cp]), k)[0]) == pytest.approx((1 + curve.winning_chances(cp)) / 2)
    assert fit_slope.slope_of_k(k) == pytest.approx(k * math.log(10) / 400)


def test_the_fit_finds_the_scale_the_results_were_drawn_on() -> None:
    generator = np.random.default_rng(7)
    scores = generator.uniform(-800, 800, 20_000)
    results = (generator.random(20_000) < sigmoid(scores, 0.6)).astype(np.float64)
    assert fit_k_of_scores(scores, results) == pytest.approx(0.6, rel=0.1)
    assert fit_k_of_scores(scores / 2, results) == pytest.approx(1.2, rel=0.1)  # half the centipawns, twice k


def test_a_run_scores_the_quiet_positions_and_prints_both_fits(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "tuning.tsv"
    data.write_text("\n".join(LINES) + "\n")
    assert fit_slope.main([str(data), "--nodes", "300", "--positions", "10"]) == 0
    out = capsys.readouterr().out
    assert "the built-in engine, Limit(nodes=300): 3 quiet positions of 3 games" in out
    assert "slope from results" in out and "slope on Lichess's scale: 0.00368208 * " in out


def test_an_engine_that_does_not_start_is_one_line_and_exit_2(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "tuning.tsv"
    data.write_text(LINES[0] + "\n")
    assert fit_slope.main([str(data), "--engine", "/nonexistent/engine"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
