"""The search pool: searches in worker processes, queue time charged to the clock, failures surfaced,
a home worker per game, and pondering that gives way to real searches."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest

from bot.engine import Limits, Ponder, SearchResult
from bot.engine.book import book_entry, write_book
from bot.thinking.search_pool import SearchPool, WorkerDied, engine_search, less_waiting, ponder_line
from tests.helpers.child_processes import children, still_running
from variant import KnightmateBoard

TIMEOUT_S = 60
#: An opening the engine played against itself at depth 3; White to move, no mate in sight.
LINE = ("e2e3", "d7d5", "d1h5", "g7g6", "h5e5", "f8g7")


def failing_job(initial_fen: str | None, moves: tuple[str, ...], limits: Limits, submitted: float,
                stop: threading.Event, ponder: Ponder | None) -> SearchResult:
    raise RuntimeError("engine bug")


def dying_at_the_hit_job(initial_fen: str | None, moves: tuple[str, ...], limits: Limits, submitted: float,
                         stop: threading.Event, ponder: Ponder | None) -> SearchResult:
    """Searches as usual, but a ponder search's worker dies the moment the hit comes."""
    if ponder is not None and ponder.wait(TIMEOUT_S):
        os._exit(3)
    return engine_search(initial_fen, moves, limits, submitted, stop, ponder)


@pytest.fixture
def pool_of() -> Iterator[type[SearchPool]]:
    """Makes pools (warmed up, small hash) and closes them after the test."""
    pools: list[SearchPool] = []

    def make(workers: int, **kwargs: object) -> SearchPool:
        pool = SearchPool(workers, hash_mb=16, **kwargs)  # type: ignore[arg-type]
        pools.append(pool)
        pool.warm_up()
        return pool

    yield make  # type: ignore[misc]
    for pool in pools:
        pool.close()


def legal(moves: tuple[str, ...], move: chess.Move | None) -> bool:
    board = KnightmateBoard()
    for uci in moves:
        board.push_uci(uci)
    return move in board.legal_moves


def test_time_spent_waiting_in_the_queue_comes_off_the_movers_clock_only() -> None:
    limits = Limits(wtime_ms=10_000, btime_ms=8_000)
    waited = less_waiting(limits, chess.WHITE, 1.5)
    assert (waited.wtime_ms, waited.btime_ms) == (8_500, 8_000)
    assert less_waiting(limits, chess.BLACK, 9.0).btime_ms == 0
    assert less_waiting(Limits(movetime_ms=100), chess.WHITE, 1.0) == Limits(movetime_ms=100)


def test_a_worker_searches_the_position_rebuilt_from_the_moves() -> None:
    pool = SearchPool(1, hash_mb=4)  # not warmed up: the first search starts the worker
    try:
        result = pool.submit(None, ("e2e3", "e8d6"), Limits(movetime_ms=150, move_overhead_ms=50)).result(timeout=30)
    finally:
        pool.close()
    board = KnightmateBoard()
    board.push_uci("e2e3")
    board.push_uci("e8d6")
    assert result.move in board.legal_moves


def test_an_engine_exception_reaches_the_caller_through_the_future() -> None:
    pool = SearchPool(1, hash_mb=4, job=failing_job)
    try:
        with pytest.raises(RuntimeError, match="engine bug"):
            pool.submit(None, (), Limits(movetime_ms=100)).result(timeout=30)
    finally:
        pool.close()


def test_close_does_not_wait_for_a_long_search() -> None:
    pool = SearchPool(1, hash_mb=4)
    pool.warm_up()
    pool.submit(None, (), Limits(movetime_ms=60_000))
    started = time.monotonic()
    pool.close()
    assert time.monotonic() - started < 2


def test_a_position_continued_from_a_cached_board_equals_one_built_from_scratch() -> None:
    from bot.thinking.search_pool import _position

    line = ("e2e3", "e8d6", "d2d3", "d6f5", "c1d2", "f5h6")
    for plies in (2, 4, 6, 5):
        board = _position(None, line[:plies])
        fresh = KnightmateBoard()
        for uci in line[:plies]:
            fresh.push_uci(uci)
        assert board.fen() == fresh.fen() and board.move_stack == fresh.move_stack
    other = _position(None, ("e2e4",))
    assert other.fen() != _position(None, line[:2]).fen()


def test_a_pool_whose_workers_search_in_two_threads_plays_legal_moves_and_leaves_no_helper(pool_of) -> None:
    """A worker searching in two threads starts a helper (a daemonic worker could not); closing the
    pool ends both."""
    pool = pool_of(1, threads=2)
    worker = pool._workers[0].process
    assert worker is not None and worker.pid is not None
    result = pool.submit(None, LINE, Limits(depth=5)).result(timeout=TIMEOUT_S)
    assert legal(LINE, result.move)
    helpers = children(worker.pid)
    assert helpers
    pool.close()
    worker.join(TIMEOUT_S)
    assert still_running(helpers, TIMEOUT_S) == set()


# A home worker per game.


