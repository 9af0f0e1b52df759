"""The ``knightmate-bot board`` command and the CLI's version and help."""

from __future__ import annotations

import subprocess

import pytest

from bot.cli.main import main
from bot.own_command import OWN_COMMAND


def test_board_prints_the_start_position_and_its_legal_moves_in_san(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board"]) == 0
    out = capsys.readouterr().out
    assert "R M B Q K B M R" in out
    assert "White to move, 18 legal moves: Kd3 Kf3 a3 a4" in out


def test_board_reports_a_finished_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "k7/8/2Q5/8/8/8/8/7K b - - 0 1"]) == 0
    assert "Game over: 1-0 (checkmate)" in capsys.readouterr().out


def test_bad_fen_gives_one_error_line_and_exit_code_2() -> None:
    run = subprocess.run([*OWN_COMMAND, "board", "rmbqkbnr/8 w"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and "knight letter" in run.stderr


def test_version_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("knightmate-bot ")
