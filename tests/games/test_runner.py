"""bot.games.runner with a scripted client: what the runner does with events it fails on, challenges it
cannot decide on, a failing event stream, and games beyond ``challenge.concurrency``."""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import bot.games.runner
from bot.config import BotSettings, ChallengeSettings, GameSettings, ServerSettings, Settings
from bot.dialect import LICHESS
from bot.games.runner import Runner
from bot.remote.client import Backoff, ClientError
from bot.remote.events import (
    Challenge,
    ChallengeReceived,
    EventStreamEvent,
    GameEnded,
    GameFull,
    GameStarted,
    GameState,
    GameStreamEvent,
    Player,
    ReportedResult,
)


class ScriptedClient:
    """An event stream and game streams fed from queues; answers to challenges noted."""

    dialect = LICHESS

    def __init__(self, settings: ServerSettings, fail_events: bool = False) -> None:
        self.settings = settings
        self.stop = threading.Event()
        self.events_queue: queue.Queue[EventStreamEvent] = queue.Queue()
        self.games: dict[str, queue.Queue[GameStreamEvent | None]] = {}
        self.fail_events = fail_events
        self.events_opened: list[float] = []
        self.answers: list[tuple[str, str, str]] = []
        self.streams_opened: list[str] = []
        self.changed = threading.Condition()

    def backoff(self) -> Backoff:
        return Backoff(self.settings.backoff_initial_s, self.settings.backoff_max_s)

    def events(self) -> Iterator[EventStreamEvent]:
        with self.changed:
            self.events_opened.append(time.monotonic())
            self.changed.notify_all()
        if self.fail_events:
            raise RuntimeError("a bug in the stream reader")
        while not self.stop.is_set():
            try:
                yield self.events_queue.get(timeout=0.05)
            except queue.Empty:
                continue

    def game_events(self, game_id: str, stop: threading.Event, **_: object) -> Iterator[GameStreamEvent]:
        lines = self.game(game_id)
        with self.changed:
            self.streams_opened.append(game_id)
            self.changed.notify_all()
        while not stop.is_set():
            try:
                line = lines.get(timeout=0.05)
            except queue.Empty:
                continue
            if line is None:
                return
            yield line

    def game(self, game_id: str) -> queue.Queue[GameStreamEvent | None]:
        with self.changed:
            return self.games.setdefault(game_id, queue.Queue())

    def accept(self, challenge_id: str) -> None:
        self._answered(challenge_id, "accept", "")

    def decline(self, challenge_id: str, reason: str) -> None:
        self._answered(challenge_id, "decline", reason)

    def _answered(self, challenge_id: str, how: str, reason: str) -> None:
        with self.changed:
            self.answers.append((challenge_id, how, reason))
            self.changed.notify_all()

    def chat(self, game_id: str, text: str) -> None:
        pass

    def close(self) -> None:
        self.stop.set()

    def reported_result(self, game_id: str) -> ReportedResult:
        raise ClientError("this script has no round socket")

    def wait_for(self, predicate: Any, timeout: float = 10) -> bool:
        with self.changed:
            return self.changed.wait_for(predicate, timeout)


class NoEngine:
    """A game engine that cannot take a search: the player answers with a fallback move."""

    name = "no engine"

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: object) -> None:
        raise RuntimeError("no engine in this test")

    def ponder(self, initial_fen: str | None, moves: tuple[str, ...]) -> None:
        pass

    def stop_ponder(self) -> None:
        pass

    def close(self) -> None:
        pass


class NoEngines:
    def open(self, game_id: str) -> NoEngine:
        return NoEngine()


class SlowChatClient(ScriptedClient):
    """A client whose chat posts last until the test releases them, and fail once the client is
    closed under them, as a real post does."""

    def __init__(self, settings: ServerSettings, fail_events: bool = False) -> None:
        super().__init__(settings, fail_events)
        self.released = False
        self.chats: list[tuple[str, str, str]] = []   # game, text, and "sent" or "cut"
        self.chats_begun = 0

    def chat(self, game_id: str, text: str, room: str = "player") -> None:
        with self.changed:
            self.chats_begun += 1
            self.changed.notify_all()
            self.changed.wait_for(lambda: self.released or self.stop.is_set(), timeout=10)
            self.chats.append((game_id, text, "cut" if self.stop.is_set() else "sent"))
        if self.stop.is_set():
            raise ClientError("the client was closed during the post")

    def release(self) -> None:
        with self.changed:
            self.released = True
            self.changed.notify_all()

    def close(self) -> None:
        with self.changed:
            super().close()
            self.changed.notify_all()


