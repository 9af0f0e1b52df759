"""How the default analysis and Fairy-Stockfish agree on a game's mistakes and blunders.

Each game of the PGN files is analysed once by each engine (the built-in one as ``knightmate-bot
analyse`` runs it by default, Fairy-Stockfish at depth 16), and each analysis is judged on curves
from centipawns to winning chances (:mod:`bot.analysis.judgement`): Fairy-Stockfish on Lichess's,
the built-in engine on Lichess's (as before each engine had its own curve) and on its own. Judging
needs no search, so "before" and "after" come from the same searches.

Per game it prints the plies each marks as a mistake or blunder; then, for the built-in engine
on each curve, against Fairy-Stockfish taken as the reference: how many plies each marks, how many
both mark (recall: the share of Fairy-Stockfish's found; precision: the share of the built-in's
that Fairy-Stockfish marks too), how many of Fairy-Stockfish's the built-in marks with any
judgement (an inaccuracy included), and how far apart the two put each side's accuracy. Neither
engine is the truth; the point is that the verdicts should not depend on the engine's units.

    python -m bench.match.verdict_agreement games.pgn [--builtin-depth 8 | --builtin-movetime-ms 150] [--fsf-depth 16]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from bench.match.uci_player import NATIVE_FAIRY_STOCKFISH
from bot.analysis import (
    BUILTIN_CURVE,
    LICHESS_CURVE,
    EngineCommand,
    GameAnalysis,
    Judgement,
    PositionAnalysis,
    WinningChancesCurve,
    analyse_game,
    close_engine,
)
from bot.analysis.whole_game import review
from bot.cli.main import DEFAULT_ANALYSIS_DEPTH
from variant import KnightmateBoard

#: The errors compared: a mistake or a blunder.
SERIOUS = frozenset({Judgement.MISTAKE, Judgement.BLUNDER})


@dataclass(frozen=True)
class Marks:
    """One judged game's plies (0: the first move) marked as a mistake or blunder, and with any
    mark; and each side's accuracy (None for a side without a move)."""

    serious: frozenset[int]
    any: frozenset[int]
    accuracies: tuple[float | None, float | None]

    @classmethod
    def of(cls, analysis: GameAnalysis) -> Marks:
        return cls(frozenset(move.ply for move in analysis.moves if move.judgement in SERIOUS),
                   frozenset(move.ply for move in analysis.moves if move.judgement is not None),
                   (analysis.white.accuracy, analysis.black.accuracy))


@dataclass
class MarkAgreement:
    """The built-in engine's marks on one curve against Fairy-Stockfish's, summed over games."""

    ours: int = 0
    theirs: int = 0
    both: int = 0
    theirs_with_any_mark: int = 0
    #: Each side's accuracy by the built-in engine less Fairy-Stockfish's, a game's side each.
    accuracy_gaps: list[float] = field(default_factory=list)

    def add(self, ours: Marks, theirs: Marks) -> None:
        self.ours += len(ours.serious)
        self.theirs += len(theirs.serious)
        self.both += len(ours.serious & theirs.serious)
        self.theirs_with_any_mark += len(theirs.serious & ours.any)
        self.accuracy_gaps += [mine - other for mine, other in zip(ours.accuracies, theirs.accuracies, strict=True)
                               if mine is not None and other is not None]

    def describe(self) -> str:
        recall = self.both / self.theirs if self.theirs else 0.0
        precision = self.both / self.ours if self.ours else 0.0
        return (f"built-in marks {self.ours}, Fairy-Stockfish {self.theirs}, both {self.both}: "
                f"recall {recall:.0%}, precision {precision:.0%}; "
                f"Fairy-Stockfish's with any built-in mark {self.theirs_with_any_mark} "
                f"({self.theirs_with_any_mark / self.theirs if self.theirs else 0.0:.0%}); "
                f"accuracy, built-in less Fairy-Stockfish: mean {statistics.fmean(self.accuracy_gaps):+.1f}, "
                f"mean absolute {statistics.fmean(abs(gap) for gap in self.accuracy_gaps):.1f} points")


def read_games(paths: Sequence[Path]) -> list[chess.pgn.Game]:
    """The games with moves of the PGN files (importing :mod:`variant` taught chess.pgn Knightmate)."""
    games = []
    for path in paths:
        with path.open(encoding="utf-8-sig") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                if game.next() is not None:
                    games.append(game)
    return games


def positions_of(engine: chess.engine.SimpleEngine, game: chess.pgn.Game,
                 limit: chess.engine.Limit) -> list[PositionAnalysis]:
    board = game.board()
    assert isinstance(board, KnightmateBoard)
    return list(analyse_game(engine, board, list(game.mainline_moves()), limit).positions)


def judged(game: chess.pgn.Game, positions: Sequence[PositionAnalysis], curve: WinningChancesCurve) -> Marks:
    board = game.board()
    assert isinstance(board, KnightmateBoard)
    return Marks.of(review(board, list(game.mainline_moves()), positions, curve))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", type=Path, nargs="+", help="PGN files of Knightmate games")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--builtin-depth", type=int, default=DEFAULT_ANALYSIS_DEPTH,
                        help=f"the built-in engine's depth a position (default {DEFAULT_ANALYSIS_DEPTH}, "
                             "as knightmate-bot analyse)")
    budget.add_argument("--builtin-movetime-ms", type=int, help="... or its milliseconds a position")
    parser.add_argument("--fsf", default=NATIVE_FAIRY_STOCKFISH, help="the Fairy-Stockfish command")
    parser.add_argument("--fsf-depth", type=int, default=16, help="Fairy-Stockfish's depth a position (default 16)")
    args = parser.parse_args(argv)

    games = read_games(args.pgn)
    builtin_limit = (chess.engine.Limit(time=args.builtin_movetime_ms / 1000) if args.builtin_movetime_ms
                     else chess.engine.Limit(depth=args.builtin_depth))
    fsf_limit = chess.engine.Limit(depth=args.fsf_depth)
    engines = {"built-in": (EngineCommand(), builtin_limit),
               "Fairy-Stockfish": (EngineCommand(tuple(shlex.split(args.fsf))), fsf_limit)}
    searched: dict[str, list[list[PositionAnalysis]]] = {}
    for name, (command, limit) in engines.items():
        started = time.monotonic()
        engine = command.open()
        try:
            searched[name] = [positions_of(engine, game, limit) for game in games]
        finally:
            close_engine(engine)
        print(f"{name}, {limit}: {sum(len(p) for p in searched[name])} positions in "
              f"{time.monotonic() - started:.0f} s", flush=True)

    tallies = {"before (Lichess's curve)": (LICHESS_CURVE, MarkAgreement()),
               "after (its own curve)": (BUILTIN_CURVE, MarkAgreement())}
    for number, game in enumerate(games, start=1):
        theirs = judged(game, searched["Fairy-Stockfish"][number - 1], LICHESS_CURVE)
        line = [f"game {number} ({len(list(game.mainline_moves()))} plies): Fairy-Stockfish {sorted(theirs.serious)}"]
        for label, (curve, tally) in tallies.items():
            ours = judged(game, searched["built-in"][number - 1], curve)
            tally.add(ours, theirs)
            line.append(f"built-in {label.split()[0]} {sorted(ours.serious)}")
        print("; ".join(line))
    print(f"{len(games)} games; the built-in engine's slope {BUILTIN_CURVE.slope}, Lichess's {LICHESS_CURVE.slope}")
    for label, (_, tally) in tallies.items():
        print(f"{label}: {tally.describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
