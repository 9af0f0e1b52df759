"""The games a command reads from PGN files and directories: the usable ones, the others named and
passed over, as ``analyse`` and ``puzzles`` both take them.

A folder of a real bot's PGNs holds games aborted before any move (the bot writes a PGN for each),
and a person's folder may hold games of other variants: one such game must not stop the others.
The exit codes (:mod:`bot.cli.exit_codes`) say whether any was passed over; a path that is missing or a file that is not
PGN stops the command before any work (:exc:`~bot.analysis.pgn_input.PgnInputError`, exit 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from bot.analysis.pgn_input import FileGame, game_problem, pgn_files, read_file


def usable_games(paths: Sequence[Path], stderr: TextIO, command: str) -> tuple[list[FileGame], int]:
    """The games of *paths* that can be used, and how many were passed over, each of those named
    on *stderr* after *command* (``knightmate-bot analyse``) with its problem.

    :raises: :exc:`~bot.analysis.pgn_input.PgnInputError` for a path that is missing, unreadable or
        holds no game.
    """
    games = [game for path in pgn_files(paths) for game in read_file(path)]
    usable = []
    for game in games:
        problem = game_problem(game.game)
        if problem is None:
            usable.append(game)
        else:
            print(f"{command}: {game.name}: {problem}; passed over", file=stderr)
    return usable, len(games) - len(usable)


def positions_bar(games: Sequence[FileGame], stderr: TextIO) -> tqdm:  # type: ignore[type-arg]
    """A progress bar over every position of *games* (the start and one after each move), on
    *stderr* when it is a terminal, and nowhere otherwise."""
    total = sum(len(list(item.game.mainline_moves())) + 1 for item in games)
    return tqdm(total=total, unit="position", file=stderr, disable=not stderr.isatty(), leave=False)


def advance(bar: tqdm, *_: int) -> None:  # type: ignore[type-arg]
    """One position more on *bar*; takes and ignores the done and total counts of an ``on_progress``."""
    bar.update()
