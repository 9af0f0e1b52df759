"""``knightmate-bot play``: play the bot, with its own configuration, on a web page on this machine.

Starts the sandbox (its Bot API on loopback, with a throwaway token), the bot against it through
the code ``run`` uses (:func:`bot.cli.operations.play_on_server`: challenge rules, engine or
``engine.command``, book, ponder, PGN directory, all from the config; only ``server.*``, the state,
heartbeat and stop files are the sandbox's, so a live bot's files are never touched), a person's
seat and a built-in opponent, and the page (:mod:`bot.web.server`) on ``--host``/``--port``.
Prints the page's address with its session key; runs until SIGINT or SIGTERM.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import secrets
import signal
import tempfile
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from bot.cli import operations
from bot.config import Secret, Settings
from bot.engine.levels import LEVELS
from bot.games.runner import Runner
from bot.sandbox import Sandbox
from bot.web.server import PageServer

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
    stop = stop if stop is not None else _stop_on_signals()
    token = secrets.token_urlsafe(18)
    key = secrets.token_urlsafe(24)
    with tempfile.TemporaryDirectory(prefix="knightmate-play-") as temporary, Sandbox(dialect) as sandbox:
        sandbox.add_account(BOT, token=token, bot=True)
        sandbox.add_opponent(OPPONENT, bot=True, strategy="engine")
        computers = {level.number: f"{COMPUTER}-{level.number}" for level in LEVELS}
        for number, username in computers.items():
            sandbox.add_opponent(username, bot=True, strategy=f"level{number}")
        seat = sandbox.add_person(PERSON, bot=BOT, opponent=OPPONENT, computers=computers)
        bot_settings = sandbox_settings(settings, sandbox.url, dialect, Path(temporary))
        runners: list[Runner] = []
        outcome: list[int | BaseException] = []
        bot = threading.Thread(target=_run_bot, args=(bot_settings, Secret(token), stop, runners.append, outcome),
                               name="bot")
        bot.start()
        try:
            _wait_for_bot(sandbox, bot, outcome)
            with PageServer((host, port), seat, key, lambda game_id: _bot_pgn(runners, bot_settings, game_id)) as page:
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
    if outcome and isinstance(outcome[0], BaseException):
        raise outcome[0]
    return 0


def _run_bot(settings: Settings, token: Secret, stop: threading.Event, started: Callable[[Runner], None],
             outcome: list[int | BaseException]) -> None:
    try:
        outcome.append(operations.play_on_server(settings, token, stop, started=started))
    except Exception as error:  # handed to the main thread, which reports it
        outcome.append(error)
    finally:
        stop.set()  # without the bot there is nothing to play


def _wait_for_bot(sandbox: Sandbox, bot: threading.Thread, outcome: list[int | BaseException]) -> None:
    """Waits for the bot's event stream; the bot's own start-up error if it stopped first."""
    waited_s = 0.0
    while bot.is_alive() and waited_s < BOT_START_TIMEOUT_S:
        try:
            sandbox.wait_connections("event", BOT, 1, timeout=0.5)
            return
        except TimeoutError:
            waited_s += 0.5
    bot.join(1.0)
    if outcome and isinstance(outcome[0], BaseException):
        raise outcome[0]
    raise PlayError(f"the bot did not connect to the sandbox within {BOT_START_TIMEOUT_S:g} s")


def _bot_pgn(runners: list[Runner], settings: Settings, game_id: str) -> str | None:
    """The bot's PGN file of a game, once it is written (None for a game the bot did not finish)."""
    if not runners:
        return None
    try:
        runners[0].wait_game_done(game_id, timeout=PGN_WAIT_S)
    except TimeoutError:
        return None
    try:
        return (Path(settings.game.pgn_dir) / f"{game_id}.pgn").read_text(encoding="utf-8")
    except OSError:
        return None


def announce(out: TextIO, url: str, host: str, dialect: str) -> None:
    """Says where the page is, with a warning when it can be reached from other machines."""
    print(f"knightmate-bot play: the bot plays on a local sandbox ({dialect} dialect).", file=out)
    if not ipaddress.ip_address(host).is_loopback:
        print(f"WARNING: the page listens on {host}, not only on this machine: anyone who can reach it and "
              "has the address below (it carries the key) can play as you.", file=out)
    print(f"Open {url} in a browser; Ctrl-C stops.", file=out, flush=True)


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signal_number, lambda number, frame: stop.set())
    return stop
