"""The search finds mates, plays only legal moves, scores draws as draws and keeps its time.

Mate positions were found by search and proved with Fairy-Stockfish (pyffish) as the referee:
every defence was tried with pyffish's move generator and each line ends in a position where
pyffish sees no legal move and a check; none of the mates in 2 or 3 has a shorter mate.
"""

from __future__ import annotations

import pickle
import random
import threading
import time

import chess
import pyffish
import pytest
from librt.vecs import vec
from mypy_extensions import i64

from bot.engine import Engine, Limits, SearchResult
from bot.engine.position import NO_MOVE, encode
from bot.engine.search import (
    _LMR_SIZE,
    _REDUCTIONS,
    FUTILITY_MARGINS,
    LATE_MOVE_LIMITS,
    LATE_MOVE_LIMITS_NOT_IMPROVING,
    MATE_BOUND,
    MAX_MOVES,
    MAX_PLY,
    NO_SCORE,
    PROBCUT_MARGIN,
    RAZOR_DEPTH,
    RAZOR_MARGINS,
    UPPER,
    MovePicker,
    _continuation_row,
    _quiets_allowed,
)
from tests.helpers.random_positions import random_positions
from tests.helpers.search_internals import make_search
from variant import KnightmateBoard

VARIANT = "knightmate"


def pyffish_mated(fen: str, moves: list[str]) -> bool:
    return not pyffish.legal_moves(VARIANT, fen, moves) and bool(pyffish.gives_check(VARIANT, fen, moves))


def search(fen: str, **limits: int) -> tuple[KnightmateBoard, SearchResult]:
    board = KnightmateBoard(fen)
    return board, Engine(hash_mb=16).search(board, Limits(**limits))


MATES_IN_ONE = [
    "k7/7p/8/8/8/8/2Q5/7K w - - 0 1",  # Qc6#, the royal knight far away
    "8/8/7k/8/K7/8/M3Q3/8 w - - 0 1",
    "8/5Q2/8/8/8/5M2/1K5k/8 w - - 0 1",
    "8/2R5/8/4K3/7Q/k7/8/8 w - - 0 1",
]
MATES_IN_TWO = [
    "8/3Q4/8/8/8/8/K4k2/8 w - - 0 1",  # the queen alone: its royal knight is far from the action
    "1K6/8/8/8/8/4k3/8/1Q6 w - - 0 1",
    "1k6/8/4K1Q1/8/8/8/2R5/8 w - - 0 1",
]
MATES_IN_THREE = [
    "5K2/5Q2/8/8/8/8/2k5/8 w - - 0 1",  # the queen alone again
    "8/8/8/6R1/7K/7k/2R5/8 w - - 0 1",  # two rooks
    "4Q3/8/8/2k5/8/8/m2K4/8 w - - 0 1",  # queen against a commoner
]


@pytest.mark.parametrize("fen", MATES_IN_ONE)
def test_finds_mate_in_one(fen: str) -> None:
    board, result = search(fen, depth=3)
    assert result.mate == 1 and result.score_cp is None
    assert result.move is not None
    assert pyffish_mated(fen, [board.uci(result.move)])


def play_out(fen: str, attacker_moves: int, depth: int) -> list[str]:
    """Both sides played by the engine until the attacker has made *attacker_moves* moves."""
    board = KnightmateBoard(fen)
    engine = Engine(hash_mb=16)
    moves: list[str] = []
    for _ in range(2 * attacker_moves - 1):
        result = engine.search(board, Limits(depth=depth))
        if result.move is None:
            break
        moves.append(board.uci(result.move))
        board.push(result.move)
    return moves


@pytest.mark.parametrize(("fen", "n"), [(fen, 2) for fen in MATES_IN_TWO] + [(fen, 3) for fen in MATES_IN_THREE])
def test_finds_forced_mate_and_delivers_it(fen: str, n: int) -> None:
    _, result = search(fen, depth=2 * n + 1)
    assert result.mate == n
    moves = play_out(fen, n, 2 * n + 1)
    assert len(moves) == 2 * n - 1
    assert pyffish_mated(fen, moves)


def test_reports_being_mated_as_negative_mate() -> None:
    # Black to move after 1. Qb3 in the mate-in-two position: mated next move whatever it does.
    board = KnightmateBoard("8/3Q4/8/8/8/8/K4k2/8 w - - 0 1")
    first = Engine(hash_mb=16).search(board, Limits(depth=5)).move
    assert first is not None
    board.push(first)
    result = Engine(hash_mb=16).search(board, Limits(depth=4))
    assert result.mate == -1


MATE_IN_FOUR = "2k5/8/8/4m3/8/3b4/8/R2QK3 w - - 0 30"


