"""External engines for the tests of ``bot/thinking/sources.py``: commands, the settings they run with,
and the engine processes this test process has running (read from ``/proc``, so the tests see what the
operating system sees, not what the bot believes)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.config import EngineSettings, parse_settings
from bot.own_command import OWN_COMMAND

FAIRY_STOCKFISH = shutil.which("fairy-stockfish") or (
    "/usr/games/fairy-stockfish" if os.access("/usr/games/fairy-stockfish", os.X_OK) else None)
needs_fairy_stockfish = pytest.mark.skipif(FAIRY_STOCKFISH is None, reason="fairy-stockfish is not installed")

_console_script = Path(sys.executable).with_name("knightmate-bot")
#: ``knightmate-bot uci`` as an operator writes it (the console script of this environment).
KNIGHTMATE_BOT_UCI = (f"{_console_script} uci" if _console_script.exists()
                      else shlex.join((*OWN_COMMAND, "uci")))
FAKE_ENGINE = (sys.executable, str(Path(__file__).with_name("uci_fake_engine.py")))


def recorded(record: Path, command: str) -> tuple[str, ...]:
    """The engine *command* behind a recorder that appends every line the engine is told to *record*."""
    return (sys.executable, str(Path(__file__).with_name("uci_recorder.py")), str(record), command)

#: Engine commands the end-to-end tests play with, as ``engine.command`` values.
ENGINE_COMMANDS = [pytest.param(KNIGHTMATE_BOT_UCI, id="knightmate-bot-uci"),
                   pytest.param(FAIRY_STOCKFISH, id="fairy-stockfish", marks=needs_fairy_stockfish)]


def uci_settings(command: str | tuple[str, ...], **values: object) -> EngineSettings:
    """EngineSettings read the way config.yml is read, with margins for a busy test machine."""
    engine: dict[str, object] = {"command": list(command) if isinstance(command, tuple) else command,
                                 "start_timeout_s": 30, "hang_margin_s": 2}
    engine.update(values)
    return parse_settings({"engine": engine}).engine


def engine_pids(marker: str) -> set[int]:
    """Live (not zombie) children of this process whose command line contains ``marker``."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile
        state, parent = stat.rsplit(")", 1)[1].split()[:2]
        if int(parent) == os.getpid() and state != "Z" and marker in command:
            pids.add(int(entry.name))
    return pids


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Polls a condition the operating system offers no event for (a process ending) until it holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"not within {timeout:g} s: {what}")
        time.sleep(0.05)
