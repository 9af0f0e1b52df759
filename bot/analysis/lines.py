"""The engine an analysis runs on, and one position analysed by it.

Any UCI engine that plays Knightmate will do: the built-in one (``knightmate-bot uci`` in a child
process, :data:`BUILTIN_COMMAND`) or the operator's (Fairy-Stockfish, as ``engine.command`` names
it), driven through python-chess's :mod:`chess.engine` and told about Knightmate as
:mod:`bot.engine.external` says.
"""

from __future__ import annotations

import shlex
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine

from bot.analysis.judgement import BUILTIN_CURVE, LICHESS_CURVE, WinningChancesCurve
from bot.engine.external import engine_board_of, knightmate_refusal
from bot.own_command import OWN_COMMAND
from variant import KnightmateBoard

#: The built-in engine, as a UCI process of this very Python: the installed build, whatever the
#: working folder (see :mod:`bot.own_command`).
BUILTIN_COMMAND: tuple[str, ...] = (*OWN_COMMAND, "uci")
#: How often a running analysis looks at its stop event, in seconds.
STOP_CHECK_S = 0.05
#: The options that weaken an engine (Stockfish's and Fairy-Stockfish's spelling): an analysis
#: wants the engine at its full strength, and the computer's levels set their own.
STRENGTH_OPTIONS = frozenset({"UCI_LimitStrength", "UCI_Elo", "Skill Level"})


class AnalysisEngineError(Exception):
    """The engine did not start, does not speak UCI, does not play Knightmate, or refused an option
    (one line, fit for the command line)."""


class AnalysisStopped(Exception):
    """The analysis was stopped by its stop event before it was complete."""


@dataclass(frozen=True)
class EngineCommand:
    """A UCI engine to start: its command line (None: the built-in engine) and its options, as the
    config's ``engine.command`` and ``engine.options`` give them, and the slope of its curve from
    centipawns to winning chances when it is set by hand (None: the engine's own, :attr:`curve`)."""

    argv: tuple[str, ...] | None = None
    options: Mapping[str, chess.engine.ConfigValue] = field(default_factory=dict)
    slope: float | None = None

    @property
    def name(self) -> str:
        """What a PGN's annotator or a message calls it: ``the built-in engine`` or the program's name."""
        return "the built-in engine" if not self.argv else Path(self.argv[0]).name

    @property
    def curve(self) -> WinningChancesCurve:
        """The curve that turns this engine's centipawns into winning chances: the slope set by
        hand, else the built-in engine's fitted one, else Lichess's (an external engine is taken
        to count centipawns as Stockfish does, as Fairy-Stockfish does)."""
        if self.slope is not None:
            return WinningChancesCurve(self.slope)
        return BUILTIN_CURVE if not self.argv else LICHESS_CURVE

    def at_full_strength(self) -> EngineCommand:
        """The same engine without the options of :data:`STRENGTH_OPTIONS`."""
        options = {name: value for name, value in self.options.items() if name not in STRENGTH_OPTIONS}
        return EngineCommand(self.argv, options, self.slope)

    def open(self, timeout_s: float = 20.0) -> chess.engine.SimpleEngine:
        """:func:`open_engine` for this command and its options."""
        return open_engine(self.argv, self.options, timeout_s)


@dataclass(frozen=True)
class Line:
    """One line the engine found: its score (either side's view, python-chess's :class:`PovScore`)
    and its moves."""

    score: chess.engine.PovScore
    pv: tuple[chess.Move, ...]

    @property
    def move(self) -> chess.Move:
        return self.pv[0]


@dataclass(frozen=True)
class PositionAnalysis:
    """What the engine found in one position: its lines, best first, and how deep it looked.

    A position where the game is over has no lines, depth 0, and the score the rules give it
    (mated, or a draw).
    """

    score: chess.engine.PovScore
    lines: tuple[Line, ...]
    depth: int
    #: The nodes searched so far, as the engine last said (0 when it did not say).
    nodes: int = 0

    @property
    def best(self) -> Line | None:
        return self.lines[0] if self.lines else None


def open_engine(command: Sequence[str] | None = None, options: Mapping[str, chess.engine.ConfigValue] | None = None,
                timeout_s: float = 20.0) -> chess.engine.SimpleEngine:
    """Starts the engine *command* (None: the built-in engine) with *options*, ready for Knightmate.

    An opening book would answer known positions without a score, so an engine's ``OwnBook`` is
    turned off. Raises :class:`AnalysisEngineError`; the caller closes the engine (``quit``).
    """
    argv = list(command) if command else list(BUILTIN_COMMAND)
    name = shlex.join(argv)
    try:
        engine = chess.engine.SimpleEngine.popen_uci(argv, timeout=timeout_s, setpgrp=True)
    except OSError as error:
        raise AnalysisEngineError(f"cannot start {name}: {error.strerror or error}") from None
    except (chess.engine.EngineError, TimeoutError):
        raise AnalysisEngineError(f"{name} did not answer 'uci' within {timeout_s:g} s; is it a UCI engine?") from None
    try:
        refusal = knightmate_refusal(name, engine.options)
        if refusal is not None:
            raise AnalysisEngineError(refusal)
        settings = dict(options or {})
        if "OwnBook" in engine.options:
            settings.setdefault("OwnBook", False)
        engine.configure(settings)
        engine.ping()
    except chess.engine.EngineError as error:
        engine.close()
        raise AnalysisEngineError(f"{name}: {error}") from None
    except BaseException:
        engine.close()
        raise
    return engine


