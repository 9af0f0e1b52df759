"""Capture generation for the quiescence search.

Captures come out in search order: by victim, most valuable first, and for each victim by
attacker, cheapest first (MVV-LVA). Victims worth less than the caller's threshold are never
generated, so a delta-pruned node does almost no work.

Moves are pseudo-legal ints of :mod:`bot.engine.position`: the search takes back any that
leaves its own royal knight in check. This module only chooses which moves to ask the position
for and in which order; it must never change a position.
"""

from __future__ import annotations

from typing import Final

import chess

from bot.engine.constants import BB_RANK_1, BB_RANK_8, WHITE, Bitboard
from bot.engine.evaluation import PIECE_VALUES
from bot.engine.position import PAWN, QUEEN, Move, Position

_VICTIMS: Final[tuple[int, ...]] = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
_PROMOTION_GAIN: Final = PIECE_VALUES[QUEEN] - PIECE_VALUES[PAWN]


def captures(position: Position, min_gain: int, skip_losing: bool = False) -> list[tuple[int, Move]]:
    """Pseudo-legal captures worth at least *min_gain* centipawns, as (material gain, move),
    most valuable victim first, cheapest attacker first among equal victims.

    Victims too cheap for *min_gain* are masked out before generation, so a delta-pruned node
    generates little or nothing. Of the capture-promotions only the queen is kept (the only one
    worth trying where only captures are searched). With *skip_losing*, a capture by a piece
    worth more than its victim is left out when the victim is defended: at best an exchange
    that loses material, which quiescence need not look at.
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
    scored = []
    if targets:
        types = position.types
        for move in position.captures(targets):
            gain = PIECE_VALUES[types[move >> 6 & 63] or PAWN]  # an empty target square is en passant
            promotion = move >> 12
            if promotion:
                if promotion != QUEEN:
                    continue
                gain += _PROMOTION_GAIN
            elif gain < min_gain:
                continue
            attacker = types[move & 63]
            if skip_losing and PIECE_VALUES[attacker] > gain and position.is_attacked(not turn, move >> 6 & 63):
                continue
            scored.append((gain * 8 - attacker, gain, move))
    scored.sort(reverse=True)
    return [(gain, move) for _, gain, move in scored]
