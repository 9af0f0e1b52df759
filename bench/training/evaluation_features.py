"""The engine's evaluation as a linear function of its numbers, so a tuner can fit them quickly.

``bot.engine.evaluation.evaluate`` adds up, for the middlegame and the endgame, numbers times
counts (material, piece-square entries, mobility, checks, pawn structure), blends the two sums
by the game phase and adds the tempo bonus. :func:`features` returns those counts for a board,
and :func:`score` multiplies them by a vector of numbers and blends them the same way, so that
``score(current_values(), features(board)) == evaluate(Position.from_board(board), PawnCache())`` exactly
(``tests/test_evaluation_features.py`` checks this on many positions, so the two cannot drift).
A fit then only multiplies a fixed matrix by a changing vector, which takes milliseconds.

What is fitted, and what is not:

- material (pawn to queen), the bishop pair, every entry of the tables of the whole-board terms
  (safe flight squares in each half, queen distance, passed pawns and their free paths), the
  per-square weights of mobility, checks and safe checks, the royal danger (its count is the
  square of the attack units on the zone), threats and hanging pieces, the passed pawns'
  royal-knight and commoner distances, rooks on files, doubled and isolated pawns, and the tempo;
- every entry of the piece-square tables (a pawn's only from rank 2 to rank 7, where pawns stand);
- not fitted: the phase weights, the "typical" mobility counts and the attack units per piece
  type (the score is not linear in them) and ``LAZY_MARGIN`` (a search bound, not part of the score).

The helpers that find slider attacks, pawn spans and knight distances are the evaluation's own;
the maps of which squares each side attacks (for safe squares, threats, defended pieces and the
attack units) come from the board's ``attacks_mask``, so those terms are checked against another
computation.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import chess
from chess import BB_DIAG_ATTACKS, BB_DIAG_MASKS, BB_FILES, BB_KING_ATTACKS, BB_KNIGHT_ATTACKS, Bitboard

from bot.engine import evaluation as ev
from bot.engine import weights
from bot.engine.constants import diagonal_attacks, signed, straight_attacks

#: The piece-square tables, (middlegame, endgame) names by python-chess piece type.
TABLES = {piece_type: (f"{weights.TABLE_NAMES[piece_type]}_MG", f"{weights.TABLE_NAMES[piece_type]}_EG")
          for piece_type in chess.PIECE_TYPES}
#: The squares whose table entries are fitted, by piece type: a pawn never stands on its first
#: or last rank, so those entries stay 0.
TABLE_SQUARES = {piece_type: [square for square in chess.SQUARES
                              if piece_type != chess.PAWN or 1 <= chess.square_rank(square) <= 6]
                 for piece_type in chess.PIECE_TYPES}
#: Numbers fitted as whole tuples, entry by entry (index 0 of PIECE_VALUES is no piece, 6 the royal knight).
TUPLE_PARAMETERS = {
    "PIECE_VALUES": range(1, 6),
    "ESCAPE_SQUARE_BONUS": range(8),
    "ESCAPE_SQUARE_BONUS_EG": range(8),
    "QUEEN_NEAR_PENALTY": range(1, 8),
    "PASSED_PAWN_MG": range(1, 7),
    "PASSED_PAWN_EG": range(1, 7),
    "BISHOP_MOBILITY": range(2),
    "ROOK_MOBILITY": range(2),
    "QUEEN_MOBILITY": range(2),
    "ROOK_OPEN_FILE": range(2),
    "ROOK_HALF_OPEN_FILE": range(2),
    "THREAT_BY_PAWN": range(2),
    "THREAT_BY_MINOR": range(2),
    "THREAT_BY_ROOK": range(2),
    "HANGING": range(2),
    "PASSED_FREE_PATH": range(1, 7),
    "PASSED_ROYAL_DISTANCE": range(2),
    "PASSED_COMMONER_DISTANCE": range(2),
}
SCALAR_PARAMETERS = (
    "BISHOP_PAIR", "QUEEN_CHECK_PENALTY", "ROOK_CHECK_PENALTY", "BISHOP_CHECK_PENALTY",
    "COMMONER_CHECK_PENALTY", "SAFE_CHECK_BONUS", "ROYAL_DANGER", "COMMONER_MOBILITY", "DOUBLED_PAWN",
    "ISOLATED_PAWN", "TEMPO",
)

Key = tuple[str, ...]
_Adder = Callable[[Key, int, int], None]
"""Adds (key, middlegame count, endgame count) for one side."""
_SignedAdder = Callable[[Key, int, int, int], None]
"""Adds (key, sign, middlegame count, endgame count): sign +1 for White, -1 for Black."""


def _current(data: dict[str, Any] | None = None) -> dict[Key, int]:
    """Every fitted number of the weights file's content *data* (the shipped file's by default)."""
    if data is None:
        data = weights.read_data()
    values: dict[Key, int] = {}
    for name, indices in TUPLE_PARAMETERS.items():
        for index in indices:
            values[(name, str(index))] = data[name][index]
    for name in SCALAR_PARAMETERS:
        values[(name,)] = data[name]
    for piece_type, names in TABLES.items():
        for name in names:
            for square in TABLE_SQUARES[piece_type]:
                row = data[name][chess.square_rank(square)]
                values[(name, chess.square_name(square))] = row[chess.square_file(square)]
    return values


_CURRENT = _current()
#: Every fitted number, in a fixed order: the columns of the feature matrix.
KEYS: tuple[Key, ...] = tuple(_CURRENT)
INDEX: dict[Key, int] = {key: index for index, key in enumerate(KEYS)}
TEMPO = INDEX[("TEMPO",)]


def current_values() -> list[int]:
    """The numbers the evaluation uses now, in :data:`KEYS` order."""
    return [_CURRENT[key] for key in KEYS]


def label(key: Key) -> str:
    return key[0] if len(key) == 1 else f"{key[0]}[{key[1]}]"


@dataclass(frozen=True)
class Features:
    """The counts each number is multiplied by, White minus Black, for each half of the blend."""

    mg: list[int]
    eg: list[int]
    phase: int
    """Clipped to ``PHASE_TOTAL`` (24 = full middlegame)."""
    white_to_move: bool
    lone_piece: bool = False
    """A lone rook, bishop or commoner against a bare royal knight: the evaluation says 0, whatever
    the numbers."""


def score(values: list[int], f: Features) -> int:
    """The evaluation for the side to move, computed as :func:`bot.engine.evaluation.evaluate` does."""
    if f.lone_piece:
        return 0
    mg = sum(v * c for v, c in zip(values, f.mg, strict=True))
    eg = sum(v * c for v, c in zip(values, f.eg, strict=True))
    blended = mg * f.phase + eg * (weights.PHASE_TOTAL - f.phase)
    return values[TEMPO] + (blended if f.white_to_move else -blended) // weights.PHASE_TOTAL


def features(board: chess.Board) -> Features:
    """The feature counts of a board (any python-chess board with Knightmate pieces)."""
    count = len(KEYS)
    mg, eg = [0] * count, [0] * count
    phase = 0

    def add(key: Key, sign: int, mg_count: int, eg_count: int) -> None:
        index = INDEX[key]
        mg[index] += sign * mg_count
        eg[index] += sign * eg_count

    for color in chess.COLORS:
        sign = 1 if color == chess.WHITE else -1
        for piece_type in chess.PIECE_TYPES:
            for square in chess.scan_forward(board.pieces_mask(piece_type, color)):
                phase += weights.PHASE_WEIGHTS[piece_type]
                if piece_type != chess.KING:
                    add(("PIECE_VALUES", str(piece_type)), sign, 1, 1)
                entry = chess.square_name(square if color == chess.WHITE else chess.square_mirror(square))
                mg_name, eg_name = TABLES[piece_type]
                add((mg_name, entry), sign, 1, 0)
                add((eg_name, entry), sign, 0, 1)

    pieces = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    maps = {color: _attack_maps(board, color) for color in chess.COLORS}
    for color, own, enemy in ((chess.WHITE, white, black), (chess.BLACK, black, white)):
        sign = 1 if color == chess.WHITE else -1

        def add_own(key: Key, m: int, e: int, sign: int = sign) -> None:
            add(key, sign, m, e)

        checks = _side_features(pieces, board.occupied, own, enemy, add_own)
        _royal_danger_features(board, color, add_own)
        _threat_features(board, color, checks, maps[color], maps[not color].all, add_own)
    _pawn_features(pieces[0] & white, pieces[0] & black, add)
    lone = ev.lone_piece(signed(board.occupied), signed(board.kings), signed(board.pawns), signed(board.queens))
    return Features(mg, eg, min(phase, weights.PHASE_TOTAL), board.turn == chess.WHITE, lone)


@dataclass(frozen=True)
class AttackMaps:
    """The squares one side's pieces attack (own pieces there are defended), from the board's own
    ``attacks_mask``, not from the evaluation's code."""

    all: Bitboard
    pawns: Bitboard
    minors: Bitboard
    """Commoners and bishops."""
    rooks: Bitboard


