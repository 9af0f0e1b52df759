"""The sequential probability ratio test of an engine match: play until the games say which of
two Elo differences is the truth, with known error rates.

H0 says engine A is ``elo0`` (logistic) Elo stronger than B, H1 says ``elo1``; with
``elo0, elo1 = 0, 10`` the test asks "is the change worth nothing, or 10 Elo?". After every result
the log-likelihood ratio (LLR) of H1 over H0 is compared with two bounds: below
``log(beta / (1 - alpha))`` H0 is accepted, above ``log((1 - beta) / alpha)`` H1 is; between them
the match goes on. With alpha = beta = 0.05 the bounds are -2.94 and +2.94, and a test that stops
picks the wrong hypothesis at most 5% of the time.

The model is pentanomial, as fishtest's: the two games of an opening (each engine White once)
form a pair scoring 0, 1/4, 1/2, 3/4 or 1 for A, and pairs, not games, are the independent
samples. Paired games are correlated (an opening that favours White shows in both), so counting
them one by one (the trinomial model, also here) misstates the variance. The LLR is the
generalised one: each hypothesis's outcome probabilities are the maximum-likelihood ones among
those whose mean score is that hypothesis's expected score (Michel Van den Bergh's method, as
fishtest computes it); an outcome not seen yet counts as 0.001 of a sample, so that the first
results do not make the LLR infinite.

It only does arithmetic: it never plays, reads or prints anything.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

ALPHA = 0.05
BETA = 0.05
#: Outcome scores of engine A: a pair of games (pentanomial), or one game (trinomial).
PAIR_SCORES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
GAME_SCORES: tuple[float, ...] = (0.0, 0.5, 1.0)
#: The count given to an outcome not seen (regularisation).
UNSEEN = 1e-3


def expected_score(elo: float) -> float:
    """The score expected from a logistic Elo difference."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def bounds(alpha: float = ALPHA, beta: float = BETA) -> tuple[float, float]:
    """The LLR below which H0 is accepted and above which H1 is (Wald's bounds)."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def llr(counts: Sequence[float], scores: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of H1 (*elo1*) over H0 (*elo0*) for *counts* of
    outcomes that score *scores* (each in [0, 1]); 0 before any outcome."""
    if len(counts) != len(scores) or len(scores) < 2:
        raise ValueError("one count per outcome score, at least two outcomes")
    if sum(counts) == 0:
        return 0.0
    regularised = [count if count > 0 else UNSEEN for count in counts]
    total = sum(regularised)
    observed = [count / total for count in regularised]
    under_h0 = _constrained_mle(observed, scores, expected_score(elo0))
    under_h1 = _constrained_mle(observed, scores, expected_score(elo1))
    return total * sum(p * math.log(q1 / q0) for p, q0, q1 in zip(observed, under_h0, under_h1, strict=True))


def _constrained_mle(observed: Sequence[float], scores: Sequence[float], mean: float) -> list[float]:
    """The outcome probabilities q of largest likelihood for *observed* frequencies among those
    with ``sum(q * scores) == mean``: q_i = p_i / (1 + x (s_i - mean)), x the root of
    sum(p_i (s_i - mean) / (1 + x (s_i - mean))) = 0, which falls as x grows (bisection)."""
    lowest, highest = min(scores), max(scores)
    if not lowest < mean < highest:
        raise ValueError(f"expected score {mean} is outside the outcome scores {lowest} .. {highest}")
    deviations = [score - mean for score in scores]
    # Every 1 + x * d must stay positive: x between -1 / (highest - mean) and 1 / (mean - lowest).
    low, high = -1.0 / (highest - mean), 1.0 / (mean - lowest)

    def slope(x: float) -> float:
        return sum(p * d / (1.0 + x * d) for p, d in zip(observed, deviations, strict=True))

    for _ in range(200):
        middle = (low + high) / 2
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    x = (low + high) / 2
    return [p / (1.0 + x * d) for p, d in zip(observed, deviations, strict=True)]


@dataclass
class Sprt:
    """A running test over a match's games, taken in pairs (games 2k - 1 and 2k share an opening).

    Feed it each finished game with :meth:`add`, in any order; a pair counts once both of its
    games are in. :attr:`verdict` is set once the LLR leaves the bounds.
    """

    elo0: float
    elo1: float
    alpha: float = ALPHA
    beta: float = BETA
    pairs: list[int] = field(default_factory=lambda: [0] * len(PAIR_SCORES))
    _halves: dict[int, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"the SPRT needs elo0 < elo1, got {self.elo0}, {self.elo1}")

    def add(self, game_number: int, a_points: float) -> bool:
        """One finished game (numbered from 1) and engine A's points in it (1, 1/2 or 0);
        returns whether that completed a pair (and so changed the LLR)."""
        pair = (game_number - 1) // 2
        other = self._halves.pop(pair, None)
        if other is None:
            self._halves[pair] = a_points
            return False
        self.pairs[round((other + a_points) * 2)] += 1
        return True

    @property
    def llr(self) -> float:
        return llr(self.pairs, PAIR_SCORES, self.elo0, self.elo1)

    @property
    def verdict(self) -> str | None:
        """``"H1 accepted"``, ``"H0 accepted"``, or None while the test goes on."""
        lower, upper = bounds(self.alpha, self.beta)
        value = self.llr
        if value >= upper:
            return "H1 accepted"
        if value <= lower:
            return "H0 accepted"
        return None

    def status(self) -> str:
        """One line: the model, the hypotheses, the pairs so far, the LLR and its bounds."""
        lower, upper = bounds(self.alpha, self.beta)
        counts = " ".join(str(count) for count in self.pairs)
        verdict = self.verdict
        return (f"SPRT pentanomial, elo0 {self.elo0:g} elo1 {self.elo1:g} (logistic), alpha {self.alpha:g} "
                f"beta {self.beta:g}: pairs [{counts}] (0, 1/4, 1/2, 3/4, 1), LLR {self.llr:+.2f} "
                f"({lower:+.2f}, {upper:+.2f})" + (f": {verdict}" if verdict else ""))
