"""Perft: counting the leaf nodes of the legal move tree, the standard check of a move generator.

Works for any :class:`chess.Board`, so the same function measures KnightmateBoard against
python-chess's own board and proves other move generators (the engine's) equal to it.
"""

import chess


def perft(board: chess.Board, depth: int) -> int:
    """Counts the positions *depth* plies ahead; the board is left as it was.

    The last ply is counted without being played (bulk counting), as reference counts are.
    """
    if depth <= 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += perft(board, depth - 1)
        board.pop()
    return nodes
