"""Plays a Knightmate match between two UCI engines and prints the score and the Elo difference.

Each opening of a seeded list is played twice, once with each engine as White. The referee is
pyffish (Fairy-Stockfish's rules, see ``referee.py``); the clocks are the runner's: an engine's
time runs from the moment ``go`` is written until its ``bestmove`` is read, and an engine loses
when it spends more than its remaining time plus the lag grace, sends an illegal move, or dies
(a flag against a side that cannot mate is a draw, as over the board). Nothing is adjudicated
early: games end by the rules or by a forfeit.

With ``--ponder-a``/``--ponder-b`` an engine that answers ``bestmove X ponder Y`` thinks on its
opponent's time: it gets the position with ``X Y`` played and ``go ponder`` with the clocks after
its move; if the opponent plays ``Y`` it gets ``ponderhit`` and its clock runs from that line,
otherwise ``stop`` (that answer is dropped) and a normal ``go``. Its clock never runs while it
ponders, but the pondering process does take a core of its own.

Example (see bench/README.md)::

    python -m bench.match.strength --engine-a "knightmate-bot uci" --engine-b bench/match/fairy_stockfish.sh \\
        --option-b UCI_LimitStrength=true --option-b UCI_Elo=2200 --option-b "Move Overhead=100" \\
        --games 40 --tc 10+0.1

The runner prints one line per finished game and a summary; ``--pgn`` also writes the games. It
never changes an engine and never starts more than two engine processes per ``--concurrency``.

With ``--sprt ELO0,ELO1`` the match is a sequential test (``sprt.py``): after each pair of games
on one opening it prints the log-likelihood ratio of "A is ELO1 stronger" over "A is ELO0
stronger" (pentanomial model, alpha = beta = 0.05), and it stops as soon as the ratio leaves
its bounds; ``--games`` is then the most it plays.
"""

from __future__ import annotations

import argparse
import logging
import math
import queue
import random
import shlex
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import chess.pgn

from bench.match.elo import estimate, score
from bench.match.referee import DRAW, STARTING_FEN, Referee, Verdict
from bench.match.sprt import Sprt
from bench.match.uci_player import EngineError, Reply, UciPlayer
from variant import KnightmateBoard

BENCH = Path(__file__).resolve().parent
DEFAULT_OPENINGS = BENCH / "openings.txt"

logger = logging.getLogger(__name__)

WHITE, BLACK = True, False
ILLEGAL_MOVE, TIME_FORFEIT, CRASH = "illegal move", "time forfeit", "crash"


# Time control and clocks.


