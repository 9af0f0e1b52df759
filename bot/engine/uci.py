"""``knightmate-bot uci``: the engine behind the Universal Chess Interface, on stdin/stdout.

Commands: ``uci``, ``isready``, ``ucinewgame``, ``setoption`` (``UCI_Variant`` = knightmate,
``Hash``, ``Threads``, ``Move Overhead``, ``Ponder``, ``OwnBook``, ``Book File``, ``MultiPV``, ``UCI_LimitStrength``,
``UCI_Elo``), ``position startpos|fen <fen>
[moves ...]`` (``m`` and ``n`` commoner promotions), ``go`` (wtime, btime, winc, binc, movestogo,
movetime, depth, nodes, infinite, ponder), ``ponderhit``, ``stop`` and ``quit``. Searches run on a
worker thread so ``stop``, ``ponderhit`` and ``isready`` are answered while the engine thinks.

Pondering: ``go ponder`` searches the position (the GUI's guess at the opponent's reply already
played) without a time limit; ``ponderhit`` turns it into a normal search under the ``go``
command's limits, timed from that moment and keeping what was searched; ``stop`` ends it with a
``bestmove`` the GUI discards. ``bestmove`` names the expected reply (``ponder <move>``) whenever
the principal variation has one.

Opening book: with ``OwnBook`` (on by default) a position in the book is answered at once,
announced by ``info string book move``; ``go infinite`` always searches, and so does a search
with ``MultiPV`` above 1 (analysis).

Threads: with ``Threads`` N above 1 the engine searches in N processes sharing the ``Hash`` table
(Lazy SMP, see :class:`~bot.engine.search.Engine`); ``info`` lines count the nodes of all of them.
Its maximum is the machine's cores: more processes than cores only take turns. ``quit`` (or the
end of input) ends the helper processes.

MultiPV: with ``MultiPV`` N each iteration is reported as N ``info multipv k ...`` lines, best
first, each with its exact score and line.

Strength: ``UCI_LimitStrength`` true makes the engine play at ``UCI_Elo`` (see
:mod:`bot.engine.levels`), spelled as Stockfish and Fairy-Stockfish spell them, so the same
``engine.options`` weaken either engine.

Input is untrusted: a malformed or illegal command gets an ``info string error`` line and leaves
the previous state in place. This module must never crash on input, and never write anything to
stdout that is not UCI (diagnostics go to the log).
"""

from __future__ import annotations

import io
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

import chess
import chess.engine

from bot import __version__
from bot.engine import build
from bot.engine.book import DEFAULT_BOOK, BookError, OpeningBook, check_book_file
from bot.engine.clock import Limits, Ponder
from bot.engine.levels import DEFAULT_ELO, MAX_ELO, MIN_ELO
from bot.engine.nnue import shipped_net
from bot.engine.search import MAX_MULTIPV, Engine, SearchResult
from bot.engine.smp import HelperError
from bot.engine.table import MAX_THREADS
from variant import GameMoveError, KnightmateBoard

logger = logging.getLogger(__name__)

#: Says which engine build runs (compiled by mypyc or pure Python), as actually imported.
ENGINE_NAME = f"knightmate-bot {__version__} ({build.running_build()})"
AUTHOR = "the knightmate-bot authors"

_GO_INT_ARGUMENTS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes")


class UciError(ValueError):
    """A command that cannot be obeyed; the message goes back as ``info string error: ...``."""