def make_runner(tmp_path: Path, *, concurrency: int = 1, fail_events: bool = False, goodbye: str = "",
                client_type: type[ScriptedClient] = ScriptedClient,
                challenge: ChallengeSettings | None = None) -> tuple[Runner, ScriptedClient, threading.Thread]:
    server = ServerSettings(url="http://127.0.0.1:1", dialect="lichess", backoff_initial_s=0.05, backoff_max_s=1.0)
    challenge = challenge if challenge is not None else ChallengeSettings(concurrency=concurrency)
    settings = Settings(server=server, challenge=challenge,
                        game=GameSettings(pgn_dir=str(tmp_path / "games"), state_file=str(tmp_path / "state.json"),
                                          greeting="", goodbye=goodbye),
                        bot=BotSettings(heartbeat_file=str(tmp_path / "heartbeat")))
    client = client_type(server, fail_events)
    runner = Runner(settings, client, NoEngines(), workers=1)  # type: ignore[arg-type]
    runner.username = "mybot"
    thread = threading.Thread(target=runner._read_events, daemon=True)
    thread.start()
    return runner, client, thread


def stop(runner: Runner, client: ScriptedClient, thread: threading.Thread) -> None:
    runner.accepting = False
    client.close()
    thread.join(5)


class Heard(logging.Handler):
    """Sets :attr:`event` when log records have said *words* *times* times."""

    def __init__(self, words: str, times: int = 1) -> None:
        super().__init__()
        self.words = words
        self.times = times
        self.event = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.words in record.getMessage():
            self.times -= 1
            if self.times <= 0:
                self.event.set()


CHALLENGE = Challenge("c1", "alice", False, "knightmate", False, "clock", 60_000, 0, None)


def rated(challenge_id: str, rating: int | None) -> Challenge:
    return dataclasses.replace(CHALLENGE, id=challenge_id, challenger=f"player-{challenge_id}",
                               challenger_rating=rating)


@pytest.mark.parametrize(("sort_by", "first_served"), [("best", "high"), ("first", "low")])
def test_challenges_waiting_for_a_slot_get_it_in_sort_by_order_and_the_rest_later_at_shutdown(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, sort_by: str, first_served: str) -> None:
    caplog.set_level(logging.INFO, logger="bot")
    policy = ChallengeSettings(concurrency=1, wait_for_slot_s=60, sort_by=sort_by)
    runner, client, thread = make_runner(tmp_path, challenge=policy)
    client.game("g1").put(full_as_black("g1"))
    client.events_queue.put(GameStarted("g1"))
    assert client.wait_for(lambda: "g1" in client.streams_opened)
    waiting = Heard("waits for a free slot", times=3)
    logging.getLogger("bot.games.runner").addHandler(waiting)
    try:
        for challenge in (rated("low", 1200), rated("none", None), rated("high", 2000)):
            client.events_queue.put(ChallengeReceived(challenge))
        assert waiting.event.wait(10)
    finally:
        logging.getLogger("bot.games.runner").removeHandler(waiting)
    assert client.answers == []
    client.game("g1").put(GameEnded())
    runner.wait_game_done("g1", timeout=10)
    assert client.wait_for(lambda: client.answers)
    assert client.answers == [(first_served, "accept", "")]
    runner.shutdown()
    thread.join(5)
    assert sorted(client.answers[1:]) == sorted((cid, "decline", "later") for cid in ("low", "none", "high")
                                                if cid != first_served)


def test_a_challenge_the_runner_cannot_decide_on_is_declined_and_the_bug_logged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("a bug in the policy")
    monkeypatch.setattr(bot.games.runner, "decide", broken)
    runner, client, thread = make_runner(tmp_path)
    client.events_queue.put(ChallengeReceived(CHALLENGE))
    assert client.wait_for(lambda: client.answers)
    runner._answers.shutdown(wait=True)
    stop(runner, client, thread)
    assert client.answers == [("c1", "decline", "generic")]
    assert any("a bug in the policy" in (record.exc_text or "") for record in caplog.records)


def test_an_event_the_runner_fails_on_is_skipped_and_the_stream_read_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner, client, thread = make_runner(tmp_path)
    real_start = runner._start_player

    def start_player(game_id: str, resumed: bool = False) -> None:
        if game_id == "bad":
            raise RuntimeError("a bug")
        real_start(game_id, resumed)
    monkeypatch.setattr(runner, "_start_player", start_player)
    client.events_queue.put(GameStarted("bad"))
    client.events_queue.put(ChallengeReceived(CHALLENGE))
    assert client.wait_for(lambda: client.answers)
    stop(runner, client, thread)
    assert len(client.events_opened) == 1


