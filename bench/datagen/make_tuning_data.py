"""Writes positions labelled with game results, for tuning the evaluation (``tune_evaluation.py``).

Fairy-Stockfish plays Knightmate against itself at a fixed node count per move. Each game starts
from a line of ``openings.txt`` followed by a few random legal moves (so no two games are alike),
and every position reached after them is written with the game's final result. KnightmateBoard
keeps the game and decides its end (pyffish, the match referee, costs a few ms a call, more than
the engine's move here); the engine is told the game as the start FEN plus moves written by
``KnightmateBoard.uci``, which spells a commoner promotion ``m`` (python-chess's own ``n`` would
be ignored by Fairy-Stockfish, which would then search another position).

To keep the games short, a game is adjudicated once Fairy-Stockfish's own score has stayed
decisive (``--win-cp``) for ``--win-plies`` plies in a row, or dead level for ``--draw-plies``
plies after ply ``--draw-after``; games longer than ``--max-plies`` are draws.

Output: one tab-separated line per position, appended as each game ends, so a stopped run keeps
its games: ``fen  result  game  ply  in_check  best_is_capture  score_cp`` with the result for
White (1, 0.5, 0) and the engine's score for White (mates as +-10000). The tuner picks the quiet
positions from these columns.

``--resume`` continues a stopped run: game numbers go on after the last game of ``--seed`` in the
file, and the openings and random moves come from a stream seeded by the seed and that first game
number, so the new games are not the old ones again (a plain rerun with the same seed would repeat
them exactly).

    python -m bench.datagen.make_tuning_data --minutes 30 --out bench/data/tuning.tsv
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import chess

from bench.match.strength import DEFAULT_OPENINGS, Opening, load_openings
from bench.match.uci_player import NATIVE_FAIRY_STOCKFISH, EngineError, UciPlayer
from variant import KnightmateBoard

BENCH = Path(__file__).resolve().parents[1]
DEFAULT_OUT = BENCH / "data" / "tuning.tsv"
MATE_CP = 10000
#: A move may take this long before the engine is taken for hung (node-limited moves take ms).
MOVE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class GenerationSettings:
    nodes: int
    random_plies: int
    win_cp: int
    win_plies: int
    draw_after: int
    draw_plies: int
    max_plies: int


@dataclass(frozen=True)
class Sample:
    fen: str
    ply: int
    in_check: bool
    best_is_capture: bool
    score_cp: int
    """Fairy-Stockfish's score for White."""


def white_score(output: Sequence[str], white_to_move: bool) -> int | None:
    """The last ``score`` in the engine's ``info`` lines, turned to White's view."""
    for line in reversed(output):
        words = line.split()
        if "score" not in words:
            continue
        kind, value = words[words.index("score") + 1: words.index("score") + 3]
        cp = int(value) if kind == "cp" else (MATE_CP if int(value) > 0 else -MATE_CP)
        return cp if white_to_move else -cp
    return None


def play_game(engine: UciPlayer, opening: Opening, settings: GenerationSettings,
              rng: random.Random) -> tuple[float, str, list[Sample]]:
    """One game; returns White's result, how it ended, and the positions after the random moves."""
    board = KnightmateBoard(opening.fen)
    for uci in opening.moves:
        board.push(board.parse_uci(uci))
    for _ in range(rng.randint(min(1, settings.random_plies), settings.random_plies)):
        if ending(board) is not None:
            break
        board.push(rng.choice(list(board.legal_moves)))
    moves = [board.uci(move) for move in board.move_stack]
    engine.new_game()
    samples: list[Sample] = []
    decisive = level = 0
    while (ended := ending(board)) is None:
        ply = len(board.move_stack)
        if ply >= settings.max_plies:
            return 0.5, "ply limit", samples
        position = f"fen {opening.fen} moves {' '.join(moves)}" if moves else f"fen {opening.fen}"
        reply = engine.go(position, f"nodes {settings.nodes}", MOVE_TIMEOUT_S)
        try:
            move = board.parse_uci(reply.bestmove or "")
        except ValueError:
            raise EngineError(f"engine answered {reply.bestmove!r} in {board.fen()}") from None
        score = white_score(reply.output, board.turn == chess.WHITE)
        if score is None:
            raise EngineError(f"engine sent no score in {board.fen()}")
        samples.append(Sample(board.fen(), ply, board.is_check(), board.is_capture(move), score))
        decisive = decisive + 1 if abs(score) >= settings.win_cp and decisive_sign(samples) else 0
        level = level + 1 if abs(score) <= 10 and ply >= settings.draw_after else 0
        if decisive >= settings.win_plies:
            return (1.0 if score > 0 else 0.0), "adjudicated win", samples
        if level >= settings.draw_plies:
            return 0.5, "adjudicated draw", samples
        board.push(move)
        moves.append(reply.bestmove or "")
    return ended[0], ended[1], samples


