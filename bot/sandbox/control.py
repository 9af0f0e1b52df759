"""The sandbox's Python control API: start and stop the server, set up accounts and opponents,
issue challenges, wait for things to happen and read what happened.

Tests and ``knightmate-bot demo`` drive the sandbox through :class:`Sandbox`; the bot under test
only ever speaks HTTP to :attr:`Sandbox.url`. Every wait here takes a timeout and raises
:exc:`TimeoutError` when it runs out, so a test never sleeps and never hangs. The server binds
loopback addresses only.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import threading
from collections.abc import Callable
from types import TracebackType

import chess

from bot.analysis import EngineCommand
from bot.loopback import is_loopback
from bot.sandbox.faults import Faults
from bot.sandbox.handler import SandboxServer
from bot.sandbox.hosted import Account, HostedChallenge, HostedChatLine, HostedGame, MovePost, color_name
from bot.sandbox.human import HumanSeat
from bot.sandbox.imitations import IMITATIONS
from bot.sandbox.opponents import STRATEGIES, OpponentPlayer, make_strategy
from bot.sandbox.world import World

logger = logging.getLogger(__name__)

@dataclasses.dataclass(frozen=True)
class GameSnapshot:
    """A snapshot of one game, taken under the sandbox's lock."""

    id: str
    white: str
    black: str
    initial_fen: str | None
    moves: list[str]
    status: str
    winner: str | None
    over: bool
    posts: list[MovePost]
    duplicate_posts: list[MovePost]
    chat: list[HostedChatLine]
    wtime_ms: int
    btime_ms: int
    clocks_after_ms: list[int]

    @property
    def result(self) -> str:
        """The game's true result as a PGN says it: "1-0", "0-1", "1/2-1/2", or "*" for a game
        aborted or never started (and one still on)."""
        if self.winner is not None:
            return "1-0" if self.winner == "white" else "0-1"
        return "*" if not self.over or self.status in ("aborted", "noStart") else "1/2-1/2"

    @classmethod
    def of(cls, game: HostedGame) -> GameSnapshot:
        times = game.times
        winner = color_name(game.winner) if game.winner is not None else None
        return cls(game.id, game.white.username, game.black.username, game.initial_fen, list(game.moves),
                   game.status, winner, game.over, list(game.posts), list(game.duplicate_posts),
                   list(game.chat), times[chess.WHITE], times[chess.BLACK], list(game.clocks_after_ms))


