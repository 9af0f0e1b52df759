"""The page's puzzles: Lichess puzzle CSVs read, each puzzle checked, and served as positions with
their legal moves.

The set is the starter set the package ships (``bot/analysis/data/puzzles.csv``, when it is there)
and every CSV the config's ``game.puzzle_files`` names, in Lichess's columns (``PuzzleId,FEN,Moves,
Rating,RatingDeviation,...``): the FEN is the position before the opponent's move, ``Moves`` that move
and then the solution in UCI. Each line is played through :class:`variant.KnightmateBoard` once,
when the set is read: a line that is no Knightmate puzzle (an illegal move, a bad FEN, a rating
that is no number) is left out with a warning in the log, never served; a file that is no puzzle
CSV at all, or holds no usable line, is one :exc:`PuzzleFileError` naming it, for ``play`` to stop
on at start. The page knows no rules, so a puzzle goes to it as every position of its line with
the legal moves where the person is to move, and the moves that solve each of them. Nothing here
speaks HTTP.
"""

from __future__ import annotations

import csv
import io
import logging
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import chess

from bot.sandbox.human import check_square, legal_moves_json
from bot.sandbox.imitations import JsonObject
from bot.sandbox.world import ApiError
from variant import KnightmateBoard, describe_status

logger = logging.getLogger(__name__)

#: Lichess's columns, in its order; a file may have more after them.
COLUMNS = ("PuzzleId", "FEN", "Moves", "Rating", "RatingDeviation", "Popularity", "NbPlays", "Themes", "GameUrl",
           "OpeningTags")
#: The starter set the package ships, as a resource of ``bot.analysis`` (made by ``knightmate-bot puzzles``).
SHIPPED_SET = ("bot.analysis", ("data", "puzzles.csv"))
#: A puzzle id goes into the page's URLs: letters, digits, ``_`` and ``-`` only (Lichess's are 5 letters).
PUZZLE_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
#: The most puzzles one list answer holds (the closest to the person's rating are picked from them).
MAX_LISTED = 500


class PuzzleFileError(ValueError):
    """A puzzle file that cannot be used at all: one line naming it."""


@dataclass(frozen=True)
class CheckedPuzzle:
    """One line of a puzzle CSV, played through on a :class:`~variant.KnightmateBoard`: the
    position before the opponent's move, that move and the solution (UCI), the puzzle's Glicko
    rating and deviation, and its themes."""

    puzzle_id: str
    fen: str
    moves: tuple[str, ...]
    rating: int
    rating_deviation: int
    themes: tuple[str, ...]
    game_url: str

    def summary_json(self) -> JsonObject:
        """The puzzle as the page's list shows it."""
        return {"id": self.puzzle_id, "rating": self.rating, "ratingDeviation": self.rating_deviation,
                "themes": list(self.themes)}


def checked_puzzle(fields: Mapping[str, str]) -> CheckedPuzzle:
    """The puzzle of one CSV line (its fields by column name).

    :raises: :exc:`ValueError` with the reason it is no Knightmate puzzle.
    """
    puzzle_id = fields["PuzzleId"].strip()
    if not PUZZLE_ID.fullmatch(puzzle_id):
        raise ValueError(f"the id {puzzle_id[:50]!r} is not 1-40 letters, digits, _ or -")
    try:
        rating, deviation = int(fields["Rating"]), int(fields["RatingDeviation"])
    except ValueError:
        raise ValueError("Rating and RatingDeviation must be whole numbers") from None
    moves = tuple(fields["Moves"].split())
    if len(moves) < 2 or len(moves) % 2:
        raise ValueError(f"{len(moves)} moves: a puzzle is the opponent's move, then the solution ending on "
                         "the solver's move")
    board = KnightmateBoard(fields["FEN"])  # ValueError for a bad FEN
    if board.status() != chess.STATUS_VALID:
        raise ValueError(f"not a Knightmate position: {describe_status(board.status())}")
    for uci in moves:
        board.push(board.parse_uci(uci))  # ValueError for an illegal move
    return CheckedPuzzle(puzzle_id, fields["FEN"].strip(), moves, rating, deviation,
                         tuple(fields["Themes"].split()), fields["GameUrl"].strip())


def read_puzzle_csv(text: str, source: str) -> list[CheckedPuzzle]:
    """The usable puzzles of the CSV *text* (read from *source*, which the warnings name); every
    other line is left out with a warning.

    :raises: :exc:`PuzzleFileError` when *text* is no puzzle CSV, or holds no usable puzzle.
    """
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None or tuple(column.strip() for column in header[:len(COLUMNS)]) != COLUMNS:
        raise PuzzleFileError(f"{source}: not a Lichess puzzle CSV: its first line must be {','.join(COLUMNS)}")
    puzzles, skipped = [], 0
    for number, row in enumerate(reader, start=2):
        if not row:
            continue
        try:
            if len(row) < len(COLUMNS):
                raise ValueError(f"{len(row)} columns, not {len(COLUMNS)}")
            puzzles.append(checked_puzzle(dict(zip(COLUMNS, row, strict=False))))
        except ValueError as error:
            skipped += 1
            logger.warning("%s line %d is left out: %s", source, number, str(error).splitlines()[0][:200])
    if not puzzles:
        left_out = f"{skipped} line{'' if skipped == 1 else 's'} left out, as the log says"
        raise PuzzleFileError(f"{source}: holds no usable puzzle ({left_out})")
    return puzzles


