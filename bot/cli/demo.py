"""``knightmate-bot demo``: the whole bot, one game, on this machine, in about a minute.

Starts the sandbox on 127.0.0.1, the real bot (runner, client, search pool; the same code as
``run``, talking HTTP to the sandbox) and a random-moving opponent, has the opponent challenge the
bot to a 2+1 game, prints the moves as the sandbox records them, and at the end the PGN the bot
wrote. The engine (the built-in one, or the UCI engine ``--engine`` names) is capped at a short
time per move so the demo stays short. Nothing leaves the machine; files go to a temporary
directory that is removed afterwards.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path

import chess

from bot.cli.wiring import BotThread
from bot.config import BotSettings, ChallengeSettings, EngineSettings, GameSettings, Secret, ServerSettings, Settings
from bot.console.server import STATUS_HOST
from bot.games.storage import pgn_path
from bot.sandbox import Sandbox
from variant import STARTING_FEN, KnightmateBoard

BOT = "knightmate-bot"
OPPONENT = "randy"
#: The demo's game must end within a couple of minutes even if something is slow.
GAME_TIMEOUT_S = 150.0
#: How long the bot may take to open its event stream (its engine started, its account checked).
CONNECT_TIMEOUT_S = 60.0


def local_settings(url: str, dialect: str, directory: Path, *, move_time_ms: int = 300,
                   read_timeout_s: float = 10.0, concurrency: int = 1) -> Settings:
    """Settings for a bot playing a local sandbox; files under ``directory``."""
    return Settings(
        server=ServerSettings(url=url, dialect=dialect, connect_timeout_s=2.0, read_timeout_s=read_timeout_s,
                              backoff_initial_s=0.2, backoff_max_s=2.0),
        challenge=ChallengeSettings(concurrency=concurrency),
        engine=EngineSettings(move_overhead_ms=100, hash_mb=16, workers=1, max_move_time_ms=move_time_ms),
        game=GameSettings(pgn_dir=str(directory / "games"), state_file=str(directory / "state.json"),
                          give_up_after_s=20.0),
        bot=BotSettings(heartbeat_file=str(directory / "heartbeat")),
    )


def main(dialect: str = "lichess", engine_command: tuple[str, ...] | None = None,
         status_port: int | None = None) -> int:
    """Plays the demo; ``engine_command`` is an external UCI engine (``engine.command``), None the built-in one;
    ``status_port`` serves the bot's status page while the game lasts (its address printed with its key).
    A bad engine raises :class:`~bot.thinking.sources.EngineStartError` before the game starts, a port
    taken :class:`~bot.games.runner.StartupError`."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    token = secrets.token_urlsafe(16)
    with tempfile.TemporaryDirectory(prefix="knightmate-demo-") as temporary, \
            Sandbox(dialect=dialect, seed=7) as sandbox:
        directory = Path(temporary)
        sandbox.add_account(BOT, token=token, bot=True)
        sandbox.add_opponent(OPPONENT, bot=True, strategy="random")
        settings = local_settings(sandbox.url, dialect, directory)
        settings = dataclasses.replace(settings, engine=dataclasses.replace(settings.engine, command=engine_command),
                                       bot=dataclasses.replace(settings.bot, status_port=status_port))
        engine = "the built-in engine" if engine_command is None else " ".join(engine_command)
        print(f"sandbox ({dialect} dialect) on {sandbox.url}; the bot is {BOT!r} ({engine}), "
              f"its opponent {OPPONENT!r}")
        return _play(sandbox, settings, Secret(token))


def _play(sandbox: Sandbox, settings: Settings, token: Secret) -> int:
    """The demo game, from the challenge to the PGN; the bot runs on a thread until it is over."""
    stop = threading.Event()
    status_key = secrets.token_urlsafe(18)
    bot = BotThread(settings, token, stop, status_key=status_key).start()
    try:
        bot.wait_until(lambda timeout: sandbox.wait_connections("event", BOT, 1, timeout=timeout), CONNECT_TIMEOUT_S)
        if settings.bot.status_port is not None:
            print(f"the bot's status page: http://{STATUS_HOST}:{settings.bot.status_port}/?key={status_key}")
        challenge = sandbox.challenge(OPPONENT, BOT, limit_s=120, increment_s=1, color="random")
        print(f"{OPPONENT} challenges {BOT} to Knightmate 2+1: {sandbox.wait_challenge_answered(challenge, 10)}")
        game_id = sandbox.game_of_challenge(challenge)
        if game_id is None:
            print("no game started", file=sys.stderr)
            return 1
        _print_moves_live(sandbox, game_id)
        assert bot.runner is not None   # handed over before the bot connected
        bot.runner.wait_game_done(game_id, timeout=15)
        pgn = pgn_path(settings.game.pgn_dir, game_id)
        print()
        print(f"The bot's PGN ({pgn.name}):")
        print(pgn.read_text(encoding="utf-8"))
        return 0
    except TimeoutError as error:
        print(f"demo: {error}", file=sys.stderr)
        return 1
    finally:
        stop.set()
        bot.join(10)


def _print_moves_live(sandbox: Sandbox, game_id: str) -> None:
    record = sandbox.game(game_id)
    print(f"game {game_id}: {record.white} (white) vs {record.black} (black)")
    board = KnightmateBoard(record.initial_fen or STARTING_FEN)
    deadline = time.monotonic() + GAME_TIMEOUT_S
    while True:
        record = sandbox.wait_moves(game_id, len(board.move_stack) + 1, timeout=max(0.1, deadline - time.monotonic()))
        for uci in record.moves[len(board.move_stack):]:
            move = board.parse_uci(uci)
            number = board.fullmove_number
            prefix = f"{number}." if board.turn == chess.WHITE else f"{number}..."
            print(f"  {prefix} {board.san(move)}", flush=True)
            board.push(move)
        if record.over:
            winner = f", {record.winner} wins" if record.winner else ""
            print(f"game over: {record.status}{winner}")
            return
