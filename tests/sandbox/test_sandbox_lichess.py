"""The sandbox in the Lichess dialect, over real HTTP on 127.0.0.1 (docs/api.md, the Lichess side)."""

from __future__ import annotations

import logging
import socket
import struct
import threading
import urllib.parse

import pytest

from bot.sandbox import Sandbox
from tests.helpers.sandbox_harness import (
    ScriptedClient,
    drain,
    json_lines,
    next_of_type,
    play_random_game,
    raw_lines,
    start_game,
)

MATE_IN_ONE_FEN = "Q4m2/8/2Pp3r/bP1b1pPp/7P/Q1PB2k1/P2B2P1/1M1RK1MR w - - 5 34"
MATING_MOVE = "d2f4"


pytestmark = pytest.mark.sandbox(keepalive_s=0.2, seed=7)


@pytest.fixture
def dialect() -> str:
    return "lichess"


def test_account_answers_the_lichess_shape_and_a_bad_token_gets_401(sandbox: Sandbox, client: ScriptedClient) -> None:
    account = client.get("/api/account").json()
    assert (account["id"], account["username"], account["title"]) == ("mybot", "MyBot", "BOT")
    assert "perfs" in account
    stranger = ScriptedClient(sandbox.url, "wrong-token")
    assert stranger.get("/api/account").status_code == 401
    assert stranger.open_event_stream().status_code == 401


