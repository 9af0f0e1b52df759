"""Puzzles on the page, in headless Chromium, through the page only: a puzzle solved raises the
person's rating, one failed lowers it and plays the solution out, the filters narrow the list, and
the rating's Glicko-2 gives the paper's worked example. The page is served from a bare sandbox
with the puzzles of ``data/puzzles.csv``; screenshots go to ``tests/screenshots`` (git-ignored).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from bench.page.browser_page import Page
from bot.sandbox import Sandbox
from bot.web.page_server import PageServer
from bot.web.puzzle_set import load_puzzle_set

SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"
PUZZLES_CSV = Path(__file__).resolve().parent / "data" / "puzzles.csv"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server() -> Iterator[PageServer]:
    with Sandbox("lichess") as sandbox, \
            PageServer(("127.0.0.1", 0), sandbox.add_person("you", bot="knightmate-bot"), "key", lambda game_id: None,
                       puzzles=load_puzzle_set([str(PUZZLES_CSV)], shipped=False)) as page_server:
        thread = threading.Thread(target=page_server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        try:
            yield page_server
        finally:
            page_server.shutdown()
            page_server.close_connections()
            thread.join()


@pytest.fixture
def page(driver: WebDriver, server: PageServer) -> Page:
    """The page of a person new to puzzles (nothing in this browser's storage), at 1280 px."""
    driver.set_window_size(1280, 900)
    page = Page(driver)
    page.open(f"{server.url}/?key=key")
    page.read("localStorage.clear()")
    page.open(f"{server.url}/")
    page.board_css = "#puzzle-board"
    return page


def open_puzzles(page: Page) -> None:
    page.find("#open-puzzles").click()
    page.wait.until(lambda d: page.find("#puzzle-info").text.startswith("Puzzle "))


def wait_your_turn(page: Page, ply: int) -> None:
    """Until the opponent's move before the person's move *ply* (0-based) is on the board."""
    page.wait.until(lambda d: page.ply() == ply and page.targets() == set() and page.selected() is None
                    and "interactive" in (page.find("#puzzle-board").get_attribute("class") or ""))


def move(page: Page, origin: str, target: str) -> None:
    page.click(origin)
    page.wait.until(lambda d: target in page.targets())
    page.click(target)


def rating(page: Page) -> float:
    return float(page.find("#puzzle-rating").get_attribute("data-rating") or "nan")


def moves(page: Page) -> list[tuple[str, str]]:
    return [(str(item.text), str(item.get_attribute("data-kind"))) for item in page.find_all("#puzzle-moves li")]


def test_glicko2_gives_the_worked_example_of_glickmans_paper(page: Page) -> None:
    """The paper's example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300, tau 0.5."""
    rated = page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import("/static/glicko2.js").then((glicko2) => done(glicko2.rate(
            { rating: 1500, deviation: 200, volatility: 0.06 },
            [{ rating: 1400, deviation: 30, score: 1 }, { rating: 1550, deviation: 100, score: 0 },
             { rating: 1700, deviation: 300, score: 0 }], 0.5)), (error) => done(String(error)));""")
    assert rated["rating"] == pytest.approx(1464.06, abs=0.01)
    assert rated["deviation"] == pytest.approx(151.52, abs=0.01)
    assert rated["volatility"] == pytest.approx(0.05999, abs=0.00001)


def test_the_persons_rating_starts_as_lichess_and_is_kept_within_its_bounds(page: Page) -> None:
    """A new player (or a broken record) is 1500/500/0.09; after each puzzle the deviation is kept
    at 45 or more and the volatility at 0.1 or less, as Lichess caps them (a record that left
    them, as Glicko-2 alone would keep them: 10 and 0.5, is brought back)."""
    ratings = page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import("/static/puzzle-rating.js").then((rating) => {
            const after = (glicko) => {
                localStorage.setItem("knightmate.puzzles", JSON.stringify({ glicko, played: {} }));
                return rating.record({ id: "p", rating: 1500, ratingDeviation: 45 }, true).after;
            };
            localStorage.setItem("knightmate.puzzles", "{not json");
            done([rating.load().glicko, after({ rating: 1500, deviation: 10, volatility: 0.0001 }),
                  after({ rating: 1500, deviation: 100, volatility: 0.5 })]);
        }, (error) => done(String(error)));""")
    fresh, certain, volatile = ratings
    assert fresh == {"rating": 1500, "deviation": 500, "volatility": 0.09}
    assert certain["deviation"] == 45 and certain["rating"] > 1500
    assert volatile["volatility"] == 0.1 and volatile["rating"] > 1500


def test_a_puzzle_solved_with_the_opponents_reply_played_raises_the_rating(page: Page) -> None:
    assert page.text("#puzzle-rating-start") == "1500?"
    open_puzzles(page)
    # The first puzzle is the one nearest a new player's 1500: the mate in two rated 1600.
    assert page.text("#puzzle-info") == "Puzzle kmTwo \u00B7 rated 1600 \u00B7 endgame, mate, mateIn2, short"
    assert page.find("#puzzle-game").get_attribute("href") == "https://example.org/game/2#20"
    wait_your_turn(page, 1)
    assert page.text("#puzzle-status") == "Your turn: find the best move for white."
    assert page.piece_on("h2") == "bk"  # the opponent's Kh2, played for the person
    move(page, "c5", "f8")
    wait_your_turn(page, 3)  # the opponent's only reply, Kg4, played for them
    assert page.piece_on("g4") == "bk"
    page.screenshot(SCREENSHOTS, "puzzle-1280-your-move")
    page.fits_the_window("a puzzle under way")  # the drag ghost of the move clicked on c5 sat on the board
    move(page, "f8", "f4")
    page.wait.until(lambda d: page.find("#puzzle-status").get_attribute("data-outcome") == "solved")
    assert page.text("#puzzle-status") == "Solved! Well done."
    assert moves(page) == [("Kh2", "opponent"), ("Qf8", "you"), ("Kg4", "opponent"), ("Qf4#", "you")]
    assert rating(page) > 1500
    assert page.text("#puzzle-rating-change").startswith("+")
    assert page.find('#puzzle-list button[data-puzzle="kmTwo"]').get_attribute("data-played") == "solved"
    page.screenshot(SCREENSHOTS, "puzzle-1280-solved")
    page.fits_the_window("a puzzle solved")  # the ghost of the move clicked on f8 at 1280 px: past a phone's edge
    # A reload keeps the rating: it lives in the browser.
    solved_rating = rating(page)
    page.open(page.driver.current_url)
    assert page.find("#puzzle-rating").get_attribute("data-rating") == f"{solved_rating:.2f}"


