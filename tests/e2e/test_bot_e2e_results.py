"""The whole bot against the pychess sandbox over real HTTP and the real round socket: games that
end without the stream saying how (resigned, also while the bot thinks, aborted, flagged,
abandoned) end with the server's result and termination in the bot's PGN; a round socket that
cannot tell leaves an honest ``*`` with its reason, in bounded time, and the bot plays on."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path

import chess.pgn
import pytest

from bot.engine import Limits, SearchResult
from bot.remote.client import RESULT_LOOKUP_ATTEMPTS
from bot.sandbox import Sandbox
from bot.thinking.search_pool import SearchPool
from tests.helpers.bot_harness import BOT, LocalBot, bot_settings, check_game, play


def reason(pgn: chess.pgn.Game) -> str:
    """The PGN's closing comment without its ``[%clk]``/``[%eval]`` annotations: why the game ended."""
    return re.sub(r"\s*\[%[^]]*\]", "", pgn.end().comment).strip()


pytestmark = pytest.mark.sandbox(first_move_timeout_s=10.0)


@pytest.fixture
def bot(pychess: Sandbox, tmp_path: Path, searcher: SearchPool) -> Iterator[LocalBot]:
    with LocalBot(pychess, bot_settings(pychess, tmp_path), searcher) as local:
        yield local


def ended_by(sandbox: Sandbox, bot: LocalBot, game_id: str, status: str) -> chess.pgn.Game:
    """Checks the finished game (see check_game) and that it ended with *status*; returns the bot's PGN."""
    record, pgn = check_game(sandbox, game_id, bot)
    assert record.status == status, f"the game ended {record.status}, not {status}"
    return pgn


def headers(pgn: chess.pgn.Game) -> tuple[str, str]:
    return pgn.headers["Result"], pgn.headers["Termination"]


def test_an_opponent_who_resigns_loses_in_the_pgn(pychess: Sandbox, bot: LocalBot) -> None:
    game_id = play(pychess, color="white")                   # randy is white
    pychess.wait_moves(game_id, 4, timeout=30)
    pychess.resign(game_id, "randy")
    pgn = ended_by(pychess, bot, game_id, "resign")
    assert headers(pgn) == ("0-1", "normal")
    assert reason(pgn) == "resign, as the server reports it"


class HeldSearch:
    """The search pool, except that one search is never answered: the bot is still thinking."""

    def __init__(self, pool: SearchPool, held_call: int) -> None:
        self.pool = pool
        self.held_call = held_call
        self.calls = 0
        self.holding = Future[None]()

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits,
               game_id: str | None = None) -> Future[SearchResult]:
        self.calls += 1
        if self.calls == self.held_call:
            self.holding.set_result(None)
            return Future()
        return self.pool.submit(initial_fen, moves, limits, game_id)

    def ponder(self, game_id: str, initial_fen: str | None, moves: tuple[str, ...]) -> bool:
        return self.pool.ponder(game_id, initial_fen, moves)

    def stop_ponder(self, game_id: str) -> None:
        self.pool.stop_ponder(game_id)


def test_an_opponent_who_resigns_while_the_bot_thinks_loses_in_the_pgn(pychess: Sandbox, tmp_path: Path,
                                                                        searcher: SearchPool) -> None:
    held = HeldSearch(searcher, held_call=3)
    local = LocalBot(pychess, bot_settings(pychess, tmp_path), held).start()
    try:
        game_id = play(pychess, color="black")               # the bot is white
        held.holding.result(timeout=30)
        pychess.resign(game_id, "randy")
        pgn = ended_by(pychess, local, game_id, "resign")
    finally:
        local.stop()
    assert headers(pgn) == ("1-0", "normal")
    assert len(list(pgn.mainline_moves())) == 4               # thinking about its third move


def test_an_opponents_abort_is_written_as_an_abort(pychess: Sandbox, bot: LocalBot) -> None:
    game_id = play(pychess, color="white")
    pychess.wait_moves(game_id, 2, timeout=30)
    pychess.abort(game_id, "randy")
    pgn = ended_by(pychess, bot, game_id, "aborted")
    assert headers(pgn) == ("*", "abandoned")
    assert reason(pgn) == "aborted, as the server reports it"


