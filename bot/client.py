"""The only module that speaks HTTP: both dialects of the Bot API, with timeouts and retries.

berserk does the plain calls (account, upgrade, accept, move, abort, resign) through a
:class:`TimeoutSession`, a berserk ``TokenSession`` that never waits forever. requests fills
berserk's gaps: form bodies for decline and chat (pychess ignores JSON bodies), the pychess
capability header, ``offeringDraw``, ``claim-victory``, and the streams themselves, which the bot
reads as raw lines (berserk drops the keep-alives the heartbeat needs and gives up on the first
malformed line).

What this module guarantees to its callers:

* every request has a connect and a read timeout, so a silent stream or a hung server turns
  into an exception and a reconnect, never a hang;
* streams are reopened with capped exponential backoff and jitter (:meth:`Client.events`,
  :meth:`Client.game_events`); pychess's 200-with-a-409-inside is retried and given up for a
  game whose stream stays broken for ``give_up_after_s``;
* an HTTP 429 pauses that endpoint for ``Retry-After`` or ``rate_limit_pause_s`` seconds;
* a move that met a 429, a 5xx or a failed connection is posted again until it lands or the caller
  says the game is over; a move whose answer was lost in a timeout is reported as
  :data:`MoveOutcome.UNCERTAIN`, never re-posted blindly (on pychess a second post of the same
  move is an illegal move that loses the game).

It never logs, prints or raises the token, and it never looks at a board.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar
from urllib.parse import quote

import berserk
import requests
from berserk.exceptions import ApiError, ResponseError
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

from bot.config import Secret, ServerSettings
from bot.events import EventStreamEvent, GameStreamEvent, ReportedResult
from bot.round_socket import RoundSocketError, read_reported_result, round_socket_url
from bot.wire import PYCHESS, MalformedLine, parse_event_line, parse_game_line

log = logging.getLogger(__name__)

#: Header pychess.org requires on the event stream; without it the stream answers 400.
PYCHESS_CAPABILITIES = {"X-PyChess-Bot-Capabilities": json.dumps({"version": 1, "variants": ["knightmate"]})}

#: Backoff between attempts to post a move after a 5xx or a failed connection.
MOVE_RETRY_INITIAL_S = 0.25
MOVE_RETRY_CAP_S = 2.0

#: Backoff between attempts to reopen a game's stream.
GAME_STREAM_RETRY_INITIAL_S = 0.5
GAME_STREAM_RETRY_CAP_S = 4.0

#: Asking pychess's round socket how a game ended: two tries, each with at most these waits (the
#: configured timeouts are for streams and can be long), one per finished game, never a poll
#: (the server allows 80 of these handshakes per 30 s).
RESULT_LOOKUP_ATTEMPTS = 2
RESULT_LOOKUP_TIMEOUT_S = 5.0

T = TypeVar("T")


class ClientError(Exception):
    """A request that failed for good; the message never contains the token."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class GameStreamLost(ClientError):
    """A game's stream cannot be reopened: the game is gone, or broken for too long."""


class MoveOutcome(Enum):
    LANDED = "landed"            # the server took the post (pychess says 200 even to illegal moves)
    REJECTED = "rejected"        # the server refused it (Lichess 400: illegal or not our turn)
    UNCERTAIN = "uncertain"      # sent, but the answer was lost: ask the game stream what happened
    ABANDONED = "abandoned"      # the caller said the game no longer wants it


class TimeoutSession(berserk.TokenSession):
    """A berserk ``TokenSession`` whose requests always carry a timeout."""

    def __init__(self, token: Secret, timeout: tuple[float, float], headers: dict[str, str]) -> None:
        super().__init__(token.reveal())
        self.timeout = timeout
        self.headers.update(headers)

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.timeout)
        return super().request(method, url, *args, **kwargs)

    def __repr__(self) -> str:
        return "<TimeoutSession>"


