"""Game review for the page: every move of a finished game judged by :mod:`bot.analysis`.

The page's engine (the config's ``engine.command`` at its full strength, or the built-in engine,
as a UCI process) searches each position for :data:`REVIEW_MOVE_S`; progress (with the engine's
name, which says the build, and each position's depth) and then the whole review go to the page
as stream lines. One review at a time (a new one stops the one before; a
page that leaves stops its own), and the annotated PGN of each game reviewed is kept for the
page's download: the same text :func:`bot.analysis.annotated` writes for the CLI.
"""

from __future__ import annotations

import io
import logging
import queue
import threading
from collections.abc import Generator

import chess
import chess.engine
import chess.pgn

from bot.analysis import (
    AnalysisEngineError,
    AnalysisStopped,
    EngineCommand,
    GameAnalysis,
    WinningChancesCurve,
    analyse_game,
    analyst,
    annotated,
    close_engine,
    engine_name,
    error_comment,
)
from bot.sandbox.imitations import JsonObject
from bot.sandbox.world import ApiError
from bot.web.analysis_board import drain, knightmate_pgn, score_json
from variant import COMMONER, KnightmateBoard

logger = logging.getLogger(__name__)

#: Seconds the engine searches each position of a reviewed game: the review is what
#: ``knightmate-bot analyse --movetime-ms 150`` writes for the game (the same analysis, annotator
#: and :func:`~bot.analysis.annotated`, so the same text).
REVIEW_MOVE_S = 0.15


class Reviewer:
    """Reviews games one at a time with *engine* (None: the built-in one) and keeps their annotated
    PGNs by game id."""

    def __init__(self, engine: EngineCommand | None = None) -> None:
        self._engine = (engine or EngineCommand()).at_full_strength()
        self._limit = chess.engine.Limit(time=REVIEW_MOVE_S)
        self._lock = threading.Lock()
        self._current: threading.Event | None = None
        self.pgns: dict[str, str] = {}

    def review(self, game_id: str, pgn: str, keepalive_s: float) -> Generator[JsonObject | None, None, None]:
        """Progress lines, then the review (or why there is none); None after *keepalive_s* quiet.
        The caller stops it by closing the iterator (the page left)."""
        game = chess.pgn.read_game(io.StringIO(knightmate_pgn(pgn)))
        if game is None or not isinstance(game.board(), KnightmateBoard) or game.errors:
            raise ApiError(400, "That game cannot be read for a review.")
        stop = threading.Event()
        with self._lock:
            if self._current is not None:
                self._current.set()
            self._current = stop
        lines: queue.Queue[JsonObject | None] = queue.Queue()
        worker = threading.Thread(target=self._run, args=(game_id, game, stop, lines), name="review", daemon=True)
        worker.start()
        return _lines(lines, stop, keepalive_s)

    def _run(self, game_id: str, game: chess.pgn.Game, stop: threading.Event,
             lines: queue.Queue[JsonObject | None]) -> None:
        start = game.board()
        assert isinstance(start, KnightmateBoard)
        moves = list(game.mainline_moves())
        try:
            engine = self._engine.open()
            name = engine_name(engine)
            try:
                analysis = analyse_game(engine, start, moves, self._limit, stop=stop, curve=self._engine.curve,
                                        on_position=lambda index, position: lines.put(
                                            {"type": "progress", "engine": name, "depth": position.depth,
                                             "done": index + 1, "total": len(moves) + 1}))
            finally:
                close_engine(engine)
            text = str(annotated(game, analysis, analyst(self._engine, self._limit))) + "\n"
            self.pgns[game_id] = text
            lines.put(dict(_review_json(start, analysis, text, self._engine.curve), engine=name))
        except AnalysisStopped:
            lines.put({"type": "end", "reason": "stopped"})
        except AnalysisEngineError as error:
            lines.put({"type": "end", "reason": str(error)})
        except Exception as error:  # the page says so; the log keeps the details
            logger.exception("the review of %s failed", game_id)
            lines.put({"type": "end", "reason": f"the review failed: {type(error).__name__}"})
        finally:
            lines.put(None)


def _lines(lines: queue.Queue[JsonObject | None], stop: threading.Event,
           keepalive_s: float) -> Generator[JsonObject | None, None, None]:
    """The review's stream to the page; the review stops when the page stops reading it."""
    try:
        yield from drain(lines, keepalive_s)
    finally:
        stop.set()


def _review_json(start: KnightmateBoard, analysis: GameAnalysis, pgn: str, curve: WinningChancesCurve) -> JsonObject:
    """The review as the page shows it: each move with its verdict, the sentence the PGN writes on
    an error and the better move (with its piece and the position after it: the hint and the
    solution of learning from one's mistakes); each side's summary as the PGN words it; its graph
    drawn on *curve*, the judging engine's, as the verdicts are."""
    board = start.copy()
    moves = []
    for review in analysis.moves:
        better = comment = None
        if review.better is not None and review.judgement is not None:
            move = review.better.move
            piece = board.piece_at(move.from_square)
            after = board.copy(stack=False)
            after.push(move)
            san = board.san(move)
            better = {"uci": board.uci(move), "san": san, "fen": after.fen(),
                      "piece": _letter(piece.piece_type) if piece else None}
            comment = error_comment(review.judgement, san)
        moves.append({"ply": review.ply + 1, "san": review.san, "color": "white" if review.mover else "black",
                      "judgement": review.judgement.label if review.judgement else None,
                      "nag": review.judgement.nag if review.judgement else None, "better": better,
                      "comment": comment})
        board.push(review.move)
    sides = {name: {"inaccuracies": side.inaccuracies, "mistakes": side.mistakes, "blunders": side.blunders,
                    "accuracy": side.accuracy_percent, "summary": side.describe()}
             for name, side in (("white", analysis.white), ("black", analysis.black))}
    return {"type": "review", "evals": [score_json(position.score, curve) for position in analysis.positions],
            "depths": [position.depth for position in analysis.positions],
            "moves": moves, **sides, "pgn": pgn}


def _letter(piece_type: chess.PieceType) -> str:
    """A piece's letter as Knightmate's FEN writes it (``m`` the commoner, ``k`` the royal knight)."""
    return "m" if piece_type == COMMONER else chess.piece_symbol(piece_type)
