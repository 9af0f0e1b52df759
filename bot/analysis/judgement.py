"""How good a move was, judged as Lichess judges it: winning chances, inaccuracy/mistake/blunder, accuracy.

Everything here works on scores from the mover's side (python-chess's :class:`chess.engine.Score`)
and follows Lichess's published rules (lila's ``Advice``, scalachess's ``WinPercent``, lila's
``AccuracyPercent``), so a Knightmate player reads the same verdicts as on Lichess:

* Winning chances, -1..1, from centipawns on a logistic curve, ``2 / (1 + exp(-slope * cp)) - 1``,
  whose slope belongs to the engine that judges (:class:`WinningChancesCurve`): Lichess's for
  Stockfish-like engines (fitted to rapid games of players rated 2300 and above), the built-in
  engine's own for its smaller centipawns. A move is an inaccuracy, a mistake or a blunder when the
  mover's winning chances drop by 0.1, 0.2 or 0.3.
* Mates: a move that lets the opponent force mate is a blunder (a mistake or inaccuracy when the
  mover was already 7 or 10 pawns down); a move that lets a forced mate of its own slip is a
  blunder (a mistake or inaccuracy when it stays 7 or 10 pawns up). A slower mate is no error.
* Accuracy: each move's accuracy from the drop of the mover's win percentage (0..100, mates as
  10 pawns), and a game's accuracy per side as the mean of the volatility-weighted and the
  harmonic mean of its moves' accuracies.

The pawns of these rules are Lichess's (Stockfish's); an engine on another scale reads them as the
centipawns with the same winning chances on its own curve, so that every verdict means the same
whichever engine judges.
"""

from __future__ import annotations

import enum
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import chess
import chess.engine
import chess.pgn

#: Lichess's slope of the logistic curve from centipawns to winning chances (scalachess's
#: ``WinPercent``), kept for Fairy-Stockfish and any other engine on Stockfish's scale.
LICHESS_SLOPE = 0.00368208
#: The built-in engine's slope, fitted to game results as the evaluation's tuner fits its ``k``
#: (``1 / (1 + 10 ** (-k * cp / 400))``, the expected score, is ``(1 + w) / 2`` for winning chances
#: ``w`` on a slope of ``k * ln(10) / 400``). On 1,988 quiet positions of 570 games of Fairy-Stockfish
#: (``make_tuning_data --minutes 3 --nodes 1000 --seed 301``), each scored by the built-in engine at
#: 10,000 nodes: k = 0.6711, and Fairy-Stockfish's own scores of the same positions k = 0.4441. Those
#: games are not Lichess's (engines at few nodes, adjudicated), so the slope is Lichess's scaled by
#: the ratio of the two fits, 0.00368208 * 0.6711 / 0.4441 = 0.00556: the built-in engine's pawn
#: is worth about 1.5 of Fairy-Stockfish's in winning chances, and the two agree on a verdict where
#: they agree on the position (``python -m bench.training.fit_slope``, 2026-12-05).
BUILTIN_SLOPE = 0.00556
#: Centipawns (Lichess's) beyond which more material no longer changes the win percentage; a mate counts as this.
WIN_PERCENT_CEILING_CP = 1000
#: Centipawns (Lichess's) at stake beyond which a mate let in or let slip is only a mistake, then an inaccuracy.
_MATE_MISTAKE_CP = 700
_MATE_INACCURACY_CP = 999
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


@dataclass(frozen=True)
class WinningChancesCurve:
    """How one engine's centipawns become winning chances: ``2 / (1 + exp(-slope * cp)) - 1``.

    The slope is the engine's, not the rules': an engine whose pawn is worth less on the board
    (whose scores spread less for the same positions) needs a steeper curve for its verdicts to
    mean what Lichess's mean. :attr:`bot.analysis.EngineCommand.curve` says which curve an engine has.
    """

    slope: float

    def __post_init__(self) -> None:
        if not self.slope > 0:
            raise ValueError(f"the slope of a winning-chances curve must be positive, not {self.slope!r}")

    def winning_chances(self, cp: float) -> float:
        """The winning chances, -1 (lost) to 1 (won), of a position worth *cp* centipawns."""
        return 2 / (1 + math.exp(-self.slope * cp)) - 1

    def centipawns(self, lichess_cp: float) -> float:
        """The centipawns of this engine with the winning chances of *lichess_cp* on Lichess's
        curve: how the rules' thresholds in pawns read on this engine's scale."""
        return lichess_cp * (LICHESS_SLOPE / self.slope)  # exactly lichess_cp on Lichess's curve


