"""The typed events the bot reacts to, the same for both server dialects.

:mod:`bot.remote.wire` builds them from stream lines and :mod:`bot.remote.client` yields them; everything else
in the bot reads only these classes. Times are milliseconds, variants are lower-case keys, a
standard start position is ``None``. Nothing here knows about HTTP, URLs or dialects.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Lichess statuses of a game still being played; any other status means the game is over.
PLAYING_STATUSES = frozenset({"created", "started"})


@dataclass(frozen=True)
class KeepAlive:
    """A blank line (Lichess) or a ``ping`` line (pychess): the stream is alive."""


@dataclass(frozen=True)
class Challenge:
    id: str
    challenger: str
    challenger_is_bot: bool
    variant: str
    rated: bool
    time_control: str            # "clock", "correspondence" or "unlimited"
    base_ms: int | None          # clock games only
    increment_ms: int | None
    initial_fen: str | None      # None: the standard start, or not told (pychess)
    challenger_rating: int | None = None   # None: not told, or not a plausible rating


@dataclass(frozen=True)
class ChallengeReceived:
    challenge: Challenge


@dataclass(frozen=True)
class GameStarted:
    game_id: str


@dataclass(frozen=True)
class ServerShutdown:
    """pychess's ``terminated``: the server is going down; reconnect later."""


#: ``challengeCanceled``, ``challengeDeclined`` and ``gameFinish`` are not among them: the bot has
#: nothing to do about a challenge that is gone, and a game's end comes on the game's own stream.
EventStreamEvent = KeepAlive | ChallengeReceived | GameStarted | ServerShutdown


@dataclass(frozen=True)
class Player:
    name: str
    id: str | None = None
    title: str | None = None
    rating: int | None = None


@dataclass(frozen=True)
class GameState:
    moves: tuple[str, ...]
    wtime_ms: int
    btime_ms: int
    winc_ms: int
    binc_ms: int
    status: str
    winner: str | None = None    # "white" | "black" when the server says
    wdraw: bool = False          # white offers a draw
    bdraw: bool = False

    def clock_ms(self, color: bool) -> int:
        """The clock of white (*color* True, python-chess's ``chess.WHITE``) or black."""
        return self.wtime_ms if color else self.btime_ms

    @property
    def is_over(self) -> bool:
        return self.status not in PLAYING_STATUSES


@dataclass(frozen=True)
class GameFull:
    id: str
    variant: str
    white: Player
    black: Player
    initial_fen: str | None
    base_ms: int | None
    increment_ms: int | None
    rated: bool | None
    state: GameState


@dataclass(frozen=True)
class GameEnded:
    """pychess's bare ``gameEnd``: over, without a word about how."""


@dataclass(frozen=True)
class OpponentGone:
    gone: bool
    claim_win_in_s: int | None


@dataclass(frozen=True)
class ChatLine:
    room: str
    username: str
    text: str


GameStreamEvent = KeepAlive | GameFull | GameState | GameEnded | OpponentGone | ChatLine


@dataclass(frozen=True)
class ReportedResult:
    """How a game ended as the server shows it to anyone watching, asked once after a game stream
    ended without saying (pychess's bare ``gameEnd``)."""
    game_id: str
    status: str                  # a status name: Lichess's where one means the same, else the server's own
    result: str                  # "1-0", "0-1", "1/2-1/2" or "*"

    @property
    def is_over(self) -> bool:
        return self.status not in PLAYING_STATUSES


@dataclass(frozen=True)
class RoundBoard:
    """The game as pychess's round socket shows it to anyone watching (its first ``board`` message):
    how it stands or ended, and, where the message carries them, every move and both clocks now.

    The bot reads it when the game stream cannot be had (:mod:`bot.games.round_fallback`) and to learn
    how a game ended that the stream ended without a word."""
    game_id: str
    status: str                              # as in ReportedResult
    result: str
    moves: tuple[str, ...] | None = None     # UCI, from the start position; None: not told
    wtime_ms: int | None = None              # None: not told
    btime_ms: int | None = None

    @property
    def reported(self) -> ReportedResult:
        return ReportedResult(self.game_id, self.status, self.result)

    @property
    def is_over(self) -> bool:
        return self.reported.is_over
