"""The NNUE in numpy: inputs from a FEN, the net file written and read, and the forward pass.

The engine reads the same file in ``bot/engine/nnue.py`` (its layout is documented there) and
computes the same network with integers, incrementally; this module is the independent
reference: ``bench/training/train_nnue.py`` writes nets with it, and ``tests/test_engine_nnue.py`` holds
the engine's score to :func:`forward` of the same weights. Needs numpy (``pip install -e '.[train]'``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

MAGIC = b"KMNNUE1\0"
INPUTS = 768
#: The largest |W1| and |b1| in the file: b1 plus 32 pieces' rows stays inside int16.
WEIGHT_LIMIT = 32767 // 33
#: FEN letters of Knightmate pieces (commoner ``m``, royal knight ``k``), by python-chess's type numbers.
PIECE_TYPES = {"p": 1, "m": 2, "b": 3, "r": 4, "q": 5, "k": 6}

Floats = npt.NDArray[np.float64]


@dataclass
class QuantizedNet:
    """A net as stored: integer weights, and the scales that turn them back into the trained floats."""
    qa: int
    qb: int
    scale_cp: int
    w1: npt.NDArray[np.int16]  # (768, hidden)
    b1: npt.NDArray[np.int16]  # (hidden,)
    w2: npt.NDArray[np.int16]  # (2 * hidden,): the side to move's half first
    b2: int

    @property
    def hidden(self) -> int:
        return int(self.b1.shape[0])


def features(fen: str) -> tuple[list[int], list[int], bool]:
    """The active inputs of the position in *fen* from the side to move's perspective and from
    the other side's, and whether White is to move. An input is ``(relative colour * 6 + type - 1)
    * 64 + square``, own pieces first, and Black's perspective flips the board (``square ^ 56``)."""
    placement, turn = fen.split()[:2]
    white_view: list[int] = []
    black_view: list[int] = []
    for rank_index, row in enumerate(placement.split("/")):
        rank = 7 - rank_index
        file = 0
        for char in row:
            if char.isdigit():
                file += int(char)
                continue
            square = rank * 8 + file
            piece = PIECE_TYPES[char.lower()] - 1
            white = char.isupper()
            white_view.append(((0 if white else 6) + piece) * 64 + square)
            black_view.append(((6 if white else 0) + piece) * 64 + (square ^ 56))
            file += 1
    white_to_move = turn == "w"
    return (white_view, black_view, True) if white_to_move else (black_view, white_view, False)


def quantize(w1: Floats, b1: Floats, w2: Floats, b2: float, qa: int, qb: int, scale_cp: int) -> QuantizedNet:
    """Float weights (first layer's activations clipped at 1) in the file's integers."""
    limit = WEIGHT_LIMIT

    def ints(values: Floats, scale: int, bound: int) -> npt.NDArray[np.int16]:
        return np.clip(np.rint(values * scale), -bound, bound).astype(np.int16)

    return QuantizedNet(qa, qb, scale_cp, ints(w1, qa, limit), ints(b1, qa, limit), ints(w2, qb, 32767),
                        int(round(b2 * qa * qb)))


def to_bytes(net: QuantizedNet) -> bytes:
    """The net file's content."""
    header = struct.pack("<iiii", net.hidden, net.qa, net.qb, net.scale_cp)
    body = b"".join(array.astype("<i2").tobytes() for array in (net.w1, net.b1, net.w2))
    return MAGIC + header + body + struct.pack("<i", net.b2)


def read(path: Path) -> QuantizedNet:
    data = path.read_bytes()
    if data[:len(MAGIC)] != MAGIC:
        raise ValueError(f"{path}: not a Knightmate NNUE file")
    hidden, qa, qb, scale_cp = struct.unpack_from("<iiii", data, len(MAGIC))
    values = np.frombuffer(data, dtype="<i2", count=INPUTS * hidden + 3 * hidden, offset=len(MAGIC) + 16)
    (b2,) = struct.unpack_from("<i", data, len(data) - 4)
    w1_end = INPUTS * hidden
    return QuantizedNet(qa, qb, scale_cp, values[:w1_end].reshape(INPUTS, hidden).astype(np.int16),
                        values[w1_end:w1_end + hidden].astype(np.int16), values[w1_end + hidden:].astype(np.int16),
                        int(b2))


def forward(net: QuantizedNet, fen: str) -> float:
    """The net's score in centipawns for the side to move, in floating point from the dequantized
    weights (what the engine's integer evaluation approximates)."""
    us, them, _ = features(fen)
    w1 = net.w1.astype(np.float64) / net.qa
    b1 = net.b1.astype(np.float64) / net.qa
    hidden = net.hidden
    w2 = net.w2.astype(np.float64) / net.qb
    own = np.clip(b1 + w1[us].sum(axis=0), 0.0, 1.0)
    other = np.clip(b1 + w1[them].sum(axis=0), 0.0, 1.0)
    logit = own @ w2[:hidden] + other @ w2[hidden:] + net.b2 / (net.qa * net.qb)
    return float(logit * net.scale_cp)
