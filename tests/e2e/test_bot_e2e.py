"""The whole bot against the sandbox over real HTTP on 127.0.0.1, in both dialects: games, declines, faults.

Every game is checked by :func:`check_game`: it ends, every move the bot posted was legal and
accepted, none was posted twice, the bot did not lose (its opponents move at random) and in
particular not on time, and its PGN carries the true result or, on pychess only, an honest ``*``.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import pytest
import requests

from bot.config import ChallengeSettings
from bot.engine import Limits, SearchResult
from bot.games import runner
from bot.sandbox import GameSnapshot, Sandbox
from bot.thinking.search_pool import SearchPool
from tests.helpers.bot_harness import BOT, TOKEN, LocalBot, bot_settings, check_game, decline_reason, play

LEGAL_CUSTOM_FEN = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
ILLEGAL_CUSTOM_FEN = "4k3/8/8/8/8/8/8/4K2P w - - 0 1"


pytestmark = [pytest.mark.sandbox(gone_claim_s=1.0, first_move_timeout_s=5.0), pytest.mark.searcher(workers=2)]


@pytest.fixture
def bot(sandbox: Sandbox, tmp_path: Path, searcher: SearchPool) -> Iterator[LocalBot]:
    with LocalBot(sandbox, bot_settings(sandbox, tmp_path), searcher) as local:
        yield local


@pytest.mark.parametrize("color", ["white", "black"])
def test_whole_game_is_played_to_the_end_with_greeting_goodbye_and_pgn(sandbox: Sandbox, bot: LocalBot,
                                                                        color: str,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.games.player")
    game_id = play(sandbox, "human", color=color)          # the challenger's colour
    record, pgn = check_game(sandbox, game_id, bot)
    assert record.white == ("human" if color == "white" else BOT)
    # The goodbye follows the PGN and the freed slot.
    farewell = [bot.settings.game.greeting, bot.settings.game.goodbye]
    sandbox.wait_game(game_id, lambda game: [line.text for line in game.chat if line.username == BOT] == farewell,
                      timeout=10, what="greeting and goodbye")
    assert len(list(pgn.mainline_moves())) >= len(record.moves) - 1  # pychess never echoes the last move
    check_annotations(pgn, record, [entry.getMessage() for entry in caplog.records], sandbox.dialect.name)


def check_annotations(pgn: chess.pgn.Game, record: GameSnapshot, log: list[str], dialect: str) -> None:
    """The PGN's evals and depths are those the bot logged for its moves, and its clocks those the
    server reported: every move's, and (Lichess tells the final state) each side's last one."""
    bot_color = chess.WHITE if record.white == BOT else chess.BLACK
    moves = [re.search(r"\((\S+)\) (?:depth (\d+) (?:score ([-+]\d+) cp|mate (-?\d+))|(book|fallback) move)", line)
             for line in log if line.startswith(f"game {record.id}: move ")]
    nodes = [node for node in pgn.mainline() if node.parent is not None and node.parent.turn() == bot_color]
    assert moves and len(nodes) >= len(moves) - 1
    for node, logged in zip(nodes, moves, strict=False):
        assert logged is not None
        san, depth, cp, mate, unsearched = logged.groups()
        assert node.san() == san
        score = node.eval()
        if unsearched:
            assert score is None
            continue
        assert score is not None and node.eval_depth() == int(depth)
        expected = chess.engine.Cp(int(cp)) if cp is not None else chess.engine.Mate(int(mate))
        assert score.pov(bot_color) == expected
    clocks = [node.clock() for node in pgn.mainline()]
    assert None not in clocks[:-1]
    if dialect == "lichess":
        # python-chess adds the [%clk] fields up in floats (60 + 17.927 is 77.92699999999999): compare in ms.
        last_ms = {node.parent.turn(): round(clock * 1000) for node in pgn.mainline()
                   if node.parent is not None and (clock := node.clock()) is not None}
        assert last_ms == {chess.WHITE: record.wtime_ms, chess.BLACK: record.btime_ms}


def test_game_from_a_legal_custom_position_is_played(sandbox: Sandbox, bot: LocalBot) -> None:
    game_id = play(sandbox, initial_fen=LEGAL_CUSTOM_FEN)
    _, pgn = check_game(sandbox, game_id, bot)
    assert pgn.headers["FEN"] == LEGAL_CUSTOM_FEN


def test_game_from_an_illegal_custom_position_is_refused(sandbox: Sandbox, bot: LocalBot) -> None:
    cid = sandbox.challenge("randy", BOT, limit_s=60, increment_s=1, initial_fen=ILLEGAL_CUSTOM_FEN)
    answer = sandbox.wait_challenge_answered(cid, timeout=10)
    if sandbox.dialect.name == "lichess":
        assert (answer, sandbox.decline_reason(cid)) == ("declined", "generic")
    else:
        # pychess shows the FEN only in gameFull: accepted, then aborted there.
        game_id = sandbox.game_of_challenge(cid)
        assert answer == "accepted" and game_id is not None
        record = sandbox.wait_game_over(game_id, timeout=20)
        assert record.status == "aborted"
        assert not [post for post in record.posts if post.username == BOT]
        result = bot.runner.wait_game_done(game_id, timeout=20)       # and the slot is free again
        assert result is not None and result.result == "*"


@pytest.mark.parametrize(("challenge", "reason"), [
    ({"variant": "chess"}, "variant"),
    ({"limit_s": 15, "increment_s": 0}, "tooFast"),
    ({"limit_s": 60 * 60 * 4, "increment_s": 0}, "tooSlow"),
    ({"limit_s": None, "days": 3}, "timeControl"),
])
def test_unwanted_challenges_are_declined_with_the_right_reason(sandbox: Sandbox, bot: LocalBot,
                                                                challenge: dict[str, object], reason: str) -> None:
    challenge.setdefault("limit_s", 60)
    assert decline_reason(sandbox, **challenge) == reason


@pytest.mark.parametrize(("policy", "challenges"), [
    (ChallengeSettings(modes=("rated",), accept_humans=False),
     [("randy", False, "casual"), ("human", True, "onlyBot")]),
    (ChallengeSettings(modes=("casual",), accept_bots=False),
     [("human", True, "rated"), ("randy", False, "noBot")]),
])
def test_mode_and_player_kind_declines(sandbox: Sandbox, tmp_path: Path, searcher: SearchPool,
                                       policy: ChallengeSettings, challenges: list[tuple[str, bool, str]]) -> None:
    settings = dataclasses.replace(bot_settings(sandbox, tmp_path), challenge=policy)
    local = LocalBot(sandbox, settings, searcher).start()
    try:
        for challenger, rated, reason in challenges:
            assert decline_reason(sandbox, challenger, limit_s=60, rated=rated) == reason
    finally:
        local.stop()


def test_a_challenge_beyond_the_concurrency_limit_is_declined_later(sandbox: Sandbox, bot: LocalBot) -> None:
    game_id = play(sandbox, "statue", color="black")      # the bot is white and thinks; statue never moves
    sandbox.wait_moves(game_id, 1, timeout=10)
    assert decline_reason(sandbox, "randy", limit_s=60) == "later"


def test_the_bot_aborts_a_game_whose_opponent_never_moves(sandbox: Sandbox, tmp_path: Path,
                                                          searcher: SearchPool) -> None:
    local = LocalBot(sandbox, bot_settings(sandbox, tmp_path, abort_after_s=1.5), searcher).start()
    try:
        game_id = play(sandbox, "statue", color="white")   # statue is white and never moves
        record, pgn = check_game(sandbox, game_id, local)
        assert record.status == "aborted" and pgn.headers["Result"] == "*"
    finally:
        local.stop()


def test_a_game_start_for_a_game_in_play_does_not_start_a_second_player(sandbox: Sandbox, bot: LocalBot) -> None:
    game_id = play(sandbox)
    sandbox.wait_moves(game_id, 4, timeout=20)
    sandbox.faults.drop_event_stream(BOT)                  # Lichess re-sends gameStart on reconnect
    sandbox.wait_connections("event", BOT, 2, timeout=10)
    check_game(sandbox, game_id, bot)
    assert sandbox.connections("game", BOT, game_id) == 1          # one player, one stream


def test_a_game_whose_game_start_never_came_is_played_from_its_challenge_id(
        sandbox: Sandbox, bot: LocalBot, monkeypatch: pytest.MonkeyPatch) -> None:
    # pychess loses the event a lingering stream handler takes; reopening the event stream does not
    # bring back the gameStart of a game without a move, and the bot is white here: it must move first.
    monkeypatch.setattr(runner, "MISSING_GAME_START_S", 1.0)
    sandbox.faults.lose_event("gameStart", BOT)
    game_id = play(sandbox, color="black")
    check_game(sandbox, game_id, bot)
    assert ("lose", "gameStart") in sandbox.faults.fired
    assert sandbox.connections("game", BOT, game_id) == 1


def test_shutdown_leaves_the_game_in_the_state_file_and_takes_seconds(sandbox: Sandbox, tmp_path: Path,
                                                                      searcher: SearchPool) -> None:
    local = LocalBot(sandbox, bot_settings(sandbox, tmp_path), searcher).start()
    game_id = play(sandbox, "statue", color="black")
    sandbox.wait_moves(game_id, 1, timeout=10)
    assert local.stop() < 10
    assert game_id in (tmp_path / "state.json").read_text()
    sandbox.wait_open_streams("game", BOT, 0, timeout=10, game_id=game_id)


# -- faults injected mid-game -------------------------------------------------------------------

Fault = Callable[[Sandbox, str], object]


def reopen_answered_5xx(sandbox: Sandbox, game_id: str) -> None:
    sandbox.faults.http_status("stream_game", 503, count=2)
    sandbox.faults.drop_game_stream(game_id, BOT)


FAULTS: dict[str, Fault] = {
    "event stream dropped": lambda sandbox, game: sandbox.faults.drop_event_stream(BOT),
    "game stream dropped": lambda sandbox, game: sandbox.faults.drop_game_stream(game, BOT),
    "move answered 429": lambda sandbox, game: sandbox.faults.http_status("move", 429, count=1, retry_after=1),
    "move answered 5xx": lambda sandbox, game: sandbox.faults.http_status("move", 502, count=2),
    "game stream reopen answered 5xx": reopen_answered_5xx,
    "game stream silent": lambda sandbox, game: sandbox.faults.silence("game", 4.0, game_id=game, username=BOT),
    "event stream silent": lambda sandbox, game: sandbox.faults.silence("event", 4.0, username=BOT),
    "malformed game line": lambda sandbox, game: sandbox.faults.malformed_line("game", game),
    "malformed event line": lambda sandbox, game: sandbox.faults.malformed_line("event"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_fault_mid_game_loses_nothing(sandbox: Sandbox, bot: LocalBot, fault: str) -> None:
    game_id = play(sandbox)
    sandbox.wait_moves(game_id, 6, timeout=30)
    FAULTS[fault](sandbox, game_id)
    check_game(sandbox, game_id, bot)
    sandbox.faults.wait_fired(1, timeout=10)
    if fault.startswith("game stream"):
        assert sandbox.connections("game", BOT, game_id) >= 2, "the game stream was not reopened"
    if fault.startswith("event stream"):
        sandbox.wait_connections("event", BOT, 2, timeout=10)   # the game itself may end before that


def test_silent_event_stream_is_reopened(sandbox: Sandbox, bot: LocalBot) -> None:
    sandbox.faults.silence("event", 5.0, username=BOT)
    sandbox.wait_connections("event", BOT, 2, timeout=10)
    # A challenge sent while pychess still counts the abandoned stream open is lost (docs/api.md): wait.
    sandbox.wait_open_streams("event", BOT, 1, timeout=10)
    game_id = play(sandbox, color="white")
    check_game(sandbox, game_id, bot)


class FlakyEngine:
    """Every second search raises; every fifth never answers at all."""

    def __init__(self, pool: SearchPool) -> None:
        self.pool = pool
        self.calls = 0

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits,
               game_id: str | None = None) -> Future[SearchResult]:
        self.calls += 1
        future: Future[SearchResult] = Future()
        if self.calls % 5 == 0:
            return future
        if self.calls % 2 == 0:
            future.set_exception(RuntimeError("engine bug"))
            return future
        return self.pool.submit(initial_fen, moves, limits, game_id=game_id)

    def ponder(self, game_id: str, initial_fen: str | None, moves: tuple[str, ...]) -> bool:
        return self.pool.ponder(game_id, initial_fen, moves)

    def stop_ponder(self, game_id: str) -> None:
        self.pool.stop_ponder(game_id)


def test_engine_failures_and_hangs_are_answered_with_legal_fallback_moves(
        sandbox: Sandbox, tmp_path: Path, searcher: SearchPool, caplog: pytest.LogCaptureFixture) -> None:
    flaky = FlakyEngine(searcher)
    local = LocalBot(sandbox, bot_settings(sandbox, tmp_path), flaky).start()
    try:
        game_id = play(sandbox, limit_s=120, increment_s=1)
        check_game(sandbox, game_id, local)
    finally:
        local.stop()
    assert flaky.calls >= 5
    assert "engine failed" in caplog.text and "engine too slow" in caplog.text


@pytest.mark.sandbox(gone_claim_s=1.0)
def test_lichess_opponent_gone_is_claimed_as_a_win(lichess: Sandbox, tmp_path: Path, searcher: SearchPool) -> None:
    local = LocalBot(lichess, bot_settings(lichess, tmp_path), searcher).start()
    try:
        game_id = play(lichess, "leaver", color="black")     # the bot is white and moves; leaver is gone
        record, pgn = check_game(lichess, game_id, local)
    finally:
        local.stop()
    assert (record.status, record.winner, pgn.headers["Result"]) == ("timeout", "white", "1-0")


@pytest.mark.sandbox(gone_claim_s=1.0)
def test_lichess_draw_offer_in_a_winning_game_is_not_accepted(lichess: Sandbox, tmp_path: Path,
                                                              searcher: SearchPool) -> None:
    local = LocalBot(lichess, bot_settings(lichess, tmp_path), searcher).start()
    try:
        game_id = play(lichess, color="black")
        lichess.wait_moves(game_id, 8, timeout=30)
        lichess.offer_draw(game_id, "randy")
        record, _ = check_game(lichess, game_id, local)
    finally:
        local.stop()
    assert record.status != "draw"


def test_accept_answered_429_is_retried_after_the_pause(sandbox: Sandbox, bot: LocalBot) -> None:
    sandbox.faults.http_status("accept", 429, count=1, retry_after=1)
    game_id = play(sandbox)
    check_game(sandbox, game_id, bot)
    assert ("accept", "429") in sandbox.faults.fired


def test_a_remembered_game_that_ended_while_the_bot_was_away_is_closed_with_an_honest_pgn(
        sandbox: Sandbox, tmp_path: Path, searcher: SearchPool) -> None:
    # The bot accepted, then was away until the game ended unstarted (noStart).
    cid = sandbox.challenge("statue", BOT, limit_s=60, increment_s=1, color="white")
    accepted = requests.post(f"{sandbox.url}/api/challenge/{cid}/accept", timeout=10,
                             headers={"Authorization": f"Bearer {TOKEN}"})
    assert accepted.status_code == 200
    game_id = sandbox.game_of_challenge(cid)
    assert game_id is not None
    sandbox.wait_game_over(game_id, timeout=20)
    (tmp_path / "state.json").write_text(f'{{"unfinished_games": ["{game_id}"]}}')
    local = LocalBot(sandbox, bot_settings(sandbox, tmp_path, give_up_after_s=2.0), searcher).start()
    try:
        result = local.runner.wait_game_done(game_id, timeout=30)
    finally:
        local.stop()
    assert result is not None and result.result == "*"
    assert game_id not in (tmp_path / "state.json").read_text()
    if sandbox.dialect.name == "lichess":
        assert (tmp_path / "games" / f"{game_id}.pgn").exists()   # gameFull told the whole story


def test_a_server_answering_5xx_at_start_is_waited_for(sandbox: Sandbox, tmp_path: Path,
                                                       searcher: SearchPool) -> None:
    sandbox.faults.http_status("account", 503, count=4)
    local = LocalBot(sandbox, bot_settings(sandbox, tmp_path), searcher).start()
    try:
        check_game(sandbox, play(sandbox), local)
    finally:
        local.stop()
    assert sandbox.faults.fired.count(("account", "503")) == 4
