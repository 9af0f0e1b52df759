"""``knightmate-bot run`` as a real process against the sandbox: killed and restarted mid-game,
SIGTERM, ``health``, and the one-line start-up errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from test_bot_e2e_support import BOT, TOKEN, make_sandbox, play

from bot.sandbox import Sandbox

DIALECTS = ("lichess", "pychess")
GOODBYE = "bye from the test"


@pytest.fixture(params=DIALECTS)
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    server = make_sandbox(request.param)
    yield server
    server.stop()


def write_config(sandbox: Sandbox, directory: Path, **game: object) -> Path:
    config = {
        "server": {"url": sandbox.url, "dialect": sandbox.dialect.name, "read_timeout_s": 1.5,
                   "backoff_initial_s": 0.2, "backoff_max_s": 1.0},
        "engine": {"workers": 1, "hash_mb": 8, "max_move_time_ms": 200, "move_overhead_ms": 100},
        "game": {"pgn_dir": str(directory / "games"), "state_file": str(directory / "state.json"),
                 "give_up_after_s": 20, "goodbye": GOODBYE, **game},
        "bot": {"heartbeat_file": str(directory / "heartbeat"), "log_level": "DEBUG"},  # the token must not show
    }
    path = directory / "config.yml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def knightmate_bot(*args: str) -> list[str]:
    return [sys.executable, "-m", "bot.cli", *args]


def environment(token: str | None = TOKEN) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "KNIGHTMATE_BOT_TOKEN"}
    if token is not None:
        env["KNIGHTMATE_BOT_TOKEN"] = token
    return env


def start_bot(sandbox: Sandbox, config: Path, log: Path) -> subprocess.Popen[bytes]:
    connected = sandbox.connections("event", BOT)
    with log.open("ab") as output:
        process = subprocess.Popen(knightmate_bot("run", "--config", str(config)), stdout=output,
                                   stderr=subprocess.STDOUT, env=environment())
    sandbox.wait_connections("event", BOT, connected + 1, timeout=20)
    return process


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> tuple[int, float]:
    started = time.monotonic()
    process.send_signal(sig)
    code = process.wait(timeout=15)
    return code, time.monotonic() - started


def test_bot_killed_mid_game_and_restarted_finishes_the_game(sandbox: Sandbox, tmp_path: Path) -> None:
    config = write_config(sandbox, tmp_path)
    log = tmp_path / "bot.log"
    first = start_bot(sandbox, config, log)
    try:
        game_id = play(sandbox, color="black", limit_s=120, increment_s=1)
        sandbox.wait_moves(game_id, 6, timeout=30)
        first.kill()                                       # SIGKILL: no goodbye, no cleanup
        first.wait(timeout=10)
        assert game_id in (tmp_path / "state.json").read_text()
        second = start_bot(sandbox, config, log)
        try:
            record = sandbox.wait_game_over(game_id, timeout=90)
            # The goodbye goes out after the PGN is written.
            sandbox.wait_game(game_id, lambda game: any(line.username == BOT and line.text == GOODBYE
                                                        for line in game.chat), timeout=20, what="said goodbye")
            pgn = tmp_path / "games" / f"{game_id}.pgn"
        finally:
            code, _ = stop(second)
    finally:
        if first.poll() is None:
            first.kill()
    text = log.read_text(errors="replace")
    assert code == 0, text[-3000:]
    mine = [post for post in record.posts if post.username == BOT]
    assert mine and all(post.accepted for post in mine)
    assert not [post for post in record.duplicate_posts if post.username == BOT]
    assert record.winner in (None, "white" if record.white == BOT else "black"), record.status
    assert pgn.exists(), text[-3000:]
    written = pgn.read_text().split('[Result "')[1].split('"')[0]
    assert written in (record.result, "*" if sandbox.dialect.name == "pychess" else record.result)
    assert game_id not in (tmp_path / "state.json").read_text()
    assert f"game {game_id}: unfinished at the last stop; reopening it" in text
    assert TOKEN not in text


def test_sigterm_mid_game_exits_0_within_10_s_and_health_follows_the_heartbeat(sandbox: Sandbox,
                                                                               tmp_path: Path) -> None:
    config = write_config(sandbox, tmp_path)
    log = tmp_path / "bot.log"
    process = start_bot(sandbox, config, log)
    try:
        game_id = play(sandbox, "statue", color="black", limit_s=120)
        sandbox.wait_moves(game_id, 1, timeout=20)
        healthy = subprocess.run(knightmate_bot("health", "--config", str(config)), capture_output=True,
                                 env=environment(None), timeout=30)
        assert healthy.returncode == 0, healthy.stdout
    finally:
        code, took = stop(process)
    assert (code, took < 10) == (0, True), log.read_text()[-3000:]
    assert game_id in (tmp_path / "state.json").read_text()
    os.utime(tmp_path / "heartbeat", (time.time() - 120, time.time() - 120))
    stale = subprocess.run(knightmate_bot("health", "--config", str(config)), capture_output=True,
                           env=environment(None), timeout=30)
    assert stale.returncode == 1 and b"unhealthy" in stale.stdout


def test_sigterm_while_the_server_is_unreachable_exits_0(tmp_path: Path) -> None:
    config = tmp_path / "config.yml"
    config.write_text(f"server:\n  url: http://127.0.0.1:9\n  dialect: lichess\n"
                      f"bot:\n  heartbeat_file: {tmp_path / 'heartbeat'}\n"
                      f"game:\n  pgn_dir: {tmp_path / 'games'}\n  state_file: {tmp_path / 'state.json'}\n")
    process = subprocess.Popen(knightmate_bot("run", "--config", str(config)), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, env=environment())
    assert process.stdout is not None
    guard = threading.Timer(30, process.kill)       # a hung bot fails the test instead of hanging it
    guard.start()
    seen = b""
    for line in process.stdout:                      # blocks until the bot says it is waiting
        seen += line
        if b"trying again" in line:
            break
    guard.cancel()
    code, took = stop(process)
    process.stdout.close()
    assert (code, took < 10) == (0, True), seen.decode(errors="replace")


def run_cli(*args: str, token: str | None = TOKEN) -> subprocess.CompletedProcess[str]:
    return subprocess.run(knightmate_bot(*args), capture_output=True, text=True, env=environment(token), timeout=60)


@pytest.mark.parametrize(("text", "key"), [
    ("challenge:\n  concurency: 2\n", "challenge.concurency"),
    ("server:\n  url: pychess.org\n", "server.url"),
    ("engine:\n  move_overhead_ms: fast\n", "engine.move_overhead_ms"),
])
def test_bad_config_stops_run_with_one_line_naming_the_key_and_exit_2(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "config.yml"
    path.write_text(text)
    result = run_cli("run", "--config", str(path))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and key in result.stderr and "Traceback" not in result.stderr


def test_unwritable_pgn_directory_stops_run_at_start_naming_the_key(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    (tmp_path / "config.yml").write_text(f"game:\n  pgn_dir: {blocker / 'games'}\n")
    result = run_cli("run", "--config", str(tmp_path / "config.yml"))
    assert result.returncode == 2 and result.stderr.startswith("knightmate-bot run: game.pgn_dir:")
    assert result.stderr.count("\n") == 1


def test_missing_token_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "config.yml").write_text("")
    result = run_cli("run", "--config", str(tmp_path / "config.yml"), token=None)
    assert result.returncode == 2 and "KNIGHTMATE_BOT_TOKEN" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("dialect", ["lichess"])
def test_wrong_token_and_non_bot_account_stop_at_start_without_showing_the_token(tmp_path: Path,
                                                                                  dialect: str) -> None:
    with Sandbox(dialect) as sandbox:
        sandbox.add_account("human", token="tok-human", bot=False)
        config = write_config(sandbox, tmp_path)
        wrong = run_cli("run", "--config", str(config), token="lip_wrongtoken")
        assert wrong.returncode == 2 and "401" in wrong.stderr and "lip_wrongtoken" not in wrong.stderr
        human = run_cli("run", "--config", str(config), token="tok-human")
        assert human.returncode == 2 and "Traceback" not in human.stderr
        assert human.stderr.splitlines()[-1].startswith("knightmate-bot run: account human is not a BOT account")
        upgraded = run_cli("upgrade", "--config", str(config), token="tok-human")
        assert upgraded.returncode == 0, upgraded.stderr