@pytest.mark.parametrize("moves", [[], ["d1d3"]], ids=["giving mate", "being mated"])
def test_a_timed_search_ends_at_the_depth_that_holds_its_mate(moves: list[str]) -> None:
    """Once an iteration's depth holds every line of the mate it found, deeper iterations only
    repeat it (the mate-distance bounds cut everything beyond), so a timed search stops there and
    reports that depth. Being mated, it used to iterate on to MAX_PLY and report depth 100, which
    the PGN's ``[%eval #-3,100]`` then showed."""
    board = KnightmateBoard(MATE_IN_FOUR)
    for move in moves:
        board.push_uci(move)
    infos: list[SearchResult] = []
    result = Engine(hash_mb=16).search(board, Limits(movetime_ms=5000), on_info=infos.append)
    assert result.mate is not None and result.mate == (4 if not moves else -3)
    mate_plies = 2 * result.mate - 1 if result.mate > 0 else -2 * result.mate
    holding = [info.depth for info in infos if info.mate == result.mate and info.depth >= mate_plies]
    assert result.depth == holding[0] < MAX_PLY


def test_checkmated_position_returns_no_move() -> None:
    board = KnightmateBoard("k7/7p/8/8/8/8/2Q5/7K w - - 0 1")
    board.push_uci("c2c6")
    result = Engine().search(board, Limits(depth=3))
    assert result.move is None and result.mate == 0


def test_stalemate_returns_no_move_and_a_draw_score() -> None:
    # Black's royal knight on a8 has b6 and c7, both covered by the queen on c6... from b5/c5:
    fen = "k7/8/8/2Q5/8/8/8/7K b - - 0 1"
    board = KnightmateBoard(fen)
    assert not pyffish.legal_moves(VARIANT, fen, []) and not pyffish.gives_check(VARIANT, fen, [])
    result = Engine().search(board, Limits(depth=3))
    assert result.move is None and result.score_cp == 0 and result.mate is None


def test_insufficient_material_scores_as_draw() -> None:
    _, result = search("8/8/3k4/8/8/2B5/8/5K2 w - - 0 1", depth=4)
    assert result.score_cp == 0


def test_fifty_move_rule_scores_winning_material_as_draw() -> None:
    # A queen up, but the next quiet move makes it a draw and nothing mates at once.
    _, result = search("8/8/3k4/8/8/8/2Q5/5K2 w - - 99 80", depth=4)
    assert result.score_cp == 0


def test_side_behind_takes_a_repetition() -> None:
    board = KnightmateBoard("rmb1kbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w - - 0 1")
    for uci in ("e1f3", "e8f6", "f3e1"):
        board.push_uci(uci)
    result = Engine().search(board, Limits(depth=4))
    assert result.move == chess.Move.from_uci("f6e8")
    assert result.score_cp == 0


@pytest.mark.parametrize("fen", [
    # The white queen is attacked by a pawn and can be lost in many ways; it must step to safety.
    "rmbqkbmr/ppp1pppp/8/3p4/2Q5/8/PPPPPPPP/RMB1KBMR w - - 0 1",
    "rmb1kbmr/pppp1ppp/4p3/8/3Q4/2p5/PPP1PPPP/RMB1KBMR w - - 0 1",
    "rmbqkbmr/pppp1ppp/8/4p3/5Q2/8/PPPPPPPP/RMB1KBMR w - - 0 1",
])
def test_never_leaves_queen_hanging(fen: str) -> None:
    board, result = search(fen, depth=3)
    assert result.move is not None
    board.push(result.move)
    queen = board.queens & board.occupied_co[chess.WHITE]
    assert queen, "the queen was given away"
    queen_square = chess.msb(queen)
    capturers = board.attackers_mask(chess.BLACK, queen_square)
    defended = board.attackers_mask(chess.WHITE, queen_square)
    assert not capturers or (defended and all(board.piece_type_at(s) == chess.QUEEN
                                              for s in chess.scan_forward(capturers)))




def test_every_returned_move_is_legal_and_the_board_is_untouched() -> None:
    engine = Engine(hash_mb=16)
    for board in random_positions(25, seed=4, plies=range(4, 60), unfinished=True):
        fen, stack = board.fen(), list(board.move_stack)
        result = engine.search(board, Limits(nodes=600))
        assert result.move in board.legal_moves
        assert all(isinstance(move, chess.Move) for move in result.pv)
        assert board.fen() == fen and board.move_stack == stack


