"""An NNUE evaluation: a small network whose first layer is kept up to date move by move.

The network (trained by ``bench/training/train_nnue.py``, shipped as ``bot/engine/data/nnue.bin``):

* 768 inputs per perspective, one per (piece colour relative to the perspective, piece type,
  square): own pieces first, then the enemy's; Black's perspective sees the board flipped
  (``square ^ 56``), so both perspectives read the board as White does. Piece types are
  python-chess's, so ``KING`` is the royal knight and ``KNIGHT`` the commoner;
* one hidden layer of :attr:`Net.hidden` units shared by the two perspectives (the
  *accumulator*): ``b1 + sum of the W1 rows of the pieces on the board``, in ``int16``;
* clipped ReLU (0 .. :attr:`Net.qa`) of both perspectives' accumulators, the side to move's
  first, then one output: ``sum(clipped * W2) + b2``, in units of ``1 / (qa * qb)`` of the
  training's logit, turned to centipawns by the file's scale (:attr:`Net.scale_cp`; the trainer
  writes the hand evaluation's units there, so that the search's margins mean the same).

Why an accumulator: a move changes two to four inputs, so instead of summing ~30 rows of W1 a
node, a position's values are its parent's with the rows of what changed subtracted and added
(into a slot of their own, so :meth:`Position.pop` only steps back a slot). :meth:`Position.push`
only notes the change; the values are computed when the position is evaluated, since most
pushed positions never are (:class:`Accumulator`). The values live in mypyc's
native ``vec[i16]`` (C arrays in the compiled build). The trainer bounds W1 and b1 so that no
accumulator can leave the ``int16`` range (:data:`WEIGHT_LIMIT`): the compiled build would
wrap where the pure one would raise, and bounded values make the two identical.

The network is used only when asked for (``Engine(nnue=True)``, UCI's ``Use NNUE``); a position
without an accumulator pays nothing for this module.
"""

from __future__ import annotations

import struct
import sys
from array import array
from importlib import resources
from typing import Final

import chess
from librt.vecs import extend, vec
from mypy_extensions import i16, i64

from bot.engine.constants import BB_SQUARES, Bitboard

#: The net file inside the package (``importlib.resources`` path parts).
NET_FILE: Final = ("data", "nnue.bin")
#: The file's first bytes, then ``<iiii`` (hidden, qa, qb, scale_cp), then little-endian
#: ``int16`` W1 (768 x hidden, by input), b1 (hidden), W2 (2 x hidden), and ``int32`` b2.
MAGIC: Final = b"KMNNUE1\0"
_HEADER: Final = struct.Struct("<iiii")
INPUTS: Final = 768
#: Largest |W1| and |b1| the trainer writes: b1 plus 32 pieces' rows stays inside int16.
WEIGHT_LIMIT: Final = 32767 // 33
#: A piece index whose piece type is 0, "no piece": its W1 row is zeros.
NO_PIECE: Final = 0
#: Accumulator slots allocated at first; more are added when a line goes deeper.
_SLOTS: Final = 128
#: Piece indices noted a slot: the piece leaving, arriving, taken, and a second piece's leaving
#: and arriving (a castling rook, a pawn taken en passant), :data:`NO_PIECE` where none.
_CHANGES: Final = 5


def feature(perspective: chess.Color, color: chess.Color, piece_type: int, square: int) -> int:
    """The input index of a *color* *piece_type* on *square*, seen from *perspective*."""
    relative_square = square if perspective == chess.WHITE else square ^ 56
    return ((color != perspective) * 6 + piece_type - 1) * 64 + relative_square


class Net:
    """A quantized network as read from a net file (see :data:`MAGIC` for the layout)."""

    __slots__ = ("hidden", "qa", "qb", "scale_cp", "w1", "b1", "w2", "b2", "white_rows", "black_rows")

    def __init__(self, hidden: int, qa: int, qb: int, scale_cp: int, w1: vec[i16], b1: vec[i16],
                 w2: vec[i16], b2: int) -> None:
        self.hidden = hidden
        self.qa = qa
        self.qb = qb
        self.scale_cp = scale_cp
        #: W1 by input, then one row of zeros: the row of "no piece" (piece type 0), so that a
        #: move without a capture is a capture of nothing, with no branch.
        self.w1 = extend(w1, [0] * hidden)
        self.b1 = b1
        self.w2 = w2
        self.b2 = b2
        # W1's offset for each piece, by the position's index ``colour << 9 | piece type << 6 | square``
        # (the piece keys' and piece-square tables' index), for each perspective.
        white_rows = [INPUTS * hidden] * 1024
        black_rows = [INPUTS * hidden] * 1024
        for color in chess.COLORS:
            for piece_type in chess.PIECE_TYPES:
                for square in chess.SQUARES:
                    index = color << 9 | piece_type << 6 | square
                    white_rows[index] = feature(chess.WHITE, color, piece_type, square) * hidden
                    black_rows[index] = feature(chess.BLACK, color, piece_type, square) * hidden
        self.white_rows: vec[i64] = vec[i64](white_rows)
        self.black_rows: vec[i64] = vec[i64](black_rows)


