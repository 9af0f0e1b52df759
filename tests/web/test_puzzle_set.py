"""The page's puzzles on the server: Lichess puzzle CSVs read and checked, the list filtered, a
puzzle served as positions with legal moves, over the page's routes and their checks, and the
config key that names more files."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from bench.page.browser_page import play_server
from bot.cli.main import main
from bot.config import ConfigError, parse_settings
from bot.sandbox import Sandbox
from bot.sandbox.world import ApiError
from bot.web import puzzle_set
from bot.web.page_server import PageServer
from bot.web.puzzle_set import (
    COLUMNS,
    PuzzleFileError,
    PuzzleFilter,
    PuzzleSet,
    load_puzzle_set,
    read_puzzle_csv,
)

#: Four puzzles (mates in one and two, for either side) and two lines that are none.
PUZZLES_CSV = Path(__file__).resolve().parent / "data" / "puzzles.csv"
HEADER = ",".join(COLUMNS) + "\n"
KEY = "the-test-key"


@pytest.fixture(scope="module")
def puzzles() -> PuzzleSet:
    return load_puzzle_set([str(PUZZLES_CSV)], shipped=False)


def test_every_legal_line_is_read_and_an_illegal_one_is_left_out_with_a_warning(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.web.puzzle_set"):
        puzzles = read_puzzle_csv(PUZZLES_CSV.read_text(encoding="utf-8"), "test.csv")
    assert [puzzle.puzzle_id for puzzle in puzzles] == ["kmOne", "kmTwo", "kmBlackOne", "kmBlackTwo"]
    assert puzzles[1].moves == ("f1h2", "c5f8", "h2g4", "f8f4") and puzzles[1].rating == 1600
    warnings = [record.getMessage() for record in caplog.records]
    assert len(warnings) == 2
    assert warnings[0].startswith("test.csv line 6 is left out: illegal uci: 'h2h4'")
    assert warnings[1].startswith("test.csv line 7 is left out: expected 8 rows")


@pytest.mark.parametrize(("row", "reason"), [
    ("bad id!,8/5Q2/8/4R3/3K4/8/7k/8 b - - 0 1,h2g4 f7f4,1200,80,0,0,mate,,", "the id 'bad id!'"),
    ("x,8/5Q2/8/4R3/3K4/8/7k/8 b - - 0 1,h2g4 f7f4,hard,80,0,0,mate,,", "must be whole numbers"),
    ("x,8/5Q2/8/4R3/3K4/8/7k/8 b - - 0 1,h2g4,1200,80,0,0,mate,,", "1 moves"),
    ("x,8/5Q2/8/4R3/3K4/8/7k/8 b - - 0 1,h2g4 f7f4 g4h2,1200,80,0,0,mate,,", "3 moves"),
    ("x,8/5Q2/8/4R3/8/8/7k/8 b - - 0 1,h2g4 f7f4,1200,80,0,0,mate,,", "white has no royal knight"),
    ("x,8/5Q2/8/4R3/3K4/8/7k/8 b - - 0 1,h2g4,1200", "4 columns"),
])
def test_a_line_that_is_no_puzzle_is_left_out_and_named(row: str, reason: str,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    good = "ok,8/5Q2/8/4R3/3K4/8/7k/8 b - - 0 1,h2g4 f7f4,1200,80,0,0,mate,,\n"
    with caplog.at_level(logging.WARNING, logger="bot.web.puzzle_set"):
        puzzles = read_puzzle_csv(HEADER + row + "\n" + good, "mine.csv")
    assert [puzzle.puzzle_id for puzzle in puzzles] == ["ok"]
    (warning,) = [record.getMessage() for record in caplog.records]
    assert warning.startswith("mine.csv line 2 is left out: ") and reason in warning


@pytest.mark.parametrize(("text", "message"), [
    ("", "mine.csv: not a Lichess puzzle CSV: its first line must be PuzzleId,FEN,Moves,"),
    ("[Event \"a game\"]\n1. e4 *\n", "mine.csv: not a Lichess puzzle CSV"),
    (HEADER, "mine.csv: holds no usable puzzle (0 lines left out"),
    (HEADER + "x,8/8/8/8/8/8/8/8 w - - 0 1,a1a2 a2a3,1,1,0,0,,,\n",
     "mine.csv: holds no usable puzzle (1 line left out"),
])
def test_a_file_that_is_no_puzzle_csv_is_one_line(text: str, message: str) -> None:
    with pytest.raises(PuzzleFileError) as error:
        read_puzzle_csv(text, "mine.csv")
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_a_file_saved_by_a_spreadsheet_with_windows_line_ends_and_a_bom_is_read(tmp_path: Path) -> None:
    saved = tmp_path / "saved.csv"
    saved.write_bytes(b"\xef\xbb\xbf" + PUZZLES_CSV.read_bytes().replace(b"\n", b"\r\n"))
    assert len(load_puzzle_set([str(saved)], shipped=False)) == 4


def test_a_file_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    with pytest.raises(PuzzleFileError, match=r"^/no/such/puzzles.csv: cannot read it: No such file"):
        load_puzzle_set(["/no/such/puzzles.csv"])
    binary = tmp_path / "puzzles.csv"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(PuzzleFileError, match="it is not UTF-8 text"):
        load_puzzle_set([str(binary)])


def test_the_shipped_set_is_served_when_the_package_has_one(monkeypatch: pytest.MonkeyPatch,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    assert len(load_puzzle_set([])) >= 200  # the starter set (tests/analysis/test_starter_puzzles.py)
    assert len(load_puzzle_set([], shipped=False)) == 0
    monkeypatch.setattr(puzzle_set, "SHIPPED_SET", ("tests.web", ("data", "puzzles.csv")))
    assert len(load_puzzle_set([])) == 4
    assert len(load_puzzle_set([str(PUZZLES_CSV)])) == 4  # the same ids again are left out
    monkeypatch.setattr(puzzle_set, "SHIPPED_SET", ("tests.web", ("__init__.py",)))
    with caplog.at_level(logging.ERROR, logger="bot.web.puzzle_set"):
        assert len(load_puzzle_set([str(PUZZLES_CSV)])) == 4  # a broken shipped set is left out, not fatal
    assert "the shipped puzzle set: not a Lichess puzzle CSV" in caplog.text


def test_a_second_puzzle_with_a_taken_id_is_left_out(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    again = tmp_path / "again.csv"
    again.write_text(HEADER + "kmOne,8/8/8/2Q1R3/3K4/8/8/5k2 b - - 0 1,f1h2 c5f8 h2g4 f8f4,999,80,0,0,,,\n",
                     encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="bot.web.puzzle_set"):
        puzzles = load_puzzle_set([str(PUZZLES_CSV), str(again)], shipped=False)
    assert len(puzzles) == 4 and puzzles.puzzle_json("kmOne")["rating"] == 1200
    assert "puzzle kmOne is left out: another puzzle has its id" in caplog.text


def test_the_list_is_filtered_by_theme_and_rating_easiest_first(puzzles: PuzzleSet) -> None:
    def ids(**wanted: object) -> list[str]:
        return [puzzle["id"] for puzzle in puzzles.listing_json(PuzzleFilter(**wanted))["puzzles"]]  # type: ignore[arg-type]

    assert ids() == ["kmOne", "kmBlackOne", "kmTwo", "kmBlackTwo"]
    assert ids(theme="mateIn2") == ["kmTwo", "kmBlackTwo"]
    assert ids(min_rating=1250, max_rating=1700) == ["kmBlackOne", "kmTwo"]
    assert ids(theme="mateIn1", min_rating=1250) == ["kmBlackOne"]
    assert ids(theme="fork") == []
    listing = puzzles.listing_json(PuzzleFilter(theme="mateIn2"))
    assert listing["count"] == 2
    assert {"theme": "mateIn1", "count": 2} in listing["themes"]
    assert {"theme": "endgame", "count": 4} in listing["themes"]


def test_a_filter_is_read_from_the_query_and_a_bad_bound_is_one_clear_error() -> None:
    assert PuzzleFilter.from_query({"theme": "mateIn2", "min": "1200", "max": ""}) == PuzzleFilter("mateIn2", 1200)
    assert PuzzleFilter.from_query({}) == PuzzleFilter()
    with pytest.raises(ApiError) as error:
        PuzzleFilter.from_query({"min": "hard"})
    assert error.value.status == 400 and error.value.message == "min must be a whole number (a rating), not 'hard'"


def test_a_puzzle_is_its_positions_with_the_legal_moves_where_the_person_moves(puzzles: PuzzleSet) -> None:
    puzzle = puzzles.puzzle_json("kmTwo")
    assert puzzle["initialFen"] == "8/8/8/2Q1R3/3K4/8/8/5k2 b - - 0 1" and puzzle["you"] == "white"
    steps = puzzle["steps"]
    assert [step["san"] for step in steps] == ["Kh2", "Qf8", "Kg4", "Qf4#"]
    assert [step["by"] for step in steps] == ["opponent", "you", "opponent", "you"]
    assert "legalMoves" not in steps[0] and "legalMoves" not in steps[2]
    before_qf8 = {move["uci"]: move for move in steps[1]["legalMoves"]}
    assert before_qf8["c5f8"] == {"uci": "c5f8", "san": "Qf8", "fen": steps[1]["fen"]}
    assert "e5e1" in before_qf8 and steps[1]["accepted"] == ["c5f8"]
    assert steps[3]["fen"] == "8/8/8/4R3/3K1Qk1/8/8/8 b - - 4 3"
    assert puzzles.puzzle_json("kmBlackOne")["you"] == "black"


def test_any_mate_solves_the_last_move_as_on_lichess() -> None:
    (puzzle,) = read_puzzle_csv(HEADER + "two,8/5Q2/8/4R3/3K4/8/7k/5R2 b - - 0 1,h2g4 f7f4,1200,80,0,0,mate,,\n", "t")
    steps = PuzzleSet([puzzle]).puzzle_json("two")["steps"]
    assert steps[1]["accepted"] == ["f7f4", "f7h5"]


def test_an_unknown_puzzle_is_a_404(puzzles: PuzzleSet) -> None:
    with pytest.raises(ApiError) as error:
        puzzles.puzzle_json("nothere")
    assert error.value.status == 404


@pytest.fixture
def page(puzzles: PuzzleSet) -> Iterator[PageServer]:
    """The page serving *puzzles*, on loopback."""
    with Sandbox("lichess") as sandbox, \
            PageServer(("127.0.0.1", 0), sandbox.add_person("you", bot="x"), KEY, lambda game_id: None,
                       puzzles=puzzles) as server:
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        try:
            yield server
        finally:
            server.shutdown()
            thread.join()


def test_the_puzzle_routes_answer_behind_the_session_and_host_checks(page: PageServer) -> None:
    session = requests.Session()
    session.cookies.set(page.session.cookie, KEY)

    def get(path: str, **headers: str) -> requests.Response:
        return session.get(page.url + path, headers=headers, timeout=10)

    assert [p["id"] for p in get("/api/puzzles?theme=mateIn2&min=1700").json()["puzzles"]] == ["kmBlackTwo"]
    assert get("/api/puzzles/kmOne").json()["steps"][1]["san"] == "Qf4#"
    assert get("/api/puzzles?max=easy").json() == {"error": "max must be a whole number (a rating), not 'easy'"}
    assert get("/api/puzzles/nothere").status_code == 404
    for path in ("/api/puzzles", "/api/puzzles/kmOne"):
        assert requests.get(page.url + path, timeout=10).status_code == 401
        assert requests.get(page.url + path, cookies={page.session.cookie: "guess"}, timeout=10).status_code == 401
        assert get(path, Host=f"rebound.example:{page.port}").status_code == 421


def test_a_page_without_puzzles_serves_an_empty_list() -> None:
    with Sandbox("lichess") as sandbox, \
            PageServer(("127.0.0.1", 0), sandbox.add_person("you", bot="x"), KEY, lambda game_id: None) as page:
        assert page.puzzles.listing_json(PuzzleFilter()) == {"puzzles": [], "count": 0, "themes": []}


def test_the_config_names_puzzle_files_and_play_stops_at_start_on_a_bad_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_settings({"game": {"puzzle_files": [str(PUZZLES_CSV)]}}).game.puzzle_files == (str(PUZZLES_CSV),)
    with pytest.raises(ConfigError, match=r"^game.puzzle_files: expected a list of file paths"):
        parse_settings({"game": {"puzzle_files": str(PUZZLES_CSV)}})
    bad = tmp_path / "games.pgn"
    bad.write_text("[Event \"a game\"]\n1. e4 *\n", encoding="utf-8")
    config = tmp_path / "config.yml"
    config.write_text(f"game:\n  puzzle_files: [{bad}]\n", encoding="utf-8")
    assert main(["play", "--config", str(config), "--port", "0"]) == 2
    assert capsys.readouterr().err.strip() == (f"knightmate-bot play: game.puzzle_files: {bad}: not a Lichess puzzle "
                                                f"CSV: its first line must be {','.join(COLUMNS)}")


def test_play_serves_the_puzzles_its_config_names(tmp_path: Path) -> None:
    config = tmp_path / "config.yml"
    config.write_text(f"engine:\n  workers: 1\n  hash_mb: 8\n  ponder: false\n"
                      f"game:\n  pgn_dir: {tmp_path / 'games'}\n  puzzle_files: [{PUZZLES_CSV}]\n", encoding="utf-8")
    with play_server(config) as url:
        session = requests.Session()
        assert session.get(url, timeout=10).status_code == 200  # the key becomes the session's cookie
        listing = session.get(url.split("?")[0] + "api/puzzles?theme=mateIn1", timeout=10).json()
    listed = [puzzle["id"] for puzzle in listing["puzzles"]]
    assert {"kmOne", "kmBlackOne"} <= set(listed) and len(listed) > 2  # the config's, with the starter set's
