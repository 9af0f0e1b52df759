"""Searches in worker processes, so HTTP and event handling never wait on one and every core works.

Each worker process owns one :class:`bot.engine.Engine` (its hash table survives between moves).
A job is sent as text (start FEN, UCI moves, :class:`Limits`) and the board is rebuilt in the
worker, so repetition history travels with it. A worker that dies breaks the pool; the next
:meth:`SearchPool.submit` builds a new one, and the caller's future fails, which the game answers
with a fallback move. Workers are started with ``spawn``: the bot is multi-threaded, and forking a
threaded process can copy a held lock. This module never touches the network.
"""

from __future__ import annotations

import dataclasses
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from bot.engine import Engine, Limits, SearchResult
from bot.engine.book import BookError, OpeningBook
from variant import STARTING_FEN, KnightmateBoard

log = logging.getLogger(__name__)

SearchJob = Callable[[str | None, tuple[str, ...], Limits, float], SearchResult]

#: How often a worker checks that the bot that started it is still alive.
PARENT_CHECK_S = 1.0

#: Boards kept per worker for :func:`_position`; a few per game the bot can play at once.
BOARD_CACHE_SIZE = 32

_engine: Engine | None = None
_boards: dict[tuple[str | None, tuple[str, ...]], KnightmateBoard] = {}


def _start_worker(hash_mb: int, book_file: str | None = None) -> None:
    global _engine
    # Ctrl-C reaches the whole process group; only the bot's main process decides what it means.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="parent-watch", daemon=True).start()
    _engine = Engine(hash_mb=hash_mb, book=_open_book(book_file))


def _open_book(book_file: str | None) -> OpeningBook | None:
    """The worker's own book (each seeds its own choices); a book that cannot be opened, though
    the configuration checked it, costs the opening moves, not the worker."""
    if book_file is None:
        return None
    try:
        return OpeningBook(book_file)
    except (BookError, OSError) as error:
        log.error("opening book %s not used: %s", book_file, error)
        return None


def _exit_with_parent(parent: int) -> None:
    """A bot killed with SIGKILL cannot stop its workers; they notice being orphaned and leave."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(0)


def engine_search(initial_fen: str | None, moves: tuple[str, ...], limits: Limits, submitted: float) -> SearchResult:
    """The job run in a worker: rebuild the position, take the time the job waited in the queue off
    the mover's clock (it ran meanwhile), search."""
    board = _position(initial_fen, moves)
    engine = _engine if _engine is not None else Engine()
    return engine.search(board, less_waiting(limits, board.turn, time.time() - submitted))


def _position(initial_fen: str | None, moves: tuple[str, ...]) -> KnightmateBoard:
    """The board after ``moves``, from a recent job's board when this job continues that game: a
    long game is rebuilt ply by ply only once per worker, not on every move."""
    board = None
    for known in range(len(moves), max(-1, len(moves) - 3), -1):
        cached = _boards.get((initial_fen, moves[:known]))
        if cached is not None:
            board = cached.copy()
            break
    if board is None:
        board, known = KnightmateBoard(initial_fen or STARTING_FEN), 0
    for uci in moves[known:]:
        board.push(board.parse_uci(uci))
    _boards[(initial_fen, moves)] = board
    while len(_boards) > BOARD_CACHE_SIZE:
        del _boards[next(iter(_boards))]
    return board


def less_waiting(limits: Limits, turn: bool, waited_s: float) -> Limits:
    waited_ms = max(0, int(waited_s * 1000))
    if turn and limits.wtime is not None:
        return dataclasses.replace(limits, wtime=max(0, limits.wtime - waited_ms))
    if not turn and limits.btime is not None:
        return dataclasses.replace(limits, btime=max(0, limits.btime - waited_ms))
    return limits


def _ready() -> int:
    return os.getpid()


class SearchPool:
    """A process pool for searches; thread-safe."""

    def __init__(self, workers: int, hash_mb: int = 64, job: SearchJob = engine_search,
                 book_file: str | None = None) -> None:
        self.workers = max(1, workers)
        self.hash_mb = hash_mb
        self.book_file = book_file
        self.job = job
        self._lock = threading.Lock()
        self._executor = self._new_executor()

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start_worker, initargs=(self.hash_mb, self.book_file))

    def warm_up(self) -> None:
        """Starts every worker now, so the first move of the first game does not pay for it."""
        futures = [self._executor.submit(_ready) for _ in range(self.workers)]
        for future in futures:
            future.result(timeout=60)

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits) -> Future[SearchResult]:
        submitted = time.time()  # wall clock: it is compared in another process
        with self._lock:
            try:
                return self._executor.submit(self.job, initial_fen, moves, limits, submitted)
            except (BrokenProcessPool, RuntimeError) as error:
                log.error("search pool broken (%s): starting a new one", error)
                self._kill(self._executor)
                self._executor = self._new_executor()
                return self._executor.submit(self.job, initial_fen, moves, limits, submitted)

    def close(self) -> None:
        """Stops at once: running searches are killed, not awaited (shutdown must take seconds)."""
        with self._lock:
            self._kill(self._executor)

    @staticmethod
    def _kill(executor: ProcessPoolExecutor) -> None:
        # The executor has no public way to stop a running job; its process table is the only handle.
        processes = dict(getattr(executor, "_processes", None) or {})
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes.values():
            if process.is_alive():
                process.terminate()