class Sandbox:
    """A Lichess-style Bot API server in this process, speaking the ``lichess`` or ``pychess`` dialect.

    :param keepalive_s: seconds between keep-alives (default: the dialect's, 7 or 6).
    :param first_move_timeout_s: a game whose first two plies are not played within this many
        seconds (per move) ends as ``noStart``.
    :param engine_movetime_ms: the ``engine`` opponent's time per move.
    :param opponent_delay_s: how long in-process opponents wait before each move.
    :param gone_claim_s: LichessImitation: seconds after which a ``gone`` opponent's game can be claimed.
    :param seed: seeds the random movers and colour draws, for reproducible games.
    :param level_engine: the UCI engine the computer's levels play (weakened to each level's
        ``UCI_Elo``); None: the built-in engine at each level.
    """

    def __init__(self, dialect: str = "lichess", *, host: str = "127.0.0.1", port: int = 0,
                 keepalive_s: float | None = None, first_move_timeout_s: float = 30.0,
                 engine_movetime_ms: int = 100, opponent_delay_s: float = 0.0, gone_claim_s: float = 10.0,
                 seed: int | None = None, level_engine: EngineCommand | None = None) -> None:
        if dialect not in IMITATIONS:
            raise ValueError(f"unknown dialect {dialect!r} (lichess or pychess)")
        if not is_loopback(host):
            raise ValueError(f"the sandbox binds loopback addresses only, not {host!r}")
        self.dialect = IMITATIONS[dialect]()
        self._rng = random.Random(seed)
        self._engine_movetime_ms = engine_movetime_ms
        self._opponent_delay_s = opponent_delay_s
        self._level_engine = level_engine
        self._players: list[OpponentPlayer] = []
        self._world = World(self.dialect, keepalive_s=keepalive_s or self.dialect.keepalive_s,
                            first_move_timeout_s=first_move_timeout_s, gone_claim_s=gone_claim_s,
                            start_opponent=self._start_opponent,
                            rng=self._rng)
        self.faults = Faults(self._world)
        self._server = SandboxServer((host, port), self._world, self.faults)
        port = self._server.server_address[1]
        self.url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
        self.dialect.base_url = self.url
        self._serve_thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                              name="sandbox-http", daemon=True)
        self._started = False
        self._stopped = False

    # Lifecycle.

    def start(self) -> Sandbox:
        if not self._started:
            self._started = True
            self._world.start()
            self._serve_thread.start()
            logger.info("sandbox (%s) listening on %s", self.dialect.name, self.url)
        return self

    def stop(self) -> None:
        """Ends every stream, stops serving, closes connections and joins every thread."""
        if self._stopped:
            return
        self._stopped = True
        self._world.stop()
        if self._started:
            self._server.shutdown()
        self._server.close_connections()
        self._server.server_close()
        for player in self._players:
            player.thread.join()

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()

    # Accounts.

    def add_account(self, username: str, token: str, *, bot: bool = True, rating: int = 1500) -> None:
        """An account a client logs in as with ``Authorization: Bearer <token>``. With ``bot=False``
        it is a plain account that can be upgraded through the API."""
        if not token:
            raise ValueError("a client account needs a token")
        self._world.add_account(Account(username, token, bot, rating))

    def add_opponent(self, username: str, *, bot: bool = True, strategy: str = "random", rating: int = 1500,
                     accepts_challenges: bool = True) -> None:
        """An account the sandbox plays itself with *strategy* (``random``, ``engine``, ``idle``, ``gone``).
        It accepts Knightmate challenges (when *accepts_challenges*) and declines other variants."""
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown opponent strategy {strategy!r} (one of {', '.join(STRATEGIES)})")
        self._world.add_account(Account(username, None, bot, rating, strategy, accepts_challenges))

    def add_person(self, username: str, *, bot: str, opponent: str | None = None,
                   computers: dict[int, str] | None = None) -> HumanSeat:
        """A person's account, played through the human seat (:mod:`bot.sandbox.human`) rather than
        the Bot API: the seat challenges *bot*, has the built-in *opponent* challenge it, and plays
        the *computers* (opponents of the ``level`` strategies, by level)."""
        account = Account(username, None, bot=False)
        self._world.add_account(account)
        return HumanSeat(self._world, account, bot=bot, opponent=opponent, computers=computers)

    # Challenges.

    def challenge(self, challenger: str, dest: str, *, limit_s: int | None = 60, increment_s: int = 0,
                  days: int | None = None, rated: bool = False, color: str = "random",
                  initial_fen: str | None = None, variant: str = "knightmate", level: int = 0) -> str:
        """Sends a challenge from *challenger* to *dest* and returns its id. *color* is the
        challenger's; ``limit_s=None`` with no *days* makes an unlimited game. A FEN that parses
        but is not a legal Knightmate position is allowed (the bot is expected to abort the game)."""
        with self._world.cond:
            challenge = self._world.create_challenge(
                self._world.account(challenger), self._world.account(dest), limit_s=limit_s,
                increment_s=increment_s, days=days, rated=rated, color=color, variant=variant,
                initial_fen=initial_fen, level=level)
        return challenge.id

    def rematch(self, challenger: str, dest: str, *, limit_s: int | None = 60, increment_s: int = 0,
                rated: bool = False, color: str = "random", initial_fen: str | None = None) -> str:
        """Starts a game at once, with a ``gameStart`` and no ``challenge`` line first (a pychess
        rematch); returns the game id. The arguments mean what they mean for :func:`challenge`."""
        with self._world.cond:
            challenge = self._world.create_challenge(
                self._world.account(challenger), self._world.account(dest), limit_s=limit_s,
                increment_s=increment_s, days=None, rated=rated, color=color, variant="knightmate",
                initial_fen=initial_fen, rematch=True)
            assert challenge.game_id is not None
            return challenge.game_id

    def cancel_challenge(self, challenge_id: str) -> None:
        """Withdraws an open challenge, as its challenger would (``challengeCanceled``)."""
        self._world.cancel(None, challenge_id)

    def challenges_from(self, username: str) -> list[str]:
        """Ids of the challenges *username* created, oldest first (e.g. the bot's own)."""
        with self._world.cond:
            return [cid for cid, challenge in self._world.challenges.items()
                    if challenge.challenger.id == username.lower()]

    def challenge_status(self, challenge_id: str) -> str:
        """``created``, ``accepted``, ``declined`` or ``canceled``."""
        with self._world.cond:
            return self._challenge(challenge_id).status

    def wait_challenge_answered(self, challenge_id: str, timeout: float) -> str:
        """Waits until the challenge is no longer open; returns its status."""
        with self._world.cond:
            challenge = self._challenge(challenge_id)
            self._wait(lambda: challenge.status != "created", timeout, f"challenge {challenge_id} answered")
            return challenge.status

    def decline_reason(self, challenge_id: str) -> str | None:
        """The reason key the challenge was declined with, as the server understood it."""
        with self._world.cond:
            return self._challenge(challenge_id).decline_reason

    def game_of_challenge(self, challenge_id: str) -> str | None:
        with self._world.cond:
            return self._challenge(challenge_id).game_id

    # Games.

    def game(self, game_id: str) -> GameSnapshot:
        with self._world.cond:
            return GameSnapshot.of(self._game(game_id))

    def games(self) -> list[GameSnapshot]:
        with self._world.cond:
            return [GameSnapshot.of(game) for game in self._world.games.values()]

    def wait_game_over(self, game_id: str, timeout: float) -> GameSnapshot:
        return self.wait_game(game_id, lambda record: record.over, timeout, "over")

    def wait_moves(self, game_id: str, plies: int, timeout: float) -> GameSnapshot:
        """Waits until the game has at least *plies* moves or is over."""
        return self.wait_game(game_id, lambda record: len(record.moves) >= plies or record.over, timeout,
                              f"at {plies} plies")

    def wait_game(self, game_id: str, predicate: Callable[[GameSnapshot], bool], timeout: float,
                  what: str = "in the awaited state") -> GameSnapshot:
        """Waits until *predicate* holds for the game's record; returns that record."""
        with self._world.cond:
            game = self._game(game_id)
            self._wait(lambda: predicate(GameSnapshot.of(game)), timeout, f"game {game_id} {what}")
            return GameSnapshot.of(game)

    def say(self, game_id: str, username: str, text: str, room: str = "player") -> None:
        """Makes *username* (a player of the game, usually an in-process opponent) chat; Lichess
        sends it to the players' game streams as a ``chatLine``, pychess to no bot."""
        self._game(game_id)
        self._world.chat(self._world.account(username), game_id, room, text, bot_only=False)

    def resign(self, game_id: str, username: str) -> None:
        """Makes *username* (usually an in-process opponent) resign, as its resign request would."""
        self._world.resign(self._world.account(username), game_id, bot_only=False)

    def abort(self, game_id: str, username: str) -> None:
        """Makes *username* abort the game, as its abort request would (Lichess: only before both
        sides have moved, else :exc:`~bot.sandbox.world.ApiError`)."""
        self._world.abort(self._world.account(username), game_id, bot_only=False)

    def abandon(self, game_id: str, username: str) -> None:
        """Makes *username* leave the game for good and lose it: status ``timeout`` (Lichess's "a
        player left"; pychess's ABANDONE, status 7 on its round socket)."""
        self._world.abandon(self._world.account(username), game_id)

    def offer_draw(self, game_id: str, username: str) -> None:
        """Makes *username* (an in-process opponent) offer a draw, Lichess only."""
        self._world.draw(self._world.account(username), game_id, True)

    # Streams.

    def connections(self, kind: str, username: str, game_id: str | None = None) -> int:
        """How many times *username* has opened a stream of *kind* ("event" or "game")."""
        with self._world.cond:
            return self._world.connects[(kind, username.lower(), game_id)]

    def open_streams(self, kind: str, username: str, game_id: str | None = None) -> int:
        """How many streams of *kind* of *username* the server counts as open now."""
        with self._world.cond:
            return sum(1 for stream in self._world.streams
                       if stream.kind == kind and stream.username == username.lower()
                       and (game_id is None or stream.game_id == game_id))

    def wait_connections(self, kind: str, username: str, count: int, timeout: float,
                         game_id: str | None = None) -> None:
        """Waits until *username* has opened at least *count* streams of *kind* in all."""
        with self._world.cond:
            self._wait(lambda: self._world.connects[(kind, username.lower(), game_id)] >= count, timeout,
                       f"{count} {kind} stream connections of {username}")

    def wait_open_streams(self, kind: str, username: str, count: int, timeout: float,
                          game_id: str | None = None) -> None:
        """Waits until exactly *count* streams of *kind* of *username* count as open."""
        with self._world.cond:
            self._wait(lambda: self.open_streams(kind, username, game_id) == count, timeout,
                       f"{count} open {kind} streams of {username}")

    # Internals.

    def _challenge(self, challenge_id: str) -> HostedChallenge:
        try:
            return self._world.challenges[challenge_id]
        except KeyError:
            raise ValueError(f"no challenge with id {challenge_id!r}") from None

    def _game(self, game_id: str) -> HostedGame:
        try:
            return self._world.games[game_id]
        except KeyError:
            raise ValueError(f"no game with id {game_id!r}") from None

    def _wait(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        if not self._world.cond.wait_for(predicate, timeout):
            raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")

    def _start_opponent(self, world: World, game: HostedGame, account: Account) -> None:
        assert account.strategy is not None
        strategy = make_strategy(account.strategy, movetime_ms=self._engine_movetime_ms,
                                 rng=random.Random(self._rng.random()), level_engine=self._level_engine)
        player = OpponentPlayer(world, game, account, strategy, self._opponent_delay_s)
        self._players = [running for running in self._players if running.thread.is_alive()]
        self._players.append(player)
        player.thread.start()




