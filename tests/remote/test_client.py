"""bot.remote.wire and bot.remote.client against recorded lines and a tiny scripted HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import queue
import threading
import time
from urllib.parse import parse_qs

import pytest

from bot.config import GameSettings, Secret, ServerSettings
from bot.dialect import LICHESS, PYCHESS
from bot.remote.client import Backoff, Client, ClientError, GameStreamLost, MoveOutcome
from bot.remote.events import (
    ChallengeReceived,
    ChatLine,
    GameEnded,
    GameFull,
    GameStarted,
    GameState,
    KeepAlive,
    OpponentGone,
    ServerShutdown,
)
from bot.remote.wire import MalformedLine, parse_event_line, parse_game_line
from tests.helpers.fake_server import MOVE, TOKEN, FakeServer, Handler, answer, make_client, sequence

# -- recorded lines -----------------------------------------------------------------------------

LICHESS_CHALLENGE = json.dumps({"type": "challenge", "challenge": {
    "id": "c1", "challenger": {"id": "bob", "name": "Bob", "rating": 1500, "title": "BOT"},
    "variant": {"key": "knightmate", "name": "Knightmate"}, "rated": True, "speed": "blitz",
    "timeControl": {"type": "clock", "limit": 180, "increment": 2}, "color": "random",
    "initialFen": "startpos"}})
PYCHESS_CHALLENGE = json.dumps({"type": "challenge", "challenge": {
    "id": "c2", "challenger": {"name": "Alice", "rating": 1600, "title": ""},
    "variant": {"key": "knightmate"}, "rated": False, "speed": "rapid",
    "timeControl": {"type": "clock", "limit": 600, "increment": 5}, "color": "white",
    "level": 0, "chess960": False}})
PYCHESS_GAME_FULL = json.dumps({"type": "gameFull", "id": "g1", "variant": {"name": "knightmate"},
    "white": {"name": "mybot"}, "black": {"name": "Alice"}, "initialFen": "",
    "state": {"type": "gameState", "moves": "e2e4 e7e5", "wtime": 59000, "btime": 60000,
              "winc": 2, "binc": 2, "status": "started"}})
LICHESS_GAME_FULL = json.dumps({"type": "gameFull", "id": "g2", "variant": {"key": "knightmate"},
    "white": {"id": "bob", "name": "Bob", "title": "BOT", "rating": 1500},
    "black": {"id": "mybot", "name": "MyBot", "title": "BOT"}, "initialFen": "startpos", "rated": True,
    "clock": {"initial": 60000, "increment": 1000},
    "state": {"type": "gameState", "moves": "", "wtime": 60000, "btime": 60000, "winc": 1000,
              "binc": 1000, "status": "started"}})


def test_lichess_challenge_times_become_milliseconds() -> None:
    event = parse_event_line(LICHESS, LICHESS_CHALLENGE)
    assert isinstance(event, ChallengeReceived)
    challenge = event.challenge
    assert (challenge.id, challenge.challenger, challenge.challenger_is_bot) == ("c1", "Bob", True)
    assert (challenge.variant, challenge.rated, challenge.time_control) == ("knightmate", True, "clock")
    assert (challenge.base_ms, challenge.increment_ms, challenge.initial_fen) == (180_000, 2_000, None)


def test_pychess_challenge_without_challenger_id_uses_the_name() -> None:
    event = parse_event_line(PYCHESS, PYCHESS_CHALLENGE)
    assert isinstance(event, ChallengeReceived)
    assert event.challenge.challenger == "Alice"
    assert not event.challenge.challenger_is_bot
    assert (event.challenge.base_ms, event.challenge.increment_ms) == (600_000, 5_000)


@pytest.mark.parametrize(("line", "rating"), [(LICHESS_CHALLENGE, 1500), (PYCHESS_CHALLENGE, 1600)])
def test_the_challengers_rating_is_read_in_both_dialects(line: str, rating: int) -> None:
    event = parse_event_line(LICHESS if line is LICHESS_CHALLENGE else PYCHESS, line)
    assert isinstance(event, ChallengeReceived) and event.challenge.challenger_rating == rating


@pytest.mark.parametrize("rating", [None, "1500?", True, -5, 10**9])
def test_an_odd_challenger_rating_is_dropped_not_the_challenge(rating: object) -> None:
    document = json.loads(PYCHESS_CHALLENGE)
    document["challenge"]["challenger"]["rating"] = rating
    event = parse_event_line(PYCHESS, json.dumps(document))
    assert isinstance(event, ChallengeReceived) and event.challenge.challenger_rating is None


def test_pychess_increments_in_seconds_become_milliseconds_and_empty_fen_is_the_start() -> None:
    event = parse_game_line(PYCHESS, PYCHESS_GAME_FULL)
    assert isinstance(event, GameFull)
    assert event.initial_fen is None
    assert event.white.name == "mybot" and event.white.id is None
    assert event.state.moves == ("e2e4", "e7e5")
    assert (event.state.wtime_ms, event.state.winc_ms, event.state.binc_ms) == (59_000, 2_000, 2_000)


def test_lichess_increments_are_already_milliseconds_and_startpos_is_the_start() -> None:
    event = parse_game_line(LICHESS, LICHESS_GAME_FULL)
    assert isinstance(event, GameFull)
    assert event.initial_fen is None and event.white.title == "BOT"
    assert (event.base_ms, event.increment_ms, event.state.winc_ms) == (60_000, 1_000, 1_000)
    assert event.state.moves == ()


def test_custom_start_fen_is_kept() -> None:
    fen = "rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq - 0 1"
    line = json.dumps({**json.loads(PYCHESS_GAME_FULL), "initialFen": fen})
    event = parse_game_line(PYCHESS, line)
    assert isinstance(event, GameFull) and event.initial_fen == fen


@pytest.mark.parametrize("line", [b"", b"\n", b'{"type":"ping"}'])
def test_keep_alives_of_both_dialects_are_keep_alive_events(line: bytes) -> None:
    assert parse_event_line(PYCHESS, line) == KeepAlive()
    assert parse_game_line(LICHESS, line) == KeepAlive()


@pytest.mark.parametrize(("line", "expected"), [
    ('{"type":"gameStart","game":{"id":"g1","skill_level":"6","chess960":"False"}}', GameStarted("g1")),
    ('{"type":"gameStart","game":{"gameId":"g2","id":"g2","color":"white"}}', GameStarted("g2")),
    ('{"type":"challengeCanceled","challenge":{"id":"c9"}}', None),   # nothing for the bot to do
    ('{"type":"challengeDeclined","challenge":{"id":"c9"}}', None),
    ('{"type":"gameFinish","game":{"id":"g1"}}', None),                # the game's own stream says so
    ('{"type":"terminated"}', ServerShutdown()),
    ('{"type":"somethingNew","x":1}', None),
])
def test_event_stream_lines(line: str, expected: object) -> None:
    assert parse_event_line(LICHESS, line) == expected


def test_game_stream_side_events() -> None:
    assert parse_game_line(PYCHESS, '{"type":"gameEnd","game":{"id":"g1"}}') == GameEnded()
    assert parse_game_line(LICHESS, '{"type":"opponentGone","gone":true,"claimWinInSeconds":7}') == \
        OpponentGone(True, 7)
    assert parse_game_line(LICHESS, '{"type":"chatLine","room":"player","username":"a","text":"hi"}') == \
        ChatLine("player", "a", "hi")


@pytest.mark.parametrize("line", [b"garbage{", b"[1,2]", b'{"type":"gameState","moves":"e2e4"}',
                                  b'{"type":"gameStart","game":{}}'])
def test_malformed_lines_raise_malformed_line(line: bytes) -> None:
    with pytest.raises(MalformedLine):
        parse_game_line(LICHESS, line)
        parse_event_line(LICHESS, line)


def test_game_state_with_terminal_status_is_over() -> None:
    line = '{"type":"gameState","moves":"","wtime":1,"btime":1,"winc":0,"binc":0,"status":"mate","winner":"white"}'
    state = parse_game_line(LICHESS, line)
    assert isinstance(state, GameState) and state.is_over and state.winner == "white"


def test_backoff_grows_to_the_cap_with_jitter() -> None:
    backoff = Backoff(1.0, 8.0)
    delays = [backoff.next_delay() for _ in range(6)]
    for delay, nominal in zip(delays, [1, 2, 4, 8, 8, 8], strict=True):
        assert nominal * 0.5 <= delay <= nominal
    backoff.reset()
    assert backoff.next_delay() <= 1.0


# -- against the scripted server ----------------------------------------------------------------

def test_decline_sends_the_reason_as_a_form_field(server: FakeServer) -> None:
    server.routes[("POST", "/api/challenge/c1/decline")] = answer(200)
    make_client(server, "pychess").decline("c1", "variant")
    (method, _, headers, body) = server.requests[0]
    assert headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert parse_qs(body.decode()) == {"reason": ["variant"]}
    assert headers["Authorization"] == f"Bearer {TOKEN}"


def test_chat_is_form_encoded_for_the_player_room(server: FakeServer) -> None:
    server.routes[("POST", "/api/bot/game/g1/chat")] = answer(200)
    make_client(server).chat("g1", "good luck")
    assert parse_qs(server.requests[0][3].decode()) == {"room": ["player"], "text": ["good luck"]}


def test_pychess_event_stream_carries_the_capability_header(server: FakeServer) -> None:
    def stream(handler: Handler) -> None:
        handler.start_stream()
        handler.write_line('{"type":"gameStart","game":{"id":"g7"}}')
        handler.end_stream()
    server.routes[("GET", "/api/stream/event")] = stream
    client = make_client(server, "pychess")
    assert next(client.events()) == GameStarted("g7")
    client.close()
    capabilities = json.loads(server.requests[0][2]["X-PyChess-Bot-Capabilities"])
    assert capabilities == {"version": 1, "variants": ["knightmate"]}


def test_move_with_draw_offer_uses_the_query_parameter(server: FakeServer) -> None:
    server.routes[("POST", MOVE)] = answer(200)
    assert make_client(server).post_move("g1", "e2e4", offering_draw=True) is MoveOutcome.LANDED
    assert server.requests[0][1] == MOVE + "?offeringDraw=true"


def test_move_after_429_waits_retry_after_then_lands_once(server: FakeServer) -> None:
    server.routes[("POST", MOVE)] = sequence(answer(429, b"<html>slow down</html>", {"Retry-After": "0.5"}),
                                             answer(200))
    client = make_client(server)
    started = time.monotonic()
    assert client.post_move("g1", "e2e4") is MoveOutcome.LANDED
    assert time.monotonic() - started >= 0.5
    assert len(server.posts(MOVE)) == 2


def test_429_without_retry_after_pauses_the_endpoint_for_the_configured_time(server: FakeServer) -> None:
    server.routes[("POST", MOVE)] = answer(429, b"<html>slow down</html>")
    client = make_client(server, rate_limit_pause_s=60.0)
    outcome: list[MoveOutcome] = []
    thread = threading.Thread(target=lambda: outcome.append(client.post_move("g1", "e2e4")))
    thread.start()
    thread.join(0.5)
    assert thread.is_alive() and 55 < client.rate_limits.remaining("move") <= 60
    assert len(server.posts(MOVE)) == 1
    client.close()
    thread.join(2)
    assert outcome == [MoveOutcome.ABANDONED]


def test_move_after_5xx_is_posted_again_until_it_lands(server: FakeServer) -> None:
    server.routes[("POST", MOVE)] = sequence(answer(502), answer(503), answer(500), answer(200))
    assert make_client(server).post_move("g1", "e2e4") is MoveOutcome.LANDED
    assert len(server.posts(MOVE)) == 4


def test_move_retries_stop_when_the_game_no_longer_wants_it(server: FakeServer) -> None:
    game_over = threading.Event()

    def unavailable(handler: Handler) -> None:
        if len(server.posts(MOVE)) == 3:
            game_over.set()
        handler.reply(503)
    server.routes[("POST", MOVE)] = unavailable
    assert make_client(server).post_move("g1", "e2e4", cancel=game_over) is MoveOutcome.ABANDONED
    assert len(server.posts(MOVE)) == 3


def test_move_refused_with_400_is_rejected_not_retried(server: FakeServer) -> None:
    server.routes[("POST", MOVE)] = answer(400, b'{"error":"Not your turn, or game already over"}')
    assert make_client(server).post_move("g1", "e2e4") is MoveOutcome.REJECTED
    assert len(server.posts(MOVE)) == 1


def test_move_whose_answer_is_lost_is_uncertain_and_not_posted_again(server: FakeServer) -> None:
    server.routes[("POST", MOVE)] = lambda handler: server.release.wait(5)
    client = make_client(server, read_timeout_s=0.3)
    assert client.post_move("g1", "e2e4") is MoveOutcome.UNCERTAIN
    assert len(server.posts(MOVE)) == 1


def test_failed_call_message_names_status_but_never_the_token(server: FakeServer) -> None:
    server.routes[("GET", "/api/account")] = answer(401, json.dumps({"error": "No such token"}).encode())
    client = make_client(server)
    with pytest.raises(ClientError) as caught:
        client.account()
    assert caught.value.status == 401
    assert TOKEN not in str(caught.value) and TOKEN not in repr(caught.value)
    assert TOKEN not in repr(client) and TOKEN not in repr(client.session)


def test_event_stream_reconnects_after_silence_and_drop_and_skips_garbage(server: FakeServer) -> None:
    connections = []

    def stream(handler: Handler) -> None:
        connections.append(1)
        handler.start_stream()
        if len(connections) == 1:
            handler.write_line("")                      # keep-alive, then silence
            server.release.wait(5)
        elif len(connections) == 2:
            handler.write_line("{not json")
            handler.write_line('{"type":"gameStart","game":{"id":"g2"}}')
            handler.end_stream()                        # dropped by the server
        else:
            handler.write_line('{"type":"gameStart","game":{"id":"g3"}}')
            server.release.wait(5)
    server.routes[("GET", "/api/stream/event")] = stream
    client = make_client(server, read_timeout_s=0.3)
    events = client.events()
    assert next(events) == KeepAlive()
    assert next(events) == GameStarted("g2")
    assert next(events) == GameStarted("g3")
    client.close()
    assert len(connections) == 3


def test_close_interrupts_a_blocked_stream_read_promptly(server: FakeServer) -> None:
    second_line = threading.Event()

    def stream(handler: Handler) -> None:
        handler.start_stream()
        handler.write_line("")
        second_line.wait(10)
        handler.write_line("")
        server.release.wait(10)
    server.routes[("GET", "/api/stream/event")] = stream
    client = make_client(server, read_timeout_s=30.0)
    events = client.events()
    assert next(events) == KeepAlive()
    received: queue.Queue[object] = queue.Queue()
    finished = threading.Event()

    def read_all() -> None:
        for event in events:
            received.put(event)
        finished.set()
    thread = threading.Thread(target=read_all)
    thread.start()
    # Once the reader thread has taken the second line it goes straight back to a blocking read,
    # which is the hard case for close(); closing before any read is the easy one.
    second_line.set()
    assert received.get(timeout=5) == KeepAlive()
    started = time.monotonic()
    client.close()
    assert finished.wait(3)
    assert time.monotonic() - started < 3


def conflict_in_body(handler: Handler) -> None:
    """pychess's answer to a second stream: 200, chunked, then a raw 409 response in the body."""
    handler.start_stream()
    handler.wfile.write(b"HTTP/1.1 409 Conflict\r\nContent-Length: 0\r\n\r\n")
    handler.wfile.flush()
    handler.close_connection = True


