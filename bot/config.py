"""Reads ``config.yml`` into typed, validated settings, once, at start.

Every key is optional and has a default (documented in the repository's ``config.yml``); a key
the bot does not know, a value of the wrong type or a bad URL raises :class:`ConfigError` with one
line that names the key, so the CLI can stop with that line and exit code 2 instead of a traceback
minutes later in the middle of a game. Durations in the file are seconds (as operators think of
them) except where the key says ``_ms``; the settings objects hold milliseconds wherever the
program computes with them.

The API token is never part of the settings: :func:`load_token` reads it from the environment or
from ``server.token_file`` into a :class:`Secret`, whose ``repr`` and ``str`` hide it. This module
must never log, print or put the token into an exception message.
"""

from __future__ import annotations

import logging
import math
import os
import shlex
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from chess.engine import MANAGED_OPTIONS

from bot.dialect import AUTO, DIALECTS, Dialect, resolve
from bot.engine.book import DEFAULT_BOOK, check_book_file
from bot.engine.levels import elo_from_options
from bot.engine.table import MAX_THREADS
from bot.loopback import is_loopback

TOKEN_ENV = "KNIGHTMATE_BOT_TOKEN"
DIALECT_CHOICES = (AUTO, *DIALECTS)
MODES = ("casual", "rated")
#: Where a chat command is answered: in both rooms of a game's chat, one of them, or nowhere.
CHAT_ROOMS = {"both": ("player", "spectator"), "player": ("player",), "spectator": ("spectator",), "off": ()}
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
#: The order waiting challenges get a free slot in: the oldest first, or the best-rated challenger first.
SORT_ORDERS = ("first", "best")
#: The placeholders a greeting or goodbye may hold: the opponent's name, the bot's, the engine's.
CHAT_FIELDS = ("opponent", "me", "engine")
#: The slopes a curve from centipawns to winning chances may have (Lichess's is 0.00368): outside
#: them an engine's scores would all read as level or all as won, a typo rather than a scale.
MIN_SLOPE, MAX_SLOPE = 0.0001, 0.1


class ConfigError(Exception):
    """A problem with the configuration, in one line a bot operator can act on."""


class Secret:
    """A token that does not show itself in logs, reprs or tracebacks."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The token itself, for the one place that puts it into an HTTP header."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


@dataclass(frozen=True)
class ServerSettings:
    url: str = "https://www.pychess.org"
    dialect: str = "auto"
    token_file: str | None = None
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 20.0
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 60.0
    rate_limit_pause_s: float = 60.0
    allow_insecure_http: bool = False

    @property
    def resolved_dialect(self) -> Dialect:
        """The dialect named, or for ``auto`` the one of the server's host (:func:`bot.dialect.resolve`)."""
        return resolve(self.dialect, self.url)


@dataclass(frozen=True)
class ChallengeSettings:
    variants: tuple[str, ...] = ("knightmate",)
    concurrency: int = 1
    accept_bots: bool = True
    accept_humans: bool = True
    modes: tuple[str, ...] = MODES
    # Seconds, unlike the rest of the program: the keys keep lichess-bot's names and units.
    min_base: float = 0.0
    max_base: float = 3 * 3600.0
    min_increment: float = 0.0
    max_increment: float = 180.0
    block_list: tuple[str, ...] = ()
    # Whom it plays beyond the above: each None (or an empty list) is no limit.
    allow_list: tuple[str, ...] = ()
    min_rating: int | None = None
    max_rating: int | None = None
    max_games_per_opponent: int | None = None
    max_games_per_opponent_per_hour: int | None = None
    max_recent_bot_challenges: int | None = None
    recent_bot_challenge_age_s: float = 60.0
    sort_by: str = "first"
    wait_for_slot_s: float = 0.0


#: A UCI option value as the config gives it: a check, a spin or a combo/string.
OptionValue = bool | int | str


