"""What any UCI engine driven through python-chess's :mod:`chess.engine` must be told about Knightmate.

Shared by whoever drives such an engine (the bot's move source in :mod:`bot.thinking.sources`,
the analysis in :mod:`bot.analysis`), so each rule lives once:

* Commoner promotions. chess.engine writes the move history with ``Move.uci()``, which spells a
  promotion to a commoner ``n``, and Fairy-Stockfish silently ignores ``b7b8n`` in a ``position``
  line together with every move after it, then searches a different position. So the board given
  to chess.engine starts right after the last commoner promotion (:func:`engine_board`): a
  promotion is a pawn move, no position before it can repeat, and the engine loses no history.
* The variant. An engine plays Knightmate only if its ``UCI_Variant`` option lists ``knightmate``
  (:func:`knightmate_refusal`); chess.engine then selects it from the board's ``uci_variant``.
"""

from __future__ import annotations

from collections.abc import Mapping

import chess
import chess.engine

from variant import COMMONER, KnightmateBoard


def engine_board(initial_fen: str | None, moves: tuple[str, ...]) -> KnightmateBoard:
    """The position after ``moves``, with a move stack chess.engine can send to any engine.

    The stack starts right after the last commoner promotion (see the module docstring); every
    move is checked, so a move list that is not a game raises :class:`ValueError`
    (:class:`~variant.GameMoveError` naming the move).
    """
    board = KnightmateBoard.replay(initial_fen, moves)
    promotions = [ply for ply, move in enumerate(board.move_stack) if move.promotion == COMMONER]
    if not promotions:
        return board
    start = promotions[-1] + 1
    return KnightmateBoard.replay(KnightmateBoard.replay(initial_fen, moves[:start]).fen(), moves[start:])


def engine_board_of(board: KnightmateBoard) -> KnightmateBoard:
    """:func:`engine_board` for *board*: the same position, reached by its moves from its root.

    Each move is spelled in UCI in the position it was played in: spelled in the root, a rook's
    ``e1a1`` after the royal knight left e1 read as castling (``e1c1``), and the engine searched
    another position.
    """
    root = board.root()
    replay = root.copy()
    moves = []
    for move in board.move_stack:
        moves.append(replay.uci(move))
        replay.push(move)
    return engine_board(root.fen(), tuple(moves))


def knightmate_refusal(name: str, options: Mapping[str, chess.engine.Option]) -> str | None:
    """Why the engine *name* with these announced *options* cannot play Knightmate, or None if it can."""
    variant = options.get("UCI_Variant")
    if variant is None:
        return f"{name} has no UCI_Variant option, so it plays no Knightmate"
    if "knightmate" not in (variant.var or []):
        return (f"{name} does not play knightmate (its UCI_Variant option "
                f"lists {', '.join(variant.var or []) or 'nothing'})")
    return None
