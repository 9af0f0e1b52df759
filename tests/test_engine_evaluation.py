"""The static evaluation: colour symmetry, and the same score from a board and a Position."""

from __future__ import annotations

from random_positions import random_positions

from bot.engine.evaluation import base_terms, evaluate
from bot.engine.position import Position


def test_the_mirrored_position_gets_the_same_score() -> None:
    """Colours and ranks swapped, the side to move must stand exactly as well: any term that
    favours one colour or misreads a table shows up here."""
    for board in random_positions(400, seed=51, plies=range(1, 90)):
        mirrored = board.mirror()
        assert evaluate(board, base_terms(board), {}) == evaluate(mirrored, base_terms(mirrored), {}), board.fen()


def test_a_position_scores_like_the_board_it_was_made_from() -> None:
    for board in random_positions(400, seed=52, plies=range(1, 90)):
        position = Position.from_board(board)
        terms = (position.mg, position.eg, position.phase)
        assert evaluate(position, terms, {}) == evaluate(board, base_terms(board), {}), board.fen()

