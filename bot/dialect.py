"""The server kinds the bot speaks, one :class:`Dialect` object each, their differences as data (docs/api.md).

The client owns its server's dialect (:attr:`bot.remote.client.Client.dialect`); :mod:`bot.remote.wire` reads
stream lines by it and the player asks it what the server allows. Nothing outside this module
compares dialect names (a test greps for it), so adding a server kind is one more object here and,
for the tests, its twin in :mod:`bot.sandbox.imitations`, which imitates what these flags describe.
This module imports nothing of the bot's: any layer may ask a dialect, and the config checks
``server.dialect`` against it, so it sits beside :mod:`bot.config` outside the layers (a dialect is
data; the code that speaks each one is :mod:`bot.remote`'s).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import urlsplit

#: What ``server.dialect`` may say: a dialect's name, or ``auto`` (decided by the server's host).
AUTO = "auto"


@dataclass(frozen=True)
class Dialect:
    """One server kind's Bot API: what it sends and what it allows, where the two kinds differ."""

    name: str
    #: Headers every request carries: pychess's event stream answers 400 without its capabilities.
    headers: tuple[tuple[str, str], ...]
    #: Milliseconds per unit of a game state's ``winc``/``binc`` (pychess sends whole seconds).
    increment_unit_ms: int
    #: Whether a challenge names its start position (pychess shows a custom one only in ``gameFull``).
    initial_fen_in_challenge: bool
    #: Whether a move may offer a draw and a bot may accept one (``offeringDraw``, ``draw/yes``).
    draw_offers: bool
    #: Whether the game stream says the game is over after the bot resigns (pychess says nothing:
    #: the bot leaves the game on its own).
    resignation_ends_stream: bool
    #: Whether the server has a public round socket that tells how a game ended (:mod:`bot.remote.round_socket`).
    round_socket: bool
    #: Whether chat lines in a game reach a bot's game stream (pychess delivers chat to humans only).
    delivers_chat: bool

    def __str__(self) -> str:
        return self.name


LICHESS = Dialect(
    name="lichess",
    headers=(),
    increment_unit_ms=1,
    initial_fen_in_challenge=True,
    draw_offers=True,
    resignation_ends_stream=True,
    round_socket=False,
    delivers_chat=True,
)

PYCHESS = Dialect(
    name="pychess",
    headers=(("X-PyChess-Bot-Capabilities", json.dumps({"version": 1, "variants": ["knightmate"]})),),
    increment_unit_ms=1000,
    initial_fen_in_challenge=False,
    draw_offers=False,
    resignation_ends_stream=False,
    round_socket=True,
    delivers_chat=False,
)

#: Every dialect by its name, as ``server.dialect`` names it.
DIALECTS: dict[str, Dialect] = {dialect.name: dialect for dialect in (LICHESS, PYCHESS)}
#: The hosts ``auto`` takes for pychess (and their subdomains); any other host speaks Lichess's dialect.
PYCHESS_HOSTS = ("pychess.org",)


def resolve(name: str, url: str) -> Dialect:
    """The dialect ``server.dialect`` names; ``auto`` picks pychess for a pychess.org host and
    Lichess for any other.

    :raises: :exc:`KeyError` for a name that is neither ``auto`` nor a dialect's.
    """
    if name != AUTO:
        return DIALECTS[name]
    host = (urlsplit(url).hostname or "").lower()
    pychess = any(host == known or host.endswith("." + known) for known in PYCHESS_HOSTS)
    return PYCHESS if pychess else LICHESS
