"""bench/match/timeuse.py: the engine's move times and clock, as the match runner charged them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench.match.referee import STARTING_FEN
from bench.match.strength import GameRecord, Opening, TimeControl
from bench.match.timeuse import engine_moves, main, summary

BENCH = Path(__file__).resolve().parents[2] / "bench" / "match"


def test_engine_moves_are_its_own_plies_with_the_clock_after_each() -> None:
    record = GameRecord(1, "a", "b", True, Opening(STARTING_FEN, (), 0, True), seconds=[1.0, 0.5, 2.0, 0.25])
    control = TimeControl(10_000, 1_000)
    as_white = engine_moves(record, control, engine_is_white=True)
    assert [(move.number, move.seconds, move.clock_s) for move in as_white] == [(1, 1.0, 10.0), (2, 2.0, 9.0)]
    as_black = engine_moves(record, control, engine_is_white=False)
    assert [(move.number, move.clock_s) for move in as_black] == [(1, 10.5), (2, 11.25)]
    assert "average 1.50 s, max 2.00 s (move 2), lowest clock 9.0 s" in summary(as_white, control)


def test_a_short_game_prints_every_move_time_and_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    random_mover = f"{sys.executable} {BENCH / 'random_mover.py'} --seed 3"
    assert main(["--engine", random_mover, "--opponent", random_mover, "--tc", "5+0.1", "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Game 1, engine White:")
    assert "1:0.0" in out and "All games, " in out and "base/30 + increment = 0.3 s" in out