def test_pychess_409_inside_a_200_is_retried_until_the_stream_opens(server: FakeServer) -> None:
    def good(handler: Handler) -> None:
        handler.start_stream()
        handler.write_line(PYCHESS_GAME_FULL)
        server.release.wait(5)
    server.routes[("GET", "/api/bot/game/stream/g1")] = sequence(conflict_in_body, conflict_in_body, good)
    client = make_client(server, "pychess")
    event = next(client.game_events("g1", threading.Event()))
    client.close()
    assert isinstance(event, GameFull) and event.id == "g1"
    assert len(server.requests) == 3


def test_game_stream_broken_for_too_long_is_given_up(server: FakeServer) -> None:
    server.routes[("GET", "/api/bot/game/stream/g1")] = conflict_in_body
    client = make_client(server, "pychess", give_up_after_s=0.5)
    with pytest.raises(GameStreamLost, match="could not be reopened"):
        next(client.game_events("g1", threading.Event()))
    assert len(server.requests) >= 3


def test_game_stream_404_is_given_up_at_once(server: FakeServer) -> None:
    client = make_client(server, "pychess")
    with pytest.raises(GameStreamLost, match="404"):
        next(client.game_events("gone", threading.Event()))
    assert len(server.requests) == 1


def test_chat_on_a_paused_endpoint_is_skipped_at_once_not_waited_for(server: FakeServer) -> None:
    server.routes[("POST", "/api/bot/game/g1/chat")] = answer(429, b"<html>slow down</html>")
    client = make_client(server, rate_limit_pause_s=60.0)
    with pytest.raises(ClientError):
        client.chat("g1", "hello")
    started = time.monotonic()
    with pytest.raises(ClientError, match="paused"):
        client.chat("g1", "hello again")
    assert time.monotonic() - started < 1
    assert len(server.posts("/api/bot/game/g1/chat")) == 1


def test_move_whose_connection_drops_after_sending_is_uncertain(server: FakeServer) -> None:
    def hang_up(handler: Handler) -> None:
        handler.close_connection = True
        handler.connection.shutdown(2)
    server.routes[("POST", MOVE)] = hang_up
    assert make_client(server).post_move("g1", "e2e4") is MoveOutcome.UNCERTAIN
    assert len(server.posts(MOVE)) == 1


def test_move_to_a_server_that_refuses_connections_is_tried_again() -> None:
    settings = ServerSettings(url="http://127.0.0.1:9", dialect="lichess", connect_timeout_s=1.0,
                              backoff_initial_s=0.01, backoff_max_s=0.02)
    game_over = GivenUpAfterWaits(3)
    client = Client(settings, Secret(TOKEN), give_up_after_s=GameSettings().give_up_after_s)
    assert client.post_move("g1", "e2e4", cancel=game_over) is MoveOutcome.ABANDONED
    assert game_over.waits == 3


class GivenUpAfterWaits(threading.Event):
    """A game that gives its move up after the move's ``count``-th backoff wait."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count
        self.waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        if self.waits >= self.count:
            self.set()
        return self.is_set()
