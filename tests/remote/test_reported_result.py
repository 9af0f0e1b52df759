"""How a pychess game ended, asked of its round socket: parsing the ``board`` message, the socket
URL, and :meth:`bot.remote.client.Client.reported_result` against the sandbox's socket over real
WebSocket connections on 127.0.0.1, with the socket healthy, refused, silent, closing, babbling or
not there at all."""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Iterator

import pytest
import requests

from bot.cli.operations import LIBRARY_LOGGERS, setup_logging
from bot.config import BotSettings, GameSettings, Secret, ServerSettings, Settings
from bot.remote.client import RESULT_LOOKUP_ATTEMPTS, Client, ClientError
from bot.remote.events import ReportedResult
from bot.remote.round_socket import RoundSocketError, read_round_board, round_socket_url
from bot.remote.wire import MalformedLine, parse_round_board
from bot.sandbox import Sandbox
from bot.sandbox.handler import GUEST_COOKIE
from tests.helpers.bot_harness import BOT, TOKEN

READ_TIMEOUT_S = 0.8
#: The shared sandbox fixtures (tests/conftest.py) with randy's moves seeded as these tests were written.
pytestmark = pytest.mark.sandbox(seed=3)


def board(**fields: object) -> str:
    message: dict[str, object] = {"type": "board", "gameId": "g1", "status": 2, "result": "1-0",
                                  "fen": "8/8/8/8/8/8/8/8 w - - 0 1", "steps": [], "ply": 12}
    message.update(fields)
    return json.dumps(message)


@pytest.mark.parametrize(("code", "status"), [(-1, "started"), (0, "aborted"), (2, "resign"), (4, "timeout"),
                                              (6, "outoftime"), (7, "abandon"), (10, "illegalMove"), (13, "claim")])
def test_board_message_status_codes_become_status_names(code: int, status: str) -> None:
    assert parse_round_board(board(status=code, result="0-1")).reported == ReportedResult("g1", status, "0-1")


@pytest.mark.parametrize("message", [
    '{"type": "user_present", "username": "alice"}', '{"type": "spectators", "spectators": []}',
    '{"type": "ping"}', "",
])
def test_other_round_messages_are_not_results(message: str) -> None:
    assert parse_round_board(message) is None


@pytest.mark.parametrize("message", [
    "not json", "[1, 2]", board(status="2"), board(status=True), board(status=99), board(status=2.0),
    board(result="2-0"), board(result=["1-0"]), board(gameId=""), board(gameId=None),
    '{"type": "board", "status": 2, "result": "1-0"}', "[" * 100_000 + "]" * 100_000,
])
def test_unreadable_board_messages_are_malformed(message: str) -> None:
    with pytest.raises(MalformedLine):
        parse_round_board(message)


@pytest.mark.parametrize(("base", "game_id", "url"), [
    ("http://127.0.0.1:8080", "abc", "ws://127.0.0.1:8080/wsr/abc"),
    ("https://www.pychess.org/", "abc", "wss://www.pychess.org/wsr/abc"),
    ("https://example.org/pychess", "a/../b?c", "wss://example.org/pychess/wsr/a%2F..%2Fb%3Fc"),
])
def test_round_socket_url(base: str, game_id: str, url: str) -> None:
    assert round_socket_url(base, game_id) == url


def test_round_socket_url_needs_an_http_server() -> None:
    with pytest.raises(RoundSocketError):
        round_socket_url("ftp://example.org", "abc")


# -- the client against the sandbox's round socket ----------------------------------------------

def client_for(url: str, dialect: str = "pychess") -> Client:
    settings = ServerSettings(url=url, dialect=dialect, connect_timeout_s=1.0, read_timeout_s=READ_TIMEOUT_S,
                              backoff_initial_s=0.1, backoff_max_s=0.5)
    return Client(settings, Secret(TOKEN), give_up_after_s=GameSettings().give_up_after_s)


def accepted_game(sandbox: Sandbox, increment_s: int = 0) -> tuple[Client, str]:
    """A game of randy (white) against the bot, accepted by the bot's client."""
    cid = sandbox.challenge("randy", BOT, limit_s=60, increment_s=increment_s, color="white")
    client = client_for(sandbox.url)
    client.accept(cid)
    game_id = sandbox.game_of_challenge(cid)
    assert game_id is not None
    return client, game_id


def resigned_game(sandbox: Sandbox) -> str:
    _, game_id = accepted_game(sandbox)
    sandbox.resign(game_id, "randy")
    return game_id


def test_the_round_socket_tells_how_a_game_ended(pychess: Sandbox) -> None:
    game_id = resigned_game(pychess)
    assert client_for(pychess.url).reported_result(game_id) == ReportedResult(game_id, "resign", "0-1")


def test_the_round_board_shows_every_move_and_both_clocks_now(pychess: Sandbox) -> None:
    client, game_id = accepted_game(pychess, increment_s=2)
    pychess.wait_moves(game_id, 1, timeout=10)
    for plies, uci in ((3, "e7e5"), (5, "d7d5")):          # the bot's moves; randy answers each at once
        client.post_move(game_id, uci)
        record = pychess.wait_moves(game_id, plies, timeout=10)
    board = client.round_board(game_id)
    assert board.moves == tuple(record.moves) and len(record.moves) == 5
    # Black's clock runs (the third ply is played): the board shows it as of now, below the last move's.
    assert board.wtime_ms == record.wtime_ms and board.btime_ms is not None and board.btime_ms <= record.btime_ms
    assert (board.status, board.result) == ("started", "*")


