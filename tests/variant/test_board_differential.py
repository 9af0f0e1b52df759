"""KnightmateBoard against Fairy-Stockfish, position by position, over seeded random games.

At every ply the legal move set and the FEN after the move must agree; over every game the SAN
of each move (whose ``+``/``#`` suffixes also compare check and mate); at a game's end the
result; in sparse positions insufficient material per side; and in a sample of positions the
SAN of every legal move. Random play is biased towards captures so that games reach the
endings where commoners, promotions and insufficient material matter.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

import chess
import pytest

from tests.helpers import fairy
from variant import STARTING_FEN, KnightmateBoard

#: Start positions chosen to reach the rules' corners quickly.
ODD_STARTS = [
    "r3k2r/8/b7/8/8/7B/m7/R3K2R w KQkq - 0 1",  # castling through and into attacks
    "r3k2r/pppq1ppp/2m1bm2/3pp3/1b1PP3/2MB1M2/PPPQBPPP/R3K2R w KQkq - 4 8",  # castling, middlegame
    "4k3/8/8/KPp4r/8/8/4P3/8 w - c6 0 1",  # en passant along a pinned rank
    "3k4/8/8/2pP4/8/8/8/3K3q w - c6 0 1",  # en passant out of check
    "1r2k3/P1P5/8/8/8/8/5p1p/3K2R1 w - - 0 1",  # promotions with and without capture
    "4r2k/1b6/8/8/4K3/8/8/R6M w - - 0 1",  # sliders around an exposed royal knight
    "4k3/8/8/8/8/8/4M3/4R1K1 w - - 0 1",  # discovered and double checks
    "4k3/4r3/8/8/8/8/4B3/4K2R w K - 0 1",  # pins on the royal knight's file
    "k7/8/8/3m4/8/3M4/8/7K w - - 0 1",  # commoner against commoner
    "8/3k4/2mp4/8/8/3PM3/4K3/8 w - - 0 1",  # commoner and pawn endings
    "8/8/3k4/8/8/8/2Q5/3K4 w - - 0 1",  # a queen hunting a bare royal knight
]
GAMES = 360
MAX_PLIES = 200
SAN_SAMPLE_EVERY = 97  # positions; a full SAN sweep costs one pyffish call per legal move


def _random_move(board: KnightmateBoard, rng: random.Random) -> chess.Move:
    moves = list(board.legal_moves)
    captures = [move for move in moves if board.is_capture(move)]
    return rng.choice(captures if captures and rng.random() < 0.6 else moves)


def _compare_game(seed: int) -> tuple[int, list[str]]:
    """Plays one seeded random game; returns the positions compared and every disagreement."""
    rng = random.Random(seed)
    start = ([STARTING_FEN] + ODD_STARTS)[seed % (len(ODD_STARTS) + 1)]
    board = KnightmateBoard(start)
    problems: list[str] = []
    moves: list[str] = []
    sans: list[str] = []
    positions = 0
    while True:
        fen = board.fen()
        positions += 1
        ours = {board.uci(move) for move in board.legal_moves}
        if ours != fairy.legal_moves(fen):
            return positions, [f"legal moves differ in {fen}: {sorted(ours ^ fairy.legal_moves(fen))}"]
        if chess.popcount(board.occupied) <= 6:
            mine = (board.has_insufficient_material(chess.WHITE), board.has_insufficient_material(chess.BLACK))
            if mine != fairy.insufficient_material(fen):
                problems.append(f"insufficient material {mine} != {fairy.insufficient_material(fen)} in {fen}")
        if positions % SAN_SAMPLE_EVERY == 0:
            for move in board.legal_moves:
                if board.san(move) != fairy.san(fen, board.uci(move)):
                    problems.append(f"san {board.san(move)} != {fairy.san(fen, board.uci(move))} in {fen}")
        if not ours:
            expected = -fairy.result_without_moves(fen) if board.is_checkmate() else 0
            if fairy.result_without_moves(fen) > 0 or (expected == 0) != board.is_stalemate():
                problems.append(f"game end differs in {fen}: {fairy.result_without_moves(fen)}")
            break
        if board.outcome() is not None or len(moves) >= MAX_PLIES:
            break
        move = _random_move(board, rng)
        moves.append(board.uci(move))
        sans.append(board.san(move))
        board.push(move)
        if board.fen() != fairy.fen_after(fen, moves[-1]):
            problems.append(f"fen after {moves[-1]} in {fen}: {board.fen()} != {fairy.fen_after(fen, moves[-1])}")
    if sans != fairy.san_of_game(start, moves):
        problems.append(f"san of game from {start} differs: {sans} != {fairy.san_of_game(start, moves)}")
    return positions, problems


@pytest.mark.long
def test_random_games_agree_with_fairy_stockfish_on_at_least_20000_positions() -> None:
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_compare_game, range(GAMES), chunksize=5))
    positions = sum(count for count, _ in results)
    problems = [problem for _, found in results for problem in found]
    assert not problems, "\n".join(problems[:20])
    assert positions >= 20_000


@pytest.mark.parametrize("fen", [STARTING_FEN] + ODD_STARTS)
def test_san_of_every_legal_move_agrees_with_fairy_stockfish(fen: str) -> None:
    board = KnightmateBoard(fen)
    for move in board.legal_moves:
        assert board.san(move) == fairy.san(fen, board.uci(move))


@pytest.mark.parametrize("fen", ODD_STARTS)
def test_odd_start_positions_are_valid_for_fairy_stockfish(fen: str) -> None:
    assert fairy.is_valid(fen)
