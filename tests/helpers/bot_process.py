"""``knightmate-bot`` as a real process against the sandbox, as an operator runs it: its config file, its
environment (the token, never in the config) and its start and stop. The sandbox must already hold the
accounts of :func:`tests.helpers.bot_harness.make_sandbox`."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import yaml

from bot.own_command import OWN_COMMAND
from bot.sandbox import Sandbox
from tests.helpers.bot_harness import BOT, TOKEN

#: What the bot says at a game's end in these configs, so a test can tell it was said.
GOODBYE = "bye from the test"


def write_config(sandbox: Sandbox, directory: Path, concurrency: int = 1, **game: object) -> Path:
    """A config.yml in *directory* for the bot against *sandbox*: quick moves, quick backoff, every file
    of the bot kept in *directory*; *game* overrides keys of its ``game`` section."""
    config = {
        "server": {"url": sandbox.url, "dialect": sandbox.dialect.name, "read_timeout_s": 1.5,
                   "backoff_initial_s": 0.2, "backoff_max_s": 1.0},
        "challenge": {"concurrency": concurrency},
        "engine": {"workers": 1, "hash_mb": 8, "max_move_time_ms": 200, "move_overhead_ms": 100},
        "game": {"pgn_dir": str(directory / "games"), "state_file": str(directory / "state.json"),
                 "give_up_after_s": 20, "goodbye": GOODBYE, **game},
        "bot": {"heartbeat_file": str(directory / "heartbeat"), "stop_file": str(directory / "stop"),
                "log_level": "DEBUG"},  # the token must not show
    }
    path = directory / "config.yml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def knightmate_bot(*args: str) -> list[str]:
    """The command line of ``knightmate-bot`` run by this test's Python."""
    return [*OWN_COMMAND, *args]


def environment(token: str | None = TOKEN) -> dict[str, str]:
    """This process's environment with the bot's token set to *token* (None: no token at all)."""
    env = {key: value for key, value in os.environ.items() if key != "KNIGHTMATE_BOT_TOKEN"}
    if token is not None:
        env["KNIGHTMATE_BOT_TOKEN"] = token
    return env


def start_bot(sandbox: Sandbox, config: Path, log: Path) -> subprocess.Popen[bytes]:
    """Starts ``run`` with its output appended to *log*; returns once it has opened its event stream."""
    connected = sandbox.connections("event", BOT)
    with log.open("ab") as output:
        process = subprocess.Popen(knightmate_bot("run", "--config", str(config)), stdout=output,
                                   stderr=subprocess.STDOUT, env=environment())
    sandbox.wait_connections("event", BOT, connected + 1, timeout=20)
    return process


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> tuple[int, float]:
    """Sends *sig* and waits for the exit; the exit code and how many seconds the process took to go."""
    started = time.monotonic()
    process.send_signal(sig)
    code = process.wait(timeout=15)
    return code, time.monotonic() - started


def run_cli(*args: str, token: str | None = TOKEN) -> subprocess.CompletedProcess[str]:
    """Runs a subcommand that ends on its own (a bad config, ``health``...) and captures its output."""
    return subprocess.run(knightmate_bot(*args), capture_output=True, text=True, env=environment(token), timeout=60)