def test_whole_random_game_ends_with_final_state_stream_close_and_game_finish(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    events = client.open_event_stream()
    lines = json_lines(events)
    cid = sandbox.challenge("randy", "mybot", limit_s=300, increment_s=2, color="black")
    challenge = next_of_type(lines, "challenge")["challenge"]
    assert challenge["id"] == cid
    assert challenge["challenger"] == {"id": "randy", "name": "randy", "rating": 1500, "provisional": False,
                                       "online": True, "title": "BOT"}
    assert challenge["timeControl"] == {"type": "clock", "limit": 300, "increment": 2, "show": "5+2"}
    assert challenge["variant"]["key"] == "knightmate" and challenge["speed"] == "blitz"
    assert client.post(f"/api/challenge/{cid}/accept").json() == {"ok": True}
    start = next_of_type(lines, "gameStart")["game"]
    assert start["color"] == "white" and start["isMyTurn"] is True and start["secondsLeft"] == 300

    seen = play_random_game(client, start["gameId"], "MyBot")

    record = sandbox.wait_game_over(start["gameId"], timeout=10)
    assert record.moves == seen
    assert record.status in ("mate", "stalemate", "draw")
    assert all(post.accepted for post in record.posts) and not record.duplicate_posts
    finish = next_of_type(lines, "gameFinish")["game"]
    assert finish["gameId"] == start["gameId"] and finish["status"]["name"] == record.status
    events.close()


def test_game_full_carries_lichess_fields_in_milliseconds(sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, limit_s=60, increment_s=3, color="white")
    stream = client.open_game_stream(game_id)
    full = next(json_lines(stream))
    assert full["type"] == "gameFull" and full["initialFen"] == "startpos"
    assert full["clock"] == {"initial": 60000, "increment": 3000}
    assert full["white"] == {"id": "randy", "name": "randy", "title": "BOT", "rating": 1500}
    assert full["black"]["id"] == "mybot"
    state = full["state"]
    assert (state["wtime"], state["btime"], state["winc"], state["binc"]) == (60000, 60000, 3000, 3000)
    assert state["status"] == "started"
    stream.close()


def test_keepalive_is_a_blank_line(sandbox: Sandbox, client: ScriptedClient) -> None:
    events = client.open_event_stream()
    first = next(raw_lines(events))
    assert first == b""
    events.close()


def test_illegal_move_and_move_out_of_turn_get_400_and_change_nothing(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    sandbox.add_opponent("statue", strategy="idle")
    cid = sandbox.challenge("statue", "mybot", color="black")
    client.post(f"/api/challenge/{cid}/accept")
    game_id = sandbox.game_of_challenge(cid)
    assert client.post(f"/api/bot/game/{game_id}/move/e1e3").status_code == 400  # a royal knight cannot
    assert client.post(f"/api/bot/game/{game_id}/move/zz99").status_code == 400
    assert client.post(f"/api/bot/game/{game_id}/move/e2e4").status_code == 200
    refused = client.post(f"/api/bot/game/{game_id}/move/e4e5")
    assert refused.status_code == 400 and "error" in refused.json()
    record = sandbox.game(game_id)
    assert record.moves == ["e2e4"] and not record.over
    assert [post.accepted for post in record.posts] == [False, False, True, False]


def test_reposting_the_last_move_is_recorded_as_a_duplicate(sandbox: Sandbox, client: ScriptedClient) -> None:
    sandbox.add_opponent("statue", strategy="idle")
    cid = sandbox.challenge("statue", "mybot", color="black")
    client.post(f"/api/challenge/{cid}/accept")
    game_id = sandbox.game_of_challenge(cid)
    client.post(f"/api/bot/game/{game_id}/move/e2e4")
    client.post(f"/api/bot/game/{game_id}/move/e2e4")
    record = sandbox.game(game_id)
    assert record.duplicate_posts == [("MyBot", "e2e4", False)]


def test_mating_move_ends_the_game_with_status_mate_and_winner(sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, color="black", initial_fen=MATE_IN_ONE_FEN)
    stream = client.open_game_stream(game_id)
    lines = json_lines(stream)
    assert next(lines)["initialFen"] == MATE_IN_ONE_FEN
    assert client.post(f"/api/bot/game/{game_id}/move/{MATING_MOVE}").status_code == 200
    final = next(lines)
    assert (final["status"], final["winner"], final["moves"]) == ("mate", "white", MATING_MOVE)
    assert drain(lines) == []  # Lichess closes the game stream after the final state
    record = sandbox.game(game_id)
    assert (record.status, record.winner) == ("mate", "white")


def test_reconnect_resends_open_challenges_and_unfinished_games(sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client)
    waiting = sandbox.challenge("randy", "mybot")
    events = client.open_event_stream()
    lines = json_lines(events)
    assert next(lines)["game"]["gameId"] == game_id
    assert next(lines)["challenge"]["id"] == waiting
    events.close()


def test_a_second_event_stream_closes_the_first(sandbox: Sandbox, client: ScriptedClient) -> None:
    first = client.open_event_stream()
    sandbox.wait_open_streams("event", "mybot", 1, timeout=5)
    second = ScriptedClient(sandbox.url, "tok-bot").open_event_stream()
    sandbox.wait_connections("event", "mybot", 2, timeout=5)
    assert [line for line in drain(raw_lines(first)) if line] == []  # ends cleanly
    second.close()


def test_decline_reason_is_read_from_form_and_json_bodies(sandbox: Sandbox, client: ScriptedClient) -> None:
    by_form = sandbox.challenge("randy", "mybot")
    by_json = sandbox.challenge("randy", "mybot")
    unknown = sandbox.challenge("randy", "mybot")
    assert client.post(f"/api/challenge/{by_form}/decline", data={"reason": "tooFast"}).status_code == 200
    assert client.post(f"/api/challenge/{by_json}/decline", json={"reason": "variant"}).status_code == 200
    assert client.post(f"/api/challenge/{unknown}/decline", data={"reason": "because"}).status_code == 200
    assert sandbox.wait_challenge_answered(by_form, timeout=1) == "declined"
    assert [sandbox.decline_reason(cid) for cid in (by_form, by_json, unknown)] == ["tooFast", "variant", "generic"]


def test_canceled_challenge_reaches_the_event_stream(sandbox: Sandbox, client: ScriptedClient) -> None:
    events = client.open_event_stream()
    lines = json_lines(events)
    cid = sandbox.challenge("randy", "mybot")
    assert next_of_type(lines, "challenge")["challenge"]["id"] == cid
    sandbox.cancel_challenge(cid)
    assert next_of_type(lines, "challengeCanceled")["challenge"]["id"] == cid
    assert client.post(f"/api/challenge/{cid}/accept").status_code == 404
    events.close()


def test_abort_is_allowed_only_before_both_sides_moved(sandbox: Sandbox, client: ScriptedClient) -> None:
    early = start_game(sandbox, client, color="black")
    assert client.post(f"/api/bot/game/{early}/abort").status_code == 200
    assert sandbox.game(early).status == "aborted"
    late = start_game(sandbox, client, color="white")
    record = sandbox.wait_moves(late, 1, timeout=5)
    board_move = "e7e5" if record.moves != ["e2e4"] else "d7d5"
    client.post(f"/api/bot/game/{late}/move/{board_move}")
    sandbox.wait_moves(late, 3, timeout=5)
    assert client.post(f"/api/bot/game/{late}/abort").status_code == 400
    assert client.post(f"/api/bot/game/{late}/resign").status_code == 200
    record = sandbox.game(late)
    assert (record.status, record.winner) == ("resign", "white")


def test_clock_flags_the_side_that_does_not_move(sandbox: Sandbox, client: ScriptedClient) -> None:
    sandbox.add_account("Other", token="tok-other")
    other = ScriptedClient(sandbox.url, "tok-other")
    cid = sandbox.challenge("other", "mybot", limit_s=1, increment_s=0, color="white")
    client.post(f"/api/challenge/{cid}/accept")
    game_id = sandbox.game_of_challenge(cid)
    assert other.post(f"/api/bot/game/{game_id}/move/e2e4").status_code == 200
    assert client.post(f"/api/bot/game/{game_id}/move/e7e5").status_code == 200
    record = sandbox.wait_game_over(game_id, timeout=5)  # white's clock now runs out
    assert (record.status, record.winner, record.wtime_ms) == ("outoftime", "black", 0)


def test_a_game_nobody_starts_ends_as_no_start() -> None:
    with Sandbox("lichess", first_move_timeout_s=0.3) as sandbox:
        sandbox.add_account("MyBot", token="tok-bot")
        sandbox.add_opponent("statue", strategy="idle")
        cid = sandbox.challenge("statue", "mybot", color="white")
        ScriptedClient(sandbox.url, "tok-bot").post(f"/api/challenge/{cid}/accept")
        game_id = sandbox.game_of_challenge(cid)
        assert game_id is not None
        assert sandbox.wait_game_over(game_id, timeout=5).status == "noStart"


def test_bot_challenge_is_accepted_for_knightmate_and_declined_for_other_variants(
        sandbox: Sandbox, client: ScriptedClient) -> None:
    created = client.post("/api/challenge/randy", data={"clock.limit": "60", "clock.increment": "1",
                                                        "variant": "knightmate", "color": "white"})
    assert created.status_code == 200 and created.json()["direction"] == "out"
    cid = created.json()["id"]
    assert sandbox.challenge_status(cid) == "accepted"
    assert sandbox.game(sandbox.game_of_challenge(cid) or "").white == "MyBot"
    events = client.open_event_stream()
    lines = json_lines(events)
    next_of_type(lines, "gameStart")  # the accepted challenge's game, re-sent on connect
    standard = client.post("/api/challenge/randy", data={"clock.limit": "60", "variant": "standard"}).json()
    assert (sandbox.challenge_status(standard["id"]), sandbox.decline_reason(standard["id"])) == ("declined", "variant")
    assert next_of_type(lines, "challenge")["challenge"]["id"] == standard["id"]  # outgoing challenges show too
    declined = next_of_type(lines, "challengeDeclined")["challenge"]
    assert (declined["id"], declined["declineReasonKey"]) == (standard["id"], "variant")
    events.close()
    assert client.post("/api/challenge/nobody", data={}).status_code == 404


def test_draw_offered_by_the_opponent_can_be_accepted(sandbox: Sandbox, client: ScriptedClient) -> None:
    sandbox.add_opponent("statue", strategy="idle")
    game_id = start_game(sandbox, client, "statue", color="black")
    lines = json_lines(client.open_game_stream(game_id))
    next(lines)
    sandbox.offer_draw(game_id, "statue")
    assert next(lines)["bdraw"] is True
    assert client.post(f"/api/bot/game/{game_id}/draw/yes").status_code == 200
    final = next(lines)
    assert final["status"] == "draw" and "winner" not in final
    assert client.post(f"/api/bot/game/{game_id}/claim-victory").status_code == 400


def test_chat_is_recorded_and_echoed_as_chat_line(sandbox: Sandbox, client: ScriptedClient) -> None:
    sandbox.add_opponent("statue", strategy="idle")
    game_id = start_game(sandbox, client, "statue", color="black")
    stream = client.open_game_stream(game_id)
    lines = json_lines(stream)
    next(lines)
    assert client.post(f"/api/bot/game/{game_id}/chat", data={"room": "player", "text": "gl hf"}).status_code == 200
    assert next(lines) == {"type": "chatLine", "room": "player", "username": "MyBot", "text": "gl hf"}
    assert client.post(f"/api/bot/game/{game_id}/chat", data={"room": "lobby", "text": "x"}).status_code == 400
    sandbox.say(game_id, "statue", "hello")
    assert next(lines) == {"type": "chatLine", "room": "player", "username": "statue", "text": "hello"}
    assert sandbox.game(game_id).chat == [("MyBot", "player", "gl hf"), ("statue", "player", "hello")]
    stream.close()


def test_upgrade_makes_a_fresh_account_a_bot_once(sandbox: Sandbox) -> None:
    sandbox.add_account("Human", token="tok-human", bot=False)
    human = ScriptedClient(sandbox.url, "tok-human")
    assert "title" not in human.get("/api/account").json()
    assert human.post("/api/bot/account/upgrade").status_code == 200
    assert human.get("/api/account").json()["title"] == "BOT"
    assert human.post("/api/bot/account/upgrade").status_code == 400


def test_finished_game_stream_gives_game_full_and_closes(sandbox: Sandbox, client: ScriptedClient) -> None:
    game_id = start_game(sandbox, client, color="black")
    client.post(f"/api/bot/game/{game_id}/abort")
    lines = list(json_lines(client.open_game_stream(game_id)))
    assert [line["type"] for line in lines] == ["gameFull"]
    assert lines[0]["state"]["status"] == "aborted"


def test_engine_opponent_plays_legal_moves(sandbox: Sandbox, client: ScriptedClient) -> None:
    sandbox.add_opponent("engine", strategy="engine")
    cid = sandbox.challenge("engine", "mybot", color="white")
    client.post(f"/api/challenge/{cid}/accept")
    game_id = sandbox.game_of_challenge(cid) or ""
    record = sandbox.wait_moves(game_id, 1, timeout=10)
    assert len(record.moves) == 1 and record.white == "engine"


def test_gone_opponent_is_announced_and_its_game_can_be_claimed_after_the_wait() -> None:
    with Sandbox("lichess", keepalive_s=5, gone_claim_s=1.0) as sandbox:
        sandbox.add_account("MyBot", token="tok-bot")
        sandbox.add_opponent("leaver", strategy="gone")
        client = ScriptedClient(sandbox.url, "tok-bot")
        cid = sandbox.challenge("leaver", "mybot", color="black")
        client.post(f"/api/challenge/{cid}/accept")
        game_id = sandbox.game_of_challenge(cid) or ""
        lines = json_lines(client.open_game_stream(game_id))
        assert next(lines)["type"] == "gameFull"
        gone = next(lines)
        assert gone == {"type": "opponentGone", "gone": True, "claimWinInSeconds": 1}
        assert client.post(f"/api/bot/game/{game_id}/claim-victory").status_code == 400
        assert next(lines) == {"type": "opponentGone", "gone": True, "claimWinInSeconds": 0}
        assert client.post(f"/api/bot/game/{game_id}/claim-victory").status_code == 200
        final = next(lines)
        assert (final["status"], final["winner"]) == ("timeout", "white")


def test_unlimited_and_correspondence_challenges_say_so(sandbox: Sandbox, client: ScriptedClient) -> None:
    events = client.open_event_stream()
    lines = json_lines(events)
    sandbox.challenge("randy", "mybot", limit_s=None)
    sandbox.challenge("randy", "mybot", limit_s=None, days=3)
    unlimited = next_of_type(lines, "challenge")["challenge"]
    correspondence = next_of_type(lines, "challenge")["challenge"]
    assert (unlimited["timeControl"], unlimited["speed"]) == ({"type": "unlimited"}, "unlimited")
    assert correspondence["timeControl"] == {"type": "correspondence", "daysPerTurn": 3}
    events.close()


def test_bad_challenges_from_the_control_api_are_refused_with_a_clear_error(sandbox: Sandbox) -> None:
    with pytest.raises(ValueError, match="color"):
        sandbox.challenge("randy", "mybot", color="green")
    with pytest.raises(ValueError, match="no account"):
        sandbox.challenge("nobody", "mybot")
    with pytest.raises(ValueError):
        sandbox.challenge("randy", "mybot", initial_fen="not a fen")
    with pytest.raises(ValueError, match="no challenge"):
        sandbox.wait_challenge_answered("nope", timeout=1)
    with pytest.raises(ValueError, match="no game"):
        sandbox.wait_game_over("nope", timeout=1)


def test_stop_ends_open_streams_and_joins_every_thread() -> None:
    before = set(threading.enumerate())
    sandbox = Sandbox("lichess", keepalive_s=5).start()
    sandbox.add_account("MyBot", token="tok-bot")
    sandbox.add_opponent("statue", strategy="idle")
    client = ScriptedClient(sandbox.url, "tok-bot")
    cid = sandbox.challenge("statue", "mybot", color="white")
    client.post(f"/api/challenge/{cid}/accept")
    events = client.open_event_stream()
    game = client.open_game_stream(sandbox.game_of_challenge(cid) or "")
    sandbox.wait_open_streams("game", "mybot", 1, timeout=5)
    sandbox.stop()
    assert set(threading.enumerate()) - before == set()
    events.close()
    game.close()


def test_a_client_gone_mid_request_is_a_debug_line_not_a_traceback(
        sandbox: Sandbox, capfd: pytest.CaptureFixture[str]) -> None:
    noted = threading.Event()

    class Noted(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "went away mid-request" in record.getMessage():
                noted.set()

    log = logging.getLogger("bot.httpd")
    handler, level = Noted(logging.DEBUG), log.level
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    try:
        address = urllib.parse.urlsplit(sandbox.url)
        with socket.create_connection((address.hostname, address.port)) as connection:
            # A move whose body never comes, then a reset: the server is left reading the body.
            connection.sendall(b"POST /api/bot/game/g1/move/e2e4 HTTP/1.1\r\nHost: x\r\n"
                               b"Authorization: Bearer tok-bot\r\nContent-Length: 100\r\n\r\nabc")
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        assert noted.wait(10)
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
    assert "Traceback" not in capfd.readouterr().err
    assert ScriptedClient(sandbox.url, "tok-bot").get("/api/account").status_code == 200