def engine_name(engine: chess.engine.SimpleEngine) -> str:
    """What the engine calls itself (UCI's ``id name``): for the built-in one its version and build,
    ``knightmate-bot 0.1.0 (compiled)``, so a user sees which build answers and why it is slow if it is
    the pure one."""
    return engine.id.get("name") or "an engine with no name"


def close_engine(engine: chess.engine.SimpleEngine) -> None:
    """Quits *engine*, and kills it if it no longer answers (it crashed, or hangs)."""
    try:
        engine.quit()
    except (TimeoutError, chess.engine.EngineError):
        engine.close()


def analyse_position(engine: chess.engine.SimpleEngine, board: KnightmateBoard, limit: chess.engine.Limit, *,
                     multipv: int = 1, on_info: Callable[[PositionAnalysis], None] | None = None,
                     stop: threading.Event | None = None, game: object = None) -> PositionAnalysis:
    """The engine's *multipv* best lines in *board* within *limit*.

    *on_info* gets the lines after each ``info`` line that completes a set: the line numbered as
    the last one wanted (*multipv*, or the number of legal moves if fewer), with which an engine
    ends its report of an iteration; so one call an iteration, all lines there. Setting *stop*
    ends the search and raises :class:`AnalysisStopped`. A position where the game is over is
    answered by the rules, without the engine. A *game* other than the previous search's tells
    the engine a new game starts (python-chess sends ``ucinewgame``, which clears its hash
    table), so that what it says of this position does not depend on what it searched before.
    """
    if board.is_game_over():
        return final_position(board)
    last_line = min(multipv, board.legal_moves.count())
    with engine.analysis(engine_board_of(board), limit, multipv=multipv if multipv > 1 else None,
                         game=game) as analysis:
        watcher = _StopWatcher(stop, analysis)
        # The lines as of each info read (``analysis.multipv`` is already as of the engine's latest).
        lines: dict[int, chess.engine.InfoDict] = {}
        try:
            for info in analysis:
                if "pv" not in info or "score" not in info:
                    continue
                lines[info.get("multipv", 1)] = info
                if on_info is not None and info.get("multipv", 1) == last_line:
                    on_info(_position([lines[number] for number in sorted(lines)], board))
        finally:
            watcher.finish()
        if watcher.stopped:
            raise AnalysisStopped
        return _position(analysis.multipv, board)


def final_position(board: KnightmateBoard) -> PositionAnalysis:
    """A position where the game is over, scored by the rules: the side to move mated, or a draw."""
    mated = board.is_checkmate()
    score = chess.engine.Mate(-0) if mated else chess.engine.Cp(0)
    return PositionAnalysis(chess.engine.PovScore(score, board.turn), (), 0)


def _position(infos: list[chess.engine.InfoDict], board: KnightmateBoard) -> PositionAnalysis:
    lines = tuple(Line(info["score"], tuple(info["pv"])) for info in infos if "score" in info and info.get("pv"))
    if not lines:
        raise AnalysisEngineError(f"the engine gave no line for {board.fen()}")
    return PositionAnalysis(lines[0].score, lines, min(info.get("depth", 0) for info in infos if info.get("pv")),
                            max(info.get("nodes", 0) for info in infos))


class _StopWatcher:
    """Stops *analysis* once *stop* is set, from a thread of its own (an engine deep in an
    iteration sends no ``info`` for a while, and the analysis must stop promptly)."""

    def __init__(self, stop: threading.Event | None, analysis: chess.engine.SimpleAnalysisResult) -> None:
        self.stopped = False
        self._stop = stop
        self._analysis = analysis
        self._finished = threading.Event()
        self._thread: threading.Thread | None = None
        if stop is not None:
            self._thread = threading.Thread(target=self._watch, name="analysis-stop", daemon=True)
            self._thread.start()

    def _watch(self) -> None:
        assert self._stop is not None
        while not self._finished.is_set():
            if self._stop.wait(STOP_CHECK_S):
                self.stopped = True
                self._analysis.stop()
                return

    def finish(self) -> None:
        self._finished.set()
        if self._thread is not None:
            self._thread.join()
        if self._stop is not None and self._stop.is_set():
            self.stopped = True