@dataclass(frozen=True)
class TimeControl:
    """Base time and increment per move, in milliseconds."""

    base_ms: int
    increment_ms: int

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Reads ``seconds[+increment seconds]`` such as ``10+0.1`` or ``60``."""
        base, _, increment = text.partition("+")
        try:
            control = cls(round(float(base) * 1000), round(float(increment or 0) * 1000))
        except ValueError:
            raise ValueError(f"time control {text!r} is not seconds+increment, e.g. 10+0.1") from None
        if control.base_ms <= 0 or control.increment_ms < 0:
            raise ValueError(f"time control {text!r} needs a positive base and no negative increment")
        return control

    def __str__(self) -> str:
        return f"{self.base_ms / 1000:g}+{self.increment_ms / 1000:g}"


class GameClock:
    """Both sides' remaining time in one game.

    A move that takes longer than the time left but not longer than the time left plus the lag
    grace is forgiven: the clock stops at zero (before the increment) instead of going negative,
    so the grace absorbs pipe and scheduling delays without becoming extra thinking time.
    """

    def __init__(self, control: TimeControl, lag_grace_ms: int) -> None:
        self.control = control
        self.lag_grace_ms = lag_grace_ms
        self.remaining_ms = {WHITE: float(control.base_ms), BLACK: float(control.base_ms)}

    def go_arguments(self, side: bool) -> str:
        """The clock part of a UCI ``go`` command (the same for either *side*)."""
        increment = self.control.increment_ms
        return (f"wtime {int(self.remaining_ms[WHITE])} btime {int(self.remaining_ms[BLACK])} "
                f"winc {increment} binc {increment}")

    def deadline_s(self, side: bool) -> float:
        """How long ``side`` may think before its flag falls."""
        return (self.remaining_ms[side] + self.lag_grace_ms) / 1000

    def charge(self, side: bool, elapsed_ms: float) -> bool:
        """Takes a move's thinking time off ``side``'s clock; True if its flag fell."""
        left = self.remaining_ms[side] - elapsed_ms
        if left < -self.lag_grace_ms:
            self.remaining_ms[side] = left
            return True
        self.remaining_ms[side] = max(left, 0.0) + self.control.increment_ms
        return False


class NodeBudget:
    """``--nodes``: every move is ``go nodes N``, the same work for both engines however busy the
    machine is, so a match between two builds of one engine measures their play, not the load.
    ``--nodes-b`` gives engine B a budget of its own: how an engine's strength grows with its
    nodes, measured against itself or a fixed opponent. No clock runs; a move that takes longer
    than :data:`NODE_MOVE_TIMEOUT_S` is taken for a hung engine and loses on time. Has
    :class:`GameClock`'s interface."""

    def __init__(self, white_nodes: int, black_nodes: int | None = None) -> None:
        self.nodes = {WHITE: white_nodes, BLACK: white_nodes if black_nodes is None else black_nodes}

    def go_arguments(self, side: bool) -> str:
        return f"nodes {self.nodes[side]}"

    def deadline_s(self, side: bool) -> float:
        return NODE_MOVE_TIMEOUT_S

    def charge(self, side: bool, elapsed_ms: float) -> bool:
        return False


#: How long a node-limited move may take before the engine is taken for hung.
NODE_MOVE_TIMEOUT_S = 120.0
#: What a game's moves are limited by: a clock, or a node budget with the clock's interface.
MoveLimit = GameClock | NodeBudget


# Openings.


@dataclass(frozen=True)
class Opening:
    """A start position and the moves played from it, all checked legal by the referee."""

    fen: str
    moves: tuple[str, ...]
    line_number: int
    white_to_move: bool
    """Who moves first after the opening line."""

    def position(self, more_moves: Sequence[str] = ()) -> str:
        """The arguments of a UCI ``position`` command for this opening followed by ``more_moves``."""
        moves = [*self.moves, *more_moves]
        start = "startpos" if self.fen == STARTING_FEN else f"fen {self.fen}"
        return f"{start} moves {' '.join(moves)}" if moves else start


def parse_opening(text: str, line_number: int) -> Opening:
    """Reads ``e2e4 e7e5 ...``, ``startpos moves ...`` or ``fen <FEN> moves ...``."""
    words = text.split()
    fen = STARTING_FEN
    if words[:1] == ["fen"]:
        fen, words = " ".join(words[1:7]), words[7:]
    elif words[:1] == ["startpos"]:
        words = words[1:]
    if words[:1] == ["moves"]:
        words = words[1:]
    referee = Referee(fen, words)
    if referee.verdict() is not None:
        raise ValueError("the game is already over")
    return Opening(fen, tuple(words), line_number, referee.white_to_move)


def load_openings(path: Path) -> list[Opening]:
    """Reads an openings file: one line each, ``#`` starts a comment; errors name the line."""
    openings = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        text = line.partition("#")[0].strip()
        if not text:
            continue
        try:
            openings.append(parse_opening(text, number))
        except ValueError as error:
            raise ValueError(f"{path}:{number}: {error}") from None
    if not openings:
        raise ValueError(f"{path}: no openings")
    return openings


# One game.


