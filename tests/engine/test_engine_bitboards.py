"""The engine's signed bitboards: its bit scan and count against python-chess's, in whichever
build runs (CI runs this file on the compiled and on the pure build)."""

from __future__ import annotations

import random

import chess

from bot.engine.constants import (
    BB_SQUARES,
    diagonal_attacks,
    popcount,
    signed,
    straight_attacks,
    top_square,
    unsigned,
)


def sample_bitboards() -> list[int]:
    """Every single square, the edges of the signed range, and sparse and dense random sets."""
    rng = random.Random(7)
    bitboards = [1 << square for square in chess.SQUARES]
    bitboards += [chess.BB_ALL, chess.BB_ALL ^ chess.BB_H8, chess.BB_G8 | chess.BB_H8, chess.BB_G8,
                  chess.BB_A1 | chess.BB_H8]
    for _ in range(5000):
        bitboards.append(rng.getrandbits(64) & rng.getrandbits(64) & rng.getrandbits(64))
        bitboards.append(rng.getrandbits(64))
    return [bitboard for bitboard in bitboards if bitboard]


def test_the_signed_form_keeps_the_bits() -> None:
    for bitboard in sample_bitboards():
        assert -(1 << 63) <= signed(bitboard) < 1 << 63
        assert unsigned(signed(bitboard)) == bitboard
    assert signed(chess.BB_H8) < 0 <= signed(chess.BB_G8)
    assert [unsigned(mask) for mask in BB_SQUARES] == chess.BB_SQUARES


def test_popcount_and_the_bit_scan_agree_with_python_chess() -> None:
    for bitboard in sample_bitboards():
        engine_form = signed(bitboard)
        assert popcount(engine_form) == chess.popcount(bitboard), hex(bitboard)
        assert top_square(engine_form) == chess.msb(bitboard), hex(bitboard)
    assert popcount(0) == 0


def test_scanning_a_bitboard_visits_each_square_once() -> None:
    """The loop every generator uses: take the top square, clear it with its table entry."""
    for bitboard in sample_bitboards()[:500]:
        remaining = signed(bitboard)
        visited = []
        while remaining:
            square = top_square(remaining)
            remaining ^= BB_SQUARES[square]
            visited.append(square)
        assert visited == list(chess.scan_reversed(bitboard))


def test_slider_attacks_agree_with_python_chess() -> None:
    """The kindergarten tables against python-chess's own attack tables: every square, with
    random blockers (sparse to dense, h8 and the edges included) and on an empty and a full board."""
    rng = random.Random(11)
    for square in chess.SQUARES:
        occupancies = [0, chess.BB_ALL] + [rng.getrandbits(64) & rng.getrandbits(64) for _ in range(40)]
        occupancies += [rng.getrandbits(64) for _ in range(40)]
        for occupied in occupancies:
            diagonal = chess.BB_DIAG_ATTACKS[square][chess.BB_DIAG_MASKS[square] & occupied]
            straight = (chess.BB_RANK_ATTACKS[square][chess.BB_RANK_MASKS[square] & occupied]
                        | chess.BB_FILE_ATTACKS[square][chess.BB_FILE_MASKS[square] & occupied])
            assert unsigned(diagonal_attacks(square, signed(occupied))) == diagonal, (square, hex(occupied))
            assert unsigned(straight_attacks(square, signed(occupied))) == straight, (square, hex(occupied))
