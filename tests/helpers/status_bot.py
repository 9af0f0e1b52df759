"""The real bot on a thread, started as ``run`` starts it, with its live status page on: for the
status page's tests over HTTP and in the browser."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path

from bot.cli.wiring import BotThread
from bot.config import Secret
from bot.sandbox import Sandbox
from tests.helpers.bot_harness import BOT, TOKEN, bot_settings
from tests.helpers.prometheus import free_port


@contextlib.contextmanager
def running_status_bot(sandbox: Sandbox, tmp_path: Path, key: str) -> Iterator[tuple[BotThread, str]]:
    """The bot with its status page on *key*, connected to *sandbox*; and the page's address. The
    bot's own error, if it had one, is raised after it stops."""
    port = free_port()
    settings = bot_settings(sandbox, tmp_path)
    settings = dataclasses.replace(settings, bot=dataclasses.replace(settings.bot, status_port=port))
    stop = threading.Event()
    connected = sandbox.connections("event", BOT)
    bot = BotThread(settings, Secret(TOKEN), stop, status_key=key).start()
    try:
        bot.wait_until(lambda timeout_s: sandbox.wait_connections("event", BOT, connected + 1, timeout=timeout_s), 30)
        yield bot, f"http://127.0.0.1:{port}"
    finally:
        stop.set()
        bot.join(15)
    bot.raise_error()
