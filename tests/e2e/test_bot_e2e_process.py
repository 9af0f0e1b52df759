"""``knightmate-bot run`` as a real process against the sandbox: killed and restarted mid-game,
SIGTERM, stopping after the current games (SIGUSR1, ``stop-after-games``), ``health``, and the
one-line start-up errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from bot.sandbox import Sandbox
from tests.helpers.bot_harness import BOT, TOKEN, decline_reason, make_sandbox, play
from tests.helpers.bot_process import GOODBYE, environment, knightmate_bot, run_cli, start_bot, stop, write_config


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


class WatchedBot:
    """``knightmate-bot run`` whose output goes to a log file and can be waited on line by line."""

    def __init__(self, sandbox: Sandbox, config: Path, log: Path) -> None:
        connected = sandbox.connections("event", BOT)
        self.process = subprocess.Popen(knightmate_bot("run", "--config", str(config)), stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, env=environment())
        self.log = log
        self._lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        sandbox.wait_connections("event", BOT, connected + 1, timeout=20)

    def _read(self) -> None:
        assert self.process.stdout is not None
        with self.log.open("ab") as output:
            for raw in self.process.stdout:
                output.write(raw)
                with self._changed:
                    self._lines.append(raw.decode(errors="replace"))
                    self._changed.notify_all()

    def wait_for(self, text: str, timeout: float) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: any(text in line for line in self._lines), timeout), \
                f"the bot never logged {text!r}"

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        self._reader.join(10)


@pytest.mark.parametrize(("dialect", "trigger"), [("lichess", "SIGUSR1"), ("pychess", "stop-after-games")])
def test_stop_after_games_declines_new_challenges_finishes_both_games_and_exits_0(tmp_path: Path, dialect: str,
                                                                                 trigger: str) -> None:
    """One game goes on for seconds after the stop whatever its moves (statue never makes its first
    move, so the bot aborts it after game.abort_after_s), the other is played to its end."""
    sandbox = make_sandbox(dialect, opponent_delay_s=0.3)
    # A third game would fit within the concurrency: "later" is the stop's doing.
    config = write_config(sandbox, tmp_path, concurrency=3, abort_after_s=10)
    bot = WatchedBot(sandbox, config, tmp_path / "bot.log")
    try:
        games = [play(sandbox, "statue", color="black", limit_s=60), play(sandbox, "randy", color="black", limit_s=60)]
        for game_id in games:
            sandbox.wait_moves(game_id, 1, timeout=30)
        if trigger == "SIGUSR1":
            bot.process.send_signal(signal.SIGUSR1)
        else:
            asked = subprocess.run(knightmate_bot("stop-after-games", "--config", str(config)), capture_output=True,
                                   text=True, env=environment(None), timeout=30)
            assert asked.returncode == 0, asked.stdout + asked.stderr
        bot.wait_for("stopping after the current games", timeout=10)
        assert not sandbox.game(games[0]).over
        assert decline_reason(sandbox, "randy", limit_s=60, increment_s=1) == "later"
        code = bot.process.wait(timeout=150)
        records = [sandbox.game(game_id) for game_id in games]
    finally:
        bot.close()
        sandbox.stop()
    text = (tmp_path / "bot.log").read_text(errors="replace")
    assert code == 0, text[-3000:]
    assert records[0].status == "aborted" and records[1].status not in ("aborted", "noStart")
    for record in records:
        assert record.over, record.status
        pgn = tmp_path / "games" / f"{record.id}.pgn"
        assert pgn.exists(), text[-3000:]
        written = pgn.read_text().split('[Result "')[1].split('"')[0]
        assert written in (record.result, "*" if dialect == "pychess" else record.result)
    assert "stopping after the games: all are over" in text
    assert json.loads((tmp_path / "state.json").read_text()) == {"unfinished_games": [], "setups": {}}
    assert not (tmp_path / "stop").exists()


def test_stop_after_games_without_a_running_bot_says_so_and_exits_1(tmp_path: Path) -> None:
    (tmp_path / "config.yml").write_text(f"bot:\n  heartbeat_file: {tmp_path / 'heartbeat'}\n"
                                         f"  stop_file: {tmp_path / 'stop'}\n")
    result = run_cli("stop-after-games", "--config", str(tmp_path / "config.yml"), token=None)
    assert result.returncode == 1 and "no running bot" in result.stdout
    assert not (tmp_path / "stop").exists()


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


@pytest.mark.parametrize(("text", "key"), [
    ("challenge:\n  concurency: 2\n", "challenge.concurency"),
    ("server:\n  url: pychess.org\n", "server.url"),
    ("engine:\n  move_overhead_ms: fast\n", "engine.move_overhead_ms"),
    ("engine:\n  threads: 0\n", "engine.threads"),
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
