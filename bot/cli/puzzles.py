"""``knightmate-bot puzzles``: puzzles mined from PGN games, written as Lichess's puzzle CSV.

The games are read as ``analyse`` reads them (:mod:`bot.cli.game_files`): a game that cannot be
used is named on standard error and passed over. Each game is mined by
:func:`bot.analysis.puzzle_mining.mine_game` with the built-in engine or ``--engine``; with
``--check-with``, a second engine must agree with every solver move
(:func:`~bot.analysis.puzzle_mining.confirmed_by`), as the starter set is checked by Fairy-Stockfish.
The CSV is written once every game is mined, or at Ctrl-C with the games mined so far (the same
puzzle found twice is written once); a progress bar shows on a terminal, and one summary line
ends the run.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from bot.analysis import EngineCommand, close_engine, engine_name
from bot.analysis.puzzle_csv import write_puzzles
from bot.analysis.puzzle_mining import MiningLimits, Puzzle, confirmed_by, mine_game
from bot.cli.exit_codes import EXIT_ALL_DONE, EXIT_SOME_PASSED_OVER
from bot.cli.game_files import advance, positions_bar, usable_games
from variant import KnightmateBoard

COMMAND = "knightmate-bot puzzles"


class PuzzlesError(Exception):
    """Bad input or output: one line for the user, exit 2."""


def run(paths: Sequence[Path], limits: MiningLimits, engine_command: Sequence[str] | None,
        check_command: Sequence[str] | None, out: Path | None, stdout: TextIO, stderr: TextIO) -> int:
    """Mines the games of *paths* and writes their puzzles to *out* (or *stdout*); the exit code
    (:data:`EXIT_SOME_PASSED_OVER` when a game was passed over)."""
    if out is not None and not out.parent.is_dir():
        raise PuzzlesError(f"{out}: no directory {out.parent} to write it in")
    started = time.monotonic()
    games, passed_over = usable_games(paths, stderr, COMMAND)
    puzzles: dict[str, Puzzle] = {}
    rejected = 0
    if games:
        mining = EngineCommand(tuple(engine_command) if engine_command else None)
        checking = EngineCommand(tuple(check_command)) if check_command else None
        engine = mining.open()
        checker = checking.open() if checking is not None else None
        try:
            with positions_bar(games, stderr) as bar:
                for item in games:
                    start = item.game.board()
                    assert isinstance(start, KnightmateBoard)
                    found = mine_game(engine, start, list(item.game.mainline_moves()), limits, curve=mining.curve,
                                      game_url=_game_url(item.game.headers.get("Site", "")),
                                      on_progress=functools.partial(advance, bar))
                    for puzzle in found:
                        if (checker is not None and checking is not None
                                and confirmed_by(checker, puzzle, limits.check, curve=checking.curve) is not None):
                            rejected += 1
                        else:
                            puzzles.setdefault(puzzle.puzzle_id, puzzle)
            names = engine_name(engine) + (f", checked by {engine_name(checker)}" if checker is not None else "")
        except KeyboardInterrupt:
            _write(out, stdout, list(puzzles.values()))  # the games mined so far are not lost
            raise
        finally:
            close_engine(engine)
            if checker is not None:
                close_engine(checker)
    else:
        names = "no engine"
    _write(out, stdout, list(puzzles.values()))
    checked = f", {rejected} rejected by the check" if check_command else ""
    print(f"{COMMAND}: {len(puzzles)} puzzle{'s' if len(puzzles) != 1 else ''} from {len(games)} "
          f"game{'s' if len(games) != 1 else ''} ({passed_over} passed over{checked}; {names}; "
          f"{time.monotonic() - started:.0f} s){f' written to {out}' if out is not None else ''}", file=stderr)
    return EXIT_SOME_PASSED_OVER if passed_over else EXIT_ALL_DONE


def _game_url(site: str) -> str:
    """The game's address for the CSV, when its ``Site`` tag is one (a bot's games on Lichess or
    pychess are), else empty."""
    return site if site.startswith(("https://", "http://")) else ""


def _write(out: Path | None, stdout: TextIO, puzzles: list[Puzzle]) -> None:
    if out is None:
        write_puzzles(stdout, puzzles)
        return
    try:
        with out.open("w", encoding="utf-8", newline="") as handle:
            write_puzzles(handle, puzzles)
    except OSError as error:
        raise PuzzlesError(f"{out}: cannot write it: {error.strerror or error}") from None
