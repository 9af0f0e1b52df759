"""Stream lines of both dialects -> :mod:`bot.remote.events`.

This is where the dialects' differences in *content* are ironed out (docs/api.md): pychess ``ping``
lines and Lichess blank lines both become :class:`~bot.remote.events.KeepAlive`; pychess increments in
seconds become milliseconds; ``initialFen`` ``""`` (pychess) and ``"startpos"`` (Lichess) both
become ``None``; pychess players have only a name, pychess ``gameStart`` only an ``id``.

A line that is not JSON, or lacks a field an event needs, raises :class:`MalformedLine` so the
caller can log it and read on; a line of a type the bot has no use for gives ``None``. Parsing
never does I/O and never raises anything else. This is where hostile input stops: numbers that are
not finite (``1e400``, ``Infinity``) or absurdly large, nesting too deep for the parser, booleans
that are neither ``true``/``false`` nor pychess's strings ``"True"``/``"False"``, and ids that are
not plain tokens (they go into URL paths) all make a line malformed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from bot.dialect import Dialect
from bot.remote.events import (
    Challenge,
    ChallengeReceived,
    ChatLine,
    EventStreamEvent,
    GameEnded,
    GameFull,
    GameStarted,
    GameState,
    GameStreamEvent,
    KeepAlive,
    OpponentGone,
    Player,
    ReportedResult,
    RoundBoard,
    ServerShutdown,
)

#: pychess's game status codes (its round socket's ``status``) -> status names: Lichess's where one
#: means the same, pychess's own otherwise. Code 4 is pychess's TIMEOUT, 6 its FLAG, 7 ABANDONE.
PYCHESS_STATUSES = {
    -2: "created", -1: "started", 0: "aborted", 1: "mate", 2: "resign", 3: "stalemate", 4: "timeout",
    5: "draw", 6: "outoftime", 7: "abandon", 8: "cheat", 9: "bye", 10: "illegalMove", 11: "unknownFinish",
    12: "variantEnd", 13: "claim",
}

RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "*"})
#: What a game or challenge id may look like: it becomes a URL path segment.
PLAIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
#: The largest time (ms) or count the bot believes; Lichess's "unlimited" clock is 2**31 - 1 ms.
MAX_NUMBER = 10**12
MAX_RATING = 10_000
#: The most plies a round socket's board may list; pychess ends a game at 600.
MAX_PLIES = 2_000
#: A move as the servers write it (Knightmate is 8x8; ``m`` promotes to a commoner).
UCI_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][qrbnm]?")

#: What a stream's line becomes (an event of the event stream, or of a game's).
_Event = TypeVar("_Event")
#: What a failing conversion of a decoded line can raise: each one means a malformed line.
_CONVERSION_ERRORS = (KeyError, TypeError, ValueError, AttributeError, OverflowError, RecursionError)
#: The deepest nesting of objects and arrays a line may have; the API's lines nest a few levels.
MAX_NESTING = 32
#: A JSON string (whose brackets do not nest) or a bracket.
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class MalformedLine(ValueError):
    """A stream line that could not be understood; the message quotes (a bit of) it."""


def is_plain_id(value: str) -> bool:
    """Whether ``value`` is a plain id (letters, digits, ``_``, ``-``) that can go into a URL path."""
    return PLAIN_ID.fullmatch(value) is not None


def parse_event_line(dialect: Dialect, line: bytes | str) -> EventStreamEvent | None:
    """One line of ``/api/stream/event``."""
    return _parse_line(_event, dialect, line)


def parse_game_line(dialect: Dialect, line: bytes | str) -> GameStreamEvent | None:
    """One line of ``/api/bot/game/stream/{id}``."""
    return _parse_line(_game_event, dialect, line)


def _parse_line(convert: Callable[[Dialect, Mapping[str, Any]], _Event | None], dialect: Dialect,
                line: bytes | str) -> _Event | KeepAlive | None:
    """*line* read by *convert*: an empty line is a keep-alive, and a line *convert* cannot read is malformed.

    :raises: :exc:`MalformedLine`.
    """
    data = _load(line)
    if data is None:
        return KeepAlive()
    try:
        return convert(dialect, data)
    except _CONVERSION_ERRORS as error:
        raise MalformedLine(f"{_quote(line)}: {error!r}") from None


def parse_round_board(message: bytes | str) -> RoundBoard | None:
    """The ``board`` message of pychess's round socket (what a spectator's browser reads); ``None``
    for every other type of message.

    Status, result and game id must be there and sound (else :class:`MalformedLine`). The moves
    (from ``steps``) and ``clocks`` are what the bot plays from when its game stream is refused:
    where either is missing or odd it is left out (``None``), never guessed, and the result
    still counts."""
    data = _load(message)
    if data is None or data.get("type") != "board":
        return None
    try:
        reported = _reported_result(data)
    except _CONVERSION_ERRORS as error:
        raise MalformedLine(f"{_quote(message)}: {error!r}") from None
    try:
        moves: tuple[str, ...] | None = _step_moves(data["steps"])
    except _CONVERSION_ERRORS:
        moves = None
    try:
        clocks = data["clocks"]
        wtime: int | None = _milliseconds(clocks["white"])
        btime: int | None = _milliseconds(clocks["black"])
    except _CONVERSION_ERRORS:
        wtime = btime = None
    return RoundBoard(reported.game_id, reported.status, reported.result, moves, wtime, btime)


def _reported_result(data: Mapping[str, Any]) -> ReportedResult:
    code = data["status"]
    if isinstance(code, bool) or not isinstance(code, int) or code not in PYCHESS_STATUSES:
        raise ValueError(f"unknown status {code!r}")
    result = data["result"]
    if result not in RESULTS:
        raise ValueError(f"unknown result {result!r}")
    return ReportedResult(_plain_id(data["gameId"], "game id"), PYCHESS_STATUSES[code], result)


def _step_moves(steps: Any) -> tuple[str, ...]:
    """The moves of a full board's ``steps``: the first step is the start position (no move), each
    later one the position after its ``move``."""
    if not isinstance(steps, list) or not steps or len(steps) > MAX_PLIES + 1:
        raise ValueError("steps is not a list of positions")
    moves = tuple(step["move"] for step in steps[1:])
    if any(not isinstance(move, str) or not UCI_MOVE.fullmatch(move) for move in moves):
        raise ValueError("a step's move is not a UCI move")
    return moves


def _load(line: bytes | str) -> Mapping[str, Any] | None:
    text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
    if not text.strip():
        return None
    if _nesting(text) > MAX_NESTING:
        raise MalformedLine(f"{_quote(line)}: nested deeper than {MAX_NESTING} levels")
    try:
        data = json.loads(text, parse_float=_finite_float, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise MalformedLine(f"{_quote(line)}: not JSON ({type(error).__name__})") from None
    if not isinstance(data, Mapping):
        raise MalformedLine(f"{_quote(line)}: not a JSON object")
    if data.get("type") == "ping":
        return None
    return data


def _nesting(text: str) -> int:
    """How deep the line's objects and arrays nest, checked before parsing: json.loads would
    recurse into a hostile line's nesting down to Python's recursion limit, where any finalizer the
    garbage collector runs meanwhile fails with a RecursionError of its own."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return 0  # too few brackets to nest too deep: the common case costs two counts
    depth = deepest = 0
    for token in _STRING_OR_BRACKET.finditer(text):
        bracket = token.group()
        if bracket in ("[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        elif bracket in ("]", "}"):
            depth -= 1
    return deepest


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {text[:20]}")
    return value


