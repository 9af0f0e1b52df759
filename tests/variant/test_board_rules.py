"""KnightmateBoard's rules, notation and python-chess integration, case by case.

Where a case is about the rules, the expectation is also checked against Fairy-Stockfish, so a
wrong belief in this file cannot hide a wrong board.
"""

from __future__ import annotations

import io

import chess
import chess.pgn
import chess.variant
import pytest

from tests.helpers import fairy
from variant import COMMONER, ROYAL_KNIGHT, STARTING_FEN, KnightmateBoard, describe_status


def legal_uci(board: KnightmateBoard) -> set[str]:
    return {board.uci(move) for move in board.legal_moves}


def assert_agrees_with_fairy(board: KnightmateBoard) -> None:
    assert legal_uci(board) == fairy.legal_moves(board.fen())


# Movement

def test_start_position_is_fairy_stockfish_start() -> None:
    assert KnightmateBoard().fen() == STARTING_FEN == "rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq - 0 1"
    assert KnightmateBoard().piece_type_at(chess.E1) == ROYAL_KNIGHT
    assert KnightmateBoard().piece_type_at(chess.B1) == COMMONER


def test_royal_knight_jumps_like_a_knight_and_commoner_steps_like_a_king() -> None:
    board = KnightmateBoard("4k3/8/8/8/3K4/8/8/M7 w - - 0 1")
    assert {board.uci(m) for m in board.legal_moves if m.from_square == chess.D4} == {
        "d4b3", "d4b5", "d4c2", "d4c6", "d4e2", "d4e6", "d4f3", "d4f5"}
    assert {board.uci(m) for m in board.legal_moves if m.from_square == chess.A1} == {"a1a2", "a1b1", "a1b2"}
    assert_agrees_with_fairy(board)


def test_royal_knights_never_stand_a_knights_move_apart() -> None:
    board = KnightmateBoard("8/8/8/4k3/8/8/8/4K3 w - - 0 1")
    assert "e1f3" not in legal_uci(board) and "e1d3" not in legal_uci(board)
    assert_agrees_with_fairy(board)


def test_commoner_gives_check_like_a_king() -> None:
    board = KnightmateBoard("8/8/8/4k3/8/3M4/8/4K3 w - - 0 1")
    move = board.parse_uci("d3d4")
    assert board.gives_check(move)
    board.push(move)
    assert board.is_check() and board.checkers() == chess.SquareSet([chess.D4])


# Castling

