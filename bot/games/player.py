"""Plays one game: the glue between its stream, its :class:`~bot.games.record.Game`, the search pool and the client.

Two threads per game. The reader turns the game stream into messages in an inbox (and marks the
game over the moment the stream says so, which stops any move retry at once); while pychess
refuses the stream, it reads the round socket instead (:mod:`bot.games.round_fallback`) and hands the
board on as a message too. The player thread alone owns the :class:`Game` and everything below;
it waits for the next message or the next one-shot deadline (:mod:`bot.games.deadlines`), whichever
comes first, and never spins.

The player thread is a small state machine. Its :class:`Phase`::

    STARTING --first gameFull--> PLAYING --------------------------> OVER (PGN written)
                                    |  setup problem     moves keep   ^
                                    v                    failing      |
                                 ABORTING --abort refused--> RESIGNING --+ (resigned, or given up)

and within PLAYING, our move for the current ply (:class:`Stage`)::

    THINKING --engine answer or ENGINE_LATE--> POSTED
        \\--post refused or unanswered--> UNSURE --gameFull: not landed--> AGAIN --> THINKING
                                                 (at most MAX_MOVE_ATTEMPTS, then RESIGNING)

The places other features hook into: :meth:`GamePlayer._our_turn` (ask the engine, which also ends
its ponder search), :meth:`GamePlayer._on_move_posted` (our move is on the server: ponder),
:meth:`GamePlayer._finish` (game over: stop pondering; on pychess, ask the server how the game ended
when the stream did not say, then write the PGN and say goodbye), :meth:`GamePlayer._show` (the
game as the status page shows it, at each state and each move posted).

Each move is posted once. A post whose answer was lost, or that Lichess refused, is never repeated
blindly: the game stream is reopened and its ``gameFull`` decides whether the move is still due.
A call the server did not take (abort, victory claim, resignation) is tried again with backoff.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from enum import Enum
from http import HTTPStatus

import chess

from bot import __version__
from bot.config import Settings
from bot.engine import SearchResult
from bot.games.chat import MAX_LINE_CHARS, ChatCommands
from bot.games.clock_reserve import ClockReserve, restart_limits
from bot.games.deadlines import Deadlines
from bot.games.printable import printable
from bot.games.record import Game, Result
from bot.games.round_fallback import RoundReader, disagreement, full_from_setup, setup_of, state_from_round
from bot.games.status import StatusRecorder, game_view
from bot.games.storage import StateFile, write_pgn
from bot.metrics import ERRORS, MOVES_POSTED, THINK_SECONDS
from bot.remote.client import Backoff, Client, ClientError, GameStreamLost, MoveOutcome
from bot.remote.events import ChatLine, GameEnded, GameFull, GameState, GameStreamEvent, KeepAlive, RoundBoard
from bot.thinking.search_pool import ponder_line
from bot.thinking.sources import MoveSource

log = logging.getLogger(__name__)

#: Posts of our move at one ply that the server refused or left unanswered before the bot resigns.
MAX_MOVE_ATTEMPTS = 3
#: Attempts to resign (with backoff) before the bot gives the game up.
RESIGN_ATTEMPTS = 3


# -- the inbox -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SearchDone:
    """The engine's answer (or failure) for the position at ``ply``."""
    ply: int
    future: Future[SearchResult]


@dataclass(frozen=True)
class StreamLost:
    """The game's stream cannot be read any more."""
    reason: str


@dataclass(frozen=True)
class RoundRead:
    """The game as the round socket shows it, read while the stream was refused (:mod:`bot.games.round_fallback`)."""
    board: RoundBoard


@dataclass(frozen=True)
class Leave:
    """The bot leaves the game unfinished (shutdown); it stays in the state file for the next start."""


Message = GameStreamEvent | SearchDone | StreamLost | RoundRead | Leave


# -- the state -------------------------------------------------------------------------------------

class Phase(Enum):
    STARTING = "waiting for the first gameFull"
    PLAYING = "playing"
    ABORTING = "aborting a game the bot must not play"
    RESIGNING = "resigning"
    OVER = "over"


