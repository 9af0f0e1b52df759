"""The search's known leaks, each closed, each shown by a position where it cost something.

Each test fails on the search as it was before its fix (engine 0d32876): the leak is named in the
test's docstring. The search's internals are driven directly where a whole search would hide
the leak behind other pruning (a fail-low node, a full table, an aspiration window).
"""

from __future__ import annotations

import chess
import pyffish

from bot.engine import Engine, Limits
from bot.engine.evaluation import PawnCache, evaluate
from bot.engine.moves import gaining_moves
from bot.engine.position import NO_MOVE, Position, encode
from bot.engine.search import EXACT, FUTILITY_MARGINS, LOWER, MATE_BOUND, UPPER
from tests.helpers.search_internals import make_search
from variant import KnightmateBoard

#: White's rook mates on h8 (Black's royal knight on a8 has its two flights taken by its own
#: pawns; Black's rook cannot reach the eighth rank past its pawn on b6), or takes Black's rook
#: on b1 instead, which does not give check.
ROOK_MATE = "k7/2p5/1p6/4p3/3M4/4K3/8/1r5R w - - 0 1"


def test_quiescence_promotes_on_an_empty_square() -> None:
    """Quiescence generated only promotions by capture: a pawn one step from queening on an empty
    square was stood pat on as a pawn."""
    fen = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"
    promotion = encode(chess.Move.from_uci("a7a8q"))
    assert promotion in gaining_moves(Position.from_board(KnightmateBoard(fen)), 1)
    score = make_search(fen)._quiescence(-30_000, 30_000, 1)
    assert score > 700  # a queen, not a pawn


def test_a_fail_low_node_keeps_the_hash_move_it_had() -> None:
    """When every move fails low, no move is known best: the node stored whichever upper bound
    happened to be highest as its hash move, over the one the table had."""
    fresh = make_search(KnightmateBoard().fen())
    key = fresh.keys[-1]
    fresh._search(2, 5000, 5001, 1, True)
    assert fresh.tt[key][1] == UPPER and fresh.tt[key][3] == NO_MOVE

    known = encode(chess.Move.from_uci("d2d4"))
    seeded = make_search(KnightmateBoard().fen(), tt={key: (0, LOWER, 0, known)})
    seeded._search(2, 5000, 5001, 1, True)
    assert seeded.tt[key][1] == UPPER and seeded.tt[key][3] == known


def test_a_full_table_makes_room_without_losing_exact_entries() -> None:
    """A full table was cleared whole in the middle of a search, the iteration's principal
    variation (its exact entries) with it; now shallow bound entries make room."""
    tt: dict[int, tuple[int, int, int, int]] = {1: (1, EXACT, 10, 77)}
    tt.update({key: (1, LOWER, 0, 0) for key in range(2, 9)})
    search = make_search(KnightmateBoard().fen(), tt=tt, tt_capacity=8)
    move = encode(chess.Move.from_uci("d2d4"))
    search._store(3, 5, 0, 10, move, move, 0)
    assert tt[1] == (1, EXACT, 10, 77)
    assert tt[search.keys[-1]][0] == 3
    assert len(tt) < 8


def test_an_aspiration_fail_low_leaves_the_root_order_alone() -> None:
    """After a root window failed low, the move with the highest upper bound was moved to the
    front: an arbitrary move, ahead of the previous iteration's best for the re-search."""
    search = make_search(KnightmateBoard().fen())
    moves = search.position.legal_moves()
    royal_out = encode(chess.Move.from_uci("e1d3"))  # previous best, say; its bound is not the highest
    moves.remove(royal_out)
    moves.insert(0, royal_out)
    order = list(moves)
    score, _ = search._root_window(moves, 2, 5000, 5001)
    assert score <= 5000
    assert moves == order


def test_a_mate_on_the_hundredth_half_move_is_a_mate() -> None:
    """A half-move clock of 100 scored a draw even when the side to move was mated, so the engine
    took a rook instead of mating (the fifty-move rule yields to mate, in Fairy-Stockfish too)."""
    fen = ROOK_MATE.replace(" 0 1", " 99 80")
    board = KnightmateBoard(fen)
    result = Engine(hash_mb=16).search(board, Limits(depth=3))
    assert result.mate == 1 and result.move == chess.Move.from_uci("h1h8")
    assert not pyffish.legal_moves("knightmate", fen, ["h1h8"]) and pyffish.gives_check("knightmate", fen, ["h1h8"])


def test_futility_pruning_keeps_quiet_moves_that_give_check() -> None:
    """Futility and late-move pruning skipped quiet moves that give check: with the static score
    far below alpha, the mate Rh8 was pruned after the captures were tried."""
    search = make_search(ROOK_MATE)
    static = evaluate(search.position, PawnCache())
    alpha = static + FUTILITY_MARGINS[1] + 400  # above taking the rook, far below a mate
    assert alpha < MATE_BOUND
    assert search._search(1, alpha, alpha + 1, 1, True) >= MATE_BOUND


def test_a_lone_rook_bishop_or_commoner_cannot_force_mate() -> None:
    """A lone rook, bishop or commoner against a bare royal knight cannot force mate (the rules'
    strategy notes): it scored about a piece's value, as if winning."""
    for fen in ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "4k3/8/8/8/8/8/8/R3K3 b - - 0 1",
                "4k3/8/8/8/8/2B5/8/4K3 w - - 0 1", "4k3/8/8/8/8/2M5/8/4K3 b - - 0 1",
                "4k2r/8/8/8/8/8/8/4K3 w - - 0 1"):
        assert evaluate(Position.from_board(KnightmateBoard(fen)), PawnCache()) == 0, fen
    for fen in ("4k3/8/8/8/8/8/P7/R3K3 w - - 0 1", "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1",
                "4k3/8/8/8/8/8/8/RM2K3 w - - 0 1"):
        assert evaluate(Position.from_board(KnightmateBoard(fen)), PawnCache()) > 400, fen
