"""The search's own Knightmate position: integer moves, make and unmake, lazy legality.

:class:`variant.KnightmateBoard` is the source of truth for the rules, and it is general: every
push snapshots the whole board, every move is an object, every generated move is legal. The
search needs less and needs it fast, so it works on a :class:`Position` made from a board:

* moves are ints (``from | to << 6 | promotion << 12``), generated pseudo-legally in two
  batches (captures and quiet moves), so a node refuted by its first move generates nothing;
* :meth:`Position.push` changes only what the move touches and keeps the Zobrist key and the
  evaluation's material and piece-square sums up to date; :meth:`Position.pop` restores them;
* legality is checked only for a move the search actually plays: push it, ask
  :meth:`Position.mover_in_check`, pop it if so;
* bitboards and keys are native 64-bit integers in the compiled build (see
  :mod:`bot.engine.constants` for their signed form), held in fields rather than lists, so that
  neither reading nor changing one allocates; the board's piece types and the undo records (one
  fixed-size record a ply, in one vector) are mypyc's native ``vec[i64]``, so a push or pop
  allocates nothing either (it once stored a tuple a ply).

It knows only standard castling (the royal knight on the e-file, rooks in the corners), which
is all Knightmate has. ``tests/engine/test_engine_position.py`` proves it equal to KnightmateBoard:
perft counts, legal move sets, and keys and sums after long random games.

Piece types are python-chess's (``KING`` is the royal knight, ``KNIGHT`` the commoner) and the
bitboards carry python-chess's names (``pawns`` ... ``kings``, ``occupied``), the colours'
occupancy being ``white`` and ``black`` (:meth:`Position.side`).
"""

from __future__ import annotations

import random
from typing import Final

import chess
from librt.vecs import append, extend, vec
from mypy_extensions import i64

from bot.engine.constants import (
    BB_ALL,
    BB_B1,
    BB_B8,
    BB_C1,
    BB_C8,
    BB_D1,
    BB_D8,
    BB_DIAGONAL_RAYS,
    BB_F1,
    BB_F8,
    BB_FILE_A,
    BB_FILE_H,
    BB_G1,
    BB_G8,
    BB_KING_ATTACKS,
    BB_KNIGHT_ATTACKS,
    BB_ORTHOGONAL_RAYS,
    BB_PAWN_ATTACKS,
    BB_RANK_2,
    BB_RANK_7,
    BB_SQUARES,
    WHITE,
    Bitboard,
    diagonal_attacks,
    signed,
    straight_attacks,
    top_square,
)
from bot.engine.nnue import NO_PIECE, Accumulator, Net
from bot.engine.weights import EG, MG, PHASE_WEIGHTS
from variant import KnightmateBoard

PAWN: Final = chess.PAWN
COMMONER: Final = chess.KNIGHT
BISHOP: Final = chess.BISHOP
ROOK: Final = chess.ROOK
QUEEN: Final = chess.QUEEN
ROYAL: Final = chess.KING

#: A move is ``from | to << 6 | promotion << 12``; 0 is never a move (a1a1).
Move = int
NO_MOVE: Final = 0
#: How many values :func:`from_to_of` takes: the size of a table by a move's two squares.
FROM_TO_SLOTS: Final = 64 * 64
#: ``ep_square`` when there is none.
NO_SQUARE: Final = -1
#: Promotion piece types, best first (the commoner is python-chess's KNIGHT type).
PROMOTIONS: Final[tuple[int, ...]] = (QUEEN, ROOK, BISHOP, COMMONER)

# Castling rights as four bits; a move from or to a square clears the rights that need it.
WHITE_SHORT: Final = 1
WHITE_LONG: Final = 2
BLACK_SHORT: Final = 4
BLACK_LONG: Final = 8
_RIGHTS_BY_ROOK: Final = {chess.H1: WHITE_SHORT, chess.A1: WHITE_LONG, chess.H8: BLACK_SHORT, chess.A8: BLACK_LONG}
_KEEP_RIGHTS: Final = [15] * 64
for _square, _right in _RIGHTS_BY_ROOK.items():
    _KEEP_RIGHTS[_square] &= ~_right
