"""Whom the bot met lately: the counts behind the limits per opponent of :mod:`bot.games.challenges`.

The runner tells it each challenge received and each one accepted, and asks it for the
:class:`~bot.games.challenges.Load` of a new challenge: games against the challenger now (the games a
challenge from it started; a rematch or a game resumed after a restart has no challenge and is not
counted), games accepted from it in the last hour, and challenges from the same bot within
``challenge.recent_bot_challenge_age_s``. Times are ``time.monotonic()`` seconds passed in, so
tests need no clock. Not thread-safe: the runner calls it under its lock. No I/O here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection

from bot.games.challenges import Load
from bot.remote.events import Challenge

#: The window of ``challenge.max_games_per_opponent_per_hour``.
HOUR_S = 3600.0


class Encounters:
    def __init__(self, recent_bot_challenge_age_s: float) -> None:
        self.recent_bot_challenge_age_s = recent_bot_challenge_age_s
        self._opponent_of: dict[str, str] = {}             # game id (= challenge id) -> challenger, lower case
        self._accepted: deque[tuple[float, str]] = deque()  # (when, challenger), oldest first
        self._bot_challenges: deque[tuple[float, str, str]] = deque()   # (when, challenger, challenge id)

    def challenged(self, challenge: Challenge, now: float) -> None:
        """A challenge came (counted for the limit of recent challenges from bots)."""
        if challenge.challenger_is_bot:
            self._bot_challenges.append((now, challenge.challenger.lower(), challenge.id))

    def accepted(self, challenge: Challenge, now: float) -> None:
        """A challenge was accepted: its game is against the challenger."""
        name = challenge.challenger.lower()
        self._opponent_of[challenge.id] = name
        self._accepted.append((now, name))

    def load(self, challenge: Challenge, active_game_ids: Collection[str], now: float) -> Load:
        """The load a decision on ``challenge`` weighs, while ``active_game_ids`` are played or
        accepted; the challenge itself is not counted among the recent ones (a waiting challenge is
        decided again)."""
        self._forget(active_game_ids, now)
        name = challenge.challenger.lower()
        return Load(
            active_games=len(active_game_ids),
            games_with_challenger=sum(1 for opponent in self._opponent_of.values() if opponent == name),
            games_with_challenger_last_hour=sum(1 for _, opponent in self._accepted if opponent == name),
            recent_challenges_from_challenger=sum(1 for _, sender, challenge_id in self._bot_challenges
                                                  if sender == name and challenge_id != challenge.id),
        )

    def _forget(self, active_game_ids: Collection[str], now: float) -> None:
        """Drops games no longer played and everything older than its window: the bot runs for weeks."""
        self._opponent_of = {game_id: name for game_id, name in self._opponent_of.items()
                             if game_id in active_game_ids}
        while self._accepted and now - self._accepted[0][0] >= HOUR_S:
            self._accepted.popleft()
        while self._bot_challenges and now - self._bot_challenges[0][0] >= self.recent_bot_challenge_age_s:
            self._bot_challenges.popleft()
