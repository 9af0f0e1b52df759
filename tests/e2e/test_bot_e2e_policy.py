"""Whom the bot plays, end to end over real HTTP on 127.0.0.1 in both dialects: the allow list, the
rating bounds, the limits per opponent and on recent bot challenges, challenges waiting for a slot
in rating order, and a greeting with its placeholders filled in. Each challenge outside a rule is
declined with the reason key the server reads (and the log says which rule it was); each inside
is accepted. The sandbox sends the challenger's rating and title as each server does.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import Settings
from bot.sandbox import Sandbox
from bot.thinking.search_pool import SearchPool
from tests.helpers.bot_harness import BOT, LocalBot, bot_settings, decline_reason, make_sandbox, play

DIALECTS = ("lichess", "pychess")


@pytest.fixture(scope="module")
def searcher() -> Iterator[SearchPool]:
    pool = SearchPool(1, hash_mb=16)
    pool.warm_up()
    yield pool
    pool.close()


@pytest.fixture(params=DIALECTS)
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    server = make_sandbox(request.param)
    server.add_opponent("patzer", strategy="random", rating=800)
    server.add_opponent("master", strategy="idle", rating=2400)   # its game keeps the slot
    server.add_opponent("fan", strategy="random", rating=1500, bot=False)
    yield server
    server.stop()


def policy_bot(sandbox: Sandbox, tmp_path: Path, searcher: SearchPool, **policy: object) -> LocalBot:
    settings = bot_settings(sandbox, tmp_path)
    challenge = dataclasses.replace(settings.challenge, **policy)  # type: ignore[arg-type]
    return LocalBot(sandbox, dataclasses.replace(settings, challenge=challenge), searcher).start()


class RunnerLog(logging.Handler):
    """The runner's log lines, waited for: it logs an answer after the server has it."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []
        self.changed = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        with self.changed:
            self.lines.append(record.getMessage())
            self.changed.notify_all()

    def said(self, words: str, timeout: float = 10) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: any(words in line for line in self.lines), timeout)


@pytest.fixture
def logged() -> Iterator[RunnerLog]:
    handler = RunnerLog()
    logger = logging.getLogger("bot.games.runner")
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


def test_allow_list_and_rating_bounds_decline_generic_and_let_the_rest_play(
        sandbox: Sandbox, tmp_path: Path, searcher: SearchPool, logged: RunnerLog) -> None:
    bot = policy_bot(sandbox, tmp_path, searcher, allow_list=("randy", "Patzer", "master"),
                     min_rating=1000, max_rating=2000)
    try:
        assert decline_reason(sandbox, "human") == "generic"
        assert logged.said("human is not on the allow list")
        assert decline_reason(sandbox, "patzer") == "generic"
        assert logged.said("rating 800 is outside 1000..2000")
        assert decline_reason(sandbox, "master") == "generic"
        assert logged.said("rating 2400 is outside 1000..2000")
        play(sandbox, "randy")      # on the list, rated 1500: accepted
    finally:
        bot.stop()


def test_games_against_one_opponent_are_limited_at_once_and_per_hour_with_later(
        sandbox: Sandbox, tmp_path: Path, searcher: SearchPool, logged: RunnerLog) -> None:
    bot = policy_bot(sandbox, tmp_path, searcher, concurrency=3, max_games_per_opponent=1,
                     max_games_per_opponent_per_hour=2)
    try:
        for _ in range(2):
            game_id = play(sandbox, "statue", color="black")   # the bot moves first; statue never answers
            assert decline_reason(sandbox, "statue") == "later"
            assert logged.said("already playing 1 game(s) against statue, the most at once")
            sandbox.resign(game_id, "statue")
            bot.runner.wait_game_done(game_id, timeout=30)
        assert decline_reason(sandbox, "statue") == "later"
        assert logged.said("2 game(s) against statue in the last hour, the most per hour")
        play(sandbox, "randy")                                 # another opponent has no such limit
    finally:
        bot.stop()


def test_a_bot_that_challenges_again_and_again_is_told_later_and_a_human_is_not(
        sandbox: Sandbox, tmp_path: Path, searcher: SearchPool, logged: RunnerLog) -> None:
    bot = policy_bot(sandbox, tmp_path, searcher, max_recent_bot_challenges=1, recent_bot_challenge_age_s=600)
    try:
        assert decline_reason(sandbox, "randy", variant="chess") == "variant"   # counted all the same
        assert decline_reason(sandbox, "randy") == "later"
        assert logged.said("1 challenge(s) from the bot randy in the last 600 s")
        assert decline_reason(sandbox, "fan", variant="chess") == "variant"
        play(sandbox, "fan")                                   # a human: not limited
    finally:
        bot.stop()


def test_challenges_waiting_for_a_slot_get_it_best_rated_first_and_the_rest_later_when_their_time_is_up(
        sandbox: Sandbox, tmp_path: Path, searcher: SearchPool, logged: RunnerLog) -> None:
    bot = policy_bot(sandbox, tmp_path, searcher, concurrency=1, wait_for_slot_s=4.0, sort_by="best")
    try:
        busy = play(sandbox, "statue", color="black")
        sandbox.wait_moves(busy, 1, timeout=15)                # the bot is playing it: the slot is taken
        low = sandbox.challenge("patzer", BOT, limit_s=60)
        high = sandbox.challenge("master", BOT, limit_s=60)
        assert logged.said("from patzer") and logged.said("from master")   # both wait before the slot frees
        sandbox.resign(busy, "statue")
        assert sandbox.wait_challenge_answered(high, timeout=10) == "accepted"
        assert sandbox.challenge_status(low) == "created"      # still waiting: master's game has the slot
        assert sandbox.wait_challenge_answered(low, timeout=15) == "declined"
        assert sandbox.decline_reason(low) == "later"
    finally:
        bot.stop()


def test_the_greeting_names_the_opponent_and_the_bot(sandbox: Sandbox, tmp_path: Path, searcher: SearchPool) -> None:
    settings: Settings = bot_settings(sandbox, tmp_path, greeting="Hi {opponent}, {me} here with {engine}.")
    bot = LocalBot(sandbox, settings, searcher).start()
    try:
        game_id = play(sandbox, "human")
        snapshot = sandbox.wait_game(game_id, lambda game: any(line.username == BOT for line in game.chat),
                                     timeout=15, what="the greeting")
        greeting = next(line.text for line in snapshot.chat if line.username == BOT)
        assert greeting.startswith("Hi human, mybot here with the built-in engine")
    finally:
        bot.stop()
