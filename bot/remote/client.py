"""The only module that speaks HTTP: both dialects of the Bot API, with timeouts and retries.

berserk does the plain calls (account, upgrade, accept, move, abort, resign) through a
:class:`TimeoutSession`, a berserk ``TokenSession`` that never waits forever. requests fills
berserk's gaps: form bodies for decline and chat (pychess ignores JSON bodies), the dialect's
headers (:attr:`bot.dialect.Dialect.headers`), ``offeringDraw``, ``claim-victory``, and the
streams themselves, which the bot reads as raw lines (berserk drops the keep-alives the heartbeat
needs and gives up on the first malformed line).

What this module guarantees to its callers:

* every request has a connect and a read timeout, so a silent stream or a hung server turns
  into an exception and a reconnect, never a hang;
* streams are reopened with capped exponential backoff and jitter (:meth:`Client.events`,
  :meth:`Client.game_events`); pychess's 200-with-a-409-inside is retried and given up for a
  game whose stream stays broken for ``give_up_after_s``;
* an HTTP 429 pauses that endpoint for ``Retry-After`` (at most :data:`MAX_RETRY_AFTER_S`) or
  ``rate_limit_pause_s`` seconds;
* a move that met a 429, a 5xx or a failed connection is posted again until it lands or the caller
  says the game is over (which also ends any wait at once); a move whose clock cannot wait out a
  pause goes out anyway; a move whose answer was lost in a timeout is reported as
  :data:`MoveOutcome.UNCERTAIN`, never re-posted blindly (on pychess a second post of the same
  move is an illegal move that loses the game).

Every id that goes into a URL path must be a plain token (:func:`bot.remote.wire.is_plain_id`) and is
escaped as one path segment; any other id is refused with a :class:`ClientError`, never sent.
It never logs, prints or raises the token, and it never looks at a board.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar
from urllib.parse import quote

import berserk
import requests
import urllib3
from berserk.exceptions import ApiError, ResponseError
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

from bot.config import Secret, ServerSettings
from bot.dialect import Dialect
from bot.metrics import ERRORS, STREAM_RECONNECTS, http_error_kind
from bot.remote.events import EventStreamEvent, GameStreamEvent, ReportedResult, RoundBoard
from bot.remote.round_socket import RoundSocketError, read_round_board, round_socket_url
from bot.remote.wire import MalformedLine, is_plain_id, parse_event_line, parse_game_line

log = logging.getLogger(__name__)

#: The paths this module builds itself, by endpoint name (the name rate limits and logs use); berserk
#: knows the paths of the calls it makes (account, upgrade, accept, move, abort, resign). Each
#: ``{game}``/``{challenge}``/``{move}`` is filled in by :func:`_path` as one escaped path segment.
PATHS = {
    "stream_event": "/api/stream/event",
    "stream_game": "/api/bot/game/stream/{game}",
    "decline": "/api/challenge/{challenge}/decline",
    "chat": "/api/bot/game/{game}/chat",
    "move": "/api/bot/game/{game}/move/{move}",
    "draw": "/api/bot/game/{game}/draw/yes",
    "claim": "/api/bot/game/{game}/claim-victory",
}

#: Backoff between attempts to post a move after a 5xx or a failed connection.
MOVE_RETRY_INITIAL_S = 0.25
MOVE_RETRY_CAP_S = 2.0

#: The longest pause a server's ``Retry-After`` can put on an endpoint (``inf`` or an hour would
#: stop it for good); a game's move wakes earlier anyway when the game ends or its clock runs short.
MAX_RETRY_AFTER_S = 300.0

#: Backoff between attempts to reopen a game's stream.
GAME_STREAM_RETRY_INITIAL_S = 0.5
GAME_STREAM_RETRY_CAP_S = 4.0

#: Asking pychess's round socket how a game ended: two tries, each with at most these waits (the
#: configured timeouts are for streams and can be long), one per finished game, never a poll
#: (the server allows 80 of these handshakes per 30 s).
RESULT_LOOKUP_ATTEMPTS = 2
RESULT_LOOKUP_TIMEOUT_S = 5.0

#: A stream that stayed open this long was healthy: the backoff of its next reconnection starts over.
STABLE_STREAM_S = 30.0

T = TypeVar("T")
E = TypeVar("E")


class ClientError(Exception):
    """A request that failed for good; the message never contains the token."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    @property
    def retryable(self) -> bool:
        """Whether trying again later may succeed: no answer, a rate limit or a server error."""
        return _retryable(self.status)


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
        return _retryable(self.status)


