"""A move tried in place of an error, judged as Lichess's "learn from your mistakes" judges it.

A try is accepted when it is the engine's best move, or when it keeps the mover's winning chances
within the inaccuracy threshold of the best: going from the best line's score to the try's is no
error by :func:`~bot.analysis.judgement.judge` (the same rule, and the same threshold, as the
review's verdicts). One search of the position with a few lines usually scores the try too; a try
outside those lines gets a search of its own.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import chess
import chess.engine

from bot.analysis.judgement import LICHESS_CURVE, Judgement, WinningChancesCurve, judge
from bot.analysis.lines import Line, analyse_position
from variant import KnightmateBoard

#: The lines searched at once: a try among them is scored by the same search as the best move.
TRY_LINES = 3


@dataclass(frozen=True)
class TryVerdict:
    """A try judged: the engine's best line, the try's score and its error (None: accepted)."""

    move: chess.Move
    best: Line
    score: chess.engine.PovScore
    judgement: Judgement | None

    @property
    def accepted(self) -> bool:
        return self.judgement is None

    @property
    def is_best(self) -> bool:
        return self.move == self.best.move


def judge_try(engine: chess.engine.SimpleEngine, board: KnightmateBoard, move: chess.Move,
              limit: chess.engine.Limit, *, curve: WinningChancesCurve = LICHESS_CURVE,
              stop: threading.Event | None = None) -> TryVerdict:
    """*move* tried in *board*, judged by *engine* searching within *limit* (each search), on the
    engine's *curve* as the review's verdicts are.

    :raises: :exc:`chess.IllegalMoveError` for a move that is not legal in *board*;
        :class:`~bot.analysis.lines.AnalysisStopped` when *stop* is set.
    """
    if move not in board.legal_moves:
        raise chess.IllegalMoveError(f"{board.uci(move)} is not a legal move in {board.fen()}")
    position = analyse_position(engine, board, limit, multipv=TRY_LINES, stop=stop)
    best = position.best
    assert best is not None  # a position with a legal move has a line
    line = next((line for line in position.lines if line.move == move), None)
    if line is not None:
        score = line.score
    else:
        after = board.copy()
        after.push(move)
        score = analyse_position(engine, after, limit, stop=stop).score
    mover = board.turn
    judgement = None if move == best.move else judge(best.score.pov(mover), score.pov(mover), curve)
    return TryVerdict(move, best, score, judgement)
