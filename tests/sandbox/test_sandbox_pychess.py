"""The sandbox in the pychess dialect, over real HTTP on 127.0.0.1 (docs/api.md, the pychess.org side)."""

from __future__ import annotations

import json

import pytest
import requests

from bot.sandbox import Sandbox
from tests.helpers.sandbox_harness import (
    ScriptedClient,
    json_lines,
    next_of_type,
    play_random_game,
    raw_lines,
    start_game,
)

PING = b'{"type":"ping"}'
MATE_IN_ONE_FEN = "Q4m2/8/2Pp3r/bP1b1pPp/7P/Q1PB2k1/P2B2P1/1M1RK1MR w - - 5 34"


pytestmark = pytest.mark.sandbox(keepalive_s=0.2, seed=11)


@pytest.fixture
def dialect() -> str:
    return "pychess"


@pytest.fixture
def sandbox(sandbox: Sandbox) -> Sandbox:
    """The shared server with statue too, who never moves."""
    sandbox.add_opponent("statue", strategy="idle")
    return sandbox


def test_event_stream_needs_the_capabilities_header(sandbox: Sandbox) -> None:
    plain = ScriptedClient(sandbox.url, "tok-bot")  # sends no capabilities header
    assert plain.open_event_stream().status_code == 400


def test_streams_ping_at_connect_and_then_every_interval(sandbox: Sandbox, client: ScriptedClient) -> None:
    events = client.open_event_stream()
    lines = raw_lines(events)
    assert [next(lines), next(lines)] == [PING, PING]
    game_id = start_game(sandbox, client, "statue")
    game = raw_lines(client.open_game_stream(game_id))
    assert next(game) == PING
    assert json.loads(next(game))["type"] == "gameFull"
    assert next(game) == PING
    events.close()


