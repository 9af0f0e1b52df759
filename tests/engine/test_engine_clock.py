"""The time budget: what a search may spend for each kind of limit."""

from __future__ import annotations

import pickle

import chess

from bot.engine import Limits
from bot.engine.clock import MIN_BUDGET_MS, budget, planned_moves


def test_movetime_is_the_hard_limit_minus_overhead() -> None:
    result = budget(Limits(movetime_ms=1000, move_overhead_ms=100), chess.WHITE)
    assert result.hard_ms == 900 and result.soft_ms == 900


def test_clock_budget_uses_the_side_to_move_clock() -> None:
    limits = Limits(wtime_ms=60_000, btime_ms=1_000, move_overhead_ms=0)
    white, black = budget(limits, chess.WHITE), budget(limits, chess.BLACK)
    assert white.hard_ms is not None and black.hard_ms is not None
    assert white.hard_ms > 10 * black.hard_ms


def test_hard_deadline_never_exceeds_a_share_of_the_clock_after_overhead() -> None:
    for remaining in (50, 200, 1_000, 10_000, 300_000):
        for increment in (0, 100, 2_000):
            result = budget(Limits(wtime_ms=remaining, btime_ms=remaining, winc_ms=increment, binc_ms=increment,
                                   move_overhead_ms=100), chess.WHITE)
            assert result.soft_ms is not None and result.hard_ms is not None
            assert result.soft_ms <= result.hard_ms
            assert result.hard_ms <= max(MIN_BUDGET_MS, 0.35 * (remaining - 100))


def test_increment_adds_to_the_budget() -> None:
    without = budget(Limits(wtime_ms=10_000, btime_ms=10_000), chess.WHITE)
    with_increment = budget(Limits(wtime_ms=10_000, btime_ms=10_000, winc_ms=1_000, binc_ms=1_000), chess.WHITE)
    assert without.soft_ms is not None and with_increment.soft_ms is not None
    assert with_increment.soft_ms > without.soft_ms + 300


def test_last_move_before_time_control_may_use_most_of_the_clock() -> None:
    result = budget(Limits(wtime_ms=10_000, btime_ms=10_000, movestogo=1, move_overhead_ms=0), chess.WHITE)
    assert result.hard_ms == 8_000


def test_empty_clock_still_gets_the_minimum_budget() -> None:
    result = budget(Limits(wtime_ms=0, btime_ms=0), chess.WHITE)
    assert result.hard_ms == MIN_BUDGET_MS


def test_depth_nodes_and_infinite_have_no_time_limit() -> None:
    for limits in (Limits(depth=5), Limits(nodes=1000), Limits(infinite=True, wtime_ms=1000, btime_ms=1000)):
        result = budget(limits, chess.WHITE)
        assert result.soft_ms is None and result.hard_ms is None


def test_the_movers_clock_and_increment_are_read_and_replaced_by_colour() -> None:
    limits = Limits(wtime_ms=1000, btime_ms=2000, winc_ms=10, binc_ms=20, movetime_ms=300)
    assert (limits.clock_ms(chess.WHITE), limits.increment_ms(chess.WHITE)) == (1000, 10)
    assert (limits.clock_ms(chess.BLACK), limits.increment_ms(chess.BLACK)) == (2000, 20)
    assert Limits().clock_ms(chess.BLACK) is None
    black = limits.with_clock(chess.BLACK, 500, 5)
    assert (black.wtime_ms, black.winc_ms, black.btime_ms, black.binc_ms) == (1000, 10, 500, 5)
    white = limits.with_clock(chess.WHITE, 700)     # the increment kept when not given
    assert (white.wtime_ms, white.winc_ms, white.btime_ms, white.movetime_ms) == (700, 10, 2000, 300)


def test_limits_survive_pickling_for_worker_processes() -> None:
    limits = Limits(wtime_ms=1000, btime_ms=2000, winc_ms=10, binc_ms=20, movestogo=5)
    assert pickle.loads(pickle.dumps(limits)) == limits


# A 3+2 blitz game as the online bot sees it (300 ms move overhead).
BLITZ_BASE_MS, BLITZ_INCREMENT_MS, BOT_OVERHEAD_MS = 180_000, 2_000, 300


def blitz_budget(remaining_ms: float, move_number: int) -> tuple[float, float]:
    limits = Limits(wtime_ms=int(remaining_ms), btime_ms=int(remaining_ms), winc_ms=BLITZ_INCREMENT_MS,
                    binc_ms=BLITZ_INCREMENT_MS, move_overhead_ms=BOT_OVERHEAD_MS)
    result = budget(limits, chess.WHITE, move_number)
    assert result.soft_ms is not None and result.hard_ms is not None
    return result.soft_ms, result.hard_ms


def clock_after(moves: int, spent: str) -> list[float]:
    """The clock after each of *moves* moves of a 3+2 game in which every move takes its target
    (twice the soft limit; moves of bench/match/timeuse.py games averaged less) or its hard
    limit (the worst the search can do)."""
    remaining: float = BLITZ_BASE_MS
    clocks = []
    for move_number in range(1, moves + 1):
        soft, hard = blitz_budget(remaining, move_number)
        remaining += BLITZ_INCREMENT_MS - (2 * soft if spent == "target" else hard)
        clocks.append(remaining)
    return clocks


def test_no_opening_move_of_a_blitz_game_may_run_past_8_percent_of_the_clock() -> None:
    # The bot once spent 15-17 s on moves 1 and 3 of a 3+2 game: its hard limit allowed 42 s (23%).
    # Book moves are instant, so the first searched move may come with more than the base time.
    for remaining in (BLITZ_BASE_MS, BLITZ_BASE_MS + 10 * BLITZ_INCREMENT_MS):
        for move_number in range(1, 11):
            _, hard = blitz_budget(remaining, move_number)
            assert hard <= 0.08 * remaining, (remaining, move_number)


def test_blitz_moves_average_well_under_base_over_30_plus_increment() -> None:
    clocks = clock_after(40, "target")
    spent_per_move = (BLITZ_BASE_MS + 40 * BLITZ_INCREMENT_MS - clocks[-1]) / 40
    assert spent_per_move <= 0.7 * (BLITZ_BASE_MS / 30 + BLITZ_INCREMENT_MS)
    assert clocks[-1] >= 40_000  # a 40-move game still has time for an endgame


def test_even_moves_that_all_run_to_the_hard_limit_leave_a_fifth_of_the_clock_after_20_moves() -> None:
    assert clock_after(20, "hard")[-1] >= BLITZ_BASE_MS / 5


def test_planned_moves_shrink_from_forty_to_twenty_as_the_game_goes_on() -> None:
    plan = [planned_moves(move_number) for move_number in range(1, 80)]
    assert plan[0] == 40 and plan[-1] == 20
    assert all(later <= earlier for earlier, later in zip(plan, plan[1:], strict=False))