def _no_constant(text: str) -> float:
    raise ValueError(f"{text} is not a number the bot accepts")


def _quote(line: bytes | str) -> str:
    text = repr(line)
    return text if len(text) <= 120 else text[:117] + "..."


def _event(dialect: Dialect, data: Mapping[str, Any]) -> EventStreamEvent | None:
    kind = data.get("type")
    if kind == "challenge":
        return ChallengeReceived(_challenge(dialect, data["challenge"]))
    if kind == "gameStart":
        return GameStarted(_game_id(data["game"]))
    if kind == "terminated":
        return ServerShutdown()
    return None


def _game_id(game: Mapping[str, Any]) -> str:
    # Lichess sends both gameId and id, pychess only id.
    value = game.get("gameId") or game["id"]
    return _plain_id(value, "game id")


def _challenge(dialect: Dialect, data: Mapping[str, Any]) -> Challenge:
    challenger = data.get("challenger") or {}
    control = data.get("timeControl") or {}
    kind = str(control.get("type", "unlimited"))
    base_ms = increment_ms = None
    if kind == "clock":
        # Seconds on both servers.
        base_ms = _count(control["limit"], "clock limit") * 1000
        increment_ms = _count(control.get("increment", 0), "increment") * 1000
    fen = data.get("initialFen") if dialect.initial_fen_in_challenge else None
    return Challenge(
        id=_plain_id(data["id"], "challenge id"),
        challenger=str(challenger.get("name") or challenger.get("id") or "?"),
        challenger_is_bot=challenger.get("title") == "BOT",
        variant=_variant_key(data.get("variant")),
        rated=_flag(data.get("rated", False), "rated"),
        time_control=kind,
        base_ms=base_ms,
        increment_ms=increment_ms,
        initial_fen=_start_fen(fen),
        challenger_rating=_rating(challenger.get("rating")),
    )


