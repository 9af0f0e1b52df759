"""bench/make_book.py: which analysed moves become book moves, and their weights."""

from __future__ import annotations

import chess
from make_book import book_moves, weight

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