def test_a_pool_with_an_elo_searches_as_that_level(pool_of) -> None:
    from bot.engine.levels import LEVELS, strength_for_elo

    elo = LEVELS[0].elo
    weak = pool_of(1, elo=elo).submit(None, ("e2e4", "e7e5"), Limits(depth=8)).result(timeout=TIMEOUT_S)
    full = pool_of(1).submit(None, ("e2e4", "e7e5"), Limits(depth=4)).result(timeout=TIMEOUT_S)
    assert weak.depth <= strength_for_elo(elo).depth < full.depth == 4


def test_a_games_searches_go_to_its_own_worker_and_reuse_the_hash(pool_of) -> None:
    pool = pool_of(2)
    limits = Limits(depth=5)
    first = pool.submit(None, LINE, limits, game_id="g").result(timeout=TIMEOUT_S)
    again = pool.submit(None, LINE, limits, game_id="g").result(timeout=TIMEOUT_S)
    other = pool.submit(None, LINE, limits, game_id="h").result(timeout=TIMEOUT_S)
    # Same worker: what the first search left (its table, histories) changes the second one's
    # tree; whether it shrinks depends on the position and the evaluation, so only the change is sure.
    assert again.nodes != first.nodes
    assert other.nodes == first.nodes         # another game starts on the other, untouched worker


# Pondering.


def test_a_ponder_hit_goes_on_with_the_pondered_search_and_answers_sooner(pool_of) -> None:
    pool = pool_of(2)
    limits = Limits(depth=6)
    assert pool.ponder("g", None, LINE)
    started = time.monotonic()
    fresh = pool.submit(None, LINE, limits, game_id="h").result(timeout=TIMEOUT_S)   # meanwhile, on the other worker
    fresh_s = time.monotonic() - started
    started = time.monotonic()
    hit = pool.submit(None, LINE, limits, game_id="g").result(timeout=TIMEOUT_S)
    hit_s = time.monotonic() - started
    assert hit.depth >= 6 and hit.nodes >= fresh.nodes   # the same deterministic search, continued
    assert hit_s < fresh_s


def test_a_ponder_miss_is_stopped_and_the_real_position_searched(pool_of) -> None:
    pool = pool_of(1)
    assert pool.ponder("g", None, (*LINE, "e5f4", "c7c6"))
    played = (*LINE, "e5f4", "a7a6")
    result = pool.submit(None, played, Limits(movetime_ms=200), game_id="g").result(timeout=TIMEOUT_S)
    assert legal(played, result.move)       # the only worker was pondering forever: it was stopped


def test_a_pondering_worker_is_given_up_for_another_games_search(pool_of) -> None:
    pool = pool_of(1)
    assert pool.ponder("g", None, LINE)
    result = pool.submit(None, ("e2e3",), Limits(movetime_ms=200), game_id="h").result(timeout=TIMEOUT_S)
    assert legal(("e2e3",), result.move)


def test_no_ponder_starts_while_every_worker_has_a_real_search(pool_of) -> None:
    pool = pool_of(1)
    busy = pool.submit(None, LINE, Limits(movetime_ms=60_000), game_id="h")
    assert not pool.ponder("g", None, LINE)
    assert not busy.done()


def test_a_worker_that_dies_at_a_ponder_hit_fails_the_search_and_is_started_again(pool_of) -> None:
    pool = pool_of(1, job=dying_at_the_hit_job)
    assert pool.ponder("g", None, LINE)
    with pytest.raises(WorkerDied):
        pool.submit(None, LINE, Limits(movetime_ms=200), game_id="g").result(timeout=TIMEOUT_S)
    result = pool.submit(None, LINE, Limits(movetime_ms=200), game_id="g").result(timeout=TIMEOUT_S)
    assert legal(LINE, result.move)


def test_the_ponder_line_is_the_expected_reply_else_the_position_after_our_move() -> None:
    board = KnightmateBoard()
    board.push_uci("e2e3")
    played, reply = chess.Move.from_uci("e8d6"), chess.Move.from_uci("d2d3")
    assert ponder_line(board, ("e2e3",), played, (played, reply)) == ("e2e3", "e8d6", "d2d3")
    assert ponder_line(board, ("e2e3",), played, (played,)) == ("e2e3", "e8d6")
    other = chess.Move.from_uci("e8f6")     # a PV of another move says nothing about this one
    assert ponder_line(board, ("e2e3",), played, (other, reply)) == ("e2e3", "e8d6")


def test_workers_answer_from_the_book_they_were_given(tmp_path: Path) -> None:
    board = KnightmateBoard()
    book = tmp_path / "e4.bin"
    write_book(book, [book_entry(board, board.parse_uci("e2e4"), 1)])
    pool = SearchPool(1, hash_mb=4, book_file=str(book))
    try:
        result = pool.submit(None, (), Limits(wtime_ms=60_000, btime_ms=60_000)).result(timeout=30)
    finally:
        pool.close()
    assert result.from_book and result.move == chess.Move.from_uci("e2e4")


def test_a_worker_whose_book_has_gone_searches_without_one(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from bot.thinking.search_pool import _open_book

    assert _open_book(None) is None
    assert _open_book(str(tmp_path / "gone.bin")) is None
    assert "opening book" in caplog.text and "gone.bin" in caplog.text
