"""The match referee: Fairy-Stockfish's own rules (pyffish) decide what is legal and when a game ends.

The runner trusts neither engine nor our own ``variant`` library for the rules: every move an
engine sends is checked against pyffish's legal moves for variant ``knightmate``, and after every
move pyffish says whether the game is over (checkmate, stalemate, insufficient material, the
fifty-move rule or threefold repetition; the optional endings are claimed at once, as a tester's
match runner does). It never talks to engines and never measures time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyffish as sf

VARIANT = "knightmate"
STARTING_FEN: str = sf.start_fen(VARIANT)

WHITE_WINS, BLACK_WINS, DRAW = "1-0", "0-1", "1/2-1/2"


@dataclass(frozen=True)
class Verdict:
    """How a game ended: the PGN result and a short reason such as ``checkmate``."""

    result: str
    reason: str


class Referee:
    """Follows one game from a start position and judges each move.

    >>> referee = Referee(STARTING_FEN)
    >>> referee.is_legal("e1f3"), referee.is_legal("e1e2")
    (True, False)
    """

    def __init__(self, fen: str = STARTING_FEN, moves: Sequence[str] = ()) -> None:
        if sf.validate_fen(fen, VARIANT) != 1:
            raise ValueError(f"not a valid Knightmate FEN: {fen!r}")
        self.fen = fen
        self.moves: list[str] = []
        self._legal: list[str] = list(sf.legal_moves(VARIANT, fen, []))
        for move in moves:
            if not self.is_legal(move):
                raise ValueError(f"illegal move {move!r} after {' '.join(self.moves) or 'the start'}")
            self.push(move)

    @property
    def white_to_move(self) -> bool:
        return (self.fen.split()[1] == "w") == (len(self.moves) % 2 == 0)

    def legal_moves(self) -> list[str]:
        """The legal moves in Fairy-Stockfish's UCI spelling (``e7e8m`` for a commoner promotion)."""
        return list(self._legal)

    def is_legal(self, move: str) -> bool:
        return move in self._legal

    def push(self, move: str) -> None:
        """Plays a move that :meth:`is_legal` accepted."""
        if not self.is_legal(move):
            raise ValueError(f"illegal move {move!r}")
        self.moves.append(move)
        self._legal = list(sf.legal_moves(VARIANT, self.fen, self.moves))

    def current_fen(self) -> str:
        return str(sf.get_fen(VARIANT, self.fen, self.moves))

    def can_mate(self, white: bool) -> bool:
        """False when that side has too little material left to ever give mate."""
        white_short, black_short = sf.has_insufficient_material(VARIANT, self.fen, self.moves)
        return not (white_short if white else black_short)

    def verdict(self) -> Verdict | None:
        """The game's end in the current position, or None while it goes on."""
        if not self._legal:
            value = sf.game_result(VARIANT, self.fen, self.moves)
            return self._scored(value, "checkmate" if value else "stalemate")
        ended, value = sf.is_immediate_game_end(VARIANT, self.fen, self.moves)
        if ended:
            return self._scored(value, "variant rule")
        if not self.can_mate(True) and not self.can_mate(False):
            return Verdict(DRAW, "insufficient material")
        ended, value = sf.is_optional_game_end(VARIANT, self.fen, self.moves)
        if ended:
            halfmove_clock = int(self.current_fen().split()[4])
            return self._scored(value, "fifty-move rule" if halfmove_clock >= 100 else "threefold repetition")
        return None

    def _scored(self, value: int, reason: str) -> Verdict:
        """Turns pyffish's value for the side to move (negative: it lost) into a PGN result."""
        if value == 0:
            return Verdict(DRAW, reason)
        mover_won = value > 0
        return Verdict(WHITE_WINS if mover_won == self.white_to_move else BLACK_WINS, reason)
