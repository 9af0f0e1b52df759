"""The clock reserve: time the bot keeps back from every engine for the network and a restart.

An engine, built-in or external, spends the clock it is shown as if moves reached the server at
once. They do not: a move post and its echo take what the network takes, and a bot killed and
restarted mid-game loses seconds before it can move again. ``engine.move_overhead_ms`` covers
one move's lag; the reserve covers the rest. Every engine is shown the bot's clock less the
reserve (:func:`engine_clock_ms`), so after a move the bot still holds at least the reserve:
``engine.clock_reserve_ms`` or ``engine.clock_reserve_share`` of the base time, whichever is
less (a bullet game cannot keep five seconds of fifteen), plus ``engine.latency_reserve_factor``
times the slowest move echo of the game's last few moves (:class:`EchoLatency`), so a slow or
far server makes the bot keep more.

Once the clock is under the reserve the bot cannot keep it any more; the engine then sees a small
part of what is left and moves fast. The first move after a restart is a short one too
(:func:`restart_limits`): the restart has already cost time nobody planned for.

Nothing here does I/O; all times are milliseconds.
"""

from __future__ import annotations

import collections
import dataclasses
from dataclasses import dataclass

from bot.engine import Limits
from bot.metrics import MOVE_LATENCY_SECONDS

#: Under the reserve, the engine is shown this part of the clock that is left.
LOW_CLOCK_DIVISOR = 20
#: Move echoes remembered per game; the slowest of them counts.
ECHOES_KEPT = 8
#: The first move after a restart may use this part of the clock the engine is shown ...
RESTART_CLOCK_DIVISOR = 30
#: ... but no more than this, and no less than the floor (a move is always searched a little).
RESTART_MOVE_MAX_MS = 1_000
RESTART_MOVE_MIN_MS = 50


@dataclass(frozen=True)
class ClockReserve:
    """The reserve rule of one bot (from ``engine.*`` in the config); ``ClockReserve()`` keeps none."""

    floor_ms: int = 0
    base_share: float = 0.0
    latency_factor: float = 0.0

    def reserve_ms(self, base_ms: int | None, latency_ms: int) -> int:
        """What the bot keeps after a move in a game of base time *base_ms* (``None``: not known)
        whose move echoes took up to *latency_ms*."""
        kept = self.floor_ms if base_ms is None else min(self.floor_ms, int(base_ms * self.base_share))
        return kept + int(self.latency_factor * latency_ms)


def engine_clock_ms(clock_ms: int, reserve_ms: int) -> int:
    """The clock an engine is shown when the bot's own is *clock_ms*: all but the reserve, or, once
    the clock is under the reserve, a small part of what is left."""
    return max(clock_ms - reserve_ms, clock_ms // LOW_CLOCK_DIVISOR)


def restart_limits(limits: Limits, mover_clock_ms: int) -> Limits:
    """*limits* for the first move after a restart: a short search fitted to the clock the
    engine is shown (*mover_clock_ms*), never longer than a move time *limits* already caps."""
    search_ms = max(RESTART_MOVE_MIN_MS, min(RESTART_MOVE_MAX_MS, mover_clock_ms // RESTART_CLOCK_DIVISOR))
    movetime_ms = search_ms + limits.move_overhead_ms   # a move time counts the overhead in
    if limits.movetime_ms is not None:
        movetime_ms = min(movetime_ms, limits.movetime_ms)
    return dataclasses.replace(limits, movetime_ms=movetime_ms)


class EchoLatency:
    """How long this game's moves took from their post until the server's stream showed them."""

    def __init__(self) -> None:
        self._echoes_ms: collections.deque[int] = collections.deque(maxlen=ECHOES_KEPT)
        self._pending: tuple[int, float] | None = None   # (ply of our move, monotonic time of its post)

    def posted(self, ply: int, at: float) -> None:
        """Our move at *ply* (0-based) was posted at *at* (``time.monotonic()``)."""
        self._pending = (ply, at)

    def seen(self, plies: int, at: float) -> None:
        """The server showed a game of *plies* plies at *at*: the echo of our move, if it holds it."""
        if self._pending is not None and plies > self._pending[0]:
            echo_ms = max(0, int((at - self._pending[1]) * 1000))
            self._echoes_ms.append(echo_ms)
            MOVE_LATENCY_SECONDS.observe(echo_ms / 1000)
            self._pending = None

    @property
    def slowest_ms(self) -> int:
        """The slowest of the last :data:`ECHOES_KEPT` echoes; 0 before the first."""
        return max(self._echoes_ms, default=0)
