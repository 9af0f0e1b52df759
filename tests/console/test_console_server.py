"""bot.console.server over HTTP, without a bot: the session, the Host check, the files it serves and
refuses, the PGN of a finished game, and the counts it reads from the metrics."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from bot.console.server import StatusServer
from bot.games.record import Result
from bot.games.status import StatusRecorder, game_view
from bot.metrics import STREAM_RECONNECTS
from tests.helpers.games_harness import new_game

KEY = "the-key"
PGN = '[Event "Casual Knightmate game"]\n[Result "1-0"]\n\n1-0\n'


@pytest.fixture
def server() -> Iterator[StatusServer]:
    recorder = StatusRecorder()
    recorder.game_over(game_view(new_game("done1")), Result("1-0", "normal", "mate"), PGN)
    page = StatusServer(0, recorder, KEY)
    yield page
    page.close()


@pytest.fixture
def session(server: StatusServer) -> requests.Session:
    opened = requests.Session()
    answer = opened.get(f"{server.url}?key={KEY}", allow_redirects=False, timeout=10)
    assert answer.status_code == 303 and answer.headers["Location"] == "/"
    assert answer.headers["Set-Cookie"].startswith(f"{server.session.cookie}={KEY}; HttpOnly; SameSite=Strict")
    return opened


def test_the_json_and_the_pgns_need_the_session(server: StatusServer) -> None:
    for path in ("api/status", "api/games/done1/pgn"):
        assert requests.get(server.url + path, timeout=10).status_code == 401
        assert requests.get(server.url + path, cookies={server.session.cookie: "guess"}, timeout=10).status_code == 401
    assert requests.get(f"{server.url}?key=guess", allow_redirects=False, timeout=10).status_code == 403


def test_another_host_is_refused_even_with_the_session(server: StatusServer, session: requests.Session) -> None:
    for host in ("attacker.example", f"attacker.example:{server.port}", f"127.0.0.1:{server.port + 1}", ""):
        assert session.get(server.url + "api/status", headers={"Host": host}, timeout=10).status_code == 421
    # localhost names the loopback address served (the cookie jar keys cookies by host: sent by hand).
    assert requests.get(server.url + "api/status", headers={"Host": f"localhost:{server.port}",
                                                            "Cookie": f"{server.session.cookie}={KEY}"},
                        timeout=10).status_code == 200


def test_a_finished_games_pgn_is_served_and_an_unknown_one_is_not(server: StatusServer,
                                                                   session: requests.Session) -> None:
    answer = session.get(server.url + "api/games/done1/pgn", timeout=10)
    assert answer.status_code == 200 and answer.text == PGN
    assert answer.headers["Content-Disposition"] == 'attachment; filename="knightmate-done1.pgn"'
    assert session.get(server.url + "api/games/nosuch/pgn", timeout=10).status_code == 404
    assert session.get(server.url + "api/games/../status/pgn", timeout=10).status_code == 404


def test_the_status_carries_the_metrics_counts(server: StatusServer, session: requests.Session) -> None:
    before = session.get(server.url + "api/status", timeout=10).json()["reconnects"].get("game", 0)
    STREAM_RECONNECTS.labels(stream="game").inc()
    status = session.get(server.url + "api/status", timeout=10).json()
    assert status["reconnects"]["game"] == before + 1
    assert [done["view"]["id"] for done in status["finished"]] == ["done1"]


@pytest.mark.parametrize(("path", "served"), [
    ("", "text/html"), ("static/status.js", "text/javascript"), ("static/status.css", "text/css"),
    ("web/static/vendor/chessgroundx.js", "text/javascript"), ("web/static/pieces/bm.svg", "image/svg+xml"),
    ("web/static/page_server.py", None), ("web/static/play.js", None), ("static/../server.py", None),
    ("static/server.py", None), ("web/static/vendor/chessgroundx.d.ts", None), ("favicon.ico", None),
])
def test_only_the_pages_files_and_the_boards_are_served(server: StatusServer, path: str, served: str | None) -> None:
    answer = requests.get(server.url + path, timeout=10)
    if served is None:
        assert answer.status_code == 404
    else:
        assert answer.status_code == 200 and answer.headers["Content-Type"].startswith(served)
        assert answer.headers["Content-Security-Policy"].startswith("default-src 'self'")


def test_the_page_only_reads(server: StatusServer, session: requests.Session) -> None:
    assert session.post(server.url + "api/status", timeout=10).status_code == 405