class UciSession:
    """One UCI conversation: the current position, the options and at most one search."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write_line = write
        self._write_lock = threading.Lock()
        self.engine = Engine(hash_mb=int(HASH.default or 1))
        self.book_file = DEFAULT_BOOK
        self.own_book = False
        self.move_overhead_ms = 0
        self.multipv = 1
        self.limit_strength = False
        self.elo = DEFAULT_ELO
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        for option in OPTIONS:  # each option's default, set as a GUI's setoption would set it
            try:
                option.apply(self, option.spec.default)
            except UciError as error:  # a broken install (no book): play on, and say why in the log
                logger.warning("%s", error)
        self.board = KnightmateBoard()
        # The running search's ponder handle and the limits it gets at ``ponderhit``.
        self._ponder: Ponder | None = None
        self._ponder_limits = Limits()
        # Set from the moment a search has decided its bestmove: a GUI may send the next 'go'
        # as soon as it reads that line, before the search thread has quite finished.
        self._idle = threading.Event()
        self._idle.set()
        self._handlers: dict[str, Callable[[list[str]], None]] = {
            "uci": self._uci,
            "isready": self._isready,
            "ucinewgame": self._new_game,
            "setoption": self._setoption,
            "position": self._position,
            "go": self._go,
            "ponderhit": self._ponderhit,
            "stop": lambda _: self.stop_search(),
            "debug": lambda _: None,
        }

    def send(self, line: str) -> None:
        with self._write_lock:
            self._write_line(line)

    def handle(self, line: str) -> bool:
        """Obeys one input line; returns False once the session should end (``quit``)."""
        tokens = line.split()
        if not tokens:
            return True
        command, arguments = tokens[0], tokens[1:]
        try:
            if command == "quit":
                self.stop_search()
                return False
            handler = self._handlers.get(command)
            if handler is None:
                raise UciError(f"unknown command {command!r}")
            handler(arguments)
        except UciError as error:
            self.send(f"info string error: {error}")
        except Exception:  # the session must survive anything a command can throw
            logger.exception("UCI command failed: %r", line)
            self.send(f"info string error: internal error on {command!r}")
        return True

    def _uci(self, _: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {AUTHOR}")
        for option in OPTIONS:
            self.send(announcement(option.spec))
        self.send("uciok")

    def _isready(self, _: list[str]) -> None:
        """Answers once the engine can search at once: after a change of Threads, its helpers
        have started (while a search runs, at once)."""
        if self._idle.is_set():
            self.engine.wait_for_helpers()
        self.send("readyok")

    def _new_game(self, _: list[str]) -> None:
        self.stop_search()
        self.engine.new_game()
        self.board = KnightmateBoard()

    def _setoption(self, arguments: list[str]) -> None:
        if not arguments or arguments[0] != "name":
            raise UciError("expected 'setoption name <id> [value <x>]'")
        if "value" in arguments:
            split = arguments.index("value")
            name, value = " ".join(arguments[1:split]), " ".join(arguments[split + 1:])
        else:
            name, value = " ".join(arguments[1:]), ""
        option = _BY_NAME.get(name.lower())
        if option is None:
            raise UciError(f"unknown option {name!r}")
        option.apply(self, parse_value(option.spec, value))

    # What applies each option's value (see OPTIONS); the value is parsed and checked already.

    def _keep(self, value: chess.engine.ConfigValue) -> None:
        """UCI_Variant has one choice; Ponder only tells the GUI this engine can (the GUI decides when)."""

    def _set_hash(self, value: chess.engine.ConfigValue) -> None:
        if self.engine.threads > 1:
            self.stop_search()  # the shared table a running search uses is replaced
        self._set_table(int(value or 0), self.engine.threads)

    def _set_threads(self, value: chess.engine.ConfigValue) -> None:
        self.stop_search()  # the helpers a running search uses are replaced
        self._set_table(self.engine.hash_mb, int(value or 1))

    def _set_table(self, hash_mb: int, threads: int) -> None:
        """Hash and Threads, whose helpers share a table of Hash MB; when there is not the shared
        memory for it, the engine searches alone, and says so."""
        try:
            self.engine.hash_mb = hash_mb
            self.engine.threads = threads
        except HelperError as error:
            self.engine.threads = 1
            raise UciError(f"Threads {threads} with Hash {hash_mb}: {error}; searching in one thread") from None

    def _set_nnue(self, value: chess.engine.ConfigValue) -> None:
        """``Use NNUE``: the shipped network scores positions instead of the hand evaluation."""
        try:
            self.engine.net = shipped_net() if value else None
        except (OSError, ValueError) as error:
            raise UciError(f"Use NNUE: cannot read the network: {error}") from None

    def _set_move_overhead(self, value: chess.engine.ConfigValue) -> None:
        self.move_overhead_ms = int(value or 0)

    def _set_multipv(self, value: chess.engine.ConfigValue) -> None:
        self.multipv = int(value or 1)

    def _set_limit_strength(self, value: chess.engine.ConfigValue) -> None:
        self.limit_strength = bool(value)
        self.engine.elo = self.elo if self.limit_strength else None

    def _set_elo(self, value: chess.engine.ConfigValue) -> None:
        self.elo = int(value or DEFAULT_ELO)
        self.engine.elo = self.elo if self.limit_strength else None

    def _set_book_file(self, value: chess.engine.ConfigValue) -> None:
        try:
            self.book_file = check_book_file(str(value))
        except BookError as error:
            raise UciError(f"Book File {value!r}: {error}") from None
        self._use_book(self.own_book)

    def _set_own_book(self, value: chess.engine.ConfigValue) -> None:
        self._use_book(bool(value))

    def _use_book(self, on: bool) -> None:
        """Answers positions from ``book_file`` (``OwnBook`` true), or searches them all."""
        self.own_book = on
        try:
            self.engine.book = OpeningBook(self.book_file) if on else None
        except (BookError, OSError) as error:
            self.engine.book = None
            raise UciError(f"no book, {self.book_file}: {error}") from None

    def _position(self, arguments: list[str]) -> None:
        if not arguments:
            raise UciError("expected 'position startpos|fen <fen> [moves ...]'")
        if "moves" in arguments:
            split = arguments.index("moves")
            setup, moves = arguments[:split], arguments[split + 1:]
        else:
            setup, moves = arguments, []
        if setup == ["startpos"]:
            fen = None
        elif setup[0] == "fen" and len(setup) > 1:
            fen = " ".join(setup[1:])
        else:
            raise UciError(f"expected 'startpos' or 'fen <fen>', got {' '.join(setup)!r}")
        try:
            self.board = KnightmateBoard.replay(fen, moves)
        except GameMoveError as error:
            raise UciError(f"position ignored, {error}") from None
        except ValueError as error:
            raise UciError(f"bad fen: {error}") from None

    def _go(self, arguments: list[str]) -> None:
        if not self._idle.is_set():
            raise UciError("already searching; send 'stop' first")
        pondering = "ponder" in arguments
        limits = self._limits([token for token in arguments if token != "ponder"])
        board = self.board.copy()
        self.stop_search()
        self._stop.clear()
        self._idle.clear()
        self._ponder = Ponder() if pondering else None
        self._ponder_limits = limits
        self._thread = threading.Thread(target=self._search, args=(board, limits, self._ponder, self.multipv),
                                        name="uci-search", daemon=True)
        self._thread.start()

    def _ponderhit(self, _: list[str]) -> None:
        """The opponent played the move pondered on: the search goes on as a normal one."""
        ponder = self._ponder
        if ponder is None or self._idle.is_set():
            raise UciError("not pondering")
        self._ponder = None
        ponder.hit(self._ponder_limits)

    def _limits(self, arguments: list[str]) -> Limits:
        values: dict[str, int] = {}
        infinite = False
        index = 0
        while index < len(arguments):
            token = arguments[index]
            if token == "infinite":
                infinite = True
            elif token in _GO_INT_ARGUMENTS:
                if index + 1 >= len(arguments):
                    raise UciError(f"'go {token}' needs a number")
                values[token] = _int_in_range(token, arguments[index + 1], -(10**9), 10**12)
                index += 1
            else:
                raise UciError(f"unknown go argument {token!r}")
            index += 1
        for name in ("movetime", "depth", "nodes"):
            if name in values and values[name] < 1:
                raise UciError(f"'go {name}' must be positive")
        return Limits(
            wtime_ms=max(0, values["wtime"]) if "wtime" in values else None,
            btime_ms=max(0, values["btime"]) if "btime" in values else None,
            winc_ms=values.get("winc", 0),
            binc_ms=values.get("binc", 0),
            movetime_ms=values.get("movetime"),
            depth=values.get("depth"),
            nodes=values.get("nodes"),
            infinite=infinite,
            move_overhead_ms=self.move_overhead_ms,
            movestogo=values.get("movestogo"),
        )

    def _search(self, board: KnightmateBoard, limits: Limits, ponder: Ponder | None, multipv: int) -> None:
        try:
            result = self.engine.search(board, limits, stop=self._stop, on_info=lambda info: self._info(board, info),
                                        ponder=ponder, multipv=multipv)
            if limits.infinite:
                self._stop.wait()  # UCI: no bestmove before 'stop' in an infinite search
            self._info(board, result)
            self._bestmove(board, result.move, result.pv)
        except Exception:
            logger.exception("search failed")
            self.send("info string error: internal error in search")
            self._bestmove(board, next(iter(board.legal_moves), None), ())

    def _bestmove(self, board: KnightmateBoard, move: chess.Move | None, pv: tuple[chess.Move, ...]) -> None:
        line = f"bestmove {board.uci(move) if move else '(none)'}"
        if move is not None and len(pv) >= 2 and pv[0] == move:
            line += f" ponder {_uci_line(board, pv[:2])[1]}"
        with self._write_lock:
            self._idle.set()
            self._write_line(line)

    def _info(self, board: KnightmateBoard, info: SearchResult) -> None:
        if info.from_book:
            self.send(f"info string book move {board.uci(info.move) if info.move else '(none)'}")
            return
        nps = info.nodes * 1000 // max(1, info.time_ms)
        numbered = len(info.lines) > 0
        for number, line in enumerate(info.principal_lines(), start=1):
            score = f"mate {line.mate}" if line.mate is not None else f"cp {line.score_cp}"
            pv = " ".join(_uci_line(board, line.pv))
            self.send(f"info depth {line.depth}" + (f" multipv {number}" if numbered else "")
                      + f" score {score} nodes {info.nodes} nps {nps} time {info.time_ms}"
                      + (f" pv {pv}" if pv else ""))

    def close(self) -> None:
        """Ends the session: the search, then the engine's helper processes."""
        self.stop_search()
        self.engine.close()

    def stop_search(self) -> None:
        """Ends a running search; its ``bestmove`` line is written before this returns."""
        thread = self._thread
        if thread is not None:
            self._stop.set()
            thread.join()
            self._thread = None


