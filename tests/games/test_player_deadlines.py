"""bot.games.player's deadlines and retries with a scripted client: nothing fires twice, nothing spins,
and a move the server keeps refusing ends in a resignation, not a loop."""

from __future__ import annotations

import time
from pathlib import Path

from bot.config import GameSettings, ServerSettings, Settings
from bot.games.player import MAX_MOVE_ATTEMPTS, RESIGN_ATTEMPTS, GamePlayer
from bot.games.record import Result
from bot.remote.client import ClientError, MoveOutcome
from bot.remote.events import GameFull, GameState, OpponentGone, Player
from tests.helpers.games_harness import OneMoveEngine, ScriptedGameClient, game_full


class FailingCallsClient(ScriptedGameClient):
    """Abort, claim and resign answered from scripts of errors (``None`` = accepted); every call noted."""

    def __init__(self, answers: list[MoveOutcome], after_interrupt: GameFull, *,
                 failures: dict[str, list[ClientError | None]] | None = None) -> None:
        super().__init__(answers, after_interrupt)
        self.failures = failures or {}
        self.calls: dict[str, list[float]] = {"abort": [], "claim": [], "resign": []}
        self.cpu_at_call: list[float] = []

    def _call(self, kind: str) -> None:
        with self.changed:
            self.calls[kind].append(time.monotonic())
            self.cpu_at_call.append(time.process_time())
            self.changed.notify_all()
        script = self.failures.get(kind, [])
        error = script.pop(0) if len(script) > 1 else (script[0] if script else None)
        if error is not None:
            raise error

    def abort(self, game_id: str) -> None:
        self._call("abort")

    def claim_victory(self, game_id: str) -> None:
        self._call("claim")

    def resign(self, game_id: str) -> None:
        self._call("resign")

    def wait_calls(self, kind: str, count: int, timeout: float = 10) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: len(self.calls[kind]) >= count, timeout)


def start(client: ScriptedGameClient, tmp_path: Path, *, abort_after_s: float = 60.0
          ) -> tuple[GamePlayer, list[Result | None]]:
    settings = Settings(server=ServerSettings(backoff_initial_s=0.05, backoff_max_s=0.2),
                        game=GameSettings(pgn_dir=str(tmp_path), greeting="", goodbye="", abort_after_s=abort_after_s))
    done: list[Result | None] = []
    player = GamePlayer("g1", client=client, searcher=OneMoveEngine(), settings=settings,  # type: ignore[arg-type]
                        username="mybot", on_done=lambda game_id, result: done.append(result))
    player.start()
    return player, done


def as_black(moves: tuple[str, ...] = ()) -> GameFull:
    return GameFull(id="g1", variant="knightmate", white=Player("alice"), black=Player("mybot"), initial_fen=None,
                    base_ms=None, increment_ms=None, rated=None,
                    state=GameState(moves, 60_000, 60_000, 0, 0, "started"))


UNAVAILABLE = ClientError("HTTP 503", 503)


def assert_retried_without_spinning(client: FailingCallsClient, kind: str) -> None:
    assert client.wait_calls(kind, 4), f"{kind} was not tried again: {client.calls[kind]}"
    calls = client.calls[kind]
    gaps = [later - earlier for earlier, later in zip(calls, calls[1:], strict=False)]
    cpu = client.cpu_at_call[-1] - client.cpu_at_call[0]
    # Backoff 0.05, 0.1, 0.2 s (jittered to half at most); the spinning thread burnt ~0.6 CPU s a second.
    assert min(gaps) >= 0.02 and gaps[-1] >= 0.09
    assert cpu < 0.5 * (calls[-1] - calls[0]) + 0.05


def test_a_failed_abort_is_tried_again_with_backoff_and_the_thread_does_not_spin(tmp_path: Path) -> None:
    client = FailingCallsClient([], as_black(), failures={"abort": [UNAVAILABLE]})
    player, _ = start(client, tmp_path, abort_after_s=0.05)
    client.lines.put(as_black())
    assert_retried_without_spinning(client, "abort")
    player.stop()
    client.lines.put(None)   # the scripted stream ends
    player.join(5)


def test_a_failed_victory_claim_is_tried_again_with_backoff_and_the_thread_does_not_spin(tmp_path: Path) -> None:
    client = FailingCallsClient([MoveOutcome.LANDED], game_full(()), failures={"claim": [UNAVAILABLE]})
    player, _ = start(client, tmp_path)
    client.lines.put(game_full(()))
    client.wait(posts=1, interrupts=0)
    client.lines.put(OpponentGone(True, 0))
    assert_retried_without_spinning(client, "claim")
    player.stop()
    client.lines.put(None)   # the scripted stream ends
    player.join(5)


def test_a_refused_abort_of_a_first_move_deadline_is_not_tried_again(tmp_path: Path) -> None:
    client = FailingCallsClient([], as_black(), failures={"abort": [ClientError("HTTP 400", 400)]})
    player, _ = start(client, tmp_path, abort_after_s=0.05)
    client.lines.put(as_black())
    assert client.wait_calls("abort", 1)
    # The same state again (a keep-alive of the server, a reconnect): the deadline already fired.
    client.lines.put(as_black())
    assert not client.wait_calls("abort", 2, timeout=0.5)
    player.stop()
    client.lines.put(None)   # the scripted stream ends
    player.join(5)


def test_a_move_the_server_keeps_refusing_is_posted_a_few_times_then_the_bot_resigns(tmp_path: Path) -> None:
    client = FailingCallsClient([MoveOutcome.REJECTED] * (MAX_MOVE_ATTEMPTS + 5), after_interrupt=game_full(()))
    player, done = start(client, tmp_path)
    client.lines.put(game_full(()))
    assert client.wait_calls("resign", 1)
    assert player.finished.wait(5)     # pychess sends nothing after a resignation: the bot leaves
    assert client.posts == ["e2e3"] * MAX_MOVE_ATTEMPTS
    assert done == [Result("0-1", "normal", "the bot resigned")]


def test_a_bot_that_can_neither_move_nor_resign_gives_the_game_up(tmp_path: Path) -> None:
    client = FailingCallsClient([MoveOutcome.UNCERTAIN] * (MAX_MOVE_ATTEMPTS + 5), after_interrupt=game_full(()),
                                failures={"resign": [UNAVAILABLE]})
    player, done = start(client, tmp_path)
    client.lines.put(game_full(()))
    assert player.finished.wait(10)
    assert len(client.calls["resign"]) == RESIGN_ATTEMPTS
    assert len(done) == 1 and done[0] is not None and done[0].result == "*"
    assert "gave the game up" in done[0].reason
    assert "gave the game up" in (tmp_path / "g1.pgn").read_text()

