"""How a player fared over many games: results by opponent, time control and first moves, a
performance rating, think times and the lowest clock, the games lost on time or left unfinished.

Everything comes from what the bot's PGNs hold (:meth:`bot.games.record.Game.pgn`) and any other
Knightmate PGN may hold: the tags ``White``, ``Black``, ``Result``, ``WhiteElo``/``BlackElo``,
``TimeControl`` (``base+increment`` in seconds), ``Termination``, ``Site``, and the comments
``[%clk]`` and ``[%emt]``. No engine, no network, no files: :mod:`bot.cli.stats` reads the files.

* Performance rating: the linear "rule of 400", the opponents' mean rating plus 400 x (wins -
  losses) / games, over the finished games whose opponent has a rating: the usual quick estimate of
  a tournament performance, which unlike FIDE's table of rating differences stays finite at 100 %.
* Think time: a move's ``[%emt]`` where the PGN has one; else what the player's clock lost between
  two of its own moves, plus the increment: ``clk(before) + increment - clk(after)``. The first move
  has no clock before it and is not counted (pychess does not charge the first two plies). It is
  the time the server charged, network lag included.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import chess
import chess.pgn

#: Scores of a finished game for White; ``*`` (unfinished) is not among them.
WHITE_SCORES = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}
#: The performance rating's spread: a win is worth this many points above the opponent.
RULE_OF_400 = 400
_TIME_CONTROL = re.compile(r"^(\d+)\+(\d+)$")


class ScorecardError(ValueError):
    """A game that cannot be counted for the player asked (not theirs, or no names): one line."""


@dataclass(frozen=True)
class GameLine:
    """One game from the player's side."""
    game_id: str
    date: str
    opponent: str
    opponent_rating: int | None
    color: chess.Color
    time_control: str
    opening: str                      # the first plies in SAN, "1. e4 e5"
    score: float | None               # 1, 0.5 or 0; None for an unfinished game (``*``)
    termination: str
    think_times_ms: tuple[int, ...]
    lowest_clock_ms: int | None

    @property
    def lost_on_time(self) -> bool:
        return self.score == 0.0 and self.termination == "time forfeit"


@dataclass(frozen=True)
class GroupScore:
    """A group of games summed up."""
    games: int
    wins: int
    draws: int
    losses: int
    unfinished: int
    score_percent: float | None        # of the finished games
    performance: int | None
    average_think_ms: int | None
    lowest_clock_ms: int | None

    @classmethod
    def of(cls, lines: Sequence[GameLine]) -> GroupScore:
        scores = [line.score for line in lines if line.score is not None]
        thinks = [think for line in lines for think in line.think_times_ms]
        clocks = [line.lowest_clock_ms for line in lines if line.lowest_clock_ms is not None]
        return cls(games=len(lines), wins=scores.count(1.0), draws=scores.count(0.5), losses=scores.count(0.0),
                   unfinished=len(lines) - len(scores),
                   score_percent=round(100 * sum(scores) / len(scores), 1) if scores else None,
                   performance=performance(lines),
                   average_think_ms=round(sum(thinks) / len(thinks)) if thinks else None,
                   lowest_clock_ms=min(clocks) if clocks else None)


@dataclass(frozen=True)
class Scorecard:
    player: str
    overall: GroupScore
    by_opponent: dict[str, GroupScore]
    by_time_control: dict[str, GroupScore]
    by_opening: dict[str, GroupScore]
    lost_on_time: tuple[GameLine, ...]
    unfinished: tuple[GameLine, ...]


def performance(lines: Iterable[GameLine]) -> int | None:
    """The rule of 400 over the finished games against a rated opponent (None without one)."""
    rated = [line for line in lines if line.score is not None and line.opponent_rating is not None]
    if not rated:
        return None
    mean = sum(line.opponent_rating or 0 for line in rated) / len(rated)
    balance = sum(2 * (line.score or 0.0) - 1 for line in rated)      # wins - losses
    return round(mean + RULE_OF_400 * balance / len(rated))


def likely_player(games: Sequence[chess.pgn.Game]) -> str:
    """Whose games these are: the name in the most games (the bot, in its own PGN directory); when two
    tie (a bot that met one opponent), the side whose moves alone carry ``[%eval]`` (the bot writes
    its own searches' evaluations, never the opponent's). An error if that does not tell either."""
    names = Counter(name for game in games for name in {_player_name(game, color).lower() for color in chess.COLORS})
    chosen = _unique_most_common(names)
    if chosen is None:
        chosen = _unique_most_common(Counter(_player_name(game, color).lower() for game in games
                                             for color in [_annotated_side(game)] if color is not None))
    if chosen is None:
        raise ScorecardError("cannot tell whose games these are: name the player with --player")
    return next(_player_name(game, color) for game in games for color in chess.COLORS
                if _player_name(game, color).lower() == chosen)


