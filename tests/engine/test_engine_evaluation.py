"""The static evaluation: colour symmetry, and sums kept by the Position equal to the board's."""

from __future__ import annotations

from bot.engine.evaluation import evaluate
from bot.engine.position import Position, encode
from tests.helpers.random_positions import random_positions


def test_the_mirrored_position_gets_the_same_score() -> None:
    """Colours and ranks swapped, the side to move must stand exactly as well: any term that
    favours one colour or misreads a table shows up here."""
    for board in random_positions(400, seed=51, plies=range(1, 90)):
        mirrored = board.mirror()
        assert evaluate(Position.from_board(board), {}) == evaluate(Position.from_board(mirrored), {}), board.fen()


def test_a_position_reached_by_moves_scores_like_one_made_from_its_board() -> None:
    """The evaluation reads the sums the Position keeps move by move: after a game's moves they
    must give the score of the same position set up afresh."""
    for board in random_positions(200, seed=52, plies=range(1, 90)):
        replayed = Position.from_board(board.root())
        for move in board.move_stack:
            replayed.push(encode(move))
        assert evaluate(replayed, {}) == evaluate(Position.from_board(board), {}), board.fen()
