"""Searches in worker processes, so HTTP and event handling never wait on one and every core works.

Each worker process owns one :class:`bot.engine.Engine`, whose hash table survives between moves.
A game has a home worker: its searches go to the worker that searched for it last, unless that
worker is busy with another game's search, so the hash built for the game is used again.

Pondering: after its move a game may ask for a ponder search (:meth:`SearchPool.ponder`), an
untimed search of the position after the reply it expects. The game's next :meth:`SearchPool.submit`
ends it: if the opponent played the expected reply (a hit), the ponder search goes on as the real
one, under the real move's limits timed from that moment; otherwise (a miss) it is stopped and the
real position is searched anew on the same worker, with the hash the ponder search filled.

Sharing the cores: a ponder search never delays a real one. It starts only on a worker with nothing
to do while no search waits for a worker, and a real search that finds no idle worker takes a
pondering one, whose ponder search is stopped first. Searches that find every worker busy with real
searches wait in a queue, and the time they wait comes off the mover's clock.

A job is sent as text (start FEN, UCI moves, :class:`Limits`) and the board is rebuilt in the worker,
so repetition history travels with it. A worker that dies fails the futures of the searches it held
(the game answers with a fallback move) and is started again for the next search. Workers are
started with ``spawn``: the bot is multi-threaded, and forking a threaded process can copy a held
lock. This module never touches the network.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

import chess

from bot.engine import Engine, Limits, Ponder, SearchResult
from bot.engine.book import BookError, OpeningBook
from bot.engine.smp import HelperError
from bot.metrics import ENGINE_RESTARTS
from variant import KnightmateBoard

log = logging.getLogger(__name__)

#: What a worker runs for each search: start FEN, UCI moves, limits, the wall-clock time the search
#: was asked for, the stop event, and the ponder handle of a ponder search (None for a real one).
SearchJob = Callable[[str | None, tuple[str, ...], Limits, float, threading.Event, Ponder | None], SearchResult]

#: How often a worker checks that the bot that started it is still alive.
PARENT_CHECK_S = 1.0
#: How long :meth:`SearchPool.warm_up` waits for a worker to start.
START_TIMEOUT_S = 60.0
#: Boards kept per worker for :func:`_position`; a few per game the bot can play at once.
BOARD_CACHE_SIZE = 32
#: Games whose home worker is remembered (the oldest is forgotten first).
HOMES_KEPT = 1000


class WorkerDied(RuntimeError):
    """The worker process running a search died (killed, out of memory, or a crash in C code)."""


# -- messages between the pool and a worker (picklable) -----------------------------------------


@dataclass(frozen=True)
class _SearchRequest:
    job_id: int
    initial_fen: str | None
    moves: tuple[str, ...]
    limits: Limits
    submitted: float
    ponder: bool


@dataclass(frozen=True)
class _Hit:
    job_id: int
    limits: Limits


@dataclass(frozen=True)
class _Stop:
    job_id: int


@dataclass(frozen=True)
class _Ready:
    pid: int


@dataclass(frozen=True)
class _Done:
    job_id: int
    result: SearchResult | None
    error: BaseException | None


# -- the worker process -------------------------------------------------------------------------

#: How soon, in seconds, a worker's listener thread gets the GIL from a running search.
LISTENER_SWITCH_INTERVAL_S = 0.0005

_engine: Engine | None = None
_boards: dict[tuple[str | None, tuple[str, ...]], KnightmateBoard] = {}


@dataclass(frozen=True)
class _Control:
    """How the pool reaches one search in a worker: its stop event and, when pondering, its ponder handle."""

    stop: threading.Event
    ponder: Ponder | None


def _worker_main(connection: Connection, hash_mb: int, book_file: str | None, job: SearchJob,
                 elo: int | None, threads: int) -> None:
    """A worker: a listener thread takes messages (searches are queued, stops and hits act at
    once on the search they name); the main thread runs the searches one after another."""
    global _engine
    # Ctrl-C reaches the whole process group; only the bot's main process decides what it means.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="parent-watch", daemon=True).start()
    # The search holds the GIL; the listener waits for it to act on a stop or a ponder hit. At the
    # default 5 ms switch interval that wait cost a ponder miss about 10 ms of the opponent's
    # move-to-reply time (bench/speed/latency.py); the listener rarely runs, so a short interval is free.
    sys.setswitchinterval(LISTENER_SWITCH_INTERVAL_S)
    _engine = Engine(hash_mb=hash_mb, book=_open_book(book_file), elo=elo)
    try:
        _engine.threads = threads
    except HelperError as error:  # too little shared memory: search, if only in one thread
        log.error("engine.threads %d not used: %s", threads, error)
    searches: queue.Queue[_SearchRequest] = queue.Queue()
    controls: dict[int, _Control] = {}
    lock = threading.Lock()
    threading.Thread(target=_listen, args=(connection, searches, controls, lock), name="listen", daemon=True).start()
    _engine.wait_for_helpers()  # warm: the first move does not wait for them
    connection.send(_Ready(os.getpid()))
    while True:
        search = searches.get()
        with lock:
            control = controls[search.job_id]
        try:
            done = _Done(search.job_id, job(search.initial_fen, search.moves, search.limits, search.submitted,
                                            control.stop, control.ponder), None)
        except Exception as error:
            done = _Done(search.job_id, None, _picklable(error))
        with lock:
            del controls[search.job_id]
        connection.send(done)


def _listen(connection: Connection, searches: queue.Queue[_SearchRequest], controls: dict[int, _Control],
            lock: threading.Lock) -> None:
    try:
        while True:
            message = connection.recv()
            with lock:
                if isinstance(message, _SearchRequest):
                    controls[message.job_id] = _Control(threading.Event(), Ponder() if message.ponder else None)
                    searches.put(message)
                    continue
                control = controls.get(message.job_id)
            if control is None:
                continue  # that search has ended already
            if isinstance(message, _Hit) and control.ponder is not None:
                control.ponder.hit(message.limits)
            elif isinstance(message, _Stop):
                control.stop.set()
    except (EOFError, OSError):
        os._exit(0)  # the pool closed the pipe: nobody wants our answers any more


def _picklable(error: Exception) -> BaseException:
    try:
        pickle.dumps(error)
        return error
    except Exception:
        return RuntimeError(repr(error))


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


def engine_search(initial_fen: str | None, moves: tuple[str, ...], limits: Limits, submitted: float,
                  stop: threading.Event, ponder: Ponder | None) -> SearchResult:
    """The job run in a worker: rebuild the position, take the time the job waited in the queue off
    the mover's clock (it ran meanwhile), search."""
    board = _position(initial_fen, moves)
    engine = _engine if _engine is not None else Engine()
    if ponder is None:
        limits = less_waiting(limits, board.turn, time.time() - submitted)
    return engine.search(board, limits, stop=stop, ponder=ponder)


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
        board = KnightmateBoard.replay(initial_fen, moves)
    else:
        board.push_game_moves(moves[known:], first_index=known)
    _boards[(initial_fen, moves)] = board
    while len(_boards) > BOARD_CACHE_SIZE:
        del _boards[next(iter(_boards))]
    return board