def test_the_lichess_client_has_no_round_board_to_read() -> None:
    with Sandbox("lichess") as lichess, pytest.raises(ClientError, match="no round socket"):
        client_for(lichess.url, dialect="lichess").round_board("abc")


def test_a_game_still_playing_is_reported_as_started(pychess: Sandbox) -> None:
    client, game_id = accepted_game(pychess)
    reported = client.reported_result(game_id)
    assert (reported.status, reported.result, reported.is_over) == ("started", "*", False)


@pytest.mark.parametrize(("arm", "words"), [
    (lambda sandbox: sandbox.faults.round_socket("silent", count=RESULT_LOOKUP_ATTEMPTS), "no board message"),
    (lambda sandbox: sandbox.faults.round_socket("garbage", count=RESULT_LOOKUP_ATTEMPTS), "unreadable"),
    (lambda sandbox: sandbox.faults.round_socket("close", count=RESULT_LOOKUP_ATTEMPTS), "ConnectionClosed"),
    (lambda sandbox: sandbox.faults.http_status("round", 503, count=RESULT_LOOKUP_ATTEMPTS), "503"),
], ids=["silent", "garbage", "close", "refused"])
def test_a_socket_that_will_not_tell_is_a_clear_error_in_bounded_time(pychess: Sandbox, arm: object,
                                                                        words: str) -> None:
    game_id = resigned_game(pychess)
    arm(pychess)  # type: ignore[operator]
    started = time.monotonic()
    with pytest.raises(ClientError, match=words):
        client_for(pychess.url).reported_result(game_id)
    assert time.monotonic() - started < RESULT_LOOKUP_ATTEMPTS * (READ_TIMEOUT_S + 2.0)
    assert len(pychess.faults.fired) == RESULT_LOOKUP_ATTEMPTS       # asked twice, not more


def test_one_failure_is_retried_once(pychess: Sandbox) -> None:
    game_id = resigned_game(pychess)
    pychess.faults.round_socket("garbage")
    assert client_for(pychess.url).reported_result(game_id).result == "0-1"
    assert pychess.faults.fired == [("round", "garbage")]


def test_an_unreachable_server_is_a_clear_error() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(ClientError, match="round socket"):
        client_for(f"http://127.0.0.1:{port}").reported_result("abc")


def test_an_unknown_game_is_a_clear_error(pychess: Sandbox) -> None:
    with pytest.raises(ClientError, match="404"):
        client_for(pychess.url).reported_result("nosuchgame")


def test_lichess_has_no_round_socket_to_ask() -> None:
    with Sandbox("lichess") as lichess, pytest.raises(ClientError, match="lichess"):
        client_for(lichess.url, dialect="lichess").reported_result("abc")


def test_the_lichess_sandbox_has_no_round_socket() -> None:
    with Sandbox("lichess") as lichess, pytest.raises(RoundSocketError, match="404"):
        read_round_board(round_socket_url(lichess.url, "abc"), "abc", open_timeout_s=1.0, read_timeout_s=1.0)


def test_a_plain_http_request_to_the_round_socket_is_refused(pychess: Sandbox) -> None:
    game_id = resigned_game(pychess)
    answer = requests.get(f"{pychess.url}/wsr/{game_id}", timeout=5)
    assert answer.status_code == 400


# -- no session value in a log -------------------------------------------------------------------

@pytest.fixture
def library_levels() -> Iterator[None]:
    """The third-party loggers' levels are put back after the test (setup_logging sets them)."""
    saved = {name: logging.getLogger(name).level for name in LIBRARY_LOGGERS}
    yield
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


def cookie_lines(records: list[logging.LogRecord]) -> list[str]:
    return [record.getMessage() for record in records if GUEST_COOKIE in record.getMessage()]


def test_at_log_level_debug_the_round_sockets_guest_session_reaches_no_log(
        pychess: Sandbox, caplog: pytest.LogCaptureFixture, library_levels: None) -> None:
    game_id = resigned_game(pychess)
    client = client_for(pychess.url)
    # Left at DEBUG, websockets logs the handshake's Set-Cookie: what the rule below must stop.
    logging.getLogger("websockets").setLevel(logging.DEBUG)
    with caplog.at_level(logging.DEBUG):
        client.reported_result(game_id)
    assert cookie_lines(caplog.records)
    caplog.clear()
    setup_logging(Settings(bot=BotSettings(log_level="DEBUG")))
    with caplog.at_level(logging.DEBUG):
        assert client.reported_result(game_id).status == "resign"
    assert cookie_lines(caplog.records) == []
    assert any(record.name.startswith("bot.") and record.levelno == logging.DEBUG for record in caplog.records)
    assert all(logging.getLogger(name).getEffectiveLevel() == logging.INFO for name in LIBRARY_LOGGERS)
    setup_logging(Settings(bot=BotSettings(log_level="WARNING")))     # a quieter bot quiets them too
    assert all(logging.getLogger(name).getEffectiveLevel() == logging.WARNING for name in LIBRARY_LOGGERS)