def _variant_key(variant: Any) -> str:
    """Lichess sends ``{key, name}``, pychess a ``{name}`` or a bare string in places."""
    if isinstance(variant, str):
        return variant.lower()
    if isinstance(variant, Mapping):
        return str(variant.get("key") or variant.get("name") or "standard").lower()
    return "standard"


def _start_fen(fen: Any) -> str | None:
    if not isinstance(fen, str) or fen.strip() in ("", "startpos"):
        return None
    return fen.strip()


def _plain_id(value: Any, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int) or not is_plain_id(str(value)):
        raise ValueError(f"{what} is not a plain id")
    return str(value)


def _flag(value: Any, what: str) -> bool:
    """A JSON boolean, or pychess's ``"True"``/``"False"`` (``bool("False")`` would be true)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ValueError(f"{what} is not a boolean: {str(value)[:20]!r}")


def _count(value: Any, what: str) -> int:
    """A non-negative number up to :data:`MAX_NUMBER`, rounded to an int."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_NUMBER:
        raise ValueError(f"{what} is not a number from 0 to {MAX_NUMBER}: {str(value)[:20]!r}")
    return round(value)


def _game_event(dialect: Dialect, data: Mapping[str, Any]) -> GameStreamEvent | None:
    kind = data.get("type")
    if kind == "gameFull":
        return _game_full(dialect, data)
    if kind == "gameState":
        return _game_state(dialect, data)
    if kind == "gameEnd":
        return GameEnded()
    if kind == "opponentGone":
        seconds = data.get("claimWinInSeconds")
        return OpponentGone(_flag(data["gone"], "gone"),
                            _count(seconds, "claimWinInSeconds") if seconds is not None else None)
    if kind == "chatLine":
        return ChatLine(str(data.get("room", "")), str(data.get("username", "")), str(data.get("text", "")))
    return None


def _game_full(dialect: Dialect, data: Mapping[str, Any]) -> GameFull:
    clock = data.get("clock") or {}
    base = clock.get("initial")
    increment = clock.get("increment")
    rated = data.get("rated")
    return GameFull(
        id=_plain_id(data["id"], "game id"),
        variant=_variant_key(data.get("variant")),
        white=_player(data["white"]),
        black=_player(data["black"]),
        initial_fen=_start_fen(data.get("initialFen")),
        base_ms=_count(base, "clock initial") if base is not None else None,
        increment_ms=_count(increment, "clock increment") if increment is not None else None,
        rated=_flag(rated, "rated") if rated is not None else None,
        state=_game_state(dialect, data["state"]),
    )


def _player(data: Mapping[str, Any]) -> Player:
    name = data.get("name") or data.get("id") or ("AI level " + str(data["aiLevel"]) if "aiLevel" in data else "?")
    return Player(
        name=str(name),
        id=str(data["id"]) if data.get("id") else None,
        title=str(data["title"]) if data.get("title") else None,
        rating=_rating(data.get("rating")),
    )


def _rating(value: Any) -> int | None:
    """A player's rating, or None: an odd one is dropped, not a reason to refuse the whole line (a
    challenge without a rating is one the rating bounds decline, see :mod:`bot.games.challenges`)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_RATING:
        return None
    return round(value)


def _game_state(dialect: Dialect, data: Mapping[str, Any]) -> GameState:
    moves = data.get("moves") or ""
    if not isinstance(moves, str):
        raise ValueError("moves is not a string")
    winner = data.get("winner")
    return GameState(
        moves=tuple(moves.split()),
        wtime_ms=_milliseconds(data["wtime"]),
        btime_ms=_milliseconds(data["btime"]),
        winc_ms=_milliseconds(data.get("winc", 0)) * dialect.increment_unit_ms,
        binc_ms=_milliseconds(data.get("binc", 0)) * dialect.increment_unit_ms,
        status=str(data.get("status", "started")),
        winner=winner if winner in ("white", "black") else None,
        wdraw=_flag(data.get("wdraw", False), "wdraw"),
        bdraw=_flag(data.get("bdraw", False), "bdraw"),
    )


def _milliseconds(value: Any) -> int:
    """A clock time; a negative one (a flag that fell) counts as zero."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"not a time: {str(value)[:20]!r}")
    return _count(max(0, value), "time")
