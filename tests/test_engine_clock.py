"""The time budget: what a search may spend for each kind of limit."""

from __future__ import annotations

import pickle

import chess

from bot.engine import Limits
from bot.engine.clock import MIN_BUDGET_MS, budget


def test_movetime_is_the_hard_limit_minus_overhead() -> None:
    result = budget(Limits(movetime=1000, move_overhead_ms=100), chess.WHITE)
    assert result.hard_ms == 900 and result.soft_ms == 900


def test_clock_budget_uses_the_side_to_move_clock() -> None:
    limits = Limits(wtime=60_000, btime=1_000, move_overhead_ms=0)
    white, black = budget(limits, chess.WHITE), budget(limits, chess.BLACK)
    assert white.hard_ms is not None and black.hard_ms is not None
    assert white.hard_ms > 10 * black.hard_ms


def test_hard_deadline_never_exceeds_a_share_of_the_clock_after_overhead() -> None:
    for remaining in (50, 200, 1_000, 10_000, 300_000):
        for increment in (0, 100, 2_000):
            result = budget(Limits(wtime=remaining, btime=remaining, winc=increment, binc=increment,
                                   move_overhead_ms=100), chess.WHITE)
            assert result.soft_ms is not None and result.hard_ms is not None
            assert result.soft_ms <= result.hard_ms
            assert result.hard_ms <= max(MIN_BUDGET_MS, 0.35 * (remaining - 100))


def test_increment_adds_to_the_budget() -> None:
    without = budget(Limits(wtime=10_000, btime=10_000), chess.WHITE)
    with_increment = budget(Limits(wtime=10_000, btime=10_000, winc=1_000, binc=1_000), chess.WHITE)
    assert without.soft_ms is not None and with_increment.soft_ms is not None
    assert with_increment.soft_ms > without.soft_ms + 300


def test_last_move_before_time_control_may_use_most_of_the_clock() -> None:
    result = budget(Limits(wtime=10_000, btime=10_000, movestogo=1, move_overhead_ms=0), chess.WHITE)
    assert result.hard_ms == 8_000


def test_empty_clock_still_gets_the_minimum_budget() -> None:
    result = budget(Limits(wtime=0, btime=0), chess.WHITE)
    assert result.hard_ms == MIN_BUDGET_MS


def test_depth_nodes_and_infinite_have_no_time_limit() -> None:
    for limits in (Limits(depth=5), Limits(nodes=1000), Limits(infinite=True, wtime=1000, btime=1000)):
        result = budget(limits, chess.WHITE)
        assert result.soft_ms is None and result.hard_ms is None


def test_limits_survive_pickling_for_worker_processes() -> None:
    limits = Limits(wtime=1000, btime=2000, winc=10, binc=20, movestogo=5)
    assert pickle.loads(pickle.dumps(limits)) == limits