@dataclass
class GameRecord:
    """Everything about one finished game that the summary and the PGN need."""

    number: int
    white: str
    black: str
    a_is_white: bool
    opening: Opening
    moves: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    result: str = "*"
    reason: str = ""
    forfeit: str | None = None
    """ILLEGAL_MOVE, TIME_FORFEIT or CRASH when the side to move broke the rules of the match."""
    offender_is_white: bool = False
    detail: str = ""
    ponder_hits: dict[bool, int] = field(default_factory=lambda: {WHITE: 0, BLACK: 0})
    ponder_misses: dict[bool, int] = field(default_factory=lambda: {WHITE: 0, BLACK: 0})


def play_game(record: GameRecord, players: dict[bool, UciPlayer], clock: MoveLimit) -> GameRecord:
    """Plays ``record``'s game to its end and fills in the moves, times and result."""
    for player in players.values():
        player.new_game()
    # The reply each pondering side expects (it is thinking on it now), or None.
    expected: dict[bool, str | None] = {WHITE: None, BLACK: None}
    try:
        return _play_moves(record, players, clock, expected)
    finally:
        for side, move in expected.items():
            if move is not None:
                players[side].stop_pondering()


def _play_moves(record: GameRecord, players: dict[bool, UciPlayer], clock: MoveLimit,
                expected: dict[bool, str | None]) -> GameRecord:
    referee = Referee(record.opening.fen, record.opening.moves)
    verdict = referee.verdict()
    while verdict is None:
        side = referee.white_to_move
        player = players[side]
        if expected[side] is not None:
            hit = bool(record.moves) and record.moves[-1] == expected[side]
            (record.ponder_hits if hit else record.ponder_misses)[side] += 1
        reply = _answer(player, record, clock, side, expected[side])
        expected[side] = None
        flagged = clock.charge(side, reply.elapsed_s * 1000)
        if reply.crashed:
            verdict = _forfeit(record, referee, side, CRASH, f"{player.name} died")
        elif flagged or reply.bestmove is None:
            if reply.bestmove is None:
                player.recover()
            detail = f"{player.name} used {reply.elapsed_s:.3f} s, over its clock and grace"
            verdict = _forfeit(record, referee, side, TIME_FORFEIT, detail)
        elif not referee.is_legal(reply.bestmove):
            verdict = _forfeit(record, referee, side, ILLEGAL_MOVE, f"{player.name} played {reply.bestmove!r}")
        else:
            referee.push(reply.bestmove)
            record.moves.append(reply.bestmove)
            record.seconds.append(reply.elapsed_s)
            verdict = referee.verdict()
            if verdict is None and player.ponder and reply.ponder:
                player.start_pondering(record.opening.position([*record.moves, reply.ponder]), clock.go_arguments(side))
                expected[side] = reply.ponder
    record.result, record.reason = verdict.result, verdict.reason
    return record


def _answer(player: UciPlayer, record: GameRecord, clock: MoveLimit, side: bool, expected: str | None) -> Reply:
    """The move of ``side``: a ``ponderhit`` when the opponent played the expected reply, else a
    ``go`` (after stopping the ponder search on another reply). The clock runs from that line."""
    if expected is not None and record.moves and record.moves[-1] == expected:
        return player.ponderhit(clock.deadline_s(side))
    if expected is not None:
        player.stop_pondering()
    return player.go(record.opening.position(record.moves), clock.go_arguments(side), clock.deadline_s(side))


def _forfeit(record: GameRecord, referee: Referee, side: bool, kind: str, detail: str) -> Verdict:
    """The side to move loses, except on time when its opponent has no mating material left."""
    record.forfeit, record.offender_is_white, record.detail = kind, side, detail
    if kind == TIME_FORFEIT and not referee.can_mate(not side):
        return Verdict(DRAW, f"{kind}, but the opponent cannot mate")
    return Verdict("0-1" if side == WHITE else "1-0", kind)


# The match tally.


@dataclass
class EngineStats:
    illegal_moves: int = 0
    time_forfeits: int = 0
    crashes: int = 0
    think_seconds: float = 0.0
    longest_move_s: float = 0.0
    games: int = 0
    ponder_hits: int = 0
    ponder_misses: int = 0