def read_net(data: bytes | None = None) -> Net:
    """The net in *data* (the shipped file's bytes when None).

    :raises ValueError: the bytes are not a net file, or its weights break :data:`WEIGHT_LIMIT`.
    """
    if data is None:
        data = resources.files("bot.engine").joinpath(*NET_FILE).read_bytes()
    if data[:len(MAGIC)] != MAGIC:
        raise ValueError("not a Knightmate NNUE file (bad magic)")
    hidden, qa, qb, scale_cp = _HEADER.unpack_from(data, len(MAGIC))
    start = len(MAGIC) + _HEADER.size
    count = INPUTS * hidden + hidden + 2 * hidden
    if hidden < 1 or len(data) != start + 2 * count + 4:
        raise ValueError(f"NNUE file: {len(data)} bytes do not hold a net of width {hidden}")
    values = array("h")
    values.frombytes(data[start:start + 2 * count])
    if sys.byteorder != "little":
        values.byteswap()
    first_layer = values[:INPUTS * hidden + hidden]
    if first_layer and max(max(first_layer), -min(first_layer)) > WEIGHT_LIMIT:
        raise ValueError(f"NNUE file: a first-layer weight beyond +-{WEIGHT_LIMIT}")
    (b2,) = struct.unpack_from("<i", data, start + 2 * count)
    w1_end = INPUTS * hidden
    return Net(hidden, qa, qb, scale_cp, vec[i16](values[:w1_end]), vec[i16](values[w1_end:w1_end + hidden]),
               vec[i16](values[w1_end + hidden:]), b2)


_shipped: list[Net] = []


def shipped_net() -> Net:
    """The package's net, read once."""
    if not _shipped:
        _shipped.append(read_net())
    return _shipped[0]


