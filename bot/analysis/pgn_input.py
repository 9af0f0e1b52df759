"""PGN text and files read as Knightmate games, each game's problem said in one sentence.

Every reader of games (``knightmate-bot analyse`` and ``puzzles``, the analysis board's paste)
reads them here, so a problem is worded one way everywhere: an illegal move is named by its move
number and SAN as a player writes it (``illegal move 2... Nf6``), never by python-chess's text
with a FEN. A game that cannot be used is the caller's to pass over (a bot's PGN folder holds
games aborted before any move, and they must not stop the others); only input that holds no game
at all, or cannot be read, raises :class:`PgnInputError`.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn

from variant import KnightmateBoard


class PgnInputError(Exception):
    """Input with no game in it, or that cannot be read: one line for the user."""


class PgnMoveError(ValueError):
    """A move of a PGN that cannot be played, with its move number: ``illegal move 2... Nf6``."""


@dataclass(frozen=True)
class FileGame:
    """A game of a PGN file: the file, its number in it (from 1) and the game."""

    path: Path
    number: int
    game: chess.pgn.Game

    @property
    def name(self) -> str:
        """``games/abc.pgn game 2``: how messages name it."""
        return f"{self.path} game {self.number}"


class _CollectingBuilder(chess.pgn.GameBuilder):  # type: ignore[type-arg]
    """python-chess's game builder, keeping errors in ``game.errors`` without logging them, a
    move's error as a :class:`PgnMoveError` that names its move number; a game without a
    ``Variant`` tag is *default_variant* where one is given."""

    def __init__(self, default_variant: str | None = None) -> None:
        super().__init__()
        self._default_variant = default_variant
        #: Whether the game's Variant tag is the default, not the text's.
        self.assumed_variant = False

    def end_headers(self) -> None:
        # python-chess makes the game's board from its headers after this, so the tag decides it.
        if self._default_variant is not None and "Variant" not in self.game.headers:
            self.game.headers["Variant"] = self._default_variant
            self.assumed_variant = True

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        try:
            return super().parse_san(board, san)
        except ValueError as error:
            kind = "ambiguous" if isinstance(error, chess.AmbiguousMoveError) else "illegal"
            raise PgnMoveError(f"{kind} move {move_number(board)} {san}") from error

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def move_number(board: chess.Board) -> str:
    """The number a player writes before the move to be made in *board*: ``12.`` or ``12...``."""
    return f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '...'}"


def read_games(text: str, *, default_variant: str | None = None) -> list[chess.pgn.Game]:
    """The games of PGN *text*, in order, with their errors in ``game.errors`` (see
    :func:`game_problem`); text between games that holds no tag and no move is not a game. A game
    that names no variant is *default_variant* if given (each game of a paste on a Knightmate
    page), else standard chess as PGN has it."""
    handle = io.StringIO(text)
    games = []
    builders: list[_CollectingBuilder] = []

    def builder() -> _CollectingBuilder:
        builders.append(_CollectingBuilder(default_variant))
        return builders[-1]

    while (game := chess.pgn.read_game(handle, Visitor=builder)) is not None:
        if not _empty(game, told=[key for key in game.headers if key != "Variant" or not builders[-1].assumed_variant]):
            games.append(game)
    return games


def _empty(game: chess.pgn.Game, told: list[str]) -> bool:
    """A "game" python-chess made of text that has no moves (or a stray result) and no tag among
    those *told* by the text (not assumed by the reader) but the defaults."""
    return game.next() is None and not game.errors and all(
        game.headers[key] in ("?", "????.??.??", "*") for key in told)


def read_error(game: chess.pgn.Game) -> str | None:
    """Why *game*'s moves or start position could not be read (``illegal move 2. Qg5``), or None."""
    if not game.errors:
        return None
    error = game.errors[0]
    if isinstance(error, PgnMoveError):
        return str(error)
    return f"bad starting position: {str(error).splitlines()[0][:200]}"


def game_problem(game: chess.pgn.Game) -> str | None:
    """Why *game* cannot be analysed or mined, to follow its name and a colon (``not Knightmate
    (Variant Standard)``, ``illegal move 2. Qg5``, ``no moves``), or None."""
    variant = game.headers.get("Variant")
    if variant is None or variant.lower() != "knightmate":
        return f"not Knightmate ({f'Variant {variant}' if variant else 'no Variant tag: standard chess'})"
    error = read_error(game)
    if error is not None:
        return error
    if not isinstance(game.board(), KnightmateBoard):
        return "not Knightmate"
    if game.next() is None:
        return "no moves"
    return None


def pgn_files(paths: Sequence[Path]) -> list[Path]:
    """The files named, with the ``*.pgn`` files of each directory named (sorted).

    :raises: :exc:`PgnInputError` for a path that does not exist or a directory without PGN.
    """
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


def read_file(path: Path) -> list[FileGame]:
    """The games of the PGN file *path*, numbered, problems and all (see :func:`game_problem`).

    :raises: :exc:`PgnInputError` for a file that cannot be read or holds no game.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise PgnInputError(f"{path}: not a PGN file (not UTF-8 text)") from None
    except OSError as error:
        raise PgnInputError(f"{path}: {error.strerror or error}") from None
    games = read_games(text)
    if not games:
        raise PgnInputError(f"{path}: not a PGN file (no game in it)")
    return [FileGame(path, number, game) for number, game in enumerate(games, start=1)]