def a_points(record: GameRecord) -> float:
    """Engine A's points in a finished game: 1, 1/2 or 0."""
    white_points = {"1-0": 1.0, "0-1": 0.0, DRAW: 0.5}[record.result]
    return white_points if record.a_is_white else 1.0 - white_points


class Tally:
    """Results from engine A's point of view, and each engine's faults and thinking time."""

    def __init__(self, name_a: str, name_b: str) -> None:
        self.names = (name_a, name_b)
        self.wins = self.draws = self.losses = 0
        self.stats = {name_a: EngineStats(), name_b: EngineStats()}
        self.reasons: Counter[str] = Counter()

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def add(self, record: GameRecord) -> None:
        points = a_points(record)
        self.wins += points == 1.0
        self.draws += points == 0.5
        self.losses += points == 0.0
        self.reasons[record.reason] += 1
        self._add_times(record)
        if record.forfeit is not None:
            offender = self.stats[record.white if record.offender_is_white else record.black]
            if record.forfeit == ILLEGAL_MOVE:
                offender.illegal_moves += 1
            elif record.forfeit == TIME_FORFEIT:
                offender.time_forfeits += 1
            else:
                offender.crashes += 1

    def _add_times(self, record: GameRecord) -> None:
        for index, seconds in enumerate(record.seconds):
            is_white = (index % 2 == 0) == record.opening.white_to_move
            stats = self.stats[record.white if is_white else record.black]
            stats.think_seconds += seconds
            stats.longest_move_s = max(stats.longest_move_s, seconds)
        for name, side in ((record.white, WHITE), (record.black, BLACK)):
            self.stats[name].games += 1
            self.stats[name].ponder_hits += record.ponder_hits[side]
            self.stats[name].ponder_misses += record.ponder_misses[side]

    def score_line(self) -> str:
        """``+12 =3 -5``: wins, draws and losses of engine A."""
        return f"+{self.wins} ={self.draws} -{self.losses}"

    def summary(self) -> list[str]:
        name_a, name_b = self.names
        if self.games == 0:
            return ["No game finished."]
        fraction = score(self.wins, self.draws, self.losses)
        lines = [
            f"Score of {name_a} vs {name_b}: {self.score_line()} (wins, draws, losses) in {self.games} games, "
            f"{fraction:.1%}",
            f"Elo difference: {format_elo(self.wins, self.draws, self.losses)}",
            "Terminations: " + ", ".join(f"{reason} {count}" for reason, count in self.reasons.most_common()),
        ]
        for name in self.names:
            stats = self.stats[name]
            per_game = stats.think_seconds / max(stats.games, 1)
            lines.append(
                f"{name}: illegal moves {stats.illegal_moves}, time forfeits {stats.time_forfeits}, "
                f"crashes {stats.crashes}; thinking {per_game:.1f} s per game, longest move "
                f"{stats.longest_move_s:.2f} s"
                + (f"; ponder hits {stats.ponder_hits} of {stats.ponder_hits + stats.ponder_misses}"
                   if stats.ponder_hits + stats.ponder_misses else "")
            )
        return lines


def format_elo(wins: int, draws: int, losses: int) -> str:
    """``+12.3 +/- 45.6 (95%: -33.3 .. +57.9), LOS 70.1%``; no "+/-" when an end is infinite."""
    result = estimate(wins, draws, losses)
    interval = f"95%: {result.lower:+.1f} .. {result.upper:+.1f}"
    if math.isinf(result.error):
        return f"{result.elo:+.1f} ({interval}), LOS {result.los:.1%}"
    return f"{result.elo:+.1f} +/- {result.error:.1f} ({interval}), LOS {result.los:.1%}"


# PGN.


