"""Plays one game: the glue between its stream, its :class:`~bot.game.Game`, the search pool and the client.

Two threads per game. The reader turns the game stream into items in an inbox (and marks the
game over the moment the stream says so, which stops any move retry at once). The player thread
alone owns the :class:`Game`: it takes items from the inbox, asks the search pool for a move on
its turn (a future whose completion is just another inbox item, so the thread never blocks on a
search), validates and posts the move, and keeps the deadlines: a fallback move when the engine is
late or fails, the abort of a game the opponent never started, the victory claim after
``opponentGone``. At the end it writes the PGN and says goodbye.

Each move is posted once. A post whose answer was lost, or that Lichess refused, is never repeated
blindly: the game stream is reopened and its ``gameFull`` decides whether the move is still due.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol

import chess

from bot.client import Client, ClientError, GameStreamLost, MoveOutcome
from bot.config import Settings
from bot.engine import Limits, SearchResult
from bot.events import ChatLine, GameEnded, GameFull, GameState, KeepAlive
from bot.game import Game, Result
from bot.storage import write_pgn

log = logging.getLogger(__name__)


class Searcher(Protocol):
    """What the player needs of the search pool (:class:`bot.search_pool.SearchPool`); tests fake it."""

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits) -> Future[SearchResult]: ...


class GamePlayer:
    """One game from its first line to its PGN. :meth:`start` it; the runner is told through ``on_done``."""

    def __init__(self, game_id: str, *, client: Client, searcher: Searcher, settings: Settings, username: str,
                 on_done: Callable[[str, Result | None], None], share: Callable[[], float] = lambda: 1.0) -> None:
        self.game_id = game_id
        self.client = client
        self.searcher = searcher
        self.settings = settings
        self.on_done = on_done
        self.share = share
        self.game = Game(game_id, username, site=settings.server.url,
                         move_overhead_ms=settings.engine.move_overhead_ms,
                         max_move_time_ms=settings.engine.max_move_time_ms,
                         abort_after_s=settings.game.abort_after_s)
        self.finished = threading.Event()
        self._stop = threading.Event()       # leave the game (shutdown); it stays in the state file
        self._over = threading.Event()       # the stream said the game is over
        self._inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._threads = [threading.Thread(target=self._read, name=f"read-{game_id}", daemon=True),
                         threading.Thread(target=self._play, name=f"play-{game_id}", daemon=True)]
        self._seen_full = False
        self._thinking_ply: int | None = None
        self._posted_ply: int | None = None
        self._unsure_ply: int | None = None
        self._fallback_at: float | None = None
        self._abort_sent = False
        self._claim_sent = False
        self._draw_answered_ply: int | None = None

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()

    def join(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    # -- the reader thread -----------------------------------------------------------------------

    def _read(self) -> None:
        try:
            for event in self.client.game_events(self.game_id, self._stop):
                over = isinstance(event, GameEnded) or (isinstance(event, GameFull | GameState) and _is_over(event))
                if over:
                    self._over.set()
                self._inbox.put(("event", event))
                if over:
                    return
        except GameStreamLost as error:
            self._inbox.put(("lost", str(error)))
        except Exception:  # a bug must not leave the player thread waiting forever
            if not self._stop.is_set():
                log.exception("game %s: reader failed", self.game_id)
                self._inbox.put(("lost", "the stream reader failed"))

    # -- the player thread -----------------------------------------------------------------------

    def _play(self) -> None:
        try:
            while not self._stop.is_set() and not self.finished.is_set():
                try:
                    kind, payload = self._inbox.get(timeout=self._wait_s())
                except queue.Empty:
                    kind, payload = "tick", None
                self._handle(kind, payload)
                if not self.finished.is_set():
                    self._keep_deadlines()
        except Exception:
            log.exception("game %s: player failed", self.game_id)
            self._finish("the bot failed in this game (a bug); see the log")

    def _wait_s(self) -> float:
        deadlines = [at for at in (self._fallback_at, self.game.abort_deadline(), self.game.claim_win_at)
                     if at is not None]
        if not deadlines:
            return 1.0
        return min(1.0, max(0.0, min(deadlines) - time.monotonic()))

    def _handle(self, kind: str, payload: Any) -> None:
        if kind == "event":
            self._on_event(payload)
        elif kind == "search":
            ply, future = payload
            self._on_search_done(ply, future)
        elif kind == "lost":
            log.error("%s; giving the game up", payload)
            self._finish(payload)

    def _on_event(self, event: Any) -> None:
        if isinstance(event, KeepAlive):
            return
        if isinstance(event, ChatLine):
            log.debug("game %s: chat %s: %s", self.game_id, event.username, event.text)
            return
        self.game.apply(event)
        first_full = isinstance(event, GameFull) and not self._seen_full
        if isinstance(event, GameFull):
            self._on_game_full()
        if self.game.ended:
            self._finish(None)
            return
        if self.game.setup_problem is not None:
            self._abort(self.game.setup_problem)
            return
        self._answer_draw_offer()
        self._think()
        if first_full:
            self._greet()  # while the engine thinks, not before

    def _on_game_full(self) -> None:
        game = self.game
        if not self._seen_full:
            self._seen_full = True
            log.info("game %s: start, %s vs %s, we play %s, %d moves so far", self.game_id,
                     game.white.name if game.white else "?", game.black.name if game.black else "?",
                     "white" if game.color == chess.WHITE else "black", game.ply)
        if self._unsure_ply is not None:
            # The stream was reopened to learn whether an unanswered post landed.
            if game.ply == self._unsure_ply and game.my_turn:
                log.warning("game %s: the unanswered move did not land; moving again", self.game_id)
                self._posted_ply = self._thinking_ply = None
            self._unsure_ply = None

    def _greet(self) -> None:
        if self.settings.game.greeting and self.game.ply < 2 and self.game.opponent is not None:
            self._chat(self.settings.game.greeting)

    def _think(self) -> None:
        game = self.game
        ply = game.ply
        if not game.my_turn or ply in (self._thinking_ply, self._posted_ply) or self._unsure_ply is not None:
            return
        assert game.state is not None
        self._thinking_ply = ply
        self._fallback_at = game.fallback_deadline()
        try:
            future = self.searcher.submit(game.initial_fen, game.state.moves, game.limits(share=self.share()))
        except Exception as error:  # the pool could not even take the job
            log.error("game %s: search could not start (%s); playing a fallback move", self.game_id, error)
            self._post(game.fallback_move(), None)
            return
        future.add_done_callback(lambda done: self._inbox.put(("search", (ply, done))))

    def _on_search_done(self, ply: int, future: Future[SearchResult]) -> None:
        game = self.game
        if ply != game.ply or not game.my_turn or self._posted_ply == ply:
            return  # late: the game moved on, or a fallback move went out already
        try:
            result: SearchResult | None = future.result()
        except Exception as error:
            log.error("game %s: engine failed (%r); playing a fallback move", self.game_id, error)
            result = None
        move = game.legal_move(game.board.uci(result.move)) if result is not None and result.move else None
        if result is not None and move is None:
            log.error("game %s: engine move %s is not legal here; playing a fallback move", self.game_id,
                      result.move)
        self._post(move or game.fallback_move(), result if move else None)

    def _keep_deadlines(self) -> None:
        game = self.game
        now = time.monotonic()
        if self._fallback_at is not None and now >= self._fallback_at:
            self._fallback_at = None
            if game.my_turn and self._posted_ply != game.ply and self._thinking_ply == game.ply:
                log.warning("game %s: engine too slow; playing a fallback move", self.game_id)
                self._post(game.fallback_move(), None)
        abort_at = game.abort_deadline()
        if abort_at is not None and now >= abort_at and not self._abort_sent:
            self._abort(f"the opponent made no move in {self.settings.game.abort_after_s:g} s")
        if game.claim_win_at is not None and now >= game.claim_win_at and not self._claim_sent:
            self._claim_sent = True
            log.info("game %s: opponent gone; claiming victory", self.game_id)
            self._call(self.client.claim_victory)

    def _post(self, move: chess.Move, result: SearchResult | None) -> None:
        game = self.game
        ply = game.ply
        uci = game.board.uci(move)
        clock_ms = game.my_clock_ms()
        self._posted_ply = ply
        self._fallback_at = None
        if result is not None:
            game.scores.append(_score(result))
        offer = self.client.dialect == "lichess" and game.wants_draw_offer()
        outcome = self.client.post_move(self.game_id, uci, offering_draw=offer, still_wanted=self._still_playing)
        if outcome is MoveOutcome.LANDED:
            game.note_own_move(move, clock_ms)
            if offer:
                game.draw_offered_at = ply
                log.info("game %s: offering a draw with this move", self.game_id)
            log.info("game %s: move %d %s (%s) %s", self.game_id, ply // 2 + 1, uci, game.board.san(move),
                     _describe(result))
        elif outcome in (MoveOutcome.UNCERTAIN, MoveOutcome.REJECTED):
            # Did it land? Reopen the stream: its gameFull tells (see _on_game_full).
            self._unsure_ply = ply
            self.client.interrupt_game_stream(self.game_id)

    def _still_playing(self) -> bool:
        return not (self._over.is_set() or self._stop.is_set())

    def _answer_draw_offer(self) -> None:
        game = self.game
        if self.client.dialect == "lichess" and game.accepts_draw() and self._draw_answered_ply != game.ply:
            self._draw_answered_ply = game.ply
            log.info("game %s: accepting the draw offer (score %s)", self.game_id, game.scores[-1])
            self._call(self.client.accept_draw)

    def _abort(self, why: str) -> None:
        if self._abort_sent:
            return
        self._abort_sent = True
        log.info("game %s: aborting: %s", self.game_id, why)
        try:
            self.client.abort(self.game_id)
        except ClientError as error:
            if self.game.setup_problem is None:
                log.warning("game %s: %s", self.game_id, error)
                return
            # A game the bot must not play cannot be left to run out its clock either.
            log.warning("game %s: abort refused (%s); resigning", self.game_id, error)
            self._resign()

    def _resign(self) -> None:
        try:
            self.client.resign(self.game_id)
        except ClientError as error:
            log.warning("game %s: %s", self.game_id, error)
            return
        self.game.resigned = True
        if self.client.dialect == "pychess":
            self._finish(None)  # pychess sends no gameEnd after a resignation: leave on our own

    def _chat(self, text: str) -> None:
        try:
            self.client.chat(self.game_id, text)
        except ClientError as error:
            log.info("game %s: chat not sent: %s", self.game_id, error)

    def _call(self, action: Callable[[str], None]) -> None:
        try:
            action(self.game_id)
        except ClientError as error:
            log.warning("game %s: %s", self.game_id, error)

    def _finish(self, lost: str | None) -> None:
        if self.finished.is_set():
            return
        self._over.set()
        game = self.game
        result = game.result()
        if lost is not None and result.result == "*":
            result = Result("*", "unterminated", lost)
        if game.state is not None:
            path = write_pgn(self.settings.game.pgn_dir, self.game_id, game.pgn(result))
            log.info("game %s: over, %s (%s); PGN %s", self.game_id, result.result, result.reason, path)
            if self.settings.game.goodbye and lost is None:
                self._chat(self.settings.game.goodbye)
        else:
            log.warning("game %s: over without a single state seen (%s); no PGN", self.game_id, result.reason)
        self.finished.set()
        self._stop.set()
        self.on_done(self.game_id, result)


def _is_over(event: GameFull | GameState) -> bool:
    state = event.state if isinstance(event, GameFull) else event
    return state.is_over


def _score(result: SearchResult) -> int | None:
    """Centipawns from our side, a mate counting as a huge score."""
    if result.mate is not None:
        return 100_000 if result.mate > 0 else -100_000
    return result.score_cp


def _describe(result: SearchResult | None) -> str:
    if result is None:
        return "fallback move"
    if result.from_book:
        return "book move"
    if result.mate is not None:
        score = f"mate {result.mate}"
    else:
        score = f"score {result.score_cp:+d} cp" if result.score_cp is not None else "no score"
    return f"depth {result.depth} {score} time {result.time_ms} ms nodes {result.nodes}"

