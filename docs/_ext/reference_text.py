"""The manual's generated references, as Markdown: every ``config.yml`` key and every UCI option.

Each reference is written from the code that reads or announces the thing it documents, so that
a key or an option can never be documented wrong: the keys, their defaults and what each accepts
come from :mod:`bot.config` (its settings classes and :func:`bot.config.parse_settings`, whose own
error message says what a key expects), the prose from the comments of the repository's
``config.yml``; the UCI options from :data:`bot.engine.uci.OPTIONS`. A key or an option with no
words to go with it is an error (:class:`ReferenceError`), which fails the strict docs build.

Plain Python with no Sphinx in it, so that the tests can check the generated text without
building the site; ``reference_tables.py`` puts it into the pages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess.engine

import bot
from bot.config import ConfigError, Settings, known_keys, parse_settings
from bot.engine.levels import LEVELS
from bot.engine.uci import OPTIONS

REPOSITORY = Path(__file__).resolve().parents[2]
CONFIG_YML = REPOSITORY / "config.yml"

_SECTION_LINE = re.compile(r"^(\w+):\s*$")
_KEY_LINE = re.compile(r"^  (\w+):")
_COMMENT_LINE = re.compile(r"^  # ?(.*)$")
#: A comment's own "Default: ..." clause: the reference shows the default the code holds instead.
_DEFAULT_CLAUSE = re.compile(r"\s*Defaults?:\s.*$")
#: Probes no reader accepts: its error message says what the key expects, and its bounds.
_NOT_A_VALUE = object()
_TOO_SMALL = -(10**18)
_TOO_LARGE = 10**18


class ReferenceError(Exception):
    """Something the code declares has no words in the manual, or the reverse."""


@dataclass(frozen=True)
class ConfigKey:
    """One ``config.yml`` key as the reference shows it."""

    name: str  # "section.key"
    default: str  # as YAML would write it
    accepts: str  # what the key's reader expects, in its own words
    comment: str  # the Markdown made of config.yml's comment above the key


def config_comments(text: str) -> dict[str, str]:
    """``section.key`` -> the comment above the key in a commented ``config.yml``.

    Keys written one after another under one comment share it when the comment gives their
    defaults together ("Defaults: 1 and 60"); any other key without a comment of its own is an
    error. The comment's "Default: ..." clauses are dropped: the code's default is shown instead.
    """
    comments: dict[str, str] = {}
    section = ""
    pending: list[str] = []
    shared = ""
    for line in text.splitlines():
        if match := _SECTION_LINE.match(line):
            section, pending, shared = match.group(1), [], ""
        elif match := _COMMENT_LINE.match(line):
            pending.append(match.group(1))
        elif (match := _KEY_LINE.match(line)) and section:
            key = f"{section}.{match.group(1)}"
            if pending:
                shared = _comment_markdown(pending) if any("Defaults:" in part for part in pending) else ""
                comments[key] = _comment_markdown(pending)
                pending = []
            elif shared:
                comments[key] = shared
            else:
                raise ReferenceError(f"config.yml: {key} has no comment of its own")
    return comments


def _comment_markdown(lines: list[str]) -> str:
    """A comment as Markdown: an indented example becomes code, the rest prose without its defaults."""
    parts = []
    for line in lines:
        if line.startswith("  "):
            parts.append(f"`{line.strip()}`")
        elif cleaned := _DEFAULT_CLAUSE.sub("", line).replace("*", r"\*").strip():
            parts.append(cleaned)
    return " ".join(parts)


def yaml_value(value: Any) -> str:
    """A default as it is written in ``config.yml``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(yaml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {yaml_value(item)}" for key, item in value.items()) + "}"
    return str(value)


def _rejection(section: str, key: str, value: Any) -> str | None:
    """What :func:`bot.config.parse_settings` says of *value* for the key, or None if it takes it."""
    try:
        parse_settings({section: {key: value}})
    except ConfigError as error:
        message = str(error).removeprefix(f"{section}.{key}: ")
        return message.rsplit(", got ", 1)[0]
    return None


def _bound(section: str, key: str, probe: int) -> str | None:
    """The bound a number key's reader names when *probe* is out of range (``>= 0.1``), if any."""
    message = _rejection(section, key, probe)
    match = re.search(r"^expected .* ([<>]= \S+)$", message or "")
    return match.group(1) if match else None


def accepted(section: str, key: str) -> str:
    """What a key accepts, in the words of its reader's error message (``a number >= 0.1``)."""
    kind = _rejection(section, key, _NOT_A_VALUE)
    if kind is None or not kind.startswith("expected "):
        raise ReferenceError(f"{section}.{key}: cannot tell what it accepts ({kind!r})")
    kind = kind.removeprefix("expected ")
    bounds = [bound for probe in (_TOO_SMALL, _TOO_LARGE) if (bound := _bound(section, key, probe))]
    if bounds:
        kind += " " + " and ".join(bounds)
    if _rejection(section, key, None) is None:
        kind += ", or null"
    return kind


