"""Lets ``chess.pgn`` read Knightmate movetext.

python-chess's PGN reader splits movetext with a regular expression that knows only the piece
letters of chess, so in ``Mc2`` it would skip the ``M`` and read a pawn move ``c2``. This module
widens that expression to the commoner's letter ``M`` (``Md3``, ``e8=M``) and does nothing else.
A PGN that python-chess could read before is split into the same tokens as before; boards are
not touched. Imported by :mod:`variant`, so ``import variant`` is all a PGN user needs.
"""

import re

import chess.pgn

_PIECE_LETTERS = "[NBKRQ]?[a-h]"
_PROMOTION_LETTERS = "[nbrqkNBRQK]"


def _with_commoner_letters(pattern: str) -> str:
    return (pattern.replace(_PIECE_LETTERS, "[NBKRQM]?[a-h]", 1)
            .replace(_PROMOTION_LETTERS, "[nbrqkmNBRQKM]", 1))


def register() -> None:
    """Widens the movetext tokenizer once; later calls change nothing."""
    regex = chess.pgn.MOVETEXT_REGEX
    widened = _with_commoner_letters(regex.pattern)
    if widened != regex.pattern:
        chess.pgn.MOVETEXT_REGEX = re.compile(widened, regex.flags)
