"""bot.remote.wire and bot.remote.client against a server that misbehaves: lines outside the parser's contract,
huge lines, endless Retry-After, ids that are paths, streams that hang up after one line."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import pytest

from bot.config import GameSettings, Secret, ServerSettings
from bot.dialect import LICHESS, PYCHESS
from bot.remote.client import MAX_RETRY_AFTER_S, Client, ClientError, GameStreamLost, MoveOutcome, split_lines
from bot.remote.events import ChallengeReceived, ChatLine, GameStarted, GameState, OpponentGone
from bot.remote.wire import MalformedLine, parse_event_line, parse_game_line
from tests.helpers.fake_server import MOVE, TOKEN, FakeServer, Handler, answer, make_client, sequence


def state_line(**fields: object) -> str:
    data: dict[str, object] = {"type": "gameState", "moves": "", "wtime": 1000, "btime": 1000, "winc": 0,
                               "binc": 0, "status": "started"}
    data.update(fields)
    return json.dumps(data)


# -- lines outside the parser's contract --------------------------------------------------------

HOSTILE_GAME_LINES = [
    state_line().replace('"wtime": 1000', '"wtime": 1e400'),          # float('inf') -> OverflowError
    state_line().replace('"wtime": 1000', '"wtime": Infinity'),
    state_line().replace('"wtime": 1000', '"wtime": NaN'),
    state_line().replace('"wtime": 1000', '"wtime": 1' + "0" * 400),  # an int too big for a float
    '{"type":"opponentGone","gone":true,"claimWinInSeconds":1e400}',
    '{"type":"opponentGone","gone":true,"claimWinInSeconds":-5}',
    '{"type":"gameFull","id":"g1","white":{"name":"a"},"black":{"name":"b"},"clock":{"initial":1e400},'
    '"state":' + state_line() + '}',
    state_line(wdraw="maybe"),
    '{"type":"gameFull","id":"../../account","white":{"name":"a"},"black":{"name":"b"},"state":'
    + state_line() + '}',
    '{"type":"chatLine","text":' + "[" * 100_000 + "]" * 100_000 + '}',   # RecursionError
]


@pytest.mark.parametrize("line", HOSTILE_GAME_LINES)
def test_hostile_game_lines_are_malformed_lines(line: str) -> None:
    with pytest.raises(MalformedLine):
        parse_game_line(LICHESS, line)


def test_nesting_is_refused_past_its_bound_and_brackets_inside_strings_do_not_nest() -> None:
    chat = '{"type":"chatLine","username":"u","room":"player","text":"' + "[{" * 200 + '\\"["}'
    assert parse_game_line(LICHESS, chat) is not None
    nested = '{"type":"chatLine","username":"u","room":"player","text":"x","more":' + "[" * 31 + "]" * 31 + "}"
    assert parse_game_line(LICHESS, nested) is not None
    with pytest.raises(MalformedLine, match="nested deeper than 32"):
        parse_game_line(LICHESS, nested.replace("[", "[[", 1).replace("]", "]]", 1))


HOSTILE_EVENT_LINES = [
    '{"type":"challenge","challenge":{"id":"c1","timeControl":{"type":"clock","limit":1e400,"increment":0}}}',
    '{"type":"challenge","challenge":{"id":"c1","timeControl":{"type":"clock","limit":Infinity}}}',
    '{"type":"challenge","challenge":{"id":"c1","rated":"perhaps"}}',
    '{"type":"challenge","challenge":{"id":"c/1"}}',
    '{"type":"gameStart","game":{"id":"../../account"}}',
    '{"type":"gameStart","game":{"id":"g1?x=1"}}',
    '{"type":"gameStart","game":{"id":true}}',
    '{"type":"gameStart","game":' + "[" * 100_000 + "]" * 100_000 + '}',
]


@pytest.mark.parametrize("line", HOSTILE_EVENT_LINES)
def test_hostile_event_lines_are_malformed_lines(line: str) -> None:
    with pytest.raises(MalformedLine):
        parse_event_line(PYCHESS, line)


def test_booleans_sent_as_strings_mean_what_they_say() -> None:
    # pychess sends "chess960": "False"; bool("False") is True.
    assert parse_game_line(PYCHESS, state_line(wdraw="False", bdraw="False")) == \
        GameState((), 1000, 1000, 0, 0, "started", None, False, False)
    assert parse_game_line(PYCHESS, state_line(bdraw="True")) == \
        GameState((), 1000, 1000, 0, 0, "started", None, False, True)
    assert parse_game_line(LICHESS, '{"type":"opponentGone","gone":"False"}') == OpponentGone(False, None)
    event = parse_event_line(PYCHESS, '{"type":"challenge","challenge":{"id":"c1","rated":"False",'
                                        '"chess960":"False","timeControl":{"type":"clock","limit":60}}}')
    assert isinstance(event, ChallengeReceived) and event.challenge.rated is False


def test_a_hostile_challenge_line_is_skipped_without_reopening_the_event_stream(server: FakeServer) -> None:
    connections = []

    def stream(handler: Handler) -> None:
        connections.append(1)
        handler.start_stream()
        for line in HOSTILE_EVENT_LINES:
            handler.write_line(line)
        handler.write_line('{"type":"gameStart","game":{"id":"g2"}}')
        server.release.wait(5)
    server.routes[("GET", "/api/stream/event")] = stream
    client = make_client(server, "pychess")
    assert next(client.events()) == GameStarted("g2")
    client.close()
    assert len(connections) == 1


# -- long lines ---------------------------------------------------------------------------------

def test_lines_are_split_across_chunks_of_any_size() -> None:
    data = b'{"a":1}\n\n{"b":2}\r\n{"c":3}'
    for size in (1, 2, 3, 7, 100):
        chunks = [data[start:start + size] for start in range(0, len(data), size)]
        assert list(split_lines(chunks)) == [b'{"a":1}', b"", b'{"b":2}\r', b'{"c":3}']


def test_an_over_long_line_is_one_none_and_the_next_line_is_read() -> None:
    chunks = [b"ok\n", b"x" * 10, b"x" * 10, b"x\nnext\n"]
    assert list(split_lines(chunks, max_bytes=15)) == [b"ok", None, b"next"]
    assert list(split_lines([b"x" * 16 + b"\nnext\n"], max_bytes=15)) == [None, b"next"]
    assert list(split_lines([b"x" * 15 + b"\n"], max_bytes=15)) == [b"x" * 15]


def test_a_one_megabyte_line_costs_little_and_is_skipped(server: FakeServer) -> None:
    # iter_lines(chunk_size=1) took minutes of CPU on such a line.
    def stream(handler: Handler) -> None:
        handler.start_stream()
        handler.write_line(json.dumps({"type": "chatLine", "room": "player", "username": "x", "text": "y" * 1_000_000}))
        handler.write_line('{"type":"chatLine","room":"player","username":"a","text":"after"}')
        server.release.wait(10)
    server.routes[("GET", "/api/bot/game/stream/g1")] = stream
    client = make_client(server)
    events: list[object] = []
    thread = threading.Thread(target=lambda: events.append(next(client.game_events("g1", threading.Event()))),
                              daemon=True)
    started = time.process_time()
    thread.start()
    thread.join(20)
    client.close()
    assert events == [ChatLine("player", "a", "after")]
    assert time.process_time() - started < 5


def test_a_stream_without_chunked_encoding_hands_over_each_line_at_once(server: FakeServer) -> None:
    def stream(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/x-ndjson")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(b'{"type":"gameStart","game":{"id":"g4"}}\n')
        handler.wfile.flush()
        server.release.wait(10)     # the connection stays open: the line must not wait for more bytes
        handler.close_connection = True
    server.routes[("GET", "/api/stream/event")] = stream
    client = make_client(server, read_timeout_s=5.0)
    started = time.monotonic()
    assert next(client.events()) == GameStarted("g4")
    # Well before the read timeout (5 s) and the server's hold (10 s): the client did not wait
    # for more bytes. (The line can arrive before the handler's thread runs on after its flush,
    # so no event set after the write proves anything here.)
    assert time.monotonic() - started < 3
    client.close()


# -- Retry-After and waits ----------------------------------------------------------------------

@pytest.mark.parametrize("retry_after", ["inf", "3600", "1e400"])
def test_retry_after_is_capped_and_a_game_that_ended_wakes_from_the_pause(server: FakeServer,
                                                                          retry_after: str) -> None:
    answered = threading.Event()

    def slow_down(handler: Handler) -> None:
        handler.reply(429, b"slow down", {"Retry-After": retry_after})
        answered.set()
    server.routes[("POST", MOVE)] = slow_down
    client = make_client(server)
    game_over = threading.Event()
    outcome: list[MoveOutcome] = []
    thread = threading.Thread(target=lambda: outcome.append(client.post_move("g1", "e2e4", cancel=game_over)))
    thread.start()
    assert answered.wait(5)
    thread.join(0.5)            # past the short backoff after a failed post: now in the 429 pause
    assert thread.is_alive()
    assert 0 < client.rate_limits.remaining("move") <= MAX_RETRY_AFTER_S
    game_over.set()
    started = time.monotonic()
    thread.join(5)
    assert outcome == [MoveOutcome.ABANDONED] and time.monotonic() - started < 1
    assert len(server.posts(MOVE)) == 1


def test_a_move_short_of_time_goes_out_during_a_pause(server: FakeServer) -> None:
    server.routes[("POST", MOVE)] = sequence(answer(429, b"slow down", {"Retry-After": "60"}), answer(200))
    client = make_client(server)
    started = time.monotonic()
    assert client.post_move("g1", "e2e4", send_by=started + 0.5) is MoveOutcome.LANDED
    assert time.monotonic() - started < 5 and len(server.posts(MOVE)) == 2


# -- ids in URL paths ---------------------------------------------------------------------------

@pytest.mark.parametrize("bad_id", ["../../account", "g1/abort", "g1?x", "", "g 1", "g1\n"])
def test_ids_that_are_not_plain_tokens_are_never_sent(server: FakeServer, bad_id: str) -> None:
    client = make_client(server)
    calls = [lambda: client.post_move(bad_id, "e2e4"), lambda: client.abort(bad_id),
             lambda: client.resign(bad_id), lambda: client.chat(bad_id, "hi"), lambda: client.claim_victory(bad_id),
             lambda: client.accept_draw(bad_id), lambda: client.accept(bad_id),
             lambda: client.decline(bad_id, "generic")]
    for call in calls:
        with pytest.raises(ClientError, match="not a plain id"):
            call()
    with pytest.raises(GameStreamLost, match="not a plain id"):
        next(client.game_events(bad_id, threading.Event()))
    client.close()
    assert server.requests == []


# -- reconnection backoff -----------------------------------------------------------------------

def connection_gaps(server: FakeServer, path: str, count: int, read: Iterator[object], client: Client) -> list[float]:
    opened: list[float] = []
    enough = threading.Event()

    def hang_up_after_one_line(handler: Handler) -> None:
        opened.append(time.monotonic())
        if len(opened) >= count:
            enough.set()
        handler.start_stream()
        handler.write_line("")
        handler.end_stream()
        handler.close_connection = True
    server.routes[("GET", path)] = hang_up_after_one_line
    thread = threading.Thread(target=lambda: [None for _ in read], daemon=True)
    thread.start()
    assert enough.wait(15)
    client.close()
    return [later - earlier for earlier, later in zip(opened, opened[1:], strict=False)]


@pytest.mark.parametrize("stream", ["event", "game"])
def test_a_server_that_hangs_up_after_each_keep_alive_is_reconnected_with_growing_waits(server: FakeServer,
                                                                                       stream: str) -> None:
    settings = ServerSettings(url=server.url, dialect="lichess", backoff_initial_s=0.05, backoff_max_s=1.0)
    client = Client(settings, Secret(TOKEN), give_up_after_s=GameSettings().give_up_after_s)
    if stream == "event":
        gaps = connection_gaps(server, "/api/stream/event", 6, client.events(), client)
    else:
        gaps = connection_gaps(server, "/api/bot/game/stream/g1", 6, client.game_events("g1", threading.Event()),
                               client)
    # Nominal waits 0.05, 0.1, 0.2, 0.4, 0.8 s, each jittered down to half at most; a backoff reset
    # by each keep-alive kept every wait at 0.05 s at most.
    assert gaps[-1] >= 0.35 and gaps[-2] >= 0.18