def _unique_most_common(counts: Counter[str]) -> str | None:
    top = counts.most_common(2)
    if not top or (len(top) == 2 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


def _annotated_side(game: chess.pgn.Game) -> chess.Color | None:
    """The side whose moves, and only whose, carry an evaluation; None if neither or both."""
    sides = {not node.turn() for node in game.mainline() if node.eval() is not None}
    return sides.pop() if len(sides) == 1 else None


def scorecard(games: Sequence[chess.pgn.Game], player: str, opening_plies: int = 2) -> Scorecard:
    """The games of *player* (named without regard to case) summed up."""
    lines = [game_line(game, player, opening_plies) for game in games]
    return Scorecard(
        player=player, overall=GroupScore.of(lines),
        by_opponent=_grouped(lines, lambda line: line.opponent),
        by_time_control=_grouped(lines, lambda line: line.time_control),
        by_opening=_grouped(lines, lambda line: line.opening),
        lost_on_time=tuple(line for line in lines if line.lost_on_time),
        unfinished=tuple(line for line in lines if line.score is None),
    )


def _grouped(lines: Sequence[GameLine], key: Callable[[GameLine], str]) -> dict[str, GroupScore]:
    """Tallies by *key*, the group with the most games first (then by name)."""
    groups: dict[str, list[GameLine]] = {}
    for line in lines:
        groups.setdefault(key(line), []).append(line)
    biggest_first = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    return {name: GroupScore.of(group) for name, group in biggest_first}


def game_line(game: chess.pgn.Game, player: str, opening_plies: int = 2) -> GameLine:
    """*game* from *player*'s side; raises :class:`ScorecardError` if *player* did not play it."""
    headers = game.headers
    color = next((side for side in chess.COLORS if _player_name(game, side).lower() == player.lower()), None)
    if color is None:
        raise ScorecardError(f"{player} does not play in {_player_name(game, chess.WHITE)} - "
                             f"{_player_name(game, chess.BLACK)} ({_game_id(game)})")
    white_score = WHITE_SCORES.get(headers.get("Result", "*"))
    increment_ms = _increment_ms(headers.get("TimeControl", "?"))
    return GameLine(
        game_id=_game_id(game), date=headers.get("Date", "?"),
        opponent=_player_name(game, not color), opponent_rating=_rating(headers.get(_side(not color) + "Elo")),
        color=color, time_control=headers.get("TimeControl", "?"), opening=_opening(game, opening_plies),
        score=None if white_score is None else (white_score if color == chess.WHITE else 1.0 - white_score),
        termination=headers.get("Termination", "?"),
        think_times_ms=_think_times_ms(game, color, increment_ms),
        lowest_clock_ms=min(_clocks_ms(game, color).values(), default=None),
    )


def _side(color: chess.Color) -> str:
    return "White" if color == chess.WHITE else "Black"


def _player_name(game: chess.pgn.Game, color: chess.Color) -> str:
    return game.headers.get(_side(color), "?")


def _game_id(game: chess.pgn.Game) -> str:
    """The game's id: the last part of its ``Site`` (the bot writes the game's URL there)."""
    site = game.headers.get("Site", "?")
    return site.rstrip("/").rsplit("/", 1)[-1] or site


def _rating(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _increment_ms(time_control: str) -> int | None:
    match = _TIME_CONTROL.match(time_control)
    return int(match.group(2)) * 1000 if match else None


def _opening(game: chess.pgn.Game, plies: int) -> str:
    moves = list(game.mainline_moves())[:plies]
    return game.board().variation_san(moves) if moves else "(no moves)"


def _clocks_ms(game: chess.pgn.Game, color: chess.Color) -> dict[int, int]:
    """The player's ``[%clk]`` after each of its moves, by ply."""
    clocks: dict[int, int] = {}
    for ply, node in enumerate(game.mainline()):
        clock_s = node.clock()
        if node.turn() != color and clock_s is not None and math.isfinite(clock_s):
            clocks[ply] = round(clock_s * 1000)
    return clocks


def _think_times_ms(game: chess.pgn.Game, color: chess.Color, increment_ms: int | None) -> tuple[int, ...]:
    """Each of the player's moves' think time (see the module docstring), where the PGN tells it."""
    thinks: list[int] = []
    clocks = _clocks_ms(game, color)
    for ply, node in enumerate(game.mainline()):
        if node.turn() == color:        # the opponent moved to reach this node
            continue
        elapsed_s = node.emt()
        if elapsed_s is not None:
            thinks.append(max(0, round(elapsed_s * 1000)))
        elif ply in clocks and ply - 2 in clocks and increment_ms is not None:
            thinks.append(max(0, clocks[ply - 2] + increment_ms - clocks[ply]))
    return tuple(thinks)
