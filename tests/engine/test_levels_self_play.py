"""Strength levels in self-play: a higher level beats a lower one.

Apart from test_engine_levels.py, and marked ``long``, because it takes half a minute with the compiled
engine (CI's pure-Python build runs tests/engine without it: minutes there). The levels search
within their own node and depth limits (no clock), so the games do not depend on the machine's
load and, with seeded engines, repeat exactly. Four games a pair tell only a large gap apart:
the levels three apart, from the bottom to the middle; the upper levels, whose searches are
larger, are ordered by the calibration match in bench/RESULTS.md ("Levels calibration").
"""

from __future__ import annotations

import chess
import pytest

from bot.engine import Engine, Limits
from bot.engine.levels import level
from bot.engine.weights import PIECE_VALUES
from variant import KnightmateBoard

OPENINGS = [["e2e4", "e7e5"], ["d2d4", "d7d5"]]
#: A game unfinished after this many plies goes to the side three pawns up, else it is a draw.
MAX_PLIES = 60


def material(board: KnightmateBoard) -> int:
    """White's material less Black's, in centipawns."""
    return sum(PIECE_VALUES[piece] * (len(board.pieces(piece, chess.WHITE)) - len(board.pieces(piece, chess.BLACK)))
               for piece in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN))


def play(white: Engine, black: Engine, opening: list[str]) -> float:
    """White's score in one game."""
    board = KnightmateBoard()
    for uci in opening:
        board.push_uci(uci)
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < MAX_PLIES:
        move = (white if board.turn == chess.WHITE else black).search(board, Limits(nodes=10**6)).move
        assert move is not None
        board.push(move)
    outcome = board.outcome(claim_draw=True)
    if outcome is not None:
        return 0.5 if outcome.winner is None else float(outcome.winner == chess.WHITE)
    balance = material(board)
    return 0.5 if abs(balance) < 300 else float(balance > 0)


@pytest.mark.long
@pytest.mark.parametrize(("weaker", "stronger"), [(1, 4), (2, 5)])
def test_a_higher_level_beats_a_lower_one_in_self_play(weaker: int, stronger: int) -> None:
    score = 0.0
    for game, opening in enumerate(OPENINGS):
        low = Engine(hash_mb=16, elo=level(weaker).elo, seed=game)
        high = Engine(hash_mb=16, elo=level(stronger).elo, seed=100 + game)
        score += play(high, low, opening) + 1 - play(low, high, opening)
    assert score > len(OPENINGS), f"level {stronger} scored {score} of {2 * len(OPENINGS)} against level {weaker}"
