"""Capture generation for the quiescence search, on a KnightmateBoard's bitboards.

Captures come out in search order: by victim, most valuable first, and for each victim by
attacker, cheapest first (MVV-LVA). Victims worth less than the caller's threshold are never
generated, so a delta-pruned node does almost no work.

Moves are pseudo-legal: the search takes back any that leaves its own royal knight in check.
The rules themselves stay in :class:`variant.KnightmateBoard` (``attackers_mask`` says who
attacks a square); this module only chooses which moves to ask for and in which order. It must never change a
board.
"""

from __future__ import annotations

import chess
from chess import BB_ALL, BB_RANK_1, BB_RANK_8, Move

from bot.engine.evaluation import PIECE_VALUES
from variant import KnightmateBoard

_VICTIMS = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
_PROMOTION_GAIN = PIECE_VALUES[chess.QUEEN] - PIECE_VALUES[chess.PAWN]


def captures(board: KnightmateBoard, min_gain: int, skip_losing: bool = False) -> list[tuple[int, Move]]:
    """Pseudo-legal captures worth at least *min_gain* centipawns, as (material gain, move),
    most valuable victim first, cheapest attacker first among equal victims.

    Victims too cheap for *min_gain* are masked out before generation, so a delta-pruned node
    generates little or nothing. Of the capture-promotions only the queen is kept (the only one
    worth trying where only captures are searched). With *skip_losing*, a capture by a piece
    worth more than its victim is left out when the victim is defended: at best an exchange
    that loses material, which quiescence need not look at.
    """
    turn = board.turn
    targets = 0
    for victim in _VICTIMS:
        if PIECE_VALUES[victim] < min_gain:
            break
        targets |= board.pieces_mask(victim, not turn)
    last_rank = BB_RANK_8 if turn == chess.WHITE else BB_RANK_1
    targets |= board.occupied_co[not turn] & last_rank & ~board.kings  # promoting may still be worth it
    scored = []
    if targets:
        for move in board.generate_pseudo_legal_moves(BB_ALL, targets):
            gain = PIECE_VALUES[board.piece_type_at(move.to_square) or 0]
            if move.promotion:
                if move.promotion != chess.QUEEN:
                    continue
                gain += _PROMOTION_GAIN
            elif gain < min_gain:
                continue
            attacker = board.piece_type_at(move.from_square) or 0
            if (skip_losing and PIECE_VALUES[attacker] > gain
                    and board.attackers_mask(not turn, move.to_square)):
                continue
            scored.append((gain * 8 - attacker, gain, move))
    if board.ep_square is not None and PIECE_VALUES[chess.PAWN] >= min_gain:
        for move in board.generate_pseudo_legal_ep():
            scored.append((PIECE_VALUES[chess.PAWN] * 8 - chess.PAWN, PIECE_VALUES[chess.PAWN], move))
    scored.sort(key=_order, reverse=True)
    return [(gain, move) for _, gain, move in scored]


def _order(item: tuple[int, int, Move]) -> int:
    return item[0]