def config_keys(config_text: str) -> list[ConfigKey]:
    """Every key the code reads, in ``config.yml``'s order, with its default and its comment."""
    comments = config_comments(config_text)
    keys = known_keys()
    missing = [key for key in keys if not comments.get(key)]
    unknown = [key for key in comments if key not in keys]
    if missing or unknown:
        raise ReferenceError(f"config.yml and bot.config disagree: no comment for {missing}, unknown keys {unknown}")
    defaults = Settings()
    ordered = sorted(keys, key=list(comments).index)
    return [ConfigKey(key, yaml_value(getattr(getattr(defaults, key.split(".")[0]), key.split(".")[1])),
                      accepted(*key.split(".")), comments[key]) for key in ordered]


def config_reference(config_text: str | None = None) -> str:
    """The configuration reference: a section a heading, each key a ``confval`` entry."""
    keys = config_keys(CONFIG_YML.read_text(encoding="utf-8") if config_text is None else config_text)
    return "\n".join(_config_lines(keys))


def _config_lines(keys: list[ConfigKey]) -> Iterator[str]:
    section = ""
    for key in keys:
        if key.name.split(".")[0] != section:
            section = key.name.split(".")[0]
            yield f"## {section}\n"
        yield f"```{{confval}} {key.name}"
        yield f":type: {key.accepts}"
        yield f":default: ``{key.default}``"
        yield ""
        yield key.comment
        yield "```\n"


#: What each UCI option does, in a sentence; the names must be exactly those of ``uci.OPTIONS``.
UCI_OPTION_MEANINGS = {
    "UCI_Variant": "The variant; Knightmate is the only one, announced as Fairy-Stockfish announces its variants.",
    "Hash": "The transposition table's size, in MB.",
    "Threads": "Processes one search runs in (Lazy SMP, [below](#threads-lazy-smp)); at most the machine's cores, "
               "so the maximum shown is that of the machine that built this manual.",
    "Move Overhead": "Milliseconds taken off every move's time for the GUI's and the network's lag.",
    "Ponder": "Tells the GUI that the engine can ponder; the GUI decides when (`go ponder`, `ponderhit`).",
    "Book File": "The Polyglot opening book read when `OwnBook` is on; by default the Knightmate book shipped "
                 "with the package, `bot/engine/data/knightmate.bin`.",
    "OwnBook": "Answer a position of the book at once with one of its moves (`go infinite` and `MultiPV` above 1 "
               "always search).",
    "MultiPV": "How many best lines each iteration reports, each with its exact score.",
    "UCI_LimitStrength": "Play at `UCI_Elo` rather than at full strength.",
    "UCI_Elo": "The strength to play at with `UCI_LimitStrength`, on Fairy-Stockfish's scale "
               "(see [the levels](#strength-levels)).",
    "Use NNUE": "Score positions with the shipped network instead of the hand evaluation (off by default: "
                "it knows less).",
}


def _uci_default(spec: chess.engine.Option) -> str:
    if spec.type == "check":
        return "true" if spec.default else "false"
    text = str(spec.default)
    package = Path(bot.__file__).resolve().parent
    if text.startswith(str(package)):  # a file of the installed package, not this machine's path
        return Path(text).name + " (shipped)"
    return text


def _uci_type(spec: chess.engine.Option) -> str:
    if spec.type == "spin":
        return f"spin, {spec.min} to {spec.max}"
    if spec.type == "combo":
        return f"combo: {', '.join(spec.var or ())}"
    return spec.type


def uci_options_table() -> str:
    """A table of every option ``knightmate-bot uci`` announces, in its order."""
    names = [option.spec.name for option in OPTIONS]
    if sorted(names) != sorted(UCI_OPTION_MEANINGS):
        raise ReferenceError(f"uci.OPTIONS and the manual disagree: {sorted(set(names) ^ set(UCI_OPTION_MEANINGS))}")
    rows = ["| option | type | default | what it does |", "|---|---|---|---|"]
    for option in OPTIONS:
        spec = option.spec
        meaning = UCI_OPTION_MEANINGS[spec.name]
        rows.append(f"| `{spec.name}` | {_uci_type(spec)} | `{_uci_default(spec)}` | {meaning} |")
    return "\n".join(rows)


def levels_table() -> str:
    """The strength levels 1-8 as :data:`bot.engine.levels.LEVELS` names them."""
    rows = ["| level | `UCI_Elo` | label |", "|---|---|---|"]
    rows += [f"| {level.number} | {level.elo} | {level.label} |" for level in LEVELS]
    return "\n".join(rows)