def test_challenge_line_has_no_challenger_id_no_fen_and_the_challengers_color(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    events = client.open_event_stream()
    lines = json_lines(events)
    cid = sandbox.challenge("randy", "mybot", limit_s=180, increment_s=2, color="black",
                            initial_fen=MATE_IN_ONE_FEN, level=6)
    challenge = next_of_type(lines, "challenge")["challenge"]
    assert challenge["id"] == cid
    assert challenge["challenger"] == {"name": "randy", "rating": 1500, "title": "BOT"}
    assert "initialFen" not in challenge
    assert (challenge["color"], challenge["level"], challenge["chess960"]) == ("black", 6, False)
    assert challenge["timeControl"] == {"type": "clock", "limit": 180, "increment": 2}
    assert challenge["variant"] == {"key": "knightmate"}
    client.post(f"/api/challenge/{cid}/accept")
    start = next_of_type(lines, "gameStart")
    assert start["game"] == {"id": sandbox.game_of_challenge(cid), "skill_level": "6", "chess960": "False"}
    full = next(json_lines(client.open_game_stream(start["game"]["id"])))
    assert full["initialFen"] == MATE_IN_ONE_FEN
    events.close()


def test_game_full_has_names_only_and_increments_in_seconds(sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, "statue", limit_s=60, increment_s=3, color="white")
    full = next(json_lines(client.open_game_stream(game_id)))
    assert full == {
        "type": "gameFull", "id": game_id, "variant": {"name": "knightmate"},
        "white": {"name": "statue"}, "black": {"name": "MyBot"}, "initialFen": "",
        "state": {"type": "gameState", "moves": "", "wtime": 60000, "btime": 60000, "winc": 3, "binc": 3,
                  "status": "started"},
    }


def test_whole_random_game_ends_with_game_end_and_no_state_for_the_final_move(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, "randy", limit_s=300, increment_s=2, color="white")
    seen = play_random_game(client, game_id, "MyBot", seed=3)
    record = sandbox.wait_game_over(game_id, timeout=10)
    assert record.status in ("mate", "stalemate", "draw")
    assert seen == record.moves[:-1]  # the game-ending move came only as gameEnd
    assert all(post.accepted for post in record.posts) and not record.duplicate_posts


def test_game_stream_stays_open_after_game_end(sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, "statue", color="white")
    stream = client.open_game_stream(game_id)
    lines = raw_lines(stream)
    assert next(lines) == PING and json.loads(next(lines))["type"] == "gameFull"
    assert client.post(f"/api/bot/game/{game_id}/abort").status_code == 200
    after = [line for line in (next(lines) for _ in range(3)) if line != PING]
    assert after == [b'{"type":"gameEnd","game":{"id":"%s"}}' % game_id.encode()]
    assert sandbox.open_streams("game", "mybot", game_id) == 1
    stream.close()


def test_illegal_move_is_answered_200_and_loses_at_once(sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, "statue", color="black")
    stream = client.open_game_stream(game_id)
    lines = json_lines(stream)
    next(lines)
    reply = client.post(f"/api/bot/game/{game_id}/move/e1e3")
    assert (reply.status_code, reply.json()) == (200, {"ok": True})
    assert next(lines) == {"type": "gameEnd", "game": {"id": game_id}}
    record = sandbox.game(game_id)
    assert (record.status, record.winner, record.moves) == ("illegalMove", "black", [])
    stream.close()


def test_move_out_of_turn_is_answered_200_and_ignored(sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, "statue", color="white")
    assert client.post(f"/api/bot/game/{game_id}/move/e7e5").status_code == 200
    record = sandbox.game(game_id)
    assert record.moves == [] and not record.over and record.posts == [("MyBot", "e7e5", False)]


def test_decline_reason_is_read_from_form_data_only(sandbox: Sandbox, client: ScriptedClient) -> None:
    by_form = sandbox.challenge("randy", "mybot")
    by_json = sandbox.challenge("randy", "mybot")
    assert client.post(f"/api/challenge/{by_form}/decline", data={"reason": "tooSlow"}).status_code == 200
    assert client.post(f"/api/challenge/{by_json}/decline", json={"reason": "tooSlow"}).status_code == 200
    assert [sandbox.decline_reason(cid) for cid in (by_form, by_json)] == ["tooSlow", "generic"]


def test_second_game_stream_while_the_first_counts_open_gets_a_raw_409_in_the_body(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, "statue", color="black")
    first = client.open_game_stream(game_id)
    first_lines = raw_lines(first)  # kept: dropping the generator would close the connection
    next(first_lines)
    second = client.open_game_stream(game_id)
    assert second.status_code == 200
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        next(second.iter_lines())
    assert sandbox.faults.drop_game_stream(game_id) == 1
    sandbox.wait_open_streams("game", "mybot", 0, timeout=5, game_id=game_id)  # the next ping notices
    third = client.open_game_stream(game_id)
    assert json.loads(next(line for line in raw_lines(third) if line != PING))["type"] == "gameFull"
    third.close()


def test_a_game_stream_refused_by_a_fault_gets_the_raw_409_with_no_stream_open(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, "statue", color="black")
    sandbox.faults.refuse_game_stream(game_id, 30)    # a killed bot's stream, still counted open
    refused = client.open_game_stream(game_id)
    assert refused.status_code == 200
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        next(refused.iter_lines())
    assert sandbox.faults.fired == [("refuse", "game")]
    with pytest.raises(ValueError):
        sandbox.faults.refuse_game_stream(game_id, 0)


def test_finished_game_stream_gets_409_and_a_very_short_one_404(sandbox: Sandbox, client: ScriptedClient) -> None:
    short = start_game(sandbox, client, "statue", color="black")
    client.post(f"/api/bot/game/{short}/abort")
    not_found = client.open_game_stream(short)
    assert not_found.status_code == 404 and "html" in not_found.headers["Content-Type"]
    longer = start_game(sandbox, client, "randy", color="white")
    sandbox.wait_moves(longer, 1, timeout=5)
    client.post(f"/api/bot/game/{longer}/move/e7e5")
    client.post(f"/api/bot/game/{longer}/resign")
    assert len(sandbox.game(longer).moves) >= 2
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        next(client.open_game_stream(longer).iter_lines())


def test_reconnect_resends_game_start_only_for_started_games_without_open_streams(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    first = client.open_event_stream()
    first_lines = json_lines(first)
    sandbox.challenge("randy", "mybot")  # an open challenge: never re-sent
    start_game(sandbox, client, "statue", color="white")  # no move yet: not re-sent
    moved = start_game(sandbox, client, "statue", color="black")
    client.post(f"/api/bot/game/{moved}/move/e2e4")
    watched = start_game(sandbox, client, "statue", color="black")
    client.post(f"/api/bot/game/{watched}/move/e2e4")
    watching = client.open_game_stream(watched)
    sandbox.wait_open_streams("game", "mybot", 1, timeout=5, game_id=watched)
    while next_of_type(first_lines, "gameStart")["game"]["id"] != watched:
        pass  # everything queued so far went out on the first stream
    first.close()
    sandbox.wait_open_streams("event", "mybot", 0, timeout=5)  # its next ping notices

    lines = json_lines(client.open_event_stream())
    assert next(lines) == {"type": "gameStart", "game": {"id": moved, "skill_level": "0", "chess960": "False"}}
    sentinel = sandbox.challenge("randy", "mybot")
    assert next(lines)["challenge"]["id"] == sentinel
    watching.close()


def test_resign_sends_the_resigner_no_game_end(sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, "statue", color="black")
    stream = client.open_game_stream(game_id)
    lines = raw_lines(stream)
    next(lines), next(lines)
    client.post(f"/api/bot/game/{game_id}/resign")
    assert sandbox.game(game_id).status == "resign"
    assert [next(lines) for _ in range(3)] == [PING] * 3
    stream.close()


def test_abort_is_allowed_after_many_moves(sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, "randy", color="black")
    for ply, uci in ((2, "e2e4"), (4, "d2d4")):
        client.post(f"/api/bot/game/{game_id}/move/{uci}")
        sandbox.wait_moves(game_id, ply, timeout=5)
    assert len(sandbox.game(game_id).moves) == 4
    assert client.post(f"/api/bot/game/{game_id}/abort").status_code == 200
    assert sandbox.game(game_id).status == "aborted"
    # The aborted game is gone: a goodbye to it is answered 404, as a real pychess server answered the bot's.
    assert client.post(f"/api/bot/game/{game_id}/chat", data={"room": "player", "text": "bye"}).status_code == 404


def test_bots_cannot_challenge_and_draw_endpoints_do_not_exist(sandbox: Sandbox, client: ScriptedClient) -> None:
    assert client.post("/api/challenge/randy", data={"variant": "knightmate"}).status_code == 403
    game_id = start_game(sandbox, client, "statue")
    assert client.post(f"/api/bot/game/{game_id}/draw/yes").status_code == 404
    assert client.post(f"/api/bot/game/{game_id}/claim-victory").status_code == 404


def test_chat_is_recorded_but_not_sent_to_bots(sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, "statue")
    stream = client.open_game_stream(game_id)
    lines = raw_lines(stream)
    next(lines), next(lines)
    assert client.post(f"/api/bot/game/{game_id}/chat", data={"room": "player", "text": "hi"}).status_code == 200
    assert [next(lines) for _ in range(2)] == [PING, PING]
    assert sandbox.game(game_id).chat == [("MyBot", "player", "hi")]
    stream.close()


def test_clock_is_not_charged_for_the_first_two_plies_then_flags(sandbox: Sandbox, client: ScriptedClient) -> None:
    sandbox.add_account("Other", token="tok-other")
    other = ScriptedClient(sandbox.url, "tok-other", pychess=True)
    cid = sandbox.challenge("other", "mybot", limit_s=1, increment_s=0, color="white")
    client.post(f"/api/challenge/{cid}/accept")
    game_id = sandbox.game_of_challenge(cid) or ""
    other.post(f"/api/bot/game/{game_id}/move/e2e4")
    client.post(f"/api/bot/game/{game_id}/move/e7e5")
    record = sandbox.game(game_id)
    assert (record.wtime_ms, record.btime_ms) == (1000, 1000)
    record = sandbox.wait_game_over(game_id, timeout=5)
    assert (record.status, record.winner) == ("outoftime", "black")


def test_a_dropped_event_stream_lingers_and_swallows_the_next_event() -> None:
    # A long keep-alive interval: the challenge must come within the dropped stream's linger time,
    # however slowly a loaded machine runs this test.
    with Sandbox("pychess", keepalive_s=60) as sandbox:
        sandbox.add_account("MyBot", token="tok-bot")
        sandbox.add_opponent("randy", strategy="random", accepts_challenges=False)
        client = ScriptedClient(sandbox.url, "tok-bot", pychess=True)
        events = client.open_event_stream()
        lines = raw_lines(events)  # kept: dropping the generator would close the connection
        next(lines)
        assert sandbox.faults.drop_event_stream("mybot") == 1
        lost = sandbox.challenge("randy", "mybot")
        sandbox.wait_open_streams("event", "mybot", 0, timeout=30)  # ended by swallowing it
        fresh = json_lines(client.open_event_stream())
        kept = sandbox.challenge("randy", "mybot")
        assert next_of_type(fresh, "challenge")["challenge"]["id"] == kept != lost


def test_shutdown_says_terminated_on_event_streams() -> None:
    sandbox = Sandbox("pychess", keepalive_s=5).start()
    sandbox.add_account("MyBot", token="tok-bot")
    events = ScriptedClient(sandbox.url, "tok-bot", pychess=True).open_event_stream()
    lines = raw_lines(events)
    assert next(lines) == PING
    sandbox.stop()
    assert next(lines) == b'{"type":"terminated"}'


def test_rematch_starts_a_game_with_game_start_and_no_challenge(sandbox: Sandbox, client: ScriptedClient) -> None:
    lines = json_lines(client.open_event_stream())
    game_id = sandbox.rematch("randy", "mybot", limit_s=60, increment_s=1, color="white")
    assert next(lines) == {"type": "gameStart", "game": {"id": game_id, "skill_level": "0", "chess960": "False"}}
    assert sandbox.wait_moves(game_id, 1, timeout=5).white == "randy"