def load_puzzle_set(paths: Sequence[str], *, shipped: bool = True) -> PuzzleSet:
    """The shipped starter set (unless *shipped* is False: a set of *paths* alone), if the package
    has one (left out with an error in the log if it cannot be used), and the puzzles of each file
    in *paths*.

    :raises: :exc:`PuzzleFileError` for a file of *paths* that cannot be read or used.
    """
    package, parts = SHIPPED_SET
    starter = resources.files(package).joinpath(*parts)
    puzzles = []
    if shipped and starter.is_file():
        try:
            puzzles = read_puzzle_csv(starter.read_text(encoding="utf-8-sig"), "the shipped puzzle set")
        except PuzzleFileError as error:  # a packaging fault, not the operator's: the page goes on without it
            logger.error("%s", error)
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8-sig")  # a spreadsheet may start it with a BOM
        except OSError as error:
            raise PuzzleFileError(f"{path}: cannot read it: {error.strerror or error}") from None
        except UnicodeDecodeError:
            raise PuzzleFileError(f"{path}: not a Lichess puzzle CSV: it is not UTF-8 text") from None
        puzzles.extend(read_puzzle_csv(text, path))
    return PuzzleSet(puzzles)


@dataclass(frozen=True)
class PuzzleFilter:
    """Which puzzles the page asks for: of one theme (None: any), rated within the bounds."""

    theme: str | None = None
    min_rating: int | None = None
    max_rating: int | None = None

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> PuzzleFilter:
        """The filter of the page's query (``theme``, ``min``, ``max``; empty means any).

        :raises: :exc:`ApiError` (400) for a bound that is not a whole number.
        """
        bounds = []
        for name in ("min", "max"):
            text = query.get(name, "").strip()
            try:
                bounds.append(int(text) if text else None)
            except ValueError:
                raise ApiError(400, f"{name} must be a whole number (a rating), not {text[:20]!r}") from None
        return cls(query.get("theme", "").strip() or None, *bounds)

    def matches(self, puzzle: CheckedPuzzle) -> bool:
        return ((self.theme is None or self.theme in puzzle.themes)
                and (self.min_rating is None or puzzle.rating >= self.min_rating)
                and (self.max_rating is None or puzzle.rating <= self.max_rating))


class PuzzleSet:
    """The puzzles the page serves, by id; a later puzzle with an id already taken is left out."""

    def __init__(self, puzzles: Iterable[CheckedPuzzle] = ()) -> None:
        self._by_id: dict[str, CheckedPuzzle] = {}
        for puzzle in puzzles:
            if puzzle.puzzle_id in self._by_id:
                logger.warning("puzzle %s is left out: another puzzle has its id", puzzle.puzzle_id)
                continue
            self._by_id[puzzle.puzzle_id] = puzzle

    def __len__(self) -> int:
        return len(self._by_id)

    def listing_json(self, wanted: PuzzleFilter) -> JsonObject:
        """The puzzles *wanted*, easiest first (at most :data:`MAX_LISTED` of them, and how many
        there are), and every theme of the whole set with its number of puzzles."""
        matching = sorted((puzzle for puzzle in self._by_id.values() if wanted.matches(puzzle)),
                          key=lambda puzzle: (puzzle.rating, puzzle.puzzle_id))
        themes = Counter(theme for puzzle in self._by_id.values() for theme in puzzle.themes)
        return {"puzzles": [puzzle.summary_json() for puzzle in matching[:MAX_LISTED]], "count": len(matching),
                "themes": [{"theme": theme, "count": count} for theme, count in sorted(themes.items())]}

    def puzzle_json(self, puzzle_id: str) -> JsonObject:
        """A puzzle as the page plays it: the start position, then each move of its line with the
        position after it; where the person is to move, that position's legal moves and the ones
        that solve it (the solution's move, and at the last move any move that mates, as Lichess
        accepts).

        :raises: :exc:`ApiError` (404) for an id the set has not.
        """
        puzzle = self._by_id.get(puzzle_id)
        if puzzle is None:
            raise ApiError(404, f"No puzzle {puzzle_id[:50]!r} here.")
        board = KnightmateBoard(puzzle.fen)
        solver = not board.turn
        steps = []
        for index, uci in enumerate(puzzle.moves):
            move = board.parse_uci(uci)
            step: JsonObject = {"uci": uci, "san": board.san(move), "by": "you" if board.turn == solver else "opponent"}
            if board.turn == solver:
                step["legalMoves"] = legal_moves_json(board)
                step["accepted"] = _accepted(board, move, last=index == len(puzzle.moves) - 1)
            board.push(move)
            step.update(fen=board.fen(), check=check_square(board))
            steps.append(step)
        start = KnightmateBoard(puzzle.fen)
        return {**puzzle.summary_json(), "gameUrl": puzzle.game_url, "initialFen": start.fen(),
                "check": check_square(start), "you": "white" if solver == chess.WHITE else "black", "steps": steps}


def _accepted(board: KnightmateBoard, solution: chess.Move, *, last: bool) -> list[str]:
    """The moves that solve *board*'s step: the solution's, and at the last step every mate."""
    accepted = [board.uci(solution)]
    if last:
        for move in board.legal_moves:
            board.push(move)
            mates = board.is_checkmate()
            board.pop()
            if mates and move != solution:
                accepted.append(board.uci(move))
    return accepted
