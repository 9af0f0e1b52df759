"""``knightmate-bot puzzles``: a folder of games mined into Lichess's CSV, games passed over, bad input."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import chess.pgn
import pytest

from bot.analysis.puzzle_csv import COLUMNS
from bot.cli.main import main
from tests.helpers.pgn_games import MATE_IN_ONE, QUEEN_HANGS
from tests.helpers.terminal import stderr_on_a_terminal
from variant import KnightmateBoard

DEPTHS = ["--depth", "6", "--check-depth", "10"]


def write_game(path: Path, game: tuple[str, list[str]], site: str = "") -> Path:
    fen, ucis = game
    board = KnightmateBoard(fen)
    for uci in ucis:
        board.push_uci(uci)
    record = chess.pgn.Game.from_board(board)
    record.headers.update({"Variant": "Knightmate", "Site": site or "?"})
    path.write_text(str(record) + "\n", encoding="utf-8")
    return path


def puzzles(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["puzzles", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_folder_of_games_becomes_a_csv_with_one_summary_line(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "games"
    games.mkdir()
    write_game(games / "queen.pgn", QUEEN_HANGS, site="https://lichess.org/abcdefgh")
    write_game(games / "mate.pgn", MATE_IN_ONE)
    out = tmp_path / "puzzles.csv"
    code, stdout, err = puzzles(capsys, str(games), "-o", str(out), *DEPTHS)
    assert code == 0 and stdout == ""
    with out.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == COLUMNS
    by_moves = {row["Moves"]: row for row in rows}
    assert set(by_moves) == {"f7f5 d6g6", "b3b6 c7b6"}
    assert by_moves["f7f5 d6g6"]["FEN"] == MATE_IN_ONE[0] and "mateIn1" in by_moves["f7f5 d6g6"]["Themes"]
    assert by_moves["b3b6 c7b6"]["GameUrl"] == "https://lichess.org/abcdefgh#1"
    (summary,) = err.splitlines()  # no progress bar off a terminal
    assert summary.startswith("knightmate-bot puzzles: 2 puzzles from 2 games (0 passed over;")
    assert summary.endswith(f"written to {out}")


def test_without_output_the_csv_goes_to_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, _ = puzzles(capsys, str(write_game(tmp_path / "mate.pgn", MATE_IN_ONE)), *DEPTHS)
    assert code == 0
    (row,) = csv.DictReader(io.StringIO(stdout))
    assert row["Moves"] == "f7f5 d6g6"


def test_a_game_with_no_moves_is_passed_over_and_the_rest_mined(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "games"
    games.mkdir()
    (games / "aborted.pgn").write_text('[Variant "Knightmate"]\n[Result "*"]\n\n*\n', encoding="utf-8")
    (games / "chess.pgn").write_text('[Variant "Standard"]\n\n1. e4 e5 *\n', encoding="utf-8")
    write_game(games / "mate.pgn", MATE_IN_ONE)
    code, stdout, err = puzzles(capsys, str(games), *DEPTHS)
    assert code == 1
    assert len(list(csv.DictReader(io.StringIO(stdout)))) == 1
    lines = err.splitlines()
    assert lines[0] == f"knightmate-bot puzzles: {games / 'aborted.pgn'} game 1: no moves; passed over"
    assert lines[1].endswith("game 1: not Knightmate (Variant Standard); passed over")
    assert lines[2].startswith("knightmate-bot puzzles: 1 puzzle from 1 game (2 passed over;")


@pytest.mark.parametrize(("arguments", "message"), [
    (["{tmp}/missing.pgn"], "missing.pgn: no such file or directory"),
    (["{tmp}/binary.pgn"], "binary.pgn: not a PGN file (not UTF-8 text)"),
    (["{tmp}/mate.pgn", "-o", "/nonexistent/dir/out.csv"], "no directory /nonexistent/dir to write it in"),
    (["{tmp}/mate.pgn", "--engine", "/nonexistent/engine"], "cannot start /nonexistent/engine"),
])
def test_bad_input_is_one_line_and_exit_2(arguments: list[str], message: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "binary.pgn").write_bytes(b"\x00\xff\xfe")
    write_game(tmp_path / "mate.pgn", MATE_IN_ONE)
    code, stdout, err = puzzles(capsys, *[argument.format(tmp=tmp_path) for argument in arguments], *DEPTHS)
    assert (code, stdout) == (2, "")
    assert err.startswith("knightmate-bot puzzles: ") and message in err and err.count("\n") == 1, err


def test_a_bad_depth_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["puzzles", "x.pgn", "--check-depth", "0"])
    assert exit_info.value.code == 2 and "must be at least 1" in capsys.readouterr().err


def test_the_progress_bar_shows_on_a_terminal(tmp_path: Path) -> None:
    code, seen = stderr_on_a_terminal("puzzles", str(write_game(tmp_path / "mate.pgn", MATE_IN_ONE)),
                                      "-o", str(tmp_path / "out.csv"), *DEPTHS)
    assert code == 0
    assert b"position" in seen and b"%|" in seen  # tqdm's bar
    assert b"knightmate-bot puzzles: 1 puzzle from 1 game" in seen