def write_pgn(record: GameRecord, path: Path, time_control: TimeControl | None) -> None:
    """Appends the game to ``path`` as Knightmate PGN, with each move's thinking time as a comment."""
    board = KnightmateBoard(record.opening.fen)
    for text in record.opening.moves:
        board.push_uci(text)
    game = chess.pgn.Game.from_board(board)
    node: chess.pgn.GameNode = game.end()
    for text, seconds in zip(record.moves, record.seconds, strict=True):
        node = node.add_variation(node.board().parse_uci(text), comment=f"{seconds:.2f}s")
    if record.detail:
        node.comment = (node.comment + " " + record.detail).strip()
    game.headers.update({
        "Event": "knightmate-bot strength match", "Date": time.strftime("%Y.%m.%d"),
        "Round": str(record.number),
        "White": record.white, "Black": record.black, "Result": record.result,
        "TimeControl": str(time_control) if time_control is not None else "-",
        "Termination": "normal" if record.forfeit is None else record.reason,
        "Opening": record.opening.position(),
    })
    with path.open("a") as handle:
        print(game, file=handle, end="\n\n")


# The match.


@dataclass(frozen=True)
class MatchConfig:
    command_a: list[str]
    command_b: list[str]
    options_a: dict[str, str]
    options_b: dict[str, str]
    name_a: str | None
    name_b: str | None
    games: int
    openings: list[Opening]
    time_control: TimeControl
    lag_grace_ms: int
    concurrency: int
    pgn: Path | None
    ponder_a: bool = False
    ponder_b: bool = False
    nodes: int | None = None
    """Set: a node budget per move instead of the time control."""
    nodes_b: int | None = None
    """Set (with ``nodes``): engine B's own node budget."""
    sprt: tuple[float, float] | None = None
    """Set: (elo0, elo1) of a sequential test that may end the match early."""

    def clock_control(self) -> TimeControl | None:
        """The time control the games are played at; None when nodes limit the moves."""
        return self.time_control if self.nodes is None else None

    def new_clock(self, a_is_white: bool) -> MoveLimit:
        """The limit of one game's moves, in which engine A plays White if *a_is_white*."""
        if self.nodes is None:
            return GameClock(self.time_control, self.lag_grace_ms)
        nodes_b = self.nodes if self.nodes_b is None else self.nodes_b
        return NodeBudget(self.nodes, nodes_b) if a_is_white else NodeBudget(nodes_b, self.nodes)