def ending(board: KnightmateBoard) -> tuple[float, str] | None:
    """White's result and the reason if the game is over, claiming the fifty-move rule and threefold
    repetition at once as the match referee does (``referee.py``, whose rules
    ``tests/test_board_differential.py`` holds KnightmateBoard to)."""
    outcome = board.outcome()
    if outcome is not None:
        result = 0.5 if outcome.winner is None else float(outcome.winner == chess.WHITE)
        return result, outcome.termination.name.lower().replace("_", " ")
    if board.halfmove_clock >= 100:
        return 0.5, "fifty-move rule"
    if board.is_repetition(3):
        return 0.5, "threefold repetition"
    return None


def decisive_sign(samples: Sequence[Sample]) -> bool:
    """True while the last two scores point to the same winner (a run of decisive scores must agree)."""
    return len(samples) < 2 or (samples[-1].score_cp > 0) == (samples[-2].score_cp > 0)


def next_game(path: Path, seed: int) -> int:
    """The number after the last game of *seed* written to *path* (its ``game`` column reads
    ``seed:number``), or 0 when the file holds none."""
    last = -1
    prefix = f"{seed}:"
    if path.exists():
        with path.open() as lines:
            for line in lines:
                fields = line.split("\t")
                if len(fields) > 2 and fields[2].startswith(prefix):
                    last = max(last, int(fields[2][len(prefix):]))
    return last + 1


def game_stream(seed: int, first_game: int) -> random.Random:
    """The random stream of a run whose first game is *first_game*: a fresh run's is seeded by
    *seed* alone (as before resuming existed), a resumed run's by both numbers, so it differs
    from the stream that played the games already written."""
    return random.Random(seed if first_game == 0 else f"{seed}:resume:{first_game}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"file to append to (default {DEFAULT_OUT})")
    parser.add_argument("--engine", default=NATIVE_FAIRY_STOCKFISH,
                        help=f"Fairy-Stockfish binary (default {NATIVE_FAIRY_STOCKFISH})")
    parser.add_argument("--games", type=int, default=100000, help="stop after this many games")
    parser.add_argument("--minutes", type=float, default=30.0, help="stop starting games after this long")
    parser.add_argument("--nodes", type=int, default=8000, help="nodes per move (default 8000)")
    parser.add_argument(
        "--random-plies", type=int, default=4,
        help="1 to this many random moves after the opening (0: none); at fixed nodes the engine is "
        "deterministic, so a game without one repeats an earlier game")
    parser.add_argument("--win-cp", type=int, default=1000, help="adjudicate a win beyond this score")
    parser.add_argument("--win-plies", type=int, default=6, help="... held for this many plies")
    parser.add_argument("--draw-after", type=int, default=100, help="adjudicate draws from this ply on")
    parser.add_argument("--draw-plies", type=int, default=20, help="... after this many plies within 10 cp")
    parser.add_argument("--max-plies", type=int, default=300, help="a longer game is a draw")
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS, help="openings file")
    parser.add_argument("--seed", type=int, default=1, help="seed of the openings and random moves")
    parser.add_argument("--resume", action="store_true",
                        help="continue after the last game of --seed in --out, with new random moves")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = GenerationSettings(args.nodes, args.random_plies, args.win_cp, args.win_plies, args.draw_after,
                        args.draw_plies, args.max_plies)
    openings = load_openings(args.openings)
    first_game = next_game(args.out, args.seed) if args.resume else 0
    rng = game_stream(args.seed, first_game)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    engine = UciPlayer("fairy-stockfish", [args.engine], {"Threads": "1", "Hash": "16"})
    engine.start()
    stop_at = time.monotonic() + args.minutes * 60
    positions = 0
    try:
        with args.out.open("a") as out:
            for game in range(first_game, first_game + args.games):
                if time.monotonic() >= stop_at:
                    break
                result, reason, samples = play_game(engine, rng.choice(openings), settings, rng)
                tag = f"{args.seed}:{game}"
                for s in samples:
                    out.write(f"{s.fen}\t{result:g}\t{tag}\t{s.ply}\t{int(s.in_check)}\t"
                              f"{int(s.best_is_capture)}\t{s.score_cp}\n")
                out.flush()
                positions += len(samples)
                print(f"game {game + 1}: {result:g} ({reason}), {len(samples)} positions, {positions} in all",
                      file=sys.stderr, flush=True)
    finally:
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
