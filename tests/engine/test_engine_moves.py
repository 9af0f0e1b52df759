"""The quiescence capture and check generators against KnightmateBoard's own move generation."""

from __future__ import annotations

import chess
import pytest

from bot.engine.moves import capture_order, gaining_moves, quiet_checks, static_exchange
from bot.engine.position import Position, decode, encode
from bot.engine.weights import PIECE_VALUES
from tests.helpers.random_positions import random_positions
from variant import KnightmateBoard


def gaining_moves_of(board: KnightmateBoard, min_gain: int, skip_losing: bool = False) -> list[chess.Move]:
    """The quiescence generator's moves on the lean position made from *board*, as python-chess moves."""
    return [decode(move) for move in gaining_moves(Position.from_board(board), min_gain, skip_losing)]


def expected_captures(board: KnightmateBoard) -> set[chess.Move]:
    """The board's pseudo-legal captures without underpromotions, and its quiet queen promotions."""
    return ({move for move in board.generate_pseudo_legal_captures() if move.promotion in (None, chess.QUEEN)}
            | {move for move in board.generate_pseudo_legal_moves() if move.promotion == chess.QUEEN})


def test_all_captures_are_the_boards_pseudo_legal_captures_with_queen_promotions() -> None:
    for board in random_positions(150, seed=9):
        generated = gaining_moves_of(board, -10_000)
        assert len(generated) == len(set(generated))
        assert set(generated) == expected_captures(board), board.fen()


def test_captures_come_most_valuable_victim_first_then_cheapest_attacker() -> None:
    for board in random_positions(100, seed=10):
        orders = [capture_order(PIECE_VALUES[board.piece_type_at(move.to_square) or chess.PAWN],
                                board.piece_type_at(move.from_square) or 0)
                  for move in gaining_moves_of(board, -10_000) if not move.promotion]
        assert orders == sorted(orders, reverse=True), board.fen()


def test_threshold_drops_only_captures_worth_less() -> None:
    for board in random_positions(100, seed=11):
        kept = set(gaining_moves_of(board, PIECE_VALUES[chess.BISHOP]))
        for move in expected_captures(board):
            victim = board.piece_type_at(move.to_square) or chess.PAWN  # en passant takes a pawn
            worth = PIECE_VALUES[victim] >= PIECE_VALUES[chess.BISHOP] or move.promotion is not None
            assert (move in kept) == worth, (board.fen(), move)


EXCHANGE_VALUES = {**{piece_type: PIECE_VALUES[piece_type] for piece_type in chess.PIECE_TYPES}, chess.KING: 20_000}


def reference_exchange(board: KnightmateBoard, move: chess.Move) -> int:
    """The exchange on *move*'s target square played out on a copy of the board, with
    KnightmateBoard's own attack sets: each side takes back with its cheapest attacker (the
    highest square among equals, as the engine does), the royal knight only onto a square the
    other side no longer attacks, and either side may stop."""
    board = board.copy(stack=False)
    target = move.to_square
    mover = board.piece_at(move.from_square)
    assert mover is not None
    victim = board.piece_type_at(target)
    gain = EXCHANGE_VALUES[victim] if victim else 0
    if board.is_en_passant(move):
        gain = EXCHANGE_VALUES[chess.PAWN]
        board.remove_piece_at(target ^ 8)
    if move.promotion:
        gain += EXCHANGE_VALUES[move.promotion] - EXCHANGE_VALUES[chess.PAWN]
        mover = chess.Piece(move.promotion, mover.color)
    board.remove_piece_at(move.from_square)
    board.set_piece_at(target, mover)
    gains, on_square, side = [gain], EXCHANGE_VALUES[mover.piece_type], not board.turn
    while True:
        attackers = list(board.attackers(side, target))
        if not attackers:
            break
        square = max(attackers, key=lambda square: (-EXCHANGE_VALUES[board.piece_type_at(square) or 0], square))
        piece = board.remove_piece_at(square)
        assert piece is not None
        if piece.piece_type == chess.KING and board.attackers_mask(not side, target) & ~chess.BB_SQUARES[target]:
            break
        board.set_piece_at(target, piece)
        gains.append(on_square - gains[-1])
        on_square, side = EXCHANGE_VALUES[piece.piece_type], not side
    for index in range(len(gains) - 1, 0, -1):
        gains[index - 1] = min(gains[index - 1], -gains[index])
    return gains[0]


def test_static_exchange_agrees_with_an_exchange_played_on_the_board() -> None:
    compared = 0
    for board in random_positions(150, seed=13):
        position = Position.from_board(board)
        for move in board.pseudo_legal_moves:
            if board.is_capture(move) or board.attackers_mask(not board.turn, move.to_square):
                assert static_exchange(position, encode(move)) == reference_exchange(board, move), (board.fen(), move)
                compared += 1
    assert compared > 1000


