"""The NNUE evaluation: the engine's integer network against numpy's forward pass of the same
weights, and its incremental accumulator against one computed from scratch.

The reference (``bench/training/nnue_file.py``) finds the inputs from the FEN by itself and computes in
floating point from the dequantized weights, so the engine may differ only by the final integer
division (under 1 cp). Runs in both builds (CI's pure build runs ``tests/engine``).
"""

from __future__ import annotations

import random
from pathlib import Path

import chess
import numpy as np
import pytest

from bench.training import nnue_file
from bot.engine import evaluation
from bot.engine.clock import Limits
from bot.engine.nnue import WEIGHT_LIMIT, Net, read_net, shipped_net
from bot.engine.position import Position, encode
from bot.engine.search import Engine
from tests.helpers.random_positions import random_positions
from variant import KnightmateBoard

SHIPPED_FILE = Path(__file__).resolve().parents[2] / "bot" / "engine" / "data" / "nnue.bin"


def random_net(seed: int, hidden: int) -> nnue_file.QuantizedNet:
    """Weights large enough that many units clip at both ends, within the file's limits."""
    rng = np.random.default_rng(seed)
    return nnue_file.QuantizedNet(
        qa=255, qb=64, scale_cp=400,
        w1=rng.integers(-120, 121, (nnue_file.INPUTS, hidden)).astype(np.int16),
        b1=rng.integers(-200, 400, hidden).astype(np.int16),
        w2=rng.integers(-127, 128, 2 * hidden).astype(np.int16), b2=int(rng.integers(-5000, 5000)))


def engine_score(net: Net, board: KnightmateBoard) -> int:
    position = Position.from_board(board)
    position.use_nnue(net)
    assert position.accumulator is not None
    return position.accumulator.evaluate(position.turn)


@pytest.mark.parametrize("source", ["random", "shipped"])
def test_the_integer_network_equals_numpys_forward_pass(source: str) -> None:
    reference = random_net(7, 32) if source == "random" else nnue_file.read(SHIPPED_FILE)
    net = read_net(nnue_file.to_bytes(reference)) if source == "random" else shipped_net()
    boards = random_positions(150, seed=29, unfinished=True)
    scores = []
    for board in boards:
        expected = nnue_file.forward(reference, board.fen())
        score = engine_score(net, board)
        assert expected - 1 < score <= expected + 1e-6, board.fen()
        scores.append(score)
    # Not a constant net: the positions get many different scores, of both signs.
    assert len(set(scores)) > 100 and min(scores) < 0 < max(scores)


def test_the_evaluation_asks_the_network_once_a_position_keeps_one() -> None:
    board = KnightmateBoard("r1bqkbmr/pp1m1ppp/3p4/2p1p2P/2B1P3/P7/1PPP1PP1/RMBQK1MR w KQkq - 1 6")
    net = read_net(nnue_file.to_bytes(random_net(3, 16)))
    position = Position.from_board(board)
    hand = evaluation.evaluate(position, evaluation.PawnCache())
    position.use_nnue(net)
    assert evaluation.evaluate(position, evaluation.PawnCache()) == engine_score(net, board) != hand


def test_a_net_file_that_would_overflow_the_accumulator_is_refused() -> None:
    reference = random_net(5, 8)
    reference.w1[3, 2] = WEIGHT_LIMIT + 1
    with pytest.raises(ValueError, match="first-layer weight"):
        read_net(nnue_file.to_bytes(reference))
    with pytest.raises(ValueError, match="magic"):
        read_net(b"not a net")
    with pytest.raises(ValueError, match="bytes"):
        read_net(nnue_file.to_bytes(random_net(5, 8))[:-2])


def fresh(board: KnightmateBoard, net: Net) -> list[int]:
    position = Position.from_board(board)
    position.use_nnue(net)
    assert position.accumulator is not None
    return position.accumulator.current()


SPECIAL_STARTS = [
    # Castling both ways for both sides.
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    # En passant on either side, and pawns about to promote (by capture too).
    "4k3/1P4p1/8/3pP3/8/8/1p4P1/4K3 w - d6 0 1",
    "1r2k1r1/P6P/8/8/3Pp3/8/p6p/1R2K1R1 b - d3 0 1",
]


def test_incremental_updates_equal_a_refresh_after_pushes_and_pops() -> None:
    """Random walks that push (special moves preferred) and sometimes pop or pass: after a step,
    read or not at random (so that some slots are computed lazily several at once, and some are
    popped unread), the accumulator equals one computed from scratch for the same board."""
    net = read_net(nnue_file.to_bytes(random_net(11, 16)))
    rng = random.Random(5)
    seen = {"castling": 0, "en passant": 0, "commoner promotion": 0, "capture": 0, "pop": 0, "null": 0,
            "lazy run": 0}
    for start in [KnightmateBoard().fen(), *SPECIAL_STARTS] * 4:
        board = KnightmateBoard(start)
        position = Position.from_board(board)
        position.use_nnue(net)
        assert position.accumulator is not None
        pushed = unread = 0
        for _ in range(60):
            moves = list(board.legal_moves)
            if pushed and (not moves or rng.random() < 0.15):
                board.pop()
                position.pop()
                pushed -= 1
                seen["pop"] += 1
            elif not moves:
                break
            elif rng.random() < 0.05 and not board.is_check():
                position.push_null()
                assert position.accumulator.current() == fresh(board, net)
                position.pop()
                seen["null"] += 1
                continue
            else:
                special = [m for m in moves if board.is_castling(m) or board.is_en_passant(m) or m.promotion
                           or board.is_capture(m)]
                move = rng.choice(special if special and rng.random() < 0.7 else moves)
                kind = ("castling" if board.is_castling(move) else "en passant" if board.is_en_passant(move)
                        else "commoner promotion" if move.promotion == chess.KNIGHT
                        else "capture" if board.is_capture(move) else None)
                if kind:
                    seen[kind] += 1
                board.push(move)
                position.push(encode(move))
                pushed += 1
            if rng.random() < 0.4:
                assert position.accumulator.current() == fresh(board, net), board.fen()
                seen["lazy run"] += unread > 1
                unread = 0
            else:
                unread += 1
        while pushed:
            board.pop()
            position.pop()
            pushed -= 1
        assert position.accumulator.current() == fresh(KnightmateBoard(start), net)
    assert all(count > 0 for count in seen.values()), seen


def test_a_search_with_the_network_plays_a_legal_move_and_the_default_engine_has_none() -> None:
    assert Engine().net is None
    engine = Engine(nnue=True)
    assert engine.net is shipped_net()
    board = KnightmateBoard()
    board.push_uci("e2e4")
    result = engine.search(board, Limits(depth=3))
    assert result.move in board.legal_moves
    assert result.nodes > 0


def test_switching_the_network_on_forgets_the_hand_evaluations_the_engine_cached() -> None:
    """The engine keeps static evaluations from one search to the next (a position's evaluation
    depends on it alone); scores of the hand evaluation must not outlive a switch to the network."""
    board = KnightmateBoard()
    board.push_uci("e2e4")
    engine = Engine()
    engine.search(board, Limits(depth=4))
    engine.new_game()  # the table and histories too, so only the cached evaluations could differ
    engine.net = shipped_net()
    switched = engine.search(board, Limits(depth=4))
    fresh = Engine(nnue=True).search(board, Limits(depth=4))
    assert (switched.pv, switched.score_cp, switched.nodes) == (fresh.pv, fresh.score_cp, fresh.nodes)
