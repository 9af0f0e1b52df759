"""A UCI engine that plays a uniformly random legal Knightmate move: the floor of the strength ladder.

Any engine worth testing scores close to 100% against it, so it is the first opponent in
``bench/match/strength.py`` and the engine the runner's own tests play. It answers ``go`` at once,
whatever the clocks say, and ``--seed`` makes its games repeatable. A bad ``position`` line gets an
``info string`` and leaves no position, so the following ``go`` answers ``bestmove 0000`` (which
the runner scores as an illegal move) instead of crashing. It must never think: it is a baseline,
not an engine.

Run it as ``python -m bench.match.random_mover [--seed N]``.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from typing import TextIO

from variant import STARTING_FEN, KnightmateBoard

NULL_MOVE = "0000"


def parse_position(arguments: list[str]) -> KnightmateBoard:
    """Builds the board of ``position startpos|fen <FEN> [moves ...]``; raises ValueError if bad."""
    if arguments[:1] == ["startpos"]:
        fen, rest = STARTING_FEN, arguments[1:]
    elif arguments[:1] == ["fen"]:
        fen_end = arguments.index("moves") if "moves" in arguments else len(arguments)
        fen, rest = " ".join(arguments[1:fen_end]), arguments[fen_end:]
    else:
        raise ValueError("expected startpos or fen")
    board = KnightmateBoard(fen)
    if rest and rest[0] != "moves":
        raise ValueError(f"expected moves, got {rest[0]!r}")
    for text in rest[1:]:
        board.push_uci(text)
    return board


class RandomUciEngine:
    """The UCI loop: one command in, its answer out, until ``quit`` or the end of input."""

    def __init__(self, rng: random.Random, output: TextIO) -> None:
        self.rng = rng
        self.output = output
        self.board: KnightmateBoard | None = KnightmateBoard()

    def say(self, line: str) -> None:
        self.output.write(line + "\n")
        self.output.flush()

    def handle(self, line: str) -> bool:
        """Answers one command; False once the engine should quit."""
        words = line.split()
        command, arguments = (words[0], words[1:]) if words else ("", [])
        if command == "uci":
            self.say("id name Random Mover")
            self.say("id author knightmate-bot")
            self.say("option name UCI_Variant type combo default knightmate var knightmate")
            self.say("uciok")
        elif command == "isready":
            self.say("readyok")
        elif command == "ucinewgame":
            self.board = KnightmateBoard()
        elif command == "position":
            try:
                self.board = parse_position(arguments)
            except ValueError as error:
                self.board = None
                self.say(f"info string bad position: {error}")
        elif command == "go":
            self.say(f"bestmove {self.choose()}")
        elif command == "setoption" and arguments[-2:] != ["value", "knightmate"]:
            self.say(f"info string ignored: {line.strip()}")
        return command != "quit"

    def choose(self) -> str:
        if self.board is None:
            return NULL_MOVE
        moves = list(self.board.legal_moves)
        if not moves:
            return NULL_MOVE
        return self.board.uci(self.rng.choice(moves))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, help="seed the choices to make games repeatable")
    args = parser.parse_args(argv)
    engine = RandomUciEngine(random.Random(args.seed), sys.stdout)
    for line in sys.stdin:
        if not engine.handle(line):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
