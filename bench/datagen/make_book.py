"""Makes the engine's opening book, bot/engine/data/knightmate.bin, from Fairy-Stockfish's analysis.

Knightmate has no published opening theory, so the book is grown from the start position with
Fairy-Stockfish (the native Debian build): each position is searched with MultiPV at a fixed
depth (``--depth`` up to ply ``--far-ply``, ``--far-depth`` from there on, since a main line's
later positions are many and matter less each), and the moves within ``--margin`` centipawns of
the best become its book moves, weighted so the best is preferred but the others are played too
(the weight halves for every ``--halving`` centipawns a move is worse). Both colours' moves are
in the book, since the bot plays both.

The bot plays people, who open with anything, so the first two plies are covered whole: the
start position, every position after White's first move, and every position after each Black
reply to the book's own first moves and to ``--first-moves`` (moves people play that the book
may not). Those positions are analysed first.

Then positions are expanded most-likely-first, likelihood being the chance that a game reaches
the position when each side plays a book move by its weight, except that a side's first move is,
in a ``--whim`` share of games, any legal move at all (a person's choice). So the main lines run
deep, the side lines stop early, and the book's effort goes where games actually go. A position
reached again by a transposition before it is analysed adds the new line's likelihood; one
reached after keeps its children's likelihoods as they were.

Each analysis is appended to ``--cache`` (in the git-ignored bench/data/) as soon as it is made,
keyed by position, depth and MultiPV, so a run that is stopped or crashes loses nothing and the
next run takes up where it left off; every position is searched from a cleared hash, so a cached
analysis is exactly what a fresh run would make. The run stops after ``--positions`` positions,
at ``--max-plies``, or after ``--minutes``, writes the book with :func:`bot.engine.book.write_book`,
and prints its size and how long the book's lines are (:func:`line_lengths`). It never plays a game.
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.polyglot

from bench.datagen.make_openings import ranked_moves
from bench.match.uci_player import NATIVE_FAIRY_STOCKFISH, UciPlayer
from bot.engine.book import DEFAULT_BOOK, MAX_WEIGHT, book_entry, write_book
from variant import KnightmateBoard

DEFAULT_CACHE = Path(__file__).resolve().parents[1] / "data" / "make_book-analysis.jsonl"
#: The weight of the best move in a position; worse moves get a halving share of it.
TOP_WEIGHT = 1000
#: Plies whose positions are answered for every legal move of the side that just moved.
COVERED_PLIES = 2
#: A line in the book is longer than any game's opening; walks stop here whatever the book says.
MAX_WALK_PLIES = 200

Line = tuple[str, ...]
Ranked = list[tuple[str, int]]


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


def covered_lines(start_book: Sequence[str], first_moves: Sequence[str]) -> list[Line]:
    """The lines to every position of the first two plies that must be answered: after each of
    White's legal first moves, and after each Black reply to *start_book* and *first_moves*."""
    board = KnightmateBoard()
    lines: list[Line] = [(board.uci(move),) for move in board.legal_moves]
    for first in dict.fromkeys([*start_book, *first_moves]):
        board.push_uci(first)
        lines += [(first, board.uci(reply)) for reply in board.legal_moves]
        board.pop()
    return lines


