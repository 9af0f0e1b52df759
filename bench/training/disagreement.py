"""Where the engine's evaluation and a reference engine's disagree, by where each royal knight stands.

Knightmate knowledge for the evaluation needs a lead: a kind of position the engine misjudges.
This tool takes the positions of games (a ladder's PGN, say: the positions the engine actually
meets), scores each with a reference engine (native Fairy-Stockfish unless ``--reference`` names
another) and with the engine being studied (the built-in one unless ``--engine``), each at a fixed
depth, and prints the mean of the difference, reference minus engine, grouped by where the royal
knights stand: each royal knight's square seen from its own side (a1-h1 by name, then its second
rank, then beyond), in the middlegame or the endgame (by the pieces left), the difference taken
for that royal knight's side. So a group far from zero is a place where the reference thinks a
royal knight better or worse off than the engine does.

That is a lead for an SPRT, not a result: the reference may be the one that is wrong. (On
2026-12-06 Fairy-Stockfish's classical evaluation, which scores a royal knight with the chess
king's table, preferred g1 to e1 by 129 cp; a bonus for the castled squares did not play better in
self-play, bench/RESULTS.md.)

    python -m bench.training.disagreement GAMES.pgn ... [--depth 9] [--engine-depth 4] [--every 3] \\
        [--from-ply 15] [--to-ply 80]

Positions in check and those either engine scores as a mate or beyond ``--max-cp`` are left out;
both engines search each position from a cleared hash table.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine

from bench.match.uci_player import NATIVE_FAIRY_STOCKFISH
from bot.analysis import AnalysisEngineError, EngineCommand, analyse_position, close_engine
from bot.analysis.pgn_input import PgnInputError, game_problem, pgn_files, read_file
from variant import KnightmateBoard

#: Pieces other than pawns and royal knights from which a position counts as a middlegame (the
#: start position has 14).
MIDDLEGAME_PIECES = 10
#: A group with fewer positions is not printed: its mean says little.
MIN_GROUP = 10


@dataclass(frozen=True)
class Scored:
    fen: str
    reference_cp: int
    """The reference engine's score, for White."""
    engine_cp: int
    """The studied engine's score, for White."""


def sampled_positions(paths: Sequence[Path], every: int, from_ply: int, to_ply: int) -> Iterator[KnightmateBoard]:
    """Every *every*-th position of each Knightmate game in *paths* from ply *from_ply* to
    *to_ply*, not in check and with the game not over there. Games that cannot be read are
    reported on stderr and skipped."""
    for path in pgn_files(paths):
        for file_game in read_file(path):
            problem = game_problem(file_game.game)
            if problem is not None:
                print(f"{path} game {file_game.number}: {problem}; skipped", file=sys.stderr)
                continue
            board = file_game.game.board()
            assert isinstance(board, KnightmateBoard), "game_problem checks the variant"
            for ply, move in enumerate(file_game.game.mainline_moves(), start=1):
                board.push(move)
                if ply > to_ply:
                    break
                if ply >= from_ply and (ply - from_ply) % every == 0 and not board.is_check() \
                        and not board.is_game_over():
                    yield board.copy(stack=False)


def white_cp(engine: chess.engine.SimpleEngine, board: KnightmateBoard, limit: chess.engine.Limit) -> int | None:
    """*engine*'s score of *board* for White within *limit*, searched from a cleared table; None at a mate."""
    score = analyse_position(engine, board, limit, game=object()).score.white()
    return None if score.is_mate() else score.score()


def score_positions(boards: Iterable[KnightmateBoard], reference: chess.engine.SimpleEngine,
                    reference_limit: chess.engine.Limit, engine: chess.engine.SimpleEngine,
                    engine_limit: chess.engine.Limit, max_cp: int) -> list[Scored]:
    """Both engines' scores of each board, the mates and the scores beyond *max_cp* left out."""
    scored = []
    for board in boards:
        reference_score = white_cp(reference, board, reference_limit)
        engine_score = white_cp(engine, board, engine_limit)
        if reference_score is None or engine_score is None or max(abs(reference_score), abs(engine_score)) > max_cp:
            continue
        scored.append(Scored(board.fen(), reference_score, engine_score))
    return scored