class Stage(Enum):
    THINKING = "the engine is searching"
    POSTED = "our move went out"
    UNSURE = "our move was refused or unanswered; the reopened stream's gameFull will tell"
    AGAIN = "our move did not land; ask the engine again"


@dataclass(frozen=True)
class OurMove:
    ply: int
    stage: Stage
    attempt: int = 1


class Due(Enum):
    """The player's one-shot deadlines."""
    ENGINE_LATE = "the engine is late: play a fallback move"
    ABORT = "abort the game"
    CLAIM_VICTORY = "claim the win: the opponent is gone"
    RESIGN = "resign"


class GamePlayer:
    """One game from its first line to its PGN. :meth:`start` it; the runner is told through ``on_done``."""

    def __init__(self, game_id: str, *, client: Client, searcher: MoveSource, settings: Settings, username: str,
                 on_done: Callable[[str, Result | None], None], share: Callable[[], float] = lambda: 1.0,
                 state: StateFile | None = None, resumed: bool = False, status: StatusRecorder | None = None) -> None:
        self.game_id = game_id
        self.client = client
        self.searcher = searcher
        self.settings = settings
        self.on_done = on_done
        self.share = share
        # Where the game's setup is kept for a restart, and whether this is one (its first move is quick).
        self.state = state
        self._resumed = resumed
        # Where the status page reads this game from (none: not shown anywhere).
        self.status = status
        engine = settings.engine
        self.game = Game(game_id, username, site=settings.server.url,
                         move_overhead_ms=engine.move_overhead_ms,
                         max_move_time_ms=engine.max_move_time_ms,
                         abort_after_s=settings.game.abort_after_s,
                         reserve=ClockReserve(engine.clock_reserve_ms, engine.clock_reserve_share,
                                              engine.latency_reserve_factor))
        self.finished = threading.Event()
        # Set once the game wants no more moves (over, or the bot leaves): ends the reader and any
        # move post still retrying.
        self._leave = threading.Event()
        self._inbox: queue.Queue[Message] = queue.Queue()
        self._play_thread = threading.Thread(target=self._play, name=f"play-{game_id}", daemon=True)
        self._threads = [threading.Thread(target=self._read, name=f"read-{game_id}", daemon=True), self._play_thread]
        self._phase = Phase.STARTING
        self._move: OurMove | None = None
        self._deadlines: Deadlines[Due] = Deadlines()
        server = settings.server
        self._retries = {kind: Backoff(server.backoff_initial_s, server.backoff_max_s)
                         for kind in (Due.ABORT, Due.CLAIM_VICTORY, Due.RESIGN)}
        self._draw_answered_ply: int | None = None
        # The moves last read from the round socket, until the stream speaks again.
        self._round_moves: tuple[str, ...] | None = None
        # Chat commands, where the server delivers chat to the bot at all.
        self._commands = ChatCommands(settings.chat.rooms(), username) if client.dialect.delivers_chat else None
        self._chat_closed = False   # the server answered a chat line with 404: it has closed the game

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._leave.set()
        self._inbox.put(Leave())

    def is_playing(self) -> bool:
        """True while the thread that plays runs: after the game it goes on to the goodbye (the reader
        may wait on a stream that only the client's closing ends, so it is not counted)."""
        return self._play_thread.is_alive()

    def join_play(self, timeout: float) -> None:
        self._play_thread.join(timeout)

    def join(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    # -- the reader thread -----------------------------------------------------------------------

    def _read(self) -> None:
        try:
            round_reader = (RoundReader(self.client, self.game_id, lambda board: self._inbox.put(RoundRead(board)))
                            if self.client.dialect.round_socket else None)
            for event in self.client.game_events(self.game_id, self._leave, on_refused=round_reader):
                over = isinstance(event, GameEnded) or (isinstance(event, GameFull | GameState) and _is_over(event))
                if over:
                    self._leave.set()
                self._inbox.put(event)
                if over:
                    return
        except GameStreamLost as error:
            self._inbox.put(StreamLost(str(error)))
        except Exception:  # a bug must not leave the player thread waiting forever
            if not self._leave.is_set():
                log.exception("game %s: reader failed", self.game_id)
                self._inbox.put(StreamLost("the stream reader failed"))

    # -- the player thread -----------------------------------------------------------------------

    def _play(self) -> None:
        try:
            while self._phase is not Phase.OVER:
                message = self._next_message()
                if isinstance(message, Leave):
                    return
                if message is not None:
                    self._handle(message)
                for due in self._deadlines.due(time.monotonic()):
                    if not self.finished.is_set():
                        self._on_deadline(due)
        except Exception:
            log.exception("game %s: player failed", self.game_id)
            self._finish("the bot failed in this game (a bug); see the log")

    def _next_message(self) -> Message | None:
        """The next message, or ``None`` when the next deadline comes first."""
        next_at = self._deadlines.next_at()
        timeout = None if next_at is None else max(0.0, next_at - time.monotonic())
        try:
            return self._inbox.get(timeout=timeout)
        except queue.Empty:
            return None

    def _handle(self, message: GameStreamEvent | SearchDone | StreamLost | RoundRead) -> None:
        if isinstance(message, SearchDone):
            self._on_search_done(message)
        elif isinstance(message, StreamLost):
            log.error("%s; giving the game up", message.reason)
            self._finish(message.reason)
        elif isinstance(message, RoundRead):
            self._on_round_board(message.board)
        else:
            self._check_against_round(message)
            self._on_event(message)

    def _on_deadline(self, due: Due) -> None:
        if due is Due.ENGINE_LATE:
            if self._thinking_at(self.game.ply):
                log.warning("game %s: engine too slow; playing a fallback move", self.game_id)
                self._post(self.game.fallback_move(), None)
        elif due is Due.ABORT:
            self._try_abort()
        elif due is Due.CLAIM_VICTORY:
            self._try_claim_victory()
        elif due is Due.RESIGN:
            self._try_resign()

    def _on_event(self, event: GameStreamEvent) -> None:
        if isinstance(event, KeepAlive):
            return
        if isinstance(event, ChatLine):
            log.debug("game %s: chat %s: %s", self.game_id, printable(event.username), printable(event.text))
            self._answer_chat(event)
            return
        self.game.apply(event)
        self._show()
        first_full = isinstance(event, GameFull) and self._phase is Phase.STARTING
        if isinstance(event, GameFull):
            self._on_game_full()
        if self.game.ended:
            self._finish(None)
            return
        if self.game.setup_problem is not None and self._phase in (Phase.STARTING, Phase.PLAYING):
            self._start_aborting()
            return
        if self._phase is not Phase.PLAYING:
            return
        self._deadlines.follow(Due.ABORT, self.game.abort_deadline())
        self._deadlines.follow(Due.CLAIM_VICTORY, self.game.claim_win_at)
        self._answer_draw_offer()
        self._our_turn()
        self._resumed = False
        if first_full:
            self._greet()  # while the engine thinks, not before

    def _on_game_full(self) -> None:
        game = self.game
        if self._phase is Phase.STARTING:
            self._phase = Phase.PLAYING
            setup = setup_of(game)
            if self.state is not None and setup is not None:
                self.state.note_setup(self.game_id, setup)
            log.info("game %s: start, %s vs %s, we play %s, %d moves so far", self.game_id,
                     printable(game.white.name) if game.white else "?",
                     printable(game.black.name) if game.black else "?",
                     "white" if game.color == chess.WHITE else "black", game.ply)
        move = self._move
        if move is None or move.stage is not Stage.UNSURE or game.ply != move.ply or not game.my_turn:
            return
        # The stream was reopened to learn whether an unanswered or refused post landed: it did not.
        if move.attempt >= MAX_MOVE_ATTEMPTS:
            log.error("game %s: our move at ply %d was refused or unanswered %d times; resigning",
                      self.game_id, move.ply + 1, move.attempt)
            self._start_resigning()
            return
        log.warning("game %s: the move did not land; moving again (attempt %d of %d)", self.game_id,
                    move.attempt + 1, MAX_MOVE_ATTEMPTS)
        self._move = OurMove(move.ply, Stage.AGAIN, move.attempt + 1)

    # -- the round socket, while the stream is refused -----------------------------------------------

    def _on_round_board(self, board: RoundBoard) -> None:
        if self._phase is Phase.OVER:
            return
        state = state_from_round(self.game, board)
        if state is None:
            return
        event = state if self.game.state is not None else full_from_setup(
            self.game_id, self.state.setup(self.game_id) if self.state is not None else None, state)
        if event is None:
            log.warning("game %s: the round socket shows the game, but its setup is not kept; waiting for the "
                        "stream", self.game_id)
            return
        log.info("game %s: stream refused; the round socket shows %d plies%s", self.game_id, len(state.moves),
                 f", over: {board.status} {board.result}" if state.is_over else "")
        self._round_moves = state.moves
        self._on_event(event)

    def _check_against_round(self, event: GameStreamEvent) -> None:
        """The stream speaks again: what it says wins, and a disagreement with the round socket is logged."""
        if self._round_moves is None or not isinstance(event, GameFull | GameState):
            return
        problem = disagreement(self._round_moves, event.state.moves if isinstance(event, GameFull) else event.moves)
        if problem is not None:
            log.warning("game %s: %s; the stream wins", self.game_id, problem)
            self._move = None   # a move posted in the position read is no move in the stream's
        self._round_moves = None

    def _greet(self) -> None:
        if self.settings.game.greeting and self.game.ply < 2 and self.game.opponent is not None:
            self._chat(self._filled_in(self.settings.game.greeting))

    def _filled_in(self, template: str) -> str:
        """A greeting or goodbye with its placeholders filled in (the config checked it names no others)."""
        opponent = self.game.opponent
        return template.format(opponent=opponent.name if opponent is not None else "?",
                               me=self.game.username, engine=self.searcher.name)

    # -- our move --------------------------------------------------------------------------------

    def _our_turn(self) -> None:
        """Asks the engine for a move when it is our turn and this ply has no move under way."""
        game = self.game
        if not game.my_turn:
            return
        move, ply = self._move, game.ply
        if move is not None and move.ply == ply and move.stage is not Stage.AGAIN:
            return
        assert game.state is not None and game.color is not None
        self._move = OurMove(ply, Stage.THINKING, move.attempt if move is not None and move.ply == ply else 1)
        self._deadlines.arm(Due.ENGINE_LATE, game.fallback_deadline())
        limits = game.limits(share=self.share())
        if self._resumed:
            # Restarted on our move: the restart has cost time nobody planned for, so move soon.
            limits = restart_limits(limits, limits.clock_ms(game.color) or 0)
            log.info("game %s: first move since the restart: a short search (%d ms)", self.game_id, limits.movetime_ms)
        try:
            future = self.searcher.submit(game.initial_fen, game.state.moves, limits)
        except Exception as error:  # the pool could not even take the job
            log.error("game %s: search could not start (%s); playing a fallback move", self.game_id, error)
            self._post(game.fallback_move(), None)
            return
        future.add_done_callback(lambda done: self._inbox.put(SearchDone(ply, done)))

    def _thinking_at(self, ply: int) -> bool:
        """The engine is searching the position at ``ply``, which is the game's, and our turn."""
        move = self._move
        return (self._phase is Phase.PLAYING and move is not None and move.stage is Stage.THINKING
                and move.ply == ply == self.game.ply and self.game.my_turn)

    def _on_search_done(self, done: SearchDone) -> None:
        if not self._thinking_at(done.ply):
            return  # late: the game moved on, or a fallback move went out already
        game = self.game
        try:
            result: SearchResult | None = done.future.result()
        except Exception as error:
            log.error("game %s: engine failed (%r); playing a fallback move", self.game_id, error)
            ERRORS.labels(kind="engine").inc()
            result = None
        move = game.legal_move(game.board.uci(result.move)) if result is not None and result.move else None
        if result is not None and move is None:
            log.error("game %s: engine move %s is not legal here; playing a fallback move", self.game_id,
                      result.move)
        self._post(move or game.fallback_move(), result if move else None)

    def _post(self, move: chess.Move, result: SearchResult | None) -> None:
        game = self.game
        ply = game.ply
        attempt = self._move.attempt if self._move is not None and self._move.ply == ply else 1
        uci = game.board.uci(move)
        clock_ms = game.my_clock_ms()
        self._move = OurMove(ply, Stage.POSTED, attempt)
        self._deadlines.disarm(Due.ENGINE_LATE)
        if result is not None:
            game.note_search(result)
        offer = self.client.dialect.draw_offers and game.wants_draw_offer()
        posted_at = time.monotonic()
        outcome = self.client.post_move(self.game_id, uci, offering_draw=offer, cancel=self._leave,
                                        send_by=game.must_move_by())
        if outcome is MoveOutcome.LANDED:
            game.note_own_move(move, clock_ms, posted_at)
            MOVES_POSTED.inc()
            self._show()
            if result is not None and not result.from_book:
                THINK_SECONDS.observe(result.time_ms / 1000)
            if offer:
                game.draw_offered_at = ply
                log.info("game %s: offering a draw with this move", self.game_id)
            self._on_move_posted(move, uci, result)
        elif outcome in (MoveOutcome.UNCERTAIN, MoveOutcome.REJECTED):
            # Did it land? Reopen the stream: its gameFull tells (see _on_game_full).
            self._move = OurMove(ply, Stage.UNSURE, attempt)
            self.client.interrupt_game_stream(self.game_id)

    def _on_move_posted(self, move: chess.Move, uci: str, result: SearchResult | None) -> None:
        """Our move is on the server (the opponent's turn now)."""
        game = self.game
        log.info("game %s: move %d %s (%s) %s", self.game_id, game.ply // 2 + 1, uci, game.board.san(move),
                 _describe(result))
        if self.settings.engine.ponder and game.state is not None:
            # Think on the opponent's time, on the reply the engine expects after our move.
            self.searcher.ponder(game.initial_fen,
                                 ponder_line(game.board, game.state.moves, move, result.pv if result else ()))

    def _answer_draw_offer(self) -> None:
        game = self.game
        if self.client.dialect.draw_offers and game.accepts_draw() and self._draw_answered_ply != game.ply:
            self._draw_answered_ply = game.ply
            log.info("game %s: accepting the draw offer (score %s)", self.game_id, game.scores[-1])
            try:
                self.client.accept_draw(self.game_id)
            except ClientError as error:
                log.warning("game %s: %s", self.game_id, error)

    # -- calls the server must take: tried again with backoff ---------------------------------------

    def _retry_later(self, due: Due, what: str, error: ClientError) -> None:
        delay = self._retries[due].next_delay()
        log.warning("game %s: %s failed (%s); trying again in %.1f s", self.game_id, what, error, delay)
        self._deadlines.arm(due, time.monotonic() + delay)

    def _start_aborting(self) -> None:
        self._phase = Phase.ABORTING
        self._deadlines.disarm(Due.ENGINE_LATE)
        self._try_abort()

    def _try_abort(self) -> None:
        why = self.game.setup_problem or f"the opponent made no move in {self.settings.game.abort_after_s:g} s"
        log.info("game %s: aborting: %s", self.game_id, printable(why))
        try:
            self.client.abort(self.game_id)
            self.game.note_abort(why)
        except ClientError as error:
            if error.retryable:
                self._retry_later(Due.ABORT, "abort", error)
            elif self._phase is Phase.ABORTING:
                # A game the bot must not play cannot be left to run out its clock either.
                log.warning("game %s: abort refused (%s); resigning", self.game_id, error)
                self._start_resigning()
            else:
                log.warning("game %s: abort refused: %s", self.game_id, error)

    def _try_claim_victory(self) -> None:
        log.info("game %s: opponent gone; claiming victory", self.game_id)
        try:
            self.client.claim_victory(self.game_id)
        except ClientError as error:
            if error.retryable:
                self._retry_later(Due.CLAIM_VICTORY, "victory claim", error)
            else:
                log.warning("game %s: victory claim refused: %s", self.game_id, error)

    def _start_resigning(self) -> None:
        self._phase = Phase.RESIGNING
        for due in Due:
            self._deadlines.disarm(due)
        self._try_resign()

    def _try_resign(self) -> None:
        try:
            self.client.resign(self.game_id)
        except ClientError as error:
            if error.retryable and self._retries[Due.RESIGN].failures < RESIGN_ATTEMPTS - 1:
                self._retry_later(Due.RESIGN, "resignation", error)
                return
            log.error("game %s: cannot resign (%s); giving the game up", self.game_id, error)
            self._finish("the bot gave the game up: it could neither move nor resign")
            return
        self.game.resigned = True
        if not self.client.dialect.resignation_ends_stream:
            self._finish(None)  # the stream will not say the game is over: leave on our own

    def _answer_chat(self, line: ChatLine) -> None:
        """Answers a chat command (:mod:`bot.games.chat`) in the room it was asked in."""
        commands = self._commands
        command = commands.to_answer(line, time.monotonic()) if commands is not None else None
        if commands is None or command is None:
            return
        if command == "help":
            text = commands.help_text(line.room)
        elif command == "eval":
            text = self.game.describe_search(MAX_LINE_CHARS)
        else:
            text = f"knightmate-bot {__version__}, playing with {self.searcher.name}."
        self._chat(text, line.room)

    def _chat(self, text: str, room: str = "player") -> None:
        if self._chat_closed:
            return
        try:
            self.client.chat(self.game_id, text, room)
        except ClientError as error:
            log.info("game %s: chat not sent: %s", self.game_id, error)
            if error.status == HTTPStatus.NOT_FOUND:
                self._chat_closed = True    # the server has closed the game's chat: say nothing more

    # -- the end ---------------------------------------------------------------------------------

    def _finish(self, lost: str | None) -> None:
        """The game is over (or given up, with the reason in ``lost``): PGN, tell the runner, goodbye."""
        if self._phase is Phase.OVER:
            return
        self._phase = Phase.OVER
        self._leave.set()
        self.searcher.stop_ponder()  # no thinking on a game that is over
        game = self.game
        if lost is None and game.needs_reported_result:
            self._ask_how_it_ended()
        result = game.result()
        if lost is not None and result.result == "*":
            result = Result("*", "unterminated", lost)
        pgn = game.pgn(result) if game.state is not None else None
        if pgn is not None:
            path = write_pgn(self.settings.game.pgn_dir, self.game_id, pgn)
            log.info("game %s: over, %s (%s); PGN %s", self.game_id, result.result, result.reason, path)
        else:
            log.warning("game %s: over without a single state seen (%s); no PGN", self.game_id, result.reason)
        if self.status is not None:
            self.status.game_over(game_view(game), result, pgn)
        self.finished.set()
        # The slot is free before the goodbye, a courtesy that may wait on the network.
        self.on_done(self.game_id, result)
        # No goodbye to a game that never counted: an aborted game may be gone from the server already.
        if self.settings.game.goodbye and lost is None and game.state is not None and not game.aborted:
            self._chat(self._filled_in(self.settings.game.goodbye))

    def _show(self) -> None:
        """Hands the status page this game as it is now, while it is played."""
        if self.status is not None and not self._leave.is_set():
            self.status.game_seen(game_view(self.game))

    def _ask_how_it_ended(self) -> None:
        """The stream ended the game without a word on how (pychess): ask the server, once per game."""
        try:
            self.game.note_reported(self.client.reported_result(self.game_id))
        except ClientError as error:
            self.game.note_reported(None, str(error))


def _is_over(event: GameFull | GameState) -> bool:
    state = event.state if isinstance(event, GameFull) else event
    return state.is_over


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
