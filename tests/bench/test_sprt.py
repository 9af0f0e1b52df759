"""The SPRT's arithmetic (bench/match/sprt.py) against values worked out another way."""

from __future__ import annotations

import math

import pytest

from bench.match.sprt import GAME_SCORES, PAIR_SCORES, Sprt, bounds, expected_score, llr


def test_wald_bounds_for_five_percent_errors() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944439, abs=1e-6)  # log(0.05 / 0.95)
    assert upper == pytest.approx(2.944439, abs=1e-6)


def test_expected_score_is_the_logistic_curve() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-400) == pytest.approx(1 / 11)


def test_without_draws_the_llr_is_the_binomial_one() -> None:
    """With only wins and losses the constrained maximum-likelihood probabilities are the
    hypotheses' scores themselves, so the LLR has a closed form (up to the 0.001 given to the
    unseen draw)."""
    wins, losses = 30, 20
    s0, s1 = expected_score(0), expected_score(10)
    exact = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert llr([losses, 0, wins], GAME_SCORES, 0, 10) == pytest.approx(exact, abs=2e-3)
    assert exact == pytest.approx(0.2671, abs=1e-4)  # by hand: 30 log(1.02879) + 20 log(0.97121)


def brute_force_trinomial_llr(losses: int, draws: int, wins: int, elo0: float, elo1: float) -> float:
    """The same generalised LLR by direct search: under a mean score s the trinomial has one free
    parameter (the win probability w; then draws 2 (s - w), losses 1 - w - 2 (s - w)), and the
    log-likelihood is maximised over w by ternary search."""
    def best(s: float) -> float:
        def log_likelihood(w: float) -> float:
            d = 2 * (s - w)
            loss = 1 - w - d
            return losses * math.log(loss) + draws * math.log(d) + wins * math.log(w)
        low, high = max(0.0, 2 * s - 1) + 1e-12, s - 1e-12
        for _ in range(300):
            a, b = low + (high - low) / 3, high - (high - low) / 3
            if log_likelihood(a) < log_likelihood(b):
                low = a
            else:
                high = b
        return log_likelihood((low + high) / 2)
    return best(expected_score(elo1)) - best(expected_score(elo0))


@pytest.mark.parametrize(("losses", "draws", "wins"), [(20, 40, 30), (35, 10, 25), (3, 90, 7), (50, 50, 50)])
def test_the_trinomial_llr_equals_a_direct_maximisation(losses: int, draws: int, wins: int) -> None:
    assert llr([losses, draws, wins], GAME_SCORES, 0, 10) == pytest.approx(
        brute_force_trinomial_llr(losses, draws, wins, 0, 10), abs=1e-6)


def test_many_pairs_give_the_normal_approximation() -> None:
    """For large samples the generalised LLR tends to N (s1 - s0) (2 mean - s0 - s1) / (2 var),
    the sample's mean and variance taken per pair."""
    counts = [400, 1800, 3600, 2300, 500]
    total = sum(counts)
    mean = sum(c * s for c, s in zip(counts, PAIR_SCORES, strict=True)) / total
    variance = sum(c * (s - mean) ** 2 for c, s in zip(counts, PAIR_SCORES, strict=True)) / total
    s0, s1 = expected_score(0), expected_score(5)
    approximate = total * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    assert llr(counts, PAIR_SCORES, 0, 5) == pytest.approx(approximate, rel=0.01)


def test_an_even_score_between_symmetric_hypotheses_says_nothing() -> None:
    assert llr([3, 10, 24, 10, 3], PAIR_SCORES, -10, 10) == pytest.approx(0, abs=1e-9)
    assert llr([0, 0, 0, 0, 0], PAIR_SCORES, 0, 10) == 0


def test_pairs_are_formed_from_the_two_games_of_an_opening_in_any_order() -> None:
    test = Sprt(0, 10)
    assert not test.add(2, 1.0)  # game 2 before game 1: the pair waits
    assert not test.add(3, 0.5)
    assert test.add(1, 0.5)
    assert test.add(4, 0.0)
    assert test.pairs == [0, 1, 0, 1, 0]  # (game 3 1/2 + game 4 0) / 2 = 1/4; (1/2 + 1) / 2 = 3/4
    assert test.verdict is None
    assert test.llr < 0  # an even score fits "0 Elo" better than "10 Elo"
    assert test.status().startswith("SPRT pentanomial") and f"LLR {test.llr:+.2f}" in test.status()


def test_a_clear_winner_is_accepted_and_a_clear_loser_rejected() -> None:
    winner, loser = Sprt(0, 10), Sprt(0, 10)
    number = 0
    while winner.verdict is None or loser.verdict is None:
        for result in (1.0, 0.5):  # a pair scores 3/4 for the winner, 1/4 for the loser
            number += 1
            winner.add(number, result)
            loser.add(number, 1.0 - result)
        # a few even pairs keep the variance honest
        for result in (1.0, 0.0):
            number += 1
            winner.add(number, result)
            loser.add(number, result)
        assert number < 2000
    assert winner.verdict == "H1 accepted" and winner.llr >= bounds()[1]
    assert loser.verdict == "H0 accepted" and loser.llr <= bounds()[0]
    assert "H1 accepted" in winner.status()


def test_bad_hypotheses_are_refused() -> None:
    with pytest.raises(ValueError, match="elo0 < elo1"):
        Sprt(10, 0)
    with pytest.raises(ValueError, match="one count per outcome"):
        llr([1, 2], PAIR_SCORES, 0, 10)
