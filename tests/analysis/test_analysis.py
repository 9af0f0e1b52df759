"""The analysis library: Lichess's judgement rules, positions and games analysed by real engines, the PGN."""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Iterator

import chess
import chess.engine
import chess.pgn
import pytest

from bot.analysis import (
    AnalysisEngineError,
    AnalysisStopped,
    Judgement,
    analyse_game,
    analyse_position,
    annotated,
    judge_try,
    open_engine,
)
from bot.analysis.judgement import (
    chances_percent,
    game_accuracy,
    judge,
    move_accuracy,
    win_percent,
    winning_chances,
)
from bot.engine.external import engine_board_of
from tests.helpers.engine_processes import FAIRY_STOCKFISH, needs_fairy_stockfish
from variant import KnightmateBoard

Cp, Mate = chess.engine.Cp, chess.engine.Mate
DEPTH = chess.engine.Limit(depth=4)

# -- the rules ----------------------------------------------------------------------------------


def cp_for_chances(chances: float) -> int:
    """The centipawns whose winning chances are nearest *chances* (the curve inverted by search)."""
    return min(range(-3000, 3001), key=lambda cp: abs(winning_chances(cp) - chances))


def test_winning_chances_follow_lichess_curve() -> None:
    assert winning_chances(0) == 0
    assert winning_chances(300) == pytest.approx(-winning_chances(-300))
    assert winning_chances(100) == pytest.approx(0.1821, abs=1e-4)  # 2 / (1 + e^-0.368208) - 1
    assert win_percent(Cp(5000)) == win_percent(Mate(3)) == pytest.approx(50 + 50 * winning_chances(1000))


def test_the_bar_and_the_graph_share_the_verdicts_curve_without_its_ceiling() -> None:
    assert chances_percent(Cp(100)) == pytest.approx(59.103, abs=1e-3)  # Lichess's slope, not 0.004's 59.87
    assert chances_percent(Cp(-100)) == pytest.approx(100 - chances_percent(Cp(100)))
    assert win_percent(Cp(5000)) < chances_percent(Cp(5000)) < 100
    assert chances_percent(Mate(3)) == 100 and chances_percent(Mate(-3)) == 0


def test_a_mate_given_is_all_the_chances_of_the_side_that_gave_it() -> None:
    mated_black = chess.engine.PovScore(Mate(0), chess.BLACK)  # Black to move is mated
    assert chances_percent(mated_black.white()) == 100 and chances_percent(mated_black.black()) == 0


@pytest.mark.parametrize(("drop", "expected"), [(0.09, None), (0.11, Judgement.INACCURACY),
                                                (0.21, Judgement.MISTAKE), (0.31, Judgement.BLUNDER)])
def test_errors_start_at_drops_of_a_tenth_two_and_three(drop: float, expected: Judgement | None) -> None:
    before = 50
    after = cp_for_chances(winning_chances(before) - drop)
    assert judge(Cp(before), Cp(after)) is expected


@pytest.mark.parametrize(("before", "after", "expected"), [
    (Cp(50), Mate(-3), Judgement.BLUNDER),        # let the opponent mate
    (Cp(-800), Mate(-3), Judgement.MISTAKE),      # ... when already far behind
    (Cp(-1200), Mate(-3), Judgement.INACCURACY),  # ... when lost anyway
    (Mate(2), Cp(300), Judgement.BLUNDER),        # let a mate slip
    (Mate(2), Cp(800), Judgement.MISTAKE),
    (Mate(2), Cp(1200), Judgement.INACCURACY),
    (Mate(2), Mate(-4), Judgement.BLUNDER),       # from mating to being mated
    (Mate(2), Mate(5), None),                     # a slower mate is no error
    (Mate(-3), Mate(-1), None),                   # being mated anyway
    (Mate(-3), Cp(-500), None),
])
def test_mates_are_judged_as_lichess_judges_them(before: chess.engine.Score, after: chess.engine.Score,
                                                  expected: Judgement | None) -> None:
    assert judge(before, after) is expected


def test_move_accuracy_is_lichess_fit_of_the_win_percentage_drop() -> None:
    assert move_accuracy(Cp(100), Cp(150)) == 100
    drop_10 = cp_for_chances(winning_chances(0) - 0.2)  # 10 win-percent points below an even game
    assert move_accuracy(Cp(0), Cp(drop_10)) == pytest.approx(64.6, abs=0.3)
    assert move_accuracy(Cp(0), Mate(-1)) == pytest.approx(10.8, abs=0.3)  # a mate counts as 10 pawns


