"""Stand-ins for the games layer's tests, without a server: a game record with the test settings, the
``gameFull`` of a pychess game, a client whose stream and move answers a test scripts, and an engine
that knows one move."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from concurrent.futures import Future

import chess

from bot.config import EngineSettings
from bot.dialect import PYCHESS
from bot.engine import Limits, SearchResult
from bot.games.clock_reserve import ClockReserve
from bot.games.record import Game
from bot.remote.client import ClientError, MoveOutcome
from bot.remote.events import GameFull, GameState, GameStreamEvent, Player, ReportedResult


def new_game(game_id: str = "g1", **overrides: object) -> Game:
    """A game with the config's default settings, but for a 30 s abort, no clock reserve (its rule
    is tested in test_clock_reserve) and any *overrides*."""
    engine = EngineSettings()
    options: dict[str, object] = {"site": "http://127.0.0.1:1", "move_overhead_ms": engine.move_overhead_ms,
                                  "max_move_time_ms": engine.max_move_time_ms, "abort_after_s": 30.0,
                                  "reserve": ClockReserve(), **overrides}
    return Game(game_id, "mybot", **options)  # type: ignore[arg-type]


def game_full(moves: tuple[str, ...]) -> GameFull:
    """The ``gameFull`` of a pychess game g1, mybot (White) against alice, after *moves*."""
    return GameFull(id="g1", variant="knightmate", white=Player("mybot"), black=Player("alice"), initial_fen=None,
                    base_ms=None, increment_ms=None, rated=None,
                    state=GameState(moves, 60_000, 60_000, 0, 0, "started"))


class ScriptedGameClient:
    """Game stream lines from a queue; move posts answered from a script."""

    dialect = PYCHESS

    def __init__(self, answers: list[MoveOutcome], after_interrupt: GameFull) -> None:
        self.lines: queue.Queue[GameStreamEvent | None] = queue.Queue()
        self.answers = answers
        self.after_interrupt = after_interrupt
        self.posts: list[str] = []
        self.changed = threading.Condition()
        self.interrupts = 0
        self.chats: list[str] = []                  # every chat line the player tried to post
        self.chat_status: int | None = None         # the HTTP status chat posts fail with; None: they pass

    def game_events(self, game_id: str, stop: threading.Event, **_: object) -> Iterator[GameStreamEvent]:
        while (line := self.lines.get(timeout=10)) is not None:
            yield line

    def post_move(self, game_id: str, uci: str, **kwargs: object) -> MoveOutcome:
        with self.changed:
            self.posts.append(uci)
            self.changed.notify_all()
            return self.answers.pop(0)

    def interrupt_game_stream(self, game_id: str) -> None:
        with self.changed:
            self.lines.put(self.after_interrupt)   # the reopened stream starts with gameFull
            self.interrupts += 1
            self.changed.notify_all()

    def wait(self, posts: int, interrupts: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.posts) >= posts and self.interrupts >= interrupts, 5)

    def chat(self, game_id: str, text: str, room: str = "player") -> None:
        self.chats.append(text)
        if self.chat_status is not None:
            raise ClientError(f"chat: HTTP {self.chat_status}", self.chat_status)

    def reported_result(self, game_id: str) -> ReportedResult:
        raise ClientError("this script has no round socket")


class OneMoveEngine:
    """Plays e2e3 (expecting e7e6) as its first move, d2d3 (no expected reply) after; notes every call."""

    name = "the one-move engine"

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits) -> Future[SearchResult]:
        self.calls.append(("submit", *moves))
        future: Future[SearchResult] = Future()
        pv: tuple[chess.Move, ...]
        if not moves:
            pv = (chess.Move.from_uci("e2e3"), chess.Move.from_uci("e7e6"))
        else:
            pv = (chess.Move.from_uci("d2d3"),)
        future.set_result(SearchResult(pv[0], 0, None, 1, 1, 1, pv))
        return future

    def ponder(self, initial_fen: str | None, moves: tuple[str, ...]) -> None:
        self.calls.append(("ponder", *moves))

    def stop_ponder(self) -> None:
        self.calls.append(("stop_ponder",))

    def close(self) -> None:
        self.calls.append(("close",))
