"""The bot put together: client, engines and runner, the one way ``run``, ``demo`` and ``play`` start it.

``run`` calls :func:`play_on_server` on its main thread against the configured server; ``demo`` and
``play`` run it beside a local sandbox on a :class:`BotThread`, with settings that point at the
sandbox. So what the local commands show is what ``run`` does online. This module is on the run
path: it never imports the sandbox or the web page.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from typing import Protocol, TypeVar

from bot.config import Secret, Settings
from bot.console.server import STATUS_HOST, StatusServer
from bot.games.runner import Runner, StartupError
from bot.games.status import StatusRecorder
from bot.metrics import METRICS_HOST, MetricsServer
from bot.remote.client import Client
from bot.thinking.sources import open_move_sources

log = logging.getLogger(__name__)

#: How often :meth:`BotThread.wait_until` looks whether the bot has stopped.
WAIT_POLL_S = 0.5
#: The environment variable that holds the status page's session key (else a new one each start).
STATUS_KEY_ENV = "KNIGHTMATE_STATUS_KEY"


class _Listening(Protocol):
    @property
    def url(self) -> str: ...

    def close(self) -> None: ...


_Server = TypeVar("_Server", bound=_Listening)


def search_workers(settings: Settings) -> int:
    """``engine.workers``, or one per core but no more than games that can run at once."""
    if settings.engine.workers > 0:
        return settings.engine.workers
    return max(1, min(os.cpu_count() or 1, settings.challenge.concurrency))


def search_threads(settings: Settings, workers: int) -> int:
    """``engine.threads``, but no more than the cores leave each of the *workers*: every worker
    may search at once (one game each), and processes beyond the cores only take turns, so
    workers x threads stays within the cores (one thread at least)."""
    cores = os.cpu_count() or 1
    threads = min(settings.engine.threads, max(1, cores // workers))
    if threads < settings.engine.threads:
        log.warning("engine.threads %d lowered to %d: %d search workers on %d cores",
                    settings.engine.threads, threads, workers, cores)
    return threads


def play_on_server(settings: Settings, token: Secret, stop: threading.Event, finish: threading.Event | None = None,
                   started: Callable[[Runner], None] | None = None, status_key: str | None = None) -> int:
    """The bot on ``settings.server`` until ``stop`` (or, after ``finish``, until its games are over);
    *started* is handed the runner before it runs (to read results); *status_key* opens the status
    page (None: :data:`STATUS_KEY_ENV`, else a new key, logged with the page's address). The exit code.

    :raises: :exc:`~bot.thinking.sources.EngineStartError` (a bad ``engine.command``) before any
        challenge is accepted, :exc:`~bot.games.runner.StartupError` (the server refuses the account,
        or ``bot.metrics_port`` or ``bot.status_port`` is taken).
    """
    status = StatusRecorder()
    servers: list[_Listening] = []
    client: Client | None = None
    try:
        if settings.bot.metrics_port is not None:
            servers.append(_listen("bot.metrics_port", METRICS_HOST, settings.bot.metrics_port, MetricsServer))
            log.info("Prometheus metrics on %s", servers[-1].url)
        if settings.bot.status_port is not None:
            servers.append(status_page(settings.bot.status_port, status, status_key))
        client = Client(settings.server, token, give_up_after_s=settings.game.give_up_after_s)
        workers = search_workers(settings)
        # An external engine is started and checked here, before any challenge can be accepted.
        with open_move_sources(settings.engine, workers, search_threads(settings, workers)) as engines:
            runner = Runner(settings, client, engines, workers, status)
            if started is not None:
                started(runner)
            return runner.run(stop, finish)
    finally:
        if client is not None:
            client.close()
        for server in servers:
            server.close()


def status_page(port: int, status: StatusRecorder, key: str | None) -> StatusServer:
    """The status page; its address is logged with the key only when the key is new (the operator
    who set :data:`STATUS_KEY_ENV` knows it, and a key they chose stays out of the log)."""
    given = key or os.environ.get(STATUS_KEY_ENV)
    page_key = given or secrets.token_urlsafe(24)
    server = _listen("bot.status_port", STATUS_HOST, port, lambda free: StatusServer(free, status, page_key))
    log.info("status page on %s", server.url if given else f"{server.url}?key={page_key}")
    return server


def _listen(key: str, host: str, port: int, start: Callable[[int], _Server]) -> _Server:
    """A server of ours started on *port*; a port taken stops the start with one line naming *key*."""
    try:
        return start(port)
    except OSError as error:
        raise StartupError(f"{key}: cannot listen on {host}:{port}: {error.strerror or error}") from None


class BotThread:
    """:func:`play_on_server` on a thread of its own, for the commands that run the bot beside
    something else (``demo`` and ``play``). Setting *stop* ends it; it sets *stop* itself when the bot
    ends, since without the bot there is nothing left to do. Its error, if it failed, is kept for
    the caller's thread (:meth:`raise_error`)."""

    def __init__(self, settings: Settings, token: Secret, stop: threading.Event, status_key: str | None = None) -> None:
        self._settings = settings
        self._token = token
        self._stop = stop
        self._status_key = status_key
        self.runner: Runner | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="bot")

    def start(self) -> BotThread:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            play_on_server(self._settings, self._token, self._stop, started=self._started, status_key=self._status_key)
        except Exception as error:  # handed to the caller's thread, which reports it
            self.error = error
        finally:
            self._stop.set()

    def _started(self, runner: Runner) -> None:
        self.runner = runner

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def wait_until(self, ready: Callable[[float], object], timeout_s: float) -> None:
        """Waits up to *timeout_s* for *ready* while the bot runs. *ready* waits the seconds it is
        given and raises :exc:`TimeoutError` if what it waits for has not happened.

        :raises: the bot's own error if it stopped first (a bad engine, an account the server
            refuses), else :exc:`TimeoutError`.
        """
        deadline = time.monotonic() + timeout_s
        while self._thread.is_alive() and time.monotonic() < deadline:
            try:
                ready(min(WAIT_POLL_S, max(0.0, deadline - time.monotonic())))
                return
            except TimeoutError:
                pass
        self._thread.join(WAIT_POLL_S)
        self.raise_error()
        raise TimeoutError(f"the bot was not ready within {timeout_s:g} s")

    def raise_error(self) -> None:
        """Raises the bot's error, if it stopped with one."""
        if self.error is not None:
            raise self.error

