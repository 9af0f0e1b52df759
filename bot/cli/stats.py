"""``knightmate-bot stats``: how the bot (or any player) fared in Knightmate PGNs, as a table, CSV or JSON.

The games are read and checked first (:mod:`bot.analysis.pgn_input`): a file that is not PGN, a game of
another variant, an illegal move or a player who is not in a game is one line and exit 2. The
counting is :mod:`bot.analysis.scorecard`'s; this module only reads and prints.

* ``table`` (the default): the totals, then a table per grouping (its :data:`TABLE_ROWS` biggest
  groups) and the games lost on time or left unfinished, for a terminal.
* ``csv``: one row per group (``group`` is ``all``, ``opponent``, ``time control`` or ``first
  moves``), for a spreadsheet.
* ``json``: everything, the game lists included.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import TextIO

import chess
import chess.pgn

from bot.analysis.pgn_input import PgnInputError, pgn_files, read_error, read_file
from bot.analysis.scorecard import GameLine, GroupScore, Scorecard, ScorecardError, likely_player, scorecard

#: Groups shown per table on the terminal, the biggest first; CSV and JSON have them all.
TABLE_ROWS = 20

_TALLY_FIELDS = [item.name for item in fields(GroupScore)]


class StatsError(Exception):
    """Bad input: one line for the user, exit 2."""


def run(paths: Sequence[Path], player: str | None, output_format: str, opening_plies: int, out: TextIO) -> int:
    """Reads the games of *paths* and prints *player*'s scorecard (the likely player when None)."""
    games = _read_all(paths)
    try:
        card = scorecard(games, player if player is not None else likely_player(games), opening_plies)
    except ScorecardError as error:
        raise StatsError(str(error)) from None
    {"table": _print_table, "csv": _print_csv, "json": _print_json}[output_format](card, out)
    return 0


def _read_all(paths: Sequence[Path]) -> list[chess.pgn.Game]:
    games: list[chess.pgn.Game] = []
    try:
        for path in pgn_files(paths):
            for item in read_file(path):
                _check(item.name, item.game)
                games.append(item.game)
    except PgnInputError as error:
        raise StatsError(str(error)) from None
    return games


def _check(name: str, game: chess.pgn.Game) -> None:
    """Stats count every game, aborted ones too, so only a game that is not Knightmate or cannot be
    read stops them (where ``analyse`` passes over a game without moves)."""
    variant = game.headers.get("Variant")
    if variant is None or variant.lower() != "knightmate":
        raise StatsError(f"{name} is {variant or 'standard chess (no Variant tag)'}, not Knightmate")
    error = read_error(game)
    if error is not None:
        raise StatsError(f"{name} cannot be read: {error}")


# -- the three formats ---------------------------------------------------------------------------

def _groups(card: Scorecard) -> list[tuple[str, dict[str, GroupScore]]]:
    return [("all", {"all games": card.overall}), ("opponent", card.by_opponent),
            ("time control", card.by_time_control), ("first moves", card.by_opening)]


def _print_csv(card: Scorecard, out: TextIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["group", "name", *_TALLY_FIELDS])
    for group, tallies in _groups(card):
        for name, tally in tallies.items():
            writer.writerow([group, name, *("" if value is None else value for value in asdict(tally).values())])


def _print_json(card: Scorecard, out: TextIO) -> None:
    document = {
        "player": card.player,
        "performance_formula": "mean opponent rating + 400 * (wins - losses) / games, finished games "
                               "against rated opponents",
        **{group.replace(" ", "_"): {name: asdict(tally) for name, tally in tallies.items()}
           for group, tallies in _groups(card)},
        "lost_on_time": [_game_json(line) for line in card.lost_on_time],
        "unfinished": [_game_json(line) for line in card.unfinished],
    }
    json.dump(document, out, indent=2)
    out.write("\n")


def _game_json(line: GameLine) -> dict[str, object]:
    return {"game_id": line.game_id, "date": line.date, "opponent": line.opponent,
            "color": chess.COLOR_NAMES[line.color], "time_control": line.time_control,
            "termination": line.termination}


def _print_table(card: Scorecard, out: TextIO) -> None:
    overall = card.overall
    out.write(f"{card.player}: {overall.games} games, +{overall.wins} ={overall.draws} -{overall.losses}"
              f"{f', {overall.unfinished} unfinished' if overall.unfinished else ''}; "
              f"score {_shown(overall.score_percent, '%')}; performance {_shown(overall.performance)} "
              f"(rule of 400)\n")
    out.write(f"think time {_shown(overall.average_think_ms, ' ms')} a move on average; "
              f"lowest clock {_seconds(overall.lowest_clock_ms)}\n")
    for group, tallies in _groups(card)[1:]:
        out.write("\n")
        shown = list(tallies.items())[:TABLE_ROWS]
        _write_rows(out, [f"by {group}", "games", "+", "=", "-", "*", "score %", "perf", "think ms", "lowest clock"],
                    [[name, str(tally.games), str(tally.wins), str(tally.draws), str(tally.losses),
                      str(tally.unfinished), _shown(tally.score_percent), _shown(tally.performance),
                      _shown(tally.average_think_ms), _seconds(tally.lowest_clock_ms)]
                     for name, tally in shown])
        if len(tallies) > len(shown):
            out.write(f"... and {len(tallies) - len(shown)} more (--format csv or json lists them all)\n")
    for title, lines in (("lost on time", card.lost_on_time), ("unfinished (*)", card.unfinished)):
        out.write(f"\n{title}: {len(lines)}\n")
        for line in lines:
            out.write(f"  {line.game_id}  {line.date}  against {line.opponent} as {chess.COLOR_NAMES[line.color]}, "
                      f"{line.time_control} ({line.termination})\n")


def _write_rows(out: TextIO, header: list[str], rows: list[list[str]]) -> None:
    """Columns as wide as their widest cell; the first left-aligned, the numbers right-aligned."""
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        out.write("  ".join(cells).rstrip() + "\n")


def _shown(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    return f"{value}{unit}" if isinstance(value, int) else f"{value:.1f}".removesuffix(".0") + unit


def _seconds(milliseconds: int | None) -> str:
    return "-" if milliseconds is None else f"{milliseconds / 1000:.1f} s"
