"""What the configuration refuses so that the token never leaks: plain http to another host, a
token that cannot be one header line; and where the bot's own files go by default."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bot.config import BotSettings, ConfigError, ServerSettings, load_token, parse_settings
from bot.own_command import OWN_COMMAND

SECRET = "lip_SECRETPART1"


@pytest.mark.parametrize("url", ["http://lichess.org", "http://10.0.0.5:8080", "http://bot.example"])
def test_plain_http_to_another_host_is_refused(url: str) -> None:
    with pytest.raises(ConfigError, match=r"^server\.url: plain http:// would send the API token in clear"):
        parse_settings({"server": {"url": url}})


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080",
                                 "http://127.0.0.2", "https://lichess.org"])
def test_loopback_http_and_https_are_accepted(url: str) -> None:
    assert parse_settings({"server": {"url": url}}).server.url == url


def test_plain_http_elsewhere_is_accepted_only_when_the_operator_says_so() -> None:
    settings = parse_settings({"server": {"url": "http://10.0.0.5:8080", "allow_insecure_http": True}})
    assert settings.server.allow_insecure_http


@pytest.mark.parametrize("token", [f"{SECRET}\nsecond-line", f"{SECRET}\r\nx", f"{SECRET} x", f"{SECRET}\x00"])
def test_a_token_that_cannot_be_one_header_line_is_refused_without_showing_it(tmp_path: Path, token: str) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    for environ, settings in (({}, ServerSettings(token_file=str(token_file))),
                              ({"KNIGHTMATE_BOT_TOKEN": token}, ServerSettings())):
        with pytest.raises(ConfigError, match="line break, space or control character") as refused:
            load_token(settings, environ)
        assert "SECRET" not in str(refused.value)


def test_run_with_a_two_line_token_file_stops_with_exit_2_and_no_token(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(f"{SECRET}\nanother-line\n")
    config = tmp_path / "config.yml"
    config.write_text(f"server:\n  url: http://127.0.0.1:9\n  token_file: {token_file}\n"
                      f"game:\n  pgn_dir: {tmp_path / 'games'}\n  state_file: {tmp_path / 'state.json'}\n")
    environ = {key: value for key, value in os.environ.items() if key != "KNIGHTMATE_BOT_TOKEN"}
    done = subprocess.run([*OWN_COMMAND, "run", "--config", str(config)], capture_output=True,
                          text=True, timeout=60, env=environ, cwd=tmp_path)
    assert done.returncode == 2
    assert "server.token_file" in done.stderr and "line break" in done.stderr
    assert "SECRET" not in done.stderr + done.stdout and "another-line" not in done.stderr + done.stdout


def test_the_default_heartbeat_file_is_in_the_bots_own_directory_not_tmp() -> None:
    path = Path(BotSettings().heartbeat_file)
    assert not path.is_absolute() and path.parent == Path(".")
