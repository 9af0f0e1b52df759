"""``knightmate-bot sandbox``: run the sandbox for a person to point their bot at.

Starts a :class:`~bot.sandbox.Sandbox` on a loopback address with one bot account (a fresh random
token, printed: it is a throwaway token for this local server only) and one in-process opponent.
While the bot's event stream is open and it has no game or challenge with the opponent, the
opponent challenges it again; on the Lichess dialect the bot may also challenge the opponent,
which accepts Knightmate. Runs until SIGINT or SIGTERM. Never used by ``knightmate-bot run``.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from typing import TextIO

from bot.sandbox.control import Sandbox

logger = logging.getLogger(__name__)

#: Seconds between looks at whether the opponent should challenge again.
RECHALLENGE_POLL_S = 1.0
#: Seconds the opponent waits after the bot declined before it challenges again.
DECLINED_BACKOFF_S = 30.0


def serve(*, dialect: str, host: str, port: int, username: str, opponent: str, strategy: str,
          limit_s: int, increment_s: int, out: TextIO, stop: threading.Event) -> int:
    """Runs the sandbox until *stop* is set (the CLI sets it on SIGINT/SIGTERM); returns 0.

    :raises: :exc:`ValueError` for a bad dialect, host or strategy, :exc:`OSError` if the port
        cannot be bound.
    """
    sandbox = Sandbox(dialect, host=host, port=port)
    token = secrets.token_urlsafe(18)
    with sandbox:
        sandbox.add_account(username, token=token, bot=True)
        sandbox.add_opponent(opponent, bot=True, strategy=strategy)
        print(f"Knightmate sandbox ({dialect} dialect) listening on {sandbox.url}", file=out)
        print(f"  bot account: {username}   opponent: {opponent} ({strategy})", file=out)
        print(f"  point your bot at it:  server.url: {sandbox.url}  server.dialect: {dialect}", file=out)
        print(f"  token (this sandbox only): export KNIGHTMATE_BOT_TOKEN={token}", file=out)
        print(f"  {opponent} challenges {username} to {limit_s // 60}+{increment_s} whenever it is free;"
              " Ctrl-C stops the sandbox", file=out, flush=True)
        challenger = _Challenger(sandbox, opponent, username, limit_s, increment_s, out)
        while not stop.wait(RECHALLENGE_POLL_S):
            challenger.challenge_if_free(time.monotonic())
    return 0


class _Challenger:
    """Has the opponent challenge the bot whenever both are free, and backs off after a decline
    so that a bot declining with ``later`` is not asked every second."""

    def __init__(self, sandbox: Sandbox, opponent: str, username: str, limit_s: int, increment_s: int,
                 out: TextIO) -> None:
        self._sandbox = sandbox
        self._opponent = opponent
        self._username = username
        self._limit_s = limit_s
        self._increment_s = increment_s
        self._out = out
        self._last: str | None = None
        self._quiet_until = 0.0

    def challenge_if_free(self, now: float) -> None:
        sandbox = self._sandbox
        if self._last is not None and sandbox.challenge_status(self._last) == "declined":
            reason = sandbox.decline_reason(self._last)
            print(f"{self._username} declined ({reason}); asking again in {DECLINED_BACKOFF_S:g} s", file=self._out,
                  flush=True)
            self._last = None
            self._quiet_until = now + DECLINED_BACKOFF_S
        if now < self._quiet_until or not sandbox.open_streams("event", self._username):
            return
        busy = any(not record.over and self._opponent in (record.white, record.black) for record in sandbox.games())
        if busy or (self._last is not None and sandbox.challenge_status(self._last) == "created"):
            return
        self._last = sandbox.challenge(self._opponent, self._username, limit_s=self._limit_s,
                                       increment_s=self._increment_s, color="random")
