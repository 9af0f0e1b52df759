"""What the sandbox hosts: accounts, challenges and games as plain records, with the referee that moves a game on.

Plain data and Knightmate rules only (the referee is :class:`variant.KnightmateBoard`). Times are
milliseconds and instants are :func:`time.monotonic` seconds. Nothing here knows about HTTP, JSON,
threads or dialects, and nothing here locks: the world that owns these objects holds its lock
around every call.
"""

from __future__ import annotations

import dataclasses
import secrets
import string
from typing import NamedTuple

import chess

from variant import KnightmateBoard

#: Lichess's clock value for a side without a clock (unlimited and correspondence games).
NO_CLOCK_MS = 2_147_483_647

#: Game status names are Lichess's; ``illegalMove`` is the sandbox's own name for a pychess game
#: lost by posting an illegal move (Lichess refuses such a move instead).
STATUS_IDS = {
    "created": 10, "started": 20, "aborted": 25, "mate": 30, "resign": 31, "stalemate": 32,
    "timeout": 33, "draw": 34, "outoftime": 35, "cheat": 36, "noStart": 37, "unknownFinish": 38,
    "illegalMove": 39, "variantEnd": 60,
}

DECLINE_REASONS = ("generic", "later", "tooFast", "tooSlow", "timeControl", "rated", "casual",
                   "standard", "variant", "noBot", "onlyBot")

_ID_ALPHABET = string.ascii_letters + string.digits


def new_id() -> str:
    """An 8-character id like Lichess's game and challenge ids."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(8))


def color_name(color: chess.Color) -> str:
    return "white" if color == chess.WHITE else "black"


def decline_reason_key(text: str | None) -> str:
    """The canonical reason key for what a client sent; unknown or missing reasons are generic,
    as on Lichess (keys match case-insensitively)."""
    by_lower = {key.lower(): key for key in DECLINE_REASONS}
    return by_lower.get((text or "").strip().lower(), "generic")


def board_from_fen(fen: str | None) -> KnightmateBoard:
    """The board of a game from *fen* (None: the start). A FEN that parses but is not a legal
    Knightmate position still gives a board, as pychess starts such games and leaves it to the bot
    to abort them.

    :raises: :exc:`ValueError` if *fen* does not parse at all.
    """
    if fen is None:
        return KnightmateBoard()
    try:
        return KnightmateBoard(fen)
    except ValueError:
        board = KnightmateBoard(None)
        chess.Board.set_fen(board, fen)
        return board


@dataclasses.dataclass
class Account:
    """A user of the sandbox. ``strategy`` is None for an account played over HTTP by a client,
    else the name of the in-process opponent that plays it."""

    username: str
    token: str | None
    bot: bool
    rating: int = 1500
    strategy: str | None = None
    accepts_challenges: bool = True
    has_played: bool = False

    @property
    def id(self) -> str:
        return self.username.lower()

    @property
    def title(self) -> str | None:
        return "BOT" if self.bot else None


@dataclasses.dataclass
class HostedChallenge:
    """A challenge from ``challenger`` to ``dest``. ``color`` is what the challenger asked for
    (white, black or random); ``final_color`` the colour the challenger gets."""

    id: str
    challenger: Account
    dest: Account
    limit_s: int | None
    increment_s: int
    days: int | None
    rated: bool
    color: str
    final_color: str
    variant: str
    initial_fen: str | None
    level: int = 0
    status: str = "created"
    decline_reason: str | None = None
    game_id: str | None = None

    @property
    def speed(self) -> str:
        """Lichess's speed category, from the estimated game time limit + 40 × increment."""
        if self.days is not None:
            return "correspondence"
        if self.limit_s is None:
            return "unlimited"
        estimate = self.limit_s + 40 * self.increment_s
        for bound, name in ((30, "ultraBullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid")):
            if estimate < bound:
                return name
        return "classical"


class MovePost(NamedTuple):
    """One move POST as the server saw it."""

    username: str
    uci: str
    accepted: bool


class HostedChatLine(NamedTuple):
    username: str
    room: str
    text: str


