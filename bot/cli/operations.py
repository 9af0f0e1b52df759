"""The bot's subcommands behind the CLI: ``run``, ``upgrade``, ``health`` and ``stop-after-games``.

Each one loads the config (``./config.yml`` by default; when that default file does not exist the
documented defaults apply, so ``docker run IMAGE run`` with only a token works), and returns an
exit code. Problems an operator can fix raise :class:`~bot.config.ConfigError` or
:class:`~bot.games.runner.StartupError`, which the CLI prints as one line with exit code 2. SIGINT and
SIGTERM stop ``run`` cleanly with exit code 0 (its games go on after the next start); SIGUSR1 (or
``stop-after-games``, which leaves ``bot.stop_file`` for the running bot to find) makes it decline
new challenges, finish its games and then exit 0. Nothing here prints the token.
"""

from __future__ import annotations

import logging
import signal
import sys
from pathlib import Path

from bot.cli.stopping import event_on_signals
from bot.cli.wiring import play_on_server
from bot.config import ConfigError, Settings, load_settings, load_token, log_level
from bot.games.runner import StartupError
from bot.games.storage import age_s
from bot.remote.client import Client, ClientError

DEFAULT_CONFIG = "config.yml"

log = logging.getLogger(__name__)


def load(config_path: str | None) -> Settings:
    """The settings from ``config_path``; for the implicit default path, defaults if it is absent."""
    if config_path is None:
        if not Path(DEFAULT_CONFIG).exists():
            return Settings()
        config_path = DEFAULT_CONFIG
    return load_settings(config_path)


#: Libraries whose DEBUG lines can carry what must never reach a log, and are noise otherwise:
#: websockets prints every handshake header, the round socket's ``Set-Cookie`` (a pychess guest
#: session) among them; urllib3, requests and berserk print request lines; asyncio its event loop.
#: They log at INFO and above whatever ``bot.log_level`` says (higher when it says higher).
LIBRARY_LOGGERS = ("websockets", "urllib3", "requests", "berserk", "asyncio")


def setup_logging(settings: Settings) -> None:
    level = log_level(settings.bot)
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(levelname)-7s %(name)s: %(message)s")
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(max(level, logging.INFO))


def run(config_path: str | None) -> int:
    settings = load(config_path)
    token = load_token(settings.server)
    setup_logging(settings)
    stop = event_on_signals()
    finish = event_on_signals((signal.SIGUSR1,))
    return play_on_server(settings, token, stop, finish)


def upgrade(config_path: str | None) -> int:
    settings = load(config_path)
    client = Client(settings.server, load_token(settings.server), give_up_after_s=settings.game.give_up_after_s)
    try:
        client.upgrade_to_bot()
    except ClientError as error:
        raise StartupError(f"upgrade failed: {error} (only an account with no games can become a BOT)") from None
    finally:
        client.close()
    print("the account is now a BOT account")
    return 0


def health(config_path: str | None) -> int:
    """0 when the heartbeat file is fresh (the event stream said something lately), else 1."""
    settings = load(config_path)
    problem = _heartbeat_problem(settings)
    if problem is not None:
        print(f"unhealthy: {problem}")
        return 1
    print(f"healthy: last heartbeat {age_s(settings.bot.heartbeat_file) or 0:.0f} s ago")
    return 0


def stop_after_games(config_path: str | None) -> int:
    """Asks the bot running with this config to stop after its current games: 0 when word was left
    for it (``bot.stop_file``), 1 when no bot seems to run (its heartbeat is missing or stale)."""
    settings = load(config_path)
    problem = _heartbeat_problem(settings)
    if problem is not None:
        print(f"no running bot to ask: {problem}")
        return 1
    Path(settings.bot.stop_file).touch()
    print(f"asked the running bot to stop after its current games ({settings.bot.stop_file}); "
          "it declines new challenges meanwhile")
    return 0


def _heartbeat_problem(settings: Settings) -> str | None:
    """Why the heartbeat says no bot is running well, or ``None`` when it is fresh."""
    age = age_s(settings.bot.heartbeat_file)
    limit = settings.bot.heartbeat_max_age_s
    if age is None:
        return f"no heartbeat file {settings.bot.heartbeat_file}"
    if age > limit:
        return f"last heartbeat {age:.0f} s ago (limit {limit:g} s)"
    return None


__all__ = ["ConfigError", "StartupError", "health", "run", "stop_after_games", "upgrade"]