def test_movetime_200_ms_returns_within_budget() -> None:
    board = KnightmateBoard("r1bqkb1r/ppp2ppp/2m2m2/3pp3/4P3/2M2M2/PPPP1PPP/R1BQKB1R w KQkq - 0 4")
    started = time.perf_counter()
    result = Engine().search(board, Limits(movetime_ms=200, move_overhead_ms=0))
    elapsed_ms = (time.perf_counter() - started) * 1000
    assert result.move in board.legal_moves
    assert elapsed_ms < 200 + 100  # slack for a loaded machine: the bot holds back 100 ms too


def test_clock_budget_leaves_the_overhead_unspent() -> None:
    board = KnightmateBoard()
    started = time.perf_counter()
    result = Engine().search(board, Limits(wtime_ms=400, btime_ms=400, move_overhead_ms=100))
    elapsed_ms = (time.perf_counter() - started) * 1000
    assert result.move in board.legal_moves
    assert elapsed_ms < 300


def test_stop_event_ends_an_infinite_search() -> None:
    stop = threading.Event()
    infos: list[SearchResult] = []
    timer = threading.Timer(0.2, stop.set)
    timer.start()
    started = time.perf_counter()
    result = Engine().search(KnightmateBoard(), Limits(infinite=True), stop=stop, on_info=infos.append)
    timer.join()
    assert time.perf_counter() - started < 1.0
    assert result.move in KnightmateBoard().legal_moves
    assert infos and [info.depth for info in infos] == list(range(1, len(infos) + 1))


@pytest.mark.parametrize("nodes", [1, 50, 500])
def test_node_limit_is_respected(nodes: int) -> None:
    result = Engine().search(KnightmateBoard(), Limits(nodes=nodes))
    assert result.nodes <= nodes
    assert result.move in KnightmateBoard().legal_moves


def test_search_result_survives_pickling_for_worker_processes() -> None:
    result = Engine().search(KnightmateBoard(), Limits(depth=2))
    assert pickle.loads(pickle.dumps(result)) == result


def test_history_scores_stay_within_their_bound_whatever_the_updates() -> None:
    # Gravity: each update takes off the share of the bonus the score already has of the bound,
    # so no run of rewards or penalties (here 2500 per move, random signs) pushes a score past it.
    from bot.engine.search import HISTORY_BONUS_MAX, HISTORY_MAX, _update_history

    rng = random.Random(3)
    history = vec[i64]([0] * 4096)
    for _ in range(20_000):
        _update_history(history, rng.randrange(8), rng.choice((1, -1)) * rng.randint(1, HISTORY_BONUS_MAX))
    assert max(abs(score) for score in history) <= HISTORY_MAX
    for _ in range(200):
        _update_history(history, 0, HISTORY_BONUS_MAX)
    assert HISTORY_MAX - HISTORY_BONUS_MAX < history[0] <= HISTORY_MAX


def test_late_move_reductions_grow_with_depth_and_with_the_moves_already_searched() -> None:
    def reduction(depth: int, searched: int) -> int:
        return _REDUCTIONS[depth * _LMR_SIZE + searched]

    for depth in range(3, _LMR_SIZE):
        for searched in range(3, _LMR_SIZE):
            assert reduction(depth, searched) >= 1
            assert reduction(depth, searched) >= reduction(depth - 1, searched)
            assert reduction(depth, searched) >= reduction(depth, searched - 1)
    assert reduction(3, 3) == 1  # the old rule's single ply where reductions begin
    assert reduction(12, 30) >= 4


def test_a_quiet_reply_that_cut_after_the_same_move_is_ordered_first() -> None:
    # The continuation history: after White's Qd1-h5, Black's quiet reply g7-g6 refuted it in
    # some other search, so here it comes before every other quiet move, which plain history
    # (all zero) cannot tell apart.
    board = KnightmateBoard()
    for uci in ("e2e4", "e7e5", "d1h5"):
        board.push_uci(uci)
    search = make_search(board.fen())
    position = search.position
    previous = encode(chess.Move.from_uci("d1h5"))
    replies = _continuation_row(position, previous)
    cut = encode(chess.Move.from_uci("g7g6"))

    def quiet_order() -> list[int]:
        picker = MovePicker(position, NO_MOVE, vec[i64]([NO_MOVE, NO_MOVE]), NO_MOVE,
                            search.history[chess.BLACK], search.continuation, replies)
        return [move for move in iter(picker.next, NO_MOVE) if not position.is_capture(move)]

    first = quiet_order()[0]
    assert first != cut
    search._reward_quiet(cut, 6, search.killers[0], search.history[chess.BLACK], vec[i64]([first]), NO_MOVE,
                         replies)
    search.history[chess.BLACK] = vec[i64]([0] * 4096)  # only the continuation remembers it
    assert quiet_order()[0] == cut
    # ... and only after that move: after no move (row 0) the reply has learnt nothing.
    other = _continuation_row(position, NO_MOVE)
    assert other != replies
    assert search.continuation[other + position.types[cut & 63] * 64 + (cut >> 6 & 63)] == 0