def test_an_opponent_who_flags_loses_on_time_in_the_pgn(pychess: Sandbox, bot: LocalBot) -> None:
    # 0+1: clocks start at the third ply, where randy (white) has no time left at all.
    game_id = play(pychess, color="white", limit_s=0, increment_s=1)
    pgn = ended_by(pychess, bot, game_id, "outoftime")
    assert headers(pgn) == ("0-1", "time forfeit")


def test_an_opponent_who_abandons_loses_in_the_pgn(pychess: Sandbox, bot: LocalBot) -> None:
    game_id = play(pychess, color="black")
    pychess.wait_moves(game_id, 5, timeout=30)
    pychess.abandon(game_id, "randy")
    pgn = ended_by(pychess, bot, game_id, "timeout")
    assert headers(pgn) == ("1-0", "abandoned")
    assert reason(pgn) == "abandon, as the server reports it"


def test_the_bots_own_abort_is_written_as_such(pychess: Sandbox, tmp_path: Path, searcher: SearchPool,
                                               caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.games.player")
    local = LocalBot(pychess, bot_settings(pychess, tmp_path, abort_after_s=1.0), searcher).start()
    try:
        game_id = play(pychess, "statue", color="white")     # statue is white and never moves
        pgn = ended_by(pychess, local, game_id, "aborted")
    finally:
        local.stop()
    for thread in threading.enumerate():     # the game's player, whose goodbye would follow its PGN
        if thread.name in (f"play-{game_id}", f"read-{game_id}"):
            thread.join(10)
    assert headers(pgn) == ("*", "abandoned")
    assert reason(pgn) == "the bot aborted the game: the opponent made no move in 1 s"
    # The greeting went out; no goodbye was tried on the aborted game, which pychess answers with 404.
    assert [line.text for line in pychess.game(game_id).chat] == [local.settings.game.greeting]
    assert not [record for record in caplog.records if "chat not sent" in record.getMessage()]


# -- a round socket that cannot tell -------------------------------------------------------------

RoundFault = Callable[[Sandbox], object]

ROUND_FAULTS: dict[str, tuple[RoundFault, str]] = {
    "silent": (lambda sandbox: sandbox.faults.round_socket("silent", count=RESULT_LOOKUP_ATTEMPTS),
               "no board message within"),
    "garbage": (lambda sandbox: sandbox.faults.round_socket("garbage", count=RESULT_LOOKUP_ATTEMPTS),
                "unreadable message"),
    "closing": (lambda sandbox: sandbox.faults.round_socket("close", count=RESULT_LOOKUP_ATTEMPTS),
                "ConnectionClosed"),
    "unreachable": (lambda sandbox: sandbox.faults.http_status("round", 503, count=RESULT_LOOKUP_ATTEMPTS),
                    "HTTP 503"),
}


@pytest.mark.parametrize("fault", list(ROUND_FAULTS))
def test_a_round_socket_that_cannot_tell_leaves_an_honest_star_and_the_bot_plays_on(
        pychess: Sandbox, bot: LocalBot, fault: str) -> None:
    arm, words = ROUND_FAULTS[fault]
    game_id = play(pychess, color="white")
    pychess.wait_moves(game_id, 4, timeout=30)
    arm(pychess)
    pychess.resign(game_id, "randy")
    resigned = time.monotonic()
    pgn = ended_by(pychess, bot, game_id, "resign")
    assert time.monotonic() - resigned < 15.0
    assert headers(pgn) == ("*", "unterminated")
    assert "the server ended the game without saying how" in reason(pgn)
    assert words in reason(pgn)
    assert len(pychess.faults.fired) == RESULT_LOOKUP_ATTEMPTS    # asked twice, then gave up
    # Nothing stuck: the next game is played and its result is read.
    next_game = play(pychess, color="white")
    pychess.wait_moves(next_game, 2, timeout=30)
    pychess.resign(next_game, "randy")
    assert headers(ended_by(pychess, bot, next_game, "resign")) == ("0-1", "normal")
    assert BOT in (pychess.game(next_game).white, pychess.game(next_game).black)