def schedule(openings: Sequence[Opening], games: int, seed: int) -> Iterator[tuple[int, Opening, bool]]:
    """Game number, opening and whether A is White: openings in seeded order, each played twice."""
    order = list(openings)
    random.Random(seed).shuffle(order)
    for index in range(games):
        yield index + 1, order[(index // 2) % len(order)], index % 2 == 0


class Match:
    """Runs the games on ``concurrency`` pairs of engine processes and tallies them as they finish."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.seats: queue.Queue[tuple[UciPlayer, UciPlayer]] = queue.Queue()
        self.all_players: list[UciPlayer] = []
        self.stopping = threading.Event()
        self.sprt = Sprt(*config.sprt) if config.sprt is not None else None
        self._sprt_lock = threading.Lock()
        #: The SPRT's status line after each game that completed a pair, by game number.
        self._sprt_status: dict[int, str] = {}

    def start_engines(self) -> tuple[str, str]:
        """Starts every engine process up front, so a bad command fails before any game."""
        config = self.config
        names: tuple[str, str] = ("", "")
        for _ in range(config.concurrency):
            a = UciPlayer(config.name_a or "A", config.command_a, config.options_a, ponder=config.ponder_a)
            b = UciPlayer(config.name_b or "B", config.command_b, config.options_b, ponder=config.ponder_b)
            self.all_players += [a, b]
            a.start()
            b.start()
            names = _distinct_names(a, b, config)
            a.name, b.name = names
            self.seats.put((a, b))
        return names

    def play(self, number: int, opening: Opening, a_is_white: bool) -> GameRecord | None:
        """Worker: plays one game on a free pair of engines (None once the match is stopping)."""
        if self.stopping.is_set():
            return None
        a, b = self.seats.get()
        try:
            white, black = (a, b) if a_is_white else (b, a)
            record = GameRecord(number, white.name, black.name, a_is_white, opening)
            record = play_game(record, {WHITE: white, BLACK: black}, self.config.new_clock(a_is_white))
            self._test(record)
            return record
        finally:
            self.seats.put((a, b))

    def _test(self, record: GameRecord) -> None:
        """Feeds the SPRT in the worker, before it takes the next game: once the test decides,
        no game begins."""
        if self.sprt is None:
            return
        with self._sprt_lock:
            if self.stopping.is_set():
                return
            if self.sprt.add(record.number, a_points(record)):
                self._sprt_status[record.number] = self.sprt.status()
            if self.sprt.verdict is not None:
                self.stopping.set()

    def run(self, tally: Tally, seed: int) -> None:
        config = self.config
        with ThreadPoolExecutor(max_workers=config.concurrency) as pool:
            futures: list[Future[GameRecord | None]] = [
                pool.submit(self.play, number, opening, a_is_white)
                for number, opening, a_is_white in schedule(config.openings, config.games, seed)
            ]
            try:
                for future in as_completed(futures):
                    record = future.result()
                    if record is not None:
                        self.finish(record, tally)
            except (KeyboardInterrupt, EngineError):
                self.stopping.set()
                for pending in futures:
                    pending.cancel()
                self.close()
                raise

    def finish(self, record: GameRecord, tally: Tally) -> None:
        tally.add(record)
        config = self.config
        if config.pgn is not None:
            try:
                write_pgn(record, config.pgn, config.clock_control())
            except ValueError as error:
                # Our rules library disagreeing with the referee is a bug to report, not a reason to
                # lose the match: the result is already counted.
                logger.error("game %d not written to %s: %s", record.number, config.pgn, error)
        forfeit = f" ({record.detail})" if record.detail else ""
        print(f"Game {record.number}/{config.games}: {record.white} - {record.black} {record.result} "
              f"{record.reason}{forfeit}, {len(record.moves)} plies after opening line "
              f"{record.opening.line_number} | {tally.names[0]} {tally.score_line()}", flush=True)
        status = self._sprt_status.pop(record.number, None)
        if status is not None:
            print(status, flush=True)

    def close(self) -> None:
        for player in self.all_players:
            player.close()


def _distinct_names(a: UciPlayer, b: UciPlayer, config: MatchConfig) -> tuple[str, str]:
    """The names given, else each engine's ``id name`` with its options, told apart if equal."""
    name_a = config.name_a or _described(a.engine_name, config.options_a, config.ponder_a)
    name_b = config.name_b or _described(b.engine_name, config.options_b, config.ponder_b)
    if name_a == name_b:
        name_a, name_b = f"{name_a} (A)", f"{name_b} (B)"
    return name_a, name_b


def _described(engine_name: str, options: dict[str, str], ponder: bool) -> str:
    settings = ", ".join([f"{name}={value}" for name, value in options.items()] + (["ponder"] if ponder else []))
    return f"{engine_name} [{settings}]" if settings else engine_name


# Command line.


def parse_option(text: str) -> tuple[str, str]:
    name, separator, value = text.partition("=")
    if not separator or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine-a", required=True, help="command of engine A, e.g. 'knightmate-bot uci'")
    parser.add_argument("--engine-b", required=True, help="command of engine B, e.g. bench/match/fairy_stockfish.sh")
    parser.add_argument("--option-a", action="append", type=parse_option, default=[], metavar="NAME=VALUE",
                        help="a UCI option for engine A (repeatable)")
    parser.add_argument("--option-b", action="append", type=parse_option, default=[], metavar="NAME=VALUE",
                        help="a UCI option for engine B (repeatable)")
    parser.add_argument("--ponder-a", action="store_true",
                        help="let engine A think on B's time (go ponder / ponderhit); off by default")
    parser.add_argument("--ponder-b", action="store_true", help="let engine B think on A's time")
    parser.add_argument("--name-a", help="engine A's name in the output (default: its id name)")
    parser.add_argument("--name-b", help="engine B's name in the output (default: its id name)")
    parser.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    parser.add_argument("--tc", default="10+0.1", help="seconds+increment per side (default 10+0.1)")
    parser.add_argument("--nodes", type=int,
                        help="search this many nodes per move (go nodes N) instead of using clocks")
    parser.add_argument("--nodes-b", type=int,
                        help="with --nodes: engine B's nodes per move, when they differ from A's")
    parser.add_argument("--lag-grace-ms", type=int, default=100,
                        help="time an engine may overrun its clock without losing (default 100)")
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS, help="openings file")
    parser.add_argument("--seed", type=int, default=1, help="seed of the order of the openings (default 1)")
    parser.add_argument("--concurrency", type=int, default=1, help="games played at once (default 1)")
    parser.add_argument("--pgn", type=Path, help="append the games to this PGN file")
    parser.add_argument("--debug", action="store_true", help="log the UCI traffic to stderr")
    parser.add_argument("--sprt", type=parse_sprt, metavar="ELO0,ELO1",
                        help="sequential test of A being ELO1 rather than ELO0 stronger, e.g. 0,10: "
                             "stops at a decision, --games at the most")
    return parser


def parse_sprt(text: str) -> tuple[float, float]:
    try:
        elo0, elo1 = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ELO0,ELO1 such as 0,10, got {text!r}") from None
    if not elo0 < elo1:
        raise argparse.ArgumentTypeError(f"--sprt needs ELO0 < ELO1, got {text!r}")
    return elo0, elo1


def config_from_args(args: argparse.Namespace, parser: argparse.ArgumentParser) -> MatchConfig:
    try:
        time_control = TimeControl.parse(args.tc)
        openings = load_openings(args.openings)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    if args.games < 1 or args.concurrency < 1 or args.lag_grace_ms < 0 or any(
            nodes is not None and nodes < 1 for nodes in (args.nodes, args.nodes_b)):
        parser.error("--games, --concurrency, --nodes and --nodes-b must be positive and --lag-grace-ms not negative")
    if args.nodes_b is not None and args.nodes is None:
        parser.error("--nodes-b needs --nodes (engine A's budget)")
    return MatchConfig(
        command_a=shlex.split(args.engine_a), command_b=shlex.split(args.engine_b),
        options_a=dict(args.option_a), options_b=dict(args.option_b),
        name_a=args.name_a, name_b=args.name_b, games=args.games, openings=openings,
        time_control=time_control, lag_grace_ms=args.lag_grace_ms, concurrency=args.concurrency, pgn=args.pgn,
        ponder_a=args.ponder_a, ponder_b=args.ponder_b,
        nodes=args.nodes, nodes_b=args.nodes_b, sprt=args.sprt,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING,
                        format="%(relativeCreated)8.0f %(message)s")
    config = config_from_args(args, parser)
    match = Match(config)
    started = time.monotonic()
    tally: Tally | None = None
    code = 0
    try:
        name_a, name_b = match.start_engines()
        tally = Tally(name_a, name_b)
        if config.nodes is None:
            limit = f"{config.time_control}, lag grace {config.lag_grace_ms} ms"
        elif config.nodes_b is None:
            limit = f"{config.nodes} nodes per move"
        else:
            limit = f"{config.nodes} nodes per move for A, {config.nodes_b} for B"
        print(f"{name_a} vs {name_b}: {config.games} games at {limit}, {len(config.openings)} openings from "
              f"{args.openings} (seed {args.seed}), concurrency {config.concurrency}", flush=True)
        match.run(tally, args.seed)
    except EngineError as error:
        print(f"strength.py: {error}", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        code = 130
    finally:
        match.close()
    if tally is not None:
        if code:
            print("The match stopped early: the summary counts the finished games only.")
        print("\n".join(tally.summary()))
        if match.sprt is not None:
            print(match.sprt.status() + ("" if match.sprt.verdict else ": no decision"))
        print(f"Wall time {time.monotonic() - started:.0f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