def test_skip_losing_drops_only_defended_victims_taken_by_bigger_pieces() -> None:
    for board in random_positions(100, seed=12):
        kept = set(gaining_moves_of(board, -10_000, skip_losing=True))
        for move in expected_captures(board):
            attacker = board.piece_type_at(move.from_square)
            victim = board.piece_type_at(move.to_square) or chess.PAWN
            assert attacker is not None
            losing = (move.promotion is None and PIECE_VALUES[attacker] > PIECE_VALUES[victim]
                      and bool(board.attackers_mask(not board.turn, move.to_square)))
            assert (move in kept) != losing, (board.fen(), move)


SEE_CASES = [
    # A rook takes a pawn defended by a pawn: it wins the pawn and loses itself.
    ("4k3/8/4p3/3p4/8/8/8/3RK3 w - - 0 1", "d1d5", PIECE_VALUES[chess.PAWN] - PIECE_VALUES[chess.ROOK]),
    # An undefended commoner taken by a pawn.
    ("4k3/8/8/3m4/4P3/8/8/4K3 w - - 0 1", "e4d5", PIECE_VALUES[chess.KNIGHT]),
    # Doubled rooks against one defender: the rook behind joins in when the first has captured.
    ("3r1k2/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", PIECE_VALUES[chess.PAWN]),
    # The queen takes a pawn only the royal knight defends, and a bishop covers the square:
    # the royal knight may not recapture.
    ("4k3/8/5p2/8/7B/8/8/4KQ2 w - - 0 1", "f1f6", PIECE_VALUES[chess.PAWN]),
    # Without the bishop it may, and the queen is lost.
    ("4k3/8/5p2/8/8/8/8/4KQ2 w - - 0 1", "f1f6", PIECE_VALUES[chess.PAWN] - PIECE_VALUES[chess.QUEEN]),
    # En passant: the taken pawn is beside the target, and the royal knight takes back.
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 0),
    # A quiet move to a safe square wins nothing; to a square a pawn attacks it hangs the piece.
    ("4k3/8/8/3p4/8/8/8/2B1K3 w - - 0 1", "c1e3", 0),
    ("4k3/8/8/4p3/8/8/8/2B1K3 w - - 0 1", "c1f4", -PIECE_VALUES[chess.BISHOP]),
    # A capture-promotion nothing takes back wins the rook and the promotion.
    ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q",
     PIECE_VALUES[chess.ROOK] + PIECE_VALUES[chess.QUEEN] - PIECE_VALUES[chess.PAWN]),
    # The black royal knight on d7 reaches b8 and nothing of White defends it: it takes the queen.
    ("1r6/P2k4/8/8/8/8/8/4K3 w - - 0 1", "a7b8q", PIECE_VALUES[chess.ROOK] - PIECE_VALUES[chess.PAWN]),
]


@pytest.mark.parametrize(("fen", "uci", "expected"), SEE_CASES)
def test_static_exchange_of_known_positions(fen: str, uci: str, expected: int) -> None:
    board = KnightmateBoard(fen)
    move = chess.Move.from_uci(uci)
    assert move in board.pseudo_legal_moves
    assert static_exchange(Position.from_board(board), encode(move)) == expected

def test_quiet_checks_are_the_quiet_moves_whose_piece_then_attacks_the_royal_knight() -> None:
    """Against the board: every pseudo-legal move to an empty square (no promotion, no castling)
    after which the moved piece attacks the enemy royal knight, and nothing else. The royal
    knight's own moves never count: standing where it attacks the other, it is attacked too."""
    found = 0
    for board in random_positions(300, seed=61, plies=range(4, 120), unfinished=True):
        enemy_royal = board.king(not board.turn)
        if enemy_royal is None:
            continue
        expected = set()
        for move in board.generate_pseudo_legal_moves():
            if board.piece_at(move.to_square) or move.promotion or board.is_castling(move) \
                    or board.is_en_passant(move) or board.piece_type_at(move.from_square) == chess.KING:
                continue
            board.push(move)
            if board.attackers_mask(not board.turn, enemy_royal) & chess.BB_SQUARES[move.to_square]:
                expected.add(move)
            board.pop()
        generated = [decode(move) for move in quiet_checks(Position.from_board(board))]
        assert len(generated) == len(set(generated))
        assert set(generated) == expected, board.fen()
        found += len(expected)
    assert found > 100


def test_capture_order_puts_the_bigger_gain_first_and_the_cheaper_attacker_among_equals() -> None:
    queen, rook = PIECE_VALUES[chess.QUEEN], PIECE_VALUES[chess.ROOK]
    keys = [capture_order(queen, chess.PAWN), capture_order(queen, chess.KING), capture_order(rook + 1, chess.KING),
            capture_order(rook, chess.PAWN), capture_order(rook, chess.QUEEN)]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