class AnalysisCache:
    """Fairy-Stockfish's ranked moves by position, depth and MultiPV, kept in a JSON-lines file.

    A record is one line, written and flushed as soon as it is made; a last line cut short by a
    crash is dropped when the file is read, any other line that is no record is an error.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._ranked: dict[tuple[str, int, int], Ranked] = {}
        if path.exists():
            text = path.read_text()
            lines = text.split("\n")
            complete = lines[:-1]  # after the last newline: empty, or a record cut short
            for number, line in enumerate(complete, 1):
                try:
                    record = json.loads(line)
                    key = (str(record["epd"]), int(record["depth"]), int(record["multipv"]))
                    self._ranked[key] = [(str(uci), int(score)) for uci, score in record["ranked"]]
                except (ValueError, KeyError, TypeError) as error:
                    raise ValueError(f"{path}:{number}: not an analysis record ({error})") from None
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("a")

    def get(self, epd: str, depth: int, multipv: int) -> Ranked | None:
        return self._ranked.get((epd, depth, multipv))

    def put(self, epd: str, depth: int, multipv: int, ranked: Ranked) -> None:
        self._ranked[(epd, depth, multipv)] = ranked
        record = {"epd": epd, "depth": depth, "multipv": multipv, "ranked": ranked}
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()

    def __len__(self) -> int:
        return len(self._ranked)

    def close(self) -> None:
        self._file.close()


class Analyst:
    """Ranks a position's moves from the cache, or with Fairy-Stockfish (started when first
    needed, so a run the cache answers whole needs no engine) and then into the cache."""

    def __init__(self, engine: UciPlayer, cache: AnalysisCache, multipv: int) -> None:
        self.engine = engine
        self.cache = cache
        self.multipv = multipv
        self.searched = 0
        """Positions searched by the engine in this run (the others came from the cache)."""

    def ranked(self, line: Line, board: chess.Board, depth: int) -> Ranked:
        epd = board.epd()
        cached = self.cache.get(epd, depth, self.multipv)
        if cached is not None:
            return cached
        self.engine.new_game()  # a cleared hash: the analysis does not depend on what came before
        ranked = ranked_moves(self.engine, line, depth)
        self.cache.put(epd, depth, self.multipv, ranked)
        self.searched += 1
        return ranked


def grow(analyst: Analyst, args: argparse.Namespace) -> tuple[list[bytes], Counter[int]]:
    """Analyses the covered positions, then the others most likely first, and returns their book
    entries and how many positions were analysed at each ply."""
    order = itertools.count()  # ties in likelihood go to the position queued first
    queue: list[tuple[float, int, Line]] = [(-math.inf, next(order), ())]
    likelihoods: dict[int, float] = {chess.polyglot.zobrist_hash(KnightmateBoard()): 1.0}
    analysed: set[int] = set()
    entries: list[bytes] = []
    per_ply = Counter[int]()
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
        depth = args.depth if len(line) < args.far_ply else args.far_depth
        moves = book_moves(board, analyst.ranked(line, board, depth), args.margin, args.halving)
        entries += [book_entry(board, choice.move, choice.weight) for choice in moves]
        per_ply[len(line)] += 1
        likelihood = likelihoods.get(key, 0.0)
        print(f"{len(analysed)}/{args.positions} ply {len(line)} d{depth} p={likelihood:.5f} "
              f"{' '.join(line)}: {' '.join(f'{choice.uci}/{choice.weight}' for choice in moves)}",
              file=sys.stderr, flush=True)
        if not line:
            for covered in covered_lines([choice.uci for choice in moves], args.first_moves):
                heapq.heappush(queue, (-math.inf, next(order), covered))
        if len(line) + 1 >= args.max_plies:
            continue
        for uci, share in child_shares(board, moves, args.whim if len(line) < COVERED_PLIES else 0.0):
            board.push_uci(uci)
            child = chess.polyglot.zobrist_hash(board)
            if child not in analysed and not board.is_game_over():
                likelihoods[child] = likelihoods.get(child, 0.0) + likelihood * share
                heapq.heappush(queue, (-likelihoods[child], next(order), (*line, uci)))
            board.pop()
    return entries, per_ply


def child_shares(board: KnightmateBoard, moves: Sequence[BookMove], whim: float) -> list[tuple[str, float]]:
    """The chance of each move played in *board*: a book move by its weight, except that in a
    *whim* share of games any legal move is played, each as likely as another."""
    total = sum(choice.weight for choice in moves)
    shares = {choice.uci: (1 - whim) * choice.weight / total for choice in moves}
    if whim:
        legal = [board.uci(move) for move in board.legal_moves]
        for uci in legal:
            shares[uci] = shares.get(uci, 0.0) + whim / len(legal)
    return list(shares.items())


def line_lengths(path: Path, walks: int, opponent: chess.Color | None, seed: int) -> list[int]:
    """How many plies games stay in the book at *path*, over *walks* seeded random games from
    the start: each move is the book's weighted random choice (as the engine picks), except that
    *opponent*, if given, plays its first move uniformly at random among all its legal moves (a
    person's choice). A game leaves the book at the first position the side to move has no
    book move for, or at a repetition (where the engine stops using its book too)."""
    rng = random.Random(seed)
    lengths = []
    with chess.polyglot.open_reader(path) as reader:
        for _ in range(walks):
            board = KnightmateBoard()
            while board.ply() < MAX_WALK_PLIES and not board.is_repetition(2):
                if board.turn == opponent and board.ply() < COVERED_PLIES:
                    board.push(rng.choice(list(board.legal_moves)))
                    continue
                try:
                    board.push(reader.weighted_choice(board, random=rng).move)
                except IndexError:
                    break
            lengths.append(board.ply())
    return lengths


def describe_lengths(lengths: Sequence[int]) -> str:
    """Mean, range and counts per length, in one line."""
    counts = " ".join(f"{plies}:{count}" for plies, count in sorted(Counter(lengths).items()))
    return f"mean {statistics.fmean(lengths):.2f} plies, {min(lengths)} to {max(lengths)} ({counts})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=NATIVE_FAIRY_STOCKFISH, help="Fairy-Stockfish's command")
    parser.add_argument("--depth", type=int, default=12, help="search depth before --far-ply (default 12)")
    parser.add_argument("--far-depth", type=int, default=10, help="search depth from --far-ply on (default 10)")
    parser.add_argument("--far-ply", type=int, default=2, help="the first ply searched to --far-depth (default 2)")
    parser.add_argument("--multipv", type=int, default=5, help="moves ranked per position (default 5)")
    parser.add_argument("--margin", type=int, default=30, help="book moves this close to the best (cp, default 30)")
    parser.add_argument("--halving", type=int, default=15, help="cp per halving of a move's weight (default 15)")
    parser.add_argument("--first-moves", nargs="*", default=["e2e3", "c2c3", "e2e4", "d2d4"],
                        help="White first moves whose every reply is answered besides the book's own "
                             "(UCI, default e2e3 c2c3 e2e4 d2d4)")
    parser.add_argument("--whim", type=float, default=0.2,
                        help="share of games in which a side's first move is any legal move (default 0.2)")
    parser.add_argument("--positions", type=int, default=3000, help="positions analysed at most (default 3000)")
    parser.add_argument("--max-plies", type=int, default=20, help="no book moves from this ply on (default 20)")
    parser.add_argument("--minutes", type=float, default=50, help="stop analysing after this long (default 50)")
    parser.add_argument("--hash", type=int, default=64, help="Fairy-Stockfish's hash, MB (default 64)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="the analyses kept between runs")
    parser.add_argument("--walks", type=int, default=10_000, help="random games measuring line length")
    parser.add_argument("--output", type=Path, default=DEFAULT_BOOK, help="the book file written")
    args = parser.parse_args(argv)
    if min(args.depth, args.far_depth, args.multipv, args.positions, args.max_plies, args.halving,
           args.walks) < 1 or args.margin < 0 or args.far_ply < 0:
        parser.error("--depth, --far-depth, --multipv, --positions, --max-plies, --halving and --walks "
                     "must be positive, --margin and --far-ply not negative")
    if not 0 <= args.whim < 1:
        parser.error("--whim must be at least 0 and below 1")
    for uci in args.first_moves:
        try:
            KnightmateBoard().parse_uci(uci)
        except ValueError:
            parser.error(f"--first-moves: {uci} is not a legal first move")

    engine = UciPlayer("Fairy-Stockfish", [args.engine],
                       {"MultiPV": str(args.multipv), "Hash": str(args.hash), "Threads": "1"})
    started = time.monotonic()
    try:
        cache = AnalysisCache(args.cache)
    except (OSError, ValueError) as error:
        parser.error(f"--cache: {error}")
    analyst = Analyst(engine, cache, args.multipv)
    try:
        entries, per_ply = grow(analyst, args)
    finally:
        engine.close()
        cache.close()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    count = write_book(args.output, entries)
    print(f"{args.output}: {count} entries, {args.output.stat().st_size} bytes; {per_ply.total()} positions "
          f"({analyst.searched} searched in this run, the others from the cache), {time.monotonic() - started:.0f} s")
    print("positions by ply: " + ", ".join(f"{ply}: {per_ply[ply]}" for ply in sorted(per_ply)))
    for name, opponent in (("both sides by the book", None), ("we play White, Black's first move any", chess.BLACK),
                           ("we play Black, White's first move any", chess.WHITE)):
        print(f"{name}: {describe_lengths(line_lengths(args.output, args.walks, opponent, seed=1))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
