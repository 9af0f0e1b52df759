"""Where a move comes from: the built-in engine in worker processes, or any UCI engine an operator names.

The runner opens one :class:`MoveSource` per game from an :class:`MoveSources` and closes it when the
game is over; the player asks it for moves and to ponder (:meth:`MoveSource.submit`,
:meth:`MoveSource.ponder`). :func:`open_move_sources` picks the kind from ``engine.command``:

* :class:`BuiltinMoveSources`: every game's searches go to the shared
  :class:`~bot.thinking.search_pool.SearchPool`, so opening and closing a game costs nothing.
* :class:`UciMoveSources`: the operator's UCI engine (Fairy-Stockfish, ``knightmate-bot uci``, ...),
  driven through python-chess's :mod:`chess.engine`, one process per game: started when the game
  starts, quit when it is over, killed when it hangs (:data:`~EngineSettings.hang_margin_s` past
  its time), and started again at once after a crash or a hang; the move that was lost is the
  player's fallback move. All processes are driven from one asyncio loop on one thread.

What :mod:`chess.engine` cannot know about Knightmate (commoner promotions, the variant) is
told as :mod:`bot.engine.external` says, for the bot as for the analysis. And the clock: the
engine sees the bot's clock less the move overhead (the network lag it cannot know about), and
the bot's cap on a move's time as ``movetime`` (:func:`engine_limit`).

This module never touches the network.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import shlex
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import chess
import chess.engine

from bot.config import ConfigError, EngineSettings
from bot.engine import Limits, SearchResult, build
from bot.engine.clock import budget
from bot.engine.external import engine_board, knightmate_refusal
from bot.metrics import ENGINE_RESTARTS
from bot.thinking.search_pool import SearchPool
from variant import KnightmateBoard

log = logging.getLogger(__name__)

#: What a search reports back from the engine's ``info`` lines.
INFO = chess.engine.INFO_BASIC | chess.engine.INFO_SCORE | chess.engine.INFO_PV

Process = tuple[asyncio.SubprocessTransport, chess.engine.UciProtocol]


class MoveSource(Protocol):
    """One game's move source: what the player calls, and what the runner closes after the game."""

    #: Which engine plays, as the ``!name`` chat command tells it.
    name: str

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits) -> Future[SearchResult]:
        """The move for the position after *moves*; also ends any ponder search of this game."""
        ...

    def ponder(self, initial_fen: str | None, moves: tuple[str, ...]) -> None:
        """Think on the opponent's time about the position after *moves*, until the next submit."""
        ...

    def stop_ponder(self) -> None: ...

    def close(self) -> None: ...


class Pool(Protocol):
    """What a :class:`BuiltinMoveSource` needs of the shared :class:`~bot.thinking.search_pool.SearchPool`;
    tests fake it."""

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits,
               game_id: str | None = None) -> Future[SearchResult]: ...

    def ponder(self, game_id: str, initial_fen: str | None, moves: tuple[str, ...]) -> bool: ...

    def stop_ponder(self, game_id: str) -> None: ...


@runtime_checkable
class MoveSources(Protocol):
    """Opens a :class:`MoveSource` for each game the runner starts."""

    def open(self, game_id: str) -> MoveSource: ...


class EngineStartError(ConfigError):
    """The external engine did not start, does not speak UCI, does not play Knightmate, or refused an option."""


# -- the built-in engine -------------------------------------------------------------------------


class BuiltinMoveSource:
    """A game's searches, sent to the search pool that every game shares, named by the game so that
    they go to its home worker (whose hash knows the game) and end its ponder search."""

    def __init__(self, pool: Pool, game_id: str) -> None:
        self.pool = pool
        self.game_id = game_id
        self.name = f"the built-in engine ({build.running_build()} build)"

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits) -> Future[SearchResult]:
        return self.pool.submit(initial_fen, moves, limits, game_id=self.game_id)

    def ponder(self, initial_fen: str | None, moves: tuple[str, ...]) -> None:
        self.pool.ponder(self.game_id, initial_fen, moves)

    def stop_ponder(self) -> None:
        self.pool.stop_ponder(self.game_id)

    def close(self) -> None:
        """Ends the game's pondering; the pool outlives its games and belongs to whoever made it."""
        self.stop_ponder()


