"""The starter puzzle set the package ships (``bot/analysis/data/puzzles.csv``): at least 200
Knightmate puzzles that the page serves, with mates and material wins of several lengths among
them, and each one confirmed by Fairy-Stockfish, the independent referee, as the docs say it was."""

from __future__ import annotations

from collections import Counter
from importlib import resources

import chess.engine
import pytest

from bot.analysis import EngineCommand, close_engine
from bot.analysis.judgement import LICHESS_CURVE
from bot.analysis.puzzle_csv import read_puzzles
from bot.analysis.puzzle_mining import Puzzle, confirmed_by
from bot.web.puzzle_set import SHIPPED_SET, load_puzzle_set
from tests.helpers.engine_processes import FAIRY_STOCKFISH, needs_fairy_stockfish

#: The depth the starter set was checked at (``knightmate-bot puzzles``' default --check-depth).
CHECK_DEPTH = 12


def shipped_puzzles() -> list[Puzzle]:
    package, parts = SHIPPED_SET
    with resources.files(package).joinpath(*parts).open(encoding="utf-8") as handle:
        return read_puzzles(handle)


def test_the_package_ships_at_least_200_puzzles_the_page_serves() -> None:
    puzzles = shipped_puzzles()
    assert len(puzzles) >= 200
    assert len(load_puzzle_set([])) == len(puzzles)  # every line usable, none left out
    themes = Counter(theme for puzzle in puzzles for theme in puzzle.themes)
    assert themes["mate"] >= 10 and themes["mateIn1"] and themes["mateIn2"]
    assert themes["crushing"] + themes["advantage"] >= 50
    assert themes["short"] + themes["long"] + themes["veryLong"] >= 20  # not only one-move puzzles
    ratings = sorted(puzzle.rating for puzzle in puzzles)
    assert ratings[len(ratings) // 10] < ratings[-len(ratings) // 10]  # a spread of difficulty


@pytest.mark.long
@needs_fairy_stockfish
def test_fairy_stockfish_confirms_every_starter_puzzle() -> None:
    assert FAIRY_STOCKFISH is not None
    checker = EngineCommand((FAIRY_STOCKFISH,)).open()
    try:
        disagreements = [(puzzle.puzzle_id, reason) for puzzle in shipped_puzzles()
                         if (reason := confirmed_by(checker, puzzle, chess.engine.Limit(depth=CHECK_DEPTH),
                                                    curve=LICHESS_CURVE)) is not None]
    finally:
        close_engine(checker)
    assert disagreements == []
