"""Makes the engine's opening book, bot/engine/data/knightmate.bin, from Fairy-Stockfish's analysis.

Knightmate has no published opening theory, so the book is grown from the start position with
Fairy-Stockfish (the native Debian build plays Knightmate at about 500k nodes/s): each position is
searched with MultiPV at a fixed depth, and the moves within ``--margin`` centipawns of the best
become its book moves, weighted so the best is preferred but the others are played too (the weight
halves for every ``--halving`` centipawns a move is worse). Both colours' moves are in the book,
since the bot plays both.

Positions are expanded most-likely-first: a position's likelihood is the product of the book
weights (as shares of their position's total) along the line that reaches it, so the main lines
run deep and the side lines stop early, and the book's effort goes where games actually go. A
position reached again by a transposition before it is analysed adds the new line's likelihood;
one reached after keeps its children's likelihoods as they were. It stops after ``--positions``
positions, at ``--max-plies``, or after ``--minutes``, and writes the book with
:func:`bot.engine.book.write_book`. The analysis is deterministic (one thread, fixed depth), so the
same options make the same book unless the time limit cuts it short.

It prints progress to stderr and the book's size at the end; it never plays a game.
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import chess.polyglot
from make_openings import ranked_moves
from uci_player import UciPlayer

from bot.engine.book import DEFAULT_BOOK, MAX_WEIGHT, book_entry, write_book
from variant import KnightmateBoard

NATIVE_FAIRY_STOCKFISH = "/usr/games/fairy-stockfish"
#: The weight of the best move in a position; worse moves get a halving share of it.
TOP_WEIGHT = 1000


@dataclass(frozen=True)
class BookMove:
    uci: str
    """As Fairy-Stockfish spells it (``m`` promotions), so lines can be sent back to it."""
    move: chess.Move
    weight: int


def weight(loss_cp: int, halving_cp: int) -> int:
    """A move's book weight from how many centipawns it is worse than the best move."""
    return max(1, min(MAX_WEIGHT, round(TOP_WEIGHT * math.exp2(-loss_cp / halving_cp))))


def book_moves(board: KnightmateBoard, ranked: Sequence[tuple[str, int]], margin_cp: int,
               halving_cp: int) -> list[BookMove]:
    """The analysed moves within *margin_cp* of the best, with their weights."""
    if not ranked:
        return []
    best = ranked[0][1]
    return [BookMove(uci, board.parse_uci(uci), weight(best - score, halving_cp))
            for uci, score in ranked if score >= best - margin_cp]


def grow(engine: UciPlayer, args: argparse.Namespace) -> list[bytes]:
    """Analyses positions most likely first and returns their book entries."""
    order = itertools.count()  # ties in likelihood go to the position queued first
    queue: list[tuple[float, int, tuple[str, ...]]] = [(-1.0, next(order), ())]
    likelihoods: dict[int, float] = {chess.polyglot.zobrist_hash(KnightmateBoard()): 1.0}
    analysed: set[int] = set()
    entries: list[bytes] = []
    deadline = time.monotonic() + args.minutes * 60
    while queue and len(analysed) < args.positions and time.monotonic() < deadline:
        _, _, line = heapq.heappop(queue)
        board = KnightmateBoard()
        for uci in line:
            board.push_uci(uci)
        key = chess.polyglot.zobrist_hash(board)
        if key in analysed:
            continue  # a stale queue entry of a position reached again by transposition
        analysed.add(key)
        moves = book_moves(board, ranked_moves(engine, line, args.depth), args.margin, args.halving)
        entries += [book_entry(board, choice.move, choice.weight) for choice in moves]
        likelihood = likelihoods[key]
        print(f"{len(analysed)}/{args.positions} ply {len(line)} p={likelihood:.4f} "
              f"{' '.join(line)}: {' '.join(f'{choice.uci}/{choice.weight}' for choice in moves)}",
              file=sys.stderr, flush=True)
        if len(line) + 1 >= args.max_plies:
            continue
        total = sum(choice.weight for choice in moves)
        for choice in moves:
            board.push(choice.move)
            child = chess.polyglot.zobrist_hash(board)
            if child not in analysed and not board.is_game_over():
                likelihoods[child] = likelihoods.get(child, 0.0) + likelihood * choice.weight / total
                heapq.heappush(queue, (-likelihoods[child], next(order), (*line, choice.uci)))
            board.pop()
    return entries


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=NATIVE_FAIRY_STOCKFISH, help="Fairy-Stockfish's command")
    parser.add_argument("--depth", type=int, default=12, help="search depth per position (default 12)")
    parser.add_argument("--multipv", type=int, default=5, help="moves ranked per position (default 5)")
    parser.add_argument("--margin", type=int, default=30, help="book moves this close to the best (cp, default 30)")
    parser.add_argument("--halving", type=int, default=15, help="cp per halving of a move's weight (default 15)")
    parser.add_argument("--positions", type=int, default=800, help="positions analysed at most (default 800)")
    parser.add_argument("--max-plies", type=int, default=20, help="no book moves from this ply on (default 20)")
    parser.add_argument("--minutes", type=float, default=25, help="stop analysing after this long (default 25)")
    parser.add_argument("--hash", type=int, default=64, help="Fairy-Stockfish's hash, MB (default 64)")
    parser.add_argument("--output", type=Path, default=DEFAULT_BOOK, help="the book file written")
    args = parser.parse_args(argv)
    if min(args.depth, args.multipv, args.positions, args.max_plies, args.halving) < 1 or args.margin < 0:
        parser.error("--depth, --multipv, --positions, --max-plies and --halving must be positive")

    engine = UciPlayer("Fairy-Stockfish", [args.engine],
                       {"MultiPV": str(args.multipv), "Hash": str(args.hash), "Threads": "1"})
    started = time.monotonic()
    engine.start()
    try:
        engine.new_game()
        entries = grow(engine, args)
    finally:
        engine.close()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    count = write_book(args.output, entries)
    print(f"{args.output}: {count} entries, {args.output.stat().st_size} bytes, "
          f"{time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