def _attack_maps(board: chess.Board, color: chess.Color) -> AttackMaps:
    by_type = {piece_type: 0 for piece_type in chess.PIECE_TYPES}
    for square in chess.scan_forward(board.occupied_co[color]):
        piece_type = board.piece_type_at(square)
        assert piece_type is not None
        by_type[piece_type] |= board.attacks_mask(square)
    return AttackMaps(all=functools.reduce(operator.or_, by_type.values()), pawns=by_type[chess.PAWN],
                      minors=by_type[chess.KNIGHT] | by_type[chess.BISHOP], rooks=by_type[chess.ROOK])


def _royal_danger_features(board: chess.Board, color: chess.Color, add: _Adder) -> None:
    """The attack units behind ``evaluation._side_terms``'s royal danger, for the side *color*
    attacking the enemy royal knight's zone (its knight-move squares), from ``attacks_mask``."""
    own = board.occupied_co[color]
    enemy_royal = board.king(not color)
    if enemy_royal is None or not (board.queens | board.rooks | board.knights) & own:
        return
    zone = BB_KNIGHT_ATTACKS[enemy_royal]
    units = 0
    for square in chess.scan_forward(own & ~board.pawns & ~board.kings):
        piece_type = board.piece_type_at(square)
        assert piece_type is not None
        units += weights.ROYAL_ATTACK_UNITS[piece_type] * (board.attacks_mask(square) & zone).bit_count()
    add(("ROYAL_DANGER",), units * units, 0)