class Accumulator:
    """The hidden layer's inputs for both perspectives, one slot a ply: White's perspective's
    ``hidden`` values, then Black's.

    Lazy: :meth:`push_move` (and :meth:`push`, a null move) only notes what the move changes and
    opens the next slot unread; a slot is computed when it is read (:meth:`evaluate`), from the
    nearest computed slot below it. Most positions a search pushes are never evaluated (a move
    found illegal is popped at once, a reply is cut off by the table), and :meth:`pop` only steps
    back a slot.
    """

    __slots__ = ("net", "values", "hidden", "ply", "up_to_date", "changes")

    def __init__(self, net: Net) -> None:
        self.net = net
        self.hidden = net.hidden
        self.values: vec[i16] = vec[i16]([0] * (2 * net.hidden * _SLOTS))
        #: The current slot's number; its values start at ``ply * 2 * hidden``.
        self.ply: i64 = 0
        #: Slots 0 to this one hold their values: a slot is computed only with all below it, and
        #: a push makes only the new slot stale, so the computed slots are always a prefix.
        self.up_to_date: i64 = 0
        #: What each slot's move changed, :data:`_CHANGES` piece indices a slot (see :meth:`push_move`).
        self.changes: vec[i64] = vec[i64]([NO_PIECE] * (_CHANGES * _SLOTS))

    def refresh(self, types: vec[i64], white: Bitboard) -> None:
        """Computes the current slot from scratch, from each square's piece type and White's squares."""
        net = self.net
        hidden = self.hidden
        values = self.values
        top = self.ply * 2 * hidden
        b1 = net.b1
        w1 = net.w1
        totals: list[i64] = [0] * (2 * hidden)
        for square in range(64):
            piece_type = types[square]
            if not piece_type:
                continue
            color: i64 = 1 if white & BB_SQUARES[square] else 0
            index = color << 9 | piece_type << 6 | square
            white_row = net.white_rows[index]
            black_row = net.black_rows[index]
            for i in range(hidden):
                totals[i] += i64(w1[white_row + i])
                totals[hidden + i] += i64(w1[black_row + i])
        for i in range(hidden):
            values[top + i] = i16(i64(b1[i]) + totals[i])
            values[top + hidden + i] = i16(i64(b1[i]) + totals[hidden + i])
        self.up_to_date = self.ply

    def push(self) -> None:
        """Opens the next slot, equal to the current one (a null move)."""
        self.push_move(NO_PIECE, NO_PIECE, NO_PIECE)

    def push_move(self, leaving: i64, arriving: i64, taken: i64) -> None:
        """Opens the next slot as the current one after a move: a piece leaves a square and
        arrives on another (as another type, for a promotion), and the piece *taken* on the
        arrival square leaves the board (:data:`NO_PIECE`: nothing taken). Indices are
        ``colour << 9 | piece type << 6 | square``."""
        ply = self.ply + 1
        if (ply + 1) * _CHANGES > len(self.changes):
            self.values = extend(self.values, [0] * (2 * self.hidden * _SLOTS))
            self.changes = extend(self.changes, [NO_PIECE] * (_CHANGES * _SLOTS))
        changes = self.changes
        at = ply * _CHANGES
        changes[at] = leaving
        changes[at + 1] = arriving
        changes[at + 2] = taken
        changes[at + 3] = NO_PIECE
        changes[at + 4] = NO_PIECE
        if self.up_to_date >= ply:
            self.up_to_date = ply - 1
        self.ply = ply

    def also_move(self, leaving: i64, arriving: i64) -> None:
        """The move just pushed also moves another piece (the castling rook), or takes one off
        the board when *arriving* is :data:`NO_PIECE` (the pawn taken en passant)."""
        at = self.ply * _CHANGES
        self.changes[at + 3] = leaving
        self.changes[at + 4] = arriving

    def pop(self) -> None:
        """Returns to the previous slot."""
        self.ply -= 1

    def _current(self) -> i64:
        """Computes the current slot if it is not, from the last computed slot below (the first
        is always computed: :meth:`refresh`); returns where its values start."""
        ply = self.ply
        for slot in range(self.up_to_date + 1, ply + 1):
            self._compute(slot)
        if self.up_to_date < ply:
            self.up_to_date = ply
        return ply * 2 * self.hidden

    def _compute(self, slot: i64) -> None:
        """The values of *slot*: its predecessor's with the slot's move applied, in one pass."""
        net = self.net
        w1 = net.w1
        hidden = self.hidden
        values = self.values
        changes = self.changes
        at = slot * _CHANGES
        new = slot * 2 * hidden
        old = new - 2 * hidden
        white_out = net.white_rows[changes[at]]
        white_in = net.white_rows[changes[at + 1]]
        white_taken = net.white_rows[changes[at + 2]]
        black_out = net.black_rows[changes[at]]
        black_in = net.black_rows[changes[at + 1]]
        black_taken = net.black_rows[changes[at + 2]]
        for i in range(hidden):
            values[new + i] = i16(i64(values[old + i]) - i64(w1[white_out + i]) + i64(w1[white_in + i])
                                  - i64(w1[white_taken + i]))
            values[new + hidden + i] = i16(i64(values[old + hidden + i]) - i64(w1[black_out + i])
                                           + i64(w1[black_in + i]) - i64(w1[black_taken + i]))
        if changes[at + 3] != NO_PIECE:
            white_out = net.white_rows[changes[at + 3]]
            white_in = net.white_rows[changes[at + 4]]
            black_out = net.black_rows[changes[at + 3]]
            black_in = net.black_rows[changes[at + 4]]
            for i in range(hidden):
                values[new + i] = i16(i64(values[new + i]) - i64(w1[white_out + i]) + i64(w1[white_in + i]))
                values[new + hidden + i] = i16(i64(values[new + hidden + i]) - i64(w1[black_out + i])
                                               + i64(w1[black_in + i]))

    def evaluate(self, turn: chess.Color) -> int:
        """The network's score in centipawns for the side to move (*turn*)."""
        net = self.net
        w2 = net.w2
        top = self._current()
        values = self.values
        hidden = self.hidden
        qa: i64 = net.qa
        own = top if turn == chess.WHITE else top + hidden
        other = top + hidden if turn == chess.WHITE else top
        total: i64 = 0
        for i in range(hidden):
            value = i64(values[own + i])
            if value > 0:
                total += (value if value < qa else qa) * i64(w2[i])
            value = i64(values[other + i])
            if value > 0:
                total += (value if value < qa else qa) * i64(w2[hidden + i])
        return int((total + net.b2) * net.scale_cp // (qa * net.qb))

    def current(self) -> list[int]:
        """The current slot's values (White's perspective, then Black's), for tests."""
        top = self._current()
        return [int(self.values[top + i]) for i in range(2 * self.hidden)]
