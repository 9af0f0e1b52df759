"""Shared harness for the bot's end-to-end tests: the real bot against the sandbox over HTTP on 127.0.0.1.

:class:`LocalBot` runs the real :class:`~bot.games.runner.Runner` (client, players, and the search pool
or an external UCI engine) on a thread; :func:`check_game` holds every assertion a finished game
must pass: over, every post by the bot legal and accepted, no post twice, no loss, and a PGN whose
result is the true one or an honest ``*``.
"""

from __future__ import annotations

import dataclasses
import io
import threading
import time
from collections.abc import Callable
from pathlib import Path

import chess.pgn

from bot.cli.demo import local_settings
from bot.config import Secret, Settings
from bot.games.runner import Runner
from bot.remote.client import Client
from bot.sandbox import GameSnapshot, Sandbox
from bot.thinking.sources import BuiltinMoveSources, MoveSources, Pool

BOT = "mybot"
TOKEN = "tok-mybot"
GAME_TIMEOUT_S = 90.0


def make_sandbox(dialect: str, seed: int = 5, **options: object) -> Sandbox:
    sandbox = Sandbox(dialect, keepalive_s=0.3, seed=seed, **options)  # type: ignore[arg-type]
    sandbox.start()
    sandbox.add_account(BOT, token=TOKEN, bot=True)
    sandbox.add_opponent("randy", strategy="random")
    sandbox.add_opponent("statue", strategy="idle")
    sandbox.add_opponent("human", strategy="random", bot=False)
    sandbox.add_opponent("leaver", strategy="gone")
    return sandbox


def bot_settings(sandbox: Sandbox, directory: Path, *, concurrency: int = 1, move_time_ms: int = 150,
                 **game: object) -> Settings:
    settings = local_settings(sandbox.url, sandbox.dialect.name, directory, move_time_ms=move_time_ms,
                              read_timeout_s=1.5, concurrency=concurrency)
    if game:
        settings = dataclasses.replace(settings, game=dataclasses.replace(settings.game, **game))  # type: ignore[arg-type]
    return settings


class LocalBot:
    """The bot on a thread of this process, as ``knightmate-bot run`` would run it; as a context manager,
    started on entry and stopped (cleanly, or the test fails) on exit."""

    def __init__(self, sandbox: Sandbox, settings: Settings, engines: MoveSources | Pool) -> None:
        self.sandbox = sandbox
        self.settings = settings
        self.client = Client(settings.server, Secret(TOKEN), give_up_after_s=settings.game.give_up_after_s)
        if not isinstance(engines, MoveSources):
            engines = BuiltinMoveSources(engines)  # a shared pool or a test's fake: every game searches with it
        self.runner = Runner(settings, self.client, engines, workers=1)
        self.stop_event = threading.Event()
        self.exit_code: int | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="bot-under-test", daemon=True)

    def _run(self) -> None:
        try:
            self.exit_code = self.runner.run(self.stop_event)
        except BaseException as error:  # handed to the test through self.error
            self.error = error

    def start(self) -> LocalBot:
        connected = self.sandbox.connections("event", BOT)
        self._thread.start()
        self.sandbox.wait_connections("event", BOT, connected + 1, timeout=10)
        return self

    def __enter__(self) -> LocalBot:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def stop(self) -> float:
        """Stops the bot as SIGTERM would; returns how long it took."""
        started = time.monotonic()
        self.stop_event.set()
        self._thread.join(15)
        assert not self._thread.is_alive(), "the bot did not stop"
        assert self.error is None and self.exit_code == 0
        return time.monotonic() - started


def play(sandbox: Sandbox, opponent: str = "randy", **challenge: object) -> str:
    """Challenges the bot; returns the game id once accepted."""
    challenge.setdefault("limit_s", 60)
    challenge.setdefault("increment_s", 1)
    cid = sandbox.challenge(opponent, BOT, **challenge)  # type: ignore[arg-type]
    assert sandbox.wait_challenge_answered(cid, timeout=10) == "accepted", sandbox.decline_reason(cid)
    game_id = sandbox.game_of_challenge(cid)
    assert game_id is not None
    return game_id


def decline_reason(sandbox: Sandbox, opponent: str = "randy", **challenge: object) -> str | None:
    cid = sandbox.challenge(opponent, BOT, **challenge)  # type: ignore[arg-type]
    assert sandbox.wait_challenge_answered(cid, timeout=10) == "declined"
    return sandbox.decline_reason(cid)


def check_game(sandbox: Sandbox, game_id: str, bot: LocalBot, *, may_lose: bool = False,
               allow_unknown: Callable[[GameSnapshot], bool] | None = None) -> tuple[GameSnapshot, chess.pgn.Game]:
    """Waits for the game's end and the bot's PGN; asserts everything a finished game must satisfy."""
    record = sandbox.wait_game_over(game_id, timeout=GAME_TIMEOUT_S)
    bot.runner.wait_game_done(game_id, timeout=30)
    mine = [post for post in record.posts if post.username == BOT]
    assert all(post.accepted for post in mine), f"illegal or refused posts: {mine}"
    assert not [post for post in record.duplicate_posts if post.username == BOT], record.duplicate_posts
    bot_color = "white" if record.white == BOT else "black"
    assert record.status not in ("outoftime", "timeout") or record.winner == bot_color, \
        f"lost on time: {record.status}"
    if not may_lose:
        assert record.winner in (None, bot_color), f"lost: {record.status}, {record.winner} wins"
    path = Path(bot.settings.game.pgn_dir) / f"{game_id}.pgn"
    assert path.exists(), f"no PGN at {path}"
    pgn = chess.pgn.read_game(io.StringIO(path.read_text(encoding="utf-8")))
    assert pgn is not None
    written = pgn.headers["Result"]
    assert pgn.headers["Variant"] == "Knightmate"
    assert {pgn.headers["White"].lower(), pgn.headers["Black"].lower()} == {record.white.lower(), record.black.lower()}
    if written == "*" and record.result != "*":
        assert sandbox.dialect.name == "pychess" or (allow_unknown and allow_unknown(record)), \
            f"Lichess says how games end; * is wrong here ({record.status})"
    else:
        assert written == record.result, f"PGN says {written}, game was {record.status} {record.winner}"
    return record, pgn
