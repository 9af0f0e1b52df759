"""The moves quiescence searches (material gains and quiet checks), and the static exchange evaluation.

Captures come out in search order: by victim, most valuable first, and for each victim by
attacker, cheapest first (MVV-LVA). Victims worth less than the caller's threshold are never
generated, so a delta-pruned node does almost no work.

:func:`static_exchange` says what a move wins or loses on its target square if both sides go on
capturing there with their cheapest piece, each free to stop: the search uses it to put losing
captures last and to skip moves that hang material near the leaves.

Moves are pseudo-legal ints of :mod:`bot.engine.position`: the search takes back any that
leaves its own royal knight in check. This module only chooses which moves to ask the position
for and in which order; it must never change a position.
"""

from __future__ import annotations

from typing import Final

import chess

from bot.engine.constants import (
    BB_KING_ATTACKS,
    BB_PAWN_ATTACKS,
    BB_RANK_1,
    BB_RANK_2,
    BB_RANK_7,
    BB_RANK_8,
    BB_SQUARES,
    WHITE,
    Bitboard,
    diagonal_attacks,
    straight_attacks,
    top_square,
)
from bot.engine.position import (
    BISHOP,
    COMMONER,
    PAWN,
    QUEEN,
    ROOK,
    ROYAL,
    Move,
    Position,
    from_square_of,
    promotion_of,
    to_square_of,
)
from bot.engine.weights import PIECE_VALUES

_VICTIMS: Final[tuple[int, ...]] = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
_PROMOTION_GAIN: Final = PIECE_VALUES[QUEEN] - PIECE_VALUES[PAWN]
#: Piece values in exchanges: the evaluation's, and for the royal knight more than all the rest,
#: so that no exchange line ever gives it up.
_EXCHANGE_VALUES: Final[tuple[int, ...]] = PIECE_VALUES[:ROYAL] + (20_000,)
#: Attackers in the order an exchange brings them in: cheapest first, the royal knight last.
_ATTACKER_ORDER: Final[tuple[int, ...]] = (PAWN, COMMONER, BISHOP, ROOK, QUEEN, ROYAL)


def static_exchange(position: Position, move: Move) -> int:
    """The material *move* wins (negative: loses) on its target square, in centipawns, when the
    two sides then take turns capturing there with their cheapest attacker, either side free to
    stop when going on would lose.

    Pins and checks are not looked at, except that the royal knight captures only when no
    enemy piece is left to take it back; a pawn that recaptures on the last rank stays a pawn.
    """
    from_square = from_square_of(move)
    to_square = to_square_of(move)
    types = position.types
    mover = types[from_square]
    occupied = position.occupied ^ BB_SQUARES[from_square]
    victim = types[to_square]
    if victim:
        gain = _EXCHANGE_VALUES[victim]
    elif mover == PAWN and (from_square ^ to_square) & 7:
        gain = _EXCHANGE_VALUES[PAWN]  # en passant: the taken pawn is beside the target
        occupied ^= BB_SQUARES[to_square ^ 8]
    else:
        gain = 0
    on_square = _EXCHANGE_VALUES[mover]
    promotion = promotion_of(move)
    if promotion:
        gain += _EXCHANGE_VALUES[promotion] - _EXCHANGE_VALUES[PAWN]
        on_square = _EXCHANGE_VALUES[promotion]
    gains = [gain]
    side = not position.turn
    attackers = position.attackers_to(to_square, occupied)
    while True:
        ours = attackers & position.side(side)
        if not ours:
            break
        piece_type = PAWN
        pieces: Bitboard = 0
        for piece_type in _ATTACKER_ORDER:
            pieces = ours & position.pieces_of(piece_type)
            if pieces:
                break
        square = top_square(pieces)
        occupied ^= BB_SQUARES[square]
        attackers = position.attackers_to(to_square, occupied)
        if piece_type == ROYAL and attackers & position.side(not side):
            break  # the royal knight may not capture into an attack
        gains.append(on_square - gains[-1])
        on_square = _EXCHANGE_VALUES[piece_type]
        side = not side
    # Each side in turn keeps the better of stopping and going on.
    for index in range(len(gains) - 1, 0, -1):
        gains[index - 1] = min(gains[index - 1], -gains[index])
    return gains[0]


#: A sort key packs an ordering score above the 16 bits of a move (moves take 15), so that a
#: list of plain ints sorts moves by score (the move itself breaks ties) with no tuple a move.
ORDER_SHIFT: Final = 16
MOVE_MASK: Final = 0xFFFF


def best_first(keys: list[int]) -> list[Move]:
    """The moves packed in *keys* (``score << ORDER_SHIFT | move``), highest score first."""
    keys.sort(reverse=True)
    return [key & MOVE_MASK for key in keys]


def capture_order(gain: int, attacker: int) -> int:
    """The sort key of a capture (highest first) that wins *gain* centipawns with a piece of type
    *attacker*: the most valuable victim first, and among equal gains the cheapest attacker (piece
    types count up from the pawn, and 8 of them fit between two centipawns of gain)."""
    return gain * 8 - attacker