def test_a_wrong_move_fails_the_puzzle_lowers_the_rating_and_plays_the_solution(page: Page) -> None:
    open_puzzles(page)
    page.find('#puzzle-list button[data-puzzle="kmBlackTwo"]').click()
    page.wait.until(lambda d: page.text("#puzzle-info").startswith("Puzzle kmBlackTwo "))
    assert "orientation-black" in (page.find("#puzzle-board").get_attribute("class") or "")
    assert not page.find("#puzzle-game").is_displayed()  # its CSV names no game
    wait_your_turn(page, 1)
    move(page, "e4", "e1")  # not the solution's Qf1
    page.wait.until(lambda d: page.find("#puzzle-status").get_attribute("data-outcome") == "failed")
    assert page.text("#puzzle-status") == "Puzzle failed: the solution was Qf1 Kg5 Qf5#."
    assert rating(page) < 1500 and page.text("#puzzle-rating-change").startswith("\u2212")
    # The solution is played out from the position before the wrong move, to its mate.
    page.wait.until(lambda d: page.fen() == "8/8/8/3k1qK1/4r3/8/8/8 w - - 4 3")
    assert moves(page) == [("Kh7", "opponent"), ("Re1 \u2717", "wrong"), ("Qf1", "solution"), ("Kg5", "solution"),
                           ("Qf5#", "solution")]
    assert page.find("#puzzle-solution").get_attribute("disabled") is not None
    page.screenshot(SCREENSHOTS, "puzzle-1280-failed")
    # Played again, it teaches but does not count.
    failed_rating = rating(page)
    page.find('#puzzle-list button[data-puzzle="kmBlackTwo"]').click()
    wait_your_turn(page, 1)
    move(page, "c4", "f1")
    wait_your_turn(page, 3)
    move(page, "f1", "f5")
    page.wait.until(lambda d: page.find("#puzzle-status").get_attribute("data-outcome") == "solved")
    assert rating(page) == failed_rating and page.text("#puzzle-rating-change") == "(played before: not rated again)"


def test_the_filters_narrow_the_list_and_the_next_puzzle_keeps_to_them(page: Page) -> None:
    open_puzzles(page)

    def listed() -> list[str]:
        return [str(button.get_attribute("data-puzzle")) for button in page.find_all("#puzzle-list button")]

    def count_is(count: int) -> None:
        page.wait.until(lambda d: page.find("#puzzle-count").get_attribute("data-count") == str(count))

    count_is(4)
    assert listed() == ["kmOne", "kmBlackOne", "kmTwo", "kmBlackTwo"]
    Select(page.find("#puzzle-theme")).select_by_value("mateIn1")
    count_is(2)
    assert listed() == ["kmOne", "kmBlackOne"] and page.text("#puzzle-count") == "2 puzzles match"
    page.find("#puzzle-min").send_keys("1250", Keys.TAB)
    count_is(1)
    assert listed() == ["kmBlackOne"]
    page.find("#puzzle-next").click()
    page.wait.until(lambda d: page.text("#puzzle-info").startswith("Puzzle kmBlackOne "))
    page.find("#puzzle-max").send_keys("1000", Keys.TAB)
    count_is(0)
    assert listed() == []
    page.find("#puzzle-min").clear()
    page.find("#puzzle-max").clear()
    page.find("#puzzle-min").send_keys("x", Keys.TAB)  # a number field keeps no letters: no filter
    Select(page.find("#puzzle-theme")).select_by_value("")
    count_is(4)


def test_a_puzzle_on_a_phone(page: Page) -> None:
    page.driver.set_window_size(390, 844)
    open_puzzles(page)
    wait_your_turn(page, 1)
    width = page.read("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1]
    board = page.find("#puzzle-board").rect
    assert board["width"] >= 300 and board["x"] >= 0
    page.screenshot(SCREENSHOTS, "puzzle-390-your-move")
    tops = page.read('return ["puzzle-min", "puzzle-max"]'
                     '.map(id => document.getElementById(id).getBoundingClientRect().top)')
    assert tops[0] == tops[1]  # "Rated from [ ] to [ ]" on one line
    assert page.read("return window.scrollY") == 0  # the board in view, though the button was far down
    page.find("#puzzle-solution").click()
    page.wait.until(lambda d: page.find("#puzzle-status").get_attribute("data-outcome") == "failed")
    page.wait.until(lambda d: page.fen() == "8/8/8/4R3/3K1Qk1/8/8/8 b - - 4 3")  # the solution played out
    assert [kind for _, kind in moves(page)] == ["opponent", "solution", "solution", "solution"]
    page.read('document.querySelector("#puzzle-status").scrollIntoView({block: "center"})')
    page.screenshot(SCREENSHOTS, "puzzle-390-failed")
