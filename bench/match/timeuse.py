"""Plays blitz games with a real clock and reports how one engine spends its time, move by move.

A bot that thinks 15 s on move 1 of a 3+2 game is in time trouble against a person by move 30,
whatever its strength, so this measures the thing an opponent sees: the thinking time of each of
the engine's moves, its average and maximum, and the clock it has left. The games are played by
``strength.py``'s runner (same referee, clocks and forfeits); this script only chooses the
colours and prints the time figures. It never judges playing strength.

Example (the online bot's overhead, against the random mover)::

    python -m bench.match.timeuse --engine "knightmate-bot uci" --option "Move Overhead=300" --tc 180+2
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.match.referee import STARTING_FEN
from bench.match.strength import BLACK, WHITE, GameClock, GameRecord, Opening, TimeControl, parse_option, play_game
from bench.match.uci_player import EngineError, UciPlayer

RANDOM_MOVER = f"{shlex.quote(sys.executable)} {shlex.quote(str(Path(__file__).with_name('random_mover.py')))} --seed 1"


@dataclass(frozen=True)
class MoveTime:
    """One of the engine's moves: its number in the game, thinking time and clock left after it."""

    number: int
    seconds: float
    clock_s: float


def engine_moves(record: GameRecord, control: TimeControl, engine_is_white: bool) -> list[MoveTime]:
    """The engine's moves in *record* with the clock it had left after each (increment added),
    recomputed the way the runner charged it."""
    clock = GameClock(control, lag_grace_ms=0)
    moves = []
    side = WHITE
    for ply, seconds in enumerate(record.seconds):
        clock.charge(side, seconds * 1000)
        if side == engine_is_white:
            moves.append(MoveTime(ply // 2 + 1, seconds, clock.remaining_ms[side] / 1000))
        side = not side
    return moves


def summary(moves: Sequence[MoveTime], control: TimeControl) -> str:
    """Average and maximum thinking time and the lowest clock, next to the yardstick
    base/30 + increment."""
    if not moves:
        return "no moves by the engine"
    seconds = [move.seconds for move in moves]
    slowest = max(moves, key=lambda move: move.seconds)
    yardstick = control.base_ms / 30_000 + control.increment_ms / 1000
    return (f"{len(moves)} moves: average {sum(seconds) / len(seconds):.2f} s, max {slowest.seconds:.2f} s "
            f"(move {slowest.number}), lowest clock {min(move.clock_s for move in moves):.1f} s; "
            f"base/30 + increment = {yardstick:.1f} s")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="knightmate-bot uci", help="the engine measured")
    parser.add_argument("--option", action="append", type=parse_option, default=[], metavar="NAME=VALUE",
                        help="a UCI option for the engine (repeatable), e.g. 'Move Overhead=300'")
    parser.add_argument("--opponent", default=RANDOM_MOVER, help="the opponent's command (default: random mover)")
    parser.add_argument("--opponent-option", action="append", type=parse_option, default=[],
                        metavar="NAME=VALUE", help="a UCI option for the opponent (repeatable)")
    parser.add_argument("--tc", default="180+2", help="seconds+increment per side (default 180+2)")
    parser.add_argument("--games", type=int, default=2, help="games, the engine White in odd ones (default 2)")
    parser.add_argument("--lag-grace-ms", type=int, default=100, help="overrun forgiven (default 100)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        control = TimeControl.parse(args.tc)
    except ValueError as error:
        parser.error(str(error))
    if args.games < 1:
        parser.error("--games must be positive")
    engine = UciPlayer("engine", shlex.split(args.engine), dict(args.option))
    opponent = UciPlayer("opponent", shlex.split(args.opponent), dict(args.opponent_option))
    all_moves: list[MoveTime] = []
    try:
        engine.start()
        opponent.start()
        for number in range(1, args.games + 1):
            engine_is_white = number % 2 == 1
            players = {WHITE: engine, BLACK: opponent} if engine_is_white else {WHITE: opponent, BLACK: engine}
            record = GameRecord(number, players[WHITE].name, players[BLACK].name, engine_is_white,
                                Opening(STARTING_FEN, (), 0, True))
            play_game(record, players, GameClock(control, args.lag_grace_ms))
            moves = engine_moves(record, control, engine_is_white)
            all_moves += moves
            colour = "White" if engine_is_white else "Black"
            print(f"Game {number}, engine {colour}: {record.result} {record.reason}"
                  + (f" ({record.detail})" if record.detail else ""))
            print("  " + "  ".join(f"{move.number}:{move.seconds:.2f}" for move in moves))
            print(f"  {summary(moves, control)}, clock at the end {moves[-1].clock_s if moves else 0:.1f} s",
                  flush=True)
    except EngineError as error:
        print(f"timeuse.py: {error}", file=sys.stderr)
        return 1
    finally:
        engine.close()
        opponent.close()
    print(f"All games, {summary(all_moves, control)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