_KEEP_RIGHTS[chess.E1] &= ~(WHITE_SHORT | WHITE_LONG)
_KEEP_RIGHTS[chess.E8] &= ~(BLACK_SHORT | BLACK_LONG)
del _square, _right
#: Where the rook goes from and to, by the square a castling royal knight lands on.
_CASTLING_ROOK: Final = {chess.G1: (chess.H1, chess.F1), chess.C1: (chess.A1, chess.D1),
                  chess.G8: (chess.H8, chess.F8), chess.C8: (chess.A8, chess.D8)}

#: The squares strictly between two squares, by ``a << 6 | b``.
_BETWEEN: Final = vec[i64]([signed(chess.between(a, b)) for a in chess.SQUARES for b in chess.SQUARES])

# Zobrist keys from a fixed seed: the same position has the same key in every process. The
# piece keys are indexed like the piece-square tables, ``colour << 9 | piece type << 6 | square``
# (drawn in the order [colour][piece type][square] of the nested lists they once were).
_random = random.Random(0x4B4D)
_PIECE_KEYS: Final = vec[i64]([signed(_random.getrandbits(64)) if piece < 7 else 0
                               for _ in chess.COLORS for piece in range(8) for _ in range(64)])
_SIDE_KEY: Final[i64] = signed(_random.getrandbits(64))
_CASTLING_KEYS: Final = vec[i64]([signed(_random.getrandbits(64)) for _ in range(16)])
_EP_KEYS: Final = vec[i64]([signed(_random.getrandbits(64)) for _ in range(8)])
del _random

# The undo record of one ply, stored at ``ply * _UNDO_SIZE`` in the position's undo vector.
_UNDO_MOVE: Final = 0
_UNDO_PIECE: Final = 1
_UNDO_CAPTURED: Final = 2
_UNDO_CASTLING: Final = 3
_UNDO_EP_SQUARE: Final = 4
_UNDO_EP_KEY: Final = 5
_UNDO_HALFMOVE_CLOCK: Final = 6
_UNDO_KEY: Final = 7
_UNDO_MG: Final = 8
_UNDO_EG: Final = 9
_UNDO_PHASE: Final = 10
_UNDO_SIZE: Final = 11
#: Plies the undo vector holds at first; it grows when a line goes deeper.
_UNDO_PLIES: Final = 256


# A move's parts. The engine reads them through these functions only. In the compiled build the C
# compiler inlines them into their callers (setup.py's INLINING_FLAG), which then do the same bit
# operations they did when these were written out at every use.


def from_square_of(move: Move) -> int:
    """The square *move* starts from."""
    return move & 63


def to_square_of(move: Move) -> int:
    """The square *move* lands on."""
    return move >> 6 & 63


def promotion_of(move: Move) -> int:
    """The piece type *move* promotes to, 0 when it promotes to nothing."""
    return move >> 12


def from_to_of(move: Move) -> int:
    """*move*'s two squares as one index below :data:`FROM_TO_SLOTS` (the promotion left out):
    where the history and countermove tables keep what was learnt about the move."""
    return move & 4095


def encode(move: chess.Move) -> Move:
    """The int form of a python-chess move."""
    return move.from_square | move.to_square << 6 | (move.promotion or 0) << 12


def decode(move: Move) -> chess.Move:
    """The python-chess form of an int move."""
    return chess.Move(from_square_of(move), to_square_of(move), promotion_of(move) or None)


def _add_pawn_steps(moves: vec[i64], origins: Bitboard, step: int, promoting: Bitboard) -> vec[i64]:
    """*moves* and the pawn moves of one kind (a step, a double step or a capture one way, *step*
    squares): one from each square of *origins*, h8 first, or one for each promotion piece from
    a square of *promoting*."""
    while origins:
        square = top_square(origins)
        origins ^= BB_SQUARES[square]
        move = square | (square + step) << 6
        if BB_SQUARES[square] & promoting:
            for promotion in PROMOTIONS:
                moves = append(moves, move | promotion << 12)
        else:
            moves = append(moves, move)
    return moves


