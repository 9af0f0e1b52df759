"""pychess's round socket, read as a spectator reads it: how a game stands, or how it ended.

pychess ends a bot's game stream with a bare ``gameEnd`` and reports every game state as
"started", so a resignation, a flag, an abort or an abandoned game cannot be told from the stream.
The result is public all the same: the round socket a spectator's browser opens,
``ws(s)://<server>/wsr/<gameId>``, answers every new connection, without login, with a ``board``
message that carries the game's status and result (after a few messages of other types), and
pychess's full board: every move so far and both clocks. So it is also where the bot reads its game
while the game stream is refused (:mod:`bot.games.round_fallback`).

This module belongs to :mod:`bot.remote.client`, which alone knows when to ask: it opens the socket once,
reads until the ``board`` message or a deadline, and closes it. It sends nothing (no token: none
is needed) and every wait in it is bounded, so a silent, unreachable or babbling server costs a
few seconds and a clear :exc:`RoundSocketError`, never a hang.
"""

from __future__ import annotations

import logging
import time
from urllib.parse import quote, urlsplit, urlunsplit

from websockets.exceptions import WebSocketException
from websockets.sync.client import connect

from bot.remote.events import RoundBoard
from bot.remote.wire import MalformedLine, parse_round_board

log = logging.getLogger(__name__)

#: How long closing may wait for the server's answer to our close frame.
CLOSE_TIMEOUT_S = 1.0
#: A ``board`` message holds every move of the game: a long game is tens of kilobytes.
MAX_MESSAGE_BYTES = 1 << 20

_SCHEMES = {"http": "ws", "https": "wss"}


class RoundSocketError(Exception):
    """The round socket could not be read, or said nothing usable in time; the message says which."""


def round_socket_url(base_url: str, game_id: str) -> str:
    """The round socket of *game_id* on the server at *base_url* (``ws://`` for ``http://``)."""
    parts = urlsplit(base_url)
    scheme = _SCHEMES.get(parts.scheme)
    if scheme is None:
        raise RoundSocketError(f"no round socket for a {parts.scheme or 'scheme-less'} server URL")
    path = f"{parts.path.rstrip('/')}/wsr/{quote(game_id, safe='')}"
    return urlunsplit((scheme, parts.netloc, path, "", ""))


def read_round_board(url: str, game_id: str, *, open_timeout_s: float, read_timeout_s: float) -> RoundBoard:
    """Opens the round socket at *url* and returns its ``board`` message.

    Messages of other types are skipped, and so are unreadable ones (each logged), until the
    ``board`` message of *game_id* arrives or *read_timeout_s* has passed since the socket opened.

    :raises RoundSocketError: the socket could not be opened, broke, or sent no usable ``board`` in time.
    """
    skipped: list[str] = []
    try:
        with connect(url, open_timeout=open_timeout_s, close_timeout=CLOSE_TIMEOUT_S, max_size=MAX_MESSAGE_BYTES,
                     compression=None, ping_interval=None) as socket:
            deadline = time.monotonic() + read_timeout_s
            while (left := deadline - time.monotonic()) > 0:
                try:
                    message = socket.recv(timeout=left)
                except TimeoutError:
                    break
                try:
                    reported = parse_round_board(message)
                except MalformedLine as error:
                    log.warning("game %s: round socket: skipped unreadable message %s", game_id, error)
                    skipped.append(str(error))
                    continue
                if reported is not None and reported.game_id == game_id:
                    return reported
                if reported is not None:
                    skipped.append(f"a board message of game {reported.game_id!r}")
    except (OSError, WebSocketException) as error:
        raise RoundSocketError(f"{url}: {type(error).__name__}: {error}") from None
    unread = f"; {len(skipped)} unreadable message(s), the last: {skipped[-1]}" if skipped else ""
    raise RoundSocketError(f"{url}: no board message within {read_timeout_s:g} s{unread}")