def gaining_moves(position: Position, min_gain: int, skip_losing: bool = False) -> list[Move]:
    """Pseudo-legal moves that gain at least *min_gain* centipawns of material, captures and queen
    promotions, most valuable victim first (a promotion counts its queen's gain and any capture's),
    cheapest attacker first among equal victims (:func:`capture_order`). (:meth:`Position.captures`
    is every capture onto some squares, unscored.)

    Victims too cheap for *min_gain* are masked out before generation, so a delta-pruned node
    generates little or nothing. Promotions to a queen come too, by capture or onto an empty
    square (a pawn about to queen changes the score as much as a capture); underpromotions are
    left out (never worth trying where only captures are searched). With *skip_losing*, a capture by a piece
    worth more than its victim is left out when the victim is defended: at best an exchange
    that loses material, which quiescence need not look at. (This is coarser than
    :func:`static_exchange`, on purpose: with the exact exchange instead, quiescence kept
    captures that win only after a series of recaptures, and a depth-7 search of the open game
    in ``bench/speed/search_speed.py`` took three times as many nodes.)
    """
    turn = position.turn
    enemy = position.side(not turn)
    targets: Bitboard = 0
    for victim in _VICTIMS:
        if PIECE_VALUES[victim] < min_gain:
            break
        targets |= position.pieces_of(victim)
    last_rank = BB_RANK_8 if turn == WHITE else BB_RANK_1
    targets = (targets | last_rank & ~position.kings) & enemy  # promoting may still be worth it
    scored: list[int] = []
    if targets:
        types = position.types
        for move in position.captures(targets):
            to_square = to_square_of(move)
            gain = PIECE_VALUES[types[to_square] or PAWN]  # an empty target square is en passant
            promotion = promotion_of(move)
            if promotion:
                if promotion != QUEEN:
                    continue
                gain += _PROMOTION_GAIN
            elif gain < min_gain:
                continue
            attacker = types[from_square_of(move)]
            if skip_losing and PIECE_VALUES[attacker] > gain and position.is_attacked(not turn, to_square):
                continue
            scored.append(capture_order(gain, attacker) << ORDER_SHIFT | move)
    if _PROMOTION_GAIN >= min_gain:
        for move in _quiet_queen_promotions(position):
            scored.append(capture_order(_PROMOTION_GAIN, PAWN) << ORDER_SHIFT | move)
    return best_first(scored)


def _quiet_queen_promotions(position: Position) -> list[Move]:
    """Pawn steps to an empty last-rank square, promoting to a queen. The empty squares are shifted
    towards the pawns (an arithmetic shift: the bits it brings in fall outside the pawns' rank)."""
    pawns = position.pawns & position.side(position.turn)
    empty = ~position.occupied
    if position.turn == WHITE:
        origins = pawns & BB_RANK_7 & (empty & BB_RANK_8) >> 8
        step = 8
    else:
        origins = pawns & BB_RANK_2 & (empty & BB_RANK_1) << 8
        step = -8
    moves = []
    while origins:
        square = top_square(origins)
        origins ^= BB_SQUARES[square]
        moves.append(square | (square + step) << 6 | QUEEN << 12)
    return moves


def check_squares(position: Position) -> tuple[Bitboard, ...]:
    """Where a piece of the side to move gives check from, by its piece type (indexed as
    python-chess's): a pawn of ours on such a square attacks the enemy royal knight as an enemy
    pawn on the royal knight's square attacks that square, and so on. All empty when the enemy
    has no royal knight; never a square for the royal knight, which cannot give check.
    Discovered checks are not looked for."""
    them = not position.turn
    royal = position.kings & position.side(them)
    if not royal:
        return (0, 0, 0, 0, 0, 0, 0)
    target = top_square(royal)
    occupied = position.occupied
    diagonal = diagonal_attacks(target, occupied)
    straight = straight_attacks(target, occupied)
    return (0, BB_PAWN_ATTACKS[them << 6 | target], BB_KING_ATTACKS[target], diagonal, straight,
            diagonal | straight, 0)


def quiet_checks(position: Position) -> list[Move]:
    """Pseudo-legal moves to empty squares, promotions and castling left out, that attack the
    enemy royal knight from where they land: commoner steps next to it, pawn steps to a square
    that attacks it, slider moves onto its open lines. Discovered checks are not looked for.

    The targets are found from the royal knight outwards, so only moves to those few squares are
    generated, and then each is kept if its own piece gives check from there.
    """
    checking = check_squares(position)
    squares = (checking[PAWN] | checking[COMMONER] | checking[QUEEN]) & ~position.occupied
    if not squares:
        return []
    return [move for move in position.moves_to(squares)
            if not promotion_of(move) and gives_check(position, move, checking)]


def gives_check(position: Position, move: Move, checking: tuple[Bitboard, ...]) -> bool:
    """Whether *move*'s piece attacks the enemy royal knight from the square it lands on, by
    *checking*, the squares :func:`check_squares` found (discovered checks are not looked for)."""
    return bool(BB_SQUARES[to_square_of(move)] & checking[position.types[from_square_of(move)]])
