"""``knightmate-bot stats`` on a directory of the bot's own PGNs: the table, CSV and JSON, and bad input."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.main import main
from tests.helpers.bot_pgns import bot_pgn


@pytest.fixture
def pgn_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "games"
    directory.mkdir()
    games = {
        "g1": bot_pgn("g1", "Alice", rating=1500, winner="white"),
        "g2": bot_pgn("g2", "Alice", rating=1500, status="outoftime", winner="black", think_ms=[9_000] * 6),
        "g3": bot_pgn("g3", "Bob", rating=1900, bot_white=False, status="aborted", winner=None),
    }
    for game_id, text in games.items():
        (directory / f"{game_id}.pgn").write_text(text, encoding="utf-8")
    return directory


def stats(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["stats", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_table_shows_totals_groups_and_the_games_lost_on_time_or_unfinished(
        pgn_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = stats(capsys, str(pgn_dir))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "MyBot: 3 games, +1 =0 -1, 1 unfinished; score 50%; performance 1500 (rule of 400)"
    assert lines[1] == "think time 3667 ms a move on average; lowest clock 12.0 s"
    assert any(line.split()[:4] == ["Alice", "2", "1", "0"] for line in lines)
    assert "lost on time: 1" in lines and any(line.strip().startswith("g2  ") for line in lines)
    assert "unfinished (*): 1" in lines and any("g3" in line and "against Bob as black" in line for line in lines)


def test_csv_has_a_row_per_group(pgn_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = stats(capsys, str(pgn_dir), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0
    assert [(row["group"], row["name"]) for row in rows] == [
        ("all", "all games"), ("opponent", "Alice"), ("opponent", "Bob"), ("time control", "60+1"),
        ("first moves", "1. e3 e6")]
    assert rows[2]["unfinished"] == "1" and rows[2]["performance"] == ""


def test_json_has_everything_with_the_formula_named(pgn_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = stats(capsys, str(pgn_dir / "g1.pgn"), str(pgn_dir / "g2.pgn"), "--format", "json",
                         "--player", "mybot", "--opening-plies", "1")
    document = json.loads(out)
    assert code == 0 and document["player"] == "mybot"
    assert "400" in document["performance_formula"]
    assert document["all"]["all games"]["performance"] == 1500
    assert list(document["first_moves"]) == ["1. e3"]
    assert [game["game_id"] for game in document["lost_on_time"]] == ["g2"] and document["unfinished"] == []


@pytest.mark.parametrize(("name", "content", "message"), [
    ("empty.pgn", "", "not a PGN file (no game in it)"),
    ("binary.pgn", b"\xff\xfe\x00", "not a PGN file (not UTF-8 text)"),
    ("chess.pgn", '[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n', "is standard chess"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                                           content: str | bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    code, out, err = stats(capsys, str(path))
    assert (code, out) == (2, "")
    assert err.startswith("knightmate-bot stats: ") and message in err and err.count("\n") == 1


def test_a_player_in_none_of_the_games_or_no_games_at_all_is_one_line_and_exit_2(
        pgn_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = stats(capsys, str(pgn_dir), "--player", "zed")
    assert code == 2 and "zed does not play in" in err and err.count("\n") == 1
    code, _, err = stats(capsys, str(tmp_path / "nowhere"))
    assert code == 2 and "no such file or directory" in err
    code, _, err = stats(capsys, "/dev/null")
    assert code == 2 and err == "knightmate-bot stats: /dev/null: not a PGN file or a directory of them\n"


def test_the_table_shows_the_biggest_groups_and_says_how_many_more_there_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.cli.stats.TABLE_ROWS", 2)
    for index, opponent in enumerate(["Alice", "Alice", "Bob", "Carol", "Dave"]):
        (tmp_path / f"g{index}.pgn").write_text(bot_pgn(f"g{index}", opponent, rating=1500), encoding="utf-8")
    code, out, _ = stats(capsys, str(tmp_path))
    lines = out.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("by opponent")))
    assert code == 0 and [line.split()[0] for line in lines[start + 1:start + 3]] == ["Alice", "Bob"]
    assert lines[start + 3] == "... and 2 more (--format csv or json lists them all)"


def test_a_reader_that_leaves_early_is_no_error(tmp_path: Path) -> None:
    """``knightmate-bot stats games/ --format json | head -1``: the pipe closes under the output, which
    is longer than a pipe holds (300 opponents), so the bot is still writing when it does."""
    games = "\n".join(bot_pgn(f"g{index}", f"opponent{index}", rating=1500) for index in range(300))
    (tmp_path / "many.pgn").write_text(games, encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "stats", str(tmp_path), "--format", "json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    assert process.wait(timeout=60) == 0
    assert process.stderr.read() == b""
