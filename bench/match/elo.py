"""Score and Elo arithmetic for a match between two engines.

Turns a count of wins, draws and losses into the score, the logistic Elo difference and its 95%
interval, and the likelihood of superiority, the way engine testers (cutechess-cli, fishtest) report
them. It only does arithmetic: it never plays, reads or prints anything.

The interval comes from the normal approximation of the mean game score, each game scoring 1, 1/2
or 0. That approximation collapses when every game has the same result (a 20-0 sweep has no
variance), so for a clean sweep the open end of the interval is the exact binomial bound instead:
the lowest winning probability under which 20 wins in 20 games still had a 2.5% chance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Two-sided 95%: the normal quantile and the tail probability on each side.
Z_95 = 1.959964
TAIL_95 = 0.025


def score(wins: int, draws: int, losses: int) -> float:
    """The mean points per game, draws counting half."""
    games = wins + draws + losses
    if games == 0:
        raise ValueError("no games were played")
    return (wins + draws / 2) / games


def elo_from_score(fraction: float) -> float:
    """The logistic Elo difference that predicts this expected score (infinite at 0 and 1)."""
    if fraction <= 0.0:
        return -math.inf
    if fraction >= 1.0:
        return math.inf
    return 400.0 * math.log10(fraction / (1.0 - fraction))


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95% interval; the ends may be infinite after a sweep."""

    elo: float
    lower: float
    upper: float
    los: float
    """Likelihood of superiority: the probability that the first engine is the stronger one."""

    @property
    def error(self) -> float:
        """Half the interval's width, the "+/-" of cutechess-cli (infinite when an end is)."""
        return (self.upper - self.lower) / 2


def estimate(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo difference of the first engine over the second from its wins, draws and losses."""
    games = wins + draws + losses
    mean = score(wins, draws, losses)
    variance = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean**2) / games
    margin = Z_95 * math.sqrt(variance / games)
    low, high = mean - margin, mean + margin
    if wins == games:
        low = TAIL_95 ** (1 / games)
    elif losses == games:
        high = 1 - TAIL_95 ** (1 / games)
    return EloEstimate(
        elo=elo_from_score(mean),
        lower=elo_from_score(low),
        upper=elo_from_score(high),
        los=likelihood_of_superiority(wins, losses),
    )


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """The probability that the engine is stronger, from decisive games only (draws say nothing)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))