#: The longest stream line the bot reads; a longer one is a malformed line, skipped unread. The
#: longest real lines, a ``gameFull`` of a long game, are a few kilobytes.
MAX_LINE_BYTES = 256 * 1024
#: The most bytes taken from the socket per read; a read returns as soon as any bytes arrive.
READ_CHUNK_BYTES = 16 * 1024


def split_lines(chunks: Iterable[bytes], max_bytes: int = MAX_LINE_BYTES) -> Iterator[bytes | None]:
    """The lines (without their ``\\n``) of a byte stream that arrives in chunks of any size.

    Linear in the bytes read, and never holds more than ``max_bytes`` of one line: a line that
    grows past it gives one ``None`` (the caller logs a malformed line) and the rest of it is
    dropped up to its end.
    """
    pending = bytearray()
    skipping = False
    for chunk in chunks:
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            if not skipping:
                if len(pending) + end - start > max_bytes:
                    yield None
                else:
                    pending += chunk[start:end]
                    yield bytes(pending)
            skipping = False
            pending.clear()
            start = end + 1
        if skipping:
            continue
        if len(pending) + len(chunk) - start > max_bytes:
            skipping = True
            pending.clear()
            yield None
        else:
            pending += chunk[start:]
    if pending:
        yield bytes(pending)


class LineStream:
    """One open streaming response, read line by line; :meth:`close` interrupts a blocked read
    from another thread (shutdown), which is how the bot leaves its streams promptly."""

    def __init__(self, response: requests.Response) -> None:
        self._response = response
        self.url = response.url
        self.opened_at = time.monotonic()
        self._closed = False
        self.interrupted = False      # closed on purpose so that the caller reopens it at once

    def lines(self) -> Iterator[bytes | None]:
        """The stream's lines as they arrive; ``None`` stands for a line over :data:`MAX_LINE_BYTES`."""
        return split_lines(self._chunks())

    def _chunks(self) -> Iterator[bytes]:
        raw = self._response.raw
        try:
            # read1 hands over whatever has arrived, so a line is never held back waiting for more.
            while chunk := raw.read1(READ_CHUNK_BYTES, decode_content=True):
                yield chunk
        except urllib3.exceptions.HTTPError as error:
            if not self._closed:
                raise requests.ConnectionError(f"stream broke: {type(error).__name__}") from error
        except (AttributeError, ValueError, OSError) as error:
            # What a read says when close() pulled the connection from under it.
            if not self._closed:
                raise requests.ConnectionError(f"stream broke: {type(error).__name__}") from error

    def interrupt(self) -> None:
        """Closes the stream so that its reader opens it again without a pause."""
        self.interrupted = True
        self.close()

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


@dataclass(frozen=True)
class _StreamPlan:
    """How one kind of stream is read and reopened (see :meth:`Client._reopening_lines`)."""
    endpoint: str                   # for rate limits and logs
    path: str
    label: str                      # what the log calls it: "event stream", "game g1: stream"
    backoff: Backoff
    stop: threading.Event
    give_up_after_s: float | None   # raise GameStreamLost after failing this long; None: never
    lost_on_404: bool               # a 404 means the thing streamed is gone for good
    on_refused: Callable[[str], None] | None = None   # told of each attempt that gave no line