class Backoff:
    """Capped exponential backoff with jitter: ``initial``, ``2 initial``, ... ``cap``, each scaled by
    a random factor in [0.5, 1] so that many bots (or games) do not reconnect in step."""

    def __init__(self, initial_s: float, cap_s: float, rng: random.Random | None = None) -> None:
        self.initial_s = initial_s
        self.cap_s = cap_s
        self.failures = 0
        self._rng = rng or random.Random()

    def next_delay(self) -> float:
        delay = min(self.cap_s, self.initial_s * 2 ** min(self.failures, 30))
        self.failures += 1
        return float(delay * self._rng.uniform(0.5, 1.0))

    def reset(self) -> None:
        self.failures = 0


class RateLimits:
    """Per-endpoint pauses after HTTP 429s."""

    def __init__(self) -> None:
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def pause(self, endpoint: str, seconds: float) -> None:
        with self._lock:
            self._until[endpoint] = max(self._until.get(endpoint, 0.0), time.monotonic() + seconds)
        log.warning("HTTP 429 on %s: pausing it for %.0f s", endpoint, seconds)

    def remaining(self, endpoint: str) -> float:
        with self._lock:
            return max(0.0, self._until.get(endpoint, 0.0) - time.monotonic())

    def wait(self, endpoint: str, stop: threading.Event) -> bool:
        """Sleeps out the pause; ``False`` if ``stop`` was set meanwhile."""
        while (left := self.remaining(endpoint)) > 0:
            if stop.wait(left):
                return False
        return True


@dataclass(frozen=True)
class _Failure:
    """Why one request failed, in terms the retry loops decide on."""
    status: int | None          # HTTP status, None when there was no answer
    retry_after_s: float | None
    maybe_sent: bool            # the request may have reached the server (lost answer)
    text: str

    @property
    def retryable(self) -> bool:
        return self.status is None or self.status == 429 or self.status >= 500


class LineStream:
    """One open streaming response, read line by line; :meth:`close` interrupts a blocked read
    from another thread (shutdown), which is how the bot leaves its streams promptly."""

    def __init__(self, response: requests.Response) -> None:
        self._response = response
        self.url = response.url
        self._closed = False

    def lines(self) -> Iterator[bytes]:
        # chunk_size=1 hands over each line the moment it arrives; ndjson lines are short.
        try:
            yield from self._response.iter_lines(chunk_size=1)
        except (AttributeError, ValueError, OSError) as error:
            # What a read says when close() pulled the connection from under it.
            if not self._closed:
                raise requests.ConnectionError(f"stream broke: {type(error).__name__}") from error

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        raw = self._response.raw
        try:
            shutdown = getattr(raw, "shutdown", None)
            if shutdown is not None:
                shutdown()
        except (OSError, RuntimeError, ValueError):
            pass  # already released to the pool or closed: nothing left to interrupt
        self._response.close()


