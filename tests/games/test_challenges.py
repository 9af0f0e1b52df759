"""The challenge policy: which challenges are accepted and which decline reason the others get."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.config import ChallengeSettings
from bot.games.challenges import Load, decide
from bot.remote.events import Challenge
from variant import STARTING_FEN, KnightmateBoard

KNIGHTMATE_3_2 = Challenge(id="c1", challenger="Alice", challenger_is_bot=False, variant="knightmate",
                           rated=False, time_control="clock", base_ms=180_000, increment_ms=2_000,
                           initial_fen=None)
DEFAULTS = ChallengeSettings()


def reason(challenge: Challenge, settings: ChallengeSettings = DEFAULTS, active: int = 0,
           load: Load | None = None) -> str | None:
    decision = decide(settings, challenge, load if load is not None else Load(active_games=active))
    assert decision.accept == (decision.reason is None)
    assert not decision.waits_for_slot or decision.reason == "later"
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


def test_only_names_on_the_allow_list_may_challenge_whatever_the_case() -> None:
    settings = ChallengeSettings(allow_list=("ALICE", "bob"))
    assert reason(KNIGHTMATE_3_2, settings) is None
    assert reason(replace(KNIGHTMATE_3_2, challenger="carol"), settings) == "generic"
    assert reason(replace(KNIGHTMATE_3_2, challenger="carol"), ChallengeSettings()) is None  # empty: anyone


def test_the_block_list_wins_over_the_allow_list() -> None:
    assert reason(KNIGHTMATE_3_2, ChallengeSettings(allow_list=("alice",), block_list=("alice",))) == "generic"


@pytest.mark.parametrize(("rating", "expected"), [
    (1199, "generic"), (1200, None), (1800, None), (1801, "generic"), (None, "generic"),
])
def test_the_challengers_rating_must_be_within_the_bounds(rating: int | None, expected: str | None) -> None:
    settings = ChallengeSettings(min_rating=1200, max_rating=1800)
    assert reason(replace(KNIGHTMATE_3_2, challenger_rating=rating), settings) == expected


def test_one_rating_bound_alone_bounds_one_side_and_no_bound_accepts_the_unrated() -> None:
    assert reason(replace(KNIGHTMATE_3_2, challenger_rating=3000), ChallengeSettings(min_rating=1200)) is None
    assert reason(replace(KNIGHTMATE_3_2, challenger_rating=900), ChallengeSettings(min_rating=1200)) == "generic"
    assert reason(replace(KNIGHTMATE_3_2, challenger_rating=None)) is None


def test_games_at_once_against_one_opponent_are_limited_with_later() -> None:
    settings = ChallengeSettings(concurrency=4, max_games_per_opponent=2)
    assert reason(KNIGHTMATE_3_2, settings, load=Load(active_games=2, games_with_challenger=1)) is None
    decision = decide(settings, KNIGHTMATE_3_2, Load(active_games=2, games_with_challenger=2))
    assert (decision.reason, decision.waits_for_slot) == ("later", False)   # a free slot would not help


def test_games_per_hour_against_one_opponent_are_limited_with_later() -> None:
    settings = ChallengeSettings(max_games_per_opponent_per_hour=3)
    assert reason(KNIGHTMATE_3_2, settings, load=Load(games_with_challenger_last_hour=2)) is None
    assert reason(KNIGHTMATE_3_2, settings, load=Load(games_with_challenger_last_hour=3)) == "later"


def test_recent_challenges_are_limited_for_bots_only() -> None:
    settings = ChallengeSettings(max_recent_bot_challenges=2)
    busy = Load(recent_challenges_from_challenger=2)
    assert reason(replace(KNIGHTMATE_3_2, challenger_is_bot=True), settings, load=busy) == "later"
    assert reason(replace(KNIGHTMATE_3_2, challenger_is_bot=True), settings,
                  load=Load(recent_challenges_from_challenger=1)) is None
    assert reason(KNIGHTMATE_3_2, settings, load=busy) is None     # a human


def test_only_the_want_of_a_free_slot_lets_a_challenge_wait() -> None:
    full = decide(ChallengeSettings(concurrency=1), KNIGHTMATE_3_2, Load(active_games=1))
    assert (full.reason, full.waits_for_slot) == ("later", True)
    blocked = decide(ChallengeSettings(concurrency=1, allow_list=("bob",)), KNIGHTMATE_3_2, Load(active_games=1))
    assert (blocked.reason, blocked.waits_for_slot) == ("generic", False)
