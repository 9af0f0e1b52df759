"""A long run of the real bot: ``knightmate-bot run`` as a process against the sandbox, game after game.

    python -m bench.speed.soak [--dialect pychess] [--minutes 30] [--engine /usr/games/fairy-stockfish]
                         [--faults] [--restart-every 4] [--base 20] [--increment 1] [--sample-s 20]
                         [--warmup-min 5] [--log bot.log] [--metrics-port 9464] [--status-port 8765]
                         [--keep-games DIR]

The sandbox runs in this process with a random-moving opponent that challenges the bot again as
soon as a game ends; the bot runs as ``python -m bot.cli run`` with a config of its own (the
built-in engine, or ``--engine`` as ``engine.command``). With ``--faults`` every game meets one
fault at its tenth ply, in turn: its game stream cut, its game stream silent for 5 s, two 502s
on the bot's move post. With ``--restart-every N`` every Nth game instead has the bot process
killed (SIGKILL) at that ply and started again, with pychess's 200 + raw 409 on the game stream
for 6 s after the restart. Growth per hour is a leak's measure only in a run without restarts
(each restart starts a fresh process); one with them shows how the bot survives them.

Every ``--sample-s`` seconds it reads /proc for the bot's process tree: the main process's
resident memory, open file descriptors and threads, the number of its descendant processes
(search workers, engine processes) and the whole tree's resident memory. Each game's time per
move is the server's: the bot's clock spent per charged move, increments counted.

With ``--metrics-port`` the bot serves its Prometheus metrics (``bot.metrics_port``) through the
run, and the report ends with its ``knightmate_bot_*`` samples as the run's last scrape read them;
``--status-port`` turns its live status page on (``bot.status_port``) and reads the page's JSON
every second through the run, as an open browser tab would; the report says how many reads
failed and how big the last answer was (the page keeps a bounded record). ``--keep-games DIR``
copies the bot's PGNs there (for ``knightmate-bot stats``).

At the end it prints the games played, games lost on time, games whose PGN says ``*`` or is
missing, the samples at the start (after the warm-up) and at the end, and each figure's growth
per hour (a least-squares line through the samples after the warm-up), and the time per move of
the first and last fifth of the games. A healthy run: no game lost on time, none without a
result, memory growth per hour small against the resident size (the first games fill caches and
the transposition table: that is what the warm-up skips), file descriptors, threads and child
processes flat, time per move flat.

A benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import yaml
from prometheus_client.parser import text_string_to_metric_families

from bot.own_command import OWN_COMMAND
from bot.sandbox import GameSnapshot, Sandbox

BOT = "soakbot"
TOKEN = "tok-soak"
OPPONENT = "randy"
#: The faults of ``--faults``, one per game in turn.
FAULTS = ("drop", "silence", "move-502")
FAULT_AT_PLY = 10
#: pychess counts a killed process's stream open this long after a restart.
STALE_STREAM_S = 6.0
#: Challenges in a row the bot may decline before the run stops.
CHALLENGE_ATTEMPTS = 3
#: How often ``--status-port`` reads the status page (its own page polls every 1.5 s).
STATUS_READ_S = 1.0


@dataclasses.dataclass(frozen=True)
class ResourceSample:
    at_s: float            # since the start of the run
    rss_kb: int            # the bot's main process
    tree_rss_kb: int       # the main process and all its descendants
    fds: int
    threads: int
    children: int          # descendant processes


@dataclasses.dataclass(frozen=True)
class Played:
    game_id: str
    ended_at_s: float
    status: str
    lost_on_time: bool
    pgn_result: str        # "missing" when no PGN was written
    true_result: str
    ms_per_move: float | None


# -- /proc -----------------------------------------------------------------------------------------

def _status_fields(pid: int) -> dict[str, str]:
    fields = {}
    with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def _descendants(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                    # The command name (field 2) may hold spaces; the parent pid follows its ")".
                    parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def sample(pid: int, started: float) -> ResourceSample | None:
    """The bot's process tree now; ``None`` if the process is gone (between a kill and its restart)."""
    try:
        fields = _status_fields(pid)
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        descendants = _descendants(pid)
        tree_rss = int(fields["VmRSS"].split()[0])
        for child in descendants:
            try:
                tree_rss += int(_status_fields(child).get("VmRSS", "0 kB").split()[0])
            except OSError:
                continue
        return ResourceSample(time.monotonic() - started, int(fields["VmRSS"].split()[0]), tree_rss, fds,
                      int(fields["Threads"]), len(descendants))
    except (OSError, KeyError, ValueError):
        return None


