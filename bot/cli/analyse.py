"""``knightmate-bot analyse``: games from PGN files analysed by an engine and written back annotated.

Every input is read and checked before the engine starts, so a bad file costs no analysis: a
path that is missing or a file that is not PGN is one line and exit 2, as is an engine that does
not start. A game that cannot be analysed (another variant, an illegal move named with its move
number, no moves at all: a bot writes a PGN for a game aborted before any move) is named on
standard error and passed over, and the others are analysed; the exit code then says so (1, not
0). Each game is analysed position by position (:func:`bot.analysis.analyse_game`) and written as
soon as it is done: to standard output, to one file, or, when the output is a directory, to a file
of the input's name in it. The engine's name (for the built-in engine, its build) and a summary line
per game go to standard error, and a progress bar too when that is a terminal.
"""

from __future__ import annotations

import functools
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import chess.engine

from bot.analysis import EngineCommand, analyse_game, analyst, annotated, engine_name
from bot.cli.exit_codes import EXIT_ALL_DONE, EXIT_SOME_PASSED_OVER
from bot.cli.game_files import advance, positions_bar, usable_games
from variant import KnightmateBoard


class AnalyseError(Exception):
    """Bad input: one line for the user, exit 2."""


def run(paths: Sequence[Path], limit: chess.engine.Limit, engine_command: Sequence[str] | None,
        out: str | None, stdout: TextIO, stderr: TextIO, *, slope: float | None = None) -> int:
    """Analyses the games of *paths* and writes them annotated (see the module docstring): to
    *out*, a directory if it is one or ends with a slash, else a file; to *stdout* without it. The
    moves are judged on the engine's curve, or on one of *slope* if given. The exit code:
    :data:`EXIT_SOME_PASSED_OVER` when a game was passed over, else :data:`EXIT_ALL_DONE`."""
    games, passed_over = usable_games(paths, stderr, "knightmate-bot analyse")
    output = _Output(out, stdout)
    if not games:
        return EXIT_SOME_PASSED_OVER
    engine_to_open = EngineCommand(tuple(engine_command) if engine_command else None, slope=slope)
    annotator = analyst(engine_to_open, limit)
    engine = engine_to_open.open()
    try:
        print(f"knightmate-bot analyse: {engine_name(engine)} analyses {len(games)} "
              f"game{'s' if len(games) != 1 else ''}", file=stderr)
        with positions_bar(games, stderr) as bar:
            for item in games:
                game = item.game
                started = time.monotonic()
                moves = list(game.mainline_moves())
                board = game.board()
                assert isinstance(board, KnightmateBoard)
                analysis = analyse_game(engine, board, moves, limit, on_progress=functools.partial(advance, bar),
                                        curve=engine_to_open.curve)
                output.add(item.path, str(annotated(game, analysis, annotator)) + "\n\n")
                bar.write(f"{item.path.name} game {item.number}: {game.headers.get('White', '?')} - "
                          f"{game.headers.get('Black', '?')} {game.headers.get('Result', '*')}: "
                          f"White {analysis.white.describe()}; Black {analysis.black.describe()} "
                          f"({len(moves)} plies, {time.monotonic() - started:.1f} s)", file=stderr)
    finally:
        engine.quit()
    return EXIT_SOME_PASSED_OVER if passed_over else EXIT_ALL_DONE


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


def _write_atomically(path: Path, text: str) -> None:
    """Writes *text* to *path* through a temporary file beside it: never half a file, even over the input."""
    try:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.",
                                         delete=False) as handle:
            handle.write(text)
        os.replace(handle.name, path)
    except OSError as error:
        raise AnalyseError(f"{path}: cannot write it: {error.strerror or error}") from None