def test_game_accuracy_is_perfect_without_drops_and_lower_for_the_side_that_dropped() -> None:
    steady = [55.0] * 21
    assert game_accuracy(steady, chess.WHITE) == {chess.WHITE: pytest.approx(100), chess.BLACK: pytest.approx(100)}
    # White's 10th move drops its win percentage from 55 to 25: only White pays.
    dropped = [55.0] * 19 + [25.0] * 2
    accuracy = game_accuracy(dropped, chess.WHITE)
    assert accuracy[chess.BLACK] == pytest.approx(100)
    white = accuracy[chess.WHITE]
    assert white is not None and 60 < white < 95
    assert game_accuracy([50.0], chess.WHITE) == {chess.WHITE: None, chess.BLACK: None}


# -- real engines ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def builtin() -> Iterator[chess.engine.SimpleEngine]:
    engine = open_engine()
    yield engine
    engine.quit()


#: After 1. e4 d5: Qg4 puts the queen where the c8 bishop takes it.
QUEEN_HANG = "rmbqkbmr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RMBQKBMR w KQkq - 0 2"
#: Qg6 mates at once; the royal knight's Ke4 keeps the game level (the engine's 0.00 at depth 3).
MATE_IN_ONE = "r1b2bmr/pm4k1/p6p/1PpPp1p1/R1P2P1P/4M1K1/2Qq1MP1/5B1R w - - 3 32"


def test_a_move_hanging_the_queen_is_a_blunder_with_the_better_line(builtin: chess.engine.SimpleEngine) -> None:
    board = KnightmateBoard(QUEEN_HANG)
    analysis = analyse_game(builtin, board, [board.parse_san("Qg4")], DEPTH)
    review = analysis.moves[0]
    assert review.judgement is Judgement.BLUNDER and review.san == "Qg4"
    assert review.better is not None and review.better.move != board.parse_san("Qg4")
    assert analysis.white.blunders == 1 and analysis.white.accuracy is not None and analysis.white.accuracy < 30
    assert analysis.black.accuracy is None


def test_the_best_move_is_not_marked(builtin: chess.engine.SimpleEngine) -> None:
    board = KnightmateBoard(QUEEN_HANG)
    best = analyse_position(builtin, board, DEPTH).best
    assert best is not None
    analysis = analyse_game(builtin, board, [best.move], DEPTH)
    assert analysis.moves[0].judgement is None and analysis.moves[0].better is None
    assert analysis.white.describe().endswith("0 inaccuracies, 0 mistakes, 0 blunders")


def test_a_missed_mate_is_marked_and_the_mate_is_named(builtin: chess.engine.SimpleEngine) -> None:
    board = KnightmateBoard(MATE_IN_ONE)
    analysis = analyse_game(builtin, board, [board.parse_san("Ke4")], DEPTH)
    review = analysis.moves[0]
    assert review.before == Mate(1) and not review.after.is_mate()
    assert review.judgement is Judgement.BLUNDER
    assert review.better is not None and board.san(review.better.move) == "Qg6#"


def test_a_mate_played_ends_the_game_without_asking_the_engine(builtin: chess.engine.SimpleEngine) -> None:
    board = KnightmateBoard(MATE_IN_ONE)
    analysis = analyse_game(builtin, board, [board.parse_san("Qg6#")], DEPTH)
    assert analysis.moves[0].judgement is None and analysis.positions[1].lines == ()
    assert analysis.positions[1].score.pov(chess.WHITE) > Cp(10_000)


def test_position_lines_arrive_through_the_callback_and_stop_ends_the_search(
        builtin: chess.engine.SimpleEngine) -> None:
    board = KnightmateBoard(QUEEN_HANG)
    seen = []
    analysis = analyse_position(builtin, board, DEPTH, multipv=3, on_info=seen.append)
    assert len(analysis.lines) == 3 and len({line.move for line in analysis.lines}) == 3
    assert seen and seen[-1].lines[0].move == analysis.lines[0].move
    # Each report is a whole set of lines (not the engine's lines one by one), never shallower.
    assert all(len(report.lines) == 3 for report in seen)
    assert [report.depth for report in seen] == sorted(report.depth for report in seen)
    stop = threading.Event()
    with pytest.raises(AnalysisStopped):
        analyse_position(builtin, board, chess.engine.Limit(), on_info=lambda _: stop.set(), stop=stop)
    assert analyse_position(builtin, board, DEPTH).depth == 4  # the engine is ready again