# -- the bot process -------------------------------------------------------------------------------

def write_config(sandbox: Sandbox, directory: Path, engine: str | None, metrics_port: int | None,
                 status_port: int | None) -> Path:
    config = {
        "server": {"url": sandbox.url, "dialect": sandbox.dialect.name, "read_timeout_s": 10.0,
                   "backoff_initial_s": 0.2, "backoff_max_s": 2.0},
        "challenge": {"concurrency": 1, "min_base": 0},
        "engine": {"workers": 1, "hash_mb": 16, "command": engine},
        "game": {"pgn_dir": str(directory / "games"), "state_file": str(directory / "state.json"),
                 "give_up_after_s": 30, "greeting": "", "goodbye": ""},
        "bot": {"heartbeat_file": str(directory / "heartbeat"), "log_level": "INFO", "metrics_port": metrics_port,
                "status_port": status_port},
    }
    path = directory / "config.yml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


class BotProcess:
    def __init__(self, sandbox: Sandbox, config: Path, log: Path, status_key: str) -> None:
        self.sandbox = sandbox
        self.config = config
        self.log = log
        self.status_key = status_key
        self.process: subprocess.Popen[bytes] | None = None
        self.restarts = 0

    def start(self) -> None:
        connected = self.sandbox.connections("event", BOT)
        env = dict(os.environ, KNIGHTMATE_BOT_TOKEN=TOKEN, KNIGHTMATE_STATUS_KEY=self.status_key)
        with self.log.open("ab") as output:
            self.process = subprocess.Popen([*OWN_COMMAND, "run", "--config", str(self.config)],
                                            stdout=output, stderr=subprocess.STDOUT, env=env)
        self.sandbox.wait_connections("event", BOT, connected + 1, timeout=60)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def kill_and_restart(self, game_id: str, stale_stream: bool) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=30)
        if stale_stream:
            self.sandbox.faults.refuse_game_stream(game_id, STALE_STREAM_S)
        self.restarts += 1
        self.start()

    def stop(self) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(timeout=30)


# -- one game --------------------------------------------------------------------------------------

def ms_per_move(record: GameSnapshot, base_ms: int, increment_ms: int) -> float | None:
    """The bot's clock spent per charged move (the first two plies are not charged)."""
    bot_white = record.white == BOT
    charged = sum(1 for ply in range(2, len(record.moves)) if (ply % 2 == 0) == bot_white)
    if charged == 0:
        return None
    left = record.wtime_ms if bot_white else record.btime_ms
    return (base_ms + charged * increment_ms - left) / charged


def inject(fault: str, sandbox: Sandbox, bot: BotProcess, game_id: str) -> None:
    if fault == "drop":
        sandbox.faults.drop_game_stream(game_id, BOT)
    elif fault == "silence":
        sandbox.faults.silence("game", 5.0, game_id=game_id, username=BOT)
    elif fault == "move-502":
        sandbox.faults.http_status("move", 502, count=2)
    elif fault == "restart":
        bot.kill_and_restart(game_id, stale_stream=sandbox.dialect.streams_linger)


def play_one(sandbox: Sandbox, bot: BotProcess, directory: Path, args: argparse.Namespace, index: int,
             started: float, declines: list[str]) -> Played:
    for _ in range(CHALLENGE_ATTEMPTS):
        cid = sandbox.challenge(OPPONENT, BOT, limit_s=args.base, increment_s=args.increment)
        answer = sandbox.wait_challenge_answered(cid, timeout=120)
        if answer == "accepted":
            break
        # A decline right after a game is a finding (the slot was not free yet), not the end of the run.
        print(f"challenge {cid} {answer}: {sandbox.decline_reason(cid)}", flush=True)
        declines.append(cid)
    else:
        raise RuntimeError(f"{CHALLENGE_ATTEMPTS} challenges in a row not accepted")
    game_id = sandbox.game_of_challenge(cid)
    assert game_id is not None
    timeout_s = 4 * (args.base + 200 * args.increment) + 120
    restart = args.restart_every > 0 and index % args.restart_every == args.restart_every - 1
    if args.faults or restart:
        record = sandbox.wait_moves(game_id, FAULT_AT_PLY, timeout=timeout_s)
        if not record.over:
            inject("restart" if restart else FAULTS[index % len(FAULTS)], sandbox, bot, game_id)
    record = sandbox.wait_game_over(game_id, timeout=timeout_s)
    pgn = directory / "games" / f"{game_id}.pgn"
    deadline = time.monotonic() + 30
    while not pgn.exists() and time.monotonic() < deadline:
        # Polling a file the bot writes from another process: no event to wait on.
        time.sleep(0.2)
    written = pgn.read_text().split('[Result "')[1].split('"')[0] if pgn.exists() else "missing"
    bot_color = chess.WHITE if record.white == BOT else chess.BLACK
    lost_on_time = record.status in ("outoftime", "timeout") and record.winner == ("black" if bot_color else "white")
    return Played(game_id, time.monotonic() - started, record.status, lost_on_time, written, record.result,
                  ms_per_move(record, args.base * 1000, args.increment * 1000))


