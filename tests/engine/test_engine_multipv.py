"""MultiPV: the best N root moves, each with its exact score, from the engine and through UCI."""

from __future__ import annotations

import chess
import chess.engine
import pytest

from bot.engine import Engine, Limits
from bot.engine.search import MAX_MULTIPV
from bot.own_command import OWN_COMMAND
from variant import KnightmateBoard

TIMEOUT_S = 20

#: White's rook on d4 can take an undefended queen (d7) or rook (h4); every other move leaves it
#: to the queen or loses the exchange. Exact scores differ by about the material; bounds from a
#: null-window search would all read as the best line's score or below it.
TWO_CAPTURES = "6k1/pp1q1ppp/8/8/1b1R3r/8/PP3PPP/2Q3K1 w - - 0 1"


def test_lines_are_distinct_moves_in_order_with_exact_scores() -> None:
    board = KnightmateBoard(TWO_CAPTURES)
    result = Engine(hash_mb=16).search(board, Limits(depth=3), multipv=3)
    lines = result.lines
    assert [board.san(line.move) for line in lines[:2] if line.move] == ["Rxd7", "Rxh4"]
    assert result.move == lines[0].move and result.score_cp == lines[0].score_cp
    scores = [line.score_cp or 0 for line in lines]
    assert all(line.score_cp is not None for line in lines)
    # Queen 1013, rook 490 (weights.PIECE_VALUES), give or take the squares and the replies.
    assert scores[0] - scores[1] > 300 and scores[1] - scores[2] > 300, scores
    for line in lines:
        assert line.pv[0] == line.move and line.depth == 3


def test_each_line_scores_as_a_search_of_its_move_alone() -> None:
    """A line's score is exact: the position after its move, searched to one ply less with a
    fresh engine, gets the same score from the other side (the same search, so the same tree)."""
    board = KnightmateBoard("rmbqkbmr/ppp2ppp/3p4/4p3/3PP3/8/PPP2PPP/RMBQKBMR w KQkq - 0 3")
    lines = Engine(hash_mb=16).search(board, Limits(depth=3), multipv=4).lines
    assert len({line.move for line in lines}) == 4
    for line in lines:
        assert line.move is not None and line.score_cp is not None
        board.push(line.move)
        reply = Engine(hash_mb=16).search(board, Limits(depth=2))
        board.pop()
        assert reply.score_cp is not None
        assert -reply.score_cp == line.score_cp, (board.san(line.move), line.score_cp, reply.score_cp)


def test_fewer_legal_moves_give_fewer_lines_and_a_mate_leads() -> None:
    board = KnightmateBoard("k7/7p/8/8/8/8/2Q5/7K w - - 0 1")  # Qc6# among many moves
    result = Engine(hash_mb=16).search(board, Limits(depth=3), multipv=5)
    assert result.mate == 1 and result.lines[0].mate == 1 and len(result.lines) == 5
    assert all(line.mate != 1 for line in result.lines[1:])
    lonely = KnightmateBoard("k7/p7/8/8/8/8/8/K7 w - - 0 1")  # the royal knight has two moves
    assert len(Engine(hash_mb=16).search(lonely, Limits(depth=2), multipv=5).lines) == lonely.legal_moves.count()


def test_every_report_carries_the_lines_and_single_pv_carries_none() -> None:
    board = KnightmateBoard()
    reports = []
    Engine(hash_mb=16).search(board, Limits(depth=4), on_info=reports.append, multipv=2)
    assert [report.depth for report in reports] == [1, 2, 3, 4]
    assert all(len(report.lines) == 2 and report.lines[0].move != report.lines[1].move for report in reports)
    assert Engine(hash_mb=16).search(board, Limits(depth=3)).lines == ()


@pytest.mark.parametrize("multipv", [0, MAX_MULTIPV + 1])
def test_multipv_out_of_range_is_refused(multipv: int) -> None:
    with pytest.raises(ValueError, match="multipv"):
        Engine(hash_mb=16).search(KnightmateBoard(), Limits(depth=1), multipv=multipv)


def test_python_chess_analyse_reads_three_lines_from_the_uci_process() -> None:
    board = KnightmateBoard(TWO_CAPTURES)
    with chess.engine.SimpleEngine.popen_uci([*OWN_COMMAND, "uci"], timeout=TIMEOUT_S) as engine:
        infos = engine.analyse(board, chess.engine.Limit(depth=3), multipv=3)
        assert [info["multipv"] for info in infos] == [1, 2, 3]
        assert [board.san(info["pv"][0]) for info in infos[:2]] == ["Rxd7", "Rxh4"]
        scores = [info["score"].white().score() for info in infos]
        assert all(score is not None for score in scores)
        assert scores == sorted(scores, reverse=True) and len(set(scores)) == 3, scores
        # From the start position every line is a distinct move too, and back at one line
        # the answer is a single line again.
        start = engine.analyse(KnightmateBoard(), chess.engine.Limit(depth=3), multipv=4)
        assert len({info["pv"][0] for info in start}) == 4
        single = engine.analyse(board, chess.engine.Limit(depth=2))
        assert "multipv" not in single and board.san(single["pv"][0]) == "Rxd7"
