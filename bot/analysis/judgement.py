"""How good a move was, judged as Lichess judges it: winning chances, inaccuracy/mistake/blunder, accuracy.

Everything here works on scores from the mover's side (python-chess's :class:`chess.engine.Score`)
and follows Lichess's published rules (lila's ``Advice``, scalachess's ``WinPercent``, lila's
``AccuracyPercent``), so a Knightmate player reads the same verdicts as on Lichess:

* Winning chances, -1..1, from centipawns on Lichess's logistic curve (its multiplier was fitted
  to rapid games of players rated 2300 and above). A move is an inaccuracy, a mistake or a blunder
  when the mover's winning chances drop by 0.1, 0.2 or 0.3.
* Mates: a move that lets the opponent force mate is a blunder (a mistake or inaccuracy when the
  mover was already 7 or 10 pawns down); a move that lets a forced mate of its own slip is a
  blunder (a mistake or inaccuracy when it stays 7 or 10 pawns up). A slower mate is no error.
* Accuracy: each move's accuracy from the drop of the mover's win percentage (0..100, mates as
  10 pawns), and a game's accuracy per side as the mean of the volatility-weighted and the
  harmonic mean of its moves' accuracies.
"""

from __future__ import annotations

import enum
import math
import statistics
from collections.abc import Sequence

import chess
import chess.engine
import chess.pgn

#: Lichess's slope of the logistic curve from centipawns to winning chances.
WINNING_CHANCES_SLOPE = 0.00368208
#: Centipawns beyond which more material no longer changes the win percentage; a mate counts as this.
WIN_PERCENT_CEILING_CP = 1000
#: Lichess's fit of a move's accuracy to the drop of the mover's win percentage.
_ACCURACY_SCALE = 103.1668100711649
_ACCURACY_DECAY = 0.04354415386753951
_ACCURACY_OFFSET = -3.166924740191411
#: Added to every move's accuracy by Lichess: "uncertainty bonus (due to imperfect analysis)".
_ACCURACY_BONUS = 1.0


class Judgement(enum.Enum):
    """A move's error, with its PGN NAG (``?!``, ``?``, ``??``) and the drop of winning chances it starts at."""

    INACCURACY = ("Inaccuracy", chess.pgn.NAG_DUBIOUS_MOVE, 0.1)
    MISTAKE = ("Mistake", chess.pgn.NAG_MISTAKE, 0.2)
    BLUNDER = ("Blunder", chess.pgn.NAG_BLUNDER, 0.3)

    def __init__(self, label: str, nag: int, drop: float) -> None:
        self.label = label
        self.nag = nag
        self.drop = drop


#: Worst first, as they are tried.
_BY_DROP = (Judgement.BLUNDER, Judgement.MISTAKE, Judgement.INACCURACY)


def winning_chances(cp: int) -> float:
    """Lichess's winning chances, -1 (lost) to 1 (won), of a position worth *cp* centipawns."""
    return 2 / (1 + math.exp(-WINNING_CHANCES_SLOPE * cp)) - 1


def win_percent(score: chess.engine.Score) -> float:
    """The mover's win percentage, 0..100, at *score*; centipawns beyond the ceiling and mates
    count as the ceiling."""
    if score.is_mate():
        cp = WIN_PERCENT_CEILING_CP if score > chess.engine.Cp(0) else -WIN_PERCENT_CEILING_CP
    else:
        cp = max(-WIN_PERCENT_CEILING_CP, min(WIN_PERCENT_CEILING_CP, score.score() or 0))
    return 50 + 50 * winning_chances(cp)


def chances_percent(score: chess.engine.Score) -> float:
    """The side's share of the winning chances, 0..100, as the page's evaluation bar and graph draw
    it: Lichess's curve without the ceiling :func:`win_percent` puts on accuracy, and all of it (or
    none) at a mate, the mate already given included."""
    if score.is_mate():
        return 100.0 if score > chess.engine.Cp(0) else 0.0
    return 50 + 50 * winning_chances(score.score() or 0)