def _uci_line(board: KnightmateBoard, moves: tuple[chess.Move, ...]) -> list[str]:
    """Moves in UCI notation with Knightmate letters (``m`` promotions)."""
    replay = board.copy(stack=False)
    texts = []
    for move in moves:
        texts.append(replay.uci(move))
        replay.push(move)
    return texts


@dataclass(frozen=True)
class UciOption:
    """One option of ``knightmate-bot uci``: what ``uci`` announces (python-chess's description of
    an option: name, type, default, bounds, choices) and what applies a value ``setoption`` parsed."""
    spec: chess.engine.Option
    apply: Callable[[UciSession, chess.engine.ConfigValue], None]


HASH = chess.engine.Option("Hash", "spin", 64, 1, 4096, [])
#: One process by default: a GUI that wants more says so, and one thread searches the same nodes every time.
THREADS = chess.engine.Option("Threads", "spin", 1, 1, max(1, min(os.cpu_count() or 1, MAX_THREADS)), [])
#: Declared before ``OwnBook``, so that the defaults, set in this order, read the book once.
BOOK_FILE = chess.engine.Option("Book File", "string", str(DEFAULT_BOOK), None, None, [])

#: The options, announced in this order; the one place each has its default and bounds. Written as
#: python-chess reads them back from the announcement (``var`` empty but for a combo).
OPTIONS = (
    UciOption(chess.engine.Option("UCI_Variant", "combo", "knightmate", None, None, ["knightmate"]), UciSession._keep),
    UciOption(HASH, UciSession._set_hash),
    UciOption(THREADS, UciSession._set_threads),
    # A GUI on the same machine has little lag; the online bot holds back its own overhead.
    UciOption(chess.engine.Option("Move Overhead", "spin", 30, 0, 5000, []), UciSession._set_move_overhead),
    UciOption(chess.engine.Option("Ponder", "check", False, None, None, []), UciSession._keep),
    UciOption(BOOK_FILE, UciSession._set_book_file),
    UciOption(chess.engine.Option("OwnBook", "check", True, None, None, []), UciSession._set_own_book),
    UciOption(chess.engine.Option("MultiPV", "spin", 1, 1, MAX_MULTIPV, []), UciSession._set_multipv),
    UciOption(chess.engine.Option("UCI_LimitStrength", "check", False, None, None, []), UciSession._set_limit_strength),
    UciOption(chess.engine.Option("UCI_Elo", "spin", DEFAULT_ELO, MIN_ELO, MAX_ELO, []), UciSession._set_elo),
    # Off until a timed SPRT accepts the network (bench/RESULTS.md).
    UciOption(chess.engine.Option("Use NNUE", "check", False, None, None, []), UciSession._set_nnue),
)
_BY_NAME = {option.spec.name.lower(): option for option in OPTIONS}


