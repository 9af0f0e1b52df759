"""Drives one UCI engine process for the match runner.

It starts the engine, sets Knightmate and the user's options, sends positions and ``go`` with the
clocks, and times each answer from just before ``go`` is written to the moment the ``bestmove``
line was read. A reader thread stamps every line as it arrives, so the runner's own bookkeeping
is never charged to the engine. A pondering engine is sent ``go ponder`` after its move and
``ponderhit`` (timed from that line) or ``stop`` (its answer dropped) when the opponent has
moved. It never judges a move: legality and clocks belong to the runner and its referee. An engine
that dies or stops answering is reported, never waited on forever.
"""

from __future__ import annotations

import logging
import queue
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

VARIANT = "knightmate"
#: Debian's native Fairy-Stockfish, the engine the data, book and analysis tools consult (the
#: ladder's reference is the WebAssembly build, ``fairy_stockfish.sh``).
NATIVE_FAIRY_STOCKFISH = "/usr/games/fairy-stockfish"
#: How long an engine may take to start, to answer ``isready`` or to obey ``stop``.
HANDSHAKE_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0
QUIT_TIMEOUT_S = 3.0


class EngineError(Exception):
    """The engine died, or broke the protocol outside a timed move."""


@dataclass(frozen=True)
class Reply:
    """An engine's answer to ``go``: its move (None if it sent none in time), its thinking time, the
    lines it sent meanwhile (``info`` lines with depth, score and PV), and the reply it expects
    (``bestmove ... ponder <move>``), if it named one."""

    bestmove: str | None
    elapsed_s: float
    crashed: bool = False
    output: tuple[str, ...] = ()
    ponder: str | None = None


