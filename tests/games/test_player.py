"""bot.games.player with a scripted client and engine: a move whose answer was lost is never posted twice blindly."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

import chess

from bot.config import EngineSettings, GameSettings, Settings
from bot.dialect import PYCHESS
from bot.engine import Limits, SearchResult
from bot.games.player import GamePlayer
from bot.games.record import Result
from bot.remote.client import ClientError, MoveOutcome
from bot.remote.events import GameEnded, GameFull, GameState, GameStreamEvent, Player, ReportedResult


def full(moves: tuple[str, ...]) -> GameFull:
    return GameFull(id="g1", variant="knightmate", white=Player("mybot"), black=Player("alice"), initial_fen=None,
                    base_ms=None, increment_ms=None, rated=None,
                    state=GameState(moves, 60_000, 60_000, 0, 0, "started"))


class ScriptedClient:
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


def run_player(client: ScriptedClient, tmp_path: Path, engine: OneMoveEngine | None = None,
               ponder: bool = True, greeting: str = "", goodbye: str = "") -> tuple[GamePlayer, list[Result | None]]:
    settings = Settings(engine=EngineSettings(ponder=ponder),
                        game=GameSettings(pgn_dir=str(tmp_path), greeting=greeting, goodbye=goodbye))
    done: list[Result | None] = []
    player = GamePlayer("g1", client=client, searcher=engine or OneMoveEngine(), settings=settings,  # type: ignore[arg-type]
                        username="mybot", on_done=lambda game_id, result: done.append(result))
    player.start()
    return player, done


def test_an_unanswered_move_that_landed_is_not_posted_again(tmp_path: Path) -> None:
    client = ScriptedClient([MoveOutcome.UNCERTAIN], after_interrupt=full(("e2e3",)))
    player, done = run_player(client, tmp_path)
    client.lines.put(full(()))
    client.wait(posts=1, interrupts=1)          # the gameFull after the interrupt is queued first
    client.lines.put(GameEnded())
    assert player.finished.wait(5)
    assert client.posts == ["e2e3"] and len(done) == 1


def test_an_unanswered_move_that_did_not_land_is_posted_once_more(tmp_path: Path) -> None:
    client = ScriptedClient([MoveOutcome.UNCERTAIN, MoveOutcome.LANDED, MoveOutcome.LANDED],
                            after_interrupt=full(()))
    player, done = run_player(client, tmp_path)
    client.lines.put(full(()))
    client.wait(posts=2, interrupts=1)
    client.lines.put(GameState(("e2e3", "e7e6"), 60_000, 60_000, 0, 0, "started"))
    client.wait(posts=3, interrupts=1)
    client.lines.put(GameEnded())
    assert player.finished.wait(5)
    assert client.posts == ["e2e3", "e2e3", "d2d3"] and len(done) == 1


# Pondering hooks.

def play_two_moves(tmp_path: Path, ponder: bool) -> list[tuple[str, ...]]:
    client = ScriptedClient([MoveOutcome.LANDED, MoveOutcome.LANDED], after_interrupt=full(()))
    engine = OneMoveEngine()
    player, _ = run_player(client, tmp_path, engine, ponder=ponder)
    client.lines.put(full(()))
    client.wait(posts=1, interrupts=0)
    client.lines.put(GameState(("e2e3", "e7e6"), 60_000, 60_000, 0, 0, "started"))
    client.wait(posts=2, interrupts=0)
    client.lines.put(GameEnded())
    assert player.finished.wait(5)
    return engine.calls


def test_the_player_ponders_after_each_move_and_stops_when_the_game_ends(tmp_path: Path) -> None:
    assert play_two_moves(tmp_path, ponder=True) == [
        ("submit",),
        ("ponder", "e2e3", "e7e6"),                   # on the reply the engine expects
        ("submit", "e2e3", "e7e6"),                   # the next request ends the ponder search
        ("ponder", "e2e3", "e7e6", "d2d3"),           # no expected reply: the position after our move
        ("stop_ponder",),
    ]


def test_with_pondering_off_the_player_never_asks_for_it(tmp_path: Path) -> None:
    assert [call[0] for call in play_two_moves(tmp_path, ponder=False)] == ["submit", "submit", "stop_ponder"]


# Chat after the end: nothing to a game that was aborted or whose chat the server has closed.

def chats_of_a_game_ending(tmp_path: Path, status: str, *, greeting: str = "", chat_status: int | None = None,
                           winner: str | None = None, goodbye: str = "good game") -> list[str]:
    """The chat lines the player tries to post in a game that ends with *status* after the bot's first move."""
    client = ScriptedClient([MoveOutcome.LANDED], after_interrupt=full(()))
    client.chat_status = chat_status
    player, done = run_player(client, tmp_path, greeting=greeting, goodbye=goodbye)
    client.lines.put(full(()))
    client.wait(posts=1, interrupts=0)
    client.lines.put(GameState(("e2e3",), 60_000, 60_000, 0, 0, status, winner=winner))
    player.join(5)                              # the goodbye, if any, is the player's last act
    assert len(done) == 1
    return client.chats


def test_a_finished_game_gets_its_goodbye(tmp_path: Path) -> None:
    assert chats_of_a_game_ending(tmp_path, "resign", winner="white") == ["good game"]


def test_greeting_and_goodbye_name_the_opponent_the_bot_and_the_engine(tmp_path: Path) -> None:
    chats = chats_of_a_game_ending(tmp_path, "resign", winner="white", greeting="Hi {opponent}, {me} here ({engine})",
                                   goodbye="Thanks, {opponent}! {{gg}}")
    assert chats == ["Hi alice, mybot here (the one-move engine)", "Thanks, alice! {gg}"]


def test_an_aborted_game_gets_no_goodbye(tmp_path: Path) -> None:
    # pychess forgets an aborted game at once: a goodbye was answered 404.
    assert chats_of_a_game_ending(tmp_path, "aborted") == []


def test_after_a_404_to_a_chat_line_the_player_says_nothing_more_in_that_game(tmp_path: Path) -> None:
    assert chats_of_a_game_ending(tmp_path, "resign", greeting="hello", winner="white") == ["hello", "good game"]
    assert chats_of_a_game_ending(tmp_path, "resign", greeting="hello", winner="white", chat_status=404) == ["hello"]
    # Another failure (a rate limit, a server error) closes nothing.
    assert chats_of_a_game_ending(tmp_path, "resign", greeting="hello", winner="white",
                                  chat_status=429) == ["hello", "good game"]
