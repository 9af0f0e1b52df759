"""bench/datagen/make_book.py: book moves and weights, the covered first plies, the analysis cache, growth, lines."""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import chess
import chess.polyglot
import pytest

from bench.datagen.make_book import (
    AnalysisCache,
    Analyst,
    book_moves,
    child_shares,
    covered_lines,
    describe_lengths,
    grow,
    line_lengths,
    weight,
)
from bench.match.uci_player import UciPlayer
from bot.engine.book import book_entry, write_book
from variant import KnightmateBoard


def test_moves_within_the_margin_are_kept_with_weights_halving_per_step() -> None:
    ranked = [("e2e4", 50), ("d2d4", 35), ("h2h4", 21), ("c2c3", 10)]
    kept = book_moves(KnightmateBoard(), ranked, margin_cp=30, halving_cp=15)
    assert [(choice.uci, choice.weight) for choice in kept] == [("e2e4", 1000), ("d2d4", 500), ("h2h4", 262)]
    assert kept[0].move == chess.Move.from_uci("e2e4")


def test_a_commoner_promotion_as_fairy_stockfish_spells_it_becomes_a_knight_promotion() -> None:
    kept = book_moves(KnightmateBoard("8/1P5k/8/8/8/8/8/K7 w - - 0 1"), [("b7b8m", 900)], 30, 15)
    assert kept[0].move.promotion == chess.KNIGHT and kept[0].uci == "b7b8m"


def test_weights_stay_within_what_polyglot_can_hold() -> None:
    assert weight(0, 15) == 1000 and weight(10_000, 15) == 1


# The positions covered whole.


def test_covered_lines_answer_every_first_move_and_every_reply_to_the_chosen_first_moves() -> None:
    lines = covered_lines(["c2c3", "e2e4"], ["e2e3", "e2e4"])
    start = KnightmateBoard()
    firsts = {start.uci(move) for move in start.legal_moves}
    assert len(firsts) == 18 and {line for line in lines if len(line) == 1} == {(uci,) for uci in firsts}
    replies = [line for line in lines if len(line) == 2]
    assert len(replies) == len(set(replies)) == 3 * 18  # e2e4 once although named twice
    assert {line[0] for line in replies} == {"c2c3", "e2e4", "e2e3"}


def test_child_shares_follow_the_weights_and_give_every_legal_move_the_whim_share() -> None:
    board = KnightmateBoard()
    moves = book_moves(board, [("e2e4", 40), ("d2d4", 25)], 30, 15)  # weights 1000 and 500
    assert dict(child_shares(board, moves, 0.0)) == pytest.approx({"e2e4": 2 / 3, "d2d4": 1 / 3})
    shares = dict(child_shares(board, moves, 0.1))
    assert len(shares) == 18 and sum(shares.values()) == pytest.approx(1.0)
    assert shares["e2e4"] == pytest.approx(0.9 * 2 / 3 + 0.1 / 18) and shares["a2a3"] == pytest.approx(0.1 / 18)


# The analysis cache.


def test_cache_keeps_analyses_across_runs_and_drops_a_last_record_cut_short(tmp_path: Path) -> None:
    path = tmp_path / "data" / "analysis.jsonl"
    cache = AnalysisCache(path)
    cache.put("epd-one", 12, 5, [("e2e4", 30), ("d2d4", 20)])
    cache.put("epd-two", 10, 5, [("e7e5", -10)])
    cache.close()
    with path.open("a") as file:
        file.write('{"epd": "epd-thr')  # a crash in the middle of a write
    again = AnalysisCache(path)
    assert len(again) == 2 and again.get("epd-one", 12, 5) == [("e2e4", 30), ("d2d4", 20)]
    assert again.get("epd-one", 10, 5) is None and again.get("epd-one", 12, 3) is None
    again.close()


