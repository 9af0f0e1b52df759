"""The engine's lean Position against KnightmateBoard, the source of truth for the rules.

Perft counts, move sets, check, captures, Zobrist keys and evaluation sums must agree at every
position of many random games, and popping every move must restore the start exactly.
"""

from __future__ import annotations

import random

import chess
import pytest

from bot.engine.evaluation import base_terms
from bot.engine.position import (
    FROM_TO_SLOTS,
    NO_SQUARE,
    Position,
    decode,
    encode,
    from_square_of,
    from_to_of,
    promotion_of,
    to_square_of,
)
from tests.helpers.perft_counts import PERFT_COUNTS, QUICK_PERFT_CASES
from tests.helpers.random_positions import random_positions
from variant import KnightmateBoard


def position_perft(position: Position, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in position.pseudo_legal_moves():
        position.push(move)
        if not position.mover_in_check():
            total += position_perft(position, depth - 1)
        position.pop()
    return total


def snapshot(position: Position) -> tuple[object, ...]:
    return (list(position.types), position.pawns, position.knights, position.bishops, position.rooks, position.queens,
            position.kings, position.white, position.black, position.occupied, position.turn,
            position.castling, position.ep_square, position.ep_key, position.halfmove_clock, position.key,
            position.mg, position.eg, position.phase)


@pytest.mark.parametrize(("fen", "depth"), QUICK_PERFT_CASES)
def test_perft_matches_the_reference_counts(fen: str, depth: int) -> None:
    position = Position.from_board(KnightmateBoard(fen))
    before = snapshot(position)
    assert position_perft(position, depth) == PERFT_COUNTS[fen][depth - 1]
    assert snapshot(position) == before


def test_random_games_agree_with_the_board_move_by_move() -> None:
    rng = random.Random(41)
    positions_checked = castled = 0
    for _ in range(40):
        board = KnightmateBoard()
        position = Position.from_board(board)
        start = snapshot(position)
        plies = 0
        while not board.is_game_over(claim_draw=False) and plies < 200:
            context = board.fen()
            assert {decode(move) for move in position.legal_moves()} == set(board.legal_moves), context
            assert sorted(position.pseudo_legal_moves()) == sorted(map(encode, board.generate_pseudo_legal_moves())), \
                context
            assert position.in_check() == board.is_check(), context
            assert position.key == Position.from_board(board).key, context
            assert (position.mg, position.eg, position.phase) == base_terms(board), context
            assert position.halfmove_clock == board.halfmove_clock and position.turn == board.turn, context
            for move in board.legal_moves:
                assert position.is_capture(encode(move)) == board.is_capture(move), (context, move)
            move = _pick(rng, board)
            castled += board.is_castling(move)
            board.push(move)
            position.push(encode(move))
            plies += 1
            positions_checked += 1
        for _ in range(plies):
            position.pop()
        assert snapshot(position) == start
    assert positions_checked > 3000 and castled >= 8


def _pick(rng: random.Random, board: KnightmateBoard) -> chess.Move:
    """A random legal move, but castling, en passant and promotion whenever one is legal and a
    coin says so: uniform random games would hardly ever play them."""
    moves = list(board.legal_moves)
    special = [move for move in moves if board.is_castling(move) or board.is_en_passant(move) or move.promotion]
    return rng.choice(special if special and rng.random() < 0.7 else moves)


def test_a_moves_parts_read_back_as_python_chess_gives_them() -> None:
    """Every move shape (promotions to each piece, castling, en passant, captures) on the board
    and its int form, read back part by part; the from-to index tells every pair of squares apart."""
    every_shape = KnightmateBoard("r3k2r/1P3ppp/2m1pm2/3pP3/8/2M2M2/5PPP/R3K2R w KQkq d6 0 20")
    assert {"b7a8q", "b7b8n", "e5d6", "e1g1", "e1c1"} <= {move.uci() for move in every_shape.legal_moves}
    from_to_indices = set()
    for board in [every_shape, *random_positions(40, seed=11)]:
        for move in board.legal_moves:
            move_int = encode(move)
            assert (from_square_of(move_int), to_square_of(move_int), promotion_of(move_int)) \
                == (move.from_square, move.to_square, move.promotion or 0)
            assert decode(move_int) == move
            from_to = from_to_of(move_int)
            assert from_to == from_to_of(encode(chess.Move(move.from_square, move.to_square)))
            from_to_indices.add((from_to, move.from_square, move.to_square))
    assert all(0 <= index < FROM_TO_SLOTS for index, _, _ in from_to_indices)
    assert len({index for index, _, _ in from_to_indices}) == len({squares[1:] for squares in from_to_indices})


def test_keys_match_exactly_when_positions_repeat() -> None:
    """Equal keys for equal positions, reached by different move orders (and only for them)."""
    keys: dict[int, str] = {}
    for board in random_positions(400, seed=42, plies=range(1, 12)):
        fen = " ".join(board.fen(en_passant="legal").split()[:4])
        assert keys.setdefault(Position.from_board(board).key, fen) == fen
    assert len(set(keys.values())) < 400  # some positions did repeat, so the test saw equal keys


def test_is_pseudo_legal_agrees_with_the_board_for_every_move_shape() -> None:
    boards = random_positions(12, seed=43, plies=range(30, 90), unfinished=True)
    boards.append(KnightmateBoard("1r2k3/P1P5/8/8/8/8/5p1p/3K2R1 w - - 0 1"))
    boards.append(KnightmateBoard("r3k2r/8/b7/8/8/7B/m7/R3K2R w KQkq - 0 1"))
    boards.append(KnightmateBoard("4k3/8/8/KPp4r/8/8/4P3/8 w - c6 0 1"))
    for board in boards:
        position = Position.from_board(board)
        pseudo_legal = set(board.generate_pseudo_legal_moves())
        for from_square in chess.SQUARES:
            for to_square in chess.SQUARES:
                for promotion in (None, chess.QUEEN, chess.KNIGHT):
                    move = chess.Move(from_square, to_square, promotion)
                    assert position.is_pseudo_legal(encode(move)) == (move in pseudo_legal), (board.fen(), move)


def test_a_null_move_changes_only_the_turn_and_comes_back() -> None:
    board = KnightmateBoard("4k3/8/8/KPp4r/8/8/4P3/8 w - c6 0 1")
    position = Position.from_board(board)
    before = snapshot(position)
    position.push_null()
    board.push(chess.Move.null())
    assert position.key == Position.from_board(board).key
    assert position.ep_square == NO_SQUARE and position.turn == chess.BLACK
    position.pop()
    assert snapshot(position) == before


def test_chess960_boards_are_refused_with_a_clear_error() -> None:
    board = KnightmateBoard("rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq - 0 1", chess960=True)
    with pytest.raises(ValueError, match="Chess960"):
        Position.from_board(board)


def test_moves_from_outside_the_pin_squares_are_always_legal() -> None:
    checked = 0
    for board in random_positions(300, seed=44, plies=range(10, 120), unfinished=True):
        position = Position.from_board(board)
        pin_squares = position.pin_squares(position.in_check())
        for move in position.pseudo_legal_moves():
            if not chess.BB_SQUARES[move & 63] & pin_squares:
                position.push(move)
                assert not position.mover_in_check(), (board.fen(), decode(move))
                position.pop()
                checked += 1
    assert checked > 5000