# -- the report ------------------------------------------------------------------------------------

def per_hour(points: list[tuple[float, float]]) -> float:
    """The slope of a least-squares line through (seconds, value) points, per hour."""
    if len(points) < 2:
        return 0.0
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:
        return 0.0
    return 3600 * sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def report(args: argparse.Namespace, samples: list[ResourceSample], games: list[Played], restarts: int,
           declines: int) -> None:
    warm = [s for s in samples if s.at_s >= args.warmup_min * 60] or samples
    print(f"\nsoak: {args.dialect}, {'engine ' + args.engine if args.engine else 'built-in engine'}, "
          f"{args.base}+{args.increment}, {'with' if args.faults else 'without'} faults, "
          f"{f'a restart every {args.restart_every} games' if args.restart_every else 'no restarts'}, "
          f"{(samples[-1].at_s if samples else 0) / 60:.1f} min, {restarts} restarts")
    unresolved = [game for game in games if game.pgn_result in ("*", "missing")]
    wrong = [game for game in games if game.pgn_result not in ("*", "missing", game.true_result)]
    print(f"games {len(games)}  lost on time {sum(game.lost_on_time for game in games)}  "
          f"'*' or no PGN {len(unresolved)}  PGN result wrong {len(wrong)}  challenges declined {declines}")
    for game in unresolved + wrong:
        print(f"  game {game.game_id}: {game.status}, PGN {game.pgn_result}, true {game.true_result}")
    if not warm:
        return
    first, last = warm[0], warm[-1]
    print(f"{'':14}{'start':>10}{'end':>10}{'per hour':>12}   (from {first.at_s / 60:.1f} min, after the warm-up)")
    figures: tuple[tuple[str, Callable[[ResourceSample], float]], ...] = (
        ("rss MB", lambda s: s.rss_kb / 1024), ("tree rss MB", lambda s: s.tree_rss_kb / 1024),
        ("fds", lambda s: s.fds), ("threads", lambda s: s.threads), ("children", lambda s: s.children))
    for name, value in figures:
        slope = per_hour([(s.at_s, value(s)) for s in warm])
        print(f"{name:14}{value(first):>10.1f}{value(last):>10.1f}{slope:>+12.2f}")
    timed = [game.ms_per_move for game in games if game.ms_per_move is not None]
    if len(timed) >= 5:
        fifth = max(1, len(timed) // 5)
        print(f"time per move ms: first fifth of games {statistics.fmean(timed[:fifth]):.0f}, "
              f"last fifth {statistics.fmean(timed[-fifth:]):.0f}, all {statistics.fmean(timed):.0f}")


def bot_metrics(port: int) -> list[str]:
    """The bot's own samples (``knightmate_bot_*``, empty buckets left out) as its /metrics shows them now."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
            text = response.read().decode("utf-8")
    except OSError as error:
        return [f"cannot read /metrics: {error}"]
    return [f"{sample.name}{{{','.join(f'{key}={value}' for key, value in sorted(sample.labels.items()))}}} "
            f"{sample.value:g}"
            for family in text_string_to_metric_families(text) if family.name.startswith("knightmate_bot_")
            for sample in family.samples
            if not sample.name.endswith(("_bucket", "_created")) or sample.labels.get("le") == "+Inf"]


class StatusReader:
    """Reads the bot's status page's JSON every :data:`STATUS_READ_S` on a thread, as an open tab would."""

    def __init__(self, port: int, key: str) -> None:
        self._request = urllib.request.Request(f"http://127.0.0.1:{port}/api/status",
                                               headers={"Cookie": f"knightmate_session_{port}={key}"})
        self.reads = 0
        self.failures = 0
        self.last: dict[str, Any] = {}
        self.last_bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="status-reader", daemon=True)

    def start(self) -> StatusReader:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(STATUS_READ_S):
            self.reads += 1
            try:
                with urllib.request.urlopen(self._request, timeout=10) as response:
                    body = response.read()
                self.last, self.last_bytes = json.loads(body), len(body)
            except (OSError, ValueError):   # the bot restarting, or an answer that is not JSON
                self.failures += 1

    def stop(self) -> str:
        """Stops reading; one line on what was read."""
        self._stop.set()
        self._thread.join(15)
        last = self.last
        return (f"status page: {self.reads} reads, {self.failures} failed; the last answer {self.last_bytes} bytes: "
                f"{len(last.get('playing', []))} in progress, {len(last.get('finished', []))} finished and "
                f"{len(last.get('challenges', []))} challenges kept, up {last.get('uptime_s', 0):.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialect", choices=("lichess", "pychess"), default="pychess")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--engine", help="an external UCI engine as engine.command (default: the built-in one)")
    parser.add_argument("--faults", action="store_true", help="one fault per game: a cut or silent stream, 502s")
    parser.add_argument("--restart-every", type=int, default=0, metavar="N",
                        help="kill (SIGKILL) and restart the bot in every Nth game; 0: never")
    parser.add_argument("--base", type=int, default=20, help="base time, seconds")
    parser.add_argument("--increment", type=int, default=1, help="increment, seconds")
    parser.add_argument("--sample-s", type=float, default=20.0)
    parser.add_argument("--warmup-min", type=float, default=5.0)
    parser.add_argument("--log", type=Path, help="keep the bot's log here (it is deleted with the run otherwise)")
    parser.add_argument("--metrics-port", type=int, default=None, metavar="PORT",
                        help="have the bot serve its metrics on 127.0.0.1:PORT and print them at the end")
    parser.add_argument("--status-port", type=int, default=None, metavar="PORT",
                        help="have the bot serve its status page on 127.0.0.1:PORT, read every second")
    parser.add_argument("--keep-games", type=Path, default=None, metavar="DIR",
                        help="copy the bot's PGNs into DIR at the end")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))   # stop the bot on the way out
    games: list[Played] = []
    samples: list[ResourceSample] = []
    declines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="knightmate-soak-") as temporary, \
            Sandbox(args.dialect, seed=11) as sandbox:
        directory = Path(temporary)
        sandbox.add_account(BOT, token=TOKEN, bot=True)
        sandbox.add_opponent(OPPONENT, strategy="random")
        bot = BotProcess(sandbox, write_config(sandbox, directory, args.engine, args.metrics_port, args.status_port),
                         directory / "bot.log", secrets.token_urlsafe(18))
        started = time.monotonic()
        bot.start()
        status = StatusReader(args.status_port, bot.status_key).start() if args.status_port is not None else None
        end = started + args.minutes * 60
        next_sample = started
        stop = threading.Event()

        def sampler() -> None:
            nonlocal next_sample
            while not stop.is_set():
                taken = sample(bot.pid, started)
                if taken is not None:
                    samples.append(taken)
                next_sample += args.sample_s
                stop.wait(max(0.0, next_sample - time.monotonic()))

        thread = threading.Thread(target=sampler, name="sampler", daemon=True)
        thread.start()
        try:
            while time.monotonic() < end:
                played = play_one(sandbox, bot, directory, args, len(games), started, declines)
                games.append(played)
                print(f"{played.ended_at_s / 60:6.1f} min  game {len(games):4d} {played.game_id}: {played.status:10} "
                      f"PGN {played.pgn_result:7} true {played.true_result:7} "
                      f"{played.ms_per_move or 0:6.0f} ms/move", flush=True)
        finally:
            stop.set()
            thread.join(5)
            taken = sample(bot.pid, started)
            if taken is not None:
                samples.append(taken)
            scraped = bot_metrics(args.metrics_port) if args.metrics_port is not None else []
            status_line = status.stop() if status is not None else None
            code = bot.stop()
            report(args, samples, games, bot.restarts, len(declines))
            log_lines = (directory / "bot.log").read_text(errors="replace").splitlines()
            errors = sum(1 for line in log_lines if "ERROR" in line or "Traceback" in line)
            print(f"bot exit code {code}; log lines with ERROR or Traceback: {errors}")
            if scraped:
                print("the bot's metrics at the end:\n  " + "\n  ".join(scraped))
            if status_line is not None:
                print(status_line)
            if args.keep_games is not None:
                shutil.copytree(directory / "games", args.keep_games, dirs_exist_ok=True)
                print(f"PGNs copied to {args.keep_games}")
            if args.log is not None:
                args.log.write_text("\n".join(log_lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
