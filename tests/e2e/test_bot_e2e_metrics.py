"""Prometheus metrics of the real bot, started as ``run`` starts it (:func:`bot.cli.wiring.play_on_server`
with ``bot.metrics_port``), against the sandbox over HTTP in both dialects: ``/metrics`` parsed with
prometheus_client's parser shows the counters move as a challenge is declined and a game is played.
The metrics are the process's, so each test compares what it reads before and after."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli.wiring import BotThread
from bot.config import Secret
from bot.metrics import MetricsServer
from bot.sandbox import Sandbox
from bot.thinking.search_pool import SearchPool
from tests.helpers.bot_harness import (
    BOT,
    GAME_TIMEOUT_S,
    TOKEN,
    LocalBot,
    bot_settings,
    decline_reason,
    make_sandbox,
    play,
)
from tests.helpers.prometheus import free_port, scrape, value


@pytest.fixture(params=("lichess", "pychess"))
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    server = make_sandbox(request.param)
    yield server
    server.stop()


def test_counters_move_as_a_challenge_is_declined_and_a_game_is_played(sandbox: Sandbox, tmp_path: Path) -> None:
    settings = bot_settings(sandbox, tmp_path)
    port = free_port()
    settings = dataclasses.replace(settings, bot=dataclasses.replace(settings.bot, metrics_port=port))
    stop = threading.Event()
    connected = sandbox.connections("event", BOT)
    bot = BotThread(settings, Secret(TOKEN), stop).start()
    try:
        bot.wait_until(lambda timeout_s: sandbox.wait_connections("event", BOT, connected + 1, timeout=timeout_s), 30)
        url = f"http://127.0.0.1:{port}/metrics"
        before = scrape(url)
        assert decline_reason(sandbox, "randy", variant="chess") == "variant"
        game_id = play(sandbox, "randy")
        assert bot.runner is not None
        sandbox.wait_game_over(game_id, timeout=GAME_TIMEOUT_S)
        bot.runner.wait_game_done(game_id, timeout=30)      # its PGN written, its slot free
        after = scrape(url)
    finally:
        stop.set()
        bot.join(15)
    bot.raise_error()

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("knightmate_bot_challenges_total", decision="declined", reason="variant") == 1
    assert moved("knightmate_bot_challenges_total", decision="accepted", reason="none") == 1
    assert moved("knightmate_bot_games_started_total") == 1
    assert moved("knightmate_bot_games_finished_total", result="win") + \
        moved("knightmate_bot_games_finished_total", result="draw") + \
        moved("knightmate_bot_games_finished_total", result="unknown") == 1     # pychess may not tell: *
    assert value(after, "knightmate_bot_games_active") == value(before, "knightmate_bot_games_active")
    posted = moved("knightmate_bot_moves_posted_total")
    assert posted >= 1
    assert moved("knightmate_bot_move_latency_seconds_count") >= 1
    assert 1 <= moved("knightmate_bot_think_seconds_count") <= posted     # book moves are not searched
    assert value(after, "process_open_fds") > 0                           # the process collector is there



def test_reconnects_and_errors_are_counted_by_stream_and_kind(sandbox: Sandbox, tmp_path: Path) -> None:
    server = MetricsServer(0)           # the bot runs in this process: its metrics are these
    pool = SearchPool(1, hash_mb=16)
    bot = LocalBot(sandbox, bot_settings(sandbox, tmp_path), pool).start()
    try:
        before = scrape(server.url)
        sandbox.faults.http_status("move", 502, count=2)      # the bot's first move post, twice
        game_id = play(sandbox, "randy", color="black")        # the bot is white: it moves first
        sandbox.faults.malformed_line("game", game_id)
        connected = sandbox.connections("event", BOT)
        assert sandbox.faults.drop_event_stream(BOT) == 1
        sandbox.wait_connections("event", BOT, connected + 1, timeout=15)
        sandbox.wait_game_over(game_id, timeout=GAME_TIMEOUT_S)
        bot.runner.wait_game_done(game_id, timeout=30)         # every line of its stream read
        after = scrape(server.url)
    finally:
        bot.stop()
        pool.close()
        server.close()

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("knightmate_bot_errors_total", kind="http_5xx") == 2
    assert moved("knightmate_bot_errors_total", kind="malformed_line") == 1
    assert moved("knightmate_bot_stream_reconnects_total", stream="event") >= 1
