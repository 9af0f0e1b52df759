"""The live status page of the real bot, started as ``run`` starts it (:func:`bot.cli.wiring.play_on_server`
with ``bot.status_port``), against the sandbox over HTTP in both dialects: a game in progress shows
its board and the bot's evaluation, then its result and PGN; a declined challenge its reason; and
the page keeps its Host check and its session."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess.pgn
import pytest
import requests

from bot.cli.wiring import BotThread
from bot.sandbox import Sandbox
from tests.helpers.bot_harness import GAME_TIMEOUT_S, decline_reason, play
from tests.helpers.engine_processes import wait_until
from tests.helpers.status_bot import running_status_bot
from variant import KnightmateBoard

KEY = "the-status-key"


@pytest.fixture
def status_bot(sandbox: Sandbox, tmp_path: Path) -> Iterator[tuple[BotThread, str]]:
    """The bot with its status page on, connected, in each dialect; and the page's address."""
    with running_status_bot(sandbox, tmp_path, KEY) as running:
        yield running


def logged_in(url: str) -> requests.Session:
    session = requests.Session()
    answer = session.get(f"{url}/?key={KEY}", allow_redirects=False, timeout=10)
    assert answer.status_code == 303 and answer.headers["Location"] == "/"
    assert "HttpOnly" in answer.headers["Set-Cookie"] and "SameSite=Strict" in answer.headers["Set-Cookie"]
    return session


def test_a_game_shows_its_evaluation_while_played_then_its_result_and_pgn(
        sandbox: Sandbox, status_bot: tuple[BotThread, str]) -> None:
    bot, url = status_bot
    session = logged_in(url)
    assert decline_reason(sandbox, "randy", variant="chess") == "variant"
    game_id = play(sandbox, "randy")
    seen: list[dict[str, Any]] = []

    def searched_in_progress() -> bool:
        playing = session.get(f"{url}/api/status", timeout=10).json()["playing"]
        game = next((game for game in playing if game["id"] == game_id), None)
        evaluation = game and game["evaluation"]
        if evaluation and (evaluation["cp"] is not None or evaluation["mate"] is not None):
            seen.append(game)
        return bool(seen)

    wait_until(searched_in_progress, GAME_TIMEOUT_S, "a searched evaluation of the game in progress")
    game = seen[0]
    assert game["bot_color"] in ("white", "black") and game["fen"].count("/") == 7
    assert game["evaluation"]["depth"] >= 1 and game["evaluation"]["line"]
    assert KnightmateBoard(game["fen"]).is_valid()
    assert game["move_times_ms"] and all(ms is None or ms >= 0 for ms in game["move_times_ms"])

    sandbox.wait_game_over(game_id, timeout=GAME_TIMEOUT_S)
    assert bot.runner is not None
    result = bot.runner.wait_game_done(game_id, timeout=30)
    assert result is not None
    status = session.get(f"{url}/api/status", timeout=10).json()
    assert all(game["id"] != game_id for game in status["playing"])
    finished = next(done for done in status["finished"] if done["view"]["id"] == game_id)
    assert (finished["result"], finished["reason"], finished["pgn"]) == (result.result, result.reason, True)
    pgn = session.get(f"{url}/api/games/{game_id}/pgn", timeout=10)
    assert pgn.status_code == 200 and pgn.headers["Content-Type"].startswith("application/x-chess-pgn")
    parsed = chess.pgn.read_game(io.StringIO(pgn.text))
    assert parsed is not None and parsed.headers["Result"] == result.result
    declined = [answer for answer in status["challenges"] if not answer["accepted"]]
    assert declined and declined[-1]["reason"] == "variant" and declined[-1]["variant"] == "chess"
    assert any(answer["accepted"] for answer in status["challenges"])
    assert status["version"] and status["uptime_s"] > 0
    assert isinstance(status["reconnects"], dict) and isinstance(status["errors"], dict)


def test_the_page_refuses_another_host_a_wrong_key_and_no_session(status_bot: tuple[BotThread, str]) -> None:
    _, url = status_bot
    assert requests.get(f"{url}/api/status", timeout=10).status_code == 401
    assert requests.get(f"{url}/api/status", cookies={"knightmate_session_" + url.rsplit(":", 1)[1]: "guess"},
                        timeout=10).status_code == 401
    assert requests.get(f"{url}/?key=guess", allow_redirects=False, timeout=10).status_code == 403
    session = logged_in(url)
    assert session.get(f"{url}/api/status", timeout=10).status_code == 200
    # DNS rebinding: a name that resolves here is still not the address served.
    assert session.get(f"{url}/api/status", headers={"Host": "attacker.example:80"}, timeout=10).status_code == 421
    assert session.get(f"{url}/api/games/nosuchgame/pgn", timeout=10).status_code == 404
    assert session.post(f"{url}/api/status", timeout=10).status_code == 405
    # The page and the board it borrows from play's package data; nothing else of the disk.
    assert requests.get(f"{url}/", timeout=10).status_code == 200
    assert requests.get(f"{url}/web/static/vendor/chessgroundx.js", timeout=10).status_code == 200
    assert requests.get(f"{url}/web/static/pieces/wk.svg", timeout=10).status_code == 200
    assert requests.get(f"{url}/web/static/page_server.py", timeout=10).status_code == 404
    assert requests.get(f"{url}/static/../server.py", timeout=10).status_code == 404