def _threat_features(board: chess.Board, color: chess.Color, checks: Bitboard, attacks: AttackMaps,
                     enemy_attacks: Bitboard, add: _Adder) -> None:
    """The counts behind ``evaluation._threat_terms`` for one side."""
    own, enemy = board.occupied_co[color], board.occupied_co[not color]
    royal = board.kings & own
    if royal and (board.queens | board.rooks) & enemy:
        flight = BB_KNIGHT_ATTACKS[royal.bit_length() - 1] & ~own & ~enemy_attacks & chess.BB_ALL
        flights = str(min(flight.bit_count(), 7))
        add(("ESCAPE_SQUARE_BONUS", flights), 1, 0)
        add(("ESCAPE_SQUARE_BONUS_EG", flights), 0, 1)
    add(("SAFE_CHECK_BONUS",), (checks & ~enemy_attacks).bit_count(), 0)

    pieces = enemy & ~board.pawns & ~board.kings
    counts = {
        "THREAT_BY_PAWN": (attacks.pawns & pieces).bit_count(),
        "THREAT_BY_MINOR": (attacks.minors & (board.rooks | board.queens) & enemy).bit_count(),
        "THREAT_BY_ROOK": (attacks.rooks & board.queens & enemy).bit_count(),
        "HANGING": (attacks.all & pieces & ~enemy_attacks).bit_count(),
    }
    for name, count in counts.items():
        add((name, "0"), count, 0)
        add((name, "1"), 0, count)

    enemy_royal = board.king(not color)
    own_royal = board.king(color)
    step = 8 if color == chess.WHITE else -8
    for square in chess.scan_forward(board.pawns & own):
        if ev._PASSED_SPAN[color << 6 | square] & board.pawns & enemy:
            continue
        file, board_rank = chess.square_file(square), chess.square_rank(square)
        rank = board_rank if color == chess.WHITE else 7 - board_rank
        ahead = range(board_rank + 1, 8) if color == chess.WHITE else range(board_rank)
        path = functools.reduce(operator.or_, (chess.BB_SQUARES[chess.square(file, r)] for r in ahead), 0)
        if not path & (board.occupied | enemy_attacks):
            add(("PASSED_FREE_PATH", str(rank)), 0, 1)
        if rank > 2:
            block = square + step
            for index, royal_square in enumerate((enemy_royal, own_royal)):
                if royal_square is not None:
                    distance = ev._KNIGHT_DISTANCE[royal_square << 6 | block]
                    add(("PASSED_ROYAL_DISTANCE", str(index)), 0, (rank - 2) * distance)
            for index, side in enumerate((not color, color)):
                commoners = list(chess.scan_forward(board.knights & board.occupied_co[side]))
                if commoners:
                    distance = min(chess.square_distance(commoner, block) for commoner in commoners)
                    add(("PASSED_COMMONER_DISTANCE", str(index)), 0, (rank - 2) * distance)


