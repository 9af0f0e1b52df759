"""The whole bot with an external UCI engine (``engine.command``) against the sandbox over real HTTP
on 127.0.0.1, in both dialects, with ``knightmate-bot uci`` and, where it is installed,
Fairy-Stockfish: whole games, a commoner promotion in the move history, the engine killed mid-game.
Every game is checked by :func:`check_game` (legal posts, no loss, a true PGN). And ``run`` with an
engine that cannot play: one line, exit code 2, before the bot even opens its event stream."""

from __future__ import annotations

import dataclasses
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from bot.sandbox import Sandbox
from bot.thinking.sources import UciMoveSources
from tests.helpers.bot_harness import BOT, LocalBot, bot_settings, check_game, make_sandbox, play
from tests.helpers.bot_process import run_cli, write_config
from tests.helpers.engine_processes import (
    ENGINE_COMMANDS,
    FAIRY_STOCKFISH,
    FAKE_ENGINE,
    KNIGHTMATE_BOT_UCI,
    engine_pids,
    needs_fairy_stockfish,
    uci_settings,
    wait_until,
)
from tests.helpers.sandbox_harness import ScriptedClient
from variant import KnightmateBoard

#: White (the test) promotes b7b8m at once; the bot plays Black with the promotion in its history.
PROMOTION_FEN = "r3k3/1P4p1/8/8/8/8/6P1/4K2R w - - 0 1"
SCRIPTED, SCRIPTED_TOKEN = "scripted", "tok-scripted"


@pytest.fixture
def sandbox(sandbox: Sandbox) -> Sandbox:
    """The shared sandbox in each dialect, with one more bot account for a test that plays by script."""
    sandbox.add_account(SCRIPTED, token=SCRIPTED_TOKEN, bot=True)
    return sandbox


@pytest.fixture(params=ENGINE_COMMANDS)
def command(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def bot(sandbox: Sandbox, tmp_path: Path, command: str) -> Iterator[LocalBot]:
    settings = bot_settings(sandbox, tmp_path)
    settings = dataclasses.replace(settings, engine=dataclasses.replace(
        uci_settings(command), move_overhead_ms=settings.engine.move_overhead_ms,
        max_move_time_ms=settings.engine.max_move_time_ms))
    engines = UciMoveSources(settings.engine)
    try:
        engines.check()
        with LocalBot(sandbox, settings, engines) as local:
            yield local
    finally:
        engines.close()


def engine_moves(caplog: pytest.LogCaptureFixture) -> int:
    """The bot's moves that came from its engine (a fallback move is logged as one)."""
    return sum(1 for record in caplog.records
               if record.getMessage().startswith("game ") and ": move " in record.getMessage()
               and " depth " in record.getMessage())


def test_whole_game_and_the_engine_quits_at_its_end(sandbox: Sandbox, bot: LocalBot, command: str,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO")
    game_id = play(sandbox, "human", color="black")
    check_game(sandbox, game_id, bot)
    assert engine_moves(caplog) >= 1
    assert "not legal here" not in caplog.text and "engine failed" not in caplog.text
    wait_until(lambda: not engine_pids(command), 10, "the game's engine quits when the game is over")


def test_a_commoner_promotion_in_the_history_reaches_the_engine(sandbox: Sandbox, bot: LocalBot,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    # Fairy-Stockfish told "b7b8n" ignores it and all that follows: it would search for White and
    # answer a White move on every move, which chess.engine or the bot refuses ("engine failed",
    # "not legal here"), and the bot would play fallback moves only.
    caplog.set_level("INFO")
    game_id = play(sandbox, SCRIPTED, color="white", initial_fen=PROMOTION_FEN)
    scripted = ScriptedClient(sandbox.url, SCRIPTED_TOKEN, pychess=sandbox.dialect.name == "pychess")
    board = KnightmateBoard(PROMOTION_FEN)
    for _ in range(4):
        move = board.parse_uci("b7b8m") if not board.move_stack else sorted(board.legal_moves, key=board.uci)[0]
        assert scripted.post(f"/api/bot/game/{game_id}/move/{board.uci(move)}").status_code == 200
        board.push(move)
        record = sandbox.wait_moves(game_id, len(board.move_stack) + 1, timeout=30)
        if record.over:
            break
        board.push_uci(record.moves[-1])
    if not sandbox.game(game_id).over:
        assert scripted.post(f"/api/bot/game/{game_id}/resign").status_code == 200
    record, _ = check_game(sandbox, game_id, bot)
    assert record.moves[0] == "b7b8m"
    assert "not legal here" not in caplog.text and "engine failed" not in caplog.text
    assert engine_moves(caplog) >= 1


def test_the_engine_killed_mid_game_is_started_again_and_the_game_goes_on(
        sandbox: Sandbox, bot: LocalBot, command: str, caplog: pytest.LogCaptureFixture) -> None:
    game_id = play(sandbox, "randy", limit_s=120, increment_s=1)
    sandbox.wait_moves(game_id, 6, timeout=30)
    (killed,) = engine_pids(command)                       # one engine process for the one game
    os.kill(killed, signal.SIGKILL)
    wait_until(lambda: bool(engine_pids(command) - {killed}), 30, "a new engine process for the game")
    check_game(sandbox, game_id, bot)
    assert "starting it again" in caplog.text


@pytest.mark.parametrize(("engine", "message"), [
    ({"command": "/nonexistent/engine"},
     "engine.command: cannot start /nonexistent/engine: No such file or directory"),
    ({"command": [*FAKE_ENGINE, "chess-only"]}, "does not play knightmate (its UCI_Variant option lists chess)"),
    ({"command": [*FAKE_ENGINE, "no-uciok"], "start_timeout_s": 1},
     "did not answer 'uci' within 1 s (engine.start_timeout_s); is it a UCI engine?"),
    ({"command": KNIGHTMATE_BOT_UCI, "options": {"Hash": 100_000}},
     "engine.options: expected value for option 'Hash' to be at most 4096, got: 100000"),
    ({"command": KNIGHTMATE_BOT_UCI, "options": {"Contempt": 20}},
     "engine.options: engine does not support option Contempt"),
    ({"command": KNIGHTMATE_BOT_UCI, "options": {"UCI_Variant": "chess"}},
     "engine.options: UCI_Variant is set by the bot"),
])
def test_an_engine_that_cannot_play_stops_run_before_any_challenge_with_one_line_and_exit_2(
        tmp_path: Path, engine: dict[str, object], message: str) -> None:
    sandbox = make_sandbox("lichess")
    try:
        config = write_config(sandbox, tmp_path)
        document = yaml.safe_load(config.read_text())
        document["engine"].update(engine)
        document["bot"]["log_level"] = "INFO"
        config.write_text(yaml.safe_dump(document))
        result = run_cli("run", "--config", str(config))
        assert sandbox.connections("event", BOT) == 0
    finally:
        sandbox.stop()
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and message in result.stderr and "Traceback" not in result.stderr


@needs_fairy_stockfish
def test_demo_plays_its_game_with_the_engine_it_is_given() -> None:
    result = run_cli("demo", "--engine", FAIRY_STOCKFISH or "", token=None)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"({FAIRY_STOCKFISH})" in result.stdout and "game over: " in result.stdout
    assert '[Variant "Knightmate"]' in result.stdout


def test_demo_with_an_engine_that_cannot_play_is_one_line_and_exit_2() -> None:
    result = run_cli("demo", "--engine", "/nonexistent/engine", token=None)
    assert result.returncode == 2
    assert result.stderr.splitlines() == ["knightmate-bot demo: engine.command: cannot start /nonexistent/engine: "
                                          "No such file or directory"]
