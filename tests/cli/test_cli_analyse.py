"""``knightmate-bot analyse``: annotated PGNs read back by chess.pgn, inputs and outputs, every bad input."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

from bot.cli.main import main
from tests.helpers.pgn_games import BLUNDER_SANS, write_game
from tests.helpers.terminal import stderr_on_a_terminal

DEPTH = ["--depth", "3"]


def read_games(text: str) -> list[chess.pgn.Game]:
    handle = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        assert not game.errors
        games.append(game)
    return games


def analyse(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["analyse", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_planted_blunder_comes_back_marked_with_evals_and_the_better_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_game(tmp_path / "game.pgn")
    code, out, err = analyse(capsys, str(source), *DEPTH)
    assert code == 0
    (game,) = read_games(out)
    nodes = list(game.mainline())
    assert [node.san() for node in nodes] == BLUNDER_SANS
    assert all(node.eval() is not None for node in nodes)
    assert all(node.clock() == 180 - ply for ply, node in enumerate(nodes))  # the game's own notes stay
    blunder = nodes[2]
    assert chess.pgn.NAG_BLUNDER in blunder.nags and "Blunder." in blunder.comment
    better = nodes[1].variations[1]
    assert better.move != blunder.move and better.move in nodes[1].board().legal_moves
    assert "White: accuracy" in game.comment and "1 blunder" in game.comment
    engine, summary = err.splitlines()  # the engine, then one line per game; no progress bar off a terminal
    assert engine.startswith("knightmate-bot analyse: knightmate-bot ") and engine.endswith(") analyses 1 game")
    assert summary.startswith("game.pgn game 1: alice - bob *: White accuracy") and "1 blunder" in summary


def test_an_annotated_output_analysed_again_keeps_one_annotation_of_each_kind(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = tmp_path / "first.pgn"
    assert analyse(capsys, str(write_game(tmp_path / "game.pgn")), *DEPTH, "-o", str(first))[0] == 0
    code, out, _ = analyse(capsys, str(first), *DEPTH)
    assert code == 0
    for text in (first.read_text(encoding="utf-8"), out):
        assert text.count("[%eval") == len(BLUNDER_SANS) and text.count("[%clk") == len(BLUNDER_SANS)
        assert text.count("Analysis by") == 1 and text.count("$4") == 1 and text.count("Blunder.") == 1


def test_a_directory_of_games_goes_to_a_directory_file_by_file(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "games"
    games.mkdir()
    write_game(games / "one.pgn", white="one")
    write_game(games / "two.pgn", ["d4", "d5"], white="two")
    (games / "notes.txt").write_text("not a game", encoding="utf-8")
    code, out, err = analyse(capsys, str(games), *DEPTH, "-o", str(tmp_path / "annotated") + "/")
    assert code == 0 and out == ""
    assert sorted(path.name for path in (tmp_path / "annotated").iterdir()) == ["one.pgn", "two.pgn"]
    (two,) = read_games((tmp_path / "annotated" / "two.pgn").read_text(encoding="utf-8"))
    assert two.headers["White"] == "two" and all(node.eval() is not None for node in two.mainline())
    assert [line.split(":")[0] for line in err.splitlines()[1:]] == ["one.pgn game 1", "two.pgn game 1"]


def test_fairy_stockfish_can_be_the_analyst(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.helpers.engine_processes import FAIRY_STOCKFISH
    if FAIRY_STOCKFISH is None:
        pytest.skip("fairy-stockfish is not installed")
    code, out, _ = analyse(capsys, str(write_game(tmp_path / "game.pgn")), "--movetime-ms", "50",
                           "--engine", FAIRY_STOCKFISH)
    assert code == 0
    (game,) = read_games(out)
    assert chess.pgn.NAG_BLUNDER in list(game.mainline())[2].nags
    assert "fairy-stockfish, 50 ms a position" in game.headers["Annotator"]


def test_a_slope_set_by_hand_judges_the_moves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A curve so flat that a queen is worth little winning chance: the planted blunder goes unmarked."""
    code, out, _ = analyse(capsys, str(write_game(tmp_path / "game.pgn")), *DEPTH, "--slope", "0.0001")
    assert code == 0
    (game,) = read_games(out)
    assert not list(game.mainline())[2].nags and "0 blunders" in game.comment


@pytest.mark.parametrize(("slope", "message"), [("0", "expected a number >= 0.0001"), ("1", "expected a number <= 0.1"),
                                                ("steep", "not a number: 'steep'")])
def test_a_slope_that_is_no_curve_is_refused(slope: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["analyse", "x.pgn", "--slope", slope])
    assert exit_info.value.code == 2
    assert f"argument --slope: {message}" in capsys.readouterr().err


