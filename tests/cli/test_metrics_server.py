"""bot.metrics: the labels it derives, its endpoint on 127.0.0.1 only, and a port already taken at start."""

from __future__ import annotations

import dataclasses
import socket
import threading
from pathlib import Path

import pytest
import yaml

from bot.cli.demo import local_settings
from bot.cli.wiring import play_on_server
from bot.config import Secret, load_settings
from bot.games.runner import StartupError
from bot.metrics import CHALLENGES, MetricsServer, game_result, http_error_kind
from tests.helpers.addresses import own_addresses
from tests.helpers.prometheus import scrape, value


@pytest.mark.parametrize(("result", "bot_is_white", "label"), [
    ("1-0", True, "win"), ("1-0", False, "loss"), ("0-1", False, "win"), ("0-1", True, "loss"),
    ("1/2-1/2", True, "draw"), ("*", True, "unknown"), ("1-0", None, "unknown"),
])
def test_a_games_result_is_labelled_from_the_bots_side(result: str, bot_is_white: bool | None, label: str) -> None:
    assert game_result(result, bot_is_white) == label


@pytest.mark.parametrize(("status", "kind"), [(None, "network"), (429, "http_429"), (404, "http_4xx"),
                                              (502, "http_5xx")])
def test_a_failed_request_is_labelled_by_its_status(status: int | None, kind: str) -> None:
    assert http_error_kind(status) == kind


def test_the_endpoint_serves_the_text_format_on_loopback_only() -> None:
    server = MetricsServer(0)
    try:
        before = value(scrape(server.url), "knightmate_bot_challenges_total", decision="declined", reason="later")
        CHALLENGES.labels(decision="declined", reason="later").inc()
        after = value(scrape(server.url), "knightmate_bot_challenges_total", decision="declined", reason="later")
        assert after == before + 1
        assert server.url.startswith("http://127.0.0.1:")
        address = next(address for address in own_addresses() if not address.startswith("127."))
        with pytest.raises(OSError), socket.create_connection((address, server.port), timeout=2):
            pass
    finally:
        server.close()


def test_a_metrics_port_already_taken_stops_the_start_with_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = local_settings("http://127.0.0.1:1", "lichess", tmp_path)
        settings = dataclasses.replace(settings, bot=dataclasses.replace(settings.bot, metrics_port=port))
        with pytest.raises(StartupError, match=rf"^bot\.metrics_port: cannot listen on 127\.0\.0\.1:{port}: "):
            play_on_server(settings, Secret("unused"), threading.Event())


def test_the_compose_example_checks_health_and_keeps_the_metrics_on_the_hosts_loopback() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs"
    service = yaml.safe_load((docs / "compose.yml").read_text(encoding="utf-8"))["services"]["knightmate-bot"]
    assert service["healthcheck"]["test"][1:3] == ["knightmate-bot", "health"]
    assert service["network_mode"] == "host" and "ports" not in service
    mounted = {volume.split(":")[0]: volume.split(":")[1] for volume in service["volumes"]}
    assert mounted["./compose-config.yml"] == "/config/config.yml"
    assert load_settings(docs / "compose-config.yml").bot.metrics_port == 9464
