"""``knightmate-bot play``: play the bot, with its own configuration, on a web page on this machine.

Starts the sandbox (its Bot API on loopback, with a throwaway token), the bot against it through
the code ``run`` uses (:func:`bot.cli.wiring.play_on_server`: challenge rules, engine or
``engine.command``, book, ponder, PGN directory, all from the config; only ``server.*``, the state,
heartbeat and stop files are the sandbox's, so a live bot's files are never touched), a person's
seat, a sparring opponent and the computer at each level (the config's ``engine.command`` weakened
to the level's ``UCI_Elo`` when it names one, else the built-in engine), and the page
(:mod:`bot.web.page_server`, whose analysis board and reviews use that engine too, and whose puzzles
are the shipped set and ``game.puzzle_files``, read before anything starts) on ``--host``/``--port``.
Prints the page's address with its session key; runs until SIGINT or SIGTERM.
"""

from __future__ import annotations

import dataclasses
import functools
import ipaddress
import secrets
import tempfile
import threading
import webbrowser
from pathlib import Path
from typing import TextIO

from bot.analysis import EngineCommand
from bot.cli import operations
from bot.cli.stopping import event_on_signals
from bot.cli.wiring import BotThread
from bot.config import ConfigError, Secret, Settings
from bot.engine.levels import LEVELS
from bot.games.storage import pgn_path
from bot.loopback import is_loopback
from bot.sandbox import Sandbox
from bot.web.page_server import PageServer
from bot.web.puzzle_set import PuzzleFileError, load_puzzle_set

BOT = "knightmate-bot"
PERSON = "you"
OPPONENT = "sparring"
#: The computer at level N is the account ``computer-N``.
COMPUTER = "computer"
#: How long the bot may take to open its event stream before ``play`` gives up.
BOT_START_TIMEOUT_S = 60.0
#: How long the page waits for the bot's PGN file of a game that just ended.
PGN_WAIT_S = 5.0


class PlayError(Exception):
    """``play`` cannot start: one line for the person."""


def sandbox_settings(settings: Settings, url: str, dialect: str, directory: Path) -> Settings:
    """The config with the server pointed at the sandbox and the bot's bookkeeping files in *directory*."""
    return dataclasses.replace(
        settings,
        server=dataclasses.replace(settings.server, url=url, dialect=dialect, token_file=None),
        game=dataclasses.replace(settings.game, state_file=str(directory / "state.json")),
        bot=dataclasses.replace(settings.bot, heartbeat_file=str(directory / "heartbeat"),
                                stop_file=str(directory / "stop-after-games")))


def check_host(host: str) -> str:
    """*host* as an IP address the page may bind.

    :raises: :exc:`PlayError` for anything else.
    """
    if host == "localhost":
        return "127.0.0.1"
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        raise PlayError(f"--host must be an IP address, not {host!r}") from None


def play(*, config_path: str | None, dialect: str, host: str, port: int, open_browser: bool, out: TextIO,
         stop: threading.Event | None = None, ready: threading.Event | None = None,
         page_url: list[str] | None = None) -> int:
    """Runs everything until *stop* (or SIGINT/SIGTERM when *stop* is None); the exit code.

    *ready* is set and *page_url* gets the page's address with its key once the page can be used
    (for tests). :raises: :exc:`PlayError`, :exc:`~bot.config.ConfigError`, :exc:`OSError` (port).
    """
    host = check_host(host)
    settings = operations.load(config_path)
    operations.setup_logging(settings)
    try:
        puzzles = load_puzzle_set(settings.game.puzzle_files)
    except PuzzleFileError as error:
        raise ConfigError(f"game.puzzle_files: {error}") from None
    stop = stop if stop is not None else event_on_signals()
    token = secrets.token_urlsafe(18)
    key = secrets.token_urlsafe(24)
    engine = None if settings.engine.command is None else EngineCommand(settings.engine.command,
                                                                         settings.engine.options)
    analysis_engine = EngineCommand(settings.engine.command, settings.engine.options, settings.engine.analysis_slope)
    with (tempfile.TemporaryDirectory(prefix="knightmate-play-") as temporary,
          Sandbox(dialect, level_engine=engine) as sandbox):
        sandbox.add_account(BOT, token=token, bot=True)
        sandbox.add_opponent(OPPONENT, bot=True, strategy="engine")
        computers = {level.number: f"{COMPUTER}-{level.number}" for level in LEVELS}
        for number, username in computers.items():
            sandbox.add_opponent(username, bot=True, strategy=f"level{number}")
        seat = sandbox.add_person(PERSON, bot=BOT, opponent=OPPONENT, computers=computers)
        bot_settings = sandbox_settings(settings, sandbox.url, dialect, Path(temporary))
        bot = BotThread(bot_settings, Secret(token), stop).start()
        try:
            try:
                bot.wait_until(lambda timeout: sandbox.wait_connections("event", BOT, 1, timeout=timeout),
                               BOT_START_TIMEOUT_S)
            except TimeoutError:
                raise PlayError(f"the bot did not connect to the sandbox within {BOT_START_TIMEOUT_S:g} s") from None
            with PageServer((host, port), seat, key, functools.partial(_bot_pgn, bot, bot_settings),
                            analysis_engine, puzzles=puzzles) as page:
                serving = threading.Thread(target=page.serve_forever, kwargs={"poll_interval": 0.2}, name="page")
                serving.start()
                url = f"{page.url}/?key={key}"
                announce(out, url, host, dialect)
                if page_url is not None:
                    page_url.append(url)
                if ready is not None:
                    ready.set()
                if open_browser:
                    webbrowser.open(url)
                stop.wait()  # set by a signal, the caller, or the bot thread when the bot stops
                bot.join()
                sandbox.stop()  # ends the page's streams too
                page.analyser.stop()
                page.shutdown()
                page.close_connections()
                serving.join()
        finally:
            stop.set()
            bot.join()
    bot.raise_error()
    return 0


def _bot_pgn(bot: BotThread, settings: Settings, game_id: str) -> str | None:
    """The bot's PGN file of a game, once it is written (None for a game the bot did not finish)."""
    if bot.runner is None:
        return None
    try:
        bot.runner.wait_game_done(game_id, timeout=PGN_WAIT_S)
    except TimeoutError:
        return None
    try:
        return pgn_path(settings.game.pgn_dir, game_id).read_text(encoding="utf-8")
    except OSError:
        return None


def announce(out: TextIO, url: str, host: str, dialect: str) -> None:
    """Says where the page is, with a warning when it can be reached from other machines."""
    print(f"knightmate-bot play: the bot plays on a local sandbox ({dialect} dialect).", file=out)
    if not is_loopback(host):
        print(f"WARNING: the page listens on {host}, not only on this machine: anyone who can reach it and "
              "has the address below (it carries the key) can play as you.", file=out)
    print(f"Open {url} in a browser; Ctrl-C stops.", file=out, flush=True)
