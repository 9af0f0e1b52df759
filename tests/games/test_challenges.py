"""The challenge policy: which challenges are accepted and which decline reason the others get."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.config import ChallengeSettings
from bot.games.challenges import decide
from bot.remote.events import Challenge
from variant import STARTING_FEN, KnightmateBoard

KNIGHTMATE_3_2 = Challenge(id="c1", challenger="Alice", challenger_is_bot=False, variant="knightmate",
                           rated=False, time_control="clock", base_ms=180_000, increment_ms=2_000,
                           initial_fen=None)
DEFAULTS = ChallengeSettings()


def reason(challenge: Challenge, settings: ChallengeSettings = DEFAULTS, active: int = 0) -> str | None:
    decision = decide(settings, challenge, active)
    assert decision.accept == (decision.reason is None)
    return decision.reason


def test_a_casual_knightmate_clock_game_is_accepted() -> None:
    assert reason(KNIGHTMATE_3_2) is None


def test_a_legal_custom_start_position_is_accepted() -> None:
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    assert reason(replace(KNIGHTMATE_3_2, initial_fen=fen)) is None


@pytest.mark.parametrize("fen", ["not a fen", "8/8/8/8/8/8/8/8 w - - 0 1", "4k3/8/8/8/8/8/8/4K2P w - - 0 1"])
def test_an_illegal_start_position_is_declined_generic(fen: str) -> None:
    assert KnightmateBoard.start_position_problem(fen) is not None
    assert reason(replace(KNIGHTMATE_3_2, initial_fen=fen)) == "generic"


def test_the_standard_start_fen_is_a_fine_start_position() -> None:
    assert KnightmateBoard.start_position_problem(STARTING_FEN) is None


def test_another_variant_is_declined_variant() -> None:
    assert reason(replace(KNIGHTMATE_3_2, variant="standard")) == "variant"


@pytest.mark.parametrize("kind", ["correspondence", "unlimited"])
def test_games_without_a_clock_are_declined_time_control(kind: str) -> None:
    assert reason(replace(KNIGHTMATE_3_2, time_control=kind, base_ms=None, increment_ms=None)) == "timeControl"


def test_ultrabullet_is_declined_too_fast_whatever_the_settings() -> None:
    assert reason(replace(KNIGHTMATE_3_2, base_ms=15_000, increment_ms=0)) == "tooFast"


@pytest.mark.parametrize(("base_ms", "increment_ms", "expected"), [
    (60_000, 0, "tooFast"),      # base below min_base
    (300_000, 0, "tooFast"),     # increment below min_increment
    (1_200_000, 1_000, "tooSlow"),
    (300_000, 10_000, "tooSlow"),
    (300_000, 1_000, None),
])
def test_clock_bounds_give_too_fast_and_too_slow(base_ms: int, increment_ms: int, expected: str | None) -> None:
    settings = ChallengeSettings(min_base=120, max_base=600, min_increment=1, max_increment=5)
    challenge = replace(KNIGHTMATE_3_2, base_ms=base_ms, increment_ms=increment_ms)
    assert reason(challenge, settings) == expected


def test_rated_challenge_is_declined_rated_when_only_casual_is_played() -> None:
    settings = ChallengeSettings(modes=("casual",))
    assert reason(replace(KNIGHTMATE_3_2, rated=True), settings) == "rated"
    assert reason(KNIGHTMATE_3_2, settings) is None


def test_casual_challenge_is_declined_casual_when_only_rated_is_played() -> None:
    assert reason(KNIGHTMATE_3_2, ChallengeSettings(modes=("rated",))) == "casual"


def test_bot_challenger_is_declined_no_bot_when_bots_are_not_accepted() -> None:
    settings = ChallengeSettings(accept_bots=False)
    assert reason(replace(KNIGHTMATE_3_2, challenger_is_bot=True), settings) == "noBot"
    assert reason(KNIGHTMATE_3_2, settings) is None


def test_human_challenger_is_declined_only_bot_when_humans_are_not_accepted() -> None:
    settings = ChallengeSettings(accept_humans=False)
    assert reason(KNIGHTMATE_3_2, settings) == "onlyBot"
    assert reason(replace(KNIGHTMATE_3_2, challenger_is_bot=True), settings) is None


def test_at_the_concurrency_limit_an_acceptable_challenge_is_declined_later() -> None:
    settings = ChallengeSettings(concurrency=2)
    assert reason(KNIGHTMATE_3_2, settings, active=1) is None
    assert reason(KNIGHTMATE_3_2, settings, active=2) == "later"


def test_at_the_limit_an_unacceptable_challenge_gets_its_own_reason_not_later() -> None:
    assert reason(replace(KNIGHTMATE_3_2, variant="chess"), active=1) == "variant"


def test_blocked_challenger_is_declined_whatever_the_case_of_the_name() -> None:
    assert reason(KNIGHTMATE_3_2, ChallengeSettings(block_list=("alice",))) == "generic"
