"""``knightmate-bot sandbox``: the server a person points their bot at."""

from __future__ import annotations

import io
import re
import threading

import pytest

from bot.cli.main import main
from bot.sandbox.standalone import serve
from tests.helpers.sandbox_harness import ScriptedClient, json_lines, next_of_type


class LineWatcher(io.StringIO):
    """Captured output that signals once a line containing *needle* has been written."""

    def __init__(self, needle: str) -> None:
        super().__init__()
        self.needle = needle
        self.seen = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.needle in self.getvalue():
            self.seen.set()
        return written


@pytest.mark.parametrize("dialect", ["lichess", "pychess"])
def test_sandbox_prints_url_and_token_and_the_opponent_challenges_a_connected_bot(dialect: str) -> None:
    out = LineWatcher("KNIGHTMATE_BOT_TOKEN=")
    stop = threading.Event()
    server = threading.Thread(target=serve, kwargs=dict(
        dialect=dialect, host="127.0.0.1", port=0, username="tester", opponent="randy", strategy="random",
        limit_s=60, increment_s=1, out=out, stop=stop))
    server.start()
    try:
        assert out.seen.wait(10)
        url = re.search(r"server\.url: (\S+)", out.getvalue())
        token = re.search(r"KNIGHTMATE_BOT_TOKEN=(\S+)", out.getvalue())
        assert url and token
        client = ScriptedClient(url.group(1), token.group(1), pychess=dialect == "pychess")
        assert client.get("/api/account").json()["username"] == "tester"
        events = client.open_event_stream()
        challenge = next_of_type(json_lines(events), "challenge")["challenge"]
        assert challenge["challenger"]["name"] == "randy"
        assert challenge["timeControl"]["limit"] == 60
        events.close()
    finally:
        stop.set()
        server.join(10)
    assert not server.is_alive()


def test_sandbox_refuses_a_non_loopback_host_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sandbox", "--host", "0.0.0.0", "--port", "0"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "loopback" in error