def _int_in_range(name: str, text: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise UciError(f"{name} must be an integer, got {text!r}") from None
    if not low <= value <= high:
        raise UciError(f"{name} must be between {low} and {high}, got {value}")
    return value


def announcement(spec: chess.engine.Option) -> str:
    """The ``option`` line ``uci`` sends for *spec*."""
    default = str(spec.default).lower() if spec.type == "check" else str(spec.default)
    line = f"option name {spec.name} type {spec.type} default {default}"
    if spec.type == "spin":
        line += f" min {spec.min} max {spec.max}"
    return line + "".join(f" var {choice}" for choice in spec.var or ())


def parse_value(spec: chess.engine.Option, text: str) -> chess.engine.ConfigValue:
    """A ``setoption`` value for *spec*, checked against its type, bounds and choices: a GUI's
    word is untrusted, so unlike python-chess's lenient :meth:`chess.engine.Option.parse` a check
    is ``true`` or ``false`` only, and a combo's choices match in any case."""
    if spec.type == "check":
        if text.lower() not in ("true", "false"):
            raise UciError(f"{spec.name} must be true or false, got {text!r}")
        return text.lower() == "true"
    if spec.type == "spin":
        assert spec.min is not None and spec.max is not None, "every spin option has bounds"
        return _int_in_range(spec.name, text, spec.min, spec.max)
    if spec.type == "combo":
        choices = {choice.lower(): choice for choice in spec.var or ()}
        if text.lower() not in choices:
            raise UciError(f"{spec.name} must be one of {', '.join(spec.var or ())}, got {text!r}")
        return choices[text.lower()]
    return text


def run(stdin: TextIO, stdout: TextIO) -> int:
    """Runs a UCI session until ``quit`` or the end of input; returns the exit code (0). When the
    GUI that reads the output has gone (a closed pipe, as when it dies), what is written later is
    dropped without a traceback on stderr, and the session ends at the next input line or the end
    of input (a GUI that dies closes both)."""
    output_closed = threading.Event()

    def write(line: str) -> None:
        if output_closed.is_set():
            return
        try:
            stdout.write(line + "\n")
            stdout.flush()
        except BrokenPipeError:
            logger.info("UCI output closed (the GUI has gone); the rest of the output is dropped")
            output_closed.set()
            _discard(stdout)

    if isinstance(stdin, io.TextIOWrapper):
        stdin.reconfigure(errors="replace")  # undecodable bytes become an unknown command, not a crash
    session = UciSession(write)
    try:
        for line in stdin:
            if not session.handle(line) or output_closed.is_set():
                break
    finally:
        session.close()
    return 0


def _discard(stream: TextIO) -> None:
    """Points *stream*'s file descriptor at the null device, so that the text still buffered
    there when the interpreter exits is dropped instead of failing a second time on the closed
    pipe. A stream without a descriptor (a test's buffer) is left as it is."""
    try:
        descriptor = stream.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)