def _side_features(pieces: tuple[Bitboard, ...], occupied: Bitboard, own: Bitboard, enemy: Bitboard,
                   add: _Adder) -> Bitboard:
    """The counts behind ``evaluation._side_terms`` for one side; returns the squares from which
    it can check next move."""
    all_pawns, all_commoners, all_bishops, all_rooks, all_queens, royals = pieces
    # The evaluation's attack functions take and give the engine's signed bitboards; masked with
    # the unsigned not_own, what they give is python-chess's again.
    not_own = ~own & chess.BB_ALL
    engine_occupied = signed(occupied)
    enemy_royal = royals & enemy
    threatened = bool(enemy_royal and (all_queens | all_rooks | all_commoners) & own)
    target = enemy_royal.bit_length() - 1
    files_and_ranks = diagonals = steps = 0
    if threatened:
        files_and_ranks = straight_attacks(target, engine_occupied) & not_own
        diagonals = BB_DIAG_ATTACKS[target][BB_DIAG_MASKS[target] & occupied] & not_own
        steps = BB_KING_ATTACKS[target] & not_own

    checks = 0
    bishops = list(chess.scan_forward(all_bishops & own))
    if len(bishops) >= 2:
        add(("BISHOP_PAIR",), 1, 1)
    for square in bishops:
        reach = BB_DIAG_ATTACKS[square][BB_DIAG_MASKS[square] & occupied] & not_own
        mobility = reach.bit_count() - weights.BISHOP_MOBILITY.typical
        add(("BISHOP_MOBILITY", "0"), mobility, 0)
        add(("BISHOP_MOBILITY", "1"), 0, mobility)
        if threatened:
            add(("BISHOP_CHECK_PENALTY",), (reach & diagonals).bit_count(), 0)
            checks |= reach & diagonals
    own_pawns = all_pawns & own
    for square in chess.scan_forward(all_rooks & own):
        reach = straight_attacks(square, engine_occupied) & not_own
        mobility = reach.bit_count() - weights.ROOK_MOBILITY.typical
        add(("ROOK_MOBILITY", "0"), mobility, 0)
        add(("ROOK_MOBILITY", "1"), 0, mobility)
        file = BB_FILES[square & 7]
        if not file & own_pawns:
            name = "ROOK_OPEN_FILE" if not file & all_pawns else "ROOK_HALF_OPEN_FILE"
            add((name, "0"), 1, 0)
            add((name, "1"), 0, 1)
        if threatened:
            add(("ROOK_CHECK_PENALTY",), (reach & files_and_ranks).bit_count(), 0)
            checks |= reach & files_and_ranks
    for square in chess.scan_forward(all_queens & own):
        reach = (diagonal_attacks(square, engine_occupied) | straight_attacks(square, engine_occupied)) & not_own
        mobility = reach.bit_count() - weights.QUEEN_MOBILITY.typical
        add(("QUEEN_MOBILITY", "0"), mobility, 0)
        add(("QUEEN_MOBILITY", "1"), 0, mobility)
        if threatened:
            add(("QUEEN_CHECK_PENALTY",), (reach & (files_and_ranks | diagonals)).bit_count(), 0)
            checks |= reach & (files_and_ranks | diagonals)
            distance = chess.square_distance(square, target)
            if distance in TUPLE_PARAMETERS["QUEEN_NEAR_PENALTY"]:
                add(("QUEEN_NEAR_PENALTY", str(distance)), 1, 0)
    for square in chess.scan_forward(all_commoners & own):
        reach = BB_KING_ATTACKS[square] & not_own
        add(("COMMONER_MOBILITY",), reach.bit_count(), 0)
        if threatened:
            add(("COMMONER_CHECK_PENALTY",), (reach & steps).bit_count(), 0)
            checks |= reach & steps
    return checks


def _pawn_features(white_pawns: Bitboard, black_pawns: Bitboard, add: _SignedAdder) -> None:
    """The counts behind ``evaluation._pawn_terms``."""
    for color, own, enemy in ((chess.WHITE, white_pawns, black_pawns), (chess.BLACK, black_pawns, white_pawns)):
        sign = 1 if color == chess.WHITE else -1
        for square in chess.scan_forward(own):
            rank = chess.square_rank(square) if color == chess.WHITE else 7 - chess.square_rank(square)
            if not enemy & ev._PASSED_SPAN[color << 6 | square]:
                add(("PASSED_PAWN_MG", str(rank)), sign, 1, 0)
                add(("PASSED_PAWN_EG", str(rank)), sign, 0, 1)
            if not own & ev._ADJACENT_FILES[chess.square_file(square)]:
                add(("ISOLATED_PAWN",), sign, 1, 1)
        for file_mask in BB_FILES:
            extra = chess.popcount(own & file_mask) - 1
            if extra > 0:
                add(("DOUBLED_PAWN",), sign, extra, extra)
