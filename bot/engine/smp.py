"""Lazy SMP: the helper processes that search beside an :class:`~bot.engine.search.Engine` whose
``threads`` is above 1, all sharing one transposition table (:class:`~bot.engine.table.SharedTable`).

Processes, not threads: the search holds the GIL, so threads of one interpreter would take turns.
A :class:`HelperPool` starts ``threads - 1`` helpers once (with ``spawn``: the UCI front end and the
bot are multi-threaded, and forking a threaded process can copy a held lock) and keeps them between
moves. For each search the main process sends every helper the position (:meth:`HelperPool.start`);
the helpers search it at their own depths until the main search ends and raises the table's stop
flag (:meth:`HelperPool.finish`), which they look at every few hundred nodes. Only the main search
decides the move played: the helpers only fill the table it reads.

Cleanup, whatever ends the engine: the shared memory is unlinked as soon as every helper has mapped
it, so no name is left in ``/dev/shm`` even if the engine is killed later (the mappings vanish
with the processes). A helper leaves when the engine closes the pool, when its pipe to the engine
reaches its end (the engine exited or was killed), or, mid-search, when its parent changes.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
import signal
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from multiprocessing.shared_memory import SharedMemory
from typing import Protocol

from bot.engine.nnue import Net, shipped_net
from bot.engine.table import MAX_THREADS, SharedTable, block_bytes
from variant import KnightmateBoard

logger = logging.getLogger(__name__)

#: How long the engine waits for a helper to start (import the engine, map the table) or to
#: answer a stop; a helper that takes longer is taken for dead and the pool is started again.
HELPER_ANSWER_TIMEOUT_S = 30.0
#: How long a closing pool waits for its helpers to leave before it kills them.
HELPER_EXIT_TIMEOUT_S = 5.0
#: Names of the shared blocks begin so (with the engine's process id): tests look for leftovers.
BLOCK_PREFIX = "knightmate-tt"
#: Where POSIX shared memory lives on Linux.
SHARED_MEMORY_DIRECTORY = "/dev/shm"

_block_numbers = itertools.count()


@dataclass(frozen=True)
class _Job:
    """A search for a helper: the position after the last irreversible move and the moves since,
    so the helper knows the repetitions as the main search does."""
    fen: str
    moves: tuple[str, ...]
    nnue: bool


#: Tells a helper to forget its histories (a new game); the table is cleared by the engine.
_NEW_GAME = "new game"
#: What a helper sends once it has mapped the table, and after each search.
_READY = "ready"


class HelperStop:
    """A helper's stop signal: the main search has ended, or the engine that started it is gone."""

    def __init__(self, table: SharedTable, parent_pid: int) -> None:
        self._table = table
        self._parent_pid = parent_pid

    def is_set(self) -> bool:
        return self._table.stopped or os.getppid() != self._parent_pid


class HelperEngine(Protocol):
    """What a helper process searches with: an :class:`~bot.engine.search.Engine` (passed in by
    the engine, which this module does not import), its histories kept from move to move."""

    net: Net | None

    def new_game(self) -> None: ...

    def help_search(self, board: KnightmateBoard, table: SharedTable, worker: int, stop: HelperStop) -> None: ...