BAD_FILES = {
    "binary": (b"\x00\x01\xff\xfe", "not a PGN file (not UTF-8 text)"),
    "no game": (b"just some words\n", "not a PGN file (no game in it)"),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_a_file_that_is_not_pgn_is_one_line_and_exit_2(case: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    content, message = BAD_FILES[case]
    path = tmp_path / "input.pgn"
    path.write_bytes(content)
    code, out, err = analyse(capsys, str(path), *DEPTH)
    assert (code, out) == (2, "")
    assert err == f"knightmate-bot analyse: {path}: {message}\n"


def test_a_bad_file_among_good_ones_stops_everything_before_any_analysis(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write_game(tmp_path / "good.pgn")
    bad = tmp_path / "bad.pgn"
    bad.write_bytes(BAD_FILES["binary"][0])
    code, _, err = analyse(capsys, str(good), str(bad), *DEPTH, "-o", str(tmp_path / "out") + "/")
    assert code == 2 and err.count("\n") == 1 and not (tmp_path / "out").exists()


UNUSABLE_GAMES = {
    "chess": (b'[Variant "Standard"]\n\n1. e4 e5 *\n', "game 1: not Knightmate (Variant Standard)"),
    "no variant": (b'[White "a"]\n\n1. e4 e5 *\n', "game 1: not Knightmate (no Variant tag: standard chess)"),
    "illegal white": (b'[Variant "Knightmate"]\n\n1. e4 d5 2. Qg5 *\n', "game 1: illegal move 2. Qg5"),
    "illegal black": (b'[Variant "Knightmate"]\n\n1. e4 d5 2. Qg4 Nf6 *\n', "game 1: illegal move 2... Nf6"),
    "second game": (b'[Variant "Knightmate"]\n\n1. e4 *\n\n[Variant "Knightmate"]\n\n1. e4 e5 2. Ke2 *\n',
                    "game 2: illegal move 2. Ke2"),
    "no moves": (b'[Variant "Knightmate"]\n[White "a"]\n\n*\n', "game 1: no moves"),
    "bad start": (b'[Variant "Knightmate"]\n[FEN "8/8 w"]\n\n1. e4 *\n', "game 1: bad starting position"),
}


@pytest.mark.parametrize("case", UNUSABLE_GAMES)
def test_a_game_that_cannot_be_analysed_is_named_and_passed_over_with_exit_1(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content, message = UNUSABLE_GAMES[case]
    path = tmp_path / "input.pgn"
    path.write_bytes(content)
    code, _, err = analyse(capsys, str(path), *DEPTH)
    assert code == 1
    assert f"knightmate-bot analyse: {path} {message}" in err and "; passed over\n" in err, err


def test_a_bot_folder_with_an_aborted_game_is_analysed_but_that_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "games"
    games.mkdir()
    (games / "aborted.pgn").write_text(  # as the bot writes a game aborted before any move
        '[Event "Rated Knightmate game"]\n[Site "https://www.pychess.org/abcd1234"]\n[Result "*"]\n'
        '[Variant "Knightmate"]\n[Termination "unterminated"]\n\n{ status aborted without a winner } *\n',
        encoding="utf-8")
    write_game(games / "mate.pgn")
    write_game(games / "resigned.pgn", ["d4", "d5"])
    code, out, err = analyse(capsys, str(games), *DEPTH)
    assert code == 1
    assert len(read_games(out)) == 2
    lines = err.splitlines()
    assert lines[0] == f"knightmate-bot analyse: {games / 'aborted.pgn'} game 1: no moves; passed over"
    assert [line.split(":")[0] for line in lines[2:]] == ["mate.pgn game 1", "resigned.pgn game 1"]


@pytest.mark.parametrize(("arguments", "message"), [
    (["--engine", "/nonexistent/engine"], "cannot start /nonexistent/engine"),
    (["--engine", f"{sys.executable} tests/helpers/uci_fake_engine.py chess-only"], "does not play knightmate"),
    (["-o", "/nonexistent/dir/out.pgn"], "no directory /nonexistent/dir to write it in"),
])
def test_an_engine_that_does_not_start_or_an_output_that_cannot_be_written_is_one_line(
        arguments: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = analyse(capsys, str(write_game(tmp_path / "game.pgn")), *DEPTH, *arguments)
    assert code == 2 and out == ""
    assert err.startswith("knightmate-bot analyse: ") and message in err and err.count("\n") == 1


def test_a_missing_input_and_a_conflicting_budget_are_refused(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert analyse(capsys, str(tmp_path / "missing.pgn"))[:2] == (2, "")
    with pytest.raises(SystemExit) as exit_info:
        main(["analyse", "x.pgn", "--depth", "3", "--movetime-ms", "10"])
    assert exit_info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_the_progress_bar_shows_on_a_terminal(tmp_path: Path) -> None:
    code, seen = stderr_on_a_terminal("analyse", str(write_game(tmp_path / "game.pgn")), *DEPTH)
    assert code == 0
    assert b"position" in seen and b"%|" in seen  # tqdm's bar
    assert b"game.pgn game 1: alice - bob" in seen
