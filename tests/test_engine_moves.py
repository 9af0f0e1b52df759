"""The quiescence capture generator against KnightmateBoard's own move generation."""

from __future__ import annotations

import chess
from random_positions import random_positions

from bot.engine.evaluation import PIECE_VALUES
from bot.engine.moves import captures as position_captures
from bot.engine.position import Position, decode
from variant import KnightmateBoard


def captures(board: KnightmateBoard, min_gain: int, skip_losing: bool = False) -> list[tuple[int, chess.Move]]:
    """The generator's captures on the lean position made from *board*, as python-chess moves."""
    return [(gain, decode(move)) for gain, move in position_captures(Position.from_board(board), min_gain, skip_losing)]


def expected_captures(board: KnightmateBoard) -> set[chess.Move]:
    return {move for move in board.generate_pseudo_legal_captures() if move.promotion in (None, chess.QUEEN)}


def test_all_captures_are_the_boards_pseudo_legal_captures_with_queen_promotions() -> None:
    for board in random_positions(150, seed=9):
        generated = [move for _, move in captures(board, -10_000)]
        assert len(generated) == len(set(generated))
        assert set(generated) == expected_captures(board), board.fen()


def test_captures_come_most_valuable_victim_first() -> None:
    for board in random_positions(100, seed=10):
        gains = [gain for gain, move in captures(board, -10_000) if not move.promotion]
        assert gains == sorted(gains, reverse=True), board.fen()


def test_threshold_drops_only_captures_worth_less() -> None:
    for board in random_positions(100, seed=11):
        kept = {move for _, move in captures(board, PIECE_VALUES[chess.BISHOP])}
        for move in expected_captures(board):
            victim = board.piece_type_at(move.to_square) or chess.PAWN  # en passant takes a pawn
            worth = PIECE_VALUES[victim] >= PIECE_VALUES[chess.BISHOP] or move.promotion is not None
            assert (move in kept) == worth, (board.fen(), move)


def test_skip_losing_drops_only_defended_victims_taken_by_bigger_pieces() -> None:
    for board in random_positions(100, seed=12):
        kept = {move for _, move in captures(board, -10_000, skip_losing=True)}
        for move in expected_captures(board):
            attacker = board.piece_type_at(move.from_square)
            victim = board.piece_type_at(move.to_square) or chess.PAWN
            assert attacker is not None
            losing = (move.promotion is None and PIECE_VALUES[attacker] > PIECE_VALUES[victim]
                      and bool(board.attackers_mask(not board.turn, move.to_square)))
            assert (move in kept) != losing, (board.fen(), move)
