"""Search limits and the time budget derived from them.

:class:`Limits` is what a caller asks for (UCI ``go`` arguments, or the bot's clock); a
:class:`Budget` is what the search obeys: a soft limit after which no new iteration starts and a
hard deadline checked inside the search. All times are milliseconds.

A :class:`Ponder` turns a search started on the opponent's time into a timed one at the moment
the predicted move is played.

This module must never look at a board beyond whose turn it is, and never sleep.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass

import chess

#: Moves planned for when the clock gives no ``movestogo``: a game is assumed to last
#: GAME_MOVES moves, but at least MIN_MOVES_TO_GO and at most MAX_MOVES_TO_GO more are planned
#: for. The first moves out of the book so get less than a middlegame move: a flat 20 (with
#: a hard limit of 4 targets) spent 9-15 s on single early moves of a 3+2 game. 20 at the end
#: is what ladder games at 10+0.1 (25-45 moves after the opening) need to spend their clock.
GAME_MOVES = 45
MIN_MOVES_TO_GO = 20
MAX_MOVES_TO_GO = 40
#: Share of the increment spent on each move (the rest keeps the clock from draining).
INCREMENT_SHARE = 0.8
#: A new iteration starts only before this share of the move's target time has passed: the next
#: iteration typically takes twice as long as all before it.
ITERATION_START_SHARE = 0.5
#: The hard deadline may reach this many targets (an iteration that has started is worth
#: finishing when the clock allows) ... At 4, moves of a 3+2 game took up to 15 s (and could
#: have taken 42 s).
HARD_FACTOR = 2
#: ... but never more than this share of the remaining clock.
MAX_CLOCK_SHARE = 0.35
#: Share of the clock the last move before a time control may use.
LAST_MOVE_SHARE = 0.8
#: The floor for any budget, so a nearly empty clock still yields a move.
MIN_BUDGET_MS = 5


@dataclass(frozen=True)
class Limits:
    """What a search may spend. All times in milliseconds; picklable for worker processes.

    With neither a clock nor ``movetime_ms`` (nor ``depth``/``nodes``), the search runs until
    ``infinite`` is cleared by a stop event or the maximum depth is reached. ``movestogo`` is
    optional (UCI sends it for classical time controls). ``move_overhead_ms`` is what the caller
    holds back for lag, none unless it says: its settings (``engine.move_overhead_ms``, UCI's
    ``Move Overhead``) have their defaults where they are declared.
    """

    wtime_ms: int | None = None
    btime_ms: int | None = None
    winc_ms: int = 0
    binc_ms: int = 0
    movetime_ms: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False
    move_overhead_ms: int = 0
    movestogo: int | None = None

    def clock_ms(self, color: chess.Color) -> int | None:
        """The clock of the side *color* (``None``: no clock given)."""
        return self.wtime_ms if color == chess.WHITE else self.btime_ms

    def increment_ms(self, color: chess.Color) -> int:
        """The increment of the side *color*."""
        return self.winc_ms if color == chess.WHITE else self.binc_ms

    def with_clock(self, color: chess.Color, clock_ms: int | None, increment_ms: int | None = None) -> Limits:
        """These limits with the clock (and, when given, the increment) of the side *color* replaced."""
        if color == chess.WHITE:
            return dataclasses.replace(self, wtime_ms=clock_ms,
                                       winc_ms=self.winc_ms if increment_ms is None else increment_ms)
        return dataclasses.replace(self, btime_ms=clock_ms,
                                   binc_ms=self.binc_ms if increment_ms is None else increment_ms)


@dataclass(frozen=True)
class Budget:
    """Time a search may use, in milliseconds from its start; ``None`` means no time limit.

    No new iteration starts after ``soft_ms``; the search is cut off at ``hard_ms``.
    """

    soft_ms: float | None
    hard_ms: float | None


def budget(limits: Limits, turn: chess.Color, move_number: int = 1) -> Budget:
    """The time budget for the side *turn* at full move *move_number* under *limits*.

    ``movetime_ms`` is an exact allowance (minus the overhead), used to the end; a clock gives a
    target of a share of the remaining time (see :func:`planned_moves`) plus most of the
    increment, never more than the clock can afford after the overhead is held back.
    ``infinite`` ignores both, as UCI requires.
    """
    if limits.infinite:
        return Budget(None, None)
    overhead = max(0, limits.move_overhead_ms)
    hard: float | None = None
    soft: float | None = None
    if limits.movetime_ms is not None:
        hard = soft = max(MIN_BUDGET_MS, limits.movetime_ms - overhead)
    remaining = limits.clock_ms(turn)
    if remaining is not None:
        increment = max(0, limits.increment_ms(turn))
        available = max(0, remaining - overhead)
        moves_to_go = limits.movestogo if limits.movestogo and limits.movestogo > 0 else planned_moves(move_number)
        if moves_to_go == 1:
            target = clock_hard = available * LAST_MOVE_SHARE
        else:
            target = min(available / moves_to_go + INCREMENT_SHARE * increment, available * MAX_CLOCK_SHARE)
            clock_hard = min(target * HARD_FACTOR, available * MAX_CLOCK_SHARE)
        clock_soft = max(MIN_BUDGET_MS, target * ITERATION_START_SHARE)
        clock_hard = max(MIN_BUDGET_MS, clock_hard)
        soft = clock_soft if soft is None else min(soft, clock_soft)
        hard = clock_hard if hard is None else min(hard, clock_hard)
    return Budget(soft, hard)


class Ponder:
    """The link between a search started on the opponent's time and whoever started it.

    Such a search has no time limit. When the opponent plays the predicted move, :meth:`hit` hands
    it the limits of the real move; the search then obeys them, its clock counted from that moment,
    and goes on with the iteration it was in (what it searched is kept). Thread-safe: one thread
    calls :meth:`hit`, the search reads.
    """

    def __init__(self) -> None:
        self._hit = threading.Event()
        self._limits = Limits()
        self._hit_at = 0.0

    def hit(self, limits: Limits) -> None:
        """The predicted move was played: search on under *limits*, timed from now."""
        if not self._hit.is_set():
            self._limits = limits
            self._hit_at = time.perf_counter()
            self._hit.set()

    @property
    def is_hit(self) -> bool:
        return self._hit.is_set()

    @property
    def limits(self) -> Limits:
        """The limits given by :meth:`hit` (all unset before it)."""
        return self._limits

    @property
    def hit_at(self) -> float:
        """``time.perf_counter()`` at :meth:`hit`, the start of the move's clock."""
        return self._hit_at

    def wait(self, timeout: float) -> bool:
        """Waits up to *timeout* seconds for :meth:`hit`; True once it came."""
        return self._hit.wait(timeout)


def planned_moves(move_number: int) -> int:
    """How many more moves the clock must last at full move *move_number*, when the time
    control does not say (no ``movestogo``)."""
    return max(MIN_MOVES_TO_GO, min(MAX_MOVES_TO_GO, GAME_MOVES - move_number))