def less_waiting(limits: Limits, turn: bool, waited_s: float) -> Limits:
    waited_ms = max(0, int(waited_s * 1000))
    clock_ms = limits.clock_ms(turn)
    if clock_ms is None:
        return limits
    return limits.with_clock(turn, max(0, clock_ms - waited_ms))


def ponder_line(board: KnightmateBoard, moves: tuple[str, ...], played: chess.Move,
                pv: tuple[chess.Move, ...]) -> tuple[str, ...]:
    """The moves to ponder on once *played* is posted after *moves* (which lead to *board*): with the
    reply the principal variation *pv* expects, when it has one; else the position right after
    *played*, which can only miss but fills the hash with every reply."""
    after = board.copy(stack=False)
    line = (*moves, after.uci(played))
    after.push(played)
    if len(pv) >= 2 and pv[0] == played and after.is_legal(pv[1]):
        line = (*line, after.uci(pv[1]))
    return line


# -- the pool -----------------------------------------------------------------------------------


@dataclass(eq=False)
class _Job:
    """A search sent to a worker or waiting for one. ``ponder`` stays True while nobody waits for
    the result; a hit makes it a real search."""

    job_id: int
    game_id: str | None
    initial_fen: str | None
    moves: tuple[str, ...]
    limits: Limits
    submitted: float
    ponder: bool
    future: Future[SearchResult] = dataclasses.field(default_factory=Future)
    stopped: bool = False


class _Worker:
    """One worker process, its pipe, and the jobs sent to it and not answered yet, oldest first."""

    def __init__(self) -> None:
        self.process: BaseProcess | None = None
        self.connection: Connection | None = None
        self.ready = threading.Event()
        self.jobs: list[_Job] = []

    @property
    def busy(self) -> bool:
        """Running (or about to run) a real search."""
        return any(not job.ponder for job in self.jobs)

    @property
    def free(self) -> bool:
        """Nothing to do but end ponder searches already told to stop."""
        return all(job.ponder and job.stopped for job in self.jobs)