class Client:
    """The Bot API for one account on one server, in that server's dialect."""

    def __init__(self, settings: ServerSettings, token: Secret, *, give_up_after_s: float = 120.0,
                 rng: random.Random | None = None) -> None:
        self.settings = settings
        self.give_up_after_s = give_up_after_s
        self.dialect = settings.resolved_dialect
        self.base_url = settings.url.rstrip("/")
        headers = PYCHESS_CAPABILITIES if self.dialect == PYCHESS else {}
        self.session = TimeoutSession(token, (settings.connect_timeout_s, settings.read_timeout_s), headers)
        self.api = berserk.Client(self.session, base_url=self.base_url)
        self.rate_limits = RateLimits()
        self.stop = threading.Event()
        self._rng = rng or random.Random()
        self._open_streams: set[LineStream] = set()
        self._streams_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<Client {self.dialect} {self.base_url}>"

    # -- lifecycle -------------------------------------------------------------------------------

    def close(self) -> None:
        """Stops every retry loop and interrupts every open stream; used at shutdown."""
        self.stop.set()
        with self._streams_lock:
            streams = list(self._open_streams)
        for stream in streams:
            stream.close()
        self.session.close()

    def backoff(self) -> Backoff:
        return Backoff(self.settings.backoff_initial_s, self.settings.backoff_max_s, self._rng)

    # -- plain calls -----------------------------------------------------------------------------

    def account(self) -> dict[str, Any]:
        """``/api/account``; raises :class:`ClientError` (with the status) when it cannot be read."""
        return self._call_with_retries("account", lambda: dict(self.api.account.get()), attempts=3)

    def upgrade_to_bot(self) -> None:
        self._call_with_retries("upgrade", self.api.account.upgrade_to_bot, attempts=1)

    def accept(self, challenge_id: str) -> None:
        self._call_with_retries("accept", lambda: self.api.bots.accept_challenge(challenge_id), attempts=3)

    def decline(self, challenge_id: str, reason: str) -> None:
        # Form data: pychess silently turns a JSON body's reason into "generic".
        path = f"/api/challenge/{quote(challenge_id)}/decline"
        self._call_with_retries("decline", lambda: self._post_form(path, {"reason": reason}), attempts=3)

    def chat(self, game_id: str, text: str, room: str = "player") -> None:
        path = f"/api/bot/game/{quote(game_id)}/chat"
        # Chat is a courtesy: one try, and never a wait on a paused endpoint in the middle of a game.
        self._call_with_retries("chat", lambda: self._post_form(path, {"room": room, "text": text}), attempts=1,
                                wait_if_paused=False)

    def abort(self, game_id: str) -> None:
        self._call_with_retries("abort", lambda: self.api.bots.abort_game(game_id), attempts=3)

    def resign(self, game_id: str) -> None:
        self._call_with_retries("resign", lambda: self.api.bots.resign_game(game_id), attempts=3)

    def accept_draw(self, game_id: str) -> None:
        """Lichess only: pychess has no draw endpoint for bots."""
        path = f"/api/bot/game/{quote(game_id)}/draw/yes"
        self._call_with_retries("draw", lambda: self._post_form(path, {}), attempts=1, wait_if_paused=False)

    def claim_victory(self, game_id: str) -> None:
        """Lichess only, after ``opponentGone`` counted down."""
        path = f"/api/bot/game/{quote(game_id)}/claim-victory"
        self._call_with_retries("claim", lambda: self._post_form(path, {}), attempts=3)

    def reported_result(self, game_id: str) -> ReportedResult:
        """How a finished game ended, as the server shows it to a spectator: pychess's round socket
        (:mod:`bot.round_socket`), tried twice at most. Only for a game the stream said is over,
        and once per game: the server rate-limits these connections.

        :raises ClientError: the dialect has no such socket, or it gave no answer; the message says why.
        """
        if self.dialect != PYCHESS:
            raise ClientError(f"the {self.dialect} dialect has no round socket to ask")
        open_timeout_s = min(self.settings.connect_timeout_s, RESULT_LOOKUP_TIMEOUT_S)
        read_timeout_s = min(self.settings.read_timeout_s, RESULT_LOOKUP_TIMEOUT_S)
        problem = ""
        for attempt in range(RESULT_LOOKUP_ATTEMPTS):
            if attempt > 0 and self.stop.wait(min(self.settings.backoff_initial_s, RESULT_LOOKUP_TIMEOUT_S)):
                break
            try:
                url = round_socket_url(self.base_url, game_id)
                return read_reported_result(url, game_id, open_timeout_s=open_timeout_s,
                                            read_timeout_s=read_timeout_s)
            except RoundSocketError as error:
                problem = str(error)
                log.warning("game %s: asking how the game ended failed: %s", game_id, problem)
        raise ClientError(f"the server's round socket did not say how the game ended ({problem or 'stopped'})")

    def post_move(self, game_id: str, uci: str, *, offering_draw: bool = False,
                  still_wanted: Callable[[], bool] = lambda: True) -> MoveOutcome:
        """Posts a move until the server has it, or the game no longer wants it.

        429s pause the endpoint and 5xx and refused connections back off; both are retried.
        """
        # Short waits: the clock runs while a move waits (429s have their own pause).
        backoff = Backoff(min(self.settings.backoff_initial_s, MOVE_RETRY_INITIAL_S),
                          min(self.settings.backoff_max_s, MOVE_RETRY_CAP_S), self._rng)
        while still_wanted():
            if not self.rate_limits.wait("move", self.stop) or not still_wanted():
                break
            try:
                self._post_move_once(game_id, uci, offering_draw)
                return MoveOutcome.LANDED
            except (ResponseError, ApiError, requests.RequestException) as error:
                failure = self._failure("move", error)
            if failure.status is not None and not failure.retryable:
                log.warning("game %s: move %s refused: %s", game_id, uci, failure.text)
                return MoveOutcome.REJECTED
            if failure.maybe_sent:
                log.warning("game %s: move %s sent but no answer (%s)", game_id, uci, failure.text)
                return MoveOutcome.UNCERTAIN
            if failure.status != 429:
                delay = backoff.next_delay()
                log.warning("game %s: move %s failed (%s), again in %.1f s", game_id, uci, failure.text, delay)
                if self.stop.wait(delay):
                    break
        return MoveOutcome.ABANDONED

    def _post_move_once(self, game_id: str, uci: str, offering_draw: bool) -> None:
        if offering_draw:
            path = f"/api/bot/game/{quote(game_id)}/move/{quote(uci)}"
            self._post_form(path, {}, params={"offeringDraw": "true"})
        else:
            self.api.bots.make_move(game_id, uci)

    def _post_form(self, path: str, form: dict[str, str], params: dict[str, str] | None = None) -> None:
        response = self.session.post(self.base_url + path, data=form, params=params)
        if not response.ok:
            raise ResponseError(response)

    def _call_with_retries(self, endpoint: str, call: Callable[[], T], *, attempts: int,
                           wait_if_paused: bool = True) -> T:
        backoff = self.backoff()
        for attempt in range(1, attempts + 1):
            if not wait_if_paused and self.rate_limits.remaining(endpoint) > 0:
                raise ClientError(f"{endpoint}: skipped, paused after an HTTP 429")
            if not self.rate_limits.wait(endpoint, self.stop):
                raise ClientError(f"{endpoint}: stopped")
            try:
                return call()
            except (ResponseError, ApiError, requests.RequestException) as error:
                failure = self._failure(endpoint, error)
            # Unlike a move, each of these calls may safely reach the server twice.
            if not failure.retryable or attempt == attempts:
                raise ClientError(f"{endpoint}: {failure.text}", failure.status)
            if failure.status != 429 and self.stop.wait(backoff.next_delay()):
                raise ClientError(f"{endpoint}: stopped")
        raise AssertionError("unreachable")

    def _failure(self, endpoint: str, error: Exception) -> _Failure:
        """Classifies an exception; a 429 pauses the endpoint here, once, for every caller."""
        if isinstance(error, ResponseError):
            response = error.response
            retry_after = _retry_after(response.headers.get("Retry-After"))
            if response.status_code == 429:
                self.rate_limits.pause(endpoint, retry_after or self.settings.rate_limit_pause_s)
            return _Failure(response.status_code, retry_after, False, f"HTTP {response.status_code}")
        cause = error.error if isinstance(error, ApiError) and not isinstance(error, ResponseError) else error
        return _Failure(None, None, _maybe_sent(cause), type(cause).__name__)

    # -- streams ---------------------------------------------------------------------------------

    def _open(self, endpoint: str, path: str) -> LineStream:
        """Opens a stream; raises ``requests`` errors or :class:`ResponseError`."""
        response = self.session.get(self.base_url + path, stream=True)
        if not response.ok:
            response.close()
            raise ResponseError(response)
        stream = LineStream(response)
        with self._streams_lock:
            self._open_streams.add(stream)
        return stream

    def _forget(self, stream: LineStream) -> None:
        stream.close()
        with self._streams_lock:
            self._open_streams.discard(stream)

    def events(self) -> Iterator[EventStreamEvent]:
        """The account's event stream, reopened whenever it drops or goes silent, until :meth:`close`.

        Yields a :class:`KeepAlive` for every keep-alive (so the caller can keep a heartbeat), and
        skips (with a log line) lines it cannot parse.
        """
        backoff = self.backoff()
        while not self.stop.is_set():
            if not self.rate_limits.wait("stream_event", self.stop):
                return
            stream = None
            try:
                stream = self._open("stream_event", "/api/stream/event")
                log.info("event stream open")
                for line in stream.lines():
                    backoff.reset()
                    try:
                        event = parse_event_line(self.dialect, line)
                    except MalformedLine as error:
                        log.warning("event stream: skipped malformed line %s", error)
                        continue
                    if event is not None:
                        yield event
                reason = "closed by the server"
            except (ResponseError, ApiError, requests.RequestException) as error:
                reason = self._failure("stream_event", error).text
            finally:
                if stream is not None:
                    self._forget(stream)
            if self.stop.is_set():
                return
            delay = backoff.next_delay()
            log.warning("event stream %s; reopening in %.1f s", reason, delay)
            if self.stop.wait(delay):
                return

    def game_events(self, game_id: str, stop: threading.Event) -> Iterator[GameStreamEvent]:
        """A game's stream, reopened until ``stop`` is set or the caller leaves the loop.

        The caller leaves when the game is over; a stream that closes or breaks before that is
        reopened (its first line, ``gameFull``, carries the whole game so far). Raises
        :class:`GameStreamLost` on a 404 (the game is gone) or when reopening has failed for
        ``give_up_after_s``, e.g. pychess's endless 409 for a game that ended while the bot was
        away. Waits between attempts stay short: the game's clock runs while its stream is down,
        and pychess's 409 for a dropped stream lasts up to 6 s.
        """
        backoff = Backoff(min(self.settings.backoff_initial_s, GAME_STREAM_RETRY_INITIAL_S),
                          min(self.settings.backoff_max_s, GAME_STREAM_RETRY_CAP_S), self._rng)
        failing_since: float | None = None
        path = f"/api/bot/game/stream/{quote(game_id)}"
        while not (stop.is_set() or self.stop.is_set()):
            if not self.rate_limits.wait("stream_game", self.stop):
                return
            stream = None
            try:
                stream = self._open("stream_game", path)
                for line in stream.lines():
                    failing_since = None
                    backoff.reset()
                    try:
                        event = parse_game_line(self.dialect, line)
                    except MalformedLine as error:
                        log.warning("game %s: skipped malformed line %s", game_id, error)
                        continue
                    if event is not None:
                        yield event
                    if stop.is_set():
                        return
                reason = "closed by the server"
            except (ResponseError, ApiError, requests.RequestException) as error:
                failure = self._failure("stream_game", error)
                if failure.status == 404:
                    raise GameStreamLost(f"game {game_id}: the server does not know it (404)", 404) from None
                reason = failure.text
            finally:
                if stream is not None:
                    self._forget(stream)
            if stop.is_set() or self.stop.is_set():
                return
            now = time.monotonic()
            failing_since = now if failing_since is None else failing_since
            if now - failing_since > self.give_up_after_s:
                raise GameStreamLost(f"game {game_id}: stream could not be reopened for "
                                     f"{now - failing_since:.0f} s ({reason})")
            delay = backoff.next_delay()
            log.warning("game %s: stream %s; reopening in %.1f s", game_id, reason, delay)
            if stop.wait(delay) or self.stop.is_set():
                return

    def interrupt_game_stream(self, game_id: str) -> None:
        """Breaks the game's current stream so that it is reopened (and its ``gameFull`` read)."""
        self._interrupt(f"/api/bot/game/stream/{quote(game_id)}")

    def interrupt_event_stream(self) -> None:
        """Breaks the event stream so that it is reopened: pychess then re-sends ``gameStart`` for
        unfinished games that have a move and no open game stream (API.md)."""
        self._interrupt("/api/stream/event")

    def _interrupt(self, path: str) -> None:
        with self._streams_lock:
            streams = [stream for stream in self._open_streams if stream.url.endswith(path)]
        for stream in streams:
            stream.close()


def _maybe_sent(error: Exception) -> bool:
    """Whether a request that failed without an answer may still have reached the server: only a
    connection that was never made (refused, or timed out connecting) proves it did not."""
    if isinstance(error, requests.ConnectTimeout):
        return False
    if isinstance(error, requests.ConnectionError):
        reason = error.args[0] if error.args else None
        return not isinstance(getattr(reason, "reason", None), NewConnectionError | ConnectTimeoutError)
    return isinstance(error, requests.RequestException)


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: rare enough to fall back to the default pause