class Client:
    """The Bot API for one account on one server, in that server's dialect."""

    def __init__(self, settings: ServerSettings, token: Secret, *, give_up_after_s: float,
                 rng: random.Random | None = None) -> None:
        """``give_up_after_s`` is ``game.give_up_after_s``: how long a game's stream may fail before
        the game is given up (:meth:`game_events`)."""
        self.settings = settings
        self.give_up_after_s = give_up_after_s
        self.dialect = settings.resolved_dialect
        self.base_url = settings.url.rstrip("/")
        self.session = TimeoutSession(token, (settings.connect_timeout_s, settings.read_timeout_s),
                                      dict(self.dialect.headers))
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
        challenge_id = _segment(challenge_id, "challenge id")
        self._call_with_retries("accept", lambda: self.api.bots.accept_challenge(challenge_id), attempts=3)

    def decline(self, challenge_id: str, reason: str) -> None:
        # Form data: pychess silently turns a JSON body's reason into "generic".
        path = _path("decline", challenge=challenge_id)
        self._call_with_retries("decline", lambda: self._post_form(path, {"reason": reason}), attempts=3)

    def chat(self, game_id: str, text: str, room: str = "player") -> None:
        path = _path("chat", game=game_id)
        # Chat is a courtesy: one try, and never a wait on a paused endpoint in the middle of a game.
        self._call_with_retries("chat", lambda: self._post_form(path, {"room": room, "text": text}), attempts=1,
                                wait_if_paused=False)

    # The calls a game's player makes are tried once, and skipped while their endpoint is paused
    # after a 429: the player tries them again on its own deadlines, so its thread never sleeps
    # here while its game goes on.

    def abort(self, game_id: str) -> None:
        game_id = _segment(game_id, "game id")
        self._call_with_retries("abort", lambda: self.api.bots.abort_game(game_id), attempts=1,
                                wait_if_paused=False)

    def resign(self, game_id: str) -> None:
        game_id = _segment(game_id, "game id")
        self._call_with_retries("resign", lambda: self.api.bots.resign_game(game_id), attempts=1,
                                wait_if_paused=False)

    def accept_draw(self, game_id: str) -> None:
        """Lichess only: pychess has no draw endpoint for bots."""
        path = _path("draw", game=game_id)
        self._call_with_retries("draw", lambda: self._post_form(path, {}), attempts=1, wait_if_paused=False)

    def claim_victory(self, game_id: str) -> None:
        """Lichess only, after ``opponentGone`` counted down."""
        path = _path("claim", game=game_id)
        self._call_with_retries("claim", lambda: self._post_form(path, {}), attempts=1, wait_if_paused=False)

    def reported_result(self, game_id: str) -> ReportedResult:
        """How a finished game ended, as the server shows it to a spectator: pychess's round socket
        (:mod:`bot.remote.round_socket`), tried twice at most. Only for a game the stream said is over,
        and once per game: the server rate-limits these connections.

        :raises ClientError: the dialect has no such socket, or it gave no answer; the message says why.
        """
        problem = ""
        for attempt in range(RESULT_LOOKUP_ATTEMPTS):
            if attempt > 0 and self.stop.wait(min(self.settings.backoff_initial_s, RESULT_LOOKUP_TIMEOUT_S)):
                break
            try:
                return self.round_board(game_id).reported
            except ClientError as error:
                if not self.dialect.round_socket:
                    raise
                problem = str(error)
                log.warning("game %s: asking how the game ended failed: %s", game_id, problem)
        raise ClientError(f"the server's round socket did not say how the game ended ({problem or 'stopped'})")

    def round_board(self, game_id: str) -> RoundBoard:
        """The game as the server's public round socket shows it now (pychess; no token is sent):
        one connection, with waits of at most :data:`RESULT_LOOKUP_TIMEOUT_S`.

        :raises ClientError: the dialect has no such socket, or it gave no answer; the message says why.
        """
        if not self.dialect.round_socket:
            raise ClientError(f"the {self.dialect} dialect has no round socket to ask")
        try:
            return read_round_board(round_socket_url(self.base_url, game_id), game_id,
                                    open_timeout_s=min(self.settings.connect_timeout_s, RESULT_LOOKUP_TIMEOUT_S),
                                    read_timeout_s=min(self.settings.read_timeout_s, RESULT_LOOKUP_TIMEOUT_S))
        except RoundSocketError as error:
            raise ClientError(str(error)) from None

    def post_move(self, game_id: str, uci: str, *, offering_draw: bool = False,
                  cancel: threading.Event | None = None, send_by: float | None = None) -> MoveOutcome:
        """Posts a move until the server has it, or ``cancel`` is set (the game no longer wants it).

        429s pause the endpoint, and 5xx and refused connections back off; both are retried, with
        at least a short backoff between posts. ``cancel`` (and :meth:`close`) ends any wait at
        once; ``send_by`` (a ``time.monotonic()`` value: when our clock runs out) ends a 429 pause
        early, since a move held back past it loses the game anyway.
        """
        cancel = cancel or self.stop
        game_id, uci = _segment(game_id, "game id"), _segment(uci, "move")
        # Short waits: the clock runs while a move waits.
        backoff = Backoff(min(self.settings.backoff_initial_s, MOVE_RETRY_INITIAL_S),
                          min(self.settings.backoff_max_s, MOVE_RETRY_CAP_S), self._rng)
        while not (cancel.is_set() or self.stop.is_set()):
            if not self._sleep_out_pause("move", cancel, send_by):
                break
            if self.rate_limits.remaining("move") > 0:
                log.warning("game %s: posting move %s during a 429 pause: the clock cannot wait", game_id, uci)
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
            delay = backoff.next_delay()
            log.warning("game %s: move %s failed (%s), again in %.1f s", game_id, uci, failure.text, delay)
            if cancel.wait(delay):
                break
        return MoveOutcome.ABANDONED

    def _sleep_out_pause(self, endpoint: str, cancel: threading.Event, until: float | None) -> bool:
        """Waits while ``endpoint`` is paused, but not past ``until``; ``False`` if cancelled meanwhile."""
        while (left := self.rate_limits.remaining(endpoint)) > 0:
            if until is not None:
                left = min(left, until - time.monotonic())
                if left <= 0:
                    break
            if cancel.wait(left):
                return False
        return not self.stop.is_set()

    def _post_move_once(self, game_id: str, uci: str, offering_draw: bool) -> None:
        if offering_draw:
            path = _path("move", game=game_id, move=uci)
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

    def _failure(self, endpoint: str, error: Exception, *, counted: bool = True) -> _Failure:
        """Classifies an exception (and counts it, unless the bot caused it itself); a 429 pauses the
        endpoint here, once, for every caller."""
        if isinstance(error, ResponseError):
            response = error.response
            retry_after = _retry_after(response.headers.get("Retry-After"))
            if response.status_code == 429:
                self.rate_limits.pause(endpoint, retry_after or self.settings.rate_limit_pause_s)
            if counted:
                ERRORS.labels(kind=http_error_kind(response.status_code)).inc()
            return _Failure(response.status_code, retry_after, False, f"HTTP {response.status_code}")
        cause = error.error if isinstance(error, ApiError) and not isinstance(error, ResponseError) else error
        if counted:
            ERRORS.labels(kind=http_error_kind(None)).inc()
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
        plan = _StreamPlan("stream_event", PATHS["stream_event"], "event stream", self.backoff(), self.stop,
                           give_up_after_s=None, lost_on_404=False)
        for line in self._reopening_lines(plan):
            event = _parsed(parse_event_line, self.dialect, line, plan.label)
            if event is not None:
                yield event

    def game_events(self, game_id: str, stop: threading.Event,
                    on_refused: Callable[[str], None] | None = None) -> Iterator[GameStreamEvent]:
        """A game's stream, reopened until ``stop`` is set or the caller leaves the loop.

        The caller leaves when the game is over; a stream that closes or breaks before that is
        reopened (its first line, ``gameFull``, carries the whole game so far). Raises
        :class:`GameStreamLost` on a 404 (the game is gone) or when reopening has failed for
        ``give_up_after_s``, e.g. pychess's endless 409 for a game that ended while the bot was
        away. Waits between attempts stay short: the game's clock runs while its stream is down,
        and pychess's 409 for a dropped stream lasts up to 6 s. ``on_refused`` is called (on the
        caller's thread, with the reason) after each attempt that gave not a single line, before
        the wait for the next: the game can be read elsewhere meanwhile (:mod:`bot.games.round_fallback`).
        """
        backoff = Backoff(min(self.settings.backoff_initial_s, GAME_STREAM_RETRY_INITIAL_S),
                          min(self.settings.backoff_max_s, GAME_STREAM_RETRY_CAP_S), self._rng)
        try:
            path = self._game_stream_path(game_id)
        except ClientError as error:
            raise GameStreamLost(str(error)) from None
        plan = _StreamPlan("stream_game", path, f"game {game_id}: stream", backoff, stop,
                           give_up_after_s=self.give_up_after_s, lost_on_404=True, on_refused=on_refused)
        for line in self._reopening_lines(plan):
            event = _parsed(parse_game_line, self.dialect, line, plan.label)
            if event is not None:
                yield event
            if stop.is_set():
                return

    def _reopening_lines(self, plan: _StreamPlan) -> Iterator[bytes | None]:
        """The one stream reader: opens ``plan.path``, yields its lines, and reopens it after a drop,
        a silence or an error, until ``plan.stop`` or :meth:`close`.

        The backoff between attempts starts over only after a stream stayed open for
        :data:`STABLE_STREAM_S` (not on any line: a server that answers one keep-alive and hangs up
        must not be reconnected twice a second forever); a stream this client interrupted on
        purpose is reopened at once.
        """
        failing_since: float | None = None
        while not self._stopped(plan.stop):
            if not self.rate_limits.wait(plan.endpoint, plan.stop) or self.stop.is_set():
                return
            stream = None
            refused = True
            try:
                stream = self._open(plan.endpoint, plan.path)
                log.info("%s open", plan.label)
                for line in stream.lines():
                    failing_since = None
                    refused = False
                    yield line
                reason = "closed by the server"
            except (ResponseError, ApiError, requests.RequestException) as error:
                # A stream this client cut on purpose (to read a game again) is no failure to count.
                failure = self._failure(plan.endpoint, error, counted=stream is None or not stream.interrupted)
                if plan.lost_on_404 and failure.status == 404:
                    raise GameStreamLost(f"{plan.label}: the server does not know it (404)", 404) from None
                reason = failure.text
            finally:
                if stream is not None:
                    self._forget(stream)
            if self._stopped(plan.stop):
                return
            if stream is not None and stream.interrupted:
                continue
            now = time.monotonic()
            if stream is not None and now - stream.opened_at >= STABLE_STREAM_S:
                plan.backoff.reset()
            failing_since = now if failing_since is None else failing_since
            if plan.give_up_after_s is not None and now - failing_since > plan.give_up_after_s:
                raise GameStreamLost(f"{plan.label}: could not be reopened for {now - failing_since:.0f} s ({reason})")
            delay = plan.backoff.next_delay()
            log.warning("%s %s; reopening in %.1f s", plan.label, reason, delay)
            STREAM_RECONNECTS.labels(stream=plan.endpoint.removeprefix("stream_")).inc()
            if refused and plan.on_refused is not None:
                plan.on_refused(reason)
            if plan.stop.wait(delay):
                return

    def _stopped(self, stop: threading.Event) -> bool:
        return stop.is_set() or self.stop.is_set()

    @staticmethod
    def _game_stream_path(game_id: str) -> str:
        return _path("stream_game", game=game_id)

    def interrupt_game_stream(self, game_id: str) -> None:
        """Breaks the game's current stream so that it is reopened (and its ``gameFull`` read)."""
        self._interrupt(self._game_stream_path(game_id))

    def _interrupt(self, path: str) -> None:
        with self._streams_lock:
            streams = [stream for stream in self._open_streams if stream.url.endswith(path)]
        for stream in streams:
            stream.interrupt()