class SearchPool:
    """Worker processes for searches, with a home worker per game and pondering; thread-safe.

    ``game_id`` names the game a search belongs to: its searches then go to the same worker when
    they can (the hash is kept) and :meth:`ponder` is possible. Without one a search goes to any
    free worker.
    """

    def __init__(self, workers: int, hash_mb: int, job: SearchJob = engine_search,
                 book_file: str | None = None, elo: int | None = None, threads: int = 1) -> None:
        self.workers = max(1, workers)
        self.hash_mb = hash_mb
        self.threads = threads  # processes each worker's engine searches in (its own and its helpers)
        self.book_file = book_file
        self.elo = elo  # the workers' engines play at this UCI_Elo (None: full strength)
        self.job = job
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._workers = [_Worker() for _ in range(self.workers)]
        self._waiting: deque[_Job] = deque()
        self._homes: OrderedDict[str, _Worker] = OrderedDict()
        self._job_ids = itertools.count(1)
        self._closed = False

    def warm_up(self) -> None:
        """Starts every worker now, so the first move of the first game does not pay for it."""
        with self._lock:
            for worker in self._workers:
                if worker.process is None:
                    self._start(worker)
        for worker in self._workers:
            if not worker.ready.wait(START_TIMEOUT_S):
                raise TimeoutError(f"a search worker did not start within {START_TIMEOUT_S:g} s")

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits,
               game_id: str | None = None) -> Future[SearchResult]:
        """Searches the position after *moves* within *limits*; the future holds the result, or the
        error (:class:`WorkerDied` if the worker died). Ends the game's ponder search: a hit when
        it pondered this very position, which then goes on under *limits*."""
        submitted = time.time()  # wall clock: it is compared in another process
        with self._lock:
            if self._closed:
                raise RuntimeError("the search pool is closed")
            hit = self._take_ponder(game_id, initial_fen, moves, limits)
            if hit is not None:
                return hit.future
            job = _Job(next(self._job_ids), game_id, initial_fen, moves, limits, submitted, ponder=False)
            worker = self._worker_for(game_id)
            if worker is None:
                self._waiting.append(job)
            else:
                self._send(worker, job)
            return job.future

    def ponder(self, game_id: str, initial_fen: str | None, moves: tuple[str, ...]) -> bool:
        """Starts a ponder search for *game_id* on the position after *moves* (our move and the
        expected reply), ending any earlier one of this game. Returns False, and does nothing, when
        no worker is free: pondering never takes a worker a real search could use."""
        with self._lock:
            self._stop_ponder(game_id)
            if self._closed or self._waiting:
                return False
            home = self._homes.get(game_id)
            worker = home if home is not None and home.free else self._least_used(self._free_workers())
            if worker is None:
                return False
            job = _Job(next(self._job_ids), game_id, initial_fen, moves, Limits(), time.time(), ponder=True)
            self._send(worker, job)
            return True

    def stop_ponder(self, game_id: str) -> None:
        """Stops the game's ponder search, if it has one (the game is over, or the bot leaves it)."""
        with self._lock:
            self._stop_ponder(game_id)

    def close(self) -> None:
        """Stops at once: running searches are killed, not awaited (shutdown must take seconds)."""
        with self._lock:
            self._closed = True
            waiting, self._waiting = list(self._waiting), deque()
            for worker in self._workers:
                if worker.process is not None and worker.process.is_alive():
                    worker.process.terminate()
        for job in waiting:
            job.future.cancel()

    # -- choosing a worker (called with the lock held) ------------------------------------------

    def _take_ponder(self, game_id: str | None, initial_fen: str | None, moves: tuple[str, ...],
                     limits: Limits) -> _Job | None:
        """The game's ponder job turned into the real search on a hit; on a miss it is stopped."""
        for worker in self._workers:
            for job in worker.jobs:
                if game_id is None or job.game_id != game_id or not job.ponder or job.stopped:
                    continue
                if (job.initial_fen, job.moves) == (initial_fen, moves):
                    log.debug("game %s: ponder hit", game_id)
                    job.ponder = False
                    self._tell(worker, _Hit(job.job_id, limits))
                    return job
                log.debug("game %s: ponder miss", game_id)
                self._stop(worker, job)
        return None

    def _worker_for(self, game_id: str | None) -> _Worker | None:
        """The game's home unless it runs another real search, else a free worker, else one that
        only ponders (that ponder search is stopped); None when all run real searches."""
        home = self._homes.get(game_id) if game_id is not None else None
        if home is not None and not home.busy:
            return home
        worker = self._least_used(self._free_workers())
        if worker is None:
            worker = next((worker for worker in self._workers if not worker.busy), None)
        return worker

    def _free_workers(self) -> list[_Worker]:
        return [worker for worker in self._workers if worker.free]

    def _least_used(self, workers: list[_Worker]) -> _Worker | None:
        """The worker that is home to the fewest games, so each game's hash has room."""
        homes = list(self._homes.values())
        return min(workers, key=lambda worker: sum(home is worker for home in homes), default=None)

    def _stop_ponder(self, game_id: str) -> None:
        for worker in self._workers:
            for job in worker.jobs:
                if job.ponder and job.game_id == game_id:
                    self._stop(worker, job)

    def _stop(self, worker: _Worker, job: _Job) -> None:
        if not job.stopped:
            job.stopped = True
            self._tell(worker, _Stop(job.job_id))

    def _send(self, worker: _Worker, job: _Job) -> None:
        if not job.ponder:
            for running in worker.jobs:
                if running.ponder:
                    self._stop(worker, running)  # a real search comes first
        if worker.process is None:
            self._start(worker)
        worker.jobs.append(job)
        if job.game_id is not None:
            self._homes[job.game_id] = worker
            self._homes.move_to_end(job.game_id)
            while len(self._homes) > HOMES_KEPT:
                self._homes.popitem(last=False)
        request = _SearchRequest(job.job_id, job.initial_fen, job.moves, job.limits, job.submitted, job.ponder)
        self._tell(worker, request)

    def _tell(self, worker: _Worker, message: _SearchRequest | _Hit | _Stop) -> None:
        assert worker.connection is not None
        try:
            worker.connection.send(message)
        except OSError as error:
            # The reader thread sees the same death and fails the jobs.
            log.error("search worker unreachable: %s", error)

    def _start(self, worker: _Worker) -> None:
        ours, theirs = self._context.Pipe()
        # A daemonic process may not start processes, and a worker searching in several threads
        # starts its helpers: such a worker is not daemonic, and close() (or the worker's own
        # watch on this process) ends it.
        process = self._context.Process(target=_worker_main,
                                        args=(theirs, self.hash_mb, self.book_file, self.job, self.elo, self.threads),
                                        name="search-worker", daemon=self.threads == 1)
        process.start()
        theirs.close()
        worker.process, worker.connection, worker.ready = process, ours, threading.Event()
        threading.Thread(target=self._read, args=(worker, process, ours), name="search-results", daemon=True).start()

    # -- answers from a worker (its reader thread) ----------------------------------------------

    def _read(self, worker: _Worker, process: BaseProcess, connection: Connection) -> None:
        ready = worker.ready
        try:
            while True:
                message = connection.recv()
                if isinstance(message, _Ready):
                    ready.set()
                elif isinstance(message, _Done):
                    self._on_done(worker, message)
        except (EOFError, OSError):
            self._on_death(worker, process)
        finally:
            connection.close()

    def _on_done(self, worker: _Worker, done: _Done) -> None:
        with self._lock:
            job = next((job for job in worker.jobs if job.job_id == done.job_id), None)
            if job is not None:
                worker.jobs.remove(job)
            self._dispatch_waiting()
        if job is None or job.future.done():
            return
        if done.error is not None:
            job.future.set_exception(done.error)
        elif done.result is not None:
            job.future.set_result(done.result)

    def _on_death(self, worker: _Worker, process: BaseProcess) -> None:
        with self._lock:
            if worker.process is not process:
                return
            lost, worker.jobs = worker.jobs, []
            worker.process = worker.connection = None
            if not self._closed:
                log.error("search worker %s died (exit code %s); it starts again for the next search",
                          process.pid, process.exitcode)
                ENGINE_RESTARTS.inc()
                self._dispatch_waiting()
        for job in lost:
            if not job.future.done():
                job.future.set_exception(WorkerDied(f"search worker died (exit code {process.exitcode})"))

    def _dispatch_waiting(self) -> None:
        while self._waiting and not self._closed:
            job = self._waiting[0]
            worker = self._worker_for(job.game_id)
            if worker is None:
                return
            self._waiting.popleft()
            self._send(worker, job)