class Position:
    """A Knightmate position the search can push and pop moves on, cheaply.

    Make one with :meth:`from_board`. Fields are public for the search and the evaluation to
    read; only :meth:`push`, :meth:`pop`, :meth:`push_null` change them.
    """

    __slots__ = ("types", "pawns", "knights", "bishops", "rooks", "queens", "kings", "white", "black", "occupied",
                 "turn", "castling", "ep_square", "ep_key", "halfmove_clock", "key", "mg", "eg", "phase",
                 "accumulator", "_undo", "_ply")

    def __init__(self) -> None:
        #: Piece type on each square, 0 when empty.
        self.types: vec[i64] = vec[i64]([0] * 64)
        #: Each piece type's squares, both colours (python-chess's names: ``knights`` are the
        #: commoners, ``kings`` the royal knights); :meth:`pieces_of` reads them by type.
        self.pawns: Bitboard = 0
        self.knights: Bitboard = 0
        self.bishops: Bitboard = 0
        self.rooks: Bitboard = 0
        self.queens: Bitboard = 0
        self.kings: Bitboard = 0
        #: Each colour's squares; :meth:`side` reads them by colour.
        self.white: Bitboard = 0
        self.black: Bitboard = 0
        self.occupied: Bitboard = 0
        self.turn: chess.Color = chess.WHITE
        self.castling = 0
        #: The square a pawn just skipped (python-chess's ``ep_square``), whether or not it
        #: can be taken there, or :data:`NO_SQUARE`; the key includes it only when an enemy
        #: pawn attacks it.
        self.ep_square = NO_SQUARE
        self.ep_key: i64 = 0
        self.halfmove_clock = 0
        self.key: i64 = 0
        #: Material plus piece-square sums (White positive) and the game phase, as
        #: :func:`bot.engine.evaluation.base_terms` computes them for a board.
        self.mg = self.eg = self.phase = 0
        #: What :meth:`pop` restores, :data:`_UNDO_SIZE` entries a ply, and how many plies it holds.
        #: The NNUE's first layer, kept by push and pop once :meth:`use_nnue` made one; None
        #: (the default engine) costs a push one test.
        self.accumulator: Accumulator | None = None
        self._undo: vec[i64] = vec[i64]([0] * (_UNDO_SIZE * _UNDO_PLIES))
        self._ply = 0

    @classmethod
    def from_board(cls, board: KnightmateBoard) -> Position:
        """The position on *board* (its move history is not copied).

        :raises: :exc:`ValueError` for a Chess960 board: Knightmate castles the standard way.
        """
        position = cls()
        for square, piece in board.piece_map().items():
            position._put(square, piece.piece_type, piece.color)
        position.turn = board.turn
        if board.chess960:
            raise ValueError("the engine plays standard Knightmate castling only, not Chess960")
        for rook_square in chess.scan_forward(board.clean_castling_rights()):
            position.castling |= _RIGHTS_BY_ROOK[rook_square]
        position.ep_square = NO_SQUARE if board.ep_square is None else board.ep_square
        position.ep_key = position._ep_key_for(position.ep_square)
        position.halfmove_clock = board.halfmove_clock
        position.key = position._key_from_scratch()
        return position

    def use_nnue(self, net: Net) -> None:
        """Keeps *net*'s accumulator from now on (computed from scratch here, then move by move)."""
        self.accumulator = Accumulator(net)
        self.accumulator.refresh(self.types, self.white)

    def _put(self, square: int, piece_type: int, color: chess.Color) -> None:
        mask = BB_SQUARES[square]
        self.types[square] = piece_type
        self._toggle(piece_type, mask)
        self._toggle_side(color, mask)
        self.occupied |= mask
        index = color << 9 | piece_type << 6 | square
        self.mg += MG[index]
        self.eg += EG[index]
        self.phase += PHASE_WEIGHTS[piece_type]

    def pieces_of(self, piece_type: int) -> Bitboard:
        """The squares of *piece_type*, both colours."""
        if piece_type == PAWN:
            return self.pawns
        if piece_type == COMMONER:
            return self.knights
        if piece_type == BISHOP:
            return self.bishops
        if piece_type == ROOK:
            return self.rooks
        if piece_type == QUEEN:
            return self.queens
        return self.kings

    def side(self, color: chess.Color) -> Bitboard:
        """The squares of *color*'s pieces."""
        return self.white if color else self.black

    def _toggle(self, piece_type: int, mask: Bitboard) -> None:
        if piece_type == PAWN:
            self.pawns ^= mask
        elif piece_type == COMMONER:
            self.knights ^= mask
        elif piece_type == BISHOP:
            self.bishops ^= mask
        elif piece_type == ROOK:
            self.rooks ^= mask
        elif piece_type == QUEEN:
            self.queens ^= mask
        else:
            self.kings ^= mask

    def _toggle_side(self, color: chess.Color, mask: Bitboard) -> None:
        if color:
            self.white ^= mask
        else:
            self.black ^= mask

    def _ep_key_for(self, ep_square: int) -> i64:
        """The key part for an en-passant square: nonzero only if the side to move has a pawn
        that attacks it, so positions that differ only by a useless square share a key."""
        if ep_square < 0:
            return 0
        if BB_PAWN_ATTACKS[(not self.turn) << 6 | ep_square] & self.pawns & self.side(self.turn):
            return _EP_KEYS[ep_square & 7]
        return 0

    def _key_from_scratch(self) -> i64:
        """The Zobrist key computed from the whole position (push keeps it incrementally)."""
        key = _CASTLING_KEYS[self.castling] ^ self.ep_key
        if self.turn == chess.BLACK:
            key ^= _SIDE_KEY
        for color in chess.COLORS:
            pieces = self.side(color)
            while pieces:
                square = top_square(pieces)
                pieces ^= BB_SQUARES[square]
                key ^= _PIECE_KEYS[color << 9 | self.types[square] << 6 | square]
        return key

    # Attacks.

    def is_attacked(self, color: chess.Color, square: int) -> bool:
        """Whether a piece of *color* attacks *square* (the same attacks as
        :meth:`KnightmateBoard.attackers_mask`)."""
        attackers = self.side(color)
        if (BB_KNIGHT_ATTACKS[square] & self.kings | BB_KING_ATTACKS[square] & self.knights
                | BB_PAWN_ATTACKS[(not color) << 6 | square] & self.pawns) & attackers:
            return True
        occupied = self.occupied
        queens = self.queens
        lines = (self.rooks | queens) & attackers
        if lines and straight_attacks(square, occupied) & lines:
            return True
        diagonals = (self.bishops | queens) & attackers
        return bool(diagonals and diagonal_attacks(square, occupied) & diagonals)

    def attackers_to(self, square: int, occupied: Bitboard) -> Bitboard:
        """The pieces of both colours among *occupied* that attack *square* when only the squares
        of *occupied* hold pieces: an exchange takes its pieces out of *occupied* one by one, so
        a slider behind a piece that has captured joins in."""
        queens = self.queens
        attackers = (BB_KNIGHT_ATTACKS[square] & self.kings | BB_KING_ATTACKS[square] & self.knights
                     | BB_PAWN_ATTACKS[square] & self.pawns & self.white
                     | BB_PAWN_ATTACKS[64 | square] & self.pawns & self.black)
        lines = self.rooks | queens
        if lines:
            attackers |= straight_attacks(square, occupied) & lines
        diagonals = self.bishops | queens
        if diagonals:
            attackers |= diagonal_attacks(square, occupied) & diagonals
        return attackers & occupied

    def in_check(self) -> bool:
        """Whether the side to move's royal knight is attacked."""
        royal = self.kings & self.side(self.turn)
        return bool(royal) and self.is_attacked(not self.turn, top_square(royal))

    def pin_squares(self, in_check: bool) -> Bitboard:
        """Squares whose piece may be unable to move legally: leaving any other square cannot
        expose the side to move's royal knight, so a move from there needs no legality test.

        That is the royal knight itself, pieces between it and an enemy slider on its lines,
        and pawns that can take en passant (the taken pawn may have been the blocker); with the
        side to move in check, every square.
        """
        us = self.turn
        royal = self.kings & self.side(us)
        if in_check or not royal:
            return BB_ALL
        square = top_square(royal)
        enemy = self.side(not us)
        queens = self.queens
        sliders = ((self.bishops | queens) & BB_DIAGONAL_RAYS[square]
                   | (self.rooks | queens) & BB_ORTHOGONAL_RAYS[square]) & enemy
        squares = royal
        while sliders:
            slider = top_square(sliders)
            sliders ^= BB_SQUARES[slider]
            squares |= _BETWEEN[square << 6 | slider]
        if self.ep_square >= 0:
            squares |= BB_PAWN_ATTACKS[(not us) << 6 | self.ep_square] & self.pawns
        return squares

    def mover_in_check(self) -> bool:
        """After a push: whether the side that moved left its own royal knight attacked, which
        makes the move illegal."""
        royal = self.kings & self.side(not self.turn)
        return bool(royal) and self.is_attacked(self.turn, top_square(royal))

    # Move generation, into native vectors: a list would box each move in an object.

    def captures(self, targets: Bitboard) -> vec[i64]:
        """Pseudo-legal captures of enemy pieces on *targets* (the royal knight never, since a
        position where it can be taken is never searched), en passant included when *targets*
        holds the pawn that can be taken, and every promotion by capture."""
        them = not self.turn
        moves = self.moves_to(targets & self.side(them) & ~self.kings)
        ep_square = self.ep_square
        if ep_square >= 0 and targets & BB_SQUARES[ep_square ^ 8]:
            pawns = BB_PAWN_ATTACKS[them << 6 | ep_square] & self.pawns & self.side(self.turn)
            while pawns:
                square = top_square(pawns)
                pawns ^= BB_SQUARES[square]
                moves = append(moves, square | ep_square << 6)
        return moves

    def quiet_moves(self) -> vec[i64]:
        """Pseudo-legal moves to empty squares (promotions included, en passant not), and the
        castling moves, which are generated legal."""
        moves = self.moves_to(~self.occupied)
        if self.castling:
            moves = self._add_castling(moves)
        return moves

    def pseudo_legal_moves(self) -> vec[i64]:
        """Every pseudo-legal move: captures, then quiet moves."""
        return extend(self.captures(self.side(not self.turn)), self.quiet_moves())

    def legal_moves(self) -> list[Move]:
        """Every legal move (slow: each is pushed and popped; for the root and for tests)."""
        legal = []
        for move in self.pseudo_legal_moves():
            self.push(move)
            if not self.mover_in_check():
                legal.append(move)
            self.pop()
        return legal

    def moves_to(self, targets: Bitboard) -> vec[i64]:
        """Pseudo-legal moves without castling and en passant to squares in *targets* (which
        must hold no own piece)."""
        moves = vec[i64]()
        us = self.turn
        own = self.side(us)
        occupied = self.occupied

        pieces = self.kings & own
        if pieces:
            square = top_square(pieces)
            attacks = BB_KNIGHT_ATTACKS[square] & targets
            while attacks:
                to = top_square(attacks)
                attacks ^= BB_SQUARES[to]
                moves = append(moves, square | to << 6)
        pieces = self.knights & own
        while pieces:
            square = top_square(pieces)
            pieces ^= BB_SQUARES[square]
            attacks = BB_KING_ATTACKS[square] & targets
            while attacks:
                to = top_square(attacks)
                attacks ^= BB_SQUARES[to]
                moves = append(moves, square | to << 6)
        queens = self.queens & own
        pieces = (self.bishops & own) | queens
        while pieces:
            square = top_square(pieces)
            pieces ^= BB_SQUARES[square]
            attacks = diagonal_attacks(square, occupied) & targets
            while attacks:
                to = top_square(attacks)
                attacks ^= BB_SQUARES[to]
                moves = append(moves, square | to << 6)
        pieces = (self.rooks & own) | queens
        while pieces:
            square = top_square(pieces)
            pieces ^= BB_SQUARES[square]
            attacks = straight_attacks(square, occupied) & targets
            while attacks:
                to = top_square(attacks)
                attacks ^= BB_SQUARES[to]
                moves = append(moves, square | to << 6)

        pawns = self.pawns & own
        if pawns:
            moves = self._add_pawn_moves(moves, pawns, targets)
        return moves

    def _add_pawn_moves(self, moves: vec[i64], pawns: Bitboard, targets: Bitboard) -> vec[i64]:
        """*moves* and the pawn steps, double steps and captures onto *targets*, found by the
        squares they start from: a bitboard of targets is shifted towards the pawns, never the
        pawns towards the far rank (a White pawn's step to h8 would shift a bit into the sign).
        The bits a shift brings in at either end fall outside the pawns' ranks 2 to 7."""
        us = self.turn
        empty = ~self.occupied
        free_targets = empty & targets
        enemy = self.side(not us) & targets
        # Single steps, double steps, captures towards a and towards h, each from its squares of
        # origin (four calls, not a loop over a tuple of them: mypyc boxes each bitboard a tuple holds).
        if us == WHITE:
            moves = _add_pawn_steps(moves, pawns & free_targets >> 8, 8, BB_RANK_7)
            moves = _add_pawn_steps(moves, pawns & BB_RANK_2 & empty >> 8 & free_targets >> 16, 16, BB_RANK_7)
            moves = _add_pawn_steps(moves, pawns & ~BB_FILE_A & enemy >> 7, 7, BB_RANK_7)
            moves = _add_pawn_steps(moves, pawns & ~BB_FILE_H & enemy >> 9, 9, BB_RANK_7)
        else:
            moves = _add_pawn_steps(moves, pawns & free_targets << 8, -8, BB_RANK_2)
            moves = _add_pawn_steps(moves, pawns & BB_RANK_7 & empty << 8 & free_targets << 16, -16, BB_RANK_2)
            moves = _add_pawn_steps(moves, pawns & ~BB_FILE_H & enemy << 7, -7, BB_RANK_2)
            moves = _add_pawn_steps(moves, pawns & ~BB_FILE_A & enemy << 9, -9, BB_RANK_2)
        return moves

    def _add_castling(self, moves: vec[i64]) -> vec[i64]:
        """*moves* and the castling moves, generated legal."""
        occupied = self.occupied
        them = not self.turn
        if self.turn == WHITE:
            if (self.castling & WHITE_SHORT and not occupied & (BB_F1 | BB_G1)
                    and not self._any_attacked(them, (chess.E1, chess.F1, chess.G1))):
                moves = append(moves, chess.E1 | chess.G1 << 6)
            if (self.castling & WHITE_LONG and not occupied & (BB_B1 | BB_C1 | BB_D1)
                    and not self._any_attacked(them, (chess.E1, chess.D1, chess.C1))):
                moves = append(moves, chess.E1 | chess.C1 << 6)
        else:
            if (self.castling & BLACK_SHORT and not occupied & (BB_F8 | BB_G8)
                    and not self._any_attacked(them, (chess.E8, chess.F8, chess.G8))):
                moves = append(moves, chess.E8 | chess.G8 << 6)
            if (self.castling & BLACK_LONG and not occupied & (BB_B8 | BB_C8 | BB_D8)
                    and not self._any_attacked(them, (chess.E8, chess.D8, chess.C8))):
                moves = append(moves, chess.E8 | chess.C8 << 6)
        return moves

    def _any_attacked(self, color: chess.Color, squares: tuple[int, ...]) -> bool:
        return any(self.is_attacked(color, square) for square in squares)

    # Making and unmaking moves.

    def push(self, move: Move) -> None:
        """Plays a pseudo-legal *move* (legal or not: see :meth:`mover_in_check`)."""
        from_square = from_square_of(move)
        to_square = to_square_of(move)
        promotion: i64 = promotion_of(move)  # native, as the piece is: a mixed "or" is a Python object
        types = self.types
        us = self.turn
        them = not us
        piece = types[from_square]
        captured = types[to_square]
        self._save(move, piece, captured)
        from_mask = BB_SQUARES[from_square]
        to_mask = BB_SQUARES[to_square]
        landing = promotion or piece
        # Indices into the piece keys and piece-square tables: colour << 9 | piece type << 6 | square.
        own: i64 = us << 9
        leaving = own | piece << 6 | from_square
        arriving = own | landing << 6 | to_square
        key = self.key ^ _SIDE_KEY ^ self.ep_key ^ _PIECE_KEYS[leaving] ^ _PIECE_KEYS[arriving]
        mg = self.mg - MG[leaving] + MG[arriving]
        eg = self.eg - EG[leaving] + EG[arriving]
        self.halfmove_clock += 1
        accumulator = self.accumulator
        if accumulator is not None:
            accumulator.push_move(leaving, arriving, them << 9 | captured << 6 | to_square)

        if captured:
            self._toggle(captured, to_mask)
            self._toggle_side(them, to_mask)
            taken = them << 9 | captured << 6 | to_square
            key ^= _PIECE_KEYS[taken]
            mg -= MG[taken]
            eg -= EG[taken]
            self.phase -= PHASE_WEIGHTS[captured]
            self.halfmove_clock = 0
        if landing == piece:
            self._toggle(piece, from_mask | to_mask)
        else:
            self._toggle(piece, from_mask)
            self._toggle(landing, to_mask)
        self._toggle_side(us, from_mask | to_mask)
        types[from_square] = 0
        types[to_square] = landing

        ep_square = NO_SQUARE
        if piece == PAWN:
            self.halfmove_clock = 0
            if promotion:
                self.phase += PHASE_WEIGHTS[promotion]
            elif to_square == self.ep_square and not captured:
                victim = to_square - 8 if us == chess.WHITE else to_square + 8
                victim_mask = BB_SQUARES[victim]
                self.pawns ^= victim_mask
                self._toggle_side(them, victim_mask)
                types[victim] = 0
                taken = them << 9 | PAWN << 6 | victim
                key ^= _PIECE_KEYS[taken]
                mg -= MG[taken]
                eg -= EG[taken]
                if accumulator is not None:
                    accumulator.also_move(taken, NO_PIECE)
            elif to_square - from_square in (16, -16):
                ep_square = (from_square + to_square) >> 1
        elif piece == ROYAL and to_square - from_square in (2, -2):
            rook_from, rook_to = _CASTLING_ROOK[to_square]
            rook_mask = BB_SQUARES[rook_from] | BB_SQUARES[rook_to]
            self.rooks ^= rook_mask
            self._toggle_side(us, rook_mask)
            types[rook_from] = 0
            types[rook_to] = ROOK
            rook_leaving = own | ROOK << 6 | rook_from
            rook_arriving = own | ROOK << 6 | rook_to
            key ^= _PIECE_KEYS[rook_leaving] ^ _PIECE_KEYS[rook_arriving]
            mg += MG[rook_arriving] - MG[rook_leaving]
            eg += EG[rook_arriving] - EG[rook_leaving]
            if accumulator is not None:
                accumulator.also_move(rook_leaving, rook_arriving)

        castling = self.castling
        if castling:
            remaining = castling & _KEEP_RIGHTS[from_square] & _KEEP_RIGHTS[to_square]
            if remaining != castling:
                key ^= _CASTLING_KEYS[castling] ^ _CASTLING_KEYS[remaining]
                self.castling = remaining
        self.occupied = self.white | self.black
        self.turn = them
        self.ep_square = ep_square
        self.ep_key = self._ep_key_for(ep_square) if ep_square >= 0 else 0
        key ^= self.ep_key
        self.key = key
        self.mg = mg
        self.eg = eg

    def _save(self, move: Move, piece: i64, captured: i64) -> None:
        """Records what :meth:`pop` needs to take back the move about to be made."""
        base = self._ply * _UNDO_SIZE
        if base + _UNDO_SIZE > len(self._undo):
            self._undo = extend(self._undo, [0] * (_UNDO_SIZE * _UNDO_PLIES))
        undo = self._undo
        undo[base + _UNDO_MOVE] = move
        undo[base + _UNDO_PIECE] = piece
        undo[base + _UNDO_CAPTURED] = captured
        undo[base + _UNDO_CASTLING] = self.castling
        undo[base + _UNDO_EP_SQUARE] = self.ep_square
        undo[base + _UNDO_EP_KEY] = self.ep_key
        undo[base + _UNDO_HALFMOVE_CLOCK] = self.halfmove_clock
        undo[base + _UNDO_KEY] = self.key
        undo[base + _UNDO_MG] = self.mg
        undo[base + _UNDO_EG] = self.eg
        undo[base + _UNDO_PHASE] = self.phase
        self._ply += 1

    def push_null(self) -> None:
        """Passes the move (for null-move pruning): only the turn and the en-passant square change."""
        self._save(NO_MOVE, 0, 0)
        if self.accumulator is not None:
            self.accumulator.push()
        self.key ^= _SIDE_KEY ^ self.ep_key
        self.ep_square = NO_SQUARE
        self.ep_key = 0
        self.halfmove_clock += 1
        self.turn = not self.turn

    def pop(self) -> None:
        """Takes back the last :meth:`push` or :meth:`push_null`."""
        self._ply -= 1
        if self.accumulator is not None:
            self.accumulator.pop()
        undo = self._undo
        base = self._ply * _UNDO_SIZE
        move = undo[base + _UNDO_MOVE]
        piece = undo[base + _UNDO_PIECE]
        captured = undo[base + _UNDO_CAPTURED]
        self.castling = undo[base + _UNDO_CASTLING]
        ep_square = undo[base + _UNDO_EP_SQUARE]
        self.ep_key = undo[base + _UNDO_EP_KEY]
        self.halfmove_clock = undo[base + _UNDO_HALFMOVE_CLOCK]
        self.key = undo[base + _UNDO_KEY]
        self.mg = undo[base + _UNDO_MG]
        self.eg = undo[base + _UNDO_EG]
        self.phase = undo[base + _UNDO_PHASE]
        self.ep_square = ep_square
        them = self.turn
        us = not them
        self.turn = us
        if not move:
            return
        from_square = from_square_of(move)
        to_square = to_square_of(move)
        types = self.types
        from_mask = BB_SQUARES[from_square]
        to_mask = BB_SQUARES[to_square]
        landing = types[to_square]
        if landing == piece:
            self._toggle(piece, from_mask | to_mask)
        else:
            self._toggle(landing, to_mask)
            self._toggle(piece, from_mask)
        self._toggle_side(us, from_mask | to_mask)
        types[from_square] = piece
        types[to_square] = captured
        if captured:
            self._toggle(captured, to_mask)
            self._toggle_side(them, to_mask)
        elif piece == PAWN and to_square == ep_square:
            victim = to_square - 8 if us == chess.WHITE else to_square + 8
            victim_mask = BB_SQUARES[victim]
            self.pawns ^= victim_mask
            self._toggle_side(them, victim_mask)
            types[victim] = PAWN
        elif piece == ROYAL and to_square - from_square in (2, -2):
            rook_from, rook_to = _CASTLING_ROOK[to_square]
            rook_mask = BB_SQUARES[rook_from] | BB_SQUARES[rook_to]
            self.rooks ^= rook_mask
            self._toggle_side(us, rook_mask)
            types[rook_from] = ROOK
            types[rook_to] = 0
        self.occupied = self.white | self.black

    # Facts the search asks for.

    def is_capture(self, move: Move) -> bool:
        """Whether *move* takes a piece (en passant included)."""
        to_square = to_square_of(move)
        return bool(self.types[to_square]) or (to_square == self.ep_square
                                               and self.types[from_square_of(move)] == PAWN)

    def is_pseudo_legal(self, move: Move) -> bool:
        """Whether *move* (say a hash move or killer from another position) can be pushed here."""
        if not move:
            return False
        from_square = from_square_of(move)
        if not self.side(self.turn) & BB_SQUARES[from_square]:
            return False
        to_square = to_square_of(move)
        piece = self.types[from_square]
        if piece == ROYAL and to_square - from_square in (2, -2):
            return bool(self.castling) and move in self._add_castling(vec[i64]())
        if piece == PAWN:
            return move in self.captures(BB_SQUARES[to_square] | BB_SQUARES[to_square ^ 8]) \
                or move in self.moves_to(BB_SQUARES[to_square] & ~self.occupied)
        to_mask = BB_SQUARES[to_square]
        if promotion_of(move) or to_mask & (self.side(self.turn) | self.kings):
            return False
        if piece == ROYAL:
            return bool(BB_KNIGHT_ATTACKS[from_square] & to_mask)
        if piece == COMMONER:
            return bool(BB_KING_ATTACKS[from_square] & to_mask)
        occupied = self.occupied
        if piece != ROOK and diagonal_attacks(from_square, occupied) & to_mask:
            return True
        return piece != BISHOP and bool(straight_attacks(from_square, occupied) & to_mask)

    def has_non_pawn_material(self, color: chess.Color) -> bool:
        """Whether *color* has a piece besides pawns and the royal knight (no zugzwang risk)."""
        return bool(self.side(color) & (self.knights | self.bishops | self.rooks | self.queens))
