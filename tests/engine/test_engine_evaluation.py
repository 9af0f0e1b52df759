"""The static evaluation: colour symmetry, sums kept by the Position equal to the board's, and its
geometry helpers (what each term counts is checked through the tuner's model,
tests/bench/test_evaluation_features.py)."""

from __future__ import annotations

import chess

from bot.engine.constants import signed
from bot.engine.evaluation import PawnCache, _nearest_distance, evaluate
from bot.engine.position import Position, encode
from tests.helpers.random_positions import random_positions


def test_the_mirrored_position_gets_the_same_score() -> None:
    """Colours and ranks swapped, the side to move must stand exactly as well: any term that
    favours one colour or misreads a table shows up here."""
    for board in random_positions(400, seed=51, plies=range(1, 90)):
        mirrored = board.mirror()
        cache = PawnCache()
        score = evaluate(Position.from_board(board), cache)
        assert score == evaluate(Position.from_board(mirrored), cache), board.fen()


def test_a_position_reached_by_moves_scores_like_one_made_from_its_board() -> None:
    """The evaluation reads the sums the Position keeps move by move: after a game's moves they
    must give the score of the same position set up afresh."""
    for board in random_positions(200, seed=52, plies=range(1, 90)):
        replayed = Position.from_board(board.root())
        for move in board.move_stack:
            replayed.push(encode(move))
        assert evaluate(replayed, PawnCache()) == evaluate(Position.from_board(board), PawnCache()), board.fen()


def test_the_nearest_distance_is_in_king_steps_to_the_nearest_piece() -> None:
    """What the passed pawns' commoner term measures: the nearer of two commoners counts, and a
    piece on h8 (the engine's sign bit) is found like any other."""
    assert _nearest_distance(signed(chess.BB_D4 | chess.BB_E8), chess.D7) == 1
    assert _nearest_distance(signed(chess.BB_D4), chess.D7) == 3
    assert _nearest_distance(signed(chess.BB_H8), chess.A1) == 7
    assert _nearest_distance(signed(chess.BB_H8 | chess.BB_B2), chess.G7) == 1