def test_castling_moves_the_royal_knight_two_squares_and_the_rook_beside_it() -> None:
    board = KnightmateBoard("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert board.san(board.parse_uci("e1g1")) == "O-O"
    board.push_san("O-O")
    assert board.piece_type_at(chess.G1) == ROYAL_KNIGHT and board.piece_type_at(chess.F1) == chess.ROOK
    board.push_san("O-O-O")
    assert board.piece_type_at(chess.C8) == ROYAL_KNIGHT and board.piece_type_at(chess.D8) == chess.ROOK
    assert board.fen() == fairy.fen_after("r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1", "e8c8")


def test_castling_through_attacked_square_is_illegal() -> None:
    board = KnightmateBoard("4k3/8/8/8/8/8/5r2/4K2R w K - 0 1")  # the rook on f2 guards f1
    assert "e1g1" not in legal_uci(board)
    assert not board.is_legal(chess.Move(chess.E1, chess.G1))
    assert_agrees_with_fairy(board)


def test_castling_onto_attacked_square_and_out_of_check_are_illegal() -> None:
    onto = KnightmateBoard("4k3/8/8/8/8/8/6r1/R3K3 w Q - 0 1")  # the rook on g2 does not guard c1
    assert "e1c1" in legal_uci(onto)
    into = KnightmateBoard("4k3/8/8/8/8/8/2r5/R3K3 w Q - 0 1")  # the rook on c2 guards c1
    assert "e1c1" not in legal_uci(into)
    in_check = KnightmateBoard("4k3/8/8/8/8/8/3m4/R3K2R w KQ - 0 1")  # the commoner on d2 checks
    assert in_check.is_check() and not {"e1g1", "e1c1"} & legal_uci(in_check)
    for board in (onto, into, in_check):
        assert_agrees_with_fairy(board)


def test_knight_jump_across_two_files_is_not_castling() -> None:
    board = KnightmateBoard("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    jump = board.parse_uci("e1g2")
    assert not board.is_castling(jump)
    assert board.san(jump) == "Kg2" == fairy.san(board.fen(), "e1g2")
    board.push(jump)
    assert board.piece_type_at(chess.H1) == chess.ROOK and not board.castling_rights


# En passant and promotion

def test_en_passant_along_a_pinned_rank_is_illegal() -> None:
    board = KnightmateBoard("4k3/8/8/KPp4r/8/8/4P3/8 w - c6 0 1")
    assert "b5c6" not in legal_uci(board)
    assert_agrees_with_fairy(board)


def test_en_passant_square_is_written_whenever_an_enemy_pawn_attacks_it() -> None:
    pinned = "8/8/8/8/kp5R/8/2P5/4K3 w - - 0 1"  # bxc3 would open the rank to the rook on h4
    board = KnightmateBoard(pinned)
    board.push_uci("c2c4")
    assert not board.has_legal_en_passant()
    assert board.fen() == fairy.fen_after(pinned, "c2c4")
    assert board.fen().split()[3] == "c3"
    quiet = KnightmateBoard("4k3/8/8/8/8/8/2P5/K7 w - - 0 1")
    quiet.push_uci("c2c4")
    assert quiet.ep_square is not None and quiet.fen().split()[3] == "-"


def test_promotion_to_commoner_is_written_m_and_read_as_m_or_n() -> None:
    board = KnightmateBoard("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    move = board.parse_uci("b7b8m")
    assert move == board.parse_uci("b7b8n") == chess.Move(chess.B7, chess.B8, COMMONER)
    assert board.uci(move) == board.xboard(move) == "b7b8m"
    assert board.san(move) == "b8=M" == fairy.san(board.fen(), "b7b8m")
    assert board.parse_san("b8=M") == move
    board.push(move)
    assert board.board_fen() == "1M2k3/8/8/8/8/8/8/4K3"


def test_promotion_to_royal_knight_is_illegal() -> None:
    board = KnightmateBoard("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    with pytest.raises(chess.IllegalMoveError, match="b7b8k"):
        board.parse_uci("b7b8k")
    assert legal_uci(board) == {"b7b8q", "b7b8r", "b7b8b", "b7b8m", "e1c2", "e1g2", "e1d3", "e1f3"}


# Notation and bad input

def test_san_uses_k_for_the_royal_knight_and_m_for_the_commoner() -> None:
    board = KnightmateBoard()
    assert board.push_san("Kf3") == chess.Move(chess.E1, chess.F3)
    board.push_san("c6")
    board.push_san("c3")
    board.push_san("Kd6")
    assert board.san(board.parse_uci("b1c2")) == "Mc2"


def test_knight_letter_in_san_is_rejected_with_the_move_in_the_message() -> None:
    with pytest.raises(chess.InvalidMoveError, match="Nf3"):
        KnightmateBoard().parse_san("Nf3")


def test_illegal_and_malformed_moves_raise_python_chess_errors_naming_the_move() -> None:
    board = KnightmateBoard()
    with pytest.raises(chess.IllegalMoveError, match="e2e5"):
        board.push_uci("e2e5")
    with pytest.raises(chess.InvalidMoveError, match="zz9"):
        board.push_uci("zz9")
    with pytest.raises(chess.IllegalMoveError, match="Kh8"):
        board.push_san("Kh8")
    with pytest.raises(chess.InvalidMoveError, match="K@@"):
        board.push_san("K@@")
    assert board.fen() == STARTING_FEN


@pytest.mark.parametrize(("fen", "reason"), [
    ("rnbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq - 0 1", "knight letter"),
    ("rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKKMR w KQkq - 0 1", "more than one royal knight"),
    ("rmbq1bmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQ - 0 1", "black has no royal knight"),
    ("Pmbqkbmr/1ppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQk - 0 1", "pawns on the first or last rank"),
    ("rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR x KQkq - 0 1", "turn"),
    ("rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQxq - 0 1", "castling"),
    ("rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq e9 0 1", "en passant"),
    ("rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq - x 1", "half-move"),
    ("rmbqkbmr/ppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq - 0 1", "columns"),
    ("8/8/3k4/8/8/8/3Q4/3K4 w - - 0 1", "not to move is in check"),
])
def test_bad_fen_raises_value_error_naming_the_problem_and_leaves_the_board_alone(fen: str, reason: str) -> None:
    board = KnightmateBoard()
    with pytest.raises(ValueError, match=reason):
        board.set_fen(fen)
    assert board.fen() == STARTING_FEN
    with pytest.raises(ValueError, match=reason):
        KnightmateBoard(fen)


def test_a_refused_fen_names_every_problem_and_an_accepted_one_is_described_in_the_same_words() -> None:
    with pytest.raises(ValueError, match=r"\(white has no royal knight; black has no royal knight\)"):
        KnightmateBoard("8/8/8/8/8/8/8/8 w - - 0 1")
    board = KnightmateBoard("4k3/8/8/8/8/8/8/R3K3 w Kq - 0 1")  # set up, though black has no rook for q
    assert describe_status(board.status()) == "the castling rights do not match the royal knights and rooks"
    assert describe_status(chess.STATUS_NO_BLACK_KING | chess.STATUS_PAWNS_ON_BACKRANK) == (
        "black has no royal knight; pawns on the first or last rank")


def test_printed_board_shows_commoners_as_m_and_draws_pieces_by_movement() -> None:
    board = KnightmateBoard()
    assert str(board).splitlines()[-1] == "R M B Q K B M R"
    assert board.unicode().splitlines()[-1] == "♖ ♔ ♗ ♕ ♘ ♗ ♔ ♖"
    assert repr(board) == f"KnightmateBoard('{STARTING_FEN}')"


# Game end

def test_queen_mates_without_its_royal_knights_help() -> None:
    board = KnightmateBoard("k7/8/2Q5/8/8/8/8/7K b - - 0 1")
    fen = board.fen()
    assert board.is_checkmate() == (fairy.result_without_moves(fen) < 0) == (not fairy.legal_moves(fen))
    outcome = board.outcome()
    assert outcome is not None and outcome.termination == chess.Termination.CHECKMATE and outcome.winner


def test_stalemate_is_a_draw() -> None:
    board = KnightmateBoard("k7/8/3Q4/8/8/8/8/7K b - - 0 1")
    if board.is_check() or any(board.legal_moves):
        pytest.fail(f"not a stalemate position: {board.fen()}")
    assert board.is_stalemate() and fairy.result_without_moves(board.fen()) == 0


@pytest.mark.parametrize(("fen", "white", "black"), [
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", True, True),
    ("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1", True, True),
    ("4k3/8/8/8/8/8/8/3BK3 w - - 0 1", True, True),
    ("4k3/8/8/8/8/8/8/2BBK3 w - - 0 1", False, True),
    ("4k3/8/8/8/8/8/8/2M1K3 w - - 0 1", False, True),
    ("4k3/8/8/8/8/8/8/2R1K3 w - - 0 1", False, True),
    ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", False, True),
    ("4k3/8/8/2b5/8/8/8/2B1K3 w - - 0 1", True, True),
    ("4k3/8/8/1b6/8/8/8/2B1K3 w - - 0 1", False, False),
    ("4k3/8/8/1m6/8/8/8/2B1K3 w - - 0 1", False, False),
])
def test_insufficient_material_follows_fairy_stockfish(fen: str, white: bool, black: bool) -> None:
    board = KnightmateBoard(fen)
    assert (board.has_insufficient_material(chess.WHITE), board.has_insufficient_material(chess.BLACK)) == (
        white, black) == fairy.insufficient_material(fen)
    assert board.is_insufficient_material() == (white and black)


def test_threefold_repetition_and_fifty_moves_can_be_claimed() -> None:
    board = KnightmateBoard()
    for _ in range(3):
        for san in ("Kf3", "Kf6", "Ke1", "Ke8"):
            board.push_san(san)
    assert board.can_claim_threefold_repetition()
    fifty = KnightmateBoard("4k3/8/8/8/8/8/8/R3K3 w - - 99 80")
    fifty.push_san("Ra2")
    assert fifty.can_claim_fifty_moves()


# python-chess integration

def test_find_variant_returns_knightmate_board() -> None:
    assert chess.variant.find_variant("Knightmate") is KnightmateBoard
    assert chess.variant.find_variant("knightmate") is KnightmateBoard


def test_pgn_round_trip_with_variant_and_fen_headers() -> None:
    start = "4k3/1P6/8/8/8/8/8/4K2R w K - 0 1"
    board = KnightmateBoard(start)
    for san in ("b8=M", "Kf6", "O-O", "Kg4", "Mc7"):
        board.push_san(san)
    game = chess.pgn.Game.from_board(board)
    text = str(game)
    assert '[Variant "Knightmate"]' in text and f'[FEN "{start}"]' in text
    assert "1. b8=M Kf6 2. O-O+ Kg4 3. Mc7" in text
    assert fairy.san_of_game(start, [board.uci(move) for move in board.move_stack]) == [
        "b8=M", "Kf6", "O-O+", "Kg4", "Mc7"]
    read = chess.pgn.read_game(io.StringIO(text))
    assert read is not None and not read.errors
    assert isinstance(read.board(), KnightmateBoard)
    assert read.end().board().fen() == board.fen()


def test_standard_boards_in_the_same_process_still_play_chess() -> None:
    board = chess.Board()
    assert board.legal_moves.count() == 20
    board.push_san("Nf3")
    assert board.fen() == "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"
    game = chess.pgn.read_game(io.StringIO("1. e4 e5 2. Nf3 Nc6 3. O-O *"))
    assert game is not None and str(game.mainline_moves()) == "1. e4 e5 2. Nf3 Nc6"
    assert type(game.board()) is chess.Board


def test_docstring_examples_hold() -> None:
    import doctest

    import variant.board

    results = doctest.testmod(variant.board)
    assert results.attempted > 0 and results.failed == 0
