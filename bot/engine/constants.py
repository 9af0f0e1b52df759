"""python-chess's colours, bitboard tables and square masks, as constants compiled code reads fast.

The engine modules read these names as they read them from :mod:`chess`; they import them from
here because a name imported from an uncompiled module is, in code compiled by mypyc, a global
looked up in a dictionary and type-checked on every use, while a ``Final`` of a compiled module
is a typed C variable. The values are python-chess's own objects: nothing is recomputed.
"""

from __future__ import annotations

from typing import Final

import chess

Bitboard = chess.Bitboard

WHITE: Final = chess.WHITE
BLACK: Final = chess.BLACK

BB_ALL: Final = chess.BB_ALL
BB_SQUARES: Final[list[Bitboard]] = chess.BB_SQUARES
BB_FILES: Final[list[Bitboard]] = chess.BB_FILES
BB_FILE_A: Final = chess.BB_FILE_A
BB_FILE_H: Final = chess.BB_FILE_H
BB_RANK_1: Final = chess.BB_RANK_1
BB_RANK_3: Final = chess.BB_RANK_3
BB_RANK_6: Final = chess.BB_RANK_6
BB_RANK_8: Final = chess.BB_RANK_8
BB_B1: Final = chess.BB_B1
BB_C1: Final = chess.BB_C1
BB_D1: Final = chess.BB_D1
BB_F1: Final = chess.BB_F1
BB_G1: Final = chess.BB_G1
BB_B8: Final = chess.BB_B8
BB_C8: Final = chess.BB_C8
BB_D8: Final = chess.BB_D8
BB_F8: Final = chess.BB_F8
BB_G8: Final = chess.BB_G8

BB_KNIGHT_ATTACKS: Final[list[Bitboard]] = chess.BB_KNIGHT_ATTACKS
BB_KING_ATTACKS: Final[list[Bitboard]] = chess.BB_KING_ATTACKS
#: Indexed [colour][square].
BB_PAWN_ATTACKS: Final[list[list[Bitboard]]] = chess.BB_PAWN_ATTACKS
#: Slider attacks: indexed [square][occupied & the square's mask].
BB_DIAG_MASKS: Final[list[Bitboard]] = chess.BB_DIAG_MASKS
BB_DIAG_ATTACKS: Final[list[dict[Bitboard, Bitboard]]] = chess.BB_DIAG_ATTACKS
BB_FILE_MASKS: Final[list[Bitboard]] = chess.BB_FILE_MASKS
BB_FILE_ATTACKS: Final[list[dict[Bitboard, Bitboard]]] = chess.BB_FILE_ATTACKS
BB_RANK_MASKS: Final[list[Bitboard]] = chess.BB_RANK_MASKS
BB_RANK_ATTACKS: Final[list[dict[Bitboard, Bitboard]]] = chess.BB_RANK_ATTACKS
