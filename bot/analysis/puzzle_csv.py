"""Puzzles in Lichess's puzzle CSV, the format every puzzle tool reads: written, and read back checked.

The columns are Lichess's (``PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,
GameUrl,OpeningTags``): the FEN before the opponent's move, ``Moves`` that move then the solution
in UCI separated by spaces, ``Themes`` separated by spaces. A puzzle nobody has played has
popularity 0 and no plays; Knightmate has no opening names, so ``OpeningTags`` stays empty.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import TextIO

from bot.analysis.puzzle_mining import Puzzle
from variant import KnightmateBoard

COLUMNS = ("PuzzleId", "FEN", "Moves", "Rating", "RatingDeviation", "Popularity", "NbPlays", "Themes", "GameUrl",
           "OpeningTags")


class PuzzleCsvError(ValueError):
    """A row that is not a Knightmate puzzle: one line naming the row."""


def write_puzzles(handle: TextIO, puzzles: Iterable[Puzzle]) -> None:
    """Writes the header and one row per puzzle to *handle* (opened with ``newline=""``)."""
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(COLUMNS)
    for puzzle in puzzles:
        writer.writerow((puzzle.puzzle_id, puzzle.fen, " ".join(puzzle.moves), puzzle.rating,
                         puzzle.rating_deviation, 0, 0, " ".join(puzzle.themes), puzzle.game_url, ""))


def read_puzzles(handle: TextIO) -> list[Puzzle]:
    """The puzzles of a CSV written by :func:`write_puzzles` (or Lichess's columns in that order),
    each checked: a Knightmate position, legal moves, at least the opponent's move and one reply.

    :raises: :exc:`PuzzleCsvError` naming the first bad row.
    """
    reader = csv.reader(handle)
    header = next(reader, None)
    if header is None or tuple(header[:len(COLUMNS)]) != COLUMNS:
        raise PuzzleCsvError(f"not a puzzle CSV: the first line must be {','.join(COLUMNS)}")
    return [_puzzle(row, number) for number, row in enumerate(reader, start=2) if row]


def _puzzle(row: list[str], number: int) -> Puzzle:
    if len(row) < len(COLUMNS):
        raise PuzzleCsvError(f"line {number}: {len(row)} columns, not {len(COLUMNS)}")
    fields = dict(zip(COLUMNS, row, strict=False))
    try:
        board = KnightmateBoard(fields["FEN"])
        moves = tuple(fields["Moves"].split())
        for uci in moves:
            board.push(board.parse_uci(uci))
        rating, deviation = int(fields["Rating"]), int(fields["RatingDeviation"])
    except ValueError as error:
        raise PuzzleCsvError(f"line {number}: {str(error).splitlines()[0][:200]}") from None
    if len(moves) < 2:
        raise PuzzleCsvError(f"line {number}: a puzzle needs the opponent's move and at least one move to find")
    return Puzzle(fields["FEN"], moves, rating, tuple(fields["Themes"].split()), fields["GameUrl"], deviation)
