"""Seeded random Knightmate positions for tests that need many ordinary positions."""

from __future__ import annotations

import random

from variant import KnightmateBoard


def random_positions(count: int, seed: int, plies: range = range(1, 120), *,
                     unfinished: bool = False) -> list[KnightmateBoard]:
    """*count* boards, each reached by a random number of random legal moves (from *plies*) from
    the start; with *unfinished*, only positions where the game goes on."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = KnightmateBoard()
        for _ in range(rng.randrange(plies.start, plies.stop)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not (unfinished and board.is_game_over()):
            boards.append(board)
    return boards
