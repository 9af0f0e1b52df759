"""``knightmate-bot analyse``: games from PGN files analysed by an engine and written back annotated.

Every input is read and checked before the engine starts, so a bad file costs no analysis: a
file that is not PGN, a game of another variant, or an illegal move (named with its move number)
is one line and exit 2, as is an engine that does not start. Then each game is analysed position
by position (:func:`bot.analysis.analyse_game`) and written as soon as it is done: to standard
output, to one file, or, when the output is a directory, to a file of the input's name in it. A
summary line per game goes to standard error, and a progress bar too when that is a terminal.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import chess
import chess.engine
import chess.pgn
from tqdm import tqdm

from bot.analysis import EngineCommand, analyse_game, analyst, annotated
from bot.cli.pgn_input import PgnInputError, pgn_files, read_games
from variant import KnightmateBoard


class AnalyseError(Exception):
    """Bad input: one line for the user, exit 2."""


@dataclass(frozen=True)
class Source:
    """One input file and its games, checked."""

    path: Path
    games: tuple[chess.pgn.Game, ...]


def read_source(path: Path) -> Source:
    """The Knightmate games of *path*, each checked; raises :class:`AnalyseError` naming the problem."""
    try:
        found = read_games(path)
    except PgnInputError as error:
        raise AnalyseError(str(error)) from None
    for number, game in enumerate(found, start=1):
        _check(path, number, game)
    return Source(path, tuple(found))


def _check(path: Path, number: int, game: chess.pgn.Game) -> None:
    where = f"{path}: game {number}"
    variant = game.headers.get("Variant")
    if variant is None or variant.lower() != "knightmate":
        raise AnalyseError(f"{where} is {variant or 'standard chess (no Variant tag)'}, not Knightmate")
    try:
        board = game.board()
    except ValueError as error:
        raise AnalyseError(f"{where}: bad starting position: {error}") from None
    if not isinstance(board, KnightmateBoard):
        raise AnalyseError(f"{where} is not a Knightmate game")
    if game.errors:
        end = game.end().board()
        number_text = f"{end.fullmove_number}{'.' if end.turn == chess.WHITE else '...'}"
        raise AnalyseError(f"{where}: illegal move {number_text} {_move_text(game.errors[0])}")
    if game.next() is None:
        raise AnalyseError(f"{where} has no moves to analyse")


def _move_text(error: Exception) -> str:
    """The move python-chess could not play, from its message (``illegal san: 'Qxh7' in ...``)."""
    quoted = re.search(r"'([^']*)'", str(error))
    return quoted.group(1) if quoted else str(error)


def run(paths: Sequence[Path], limit: chess.engine.Limit, engine_command: Sequence[str] | None,
        out: str | None, stdout: TextIO, stderr: TextIO, *, slope: float | None = None) -> int:
    """Analyses the games of *paths* and writes them annotated (see the module docstring): to
    *out*, a directory if it is one or ends with a slash, else a file; to *stdout* without it. The
    moves are judged on the engine's curve, or on one of *slope* if given."""
    try:
        files = pgn_files(paths)
    except PgnInputError as error:
        raise AnalyseError(str(error)) from None
    sources = [read_source(path) for path in files]
    output = _Output(out, stdout)
    engine_to_open = EngineCommand(tuple(engine_command) if engine_command else None, slope=slope)
    annotator = analyst(engine_to_open, limit)
    total = sum(len(list(game.mainline_moves())) + 1 for source in sources for game in source.games)
    engine = engine_to_open.open()
    try:
        with tqdm(total=total, unit="position", file=stderr, disable=not stderr.isatty(), leave=False) as bar:
            for source in sources:
                for number, game in enumerate(source.games, start=1):
                    started = time.monotonic()
                    moves = list(game.mainline_moves())
                    board = game.board()
                    assert isinstance(board, KnightmateBoard)
                    analysis = analyse_game(engine, board, moves, limit, on_progress=lambda *_: _advance(bar),
                                            curve=engine_to_open.curve)
                    output.add(source.path, str(annotated(game, analysis, annotator)) + "\n\n")
                    bar.write(f"{source.path.name} game {number}: {game.headers.get('White', '?')} - "
                              f"{game.headers.get('Black', '?')} {game.headers.get('Result', '*')}: "
                              f"White {analysis.white.describe()}; Black {analysis.black.describe()} "
                              f"({len(moves)} plies, {time.monotonic() - started:.1f} s)", file=stderr)
    finally:
        engine.quit()
    return 0


class _Output:
    """Where the annotated games go, each as soon as it is analysed, so an interruption loses only
    the game in progress: standard output, one file (rewritten whole), or a directory holding a
    file of each input's name."""

    def __init__(self, out: str | None, stdout: TextIO) -> None:
        self._stdout = stdout
        self._path = Path(out) if out is not None else None
        self._directory = out is not None and (out.endswith(("/", os.sep)) or Path(out).is_dir())
        self._texts: dict[Path, str] = {}
        if self._path is None:
            return
        if self._directory:
            try:
                self._path.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise AnalyseError(f"{out}: {error.strerror or error}") from None
        elif not self._path.parent.is_dir():
            raise AnalyseError(f"{out}: no directory {self._path.parent} to write it in")

    def add(self, source: Path, text: str) -> None:
        if self._path is None:
            self._stdout.write(text)
            self._stdout.flush()
            return
        target = self._path / source.name if self._directory else self._path
        self._texts[target] = self._texts.get(target, "") + text
        _write_atomically(target, self._texts[target])


def _advance(bar: tqdm) -> None:  # type: ignore[type-arg]
    bar.update()


def _write_atomically(path: Path, text: str) -> None:
    """Writes *text* to *path* through a temporary file beside it: never half a file, even over the input."""
    try:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.",
                                         delete=False) as handle:
            handle.write(text)
        os.replace(handle.name, path)
    except OSError as error:
        raise AnalyseError(f"{path}: cannot write it: {error.strerror or error}") from None
