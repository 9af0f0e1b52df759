"""The bot's own latency, and many games at once, against the sandbox on 127.0.0.1.

    python -m bench.speed.latency [--dialect lichess] [--moves 300] [--parallel 4] [--games 8] [--base 60]
                            [--opponent engine]

Part 1, latency: the real bot (runner, client, players, search pool) plays random movers until it
has made ``--moves`` moves, first one game at a time (the bot's own overhead), then ``--parallel``
games at a time (searches then also queue behind other games' for the workers), with the engine
capped at a short time per move. For every move it measures the time from the ``gameState`` that made it the bot's
turn arriving (parsed off the stream) to the move's POST being sent, less the engine's own search
time: what the bot adds (queueing, process hops, board rebuild, validation). As a baseline
measured in the same run, it times a bare HTTP round trip (``GET /api/account``) to the same
server; the ratio says how the bot's overhead compares to one request.

Part 2, load: ``--games`` games of ``--base``+0 at once (the bot's concurrency set to match), the
engine on the clock with no cap, against ``--opponent``: by default our engine at 100 ms a move,
run inside this process, so games last long enough for the clocks to matter and the opponents
compete with the bot's own threads for the CPU; prints each game's end and the bot's clock left,
and counts games lost on time (the figure that must be 0).

A benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path

import requests

from bot.cli.demo import local_settings
from bot.config import Secret, Settings
from bot.engine import Limits, SearchResult
from bot.games.runner import Runner
from bot.remote.client import Client, MoveOutcome
from bot.remote.events import GameFull, GameState, GameStreamEvent
from bot.sandbox import Sandbox
from bot.thinking.search_pool import SearchPool
from bot.thinking.sources import BuiltinMoveSources

BOT = "benchbot"
TOKEN = "tok-bench"


class TimedClient(Client):
    """The real client, noting when each state arrives and when each move POST starts."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.arrivals: dict[str, tuple[float, tuple[str, ...]]] = {}
        self.samples: list[tuple[tuple[str, ...], float]] = []
        self._lock = threading.Lock()

    def game_events(self, game_id: str, stop: threading.Event,
                    on_refused: Callable[[str], None] | None = None) -> Iterator[GameStreamEvent]:
        for event in super().game_events(game_id, stop, on_refused):
            state = event.state if isinstance(event, GameFull) else event
            if isinstance(state, GameState):
                with self._lock:
                    self.arrivals[game_id] = (time.perf_counter(), state.moves)
            yield event

    def post_move(self, game_id: str, uci: str, **kwargs: object) -> MoveOutcome:
        now = time.perf_counter()
        with self._lock:
            arrived, moves = self.arrivals[game_id]
            self.samples.append((moves, now - arrived))
        return super().post_move(game_id, uci, **kwargs)  # type: ignore[arg-type]


class TimedSearcher:
    """The real search pool, noting each search's own time (the engine's ``time_ms``)."""

    def __init__(self, pool: SearchPool) -> None:
        self.pool = pool
        self.search_ms: dict[tuple[str, ...], list[int]] = defaultdict(list)
        self._lock = threading.Lock()

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits,
               game_id: str | None = None) -> Future[SearchResult]:
        future = self.pool.submit(initial_fen, moves, limits, game_id=game_id)
        future.add_done_callback(lambda done: self._note(moves, done))
        return future

    def ponder(self, game_id: str, initial_fen: str | None, moves: tuple[str, ...]) -> bool:
        return self.pool.ponder(game_id, initial_fen, moves)

    def stop_ponder(self, game_id: str) -> None:
        self.pool.stop_ponder(game_id)

    def _note(self, moves: tuple[str, ...], future: Future[SearchResult]) -> None:
        if not future.cancelled() and future.exception() is None:
            with self._lock:
                self.search_ms[moves].append(future.result().time_ms)

    def search_time_s(self, moves: tuple[str, ...]) -> float:
        with self._lock:
            times = self.search_ms.get(moves)
            return times.pop(0) / 1000 if times else 0.0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def start_bot(sandbox: Sandbox, settings: Settings, searcher: TimedSearcher, workers: int
              ) -> tuple[Runner, TimedClient, threading.Event, threading.Thread]:
    client = TimedClient(settings.server, Secret(TOKEN), give_up_after_s=settings.game.give_up_after_s)
    runner = Runner(settings, client, BuiltinMoveSources(searcher), workers)
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
    thread.start()
    sandbox.wait_connections("event", BOT, 1, timeout=10)
    return runner, client, stop, thread


def play_games(sandbox: Sandbox, runner: Runner, count: int, base_s: int, increment_s: int,
               opponent: str = "random") -> list[str]:
    ids = []
    for index in range(count):
        challenge = sandbox.challenge(f"{opponent}{index}", BOT, limit_s=base_s, increment_s=increment_s,
                                      color="white" if index % 2 else "black")
        sandbox.wait_challenge_answered(challenge, timeout=20)
        game_id = sandbox.game_of_challenge(challenge)
        if game_id is not None:
            ids.append(game_id)
    for game_id in ids:
        sandbox.wait_game_over(game_id, timeout=base_s * 3 + 60)
        runner.wait_game_done(game_id, timeout=30)
    return ids


