"""Knightmate rules as a python-chess board.

Knightmate is chess with the king's and the knight's moves swapped. python-chess already knows
everything else (pawns, sliders, castling, en passant, repetition, PGN), so the board keeps
python-chess's piece types and changes only how two of them move:

* the ``chess.KING`` piece type is the royal knight: royal, castles, and jumps like a knight;
* the ``chess.KNIGHT`` piece type is the commoner: not royal, and steps like a king.

Everything else is spelled the Knightmate way at the edges, where text comes in or goes out:
``M``/``m`` for the commoner in FEN, SAN, UCI promotions and the printed board. Inside the
board the commoner is an ordinary ``chess.KNIGHT``, so bitboards, Zobrist hashing and the move
stack work unchanged.

This module must never change the behaviour of ``chess.Board`` itself: nothing global is
patched, so standard boards in the same process keep playing standard chess.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import ClassVar, Self

import chess
from chess import (
    BB_ALL,
    BB_DARK_SQUARES,
    BB_DIAG_ATTACKS,
    BB_DIAG_MASKS,
    BB_FILE_ATTACKS,
    BB_FILE_MASKS,
    BB_KING_ATTACKS,
    BB_KNIGHT_ATTACKS,
    BB_PAWN_ATTACKS,
    BB_RANK_ATTACKS,
    BB_RANK_MASKS,
    BB_SQUARES,
    Bitboard,
    Move,
    Square,
)

#: The royal knight: python-chess's king piece type, moving like a knight.
ROYAL_KNIGHT: chess.PieceType = chess.KING
#: The commoner: python-chess's knight piece type, moving like a king.
COMMONER: chess.PieceType = chess.KNIGHT

STARTING_BOARD_FEN = "rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR"
STARTING_FEN = STARTING_BOARD_FEN + " w KQkq - 0 1"

# Text translations between Knightmate letters and python-chess's internal ones. Files are
# a-h and ranks digits, so in FEN, SAN and UCI the letters n/m only ever name a piece.
_TO_KNIGHTMATE = str.maketrans("Nn", "Mm")
_FROM_KNIGHTMATE = str.maketrans("Mm", "Nn")
# Glyphs follow movement: the royal knight is drawn as a knight, the commoner as a king.
_UNICODE_TO_KNIGHTMATE = str.maketrans("♔♘♚♞", "♘♔♞♚")

#: What each of python-chess's position problems means in Knightmate's words (its "king" is the
#: royal knight), for a person who typed the FEN.
_STATUS_WORDS = {
    chess.STATUS_NO_WHITE_KING: "white has no royal knight",
    chess.STATUS_NO_BLACK_KING: "black has no royal knight",
    chess.STATUS_TOO_MANY_KINGS: "a side has more than one royal knight",
    chess.STATUS_TOO_MANY_WHITE_PAWNS: "white has more than 8 pawns",
    chess.STATUS_TOO_MANY_BLACK_PAWNS: "black has more than 8 pawns",
    chess.STATUS_PAWNS_ON_BACKRANK: "pawns on the first or last rank",
    chess.STATUS_TOO_MANY_WHITE_PIECES: "white has more than 16 pieces",
    chess.STATUS_TOO_MANY_BLACK_PIECES: "black has more than 16 pieces",
    chess.STATUS_BAD_CASTLING_RIGHTS: "the castling rights do not match the royal knights and rooks",
    chess.STATUS_INVALID_EP_SQUARE: "the en passant square is impossible",
    chess.STATUS_OPPOSITE_CHECK: "the side not to move is in check",
    chess.STATUS_EMPTY: "the board is empty",
    chess.STATUS_TOO_MANY_CHECKERS: "the side to move is checked by more pieces than a move can make",
    chess.STATUS_IMPOSSIBLE_CHECK: "the check could not have come from a move",
}

#: The problems :meth:`KnightmateBoard.set_fen` refuses (a game cannot be played from them); the
#: others leave a position that can be set up and asked :meth:`~chess.Board.status` about.
_REJECTED_BY_SET_FEN = (chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING | chess.STATUS_TOO_MANY_KINGS
                        | chess.STATUS_PAWNS_ON_BACKRANK | chess.STATUS_OPPOSITE_CHECK)


def describe_status(status: chess.Status) -> str:
    """A position's problems (:meth:`chess.Board.status`) in Knightmate's words, joined by "; "."""
    words = [text for flag, text in _STATUS_WORDS.items() if status & flag]
    return "; ".join(words) or f"{status!r}"


class KnightmateBoard(chess.Board):
    """A :class:`chess.Board` that plays Knightmate.

    >>> from variant import KnightmateBoard
    >>> board = KnightmateBoard()
    >>> board.push_san("Kf3")
    Move.from_uci('e1f3')
    >>> board.fen()
    'rmbqkbmr/pppppppp/8/8/8/5K2/PPPPPPPP/RMBQ1BMR b kq - 1 1'

    Piece objects keep python-chess's types, so ``board.piece_at(chess.B1)`` is a
    ``chess.Piece(chess.KNIGHT, chess.WHITE)``: compare with :data:`COMMONER` and
    :data:`ROYAL_KNIGHT` rather than with symbols.

    :func:`fen()` writes the en-passant square whenever an enemy pawn attacks it (the X-FEN
    rule), which is what Fairy-Stockfish writes. :func:`parse_uci()` reads both ``m``
    (Knightmate) and ``n`` (what :func:`chess.Move.uci()` writes) for a commoner promotion;
    :func:`uci()` writes ``m``.
    """

    #: The names :func:`chess.variant.find_variant` and a PGN's ``Variant`` header know it by.
    aliases: ClassVar[list[str]] = ["Knightmate", "knightmate"]
    #: The name in UCI's ``UCI_Variant``, as Fairy-Stockfish and the servers spell it.
    uci_variant: ClassVar[str | None] = "knightmate"
    #: The name in XBoard's ``variant`` command.
    xboard_variant: ClassVar[str | None] = "knightmate"
    #: Chess's start with the pieces renamed: commoners where the knights stand, royal knights where the kings.
    starting_fen: ClassVar[str] = STARTING_FEN

    # No Syzygy tablebases exist for Knightmate.
    tbw_suffix: ClassVar[str | None] = None
    tbz_suffix: ClassVar[str | None] = None
    pawnless_tbw_suffix: ClassVar[str | None] = None
    pawnless_tbz_suffix: ClassVar[str | None] = None

    def __init__(self, fen: str | None = STARTING_FEN, *, chess960: bool = False) -> None:
        # The start position is chess's array with the piece types renamed, so python-chess's
        # reset() (used for the starting FEN) sets up Knightmate's start correctly.
        super().__init__(fen, chess960=chess960)

    # Movement: the only real rule change.

    def attacks_mask(self, square: Square) -> Bitboard:
        bb_square = BB_SQUARES[square]
        if bb_square & self.pawns:
            return BB_PAWN_ATTACKS[bool(bb_square & self.occupied_co[chess.WHITE])][square]
        if bb_square & self.kings:
            return BB_KNIGHT_ATTACKS[square]
        if bb_square & self.knights:
            return BB_KING_ATTACKS[square]
        attacks = 0
        if bb_square & (self.bishops | self.queens):
            attacks = BB_DIAG_ATTACKS[square][BB_DIAG_MASKS[square] & self.occupied]
        if bb_square & (self.rooks | self.queens):
            attacks |= (BB_RANK_ATTACKS[square][BB_RANK_MASKS[square] & self.occupied]
                        | BB_FILE_ATTACKS[square][BB_FILE_MASKS[square] & self.occupied])
        return attacks

    def attackers_mask(self, color: chess.Color, square: Square, occupied: Bitboard | None = None) -> Bitboard:
        if occupied is None:
            occupied = self.occupied
        queens_and_rooks = self.queens | self.rooks
        queens_and_bishops = self.queens | self.bishops
        attackers = (
            (BB_KNIGHT_ATTACKS[square] & self.kings)
            | (BB_KING_ATTACKS[square] & self.knights)
            | (BB_RANK_ATTACKS[square][BB_RANK_MASKS[square] & occupied] & queens_and_rooks)
            | (BB_FILE_ATTACKS[square][BB_FILE_MASKS[square] & occupied] & queens_and_rooks)
            | (BB_DIAG_ATTACKS[square][BB_DIAG_MASKS[square] & occupied] & queens_and_bishops)
            | (BB_PAWN_ATTACKS[not color][square] & self.pawns))
        return attackers & self.occupied_co[color]

    def _generate_evasions(self, king: Square, checkers: Bitboard,
                           from_mask: Bitboard = BB_ALL, to_mask: Bitboard = BB_ALL) -> Iterator[Move]:
        # A knight's jump never lands on a line through its own square, so unlike a king the
        # royal knight cannot stay on a checking slider's line: no x-ray squares to exclude.
        if BB_SQUARES[king] & from_mask:
            for to_square in chess.scan_reversed(BB_KNIGHT_ATTACKS[king] & ~self.occupied_co[self.turn] & to_mask):
                yield Move(king, to_square)
        checker = chess.msb(checkers)
        if BB_SQUARES[checker] == checkers:
            target = chess.between(king, checker) | checkers
            yield from self.generate_pseudo_legal_moves(~self.kings & from_mask, target & to_mask)
            # A checking pawn that just made a double step can also be taken en passant.
            if self.ep_square is not None and not BB_SQUARES[self.ep_square] & target:
                if self.ep_square + (-8 if self.turn == chess.WHITE else 8) == checker:
                    yield from self.generate_pseudo_legal_ep(from_mask, to_mask)

    def is_castling(self, move: Move) -> bool:
        # A royal knight's jump can also cross two files (e1g2), so only a move along the back
        # rank (or onto an own rook, the Chess960 spelling) is castling.
        if not self.kings & BB_SQUARES[move.from_square]:
            return False
        if self.rooks & self.occupied_co[self.turn] & BB_SQUARES[move.to_square]:
            return True
        return (chess.square_rank(move.from_square) == chess.square_rank(move.to_square)
                and abs(chess.square_file(move.from_square) - chess.square_file(move.to_square)) == 2)

    # Game end.

    def has_insufficient_material(self, color: chess.Color) -> bool:
        """Checks if *color* cannot possibly checkmate, by Fairy-Stockfish's rule.

        A pawn, a commoner, a rook or a queen can always mate. Bishops alone cannot if every
        bishop on the board stands on one colour and the opponent has nothing but bishops to
        self-block with. A bare royal knight cannot mate.
        """
        return insufficient_material(self.occupied_co[color], self.occupied, self.bishops, self.kings)

    # Notation: Knightmate letters at the edges.

    def board_fen(self, *, promoted: bool | None = False) -> str:
        return super().board_fen(promoted=promoted).translate(_TO_KNIGHTMATE)

    def _set_board_fen(self, fen: str) -> None:
        if "n" in fen or "N" in fen:
            raise ValueError(f"knight letter in Knightmate fen (the commoner is 'm'): {fen!r}")
        super()._set_board_fen(fen.translate(_FROM_KNIGHTMATE))

    def set_fen(self, fen: str) -> None:
        """Parses a Knightmate FEN and sets the position from it.

        :raises: :exc:`ValueError` naming the problem if the FEN is malformed or the position
            cannot arise in Knightmate (no or two royal knights of a colour, pawns on the back
            rank, the side not to move in check). The board is left unchanged then.
        """
        candidate = type(self)(None, chess960=self.chess960)
        chess.Board.set_fen(candidate, fen)
        rejected = candidate.status() & _REJECTED_BY_SET_FEN
        if rejected:
            raise ValueError(f"invalid Knightmate position ({describe_status(rejected)}): {fen!r}")
        chess.Board.set_fen(self, fen)

    def fen(self, *, shredder: bool = False, en_passant: chess.EnPassantSpec = "xfen",
            promoted: bool | None = None) -> str:
        return super().fen(shredder=shredder, en_passant=en_passant, promoted=promoted)

    def epd(self, *, shredder: bool = False, en_passant: chess.EnPassantSpec = "xfen",
            promoted: bool | None = None, **operations: object) -> str:
        return super().epd(shredder=shredder, en_passant=en_passant, promoted=promoted,
                           **operations)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return super().__str__().translate(_TO_KNIGHTMATE)

    def unicode(self, *, invert_color: bool = False, borders: bool = False, empty_square: str = "⭘",
                orientation: chess.Color = chess.WHITE) -> str:
        """Like :func:`chess.Board.unicode()`, drawing each piece by how it moves: the royal
        knight as a knight (♘ ♞) and the commoner as a king (♔ ♚)."""
        return super().unicode(invert_color=invert_color, borders=borders, empty_square=empty_square,
                               orientation=orientation).translate(_UNICODE_TO_KNIGHTMATE)

    def _algebraic_without_suffix(self, move: Move, *, long: bool = False) -> str:
        return super()._algebraic_without_suffix(move, long=long).translate(_TO_KNIGHTMATE)

    def parse_san(self, san: str) -> Move:
        """Parses Knightmate SAN: ``K`` is the royal knight, ``M`` the commoner (``Md3``,
        ``e8=M``, ``O-O``). ``N`` is rejected: Knightmate has no knights."""
        if "N" in san or "n" in san:
            raise chess.InvalidMoveError(f"invalid san: {san!r} (Knightmate has no knights; the commoner is M)")
        internal = san.translate(_FROM_KNIGHTMATE)
        try:
            return super().parse_san(internal)
        except ValueError as error:
            raise type(error)(str(error).replace(repr(internal), repr(san))) from None

    def uci(self, move: Move, *, chess960: bool | None = None) -> str:
        """Gets the UCI notation of the move, with ``m`` for a commoner promotion."""
        return _commoner_promotion_letter(super().uci(move, chess960=chess960), move)

    def xboard(self, move: Move, chess960: bool | None = None) -> str:
        """Gets the XBoard notation of the move, with ``m`` for a commoner promotion."""
        return _commoner_promotion_letter(super().xboard(move, chess960), move)

    def parse_uci(self, uci: str) -> Move:
        """Parses a move in UCI notation; ``e7e8m`` and ``e7e8n`` both promote to a commoner.

        :raises: :exc:`chess.InvalidMoveError` if the text is not a move,
            :exc:`chess.IllegalMoveError` if the move is illegal here.
        """
        internal = uci[:-1] + "n" if len(uci) == 5 and uci[-1] == "m" else uci
        try:
            return super().parse_uci(internal)
        except ValueError as error:
            raise type(error)(str(error).replace(repr(internal), repr(uci))) from None

    def parse_game_move(self, uci: str) -> Move:
        """Parses a move a player made in a game: :meth:`parse_uci`, except that the null move
        ``0000`` (which python-chess parses, and which would silently hand the turn over) is illegal.

        :raises: :exc:`chess.InvalidMoveError` or :exc:`chess.IllegalMoveError` as :meth:`parse_uci`.
        """
        move = self.parse_uci(uci)
        if not move:
            raise chess.IllegalMoveError(f"the null move {uci!r} is not a move in a game")
        return move

    @classmethod
    def replay(cls, initial_fen: str | None, moves: Iterable[str]) -> Self:
        """The board of a game that started at *initial_fen* (``None``: the standard start) after
        *moves*, its moves in UCI notation: the one way the bot and its engines (built-in, external
        and UCI) turn a server's move list into a position. Every move is checked by
        :meth:`parse_game_move`.

        :raises: :exc:`ValueError` if *initial_fen* is not a Knightmate position (see :meth:`set_fen`),
            :exc:`GameMoveError` naming the first move that cannot be played.
        """
        board = cls(initial_fen or STARTING_FEN)
        board.push_game_moves(moves)
        return board

    @classmethod
    def start_position_problem(cls, fen: str | None) -> str | None:
        """Why *fen* cannot start a Knightmate game, or ``None`` when it can (``None`` is the standard
        start): the one rule the bot's challenge policy, its game record and the sandbox all apply."""
        if fen is None:
            return None
        try:
            board = cls(fen)
        except ValueError as error:
            return f"not a Knightmate FEN: {error}"
        if not board.is_valid():
            return f"not a legal Knightmate position: {describe_status(board.status())}"
        if board.outcome() is not None:
            return "the game would already be over"
        return None

    def push_game_moves(self, moves: Iterable[str], *, first_index: int = 0) -> None:
        """Plays *moves* (UCI) after this position, each checked by :meth:`parse_game_move`.

        :param first_index: the index the first of *moves* has in the whole game, for the error.
        :raises: :exc:`GameMoveError` at the first move that cannot be played; the moves before it
            stay played.
        """
        for index, uci in enumerate(moves, first_index):
            try:
                move = self.parse_game_move(uci)
            except ValueError as error:
                raise GameMoveError(index, uci, str(error)) from None
            self.push(move)