def test_quiet_moves_allowed_near_the_leaves_are_none_when_futile_else_the_late_move_limit() -> None:
    """Futility (no quiet move after the first when the static evaluation is a margin below
    alpha) and late-move pruning (a few quiet moves by depth, two thirds of them when the side to
    move is not improving) as one count; neither away from the leaves, and futility never against
    a mate score."""
    depth = 1
    below = -FUTILITY_MARGINS[depth]
    assert _quiets_allowed(depth, 0, below, True) == 0
    assert _quiets_allowed(depth, 0, below + 1, True) == LATE_MOVE_LIMITS[depth]
    assert _quiets_allowed(depth, 0, below + 1, False) == LATE_MOVE_LIMITS_NOT_IMPROVING[depth]
    pairs = zip(LATE_MOVE_LIMITS_NOT_IMPROVING[1:], LATE_MOVE_LIMITS[1:], strict=True)
    assert all(fewer < limit for fewer, limit in pairs)
    assert _quiets_allowed(depth, -MATE_BOUND, -MATE_BOUND - FUTILITY_MARGINS[depth], True) == LATE_MOVE_LIMITS[depth]
    deepest_futile = len(FUTILITY_MARGINS)
    assert _quiets_allowed(deepest_futile, 0, -10_000, True) == LATE_MOVE_LIMITS[deepest_futile]
    assert _quiets_allowed(len(LATE_MOVE_LIMITS), 0, -10_000, False) == MAX_MOVES


def test_quiescence_stores_a_fail_low_as_at_most_alpha_and_reads_its_entries_back() -> None:
    """White's rook can take the pawn on d5. Against an alpha 400 cp above the static evaluation,
    delta pruning skips that capture and the node fails low at the static evaluation; it is stored
    as "at most alpha", since the skipped capture scores above the evaluation. So a later call
    with alpha just above the evaluation is not cut by the entry: it searches the capture and
    fails high, and that result, stored too, decides the same call again without a move."""
    search = make_search("k7/pp6/8/3p4/8/8/PP6/K2R4 w - - 0 1")
    static = search._evaluate()
    assert search._quiescence(static + 400, static + 401, 0) == static
    entry = search._entry(search.keys[-1])
    assert entry is not None and entry[:3] == (0, UPPER, static + 400)

    assert search._quiescence(static + 50, static + 51, 0) >= static + 51
    nodes = search.nodes
    assert search._quiescence(static + 50, static + 51, 0) >= static + 51
    assert search.nodes == nodes + 1  # the node itself, decided by its entry


def test_razoring_ends_a_shallow_node_far_below_beta_where_quiescence_fails_low() -> None:
    """White is a queen down with nothing to capture and no check to give. At depth 2, against a
    beta more than RAZOR_MARGINS[2] above the static evaluation, quiescence stands pat below beta
    and that ends the node without a move searched. With beta within the margin, or one ply
    deeper than RAZOR_DEPTH, the node is left to its moves."""
    search = make_search("k2q4/pp6/8/8/8/8/PP6/K7 w - - 0 1")
    static = search._evaluate()
    nodes = search.nodes
    assert search._static_cut(2, static + RAZOR_MARGINS[2] + 2, 0, static, True, False) == static
    assert search.nodes == nodes
    assert search._static_cut(2, static + RAZOR_MARGINS[2], 0, static, True, False) == NO_SCORE
    assert search._static_cut(RAZOR_DEPTH + 1, static + 5000, 0, static, True, False) == NO_SCORE


def test_probcut_cuts_a_node_where_a_capture_wins_far_more_than_beta() -> None:
    """White's rook takes the queen left alone on d5: a shallow search of that capture beats
    beta by far more than PROBCUT_MARGIN, so the node is cut with that score, and the capture is
    stored as the node's move. With beta above what any capture could win, ProbCut searches
    nothing; in the quiet start position no capture qualifies."""
    search = make_search("k7/pp6/8/3q4/8/8/PP6/K2R4 w - - 0 1")
    static = search._evaluate()
    score = search._probcut(6, 0, 0, static)
    assert score >= PROBCUT_MARGIN
    entry = search._entry(search.keys[-1])
    assert entry is not None and entry[3] == encode(chess.Move.from_uci("d1d5"))

    nodes = search.nodes
    assert search._probcut(6, static + 5000, 0, static) == NO_SCORE
    assert search.nodes == nodes

    start = make_search(KnightmateBoard().fen())
    assert start._probcut(6, 0, 0, start._evaluate()) == NO_SCORE