@dataclass(frozen=True)
class EngineSettings:
    move_overhead_ms: int = 300
    hash_mb: int = 64
    workers: int = 0
    threads: int = 1
    max_move_time_ms: int | None = None
    command: tuple[str, ...] | None = None     # an external UCI engine; None = the built-in engine
    options: dict[str, OptionValue] = field(default_factory=dict)
    start_timeout_s: float = 10.0
    hang_margin_s: float = 3.0
    ponder: bool = True
    book: bool | str = True
    # The slope of the curve from the page's analysis engine's centipawns to winning chances
    # (bot.analysis.judgement); None = the engine's own (the built-in one's fit, else Lichess's).
    analysis_slope: float | None = None
    # The clock reserve (bot.games.clock_reserve): after a move the bot keeps at least the lesser of
    # these two, plus this many times the slowest recent move echo of the game.
    clock_reserve_ms: int = 5_000
    clock_reserve_share: float = 0.2
    latency_reserve_factor: float = 3.0

    @property
    def builtin_elo(self) -> int | None:
        """The strength ``options`` ask of the built-in engine (``UCI_LimitStrength`` and
        ``UCI_Elo``, checked by :func:`check`), or None for full strength."""
        return elo_from_options(self.options) if self.command is None else None

    @property
    def book_file(self) -> str | None:
        """The opening book the engine reads: the shipped one (``true``), none (``false``), or
        the Polyglot file named."""
        if isinstance(self.book, str):
            return self.book
        return str(DEFAULT_BOOK) if self.book else None


@dataclass(frozen=True)
class GameSettings:
    abort_after_s: float = 60.0
    greeting: str = "Hi! I am knightmate-bot, a Knightmate engine. Good luck!"
    goodbye: str = "Thanks for the game!"
    pgn_dir: str = "games"
    state_file: str = "knightmate-bot-state.json"
    give_up_after_s: float = 120.0
    # Puzzle CSVs the page of `play` serves besides the shipped set (read by bot.web.puzzle_set).
    puzzle_files: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChatSettings:
    """Where each chat command is answered (a key of :data:`CHAT_ROOMS`). ``!eval`` goes to
    spectators only by default, as with lichess-bot: the opponent does not read the bot's mind."""
    help: str = "both"
    eval: str = "spectator"
    name: str = "both"

    def rooms(self) -> dict[str, tuple[str, ...]]:
        """For each command, the rooms it is answered in."""
        return {item.name: CHAT_ROOMS[getattr(self, item.name)] for item in fields(self)}


@dataclass(frozen=True)
class BotSettings:
    log_level: str = "INFO"
    # Relative, like the state file: it lands in the bot's working (data) directory, not in a
    # shared /tmp where another user could own the name first.
    heartbeat_file: str = "knightmate-bot.heartbeat"
    heartbeat_max_age_s: float = 60.0
    # Where `knightmate-bot stop-after-games` leaves word for the running bot (next to the heartbeat).
    stop_file: str = "knightmate-bot.stop-after-games"
    metrics_port: int | None = None     # Prometheus's /metrics on 127.0.0.1 (bot.metrics); None: off
    status_port: int | None = None      # the live status page on 127.0.0.1 (bot.console); None: off


@dataclass(frozen=True)
class Settings:
    server: ServerSettings = field(default_factory=ServerSettings)
    challenge: ChallengeSettings = field(default_factory=ChallengeSettings)
    engine: EngineSettings = field(default_factory=EngineSettings)
    game: GameSettings = field(default_factory=GameSettings)
    chat: ChatSettings = field(default_factory=ChatSettings)
    bot: BotSettings = field(default_factory=BotSettings)


# How each key is read: a converter that returns the typed value or raises ValueError with
# what was expected. Keys not in this table are unknown keys.
Reader = Callable[[Any], Any]


