"""PGN files named on the command line, read into games: shared by ``analyse`` and ``stats``.

A directory stands for its ``*.pgn`` files. Each file must be UTF-8 text holding at least one game;
anything else raises :class:`PgnInputError` with one line naming the file, which each command shows
as its own error (exit 2). A game python-chess could not read whole keeps its problems in
``game.errors`` (logged by nobody): each command decides what it can do with such a game.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import chess.pgn


class PgnInputError(Exception):
    """A file or directory named that holds no readable games: one line for the user."""


class _CollectingBuilder(chess.pgn.GameBuilder):  # type: ignore[type-arg]
    """python-chess's game builder, keeping errors in ``game.errors`` without logging them."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def pgn_files(paths: Sequence[Path]) -> list[Path]:
    """The files named, with the ``*.pgn`` files of each directory named (sorted)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.glob("*.pgn"))
            if not found:
                raise PgnInputError(f"{path}: no .pgn files in this directory")
            files += found
        elif path.is_file():
            files.append(path)
        elif path.exists():
            raise PgnInputError(f"{path}: not a PGN file or a directory of them")
        else:
            raise PgnInputError(f"{path}: no such file or directory")
    return files


def read_games(path: Path) -> list[chess.pgn.Game]:
    """Every game of *path*, read as far as python-chess could (see ``game.errors``)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise PgnInputError(f"{path}: not a PGN file (not UTF-8 text)") from None
    except OSError as error:
        raise PgnInputError(f"{path}: {error.strerror or error}") from None
    games = []
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle, Visitor=_CollectingBuilder)) is not None:
        if not _empty(game):
            games.append(game)
    if not games:
        raise PgnInputError(f"{path}: not a PGN file (no game in it)")
    return games


def _empty(game: chess.pgn.Game) -> bool:
    """A "game" python-chess made of text that has no tags and no moves (or a stray result)."""
    return game.next() is None and not game.errors and all(
        value in ("?", "????.??.??", "*") for value in game.headers.values())
