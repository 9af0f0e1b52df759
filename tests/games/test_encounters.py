"""bot.games.encounters: the counts behind the limits per opponent, with the clock passed in."""

from __future__ import annotations

from dataclasses import replace

from bot.games.challenges import Load
from bot.games.encounters import HOUR_S, Encounters
from bot.remote.events import Challenge

ALICE = Challenge(id="a1", challenger="Alice", challenger_is_bot=False, variant="knightmate", rated=False,
                  time_control="clock", base_ms=60_000, increment_ms=0, initial_fen=None)
ROBOT = replace(ALICE, id="r1", challenger="Robot", challenger_is_bot=True)


def test_games_against_the_challenger_count_while_they_are_played_whatever_the_case() -> None:
    encounters = Encounters(recent_bot_challenge_age_s=60)
    encounters.accepted(ALICE, now=0)
    encounters.accepted(replace(ALICE, id="a2", challenger="ALICE"), now=1)
    encounters.accepted(ROBOT, now=2)
    load = encounters.load(replace(ALICE, id="a3"), {"a1", "a2", "r1"}, now=3)
    assert load == Load(active_games=3, games_with_challenger=2, games_with_challenger_last_hour=2)
    # a1 is over: it no longer counts as played, but still as accepted within the hour
    load = encounters.load(replace(ALICE, id="a3"), {"a2", "r1"}, now=4)
    assert (load.games_with_challenger, load.games_with_challenger_last_hour) == (1, 2)


def test_games_accepted_more_than_an_hour_ago_are_forgotten() -> None:
    encounters = Encounters(recent_bot_challenge_age_s=60)
    encounters.accepted(ALICE, now=0)
    assert encounters.load(ALICE, set(), now=HOUR_S - 1).games_with_challenger_last_hour == 1
    assert encounters.load(ALICE, set(), now=HOUR_S).games_with_challenger_last_hour == 0


def test_recent_challenges_count_bots_within_the_age_and_not_the_challenge_itself() -> None:
    encounters = Encounters(recent_bot_challenge_age_s=60)
    encounters.challenged(ALICE, now=0)         # a human: not counted
    encounters.challenged(ROBOT, now=0)
    encounters.challenged(replace(ROBOT, id="r2"), now=30)
    assert encounters.load(replace(ROBOT, id="r3"), set(), now=31).recent_challenges_from_challenger == 2
    assert encounters.load(ROBOT, set(), now=31).recent_challenges_from_challenger == 1   # decided again
    assert encounters.load(replace(ROBOT, id="r3"), set(), now=60).recent_challenges_from_challenger == 1
    assert encounters.load(ALICE, set(), now=31).recent_challenges_from_challenger == 0