class GameMoveError(chess.IllegalMoveError):
    """A move of a game's move list that cannot be played here; says which (index and text) and why."""

    def __init__(self, index: int, uci: str, reason: str) -> None:
        # Both texts come from a server or a GUI: a hostile kilobyte "move" is cut, not logged whole.
        reason = reason if len(reason) <= 160 else reason[:157] + "..."
        super().__init__(f"move {index + 1} ({uci[:20]!r}) of the move list cannot be played: {reason}")
        self.index = index       # counted from 0: the ply before which the game's list went wrong
        self.uci = uci


def insufficient_material(ours: Bitboard, occupied: Bitboard, bishops: Bitboard, royals: Bitboard) -> bool:
    """Fairy-Stockfish's rule on bitboards: whether the side with pieces *ours* cannot mate.

    :meth:`KnightmateBoard.has_insufficient_material` is this rule; the engine's lean position
    calls it directly.
    """
    if ours & ~bishops & ~royals:
        return False  # a pawn, commoner, rook or queen can always mate
    if not ours & bishops:
        return True  # a bare royal knight
    one_colour = not bishops & BB_DARK_SQUARES or not bishops & ~BB_DARK_SQUARES
    return bool(one_colour and not occupied & ~royals & ~bishops)


def _commoner_promotion_letter(text: str, move: Move) -> str:
    """python-chess spells a promotion to its KNIGHT piece type ``n``; Knightmate spells it ``m``."""
    return text[:-1] + "m" if move.promotion == COMMONER else text