def move_accuracy(before: chess.engine.Score, after: chess.engine.Score) -> float:
    """A move's accuracy, 0..100, from the mover's scores before and after it."""
    return _accuracy_of_drop(win_percent(before) - win_percent(after))


def judge(before: chess.engine.Score, after: chess.engine.Score) -> Judgement | None:
    """The error of a move that took the mover's score from *before* to *after*, or None."""
    if before.is_mate() or after.is_mate():
        return _judge_mates(before, after)
    drop = winning_chances(before.score() or 0) - winning_chances(after.score() or 0)
    return next((judgement for judgement in _BY_DROP if drop >= judgement.drop), None)


def _judge_mates(before: chess.engine.Score, after: chess.engine.Score) -> Judgement | None:
    winning_before = before.is_mate() and before > chess.engine.Cp(0)
    mated_after = after.is_mate() and after < chess.engine.Cp(0)
    if not before.is_mate() and mated_after:  # let the opponent force mate
        return _by_material(-(before.score() or 0))
    if winning_before and not after.is_mate():  # let a forced mate slip
        return _by_material(after.score() or 0)
    if winning_before and mated_after:
        return Judgement.BLUNDER
    return None


def _by_material(cp: int) -> Judgement:
    """A mate let slip with *cp* left (or let in *cp* down): less of an error the more was at stake."""
    if cp > 999:
        return Judgement.INACCURACY
    if cp > 700:
        return Judgement.MISTAKE
    return Judgement.BLUNDER


def game_accuracy(win_percents: Sequence[float], first_mover: chess.Color) -> dict[chess.Color, float | None]:
    """Each side's accuracy in a game whose positions had these White win percentages (the start
    position first, then one after each move; *first_mover* made the first move), or None for a
    side without a move.

    Lichess's game accuracy: a move's accuracy weighs as the volatility (standard deviation of the
    win percentages, 0.5 to 12) of a window of positions around it, and a side's figure is the mean
    of that weighted mean and the harmonic mean of its moves' accuracies.
    """
    moves = len(win_percents) - 1
    if moves < 1:
        return {chess.WHITE: None, chess.BLACK: None}
    window_size = max(2, min(8, moves // 10))
    head = list(win_percents[:window_size])
    windows = [head] * max(0, min(window_size, len(win_percents)) - 2)
    windows += [list(win_percents[start:start + window_size]) for start in range(len(win_percents) - window_size + 1)]
    weights = [max(0.5, min(12.0, statistics.pstdev(window))) for window in windows]
    accuracies: dict[chess.Color, list[tuple[float, float]]] = {chess.WHITE: [], chess.BLACK: []}
    for index in range(moves):
        mover = first_mover if index % 2 == 0 else not first_mover
        before, after = win_percents[index], win_percents[index + 1]
        if mover == chess.BLACK:
            before, after = 100 - before, 100 - after
        accuracies[mover].append((_accuracy_of_drop(before - after), weights[index]))
    return {color: _side_accuracy(pairs) for color, pairs in accuracies.items()}


def _accuracy_of_drop(drop: float) -> float:
    """A move's accuracy when it dropped the mover's win percentage by *drop* points."""
    if drop <= 0:
        return 100.0
    raw = _ACCURACY_SCALE * math.exp(-_ACCURACY_DECAY * drop) + _ACCURACY_OFFSET + _ACCURACY_BONUS
    return max(0.0, min(100.0, raw))


def _side_accuracy(pairs: list[tuple[float, float]]) -> float | None:
    if not pairs:
        return None
    weighted = sum(accuracy * weight for accuracy, weight in pairs) / sum(weight for _, weight in pairs)
    harmonic = len(pairs) / sum(1 / max(1.0, accuracy) for accuracy, _ in pairs)
    return (weighted + harmonic) / 2