def _number(minimum: float = 0.0, maximum: float = math.inf) -> Reader:
    def read(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("expected a number")
        if not minimum <= value <= maximum:
            raise ValueError(f"expected a number >= {minimum:g}" if value < minimum or math.isnan(value)
                             else f"expected a number <= {maximum:g}")
        return float(value)
    return read


def _integer(minimum: int, maximum: int | None = None) -> Reader:
    def read(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("expected a whole number")
        if value < minimum:
            raise ValueError(f"expected a whole number >= {minimum}")
        if maximum is not None and value > maximum:
            raise ValueError(f"expected a whole number from {minimum} to {maximum}")
        return value
    return read


def _port(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise ValueError("expected a port number from 1 to 65535")
    return value


def _optional(reader: Reader) -> Reader:
    def read(value: Any) -> Any:
        return None if value is None else reader(value)
    return read


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("expected true or false")
    return value


def _chat_template(value: Any) -> str:
    """A chat line in which ``{opponent}``, ``{me}`` and ``{engine}`` are filled in (``{{`` is a brace)."""
    if not isinstance(value, str):
        raise ValueError("expected a string")
    try:
        fields_named = [name for _, name, _, _ in string.Formatter().parse(value) if name is not None]
    except ValueError as error:
        raise ValueError(f"{error} (write {{{{ and }}}} for a brace)") from None
    for name in fields_named:
        if name not in CHAT_FIELDS:
            known = ", ".join("{" + field_name + "}" for field_name in CHAT_FIELDS)
            raise ValueError(f"unknown placeholder {{{name}}} (known: {known})")
    try:
        value.format(**{field_name: "x" for field_name in CHAT_FIELDS})
    except (ValueError, KeyError, IndexError) as error:
        raise ValueError(f"cannot fill in the placeholders ({error})") from None
    return value


def _path(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("expected a file or directory path")
    return value


def _choice(choices: tuple[str, ...], *, upper: bool = False) -> Reader:
    def read(value: Any) -> str:
        text = value.upper() if upper and isinstance(value, str) else value
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return str(text)
    return read


def _names(*, allowed: tuple[str, ...] | None = None, non_empty: bool = False) -> Reader:
    def read(value: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError("expected a list of strings")
        if non_empty and not value:
            raise ValueError("expected at least one entry")
        if allowed is not None:
            for item in value:
                if item not in allowed:
                    raise ValueError(f"{item!r} is not one of {', '.join(allowed)}")
        return tuple(item.lower() for item in value)
    return read


def _paths(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise ValueError("expected a list of file paths")
    return tuple(value)


def _command(value: Any) -> tuple[str, ...]:
    """A command line as one string (split like a shell would) or as a list of its words."""
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as error:
            raise ValueError(f"cannot split the command line ({error})") from None
    elif isinstance(value, list) and all(isinstance(word, str) for word in value):
        words = value
    else:
        raise ValueError("expected a command line, as a string or a list of strings")
    if not words or not words[0].strip():
        raise ValueError("expected a command line, as a string or a list of strings")
    return tuple(words)


def _uci_options(value: Any) -> dict[str, OptionValue]:
    """UCI option names and values; the engine itself says at start whether it has them."""
    if not isinstance(value, Mapping):
        raise ValueError("expected a mapping of UCI option names to values")
    options: dict[str, OptionValue] = {}
    for name, option in value.items():
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"expected option names as strings, got {name!r}")
        if name.lower() in MANAGED_OPTIONS:
            raise ValueError(f"{name} is set by the bot, not by the config")
        if not isinstance(option, bool | int | str):
            raise ValueError(f"expected true/false, a whole number or a string for {name!r}")
        options[name] = option
    return options


def _book(value: Any) -> bool | str:
    if isinstance(value, bool):
        return value
    if not isinstance(value, str) or not value.strip():
        raise ValueError("expected true, false or the path of a Polyglot book")
    check_book_file(value)  # its BookError is a ValueError with the reason
    return value


def _url(value: Any) -> str:
    parts = urlsplit(value.strip()) if isinstance(value, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("expected an http:// or https:// URL such as https://www.pychess.org")
    if parts.path.strip("/") or parts.query or parts.fragment:
        # The API's paths start at the root (berserk drops any base path); a path here is a mistake.
        raise ValueError("expected the server's root URL, without a path")
    return str(value).strip().rstrip("/")


_READERS: dict[str, dict[str, Reader]] = {
    "server": {
        "url": _url,
        "dialect": _choice(DIALECT_CHOICES),
        "token_file": _optional(_path),
        "connect_timeout_s": _number(0.1),
        "read_timeout_s": _number(0.1),
        "backoff_initial_s": _number(0.01),
        "backoff_max_s": _number(0.01),
        "rate_limit_pause_s": _number(0.0),
        "allow_insecure_http": _boolean,
    },
    "challenge": {
        "variants": _names(non_empty=True),
        "concurrency": _integer(1),
        "accept_bots": _boolean,
        "accept_humans": _boolean,
        "modes": _names(allowed=MODES, non_empty=True),
        "min_base": _number(),
        "max_base": _number(),
        "min_increment": _number(),
        "max_increment": _number(),
        "block_list": _names(),
        "allow_list": _names(),
        "min_rating": _optional(_integer(0)),
        "max_rating": _optional(_integer(0)),
        "max_games_per_opponent": _optional(_integer(1)),
        "max_games_per_opponent_per_hour": _optional(_integer(1)),
        "max_recent_bot_challenges": _optional(_integer(1)),
        "recent_bot_challenge_age_s": _number(1.0),
        "sort_by": _choice(SORT_ORDERS),
        "wait_for_slot_s": _number(0.0),
    },
    "engine": {
        "move_overhead_ms": _integer(0),
        "hash_mb": _integer(1),
        "workers": _integer(0),
        "threads": _integer(1, maximum=MAX_THREADS),
        "max_move_time_ms": _optional(_integer(1)),
        "command": _optional(_command),
        "options": _uci_options,
        "start_timeout_s": _number(0.1),
        "hang_margin_s": _number(0.1),
        "ponder": _boolean,
        "book": _book,
        "analysis_slope": _optional(_number(MIN_SLOPE, maximum=MAX_SLOPE)),
        "clock_reserve_ms": _integer(0),
        "clock_reserve_share": _number(0.0, maximum=0.5),
        "latency_reserve_factor": _number(0.0, maximum=20.0),
    },
    "game": {
        "abort_after_s": _number(1.0),
        "greeting": _chat_template,
        "goodbye": _chat_template,
        "pgn_dir": _path,
        "state_file": _path,
        "give_up_after_s": _number(1.0),
        "puzzle_files": _paths,
    },
    "chat": {
        "help": _choice(tuple(CHAT_ROOMS)),
        "eval": _choice(tuple(CHAT_ROOMS)),
        "name": _choice(tuple(CHAT_ROOMS)),
    },
    "bot": {
        "log_level": _choice(LOG_LEVELS, upper=True),
        "heartbeat_file": _path,
        "heartbeat_max_age_s": _number(1.0),
        "stop_file": _path,
        "metrics_port": _optional(_port),
        "status_port": _optional(_port),
    },
}

_SECTIONS: dict[str, type[Any]] = {
    "server": ServerSettings,
    "challenge": ChallengeSettings,
    "engine": EngineSettings,
    "game": GameSettings,
    "chat": ChatSettings,
    "bot": BotSettings,
}


def parse_settings(document: Any) -> Settings:
    """Settings from an already parsed YAML document (``None`` for an empty file)."""
    if document is None:
        return Settings()
    if not isinstance(document, Mapping):
        raise ConfigError("the configuration must be a mapping of sections (server:, challenge:, ...)")
    sections: dict[str, Any] = {}
    for name, body in document.items():
        if name not in _SECTIONS:
            raise ConfigError(f"unknown key {name!r} (known sections: {', '.join(_SECTIONS)})")
        sections[name] = _parse_section(str(name), body)
    settings = Settings(**sections)
    _check_consistency(settings)
    return settings


def _parse_section(section: str, body: Any) -> Any:
    if body is None:
        return _SECTIONS[section]()
    if not isinstance(body, Mapping):
        raise ConfigError(f"{section}: expected a mapping of keys")
    readers = _READERS[section]
    values: dict[str, Any] = {}
    for key, value in body.items():
        if key not in readers:
            raise ConfigError(f"unknown key '{section}.{key}' (known: {', '.join(readers)})")
        try:
            values[key] = readers[key](value)
        except ValueError as error:
            raise ConfigError(f"{section}.{key}: {error}, got {_shown(value)}") from None
    return _SECTIONS[section](**values)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_consistency(settings: Settings) -> None:
    challenge = settings.challenge
    if challenge.min_base > challenge.max_base:
        raise ConfigError("challenge.min_base: must not be greater than challenge.max_base")
    if challenge.min_increment > challenge.max_increment:
        raise ConfigError("challenge.min_increment: must not be greater than challenge.max_increment")
    if challenge.min_rating is not None and challenge.max_rating is not None \
            and challenge.min_rating > challenge.max_rating:
        raise ConfigError("challenge.min_rating: must not be greater than challenge.max_rating")
    if not (challenge.accept_bots or challenge.accept_humans):
        raise ConfigError("challenge.accept_bots: accept_bots and accept_humans are both false")
    engine = settings.engine
    if engine.max_move_time_ms is not None and engine.max_move_time_ms <= engine.move_overhead_ms:
        # The overhead is taken off every move's time: the engine would think a few milliseconds.
        raise ConfigError(f"engine.max_move_time_ms: must be greater than engine.move_overhead_ms "
                          f"({engine.max_move_time_ms} <= {engine.move_overhead_ms}), which is taken off "
                          "every move's thinking time")
    if engine.options and engine.command is None:
        try:
            elo_from_options(engine.options)
        except ValueError as error:
            raise ConfigError(f"engine.options: {error}") from None
    if settings.server.backoff_initial_s > settings.server.backoff_max_s:
        raise ConfigError("server.backoff_initial_s: must not be greater than server.backoff_max_s")
    url = urlsplit(settings.server.url)
    if url.scheme == "http" and not settings.server.allow_insecure_http and not is_loopback(url.hostname or ""):
        raise ConfigError(f"server.url: plain http:// would send the API token in clear to {url.hostname}; "
                          "use https://, or set server.allow_insecure_http: true")


def load_settings(path: str | os.PathLike[str]) -> Settings:
    """Reads and validates a config file; a missing file is an error, an empty one all defaults."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file (pass --config PATH)") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}: not valid YAML{where}") from None
    try:
        return parse_settings(document)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def load_token(settings: ServerSettings, environ: Mapping[str, str] | None = None) -> Secret:
    """The API token from ``KNIGHTMATE_BOT_TOKEN``, else from ``server.token_file``.

    A token with a line break, a space or a control character inside (two lines in the token file)
    cannot go into an HTTP header: it stops the start here, rather than failing every request.
    """
    environ = os.environ if environ is None else environ
    value = environ.get(TOKEN_ENV, "").strip()
    if value:
        return _checked_token(value, TOKEN_ENV)
    if settings.token_file is None:
        raise ConfigError(f"no API token: set {TOKEN_ENV} or server.token_file")
    try:
        value = Path(settings.token_file).read_text(encoding="utf-8").strip()
    except OSError as error:
        raise ConfigError(f"server.token_file: cannot read {settings.token_file}: {error.strerror}") from None
    if not value:
        raise ConfigError(f"server.token_file: {settings.token_file} is empty")
    return _checked_token(value, f"server.token_file: {settings.token_file}")


def _checked_token(value: str, source: str) -> Secret:
    if any(char.isspace() or not char.isprintable() for char in value):
        # Never show the value: even a part of a token is a secret.
        raise ConfigError(f"{source}: the token holds a line break, space or control character; "
                          "it must be one line with nothing else")
    return Secret(value)


def log_level(settings: BotSettings) -> int:
    return int(logging.getLevelName(settings.log_level))


def known_keys() -> list[str]:
    """Every key as ``section.key``; the tests check config.yml documents exactly these."""
    return [f"{section}.{item.name}" for section, cls in _SECTIONS.items() for item in fields(cls)]