class MoveRejected(Exception):
    """A move the referee did not play; ``reason`` is a short sentence for the client."""

    def __init__(self, reason: str, *, illegal: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.illegal = illegal


class HostedGame:
    """One game and its referee: the board, the clocks and the result.

    The clock of the side to move starts on the third ply: neither side is charged for its first
    move (Lichess starts clocks after both first moves; pychess does not charge the first two
    plies). A side flags when its clock reaches zero, at its next move or when the world's clock
    thread notices, whichever comes first.
    """

    def __init__(self, game_id: str, challenge: HostedChallenge, white: Account, black: Account, now: float) -> None:
        self.id = game_id
        self.challenge = challenge
        self.white = white
        self.black = black
        self.initial_fen = challenge.initial_fen
        self.board = board_from_fen(challenge.initial_fen)
        self.first_mover = self.board.turn
        self.moves: list[str] = []
        self.clocks_after_ms: list[int] = []   # the mover's clock after each move, increment added
        self.has_clock = challenge.limit_s is not None and challenge.days is None
        self.increment_ms = challenge.increment_s * 1000 if self.has_clock else 0
        initial = (challenge.limit_s or 0) * 1000 if self.has_clock else NO_CLOCK_MS
        self.initial_ms = initial
        self.times = {chess.WHITE: initial, chess.BLACK: initial}
        self.created_at = now
        self.turn_started = now
        self.status = "started"
        self.winner: chess.Color | None = None
        self.draw_offer: chess.Color | None = None
        #: The side whose player has left (a "gone" opponent), since when, and whether the other
        #: side has been told it may claim the win.
        self.gone: chess.Color | None = None
        self.gone_since = now
        self.gone_claimable_told = False
        self.posts: list[MovePost] = []
        self.duplicate_posts: list[MovePost] = []
        self.chat: list[HostedChatLine] = []

    @property
    def over(self) -> bool:
        return self.status != "started"

    @property
    def clock_running(self) -> bool:
        return self.has_clock and len(self.moves) >= 2 and not self.over

    def player(self, color: chess.Color) -> Account:
        return self.white if color == chess.WHITE else self.black

    def color_of(self, account: Account) -> chess.Color | None:
        if account.id == self.white.id:
            return chess.WHITE
        if account.id == self.black.id:
            return chess.BLACK
        return None

    def has_moved(self, color: chess.Color) -> bool:
        return len(self.moves) >= (1 if color == self.first_mover else 2)

    def remaining_ms(self, color: chess.Color, now: float) -> int:
        """The clock of *color* at *now* (the side to move's clock is running)."""
        if color == self.board.turn and self.clock_running:
            return self.times[color] - int((now - self.turn_started) * 1000)
        return self.times[color]

    def flag_time(self) -> float | None:
        """The instant the side to move runs out of time, or None when no clock is running."""
        if not self.clock_running:
            return None
        return self.turn_started + self.times[self.board.turn] / 1000

    def play(self, color: chess.Color, uci: str, now: float) -> None:
        """Plays *uci* for *color* and ends the game if the move ends it.

        *now* is when the move was made; a move that arrived before the turn began (it waited for
        the opponent's move to be played) counts as made when the turn began.

        :raises: :exc:`MoveRejected` if the game is over, it is not *color*'s turn, the move is
            illegal (``illegal`` set) or the mover's flag fell (the game then ends on time).
        """
        now = max(now, self.turn_started)
        if self.over:
            raise MoveRejected("the game is already over")
        if color != self.board.turn:
            raise MoveRejected("not your turn")
        try:
            move = self.board.parse_game_move(uci)
        except ValueError:
            raise MoveRejected(f"illegal move {uci}", illegal=True) from None
        if self.clock_running:
            left = self.remaining_ms(color, now)
            if left <= 0:
                self.flag()
                raise MoveRejected("your time ran out")
            self.times[color] = left + self.increment_ms
        self.board.push(move)
        self.moves.append(self.board.uci(move))
        self.clocks_after_ms.append(self.times[color])
        self.turn_started = now
        if self.draw_offer is not None and self.draw_offer != color:
            self.draw_offer = None  # a move declines the opponent's standing draw offer
        self._end_if_terminal()

    def flag(self) -> None:
        """Ends the game on time for the side to move; a draw if the other side cannot mate."""
        loser = self.board.turn
        self.times[loser] = 0
        winner = None if self.board.has_insufficient_material(not loser) else not loser
        self.finish("outoftime", winner)

    def finish(self, status: str, winner: chess.Color | None) -> None:
        self.status = status
        self.winner = winner
        self.draw_offer = None

    def _end_if_terminal(self) -> None:
        # Threefold repetition and the fifty-move rule end the game at once, as if claimed.
        outcome = self.board.outcome()
        if outcome is not None and outcome.termination == chess.Termination.CHECKMATE:
            self.finish("mate", outcome.winner)
        elif outcome is not None and outcome.termination == chess.Termination.STALEMATE:
            self.finish("stalemate", None)
        elif outcome is not None or self.board.is_repetition(3) or self.board.halfmove_clock >= 100:
            self.finish("draw", None)
