"""The Bot API's streams: ndjson lines from a feed, with keep-alives and the faults the sandbox injects.

A :class:`Feed` is a queue of lines; a :class:`Stream` is one open streaming response that takes
lines from a feed and writes them (through :class:`~bot.sandbox.chunked.ChunkedLines`, as HTTP/1.1
chunks), with a keep-alive whenever the feed stays quiet for the keep-alive interval. Streams also
carry the faults the sandbox injects on demand (a cut socket, silence, a garbage line).

Like the real servers, a stream only notices that its client went away when it next writes:
after every write it peeks at the socket for the client's end-of-file. A stream never raises into
its caller: a broken socket just ends it.
"""

from __future__ import annotations

import collections
import logging
import select
import socket
import threading
import time
from collections.abc import Callable

from bot.sandbox.chunked import ChunkedLines

logger = logging.getLogger(__name__)

#: Put into a feed to end the streams reading it cleanly (terminating chunk).
CLOSE = b""

#: What a malformed-line fault writes: a JSON object cut short.
GARBAGE_LINE = b'{"type": "gameSt\n'


class Feed:
    """A thread-safe queue of lines (bytes ending in a newline) or :data:`CLOSE`."""

    def __init__(self) -> None:
        self._items: collections.deque[bytes] = collections.deque()
        self._cond = threading.Condition()

    def put(self, item: bytes) -> None:
        with self._cond:
            self._items.append(item)
            self._cond.notify_all()

    def get(self, timeout: float) -> bytes | None:
        """The next item, or None after *timeout* seconds or a :func:`wake`."""
        with self._cond:
            if not self._items:
                self._cond.wait(max(0.0, timeout))
            return self._items.popleft() if self._items else None

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()


class Stream:
    """One open streaming response of kind ``event`` or ``game``.

    ``lingers`` imitates pychess: when the sandbox cuts the stream's socket, the stream still
    counts as open (and still takes one item from its feed, which is thereby lost) until its next
    keep-alive tick. ``garbage_due`` is asked before every write whether a malformed-line fault
    wants this write to be garbage.
    """

    def __init__(self, kind: str, username: str, game_id: str | None, feed: Feed, *,
                 keepalive: bytes, keepalive_s: float, ping_at_connect: bool, lingers: bool,
                 garbage_due: Callable[[Stream], bool]) -> None:
        self.kind = kind
        self.username = username
        self.game_id = game_id
        self.feed = feed
        self._keepalive = keepalive
        self._keepalive_s = keepalive_s
        self._ping_at_connect = ping_at_connect
        self._lingers = lingers
        self._garbage_due = garbage_due
        self._sock: socket.socket | None = None
        self._body: ChunkedLines | None = None
        self._lock = threading.Lock()
        self._dropped = False
        self._halt_line: bytes | None = None
        self._silent_until = 0.0
        self._held: collections.deque[bytes] = collections.deque()
        self.finished = threading.Event()

    @property
    def dropped(self) -> bool:
        return self._dropped

    # Faults and shutdown, called from other threads.

    def drop(self) -> None:
        """Cuts the socket now, without the terminating chunk, as a proxy or a reset would."""
        with self._lock:
            self._dropped = True
            sock = self._sock
        if sock is not None:
            _shutdown(sock)
        self.feed.wake()

    def silence(self, seconds: float) -> None:
        """Writes nothing for *seconds* (the socket stays open); lines wait and follow after."""
        with self._lock:
            self._silent_until = time.monotonic() + seconds
        self.feed.wake()

    def close(self, last_line: bytes | None = None) -> None:
        """Ends the stream cleanly after the lines already queued, *last_line* last if given."""
        if last_line is not None:
            self.feed.put(last_line)
        self.feed.put(CLOSE)

    def halt(self, last_line: bytes | None = None) -> None:
        """Ends the stream now (server shutdown), even if silent, writing *last_line* first."""
        with self._lock:
            self._halt_line = last_line if last_line is not None else CLOSE
        self.feed.wake()

    # The writer loop, run by the HTTP handler's thread.

    def run(self, sock: socket.socket, body: ChunkedLines, first_lines: list[bytes]) -> None:
        """Writes *first_lines* to *body*, then the feed and keep-alives until closed, cut or halted."""
        with self._lock:
            self._sock, self._body = sock, body
            dropped = self._dropped
        try:
            if dropped:
                _shutdown(sock)
                return
            self._loop(first_lines)
        except OSError as error:
            logger.debug("%s stream of %s ended: %s", self.kind, self.username, error)
        finally:
            self.finished.set()

    def _loop(self, first_lines: list[bytes]) -> None:
        if self._ping_at_connect:
            self._write(self._keepalive)
        for line in first_lines:
            self._write(line)
        next_tick = time.monotonic() + self._keepalive_s
        while True:
            if self._halt_line is not None:
                if self._halt_line != CLOSE:
                    self._write(self._halt_line)
                self._end()
                return
            if self._dropped and not self._lingers:
                return
            now = time.monotonic()
            silent = self._silent_until > now
            item: bytes | None
            if self._held and not silent and not self._dropped:
                item = self._held.popleft()
            else:
                wake_at = min(next_tick, self._silent_until) if self._held else next_tick
                item = self.feed.get(wake_at - now)
                if item is not None and self._silent_until > time.monotonic() and not self._dropped:
                    self._held.append(item)
                    continue
            if self._dropped:
                if item is None and time.monotonic() < next_tick:
                    continue  # still counted open; the next item or tick is swallowed
                return
            if item is None:
                if time.monotonic() >= next_tick:
                    next_tick = time.monotonic() + self._keepalive_s
                    if self._silent_until > time.monotonic():
                        self._check_peer()  # the keep-alive is "written" but never arrives
                    else:
                        self._write(self._keepalive)
                continue
            if item == CLOSE:
                self._end()
                return
            self._write(item)

    def _write(self, line: bytes) -> None:
        if self._garbage_due(self):
            self._write_chunk(GARBAGE_LINE)
        self._write_chunk(line)

    def _write_chunk(self, data: bytes) -> None:
        assert self._body is not None
        try:
            self._body.write(data)
            self._check_peer()
        except OSError:
            if not self._dropped:
                raise
            # A cut stream's writes go nowhere; the loop decides when it stops counting as open.

    def _end(self) -> None:
        assert self._body is not None
        self._body.end()

    def _check_peer(self) -> None:
        """Raises if the client has closed its end, as a server learns only by writing."""
        sock = self._sock
        assert sock is not None
        readable, _, _ = select.select([sock], [], [], 0)
        if readable and not sock.recv(1, socket.MSG_PEEK):
            raise ConnectionResetError("client closed the stream")


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already gone