class HelperPool:
    """``threads - 1`` helper processes and the shared table of an engine's searches.

    Closed by :meth:`close`, or when it is garbage-collected or the interpreter exits (a session
    that is dropped without being closed leaves no processes behind either).
    """

    def __init__(self, threads: int, hash_mb: int, make_engine: Callable[[], HelperEngine]) -> None:
        """*make_engine* makes each helper's engine, in the helper: it must be picklable (a class
        or a module's function)."""
        if not 2 <= threads <= MAX_THREADS:
            raise ValueError(f"a helper pool is for 2 to {MAX_THREADS} threads, got {threads}")
        self.threads = threads
        self.hash_mb = hash_mb
        size = block_bytes(hash_mb)
        free = _shared_memory_free()
        if free is not None and free < size:
            # Shared memory is allotted as it is written: a block larger than what is free would
            # be created, then kill a search with SIGBUS when the table fills.
            raise HelperError(f"the shared memory ({SHARED_MEMORY_DIRECTORY}) has {free // 2**20} MB free, the table "
                              f"needs {size // 2**20 + 1} MB: lower Hash, or give a container more (--shm-size)")
        block = SharedMemory(f"{BLOCK_PREFIX}-{os.getpid()}-{next(_block_numbers)}", create=True, size=size)
        self.table = _table_in(block)
        self._resources = _Resources(block, self.table)
        self._close = weakref.finalize(self, self._resources.close)
        context = multiprocessing.get_context("spawn")
        for worker in range(1, threads):
            ours, theirs = context.Pipe()
            process = context.Process(target=_helper_main, args=(theirs, block.name, worker, os.getpid(), make_engine),
                                      name=f"knightmate-helper-{worker}", daemon=True)
            process.start()
            theirs.close()
            self._resources.helpers.append((process, ours))
        self._helpers = self._resources.helpers
        # Whether the helpers owe a _READY: until they have mapped the table, and while they search.
        self._answers_owed = True
        self.broken = False

    @property
    def pids(self) -> list[int]:
        return [process.pid for process, _ in self._helpers if process.pid is not None]

    def start(self, board: KnightmateBoard, nnue: bool) -> None:
        """Sets the helpers searching *board* (after the previous search's helpers have stopped)."""
        self.wait_until_idle()
        table = self.table
        table.stopped = False
        for worker in range(len(self._helpers) + 1):
            table.publish_nodes(worker, 0)
        replay = board.copy()
        moves = [replay.pop() for _ in range(min(board.halfmove_clock, len(board.move_stack)))]
        self._send_all(_Job(replay.fen(), tuple(replay.uci(move) for move in reversed(moves)), nnue))
        self._answers_owed = True

    def finish(self) -> int:
        """Stops the helpers' search (they see the flag within a few hundred nodes; the next
        :meth:`start` waits for them) and returns the nodes they searched."""
        self.table.stopped = True
        return self.helper_nodes()

    def helper_nodes(self) -> int:
        """The nodes the helpers have searched in this search so far, as they last published them."""
        return sum(self.table.nodes(worker) for worker in range(1, len(self._helpers) + 1))

    def new_game(self) -> None:
        """The helpers forget their histories and the table its entries."""
        self.wait_until_idle()
        self.table.clear()
        self._send_all(_NEW_GAME)

    def _send_all(self, message: object) -> None:
        """Sends *message* to every helper. One that died while idle (it owed no answer, so
        :meth:`wait_until_idle` did not notice) marks the pool broken."""
        for process, connection in self._helpers:
            try:
                connection.send(message)
            except OSError as error:
                self.broken = True
                raise HelperError(f"helper process {process.pid} is gone (exit code {process.exitcode})") from error

    def wait_until_idle(self) -> None:
        """Waits for each helper's _READY (mapped the table, or done searching); then the table's
        name can go. A helper that died or does not answer marks the pool broken."""
        if self.broken:
            raise HelperError("the helper pool is broken")
        if not self._answers_owed:
            return
        for process, connection in self._helpers:
            try:
                # Waits on the process too: one that died answers at once, with its exit code.
                answered = bool(wait([connection, process.sentinel], HELPER_ANSWER_TIMEOUT_S)) \
                    and connection.poll() and connection.recv() == _READY
            except (EOFError, OSError):
                answered = False
            if not answered:
                self.broken = True
                raise HelperError(f"helper process {process.pid} did not answer (exit code {process.exitcode})")
        self._answers_owed = False
        self._resources.unlink()  # every helper has mapped the block: its name is no longer needed

    def close(self) -> None:
        """Stops and ends the helpers and frees the table; the pool cannot be used afterwards."""
        self._close()


class _Resources:
    """What a pool must give back, apart from the pool (its finalizer must not keep the pool alive)."""

    def __init__(self, block: SharedMemory, table: SharedTable) -> None:
        self.block = block
        self.table = table
        self.helpers: list[tuple[BaseProcess, Connection]] = []
        self._unlinked = False

    def unlink(self) -> None:
        if not self._unlinked:
            self.block.unlink()
            self._unlinked = True

    def close(self) -> None:
        self.table.stopped = True
        for _, connection in self.helpers:
            try:
                connection.send(None)
            except OSError:
                pass  # that helper is gone already
        for process, connection in self.helpers:
            process.join(HELPER_EXIT_TIMEOUT_S)
            if process.is_alive():
                logger.warning("helper process %s did not leave; killing it", process.pid)
                process.kill()
                process.join()
            connection.close()
        self.table.release()
        self.block.close()
        self.unlink()


class HelperError(RuntimeError):
    """The helpers cannot be started (too little shared memory), or one died or stopped answering."""


def _shared_memory_free() -> int | None:
    """Bytes free for shared memory blocks, where the system says (Linux: a tmpfs, 64 MB in a
    Docker container unless it is given more)."""
    try:
        stats = os.statvfs(SHARED_MEMORY_DIRECTORY)
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize


def _table_in(block: SharedMemory) -> SharedTable:
    assert block.buf is not None, "a block is mapped until it is closed"
    return SharedTable(block.buf)


def _helper_main(connection: Connection, block_name: str, worker: int, parent_pid: int,
                 make_engine: Callable[[], HelperEngine]) -> None:
    """A helper process: maps the table, then searches each job until the stop flag."""
    # Ctrl-C reaches the whole process group; only the engine's process decides what it means.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    block = SharedMemory(block_name)
    table = _table_in(block)
    stop = HelperStop(table, parent_pid)
    engine = make_engine()
    try:
        connection.send(_READY)
        while True:
            message = connection.recv()
            if message is None:
                break
            if message == _NEW_GAME:
                engine.new_game()
                continue
            if message.nnue != (engine.net is not None):
                engine.net = shipped_net() if message.nnue else None
            board = KnightmateBoard.replay(message.fen, message.moves)
            engine.help_search(board, table, worker, stop)
            connection.send(_READY)
    except (EOFError, OSError):
        pass  # the engine is gone
    finally:
        table.release()
        block.close()