def test_cache_with_a_broken_record_inside_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "analysis.jsonl"
    path.write_text('{"epd": "x", "depth": 1, "multipv": 1, "ranked": []}\nnot json\n')
    with pytest.raises(ValueError, match="analysis.jsonl:2: not an analysis record"):
        AnalysisCache(path)


def test_a_position_in_the_cache_is_answered_without_starting_the_engine(tmp_path: Path) -> None:
    cache = AnalysisCache(tmp_path / "analysis.jsonl")
    board = KnightmateBoard()
    cache.put(board.epd(), 12, 5, [("e2e4", 30)])
    engine = UciPlayer("none", [str(tmp_path / "no-such-engine")], {})
    analyst = Analyst(engine, cache, multipv=5)
    assert analyst.ranked((), board, 12) == [("e2e4", 30)]
    assert analyst.searched == 0 and not engine.alive
    cache.close()


# Growing the book, with a stand-in for Fairy-Stockfish.


class FirstMovesAnalyst:
    """Ranks a position's first legal moves (in python-chess's order) a little apart, as if analysed."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, ...]] = []

    def ranked(self, line: tuple[str, ...], board: chess.Board, depth: int) -> list[tuple[str, int]]:
        self.lines.append(line)
        return [(board.uci(move), -10 * rank) for rank, move in enumerate(itertools.islice(board.legal_moves, 3))]


def grow_args(**options: object) -> argparse.Namespace:
    defaults = {"positions": 200, "minutes": 5.0, "depth": 12, "far_depth": 10, "far_ply": 2, "margin": 30,
                "halving": 15, "first_moves": ["e2e3"], "whim": 0.2, "max_plies": 20}
    return argparse.Namespace(**{**defaults, **options})


def test_the_covered_positions_come_first_then_the_likeliest_lines_go_deepest() -> None:
    analyst = FirstMovesAnalyst()
    entries, per_ply = grow(analyst, grow_args())  # type: ignore[arg-type]
    start = KnightmateBoard()
    start_book = [start.uci(move) for move in itertools.islice(start.legal_moves, 3)]
    covered = covered_lines(start_book, ["e2e3"])
    assert analyst.lines[1:1 + len(covered)] == covered
    assert per_ply[0] == 1 and per_ply[1] == 18 and per_ply[2] >= len({*start_book, "e2e3"}) * 18
    assert sum(per_ply.values()) == 200 and max(per_ply) > 3  # beyond the covered plies
    with_moves = {chess.polyglot.zobrist_hash(board) for board in boards(analyst.lines[:1 + len(covered)])}
    assert {int.from_bytes(entry[:8], "big") for entry in entries} >= with_moves


def boards(lines: list[tuple[str, ...]]) -> list[KnightmateBoard]:
    result = []
    for line in lines:
        board = KnightmateBoard()
        for uci in line:
            board.push_uci(uci)
        result.append(board)
    return result


# Line length.


def test_line_lengths_count_plies_until_the_side_to_move_has_no_book_move(tmp_path: Path) -> None:
    board = KnightmateBoard()
    offers = [(board.copy(), board.parse_uci("e2e4"), 1)]
    for uci in ("e2e4", "e7e5"):
        board.push_uci(uci)
        offers.append((board.copy(), board.parse_uci("e7e5" if uci == "e2e4" else "e1f3"), 1))
    path = tmp_path / "book.bin"
    write_book(path, [book_entry(position, move, weight) for position, move, weight in offers])
    assert line_lengths(path, 50, None, seed=1) == [3] * 50
    as_white = line_lengths(path, 360, chess.BLACK, seed=1)  # Black's first move any: e5 once in 18
    assert set(as_white) == {2, 3} and 5 <= as_white.count(3) <= 45
    as_black = line_lengths(path, 360, chess.WHITE, seed=1)  # White's first move any: e4 once in 18
    assert set(as_black) == {1, 3} and 5 <= as_black.count(3) <= 45
    assert describe_lengths([1, 3, 3]) == "mean 2.33 plies, 1 to 3 (1:1 3:2)"
