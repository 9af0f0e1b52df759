"""Which challenges to accept: a pure function of the settings, the challenge and the load.

The answer is a :class:`Decision`: accept, or decline with one of the reason keys both servers
understand (``generic``, ``later``, ``tooFast``, ``tooSlow``, ``timeControl``, ``rated``,
``casual``, ``variant``, ``noBot``, ``onlyBot``; pychess shows the same keys to the challenger as
Lichess's sentences and reads any other key as ``generic``), plus a sentence for the log. Checks go
from the most permanent reason to the most passing one, so a challenger is told ``later`` only when
the challenge would be accepted at a quieter moment, and a challenge declined only for want of a
free slot says so (:attr:`Decision.waits_for_slot`): the runner may keep it until a game ends.
Neither server has a key for a rating out of bounds or a name off the allow list: those are
``generic``. No I/O here: the :class:`Load` carries what the runner counted.
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
    waits_for_slot: bool = False    # declined only because every slot is taken

    @classmethod
    def accepted(cls) -> Decision:
        return cls(True, None, "accepted")

    @classmethod
    def declined(cls, reason: str, why: str) -> Decision:
        return cls(False, reason, why)


@dataclass(frozen=True)
class Load:
    """What the bot is doing as a challenge comes: the part of a decision that changes by the minute."""
    active_games: int = 0                       # played, or accepted and about to start
    games_with_challenger: int = 0              # of those, against this challenger
    games_with_challenger_last_hour: int = 0    # accepted from this challenger in the last hour
    recent_challenges_from_challenger: int = 0  # received before this one, within recent_bot_challenge_age_s


def decide(settings: ChallengeSettings, challenge: Challenge, load: Load) -> Decision:
    """Accept or decline ``challenge`` under ``load``."""
    name = challenge.challenger.lower()
    if name in {blocked.lower() for blocked in settings.block_list}:
        return Decision.declined("generic", f"{challenge.challenger} is on the block list")
    if settings.allow_list and name not in {allowed.lower() for allowed in settings.allow_list}:
        return Decision.declined("generic", f"{challenge.challenger} is not on the allow list")
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
    return _rating(settings, challenge) or _load(settings, challenge, load) or Decision.accepted()


def _rating(settings: ChallengeSettings, challenge: Challenge) -> Decision | None:
    low, high = settings.min_rating, settings.max_rating
    if low is None and high is None:
        return None
    rating = challenge.challenger_rating
    if rating is None:
        return Decision.declined("generic", "the challenger's rating is not known and the rating is bounded")
    if (low is not None and rating < low) or (high is not None and rating > high):
        bounds = f"{low if low is not None else ''}..{high if high is not None else ''}"
        return Decision.declined("generic", f"rating {rating} is outside {bounds}")
    return None


def _load(settings: ChallengeSettings, challenge: Challenge, load: Load) -> Decision | None:
    """The passing reasons, all ``later``; the free slot last, so that waiting for one is worth it."""
    limit = settings.max_games_per_opponent
    if limit is not None and load.games_with_challenger >= limit:
        return Decision.declined("later", f"already playing {load.games_with_challenger} game(s) against "
                                          f"{challenge.challenger}, the most at once")
    limit = settings.max_games_per_opponent_per_hour
    if limit is not None and load.games_with_challenger_last_hour >= limit:
        return Decision.declined("later", f"{load.games_with_challenger_last_hour} game(s) against "
                                          f"{challenge.challenger} in the last hour, the most per hour")
    limit = settings.max_recent_bot_challenges
    if challenge.challenger_is_bot and limit is not None and load.recent_challenges_from_challenger >= limit:
        return Decision.declined("later", f"{load.recent_challenges_from_challenger} challenge(s) from the bot "
                                          f"{challenge.challenger} in the last "
                                          f"{settings.recent_bot_challenge_age_s:g} s")
    if load.active_games >= settings.concurrency:
        return Decision(False, "later", f"already playing {load.active_games} of {settings.concurrency} games",
                        waits_for_slot=True)
    return None


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