def test_game_progress_is_reported_and_a_set_stop_stops_the_game(builtin: chess.engine.SimpleEngine) -> None:
    board = KnightmateBoard()
    moves = [chess.Move.from_uci(uci) for uci in ("e2e4", "e7e5", "d2d4")]
    progress: list[tuple[int, int]] = []
    analyse_game(builtin, board, moves, chess.engine.Limit(depth=2), on_progress=lambda *done: progress.append(done))
    assert progress == [(1, 4), (2, 4), (3, 4), (4, 4)]
    stop = threading.Event()
    with pytest.raises(AnalysisStopped):
        analyse_game(builtin, board, moves, chess.engine.Limit(depth=2),
                     on_progress=lambda done, _: stop.set() if done == 2 else None, stop=stop)


@needs_fairy_stockfish
def test_fairy_stockfish_analyses_after_a_commoner_promotion() -> None:
    """Fairy-Stockfish drops a ``position`` line with a commoner promotion spelled ``n``, so the
    board it is sent starts after the promotion (bot.engine.external); its lines are legal here."""
    assert FAIRY_STOCKFISH is not None
    board = KnightmateBoard("8/1P5k/8/8/8/8/6p1/K7 w - - 0 1")
    board.push_uci("b7b8m")
    board.push_uci("g2g1q")
    engine = open_engine([FAIRY_STOCKFISH])
    try:
        analysis = analyse_position(engine, board, chess.engine.Limit(depth=8), multipv=2)
    finally:
        engine.quit()
    assert len(analysis.lines) == 2
    for line in analysis.lines:
        replay = board.copy()
        for move in line.pv:
            assert move in replay.legal_moves
            replay.push(move)