class BuiltinMoveSources:
    """The built-in engine: every game searches in one pool (in tests, any :class:`Pool`)."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool

    def open(self, game_id: str) -> BuiltinMoveSource:
        return BuiltinMoveSource(self.pool, game_id)


# -- what an external engine is told -------------------------------------------------------------


def engine_limit(limits: Limits, turn: chess.Color) -> chess.engine.Limit:
    """``go`` for the side ``turn``: its clock less the move overhead, the other clock as it is,
    and, when the bot caps a move's time, a ``movetime`` the clock can afford (UCI's names; ours carry ``_ms``)."""
    def clock_s(clock_ms: int | None) -> float | None:
        return None if clock_ms is None else max(1, clock_ms) / 1000

    mover_ms = limits.clock_ms(turn)
    shown = limits if mover_ms is None else limits.with_clock(turn, mover_ms - limits.move_overhead_ms)
    movetime_ms = budget(limits, turn).hard_ms if limits.movetime_ms is not None else None
    return chess.engine.Limit(
        white_clock=clock_s(shown.wtime_ms), black_clock=clock_s(shown.btime_ms),
        white_inc=limits.winc_ms / 1000, black_inc=limits.binc_ms / 1000,
        time=movetime_ms / 1000 if movetime_ms is not None else None,
        depth=limits.depth, nodes=limits.nodes, remaining_moves=limits.movestogo)


def answer_due_s(limit: chess.engine.Limit, turn: chess.Color, margin_s: float) -> float | None:
    """Seconds after ``go`` by which a working engine has answered: its move time, else all of
    its clock, and the margin; ``None`` when nothing bounds the search (no clock, no move time)."""
    allowed = limit.time if limit.time is not None else (limit.white_clock if turn == chess.WHITE
                                                          else limit.black_clock)
    return None if allowed is None else allowed + margin_s


def search_result(play: chess.engine.PlayResult, elapsed_s: float) -> SearchResult:
    """The engine's answer as the bot records it; the score from the mover's side, as the engine gave it."""
    info = play.info
    score = info.get("score")
    relative = score.relative if score is not None else None
    mate = relative.mate() if relative is not None and relative.is_mate() else None
    score_cp = relative.score() if relative is not None and mate is None else None
    return SearchResult(move=play.move, score_cp=score_cp, mate=mate, depth=info.get("depth", 0),
                        nodes=info.get("nodes", 0), time_ms=int(1000 * info.get("time", elapsed_s)),
                        pv=tuple(info.get("pv", ())))


# -- external engine processes -------------------------------------------------------------------


async def start_engine(settings: EngineSettings) -> Process:
    """Starts the engine and makes it ready for Knightmate with the operator's options.

    Raises :class:`EngineStartError` with one line naming the config key when the engine does not
    start, does not answer ``uci`` within ``engine.start_timeout_s``, has no ``knightmate`` in its
    ``UCI_Variant`` option, or refuses an option.
    """
    assert settings.command is not None
    name = shlex.join(settings.command)
    try:
        transport, protocol = await chess.engine.UciProtocol.popen(
            list(settings.command), setpgrp=True)  # Ctrl-C is the bot's to handle
    except OSError as error:
        raise EngineStartError(f"engine.command: cannot start {name}: {error.strerror or error}") from None
    try:
        try:
            await asyncio.wait_for(protocol.initialize(), settings.start_timeout_s)
        except TimeoutError:
            raise EngineStartError(f"engine.command: {name} did not answer 'uci' within {settings.start_timeout_s:g} s "
                                   "(engine.start_timeout_s); is it a UCI engine?") from None
        except chess.engine.EngineError:
            raise EngineStartError(f"engine.command: {name} exited before answering 'uci'; "
                                   "is it a UCI engine?") from None
        refusal = knightmate_refusal(name, protocol.options)
        if refusal is not None:
            raise EngineStartError(f"engine.command: {refusal}")
        try:
            await protocol.configure(settings.options)
            await asyncio.wait_for(protocol.ping(), settings.start_timeout_s)
        except chess.engine.EngineError as error:
            raise EngineStartError(f"engine.options: {error}") from None
        except TimeoutError:
            raise EngineStartError(f"engine.options: {name} did not answer 'isready' after its options "
                                   f"within {settings.start_timeout_s:g} s") from None
    except BaseException:
        await _kill_engine(transport, protocol)
        raise
    return transport, protocol


async def _kill_engine(transport: asyncio.SubprocessTransport, protocol: chess.engine.UciProtocol) -> None:
    """Kills the engine and waits (briefly) until its exit is seen: a process still unreaped when the
    bot's event loop closes makes asyncio log a stray warning, and leaves a zombie behind."""
    transport.close()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(protocol.returncode), 1.0)


