"""The sandbox's in-process opponents (bot.sandbox.opponents), without HTTP or a world."""

from __future__ import annotations

import logging
import random

import chess
import pytest

from bot.engine import Limits, SearchResult
from bot.sandbox import opponents
from variant import KnightmateBoard

#: A rook's move from a1 to a8 through its own pawns: never legal from the start.
ILLEGAL = chess.Move.from_uci("a1a8")


class IllegalMoveEngine:
    """Stands in for bot.engine.Engine and always answers a move the referee refuses."""

    searches = 0

    def __init__(self, hash_mb: int) -> None:
        pass

    def search(self, board: KnightmateBoard, limits: Limits) -> SearchResult:
        IllegalMoveEngine.searches += 1
        return SearchResult(ILLEGAL, 0, None, 1, 1, 1, (ILLEGAL,))


def test_the_engine_opponent_plays_a_legal_move_of_its_own() -> None:
    board = KnightmateBoard()
    move = opponents.make_strategy("engine", movetime_ms=50, rng=random.Random(1)).choose(board)
    assert move is not None and move in board.legal_moves


def test_an_engine_that_chose_an_illegal_move_hands_the_game_to_the_random_mover(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(opponents, "Engine", IllegalMoveEngine)
    monkeypatch.setattr(IllegalMoveEngine, "searches", 0)
    strategy = opponents.make_strategy("engine", movetime_ms=50, rng=random.Random(1))
    board = KnightmateBoard()
    with caplog.at_level(logging.WARNING, logger=opponents.__name__):
        first = strategy.choose(board)
        second = strategy.choose(board)
    assert first is not None and first in board.legal_moves
    assert second is not None and second in board.legal_moves
    assert IllegalMoveEngine.searches == 1  # asked once, never again after it failed
    assert "engine opponent failed" in caplog.text
