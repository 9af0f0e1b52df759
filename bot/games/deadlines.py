"""One-shot deadlines for a thread that waits on an inbox: each fires once, and only when armed again.

A game's player has a few things to do at a given time (play a fallback move when the engine is
late, abort a game the opponent never started, claim a win when the opponent is gone, try a failed
call again). Keeping them as timestamps re-checked on every loop turn invites the bug where a
deadline already acted on keeps the wait at zero and the thread spins. Here a deadline is taken out
when it fires: doing it again needs an explicit :meth:`Deadlines.arm`, typically with a backoff.

Deadlines that follow a time the game computes (the abort deadline moves with each new position)
use :meth:`Deadlines.follow`, which arms a time only once, however often it is told the same time.
No threads and no clock of its own: callers pass ``time.monotonic()`` values. Never blocks.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class Deadlines(Generic[K]):
    """Named one-shot deadlines: ``arm``, ``follow``, ``disarm``, then take the ``due`` ones."""

    def __init__(self) -> None:
        self._armed: dict[K, float] = {}
        self._followed: dict[K, float | None] = {}

    def arm(self, kind: K, at: float) -> None:
        """Arms (or moves) the deadline ``kind`` to fire once at ``at``."""
        self._armed[kind] = at

    def disarm(self, kind: K) -> None:
        self._armed.pop(kind, None)

    def follow(self, kind: K, at: float | None) -> None:
        """Arms ``kind`` at ``at`` unless it was already told this time; ``None`` disarms it.

        For a time derived from the game on every event: the deadline fires once per distinct
        time, not again on each event that repeats it, and a retry armed meanwhile stays armed.
        """
        if at is None:
            self.disarm(kind)
        elif self._followed.get(kind) != at:
            self.arm(kind, at)
        self._followed[kind] = at

    def next_at(self) -> float | None:
        """The earliest armed deadline, ``None`` when none is armed."""
        return min(self._armed.values(), default=None)

    def due(self, now: float) -> list[K]:
        """The deadlines whose time has come, earliest first; they are disarmed as they are taken."""
        fired = sorted((at, index, kind) for index, (kind, at) in enumerate(self._armed.items()) if at <= now)
        for _, _, kind in fired:
            del self._armed[kind]
        return [kind for _, _, kind in fired]
