"""Games full of tactics to mine puzzles from: an engine against itself, each side now and then
playing a random move instead of its own.

Puzzles come from mistakes, and a strong engine makes few while a random mover makes nothing
but: here each move is the engine's best at a small depth, except that with probability
``--blunder`` it is a random legal move, which often hangs something the other side can take in
exactly one way. The games are written as PGN (``Variant "Knightmate"``) for
``knightmate-bot puzzles``; the same seed and engine give the same games.

    python -m bench.datagen.make_puzzle_games --engine /usr/games/fairy-stockfish --games 300 -o games.pgn
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from bot.analysis import EngineCommand, close_engine
from bot.engine.external import engine_board_of
from variant import KnightmateBoard

#: A game stops after this many plies (the mining has seen its tactics by then).
MAX_PLIES = 120


def play_game(engine: chess.engine.SimpleEngine, rng: random.Random, depths: tuple[int, int],
              blunder: float) -> chess.pgn.Game:
    """One game of *engine* against itself at a random depth within *depths* per move, a random
    move instead with probability *blunder*."""
    board = KnightmateBoard()
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        if rng.random() < blunder:
            move = rng.choice(list(board.legal_moves))
        else:
            limit = chess.engine.Limit(depth=rng.randint(*depths))
            played = engine.play(engine_board_of(board), limit).move
            if played is None or played not in board.legal_moves:
                # Seen once in 300 games with Fairy-Stockfish (c1d1 from an empty c1): the game ends
                # there rather than go on from a position the engine does not see.
                print(f"the engine answered {played} in {board.fen()}; the game ends here", file=sys.stderr)
                break
            move = played
        board.push(move)
    game = chess.pgn.Game.from_board(board)
    game.headers["Variant"] = "Knightmate"
    game.headers["Result"] = board.result(claim_draw=True)
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", required=True, help="UCI engine command that plays Knightmate")
    parser.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    parser.add_argument("--depth", default="2-5", help="search depths MIN-MAX, one drawn per move (default 2-5)")
    parser.add_argument("--blunder", type=float, default=0.1, help="chance of a random move (default 0.1)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="PGN file to write")
    args = parser.parse_args(argv)
    low, _, high = args.depth.partition("-")
    depths = (int(low), int(high or low))
    rng = random.Random(args.seed)
    engine = EngineCommand(tuple(shlex.split(args.engine)), {"Threads": 1}).open()
    try:
        with args.output.open("w", encoding="utf-8") as handle:
            for number in range(1, args.games + 1):
                game = play_game(engine, rng, depths, args.blunder)
                game.headers["Event"] = f"make_puzzle_games seed {args.seed}"
                game.headers["Round"] = str(number)
                print(game, file=handle, end="\n\n", flush=True)
                print(f"game {number}: {game.headers['Result']} in {game.end().ply()} plies", file=sys.stderr)
    finally:
        close_engine(engine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
