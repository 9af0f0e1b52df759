"""bot.games.clock_reserve: the reserve rule, the clock every engine is shown, the quick first move after
a restart, and what an external engine really reads on its ``go`` line."""

from __future__ import annotations

from pathlib import Path

import chess

from bot.engine import Limits
from bot.engine.clock import budget
from bot.games.clock_reserve import (
    RESTART_MOVE_MAX_MS,
    RESTART_MOVE_MIN_MS,
    ClockReserve,
    EchoLatency,
    engine_clock_ms,
    restart_limits,
)
from bot.games.record import Game
from bot.remote.events import GameFull, GameState, Player
from bot.thinking.sources import UciMoveSources
from tests.helpers.engine_processes import FAKE_ENGINE, uci_settings
from tests.helpers.games_harness import new_game

RESERVE = ClockReserve(floor_ms=5_000, base_share=0.2, latency_factor=3.0)


def test_the_reserve_is_the_floor_or_the_share_of_the_base_whichever_is_less_plus_the_latency() -> None:
    assert RESERVE.reserve_ms(15_000, 0) == 3_000             # 15+1: a fifth of 15 s
    assert RESERVE.reserve_ms(180_000, 0) == 5_000            # 3+2: the floor
    assert RESERVE.reserve_ms(None, 0) == 5_000               # base not known: the floor
    assert RESERVE.reserve_ms(15_000, 400) == 3_000 + 1_200   # a slow server: three echoes more
    assert ClockReserve().reserve_ms(15_000, 400) == 0


def test_an_engine_sees_the_clock_less_the_reserve_and_under_it_a_small_part_of_what_is_left() -> None:
    assert engine_clock_ms(10_000, 3_000) == 7_000
    assert engine_clock_ms(3_100, 3_000) == 155               # 1/20 of 3.1 s beats 100 ms
    assert engine_clock_ms(2_000, 3_000) == 100
    assert engine_clock_ms(0, 3_000) == 0


def test_the_slowest_of_the_recent_echoes_counts_and_only_an_echo_of_our_own_move() -> None:
    echoes = EchoLatency()
    echoes.seen(5, 1.0)                                        # nothing posted: no echo
    assert echoes.slowest_ms == 0
    echoes.posted(4, 10.0)
    echoes.seen(4, 10.5)                                       # the state before our move
    echoes.seen(5, 10.25 + 0.05)
    assert echoes.slowest_ms == 300
    echoes.posted(6, 20.0)
    echoes.seen(7, 20.1)
    assert echoes.slowest_ms == 300
    for ply in range(8, 40, 2):                                # the slow one is forgotten in time
        echoes.posted(ply, 30.0 + ply)
        echoes.seen(ply + 1, 30.0 + ply + 0.02)
    assert echoes.slowest_ms == 20


def test_the_first_move_after_a_restart_is_a_short_search_fitted_to_the_clock() -> None:
    limits = Limits(wtime_ms=12_000, btime_ms=9_000, winc_ms=1_000, binc_ms=1_000, move_overhead_ms=300)
    quick = restart_limits(limits, 12_000)
    assert quick.movetime_ms == 12_000 // 30 + 300
    assert budget(quick, chess.WHITE).hard_ms == 12_000 // 30
    assert restart_limits(limits, 600_000).movetime_ms == RESTART_MOVE_MAX_MS + 300
    assert restart_limits(limits, 100).movetime_ms == RESTART_MOVE_MIN_MS + 300
    capped = Limits(wtime_ms=600_000, btime_ms=600_000, movetime_ms=200, move_overhead_ms=100)
    assert restart_limits(capped, 600_000).movetime_ms == 200    # a cap the operator set still holds


def game_15_plus_1(reserve: ClockReserve) -> Game:
    """A pychess 15+1 game, the bot black, to move at ply 20 with 9 s on its clock."""
    game = new_game(move_overhead_ms=300, reserve=reserve)
    moves = tuple(move for file in "abcdefgh" for move in (f"{file}2{file}3", f"{file}7{file}6")) + (
        "a3a4", "a6a5", "b3b4")
    start = GameState(moves=(), wtime_ms=15_000, btime_ms=15_000, winc_ms=1_000, binc_ms=1_000, status="started")
    game.apply(GameFull(id="g1", variant="knightmate", white=Player("alice"), black=Player("mybot"),
                        initial_fen=None, base_ms=None, increment_ms=None, rated=None, state=start))
    game.apply(GameState(moves=moves, wtime_ms=11_000, btime_ms=9_000, winc_ms=1_000, binc_ms=1_000,
                         status="started"), now=100.0)
    return game


def test_the_clocks_an_external_engine_reads_carry_the_reserve_and_the_overhead(tmp_path: Path) -> None:
    game = game_15_plus_1(RESERVE)
    assert game.base_ms == 15_000 and game.reserve_ms() == 3_000
    lines = tmp_path / "received"
    engines = UciMoveSources(uci_settings((*FAKE_ENGINE, "record", str(lines), "e8c7")))
    try:
        engine = engines.open("g1")
        assert game.state is not None
        assert engine.submit(game.initial_fen, game.state.moves, game.limits(now=100.0)).result(timeout=30).move
        # Our move echoed 250 ms after its post: the reserve grows by three of them.
        game.note_own_move(chess.Move.from_uci("e8c7"), 9_000, posted_at=100.0)
        game.apply(GameState(moves=(*game.state.moves, "e8c7", "c3c4"), wtime_ms=10_500, btime_ms=8_900,
                             winc_ms=1_000, binc_ms=1_000, status="started"), now=100.25)
        # The fake's e8c7 is no move here any more: only what the engine read counts.
        engine.submit(game.initial_fen, game.state.moves, game.limits(now=100.25)).exception(timeout=30)
    finally:
        engines.close()
    goes = [line for line in lines.read_text().splitlines() if line.startswith("go ")]
    # 9 s less the 3 s reserve less the 300 ms overhead; then 8.9 s less 3.75 s less 300 ms.
    assert goes == ["go wtime 11000 btime 5700 winc 1000 binc 1000",
                    "go wtime 10500 btime 4850 winc 1000 binc 1000"]


def test_without_a_reserve_the_engine_sees_the_clock_less_the_overhead_only() -> None:
    game = game_15_plus_1(ClockReserve())
    assert game.limits(now=100.0).btime_ms == 9_000
