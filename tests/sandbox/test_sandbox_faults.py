"""Faults the sandbox injects on demand, in both dialects, over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
import requests

from bot.sandbox import Sandbox
from tests.helpers.sandbox_harness import ScriptedClient, drain, raw_lines, start_game

KEEPALIVE_S = 0.1
pytestmark = pytest.mark.sandbox(keepalive_s=KEEPALIVE_S, seed=5)


def content_lines(response: requests.Response) -> Iterator[bytes]:
    return (line for line in raw_lines(response) if line.strip() and line != b'{"type":"ping"}')


def test_injected_429_answers_with_retry_after_and_html_then_the_move_lands(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, color="black")
    sandbox.faults.http_status("move", 429, count=1, retry_after=2)
    refused = client.post(f"/api/bot/game/{game_id}/move/e2e4")
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "2"
    assert refused.headers["Content-Type"].startswith("text/html")
    assert sandbox.game(game_id).moves == [] and sandbox.game(game_id).posts == []
    assert client.post(f"/api/bot/game/{game_id}/move/e2e4").status_code == 200
    assert sandbox.game(game_id).moves[0] == "e2e4"
    assert sandbox.faults.fired == [("move", "429")]


def test_injected_5xx_hits_exactly_the_next_count_requests_of_that_kind(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, color="white")
    sandbox.faults.http_status("stream_game", 502, count=2)
    assert client.get("/api/account").status_code == 200  # another kind is not affected
    assert [client.open_game_stream(game_id).status_code for _ in range(3)] == [502, 502, 200]


def test_unknown_fault_kinds_are_refused(sandbox: Sandbox) -> None:
    with pytest.raises(ValueError, match="unknown request kind"):
        sandbox.faults.http_status("moves", 429)
    with pytest.raises(ValueError, match="4xx or 5xx"):
        sandbox.faults.http_status("move", 200)
    with pytest.raises(ValueError, match="event or game"):
        sandbox.faults.silence("chat", 1)


def test_dropped_game_stream_breaks_mid_body_and_a_new_stream_has_the_moves_so_far(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, color="white")
    record = sandbox.wait_moves(game_id, 1, timeout=5)
    stream = client.open_game_stream(game_id)
    lines = content_lines(stream)
    assert json.loads(next(lines))["type"] == "gameFull"
    assert sandbox.faults.drop_game_stream(game_id) == 1
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        drain(lines)
    sandbox.wait_open_streams("game", "mybot", 0, timeout=5, game_id=game_id)
    full = json.loads(next(content_lines(client.open_game_stream(game_id))))
    assert full["state"]["moves"] == " ".join(record.moves)


def test_dropped_event_stream_breaks_and_the_bot_can_reconnect(sandbox: Sandbox, client: ScriptedClient) -> None:
    events = client.open_event_stream()
    lines = raw_lines(events)
    next(lines)
    assert sandbox.faults.drop_event_stream() == 1
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        drain(lines)
    sandbox.wait_open_streams("event", "mybot", 0, timeout=5)
    again = client.open_event_stream()
    assert again.status_code == 200 and sandbox.connections("event", "mybot") == 2
    again.close()


def test_silent_stream_keeps_its_socket_and_sends_the_held_lines_afterwards(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, color="black")
    stream = client.open_game_stream(game_id)
    lines = content_lines(stream)
    assert json.loads(next(lines))["type"] == "gameFull"
    assert sandbox.faults.silence("game", seconds=0.6, game_id=game_id) == 1
    silenced_at = time.monotonic()
    client.post(f"/api/bot/game/{game_id}/move/e2e4")
    state = json.loads(next(lines))  # the same response: the socket stayed open
    assert time.monotonic() - silenced_at >= 0.5
    assert state["type"] == "gameState" and state["moves"].startswith("e2e4")
    stream.close()


def test_silence_withholds_keepalives_too(sandbox: Sandbox, client: ScriptedClient) -> None:
    events = client.open_event_stream()
    lines = raw_lines(events)
    next(lines)
    sandbox.faults.silence("event", seconds=0.5)
    silenced_at = time.monotonic()
    next(lines)
    assert time.monotonic() - silenced_at >= 0.4
    events.close()


def test_malformed_line_comes_before_the_next_line_and_the_stream_goes_on(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, color="black")
    stream = client.open_game_stream(game_id)
    lines = content_lines(stream)
    next(lines)
    sandbox.faults.malformed_line("game", game_id=game_id)
    client.post(f"/api/bot/game/{game_id}/move/e2e4")
    garbage = next(lines)
    with pytest.raises(ValueError):
        json.loads(garbage)
    assert json.loads(next(lines))["type"] == "gameState"
    assert ("malformed", "game") in sandbox.faults.fired
    stream.close()


def test_stop_is_prompt_even_while_a_stream_is_silent(sandbox: Sandbox, client: ScriptedClient) -> None:
    events = client.open_event_stream()
    lines = raw_lines(events)  # kept: dropping the generator would close the connection
    next(lines)
    assert sandbox.faults.silence("event", seconds=60) == 1
    started = time.monotonic()
    sandbox.stop()
    assert time.monotonic() - started < 5
    events.close()
