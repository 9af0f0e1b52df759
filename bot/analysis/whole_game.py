"""A whole game analysed: every position in turn, every move judged, each side summed up."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import chess
import chess.engine

from bot.analysis.judgement import Judgement, game_accuracy, judge, move_accuracy, win_percent
from bot.analysis.lines import AnalysisStopped, Line, PositionAnalysis, analyse_position
from variant import KnightmateBoard


@dataclass(frozen=True)
class MoveReview:
    """One move of the game, judged: its scores from the mover's side before (the best play) and
    after it, its accuracy, its error if it was one, and then the engine's better line."""

    ply: int  # 0 for the game's first move
    move: chess.Move
    san: str
    mover: chess.Color
    fullmove_number: int
    before: chess.engine.Score
    after: chess.engine.Score
    accuracy: float
    judgement: Judgement | None
    better: Line | None

    @property
    def label(self) -> str:
        """``12. Nf3`` or ``12... Nf6``."""
        return f"{self.fullmove_number}{'.' if self.mover == chess.WHITE else '...'} {self.san}"


@dataclass(frozen=True)
class SideSummary:
    """One side's errors and accuracy (None when it made no move)."""

    inaccuracies: int
    mistakes: int
    blunders: int
    accuracy: float | None

    @property
    def accuracy_percent(self) -> int | None:
        """The accuracy as it is shown, in whole percent: the PGN and the page round it here, once."""
        return None if self.accuracy is None else round(self.accuracy)

    def describe(self) -> str:
        """``accuracy 87%, 1 inaccuracy, 0 mistakes, 2 blunders``."""
        accuracy = "accuracy -" if self.accuracy_percent is None else f"accuracy {self.accuracy_percent}%"
        counts = [(self.inaccuracies, "inaccuracy", "inaccuracies"), (self.mistakes, "mistake", "mistakes"),
                  (self.blunders, "blunder", "blunders")]
        return ", ".join([accuracy] + [f"{count} {one if count == 1 else many}" for count, one, many in counts])


@dataclass(frozen=True)
class GameAnalysis:
    """Every position's analysis (the start first, one after each move) and every move's review."""

    positions: tuple[PositionAnalysis, ...]
    moves: tuple[MoveReview, ...]
    white: SideSummary
    black: SideSummary

    def side(self, color: chess.Color) -> SideSummary:
        return self.white if color == chess.WHITE else self.black


def analyse_game(engine: chess.engine.SimpleEngine, start: KnightmateBoard, moves: Sequence[chess.Move],
                 limit: chess.engine.Limit, *, multipv: int = 1,
                 on_progress: Callable[[int, int], None] | None = None,
                 on_position: Callable[[int, PositionAnalysis], None] | None = None,
                 stop: threading.Event | None = None) -> GameAnalysis:
    """Analyses the game of *moves* from *start* (its position; its move stack is kept as history).

    Each position is searched within *limit*; *on_position* gets each position's analysis by its
    index (0: the start) and *on_progress* the positions done and the total after each. *stop*
    ends the analysis with :class:`~bot.analysis.lines.AnalysisStopped`. An illegal move raises
    :class:`chess.IllegalMoveError`.
    """
    board = start.copy()
    positions: list[PositionAnalysis] = []
    total = len(moves) + 1
    for index in range(total):
        if stop is not None and stop.is_set():
            raise AnalysisStopped
        analysis = analyse_position(engine, board, limit, multipv=multipv, stop=stop)
        positions.append(analysis)
        if on_position is not None:
            on_position(index, analysis)
        if on_progress is not None:
            on_progress(index + 1, total)
        if index < len(moves):
            if moves[index] not in board.legal_moves:
                raise chess.IllegalMoveError(f"illegal move {board.uci(moves[index])} in {board.fen()}")
            board.push(moves[index])
    return review(start, moves, positions)


def review(start: KnightmateBoard, moves: Sequence[chess.Move], positions: Sequence[PositionAnalysis]) -> GameAnalysis:
    """Judges each move of the game from the analyses of its positions (one more than moves)."""
    board = start.copy()
    reviews = []
    for ply, move in enumerate(moves):
        mover = board.turn
        before, after = positions[ply].score.pov(mover), positions[ply + 1].score.pov(mover)
        best = positions[ply].best
        played_best = best is not None and best.move == move
        judgement = None if played_best else judge(before, after)
        reviews.append(MoveReview(ply=ply, move=move, san=board.san(move), mover=mover,
                                  fullmove_number=board.fullmove_number, before=before, after=after,
                                  accuracy=move_accuracy(before, after), judgement=judgement,
                                  better=best if judgement is not None else None))
        board.push(move)
    accuracy = game_accuracy([win_percent(position.score.white()) for position in positions], start.turn)
    white, black = (_summary([r for r in reviews if r.mover == color], accuracy[color])
                    for color in (chess.WHITE, chess.BLACK))
    return GameAnalysis(tuple(positions), tuple(reviews), white, black)


def _summary(reviews: list[MoveReview], accuracy: float | None) -> SideSummary:
    judgements = [r.judgement for r in reviews]
    return SideSummary(judgements.count(Judgement.INACCURACY), judgements.count(Judgement.MISTAKE),
                       judgements.count(Judgement.BLUNDER), accuracy)