def royal_place(board: chess.Board, color: chess.Color) -> str:
    """Where *color*'s royal knight stands, seen from its side: ``g1`` on its first rank, else
    ``rank 2`` or ``beyond``."""
    square = board.king(color)
    assert square is not None, "a Knightmate position has both royal knights"
    own_view = square if color == chess.WHITE else chess.square_mirror(square)
    rank = chess.square_rank(own_view)
    return chess.square_name(own_view) if rank == 0 else "rank 2" if rank == 1 else "beyond"


def by_royal_place(scored: Iterable[Scored]) -> dict[tuple[str, str], list[int]]:
    """The differences (reference minus engine, for the royal knight's side), grouped by
    (:func:`royal_place`, ``"middlegame"`` or ``"endgame"``); each position counts once for each side."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for item in scored:
        board = KnightmateBoard(item.fen)
        pieces = chess.popcount(board.occupied & ~board.pawns & ~board.kings)
        half = "middlegame" if pieces >= MIDDLEGAME_PIECES else "endgame"
        difference = item.reference_cp - item.engine_cp
        for color in chess.COLORS:
            groups[(royal_place(board, color), half)].append(difference if color == chess.WHITE else -difference)
    return dict(groups)


def report(scored: Sequence[Scored]) -> str:
    """The groups as a Markdown table, largest first (those under :data:`MIN_GROUP` left out)."""
    lines = ["| royal knight | phase | positions | mean difference (cp) | standard error |", "|---|---|---|---|---|"]
    groups = sorted(by_royal_place(scored).items(), key=lambda item: -len(item[1]))
    for (place, half), differences in groups:
        if len(differences) < MIN_GROUP:
            continue
        error = statistics.stdev(differences) / len(differences) ** 0.5
        lines.append(f"| {place} | {half} | {len(differences)} | {statistics.mean(differences):+.0f} | {error:.0f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", type=Path, nargs="+", help="PGN files (or directories of them) of Knightmate games")
    parser.add_argument("--reference", default=NATIVE_FAIRY_STOCKFISH,
                        help=f"the reference UCI engine (default {NATIVE_FAIRY_STOCKFISH})")
    parser.add_argument("--depth", type=int, default=9, help="the reference's depth a position (default 9)")
    parser.add_argument("--engine", help="the UCI engine studied (default: the built-in one)")
    parser.add_argument("--engine-depth", type=int, default=4, help="its depth a position (default 4)")
    parser.add_argument("--every", type=int, default=3, help="take every n-th position of a game (default 3)")
    parser.add_argument("--from-ply", type=int, default=15, help="first ply looked at (default 15: after the book)")
    parser.add_argument("--to-ply", type=int, default=80, help="last ply looked at (default 80)")
    parser.add_argument("--max-cp", type=int, default=600,
                        help="leave out positions either engine scores beyond this (default 600): decided games")
    args = parser.parse_args(argv)
    if args.every < 1 or args.depth < 1 or args.engine_depth < 1:
        parser.error("--every, --depth and --engine-depth must be at least 1")

    studied = EngineCommand(tuple(shlex.split(args.engine)) if args.engine else None)
    started = time.monotonic()
    try:
        boards = list(sampled_positions(args.pgn, args.every, args.from_ply, args.to_ply))
        reference = EngineCommand((args.reference,)).open()
    except (PgnInputError, AnalysisEngineError) as error:
        print(error, file=sys.stderr)
        return 2
    try:
        engine = studied.open()
    except AnalysisEngineError as error:
        close_engine(reference)
        print(error, file=sys.stderr)
        return 2
    try:
        scored = score_positions(boards, reference, chess.engine.Limit(depth=args.depth), engine,
                                 chess.engine.Limit(depth=args.engine_depth), args.max_cp)
    finally:
        close_engine(reference)
        close_engine(engine)
    if not scored:
        print("no position left to compare", file=sys.stderr)
        return 1
    overall = statistics.mean(item.reference_cp - item.engine_cp for item in scored)
    print(f"{len(scored)} positions of {len(boards)} sampled; {Path(args.reference).name} at depth {args.depth} "
          f"against {studied.name} at depth {args.engine_depth}: reference minus engine {overall:+.0f} cp for White "
          f"on average, {time.monotonic() - started:.0f} s")
    print(report(scored))
    return 0


if __name__ == "__main__":
    sys.exit(main())
