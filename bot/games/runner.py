"""The bot's main loop: the event stream, challenges, one :class:`GamePlayer` per game, shutdown.

Start-up checks the account is a BOT and reopens the games the state file remembers (pychess does
not re-send ``gameStart`` to a bot that restarts quickly). The event stream runs on its own thread
and touches the heartbeat file on every line, keep-alives included; an event the runner fails on
is logged and skipped, never a reason to reopen the stream. Challenges are answered on a single
helper thread so an HTTP pause on ``accept`` never stalls the stream, and a challenge the runner
fails to decide on is declined, not left unanswered. A challenge declined only for want of a free
slot waits for one up to ``challenge.wait_for_slot_s`` (none by default: ``later`` at once); the
waiting ones get the slots games free in the order ``challenge.sort_by`` names, each decided again
then (the limits per opponent may have moved), and the rest are declined ``later`` when their time
is up or the bot stops. A ``gameStart`` for a game already being
played is ignored: one game, one player; one beyond ``challenge.concurrency`` waits in a queue
until a game ends (see :meth:`Runner._start_player`). An accepted challenge whose ``gameStart``
never comes is played all the same, under the challenge's id (see :data:`MISSING_GAME_START_S`).

Shutdown (``stop`` set, from SIGINT/SIGTERM in the CLI): stop accepting, interrupt every stream,
let the players leave (their games stay in the state file for the next start), and return 0
within a few seconds. Stopping after the current games (``finish`` set, from SIGUSR1, or the
``bot.stop_file`` that ``knightmate-bot stop-after-games`` creates): decline every new challenge
with ``later``, play the games on to their PGNs, then shut down the same way, with nothing left
to resume. The runner never speaks HTTP itself. Each game gets its own engine from the
:class:`~bot.thinking.sources.MoveSources` (its process, for an external engine), closed when the game is over
or at shutdown; the engines themselves belong to whoever made them.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chess

from bot.config import Settings
from bot.games.challenges import Decision, decide
from bot.games.encounters import Encounters
from bot.games.player import GamePlayer
from bot.games.printable import printable
from bot.games.record import Result
from bot.games.status import StatusRecorder
from bot.games.storage import StateFile, touch
from bot.metrics import CHALLENGES, ERRORS, GAMES_ACTIVE, GAMES_FINISHED, GAMES_STARTED, game_result
from bot.remote.client import Client, ClientError
from bot.remote.events import Challenge, ChallengeReceived, EventStreamEvent, GameStarted, ServerShutdown
from bot.thinking.sources import MoveSource, MoveSources

log = logging.getLogger(__name__)

#: An accepted challenge counts against the concurrency limit until its game starts, or this long.
PENDING_ACCEPT_S = 30.0
#: An accepted challenge whose gameStart has not come after this long is played without one: its game
#: has the challenge's id on both servers (pychess creates it under the id the accept names), so
#: the bot opens that game's stream itself. A pychess event stream handler lingering after a
#: reconnect can swallow the gameStart (docs/api.md), and reopening the event stream does not bring it
#: back for a game without a move; a bot that waited for it would lose the game on time.
MISSING_GAME_START_S = 8.0
#: Results of finished games kept for :meth:`Runner.wait_game_done`.
FINISHED_GAMES_KEPT = 1000
#: Games started beyond ``challenge.concurrency`` that wait for a free slot; more are not played.
MAX_QUEUED_GAMES = 20
#: Challenges kept waiting for a free slot (``challenge.wait_for_slot_s``); more are declined ``later`` at once.
MAX_WAITING_CHALLENGES = 20
#: How long shutdown waits for threads before returning anyway.
SHUTDOWN_GRACE_S = 5.0


class StartupError(Exception):
    """The bot cannot start (bad token, not a BOT account, server unreachable): one line for the operator."""


class Runner:
    def __init__(self, settings: Settings, client: Client, engines: MoveSources, workers: int,
                 status: StatusRecorder | None = None) -> None:
        self.settings = settings
        #: What the status page shows (:mod:`bot.console`), fed where the metrics are counted.
        self.status = status if status is not None else StatusRecorder()
        self.workers = workers
        self.client = client
        self.engines = engines
        self.state = StateFile(settings.game.state_file)
        self.username = ""
        self.accepting = True
        self._players: dict[str, GamePlayer] = {}
        #: Players of finished games whose thread may still be saying goodbye: shutdown lets them.
        self._leaving: list[GamePlayer] = []
        self._game_engines: dict[str, MoveSource] = {}
        self._pending: dict[str, float] = {}
        self._queued: list[str] = []     # games started beyond challenge.concurrency, oldest first
        self._lock = threading.Lock()
        self._answers = ThreadPoolExecutor(max_workers=1, thread_name_prefix="challenges")
        self._encounters = Encounters(settings.challenge.recent_bot_challenge_age_s)
        #: Challenges waiting for a free slot, with the time each came; the answers thread's alone.
        self._waiting: list[tuple[float, Challenge]] = []
        self._done: dict[str, Result | None] = {}
        self._done_changed = threading.Condition(self._lock)
        self.finishing = threading.Event()   # stopping after the current games

    # -- start and stop --------------------------------------------------------------------------

    def check_account(self, stop: threading.Event) -> str | None:
        """The account's username, once the server confirms it is a BOT; ``None`` if ``stop`` came
        first. A server that cannot be reached or answers 5xx is waited for (a bot that must run for
        weeks outlives an outage); a refusal (bad token, not a bot) stops the start."""
        backoff = self.client.backoff()
        while True:
            try:
                account = self.client.account()
                break
            except ClientError as error:
                if error.status is not None and error.status < 500:
                    hint = " (is the token right?)" if error.status in (401, 403) else ""
                    raise StartupError(f"cannot read the account: {error}{hint}") from None
                delay = backoff.next_delay()
                log.warning("cannot reach %s (%s); trying again in %.0f s", self.client.base_url, error, delay)
                if stop.wait(delay):
                    return None
        username = str(account.get("username") or account.get("id") or "")
        if not username:
            raise StartupError("the server's account answer has no username")
        if account.get("title") != "BOT":
            raise StartupError(f"account {username} is not a BOT account; run `knightmate-bot upgrade` first "
                               "(irreversible, only for an account that has played no games)")
        return username

    def check_files(self) -> None:
        """Fails at start, not after the first game, when the PGN directory or the state file cannot be written."""
        for key, directory in (("game.pgn_dir", Path(self.settings.game.pgn_dir)),
                               ("game.state_file", Path(self.settings.game.state_file).parent),
                               ("bot.heartbeat_file", Path(self.settings.bot.heartbeat_file).parent),
                               ("bot.stop_file", Path(self.settings.bot.stop_file).parent)):
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StartupError(f"{key}: cannot create {directory}: {error.strerror}") from None
            if not os.access(directory, os.W_OK):
                raise StartupError(f"{key}: {directory} is not writable")

    def run(self, stop: threading.Event, finish: threading.Event | None = None) -> int:
        """Plays until ``stop`` is set, or after ``finish`` (or the stop file) until its games are
        over; returns the exit code."""
        self.check_files()
        stop_file = Path(self.settings.bot.stop_file)
        stop_file.unlink(missing_ok=True)  # a request to a bot that is gone is not one to this bot
        username = self.check_account(stop)
        if username is None:
            log.info("stopped before the server could be reached")
            return 0
        self.username = username
        log.info("logged in as %s on %s (%s dialect)", self.username, self.client.base_url, self.client.dialect)
        touch(self.settings.bot.heartbeat_file)
        for game_id in self.state.game_ids():
            log.info("game %s: unfinished at the last stop; reopening it", game_id)
            self._start_player(game_id, resumed=True)
        events = threading.Thread(target=self._read_events, name="events", daemon=True)
        events.start()
        while not stop.wait(0.5):
            self._play_missing_game_starts()
            if self._waiting:
                self._serve_waiting_soon()
            if (finish is not None and finish.is_set()) or stop_file.exists():
                stop_file.unlink(missing_ok=True)
                self.finish_games()
            if self.finishing.is_set() and self._all_games_over():
                log.info("stopping after the games: all are over")
                break
        self.shutdown()
        events.join(SHUTDOWN_GRACE_S)
        return 0

    def finish_games(self) -> None:
        """From now on, decline new challenges with ``later`` and stop once the games are over."""
        if self.finishing.is_set():
            return
        self.finishing.set()  # before the log line: whoever reads it may count on the declines
        log.info("stopping after the current games (%d playing): new challenges are declined", len(self._players))

    def _all_games_over(self) -> bool:
        """No game is played, waits for a slot, or was accepted and may still start."""
        with self._lock:
            queued = bool(self._queued)
        return not queued and self.active_games() == 0

    def shutdown(self) -> None:
        log.info("shutting down: no new challenges, leaving the streams")
        self.accepting = False
        deadline = time.monotonic() + SHUTDOWN_GRACE_S
        # A finished game's goodbye follows its PGN and needs the client: it goes out before the
        # client closes (stopping after the last game would otherwise cut that game's goodbye).
        with self._lock:
            leaving = [player for player in self._leaving if player.is_playing()]
        if leaving:
            log.info("waiting up to %g s for %d finished game(s) to say goodbye", SHUTDOWN_GRACE_S, len(leaving))
        for player in leaving:
            player.join_play(max(0.0, deadline - time.monotonic()))
        if self._waiting:
            self._decline_waiting_before(deadline)
        self.client.close()
        with self._lock:
            # Left, to go on after the next start: no longer active, nor counted again if one ends now.
            players, self._players = list(self._players.values()), {}
        GAMES_ACTIVE.dec(len(players))
        for player in players:
            player.stop()
        # After the stop: a stopped player shows its game no more.
        self.status.games_left([player.game_id for player in players])
        for player in players:
            player.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            engines, self._game_engines = list(self._game_engines.values()), {}
        for engine in engines:
            engine.close()
        self._answers.shutdown(wait=False, cancel_futures=True)
        log.info("stopped; unfinished games kept in %s: %s", self.state.path, self.state.game_ids() or "none")

    # -- the event stream ------------------------------------------------------------------------

    def _read_events(self) -> None:
        backoff = self.client.backoff()
        while self.accepting:
            try:
                for event in self.client.events():
                    touch(self.settings.bot.heartbeat_file)
                    self._on_event_logged(event)
                return
            except Exception:  # a bug in the client's reader: log it, and reopen with backoff
                ERRORS.labels(kind="bug").inc()
                delay = backoff.next_delay()
                log.exception("event stream reader failed; reopening it in %.1f s", delay)
                if self.client.stop.wait(delay):
                    return

    def _on_event_logged(self, event: EventStreamEvent) -> None:
        """Handles one event; a bug here is logged and the stream read on (reopening it would only
        have the server send the same event again)."""
        try:
            self._on_event(event)
        except Exception:
            ERRORS.labels(kind="bug").inc()
            log.exception("handling %s failed; skipped", type(event).__name__)

    def _on_event(self, event: EventStreamEvent) -> None:
        if isinstance(event, ChallengeReceived):
            if self.accepting:
                self._answers.submit(self._answer, event.challenge)
        elif isinstance(event, GameStarted):
            self._start_player(event.game_id)
        elif isinstance(event, ServerShutdown):
            log.warning("the server says it is shutting down; the stream will be reopened")

    def _answer(self, challenge: Challenge) -> None:
        what = f"challenge {challenge.id}"
        try:
            what = _describe(challenge)
            decision = self._decide(challenge)
            with self._lock:
                self._encounters.challenged(challenge, time.monotonic())
        except Exception:   # a bug must not leave the challenger waiting for an answer
            ERRORS.labels(kind="bug").inc()
            log.exception("%s: cannot decide on it (a bug); declining it", what)
            decision = Decision.declined("generic", "the bot failed to decide")
        if (decision.waits_for_slot or (decision.accept and self._waiting)) and self._wait_for_slot(challenge):
            log.info("%s: waits for a free slot (%s)", what, printable(decision.why))
            self._serve_waiting()
            return
        self._send(challenge, decision, what)

    def _decide(self, challenge: Challenge) -> Decision:
        if self.finishing.is_set():
            return Decision.declined("later", "the bot stops after its current games")
        now = time.monotonic()
        with self._lock:
            load = self._encounters.load(challenge, self._active_game_ids(now), now)
        return decide(self.settings.challenge, challenge, load)

    def _wait_for_slot(self, challenge: Challenge) -> bool:
        """Keeps the challenge until a slot frees, if the settings let it wait and the queue has room."""
        if self.settings.challenge.wait_for_slot_s <= 0 or len(self._waiting) >= MAX_WAITING_CHALLENGES:
            return False
        self._waiting.append((time.monotonic(), challenge))
        return True

    def _serve_waiting(self) -> None:
        """On the answers thread: declines the waiting challenges whose time is up, and gives each free
        slot to the next one in ``challenge.sort_by`` order, decided again."""
        now = time.monotonic()
        patience_s = self.settings.challenge.wait_for_slot_s
        expired = [challenge for since, challenge in self._waiting if now - since >= patience_s]
        self._waiting = [(since, challenge) for since, challenge in self._waiting if now - since < patience_s]
        for challenge in expired:
            self._send(challenge, Decision.declined("later", f"no slot came free within {patience_s:g} s"),
                       _describe(challenge))
        while self._waiting and (self.finishing.is_set() or self.active_games() < self.settings.challenge.concurrency):
            since, challenge = min(self._waiting, key=self._waiting_order)
            self._waiting.remove((since, challenge))
            decision = self._decide(challenge)
            if decision.waits_for_slot:     # taken meanwhile (a game the server started unasked)
                self._waiting.append((since, challenge))
                return
            self._send(challenge, decision, _describe(challenge))

    def _serve_waiting_soon(self) -> None:
        """Has the answers thread look at the waiting challenges (a slot may be free, a wait over)."""
        try:
            self._answers.submit(self._serve_waiting)
        except RuntimeError:    # shut down: the waiting challenges were answered then
            pass

    def _waiting_order(self, waiting: tuple[float, Challenge]) -> tuple[float, float]:
        since, challenge = waiting
        if self.settings.challenge.sort_by == "best":
            rating = challenge.challenger_rating
            return (-rating if rating is not None else 1.0, since)   # the best first, unrated last
        return (since, 0.0)

    def _decline_waiting_before(self, deadline: float) -> None:
        """At shutdown: the waiting challenges are declined ``later`` on the answers thread, which owns them."""
        def decline_all() -> None:
            waiting, self._waiting = self._waiting, []
            for _, challenge in waiting:
                self._send(challenge, Decision.declined("later", "the bot is stopping"), _describe(challenge))
        try:
            self._answers.submit(decline_all).result(timeout=max(0.0, deadline - time.monotonic()))
        except (TimeoutError, RuntimeError):     # RuntimeError: the executor is already shut down
            log.warning("challenges still waiting for a slot are left unanswered: the stop came first")

    def _send(self, challenge: Challenge, decision: Decision, what: str) -> None:
        try:
            if decision.accept:
                with self._lock:
                    self._pending[challenge.id] = time.monotonic()
                    self._encounters.accepted(challenge, time.monotonic())
                self.client.accept(challenge.id)
                CHALLENGES.labels(decision="accepted", reason="none").inc()
                self.status.challenge_answered(challenge, decision)
                log.info("%s: accepted", what)
            else:
                self.client.decline(challenge.id, decision.reason or "generic")
                CHALLENGES.labels(decision="declined", reason=decision.reason or "generic").inc()
                self.status.challenge_answered(challenge, decision)
                log.info("%s: declined (%s): %s", what, decision.reason, printable(decision.why))
        except Exception as error:  # ClientError, or a bug: either way the future would swallow it
            with self._lock:
                self._pending.pop(challenge.id, None)
            if isinstance(error, ClientError):
                log.warning("%s: answer failed: %s", what, error)
            else:
                log.exception("%s: answer failed", what)

    def _play_missing_game_starts(self) -> None:
        """Starts the game of each challenge accepted MISSING_GAME_START_S ago whose gameStart has not
        come. A game that does not exist ends its player at once (the stream's 404), with a log line."""
        now = time.monotonic()
        with self._lock:
            missing = [key for key, at in self._pending.items() if now - at > MISSING_GAME_START_S]
        for game_id in missing:
            log.warning("game %s: no gameStart %.0f s after accepting its challenge; opening its stream anyway",
                        game_id, MISSING_GAME_START_S)
            self._start_player(game_id)

    def clock_share(self) -> float:
        """The part of a search worker each game can count on: 1 until games outnumber workers."""
        with self._lock:
            playing = len(self._players)
        return min(1.0, self.workers / max(1, playing))

    def active_games(self) -> int:
        now = time.monotonic()
        with self._lock:
            return len(self._active_game_ids(now))

    def _active_game_ids(self, now: float) -> set[str]:
        """The games played, and the accepted challenges whose game may still start; with the lock held."""
        self._pending = {key: at for key, at in self._pending.items() if now - at < PENDING_ACCEPT_S}
        return set(self._players) | set(self._pending)

    # -- games -----------------------------------------------------------------------------------

    def _start_player(self, game_id: str, resumed: bool = False) -> None:
        """Plays ``game_id``, unless it is played already. A new game beyond ``challenge.concurrency``
        (the server started a game the bot did not accept) waits in a queue, and starts when a game
        ends; a game resumed from the state file always starts (it was ours before the restart)."""
        with self._lock:
            if game_id in self._players or game_id in self._done or not self.accepting:
                return  # played already, or over: a late gameStart must not open it again
            # Both servers give a game its challenge's id; a game with another id (a pychess rematch has
            # no challenge) takes the place of the oldest pending accept.
            if self._pending.pop(game_id, None) is None and self._pending:
                self._pending.pop(min(self._pending, key=self._pending.__getitem__))
            if not resumed and len(self._players) >= self.settings.challenge.concurrency:
                self._queue(game_id)
                return
            engine = self._game_engines[game_id] = self.engines.open(game_id)
            player = GamePlayer(game_id, client=self.client, searcher=engine, settings=self.settings,
                                username=self.username, on_done=self._on_done, share=self.clock_share,
                                state=self.state, resumed=resumed, status=self.status)
            self._players[game_id] = player
            # Started before the lock goes: shutdown joins every player it can see.
            self.state.add(game_id)
            player.start()
            GAMES_STARTED.inc()
            GAMES_ACTIVE.inc()

    def _queue(self, game_id: str) -> None:
        """Called with the lock held."""
        playing = len(self._players)
        if game_id in self._queued:
            return
        if len(self._queued) >= MAX_QUEUED_GAMES:
            log.warning("game %s: started beyond challenge.concurrency (%d playing) and %d already waiting; "
                        "not played (the server will end it)", game_id, playing, len(self._queued))
            return
        self._queued.append(game_id)
        log.warning("game %s: started beyond challenge.concurrency (%d playing); it waits and is played "
                    "as soon as a game ends", game_id, playing)

    def _on_done(self, game_id: str, result: Result | None) -> None:
        with self._lock:
            # Under the lock, as one step: a challenge decided meanwhile sees the slot still taken
            # and the game still in the state file, or the slot free and the game gone from both.
            self.state.remove(game_id)
            player = self._players.pop(game_id, None)
            # Called from the player's own thread, which goes on to its goodbye.
            self._leaving = [leaving for leaving in self._leaving if leaving.is_playing()]
            if player is not None:
                self._leaving.append(player)
            engine = self._game_engines.pop(game_id, None)
            self._done[game_id] = result
            if player is not None:
                GAMES_ACTIVE.dec()
                color = player.game.color
                GAMES_FINISHED.labels(result=game_result(result.result if result is not None else "*",
                                                         None if color is None else color == chess.WHITE)).inc()
            while len(self._done) > FINISHED_GAMES_KEPT:   # the bot runs for weeks
                del self._done[next(iter(self._done))]
            self._done_changed.notify_all()
            waiting = self._queued.pop(0) if self._queued else None
        if engine is not None:
            engine.close()
        if self._waiting:
            self._serve_waiting_soon()
        if waiting is not None:
            log.info("game %s: a game ended; playing it now", waiting)
            self._start_player(waiting)

    def wait_game_done(self, game_id: str, timeout: float) -> Result | None:
        """Waits until the game's PGN is written; its result. Raises TimeoutError (for demo and tests)."""
        with self._lock:
            if not self._done_changed.wait_for(lambda: game_id in self._done, timeout):
                raise TimeoutError(f"game {game_id} not finished by the bot after {timeout:g} s")
            return self._done[game_id]


def _describe(challenge: Challenge) -> str:
    """The challenge for the log, the challenger's name and the variant escaped (they come from the server)."""
    control = (f"{challenge.base_ms / 1000:g}+{challenge.increment_ms / 1000:g}"
               if challenge.base_ms is not None and challenge.increment_ms is not None else challenge.time_control)
    return (f"challenge {challenge.id} from {printable(challenge.challenger)} ({printable(challenge.variant)} "
            f"{printable(control)} {'rated' if challenge.rated else 'casual'})")
