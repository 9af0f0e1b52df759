"""Pondering in the engine: no time limit until the hit, the real move's clock from the hit, the
search's work kept, and no answer before a hit or a stop."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import chess

from bot.engine import Engine, Limits, Ponder, SearchResult
from bot.engine.book import OpeningBook, book_entry, write_book
from bot.engine.search import MAX_PLY
from variant import KnightmateBoard

TIMEOUT_S = 30
MIDDLEGAME = "r1bqkb1r/pppp1ppp/2m2m2/4p3/4P3/2M2M2/PPPP1PPP/R1BQKB1R w KQkq - 4 4"


class PonderSearch:
    """A ponder search on its own thread, with an event set once an iteration ends past a condition."""

    def __init__(self, fen: str, reached: int = 0, ms: int = 0) -> None:
        self.board = KnightmateBoard(fen)
        self.ponder = Ponder()
        self.stop = threading.Event()
        self.progressed = threading.Event()
        self.infos: list[SearchResult] = []
        self.result: SearchResult | None = None
        self._reached, self._ms = reached, ms
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.result = Engine(hash_mb=16).search(self.board, Limits(movetime_ms=10), stop=self.stop,
                                                on_info=self._info, ponder=self.ponder)

    def _info(self, info: SearchResult) -> None:
        self.infos.append(info)
        if info.depth >= self._reached and info.time_ms >= self._ms:
            self.progressed.set()

    def finish(self) -> SearchResult:
        self.thread.join(TIMEOUT_S)
        assert not self.thread.is_alive() and self.result is not None
        return self.result


def test_a_ponder_search_ignores_its_time_limit_until_the_hit() -> None:
    search = PonderSearch(MIDDLEGAME, reached=3, ms=100)   # movetime 10 would have ended it long ago
    assert search.progressed.wait(TIMEOUT_S)
    assert search.thread.is_alive()
    search.ponder.hit(Limits(movetime_ms=50, move_overhead_ms=0))
    result = search.finish()
    assert result.move in search.board.legal_moves and result.depth >= 3


def test_after_the_hit_the_clock_runs_from_the_hit_not_from_the_start() -> None:
    search = PonderSearch(MIDDLEGAME, ms=400)
    assert search.progressed.wait(TIMEOUT_S)
    hit = time.perf_counter()
    search.ponder.hit(Limits(movetime_ms=300, move_overhead_ms=0))
    search.finish()
    assert time.perf_counter() - hit >= 0.25   # counted from the start, the time was already spent


def test_the_hit_continues_the_same_iterative_deepening() -> None:
    search = PonderSearch(MIDDLEGAME, reached=4)
    assert search.progressed.wait(TIMEOUT_S)
    search.ponder.hit(Limits(depth=2))
    result = search.finish()
    # A fresh depth-2 search reports depth 2; the pondered one keeps the depths it had reached.
    assert result.depth >= 4 and [info.depth for info in search.infos][:4] == [1, 2, 3, 4]


def test_stop_ends_a_ponder_search_with_a_legal_move() -> None:
    search = PonderSearch(MIDDLEGAME, reached=2)
    assert search.progressed.wait(TIMEOUT_S)
    search.stop.set()
    assert search.finish().move in search.board.legal_moves


def test_a_ponder_search_with_nothing_left_to_search_waits_for_the_hit() -> None:
    search = PonderSearch("k7/7p/8/8/8/8/2Q5/7K w - - 0 1", reached=MAX_PLY)   # mate in one: every depth is quick
    assert search.progressed.wait(TIMEOUT_S)
    search.thread.join(0.3)
    assert search.thread.is_alive()        # no answer while the opponent still thinks
    search.ponder.hit(Limits(movetime_ms=100))
    assert search.finish().mate == 1


def test_a_pondered_book_position_gets_its_book_move_at_the_hit_and_not_before(tmp_path: Path) -> None:
    board = KnightmateBoard()
    book = tmp_path / "e4.bin"
    write_book(book, [book_entry(board, board.parse_uci("e2e4"), 1)])
    engine, ponder = Engine(hash_mb=4, book=OpeningBook(str(book))), Ponder()
    results: list[SearchResult] = []
    thread = threading.Thread(
        target=lambda: results.append(engine.search(board, Limits(movetime_ms=50), ponder=ponder)))
    thread.start()
    thread.join(0.3)
    assert thread.is_alive()                 # UCI wants no bestmove before ponderhit or stop
    ponder.hit(Limits(movetime_ms=50))
    thread.join(TIMEOUT_S)
    assert results[0].from_book and results[0].move == chess.Move.from_uci("e2e4")