async def quit_engine(process: Process, margin_s: float) -> bool:
    """Asks the engine to quit; kills it when it has not within ``margin_s``, and waits (briefly)
    until it is gone. True if it quit by itself."""
    transport, protocol = process
    try:
        if not protocol.returncode.done():
            await asyncio.wait_for(protocol.quit(), margin_s)
        return True
    except (TimeoutError, chess.engine.EngineError, OSError):
        await _kill_engine(transport, protocol)
        return False
    finally:
        transport.close()


class EngineHung(chess.engine.EngineError):
    """The engine did not answer a move in its time and the margin; it has been killed."""


class UciMoveSource:
    """One game's external engine process. Thread-safe; its state is touched on the loop only.

    A new search supersedes one still running (chess.engine sends it ``stop``); each search starts
    with ``isready``, so an engine that does not answer within the margin is replaced before it
    costs a move. A search that takes longer than :func:`answer_due_s` kills the engine.
    """

    def __init__(self, game_id: str, settings: EngineSettings, loop: asyncio.AbstractEventLoop) -> None:
        self.game_id = game_id
        self.settings = settings
        self._loop = loop
        self._process: asyncio.Task[Process] | None = None
        self._search: asyncio.Task[Any] | None = None
        self._closed = False
        self.closing: Future[None] | None = None
        # The engine's `id name` once it has started; its program's file name (not its path) until then.
        self.name = f"the UCI engine {Path((settings.command or ('?',))[0]).name}"
        loop.call_soon_threadsafe(self._engine_task)  # started with the game, not at its first move

    # -- called from other threads

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits) -> Future[SearchResult]:
        board = engine_board(initial_fen, moves)
        return asyncio.run_coroutine_threadsafe(self._play(board, limits), self._loop)

    def ponder(self, initial_fen: str | None, moves: tuple[str, ...]) -> None:
        """Nothing to do: with ``engine.ponder`` on, chess.engine already has the engine pondering on
        its expected reply since its last ``bestmove``. The ``isready`` check before the next move
        ends that search with ``stop`` (never ``ponderhit``), so the engine keeps what its hash learned."""

    def stop_ponder(self) -> None:
        """Nothing to do: the next search, or :meth:`close`, ends the engine's pondering."""

    def close(self) -> None:
        """Quits the engine in the background (see :attr:`closing`); a second call does nothing."""
        if self.closing is None:
            self.closing = asyncio.run_coroutine_threadsafe(self._close(), self._loop)

    # -- on the loop

    def _engine_task(self) -> asyncio.Task[Process]:
        """The task that started the running process, or a new start if there is none alive."""
        task = self._process
        if task is not None and _alive(task):
            return task
        if self._closed:
            raise chess.engine.EngineError("the game's engine is closed")
        if task is not None:
            log.warning("game %s: the engine has exited or failed to start; starting it again", self.game_id)
        self._process = self._loop.create_task(self._start())
        return self._process

    async def _start(self) -> Process:
        process = await start_engine(self.settings)
        log.info("game %s: engine %s started (pid %s)", self.game_id, process[1].id.get("name", "?"),
                 process[0].get_pid())
        if process[1].id.get("name"):
            self.name = f"the UCI engine {process[1].id['name']}"
        return process

    def _restart(self, why: str) -> None:
        """Kills the process and starts the next at once, so the next move does not wait for it."""
        task = self._process
        if task is not None and task.done() and _alive(task):
            task.result()[0].close()
        self._process = None
        if not self._closed:
            log.warning("game %s: the engine %s; starting it again", self.game_id, why)
            ENGINE_RESTARTS.inc()
            self._engine_task()

    async def _ready(self) -> chess.engine.UciProtocol:
        """The running engine, answering ``isready`` within the margin, else a new one."""
        _, protocol = await asyncio.shield(self._engine_task())
        try:
            await asyncio.wait_for(protocol.ping(), self.settings.hang_margin_s)
            return protocol
        except TimeoutError:
            self._restart(f"did not answer 'isready' within {self.settings.hang_margin_s:g} s")
        except chess.engine.EngineTerminatedError:
            self._restart("has exited")
        _, protocol = await asyncio.shield(self._engine_task())
        return protocol

    async def _play(self, board: KnightmateBoard, limits: Limits) -> SearchResult:
        previous, self._search = self._search, asyncio.current_task()
        if previous is not None and not previous.done():
            previous.cancel()  # chess.engine sends 'stop'; _ready waits for its answer
            await asyncio.wait([previous])
        protocol = await self._ready()
        limit = engine_limit(limits, board.turn)
        started = time.monotonic()
        try:
            play = await asyncio.wait_for(protocol.play(board, limit, info=INFO, ponder=self.settings.ponder),
                                          answer_due_s(limit, board.turn, self.settings.hang_margin_s))
        except TimeoutError:
            self._restart("did not answer in its time and the margin (killed)")
            raise EngineHung(f"no move {self.settings.hang_margin_s:g} s after the move's time") from None
        except chess.engine.EngineTerminatedError:
            self._restart("exited in the middle of a move")
            raise
        return search_result(play, time.monotonic() - started)

    async def _close(self) -> None:
        self._closed = True
        search, task, self._process = self._search, self._process, None
        if search is not None and not search.done():
            search.cancel()
            await asyncio.wait([search])
        if task is None:
            return
        if not task.done():
            task.cancel()  # still starting: start_engine kills what it started
        try:
            process = await task
        except (asyncio.CancelledError, Exception):  # it never started: nothing to quit
            return
        if await quit_engine(process, self.settings.hang_margin_s):
            log.info("game %s: engine quit", self.game_id)
        else:
            log.warning("game %s: the engine did not quit within %g s; killed", self.game_id,
                        self.settings.hang_margin_s)


