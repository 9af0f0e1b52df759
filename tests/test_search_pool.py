"""The search pool: searches in worker processes, queue time charged to the clock, failures surfaced."""

from __future__ import annotations

import time
from pathlib import Path

import chess
import pytest

from bot.engine import Limits, SearchResult
from bot.engine.book import book_entry, write_book
from bot.search_pool import SearchPool, less_waiting
from variant import KnightmateBoard


def failing_job(initial_fen: str | None, moves: tuple[str, ...], limits: Limits, submitted: float) -> SearchResult:
    raise RuntimeError("engine bug")


def test_time_spent_waiting_in_the_queue_comes_off_the_movers_clock_only() -> None:
    limits = Limits(wtime=10_000, btime=8_000)
    waited = less_waiting(limits, chess.WHITE, 1.5)
    assert (waited.wtime, waited.btime) == (8_500, 8_000)
    assert less_waiting(limits, chess.BLACK, 9.0).btime == 0
    assert less_waiting(Limits(movetime=100), chess.WHITE, 1.0) == Limits(movetime=100)


def test_a_worker_searches_the_position_rebuilt_from_the_moves() -> None:
    pool = SearchPool(1, hash_mb=4)
    try:
        result = pool.submit(None, ("e2e3", "e8d6"), Limits(movetime=150, move_overhead_ms=50)).result(timeout=30)
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
            pool.submit(None, (), Limits(movetime=100)).result(timeout=30)
    finally:
        pool.close()


def test_close_does_not_wait_for_a_long_search() -> None:
    pool = SearchPool(1, hash_mb=4)
    pool.warm_up()
    pool.submit(None, (), Limits(movetime=60_000))
    started = time.monotonic()
    pool.close()
    assert time.monotonic() - started < 2


def test_a_position_continued_from_a_cached_board_equals_one_built_from_scratch() -> None:
    from bot.search_pool import _position

    line = ("e2e3", "e8d6", "d2d3", "d6f5", "c1d2", "f5h6")
    for plies in (2, 4, 6, 5):
        board = _position(None, line[:plies])
        fresh = KnightmateBoard()
        for uci in line[:plies]:
            fresh.push_uci(uci)
        assert board.fen() == fresh.fen() and board.move_stack == fresh.move_stack
    other = _position(None, ("e2e4",))
    assert other.fen() != _position(None, line[:2]).fen()


def test_workers_answer_from_the_book_they_were_given(tmp_path: Path) -> None:
    board = KnightmateBoard()
    book = tmp_path / "e4.bin"
    write_book(book, [book_entry(board, board.parse_uci("e2e4"), 1)])
    pool = SearchPool(1, hash_mb=4, book_file=str(book))
    try:
        result = pool.submit(None, (), Limits(wtime=60_000, btime=60_000)).result(timeout=30)
    finally:
        pool.close()
    assert result.from_book and result.move == chess.Move.from_uci("e2e4")


def test_a_worker_whose_book_has_gone_searches_without_one(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from bot.search_pool import _open_book

    assert _open_book(None) is None
    assert _open_book(str(tmp_path / "gone.bin")) is None
    assert "opening book" in caplog.text and "gone.bin" in caplog.text