def test_a_failing_event_stream_reader_is_reopened_with_backoff_not_every_second(tmp_path: Path) -> None:
    runner, client, thread = make_runner(tmp_path, fail_events=True)
    assert client.wait_for(lambda: len(client.events_opened) >= 5, timeout=15)
    stop(runner, client, thread)
    opened = client.events_opened
    gaps = [later - earlier for earlier, later in zip(opened, opened[1:], strict=False)]
    # Nominal 0.05, 0.1, 0.2, 0.4 s, jittered down to half at most (a fixed 1 s before).
    assert gaps[0] < 0.5 and gaps[3] >= 0.18


def full_as_black(game_id: str) -> GameFull:
    return GameFull(id=game_id, variant="knightmate", white=Player("alice"), black=Player("mybot"), initial_fen=None,
                    base_ms=60_000, increment_ms=0, rated=None,
                    state=GameState((), 60_000, 60_000, 0, 0, "started"))


def test_a_game_started_beyond_concurrency_waits_and_is_played_when_a_game_ends(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot")
    runner, client, thread = make_runner(tmp_path, concurrency=1)
    client.game("g1").put(full_as_black("g1"))
    client.game("g2").put(full_as_black("g2"))
    client.events_queue.put(GameStarted("g1"))
    client.events_queue.put(GameStarted("g2"))
    client.events_queue.put(ChallengeReceived(CHALLENGE))   # handled after both gameStarts
    assert client.wait_for(lambda: client.answers)
    assert set(runner._players) == {"g1"}
    assert any("g2: started beyond challenge.concurrency" in record.getMessage() and "waits" in record.getMessage()
               for record in caplog.records)
    client.game("g1").put(GameEnded())
    runner.wait_game_done("g1", timeout=10)
    assert client.wait_for(lambda: "g2" in client.streams_opened)
    assert set(runner._players) == {"g2"} and client.streams_opened == ["g1", "g2"]
    for player in list(runner._players.values()):
        player.stop()
    stop(runner, client, thread)


def test_a_late_game_start_for_a_game_already_over_does_not_open_it_again(tmp_path: Path) -> None:
    runner, client, thread = make_runner(tmp_path)
    client.game("g1").put(full_as_black("g1"))
    client.events_queue.put(GameStarted("g1"))
    assert client.wait_for(lambda: "g1" in client.streams_opened)
    client.game("g1").put(GameEnded())
    runner.wait_game_done("g1", timeout=10)
    client.events_queue.put(GameStarted("g1"))              # e.g. the event stream reopened
    client.events_queue.put(ChallengeReceived(CHALLENGE))   # handled after that gameStart
    assert client.wait_for(lambda: client.answers)
    assert runner._players == {} and client.streams_opened == ["g1"]
    stop(runner, client, thread)




def test_stopping_after_the_last_game_lets_its_goodbye_go_out_before_the_client_closes(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot")
    runner, client, thread = make_runner(tmp_path, goodbye="good game", client_type=SlowChatClient)
    assert isinstance(client, SlowChatClient)
    client.game("g1").put(full_as_black("g1"))
    client.events_queue.put(GameStarted("g1"))
    assert client.wait_for(lambda: "g1" in client.streams_opened)
    client.game("g1").put(GameEnded())
    runner.wait_game_done("g1", timeout=10)
    assert client.wait_for(lambda: client.chats_begun == 1)     # the goodbye is on its way
    waiting = Heard("to say goodbye")
    logging.getLogger("bot.games.runner").addHandler(waiting)
    try:
        stopping = threading.Thread(target=runner.shutdown)
        stopping.start()
        assert waiting.event.wait(10), "shutdown did not wait for the goodbye"
        client.release()
        stopping.join(10)
    finally:
        logging.getLogger("bot.games.runner").removeHandler(waiting)
    assert not stopping.is_alive() and client.stop.is_set()
    assert client.chats == [("g1", "good game", "sent")]
    thread.join(5)


def test_names_from_the_server_are_logged_with_control_characters_escaped(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot")
    runner, client, thread = make_runner(tmp_path)
    forged = "alice\n2026-01-01 INFO bot.games.runner: challenge c9 from admin: accepted\x1b[2J"
    challenge = Challenge("c1", forged, False, "knight\rmate", False, "clock", 60_000, 0, None)
    client.events_queue.put(ChallengeReceived(challenge))
    assert client.wait_for(lambda: client.answers)
    runner._answers.shutdown(wait=True)     # the answer is logged after it is sent
    stop(runner, client, thread)
    lines = [record.getMessage() for record in caplog.records if "challenge c1" in record.getMessage()]
    assert lines and all("\n" not in line and "\r" not in line and "\x1b" not in line for line in lines)
    assert any("alice\\n2026" in line and "\\x1b[2J" in line for line in lines)