def test_the_engine_is_sent_the_position_on_the_board_after_a_rook_leaves_the_royal_s_square() -> None:
    """Each move spelled in its own position: spelled in the start position, the rook's e1a1 (the
    royal knight gone from e1, castling rights left) read as castling, e1c1, and the engine searched
    a position with the rook on c1 (17 games in 300 of bench.datagen.make_puzzle_games)."""
    board = KnightmateBoard("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    for uci in ("e1f3", "e8f6", "a1b1", "a8b8", "b1e1", "b8e8", "e1a1"):
        board.push_uci(uci)
    sent = engine_board_of(board)
    assert sent.fen() == board.fen()
    assert sent.piece_at(chess.A1) == chess.Piece(chess.ROOK, chess.WHITE)


@pytest.mark.parametrize(("command", "message"), [
    (["/nonexistent/engine"], "cannot start"),
    ([sys.executable, "tests/helpers/uci_fake_engine.py", "no-variant"], "no UCI_Variant option"),
    ([sys.executable, "tests/helpers/uci_fake_engine.py", "chess-only"], "does not play knightmate"),
    ([sys.executable, "tests/helpers/uci_fake_engine.py", "exit"], "is it a UCI engine"),
])
def test_an_engine_that_cannot_analyse_is_one_line(command: list[str], message: str) -> None:
    with pytest.raises(AnalysisEngineError, match=message) as error:
        open_engine(command, timeout_s=5)
    assert "\n" not in str(error.value)


# -- the annotated PGN -------------------------------------------------------------------------


def game_of(board: KnightmateBoard, sans: list[str]) -> chess.pgn.Game:
    game = chess.pgn.Game.from_board(board.root())
    node: chess.pgn.GameNode = game
    replay = board.copy()
    for san in sans:
        move = replay.parse_san(san)
        replay.push(move)
        node = node.add_main_variation(move)
    game.headers["Variant"] = "Knightmate"
    return game


def reread(game: chess.pgn.Game) -> chess.pgn.Game:
    text = str(game)
    read = chess.pgn.read_game(io.StringIO(text))
    assert read is not None and not read.errors
    return read


def test_annotated_game_carries_evals_nags_variation_and_summary(builtin: chess.engine.SimpleEngine) -> None:
    board = KnightmateBoard(QUEEN_HANG)
    game = game_of(board, ["Qg4", "Bxg4", "f3"])  # the queen hung on White's first move
    analysis = analyse_game(builtin, board, list(game.mainline_moves()), DEPTH)
    read = reread(annotated(game, analysis, "test engine"))
    nodes = list(read.mainline())
    assert all(node.eval() is not None for node in nodes)
    blunder = nodes[0]
    assert chess.pgn.NAG_BLUNDER in blunder.nags and "Blunder." in blunder.comment
    assert chess.pgn.NAG_BLUNDER not in nodes[1].nags  # Bxg4 was best
    assert len(read.variations) == 2  # the game's move, then the better line
    better, review = read.variations[1], analysis.moves[0]
    assert review.better is not None and better.move == review.better.move
    written = [better.move] + [node.move for node in better.mainline()]
    assert len(written) >= 2 and written == list(review.better.pv[:len(written)])
    assert read.comment.startswith("Analysis by test engine. White: accuracy")
    assert "1 blunder" in read.comment and read.headers["Annotator"] == "test engine"


def shape(game: chess.pgn.Game) -> tuple[int, int, int, int, list[int]]:
    """What an analysis writes, counted: evals, NAGs, summaries, error sentences, variations per node."""
    text = str(game)
    nodes = [game, *game.mainline()]
    return (text.count("[%eval"), sum(len(node.nags) for node in nodes), text.count("Analysis by"),
            text.count(" was best."), [len(node.variations) for node in nodes])


def test_a_game_analysed_twice_is_not_annotated_twice(builtin: chess.engine.SimpleEngine) -> None:
    board = KnightmateBoard(QUEEN_HANG)
    game = game_of(board, ["Qg4", "Bxg4", "f3"])
    game.next().set_clock(59)  # a clock the game had stays
    first = reread(annotated(game, analyse_game(builtin, board, list(game.mainline_moves()), DEPTH), "e"))
    again = reread(annotated(first, analyse_game(builtin, board, list(first.mainline_moves()), DEPTH), "e"))
    assert shape(again) == shape(first)
    evals, nags, summaries, sentences, _ = shape(again)
    assert evals == 3 and summaries == 1 and nags == sentences >= 1
    assert again.next().clock() == 59


def test_a_mate_found_in_a_timed_analysis_is_written_with_the_depth_that_found_it(
        builtin: chess.engine.SimpleEngine) -> None:
    """After 1. Qd3 Black is mated in three: the eval reads ``#3`` with the depth of the iteration
    that holds those six plies, not the engine's MAX_PLY (it read ``[%eval #3,100]``: the search
    ran on to its last ply, each iteration a repetition of the mate)."""
    board = KnightmateBoard("2k5/8/8/4m3/8/3b4/8/R2QK3 w - - 0 30")
    game = game_of(board, ["Qd3"])
    analysis = analyse_game(builtin, board, list(game.mainline_moves()), chess.engine.Limit(time=2.0))
    written = reread(annotated(game, analysis, "test engine")).next()
    assert written is not None
    score = written.eval()
    assert score is not None and score.white() == Mate(3)
    depth = written.eval_depth()
    assert depth is not None and 6 <= depth < 20


# -- learn from your mistakes ---------------------------------------------------------------------

#: White's rook takes Black's queen on h5 for nothing; any other move lets the queen go.
QUEEN_FOR_THE_TAKING = "rmb1kbmr/pppppppp/8/7q/8/8/PPPPPPP1/RMBQKBMR w Q - 0 1"


def test_a_try_that_lets_the_queen_go_is_a_blunder_and_taking_it_is_accepted(
        builtin: chess.engine.SimpleEngine) -> None:
    board = KnightmateBoard(QUEEN_FOR_THE_TAKING)
    limit = chess.engine.Limit(time=0.3)
    wrong = judge_try(builtin, board, chess.Move.from_uci("b2b3"), limit)
    assert not wrong.accepted and wrong.judgement is Judgement.BLUNDER and wrong.best.move.uci() == "h1h5"
    right = judge_try(builtin, board, chess.Move.from_uci("h1h5"), limit)
    assert right.accepted and right.is_best


def test_an_illegal_try_is_refused() -> None:
    with pytest.raises(chess.IllegalMoveError):
        judge_try(None, KnightmateBoard(QUEEN_FOR_THE_TAKING), chess.Move.from_uci("h1h8"),  # type: ignore[arg-type]
                  chess.engine.Limit(time=0.1))
