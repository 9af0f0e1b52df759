"""Which challenges to accept: a pure function of the settings, the challenge and the load.

The answer is a :class:`Decision`: accept, or decline with one of the reason keys both servers
understand (``generic``, ``later``, ``tooFast``, ``tooSlow``, ``timeControl``, ``rated``,
``casual``, ``variant``, ``noBot``, ``onlyBot``), plus a sentence for the log. Checks go from the
most permanent reason to the most passing one, so a challenger is told ``later`` only when the
challenge would be accepted at a quieter moment. No I/O here.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.config import ChallengeSettings
from bot.remote.events import Challenge
from variant import KnightmateBoard

#: Lichess lets no bot play UltraBullet: an estimated game time (base + 40 increments) under 30 s.
ULTRABULLET_LIMIT_MS = 30_000


@dataclass(frozen=True)
class Decision:
    accept: bool
    reason: str | None      # the decline reason key; None when accepted
    why: str                # for the log

    @classmethod
    def accepted(cls) -> Decision:
        return cls(True, None, "accepted")

    @classmethod
    def declined(cls, reason: str, why: str) -> Decision:
        return cls(False, reason, why)


def decide(settings: ChallengeSettings, challenge: Challenge, active_games: int) -> Decision:
    """Accept or decline ``challenge`` while ``active_games`` games are being played."""
    if challenge.challenger.lower() in {name.lower() for name in settings.block_list}:
        return Decision.declined("generic", f"{challenge.challenger} is on the block list")
    if challenge.variant not in settings.variants:
        return Decision.declined("variant", f"variant {challenge.variant} is not played")
    problem = KnightmateBoard.start_position_problem(challenge.initial_fen)
    if problem is not None:
        return Decision.declined("generic", problem)
    time_decision = _time_control(settings, challenge)
    if time_decision is not None:
        return time_decision
    mode = "rated" if challenge.rated else "casual"
    if mode not in settings.modes:
        return Decision.declined(mode, f"{mode} games are not played")
    if challenge.challenger_is_bot and not settings.accept_bots:
        return Decision.declined("noBot", "bots are not accepted")
    if not challenge.challenger_is_bot and not settings.accept_humans:
        return Decision.declined("onlyBot", "only bots are accepted")
    if active_games >= settings.concurrency:
        return Decision.declined("later", f"already playing {active_games} of {settings.concurrency} games")
    return Decision.accepted()


def _time_control(settings: ChallengeSettings, challenge: Challenge) -> Decision | None:
    if challenge.time_control != "clock" or challenge.base_ms is None or challenge.increment_ms is None:
        return Decision.declined("timeControl", f"{challenge.time_control} games are not played, only clock games")
    base_s, increment_s = challenge.base_ms / 1000, challenge.increment_ms / 1000
    shown = f"{base_s:g}+{increment_s:g}"
    if challenge.base_ms + 40 * challenge.increment_ms < ULTRABULLET_LIMIT_MS:
        return Decision.declined("tooFast", f"{shown} is UltraBullet")
    if base_s < settings.min_base or increment_s < settings.min_increment:
        return Decision.declined("tooFast", f"{shown} is faster than {settings.min_base:g}+{settings.min_increment:g}")
    if base_s > settings.max_base or increment_s > settings.max_increment:
        return Decision.declined("tooSlow", f"{shown} is slower than {settings.max_base:g}+{settings.max_increment:g}")
    return None
