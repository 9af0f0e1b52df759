"""Knightmate games and positions that several test modules play through: a PGN written as the bot
writes one (for ``analyse``, ``stats`` and the install test) and the puzzle positions the miner and
its command are tried on."""

from __future__ import annotations

from pathlib import Path

import chess.pgn

from variant import KnightmateBoard

#: 2. Qg4 hangs the queen to the c8 bishop.
BLUNDER_SANS = ["e4", "d5", "Qg4", "Bxg4", "f3", "Bd7"]

#: White's 5. Qxb6?? and only 5... cxb6 wins the queen (the a-pawn has gone to a5).
QUEEN_HANGS = ("rmbqkbmr/2p1pppp/1p6/p7/2p5/1Q5P/PP1PPPP1/RMB1KBMR w KQkq - 0 5", ["b3b6", "c7b6"])
#: The same, but with the a-pawn at home: 5... axb6 and 5... cxb6 both win the queen.
QUEEN_HANGS_TWICE = ("rmbqkbmr/p1p1pppp/1p6/8/2p5/1Q5P/PP1PPPP1/RMB1KBMR w KQkq - 0 5", ["b3b6", "c7b6"])
#: Black's 8... f5?? and 9. Qg6# (the royal knight on h7 has no square left).
MATE_IN_ONE = ("rmb2bmr/1p1ppppk/p1pQ3p/8/1q1PP3/2PBB3/PP3PPP/RM2K1MR b KQ - 0 8", ["f7f5", "d6g6"])


def write_game(path: Path, sans: list[str] = BLUNDER_SANS, white: str = "alice") -> Path:
    """A bot-like PGN of the game *sans*, with clock comments, written by python-chess."""
    board = KnightmateBoard()
    for san in sans:
        board.push_san(san)
    game = chess.pgn.Game.from_board(board)
    game.headers.update({"Event": "test", "White": white, "Black": "bob", "Variant": "Knightmate"})
    for ply, node in enumerate(game.mainline()):
        node.set_clock(180 - ply)
    path.write_text(str(game) + "\n", encoding="utf-8")
    return path
