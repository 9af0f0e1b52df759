"""The opening book: Knightmate positions and good moves in them, in a Polyglot file.

The book is read with python-chess's :mod:`chess.polyglot`, unchanged. That works for Knightmate
because :class:`variant.KnightmateBoard` keeps python-chess's piece types (the royal knight is a
``KING``, the commoner a ``KNIGHT``), so the Polyglot key of a position, the king-takes-rook
spelling of castling and the promotion field (a commoner is a "knight" promotion) all mean the
right thing; ``tests/test_engine_book.py`` proves it. Polyglot keys do not say which variant a
position belongs to, so a chess book would find "moves" for some Knightmate positions: every
move found is checked legal on the board, and only a Knightmate book is any use.

:func:`book_entry` and :func:`write_book` are the writing half, which python-chess does not have;
``bench/datagen/make_book.py`` uses them to make the shipped book, :data:`DEFAULT_BOOK`.

This module must never search, and a book can only ever suggest a legal move.
"""

from __future__ import annotations

import os
import random
import struct
from collections.abc import Iterable
from pathlib import Path

import chess
import chess.polyglot

#: The book shipped with the package (package data), made by ``bench/datagen/make_book.py``.
DEFAULT_BOOK = Path(__file__).resolve().parent / "data" / "knightmate.bin"

#: A Polyglot entry: key, move, weight, learn; 16 bytes, big-endian.
_ENTRY = struct.Struct(">QHHI")
MAX_WEIGHT = 0xFFFF


class BookError(ValueError):
    """A book file that cannot be used, in one line (the caller names the file)."""


def check_book_file(path: str | os.PathLike[str]) -> Path:
    """*path* as a :class:`Path` if it looks like a Polyglot book: a readable, non-empty file of
    16-byte entries. Raises :exc:`BookError` otherwise (the contents are checked when read)."""
    if not str(path).strip():
        raise BookError("no file given")
    book = Path(path)
    try:
        size = book.stat().st_size
    except OSError as error:
        raise BookError(f"cannot read it: {error.strerror}") from None
    if not book.is_file():
        raise BookError("not a file")
    if size == 0 or size % _ENTRY.size:
        raise BookError(f"not a Polyglot book: its size ({size} bytes) is not a positive multiple of {_ENTRY.size}")
    return book


class OpeningBook:
    """A Polyglot book that answers a position with one of its moves, chosen at random in
    proportion to the entries' weights, so the bot does not play the same game every time.

    *seed* makes the choices repeatable (tests); the default seeds from the system. Keeps the file
    open (memory-mapped) until :meth:`close`.
    """

    def __init__(self, path: str | os.PathLike[str] = DEFAULT_BOOK, *, seed: int | None = None) -> None:
        self.path = check_book_file(path)
        self._reader = chess.polyglot.open_reader(self.path)
        self._random = random.Random(seed)

    def choose(self, board: chess.Board) -> chess.Move | None:
        """A legal book move for *board*, or ``None`` when the book has none.

        A position seen before in the game gets no book move: book lines are short, and playing
        them again around a cycle would walk into a draw by repetition.
        """
        try:
            entry = self._reader.weighted_choice(board, random=self._random)
        except IndexError:
            return None
        if board.is_repetition(2):
            return None
        return entry.move

    def close(self) -> None:
        self._reader.close()


def book_entry(board: chess.Board, move: chess.Move, weight: int) -> bytes:
    """The 16-byte Polyglot entry that offers legal *move* in *board* with *weight* (1 to 65535).

    Castling is written the Polyglot way, as the king (here the royal knight) taking its own rook;
    a promotion to a commoner is a promotion to python-chess's ``KNIGHT``, Polyglot's code 1.
    """
    if not 1 <= weight <= MAX_WEIGHT:
        raise ValueError(f"a book weight must be between 1 and {MAX_WEIGHT}, got {weight}")
    if not board.is_legal(move):
        raise ValueError(f"{move.uci()} is not legal in {board.fen()}")
    to_square = move.to_square
    if board.is_castling(move):
        rook_file = 7 if chess.square_file(move.to_square) > chess.square_file(move.from_square) else 0
        to_square = chess.square(rook_file, chess.square_rank(move.from_square))
    promotion = move.promotion - 1 if move.promotion else 0
    raw_move = to_square | move.from_square << 6 | promotion << 12
    return _ENTRY.pack(chess.polyglot.zobrist_hash(board), raw_move, weight, 0)


def write_book(path: str | os.PathLike[str], entries: Iterable[bytes]) -> int:
    """Writes *entries* (from :func:`book_entry`) as a Polyglot book, sorted by key as readers
    require, and returns how many were written."""
    ordered = sorted(set(entries))
    Path(path).write_bytes(b"".join(ordered))
    return len(ordered)
