"""bot.games.deadlines: a deadline fires once; following the same time again does not re-arm it."""

from __future__ import annotations

from bot.games.deadlines import Deadlines


def test_a_deadline_fires_once_and_only_when_its_time_has_come() -> None:
    deadlines: Deadlines[str] = Deadlines()
    deadlines.arm("abort", 10.0)
    deadlines.arm("fallback", 5.0)
    assert deadlines.next_at() == 5.0
    assert deadlines.due(4.9) == []
    assert deadlines.due(10.0) == ["fallback", "abort"]
    assert deadlines.due(11.0) == [] and deadlines.next_at() is None


def test_following_the_same_time_does_not_re_arm_a_fired_deadline() -> None:
    deadlines: Deadlines[str] = Deadlines()
    deadlines.follow("abort", 10.0)
    assert deadlines.due(10.0) == ["abort"]
    deadlines.follow("abort", 10.0)            # the next event says the same
    assert deadlines.next_at() is None and deadlines.due(100.0) == []
    deadlines.arm("abort", 12.0)               # a retry, armed explicitly
    deadlines.follow("abort", 10.0)
    assert deadlines.next_at() == 12.0
    deadlines.follow("abort", 20.0)            # a new time from the game: armed again
    assert deadlines.next_at() == 20.0
    deadlines.follow("abort", None)
    assert deadlines.next_at() is None