def baseline_round_trip_ms(url: str, count: int = 200) -> list[float]:
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {TOKEN}"
    session.get(url + "/api/account", timeout=10)
    times = []
    for _ in range(count):
        started = time.perf_counter()
        session.get(url + "/api/account", timeout=10).raise_for_status()
        times.append((time.perf_counter() - started) * 1000)
    return times


def latency(dialect: str, moves: int, parallel: int, workers: int, directory: Path) -> None:
    with Sandbox(dialect, seed=3) as sandbox:
        sandbox.add_account(BOT, token=TOKEN, bot=True)
        for index in range(parallel):
            sandbox.add_opponent(f"random{index}", strategy="random")
        settings = local_settings(sandbox.url, dialect, directory, move_time_ms=150, concurrency=parallel)
        settings = dataclasses.replace(settings, engine=dataclasses.replace(settings.engine, workers=workers))
        pool = SearchPool(workers, settings.engine.hash_mb)
        pool.warm_up()
        searcher = TimedSearcher(pool)
        runner, client, stop, thread = start_bot(sandbox, settings, searcher, workers)
        games = 0
        try:
            while len(client.samples) < moves:
                games += len(play_games(sandbox, runner, parallel, 120, 1))
            baseline = baseline_round_trip_ms(sandbox.url)
        finally:
            stop.set()
            thread.join(15)
            pool.close()
    overhead = [(total - searcher.search_time_s(moves_before)) * 1000 for moves_before, total in client.samples]
    base_p50 = statistics.median(baseline)
    print(f"latency, {dialect} dialect: {len(overhead)} moves in {games} games, {parallel} at a time, "
          f"{workers} search worker(s), {os.cpu_count()} CPU(s)")
    print("  gameState arrival -> move POST, less the engine's search time (ms):")
    print(f"    p50 {statistics.median(overhead):7.1f}   p90 {percentile(overhead, 0.9):7.1f}   "
          f"p99 {percentile(overhead, 0.99):7.1f}   max {max(overhead):7.1f}")
    print(f"  baseline, bare GET /api/account round trip (ms): p50 {base_p50:.2f}   "
          f"p99 {percentile(baseline, 0.99):.2f}")
    print(f"  ratio, bot overhead p50 / bare round trip p50: {statistics.median(overhead) / base_p50:.1f}x")


def load(dialect: str, games: int, base_s: int, workers: int, opponent: str, directory: Path) -> None:
    with Sandbox(dialect, seed=4, engine_movetime_ms=100) as sandbox:
        sandbox.add_account(BOT, token=TOKEN, bot=True)
        for index in range(games):
            sandbox.add_opponent(f"{opponent}{index}", strategy=opponent)
        settings = local_settings(sandbox.url, dialect, directory, concurrency=games)
        settings = dataclasses.replace(settings, engine=dataclasses.replace(
            settings.engine, workers=workers, max_move_time_ms=None, move_overhead_ms=100))
        pool = SearchPool(workers, settings.engine.hash_mb)
        pool.warm_up()
        runner, client, stop, thread = start_bot(sandbox, settings, TimedSearcher(pool), workers)
        started = time.monotonic()
        try:
            ids = play_games(sandbox, runner, games, base_s, 0, opponent)
        finally:
            stop.set()
            thread.join(15)
            pool.close()
        took = time.monotonic() - started
        lost_on_time = 0
        print(f"load, {dialect} dialect: {len(ids)} games of {base_s}+0 at once against {opponent} opponents, "
              f"{workers} search worker(s), {took:.0f} s wall")
        for game_id in ids:
            record = sandbox.game(game_id)
            color = "white" if record.white == BOT else "black"
            left = record.wtime_ms if color == "white" else record.btime_ms
            flagged = record.status in ("outoftime", "timeout") and record.winner != color
            lost_on_time += flagged
            print(f"  {game_id}: bot {color:5}  {len(record.moves):3} plies  {record.status:9} "
                  f"winner {record.winner or '-':5}  bot clock left {left / 1000:5.1f} s")
        print(f"  games lost on time: {lost_on_time} of {len(ids)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialect", choices=("lichess", "pychess"), default="lichess")
    parser.add_argument("--moves", type=int, default=300, help="bot moves to time (default 300)")
    parser.add_argument("--parallel", type=int, default=4, help="games at a time in the latency part (default 4)")
    parser.add_argument("--games", type=int, default=8, help="games at once in the load part (default 8)")
    parser.add_argument("--base", type=int, default=60, help="clock of the load games, seconds (default 60)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="search workers (default: CPUs)")
    parser.add_argument("--skip-load", action="store_true", help="only the latency part")
    parser.add_argument("--opponent", choices=("engine", "random"), default="engine",
                        help="opponents of the load part (default: our engine at 100 ms a move)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="knightmate-latency-") as directory:
        # One game at a time shows the bot's own overhead; several show it with searches queueing
        # behind other games' searches for the workers.
        for parallel in sorted({1, args.parallel}):
            latency(args.dialect, args.moves, parallel, args.workers, Path(directory) / f"latency-{parallel}")
        if not args.skip_load:
            load(args.dialect, args.games, args.base, args.workers, args.opponent, Path(directory) / "load")


if __name__ == "__main__":
    main()