#: Lichess's curve, for Stockfish's centipawns (Fairy-Stockfish's among them).
LICHESS_CURVE = WinningChancesCurve(LICHESS_SLOPE)
#: The built-in engine's curve.
BUILTIN_CURVE = WinningChancesCurve(BUILTIN_SLOPE)


def winning_chances(cp: float, curve: WinningChancesCurve = LICHESS_CURVE) -> float:
    """The winning chances, -1 (lost) to 1 (won), of a position worth *cp* centipawns on *curve*."""
    return curve.winning_chances(cp)


def win_percent(score: chess.engine.Score, curve: WinningChancesCurve = LICHESS_CURVE) -> float:
    """The mover's win percentage, 0..100, at *score*; centipawns beyond the ceiling (10 of
    Lichess's pawns, on *curve*) and mates count as the ceiling."""
    ceiling = curve.centipawns(WIN_PERCENT_CEILING_CP)
    if score.is_mate():
        cp = ceiling if score > chess.engine.Cp(0) else -ceiling
    else:
        cp = max(-ceiling, min(ceiling, score.score() or 0))
    return 50 + 50 * curve.winning_chances(cp)


def chances_percent(score: chess.engine.Score, curve: WinningChancesCurve = LICHESS_CURVE) -> float:
    """The side's share of the winning chances, 0..100, as the page's evaluation bar and graph draw
    it: *curve* without the ceiling :func:`win_percent` puts on accuracy, and all of it (or none) at
    a mate, the mate already given included."""
    if score.is_mate():
        return 100.0 if score > chess.engine.Cp(0) else 0.0
    return 50 + 50 * curve.winning_chances(score.score() or 0)


def move_accuracy(before: chess.engine.Score, after: chess.engine.Score,
                  curve: WinningChancesCurve = LICHESS_CURVE) -> float:
    """A move's accuracy, 0..100, from the mover's scores before and after it."""
    return _accuracy_of_drop(win_percent(before, curve) - win_percent(after, curve))


def judge(before: chess.engine.Score, after: chess.engine.Score,
          curve: WinningChancesCurve = LICHESS_CURVE) -> Judgement | None:
    """The error of a move that took the mover's score from *before* to *after* (on *curve*), or None."""
    if before.is_mate() or after.is_mate():
        return _judge_mates(before, after, curve)
    drop = curve.winning_chances(before.score() or 0) - curve.winning_chances(after.score() or 0)
    return next((judgement for judgement in _BY_DROP if drop >= judgement.drop), None)


def _judge_mates(before: chess.engine.Score, after: chess.engine.Score,
                 curve: WinningChancesCurve) -> Judgement | None:
    winning_before = before.is_mate() and before > chess.engine.Cp(0)
    mated_after = after.is_mate() and after < chess.engine.Cp(0)
    if not before.is_mate() and mated_after:  # let the opponent force mate
        return _by_material(-(before.score() or 0), curve)
    if winning_before and not after.is_mate():  # let a forced mate slip
        return _by_material(after.score() or 0, curve)
    if winning_before and mated_after:
        return Judgement.BLUNDER
    return None


def _by_material(cp: int, curve: WinningChancesCurve) -> Judgement:
    """A mate let slip with *cp* left (or let in *cp* down): less of an error the more was at stake."""
    if cp > curve.centipawns(_MATE_INACCURACY_CP):
        return Judgement.INACCURACY
    if cp > curve.centipawns(_MATE_MISTAKE_CP):
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