def _alive(task: asyncio.Task[Process]) -> bool:
    """Starting, or started and not exited."""
    if not task.done():
        return True
    if task.cancelled() or task.exception() is not None:
        return False
    return not task.result()[1].returncode.done()


class UciMoveSources:
    """The operator's UCI engine, one process per game, all driven from one asyncio loop thread."""

    def __init__(self, settings: EngineSettings) -> None:
        if settings.command is None:
            raise ValueError("UciMoveSources needs engine.command")
        self.settings = settings
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="uci-engines", daemon=True)
        self._thread.start()
        self._lock = threading.Lock()
        self._games: list[UciMoveSource] = []

    def check(self) -> None:
        """Starts the engine once, as each game will, and quits it: a bad command, engine or option
        raises :class:`EngineStartError` before the bot accepts any challenge."""
        async def start_and_quit() -> None:
            await quit_engine(await start_engine(self.settings), self.settings.hang_margin_s)

        asyncio.run_coroutine_threadsafe(start_and_quit(), self._loop).result()

    def open(self, game_id: str) -> UciMoveSource:
        engine = UciMoveSource(game_id, self.settings, self._loop)
        with self._lock:
            # A bot runs for weeks: forget games whose engine has quit.
            self._games = [game for game in self._games if not (game.closing and game.closing.done())]
            self._games.append(engine)
        return engine

    def close(self) -> None:
        """Quits every game's engine (killing those that hang) and stops the loop; takes at most
        about the margin. A second call does nothing."""
        with self._lock:
            if self._loop.is_closed() or not self._thread.is_alive():
                return
            games, self._games = self._games, []
        for game in games:
            game.close()
        concurrent.futures.wait([game.closing for game in games if game.closing is not None],
                                timeout=self.settings.hang_margin_s + 1)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()


@contextlib.contextmanager
def open_move_sources(settings: EngineSettings, workers: int, threads: int) -> Iterator[MoveSources]:
    """The move source ``run`` and ``demo`` play with, ready and checked; closed on exit with every
    engine process and worker it started, the built-in engine's *workers* each searching in *threads*
    processes. Raises :class:`EngineStartError` for a bad external engine."""
    if settings.command is None:
        pool = SearchPool(workers, settings.hash_mb, book_file=settings.book_file, elo=settings.builtin_elo,
                          threads=threads)
        try:
            pool.warm_up()
            yield BuiltinMoveSources(pool)
        finally:
            pool.close()
        return
    engines = UciMoveSources(settings)
    try:
        engines.check()
        yield engines
    finally:
        engines.close()
