"""What the bot keeps on disk: the unfinished-games state file, the PGN files, the heartbeat.

Every write goes to a temporary file in the same directory first and is then renamed over the
target, so a bot killed mid-write leaves the old file or the new one, never half of one. A state
file that cannot be read is moved aside to ``<name>.corrupt`` (so the next save cannot overwrite
what an operator may still recover), logged, and treated as empty rather than stopping the bot:
losing track of a game is bad, refusing to start at all is worse. Nothing here knows about HTTP or chess.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bot.metrics import ERRORS

log = logging.getLogger(__name__)

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class StateFile:
    """The ids of the games the bot is playing, so a restarted bot reopens their streams, and what
    each game's first ``gameFull`` said about its setup (players, start position, time control),
    so a restarted bot can play it before its stream answers again.

    Thread-safe: game threads add and remove ids while the runner reads them. A file written
    before setups were kept (ids only) reads as ids without setups.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._ids: list[str] = []
        self._setups: dict[str, dict[str, Any]] = {}
        self._read()

    def _read(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError, RecursionError) as error:
            self._keep_aside(f"unreadable ({type(error).__name__})")
            return
        games = data.get("unfinished_games") if isinstance(data, dict) else None
        if not isinstance(games, list) or not all(isinstance(item, str) for item in games):
            self._keep_aside("without a list of game ids")
            return
        self._ids = games
        setups = data.get("setups")
        if isinstance(setups, dict):
            self._setups = {key: value for key, value in setups.items() if key in games and isinstance(value, dict)}

    def _keep_aside(self, problem: str) -> None:
        """Moves the bad file to the first free ``<name>.corrupt[.N]`` and says so."""
        for index in range(100):
            aside = self.path.with_name(self.path.name + ".corrupt" + (f".{index}" if index else ""))
            if not aside.exists():
                break
        try:
            os.replace(self.path, aside)
        except OSError as error:
            log.error("state file %s %s, and it cannot be moved aside (%s): starting without remembered "
                      "games; the next save overwrites it", self.path, problem, error.strerror)
            return
        log.error("state file %s %s: kept as %s; starting without remembered games", self.path, problem, aside)

    def game_ids(self) -> list[str]:
        with self._lock:
            return list(self._ids)

    def add(self, game_id: str) -> None:
        with self._lock:
            if game_id not in self._ids:
                self._ids.append(game_id)
                self._write()

    def remove(self, game_id: str) -> None:
        with self._lock:
            if game_id in self._ids:
                self._ids.remove(game_id)
                self._setups.pop(game_id, None)
                self._write()

    def note_setup(self, game_id: str, setup: dict[str, Any]) -> None:
        """Keeps *setup* (plain JSON data) for an unfinished game, until it is removed."""
        with self._lock:
            if game_id in self._ids and self._setups.get(game_id) != setup:
                self._setups[game_id] = setup
                self._write()

    def setup(self, game_id: str) -> dict[str, Any] | None:
        """The setup kept for *game_id*, if any: data from a file, to be checked before use."""
        with self._lock:
            return self._setups.get(game_id)

    def _write(self) -> None:
        try:
            document = {"unfinished_games": self._ids, "setups": self._setups}
            write_atomically(self.path, json.dumps(document, indent=1) + "\n")
        except OSError as error:
            log.error("cannot write state file %s: %s", self.path, error)


def pgn_path(directory: str | os.PathLike[str], game_id: str) -> Path:
    """Where the PGN of the game *game_id* is kept: ``DIRECTORY/<game id>.pgn``, the id's characters
    other than letters, digits, ``_`` and ``-`` replaced, so a server's id cannot leave the directory."""
    return Path(directory) / f"{_UNSAFE.sub('_', game_id) or 'game'}.pgn"


def write_pgn(directory: str | os.PathLike[str], game_id: str, text: str) -> Path | None:
    """Writes one finished game's PGN to :func:`pgn_path`; ``None`` (and a log line) on failure."""
    path = pgn_path(directory, game_id)
    try:
        write_atomically(path, text)
    except OSError as error:
        log.error("cannot write PGN %s: %s", path, error)
        ERRORS.labels(kind="storage").inc()
        return None
    return path


def touch(path: str | os.PathLike[str]) -> None:
    """Marks the heartbeat file as fresh; failures are logged once per call, never raised."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
        os.utime(target)
    except OSError as error:
        log.warning("cannot touch heartbeat file %s: %s", target, error)


def age_s(path: str | os.PathLike[str]) -> float | None:
    """Seconds since ``path`` was last touched, ``None`` if it does not exist."""
    try:
        return max(0.0, time.time() - Path(path).stat().st_mtime)
    except OSError:
        return None
