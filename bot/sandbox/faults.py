"""Faults injected on demand: error statuses, cut or silent streams, malformed lines, refused game streams.

Tests call these to reproduce what bots meet in the wild (docs/api.md, "Limits and faults"): an
HTTP 429 with ``Retry-After`` or a 5xx for the next requests of a kind, a stream cut mid-game, a
stream that says nothing with its socket still open, a line that is not JSON, pychess's 200 with a
raw 409 inside for a game stream the server still counts open (a bot restarted after a crash meets
it for up to 6 s; for a game that ended meanwhile it comes for ever, which needs no fault), an event
lost the way a lingering pychess stream handler loses it. Every fault that fires is appended to
:attr:`Faults.fired`. Faults never change game state: only what the client
sees of it.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
import time
from collections.abc import Callable

from bot.sandbox.hosted import Account
from bot.sandbox.imitations import JsonObject
from bot.sandbox.streams import Stream
from bot.sandbox.world import World

#: The request kinds an error status can be injected for.
REQUEST_KINDS = ("account", "upgrade", "stream_event", "stream_game", "move", "accept", "decline",
                 "chat", "abort", "resign", "challenge", "cancel", "draw", "takeback", "claim", "round")

#: What a round socket can be made to do instead of sending its greeting and ``board`` message:
#: say nothing (socket open), send garbage (text that is not JSON, then a ``board`` with a status
#: pychess does not have), or close at once.
ROUND_SOCKET_FAULTS = ("silent", "garbage", "close")

STREAM_KINDS = ("event", "game")


@dataclasses.dataclass(frozen=True)
class InjectedStatus:
    status: int
    retry_after: float | None


class Faults:
    """The fault switchboard of one sandbox (``sandbox.faults``)."""

    def __init__(self, world: World) -> None:
        self._world = world
        self._lock = threading.Condition()
        self._statuses: dict[str, collections.deque[InjectedStatus]] = collections.defaultdict(collections.deque)
        self._garbage: list[tuple[str, str | None]] = []
        self._round_sockets: collections.deque[str] = collections.deque()
        self._refused_until: dict[str, float] = {}
        self._lost_events: list[tuple[str, str]] = []
        #: Every fault that fired, in order: (what, detail), e.g. ("move", "429"), ("drop", "game").
        self.fired: list[tuple[str, str]] = []
        world.garbage_due = self._take_garbage
        world.game_stream_refused = self._game_stream_refused
        world.event_lost = self._event_lost

    def http_status(self, kind: str, status: int, count: int = 1, retry_after: float | None = None) -> None:
        """Answers the next *count* requests of *kind* (see :data:`REQUEST_KINDS`) with *status*
        and an HTML body, with a ``Retry-After`` header if *retry_after* is given."""
        if kind not in REQUEST_KINDS:
            raise ValueError(f"unknown request kind {kind!r} (one of {', '.join(REQUEST_KINDS)})")
        if not 400 <= status <= 599:
            raise ValueError(f"an injected status must be 4xx or 5xx, not {status}")
        if count < 1:
            raise ValueError("count must be at least 1")
        with self._lock:
            self._statuses[kind].extend([InjectedStatus(status, retry_after)] * count)

    def take_status(self, kind: str) -> InjectedStatus | None:
        """The injected answer for this request of *kind*, if one is pending (the HTTP layer asks)."""
        with self._lock:
            pending = self._statuses.get(kind)
            if not pending:
                return None
            injected = pending.popleft()
            self._record([(kind, str(injected.status))])
            return injected

    def round_socket(self, behaviour: str, count: int = 1) -> None:
        """Makes the next *count* round-socket connections (pychess) *behaviour* (see
        :data:`ROUND_SOCKET_FAULTS`) after a successful handshake."""
        if behaviour not in ROUND_SOCKET_FAULTS:
            raise ValueError(f"unknown round socket fault {behaviour!r} (one of {', '.join(ROUND_SOCKET_FAULTS)})")
        if count < 1:
            raise ValueError("count must be at least 1")
        with self._lock:
            self._round_sockets.extend([behaviour] * count)

    def take_round_socket(self) -> str | None:
        """The fault for this round-socket connection, if one is pending (the HTTP layer asks)."""
        with self._lock:
            if not self._round_sockets:
                return None
            behaviour = self._round_sockets.popleft()
            self._record([("round", behaviour)])
            return behaviour

    def refuse_game_stream(self, game_id: str, seconds: float) -> None:
        """For the next *seconds*, every request for game *game_id*'s stream gets pychess's 200 with
        a raw 409 inside, as if the stream of a killed bot process still counted as open."""
        if seconds <= 0:
            raise ValueError("seconds must be positive")
        with self._lock:
            self._refused_until[game_id] = time.monotonic() + seconds

    def _game_stream_refused(self, game_id: str) -> bool:
        with self._lock:
            until = self._refused_until.get(game_id)
            if until is None or time.monotonic() >= until:
                self._refused_until.pop(game_id, None)
                return False
            self._record([("refuse", "game")])
            return True

    def lose_event(self, event_type: str, username: str) -> None:
        """Loses the next event of *event_type* (``gameStart``, ``challenge``...) meant for
        *username*: what pychess does to the event a lingering stream handler takes after a
        reconnect (docs/api.md). The game or challenge goes on; only that line never arrives."""
        with self._lock:
            self._lost_events.append((event_type, username.lower()))

    def _event_lost(self, account: Account, event: JsonObject) -> bool:
        with self._lock:
            armed = (str(event.get("type")), account.id)
            if armed not in self._lost_events:
                return False
            self._lost_events.remove(armed)
            self._record([("lose", armed[0])])
            return True

    def drop_event_stream(self, username: str | None = None) -> int:
        """Cuts the open event stream(s) (of *username*, or everyone's) now; returns how many."""
        return self._each_stream("event", username, None, "drop", Stream.drop)

    def drop_game_stream(self, game_id: str, username: str | None = None) -> int:
        """Cuts the open stream(s) of game *game_id* (of *username*, or both players'); returns how many."""
        return self._each_stream("game", username, game_id, "drop", Stream.drop)

    def silence(self, stream: str, seconds: float, game_id: str | None = None, username: str | None = None) -> int:
        """Makes the open streams of kind *stream* ("event" or "game", optionally one game's or one
        user's) send nothing, keep-alives included, for *seconds* with their sockets open. Lines
        due meanwhile follow afterwards. Returns how many streams went silent."""
        if seconds <= 0:
            raise ValueError("seconds must be positive")
        return self._each_stream(stream, username, game_id, "silence", lambda s: s.silence(seconds))

    def malformed_line(self, stream: str, game_id: str | None = None) -> None:
        """Makes the next write on a stream of kind *stream* (of game *game_id* if given) a line
        that is not JSON, written before what was due."""
        self._check_stream_kind(stream)
        with self._lock:
            self._garbage.append((stream, game_id))

    def _take_garbage(self, stream: Stream) -> bool:
        with self._lock:
            for index, (kind, game_id) in enumerate(self._garbage):
                if kind == stream.kind and game_id in (None, stream.game_id):
                    del self._garbage[index]
                    self._record([("malformed", kind)])
                    return True
            return False

    def _each_stream(self, kind: str, username: str | None, game_id: str | None, what: str,
                     action: Callable[[Stream], None]) -> int:
        self._check_stream_kind(kind)
        with self._world.cond:
            streams = [stream for stream in self._world.streams
                       if stream.kind == kind and not stream.finished.is_set() and not stream.dropped
                       and (username is None or stream.username == username.lower())
                       and (game_id is None or stream.game_id == game_id)]
        for stream in streams:
            action(stream)
        with self._lock:
            self._record([(what, kind)] * len(streams))
        return len(streams)

    def wait_fired(self, count: int = 1, timeout: float = 10.0) -> list[tuple[str, str]]:
        """Waits until at least *count* faults have fired and returns them all. A fault armed for
        "the next write" fires only when that write comes, which can be after the game ends.

        :raises: :exc:`TimeoutError` if fewer have fired after *timeout* seconds.
        """
        with self._lock:
            if not self._lock.wait_for(lambda: len(self.fired) >= count, timeout):
                raise TimeoutError(f"timed out after {timeout:g} s waiting for {count} fault(s) to fire")
            return list(self.fired)

    def _record(self, faults: list[tuple[str, str]]) -> None:
        """Called with the lock held."""
        self.fired.extend(faults)
        self._lock.notify_all()

    def _check_stream_kind(self, kind: str) -> None:
        if kind not in STREAM_KINDS:
            raise ValueError(f"unknown stream kind {kind!r} (event or game)")