class UciPlayer:
    """One engine process, restarted by :meth:`new_game` after it died or was killed."""

    def __init__(self, name: str, command: Sequence[str], options: Mapping[str, str], ponder: bool = False) -> None:
        self.name = name
        self.command = list(command)
        self.options = dict(options)
        self.ponder = ponder
        """Whether the runner lets this engine think on its opponent's time."""
        self.engine_name = Path(self.command[0]).name if self.command else "?"
        """The engine's ``id name`` once started."""
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self._output_ended = threading.Event()

    # Process lifetime.

    def start(self) -> None:
        """Starts the engine, checks it can play Knightmate, and sets the user's options."""
        try:
            self._process = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
            )
        except OSError as error:
            raise EngineError(f"{self.name}: cannot start {' '.join(self.command)!r}: {error}") from error
        self._lines = queue.Queue()
        self._output_ended = threading.Event()
        threading.Thread(target=self._read, args=(self._process, self._lines, self._output_ended),
                         daemon=True).start()
        self.send("uci")
        handshake = self._wait_for("uciok", HANDSHAKE_TIMEOUT_S)
        for line in handshake:
            if line.startswith("id name "):
                self.engine_name = line[len("id name "):].strip()
        advertised = self._advertised_options(handshake)
        variants = advertised.get("uci_variant")
        if variants is None:
            logger.warning("%s does not offer UCI_Variant; assuming it plays Knightmate", self.name)
        elif VARIANT not in variants.split():
            raise EngineError(f"{self.name} does not know variant {VARIANT}")
        else:
            self.send(f"setoption name UCI_Variant value {VARIANT}")
        for option, value in self.options.items():
            if option.lower() not in advertised:
                raise EngineError(f"{self.name} has no option {option!r}")
            self.send(f"setoption name {option} value {value}")
        if self.ponder and "ponder" in advertised:
            self.send("setoption name Ponder value true")
        self.is_ready()

    def close(self) -> None:
        """Asks the engine to quit, and kills it if it does not."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.poll() is None and process.stdin is not None:
                process.stdin.write("quit\n")
                process.stdin.flush()
            process.wait(QUIT_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None and not self._output_ended.is_set()

    # Games and moves.

    def new_game(self) -> None:
        """Prepares a fresh game, restarting the engine first if it is gone."""
        if not self.alive:
            self.close()
            self.start()
        self.send("ucinewgame")
        self.is_ready()

    def is_ready(self) -> None:
        self.send("isready")
        self._wait_for("readyok", HANDSHAKE_TIMEOUT_S)

    def go(self, position: str, clocks: str, deadline_s: float) -> Reply:
        """Sends ``position`` and ``go`` and waits at most ``deadline_s`` for ``bestmove``.

        ``position`` and ``clocks`` are the arguments of the UCI commands. On a timeout the reply
        has no move; the caller decides what a late engine loses and then calls :meth:`recover`.
        """
        if not self._discard_stale_lines():
            return Reply(None, 0.0, crashed=True)
        try:
            self.send(f"position {position}")
            started = time.monotonic()
            self.send(f"go {clocks}")
        except EngineError:
            return Reply(None, 0.0, crashed=True)
        return self._await_bestmove(started, deadline_s)

    def start_pondering(self, position: str, clocks: str) -> None:
        """Sends ``position`` (the expected reply played) and ``go ponder``; returns at once. The
        caller follows with :meth:`ponderhit` or :meth:`stop_pondering`."""
        self._discard_stale_lines()
        try:
            self.send(f"position {position}")
            self.send(f"go ponder {clocks}")
        except EngineError:
            pass  # a dead engine shows as a crash at its next move

    def ponderhit(self, deadline_s: float) -> Reply:
        """The expected reply was played: sends ``ponderhit`` and waits for ``bestmove`` as :meth:`go`
        does, timed from this moment (the pondering itself is free)."""
        if not self._discard_stale_lines():
            return Reply(None, 0.0, crashed=True)
        try:
            started = time.monotonic()
            self.send("ponderhit")
        except EngineError:
            return Reply(None, 0.0, crashed=True)
        return self._await_bestmove(started, deadline_s)

    def stop_pondering(self) -> None:
        """Another reply was played, or the game is over: the ponder search is stopped, its move dropped."""
        self.recover()

    def _await_bestmove(self, started: float, deadline_s: float) -> Reply:
        output: list[str] = []
        while True:
            remaining = started + deadline_s - time.monotonic()
            try:
                stamp, line = self._lines.get(timeout=max(remaining, 0.0))
            except queue.Empty:
                return Reply(None, time.monotonic() - started, output=tuple(output))
            if line is None:
                return Reply(None, stamp - started, crashed=True, output=tuple(output))
            if line.startswith("bestmove"):
                fields = line.split()
                ponder = fields[3] if len(fields) > 3 and fields[2] == "ponder" else None
                return Reply(fields[1] if len(fields) > 1 else "", stamp - started, output=tuple(output),
                             ponder=ponder)
            output.append(line)

    def _discard_stale_lines(self) -> bool:
        """Drops output left from before this move (so an old bestmove is never taken for a new
        one); False if the engine's output has already ended."""
        while True:
            try:
                _, line = self._lines.get_nowait()
            except queue.Empty:
                return True
            if line is None:
                return False

    def recover(self) -> None:
        """After a timed-out ``go`` or to end pondering: stops the search, or kills an engine that
        will not stop."""
        if not self.alive:
            return
        try:
            self.send("stop")
            self._wait_for("bestmove", STOP_TIMEOUT_S)
        except EngineError:
            logger.warning("%s ignored stop; killing it", self.name)
            process, self._process = self._process, None
            if process is not None:
                process.kill()
                process.wait()

    # The pipe.

    def send(self, line: str) -> None:
        logger.debug("%s < %s", self.name, line)
        if self._process is None or self._process.stdin is None:
            raise EngineError(f"{self.name} is not running")
        try:
            self._process.stdin.write(line + "\n")
            self._process.stdin.flush()
        except OSError as error:
            raise EngineError(f"{self.name} closed its input: {error}") from error

    def _wait_for(self, keyword: str, timeout_s: float) -> list[str]:
        """Collects lines until one starts with ``keyword``; raises if it does not come in time."""
        deadline = time.monotonic() + timeout_s
        lines: list[str] = []
        while True:
            try:
                _, line = self._lines.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                raise EngineError(f"{self.name} did not send {keyword} within {timeout_s:g} s") from None
            if line is None:
                raise EngineError(f"{self.name} exited while we waited for {keyword}")
            lines.append(line)
            if line.split(maxsplit=1)[:1] == [keyword]:
                return lines

    def _read(self, process: subprocess.Popen[str], lines: queue.Queue[tuple[float, str | None]],
              ended: threading.Event) -> None:
        """Reader thread: queues each output line with the time it arrived, then None at the end."""
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.strip()
            logger.debug("%s > %s", self.name, line)
            lines.put((time.monotonic(), line))
        ended.set()
        lines.put((time.monotonic(), None))

    @staticmethod
    def _advertised_options(lines: list[str]) -> dict[str, str]:
        """Maps each ``option name`` (lower-cased, as UCI names ignore case) to the rest of its line."""
        options: dict[str, str] = {}
        for line in lines:
            if not line.startswith("option name "):
                continue
            name, _, rest = line[len("option name "):].partition(" type ")
            options[name.strip().lower()] = rest
        return options
