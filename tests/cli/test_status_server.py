"""The status page's server as ``run`` starts it: loopback only, its key logged only when new, and a
port already taken at start. (Over HTTP with a bot playing: tests/e2e/test_bot_e2e_status.py.)"""

from __future__ import annotations

import dataclasses
import logging
import socket
import threading
from pathlib import Path

import pytest
import requests

from bot.cli.demo import local_settings
from bot.cli.main import main
from bot.cli.wiring import STATUS_KEY_ENV, play_on_server, status_page
from bot.config import Secret
from bot.games.runner import StartupError
from bot.games.status import StatusRecorder
from tests.helpers.addresses import own_addresses


def test_a_new_key_is_logged_with_the_address_and_opens_the_page(monkeypatch: pytest.MonkeyPatch,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delenv(STATUS_KEY_ENV, raising=False)
    with caplog.at_level(logging.INFO, logger="bot.cli.wiring"):
        server = status_page(0, StatusRecorder(), None)
    try:
        [line] = [record.getMessage() for record in caplog.records if "status page" in record.getMessage()]
        address = line.split(" on ", 1)[1]
        assert address.startswith(f"http://127.0.0.1:{server.port}/?key=")
        session = requests.Session()
        assert session.get(address, timeout=10).status_code == 200          # redirected to the page
        assert session.get(f"{server.url}api/status", timeout=10).json()["playing"] == []
    finally:
        server.close()


def test_a_key_from_the_environment_stays_out_of_the_log(monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv(STATUS_KEY_ENV, "operators-own-key")
    with caplog.at_level(logging.INFO, logger="bot.cli.wiring"):
        server = status_page(0, StatusRecorder(), None)
    try:
        assert "operators-own-key" not in caplog.text and f"http://127.0.0.1:{server.port}/" in caplog.text
        assert requests.get(f"{server.url}?key=operators-own-key", timeout=10).url == server.url
    finally:
        server.close()


def test_the_page_listens_on_the_loopback_only() -> None:
    server = status_page(0, StatusRecorder(), "key")
    try:
        address = next(address for address in own_addresses() if not address.startswith("127."))
        with pytest.raises(OSError), socket.create_connection((address, server.port), timeout=2):
            pass
    finally:
        server.close()


def test_a_status_port_already_taken_stops_the_start_with_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = local_settings("http://127.0.0.1:1", "lichess", tmp_path)
        settings = dataclasses.replace(settings, bot=dataclasses.replace(settings.bot, status_port=port))
        with pytest.raises(StartupError, match=rf"^bot\.status_port: cannot listen on 127\.0\.0\.1:{port}: "):
            play_on_server(settings, Secret("unused"), threading.Event())


def test_demo_with_its_status_port_taken_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["demo", "--status-port", str(port)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"knightmate-bot demo: bot.status_port: cannot listen on 127.0.0.1:{port}: Address already in use"]


@pytest.mark.parametrize(("given", "said"), [("0", "expected a port number from 1 to 65535"),
                                             ("http", "not a port number")])
def test_demo_refuses_a_status_port_that_is_none(given: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--status-port", given])
    assert exit_info.value.code == 2 and said in capsys.readouterr().err