def _parsed(parse: Callable[[Dialect, bytes], E], dialect: Dialect, line: bytes | None, label: str) -> E | None:
    """One line parsed, or ``None`` (and a log line) when it is malformed: never the end of a stream."""
    if line is None:
        log.warning("%s: skipped malformed line: longer than %d bytes", label, MAX_LINE_BYTES)
        ERRORS.labels(kind="malformed_line").inc()
        return None
    try:
        return parse(dialect, line)
    except MalformedLine as error:
        log.warning("%s: skipped malformed line %s", label, error)
        ERRORS.labels(kind="malformed_line").inc()
        return None


def _retryable(status: int | None) -> bool:
    """No answer, a rate limit or a server error: trying again later may succeed."""
    return status is None or status == 429 or status >= 500


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
    """``Retry-After`` in seconds, at most :data:`MAX_RETRY_AFTER_S`; ``None`` when it is no number."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None  # an HTTP date: rare enough to fall back to the default pause
    if math.isnan(seconds):
        return None
    return min(MAX_RETRY_AFTER_S, max(0.0, seconds))


def _path(endpoint: str, **ids: str) -> str:
    """The path of ``endpoint`` in :data:`PATHS` with its ids filled in; a :class:`ClientError` for
    any id that is not a plain id."""
    return PATHS[endpoint].format(**{name: _segment(value, name) for name, value in ids.items()})


def _segment(value: str, what: str) -> str:
    """``value`` as one URL path segment; a :class:`ClientError` unless it is a plain id."""
    if not is_plain_id(value):
        raise ClientError(f"{what} {value[:40]!r} is not a plain id; not sent")
    return quote(value, safe="")

