"""``knightmate-bot play`` in a real browser: a person plays the bot on the page, through the page only.

One ``play`` (sandbox, the real bot with a config, the page) serves the whole module; headless
Chromium clicks and drags on the board's squares. The bot's config refuses games faster than 2+0,
so a 1+0 challenge shows its decline reason. Screenshots go to ``tests/screenshots`` (git-ignored).
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import chess.engine
import chess.pgn
import pytest
import requests
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from bench.page import browser_page
from bench.page.browser_page import Page
from bot.analysis import BUILTIN_CURVE, chances_percent
from bot.analysis.pgn_input import read_games
from bot.sandbox import Sandbox
from bot.web.page_server import PageServer

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"

#: White to move mates in two, and Black's one reply in between is forced: Qf8 Kg4 Qf4#.
MATE_IN_TWO = "8/8/8/2Q1R3/3K4/8/7k/8 w - - 0 1"
#: White mates in one: Qf4#... (the same position one move on).
MATE_IN_ONE = "8/5Q2/8/4R3/3K2k1/8/8/8 w - - 0 1"
#: White's pawn on b7 promotes.
PROMOTION = "4k3/1P6/8/8/8/8/8/K6R w - - 0 1"
#: Black (the bot) without its queen and rooks: clearly lost, so it takes a draw offered.
BLACK_LOST = "1mb1kbm1/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQ - 0 1"

CONFIG = """\
challenge:
  concurrency: 16
  min_base: 120
engine:
  max_move_time_ms: 150
  move_overhead_ms: 50
  ponder: false
  workers: 1
  hash_mb: 8
game:
  pgn_dir: {pgn_dir}
  greeting: "Hello from the test bot"
bot:
  log_level: WARNING
"""


@pytest.fixture(scope="module")
def pgn_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("games")


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory, pgn_dir: Path) -> Iterator[str]:
    config = tmp_path_factory.mktemp("config") / "config.yml"
    config.write_text(CONFIG.format(pgn_dir=pgn_dir), encoding="utf-8")
    with browser_page.play_server(config) as page_url:
        yield page_url


@pytest.fixture
def page(driver: WebDriver, url: str) -> Iterator[Page]:
    driver.set_window_size(1200, 900)
    page = Page(driver)
    page.open(url)
    yield page
    for handle in driver.window_handles[1:]:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(driver.window_handles[0])


def test_a_whole_game_played_by_clicks_ends_in_mate(page: Page, pgn_dir: Path) -> None:
    page.screenshot(SCREENSHOTS, "1-start")
    game_id = page.start_game(color="white", fen=MATE_IN_TWO)
    page.wait_your_move()
    page.click("c5")
    page.wait.until(lambda d: "f8" in page.targets())
    page.screenshot(SCREENSHOTS, "2-legal-targets")
    page.click("f8")
    page.wait_plies(2)  # the bot's only reply
    assert page.sans() == ["Qf8", "Kg4"]
    page.wait_your_move()
    page.move_by_clicks("f8", "f4")
    result = page.wait_over()
    assert result.startswith("1-0") and "Checkmate" in result
    assert page.sans() == ["Qf8", "Kg4", "Qf4#"]
    assert page.marked("check") == {"g4"}
    page.screenshot(SCREENSHOTS, "4-end")
    page.wait.until(lambda d: (pgn_dir / f"{game_id}.pgn").exists())
    assert "Qf4#" in (pgn_dir / f"{game_id}.pgn").read_text(encoding="utf-8")


def test_each_move_is_marked_once_for_the_latency_bench(page: Page) -> None:
    """window.kmMetrics, which bench/page/web_latency.py reads: one mark of each kind per move."""
    page.start_game(color="white", fen=MATE_IN_TWO)
    page.wait_your_move()
    page.move_by_clicks("c5", "f8")
    page.wait_plies(2)  # the bot's reply
    marks = lambda: page.read("return window.kmMetrics")  # noqa: E731
    page.wait.until(lambda d: marks()["botMoveToShown"] and marks()["clickToConfirmed"])
    shown = marks()
    assert [len(shown[kind]) for kind in ("clickToShown", "clickToConfirmed", "botMoveToShown")] == [1, 1, 1]
    assert 0 < shown["clickToShown"][0] <= shown["clickToConfirmed"][0] < 10_000
    assert -100 < shown["botMoveToShown"][0] < 10_000  # the page's clock against the server's: the same one
    assert 0 < shown["boardReadyMs"] <= shown["gameShownMs"]


def test_the_downloaded_pgn_is_the_bots_own_file(page: Page, pgn_dir: Path, downloads: Path) -> None:
    game_id = page.start_game(color="white", fen=MATE_IN_ONE)
    page.wait_your_move()
    page.move_by_clicks("f7", "f4")
    page.wait_over()
    page.find("#pgn-panel summary").click()
    page.wait.until(lambda d: "Qf4#" in str(page.find("#pgn").get_attribute("value")))
    page.find("#download-pgn").click()
    downloaded = downloads / f"knightmate-{game_id}.pgn"
    page.wait.until(lambda d: downloaded.exists() and downloaded.stat().st_size > 0)
    bots = (pgn_dir / f"{game_id}.pgn").read_text(encoding="utf-8")
    assert downloaded.read_text(encoding="utf-8") == bots
    assert page.find("#pgn").get_attribute("value") == bots
    assert '[Result "1-0"]' in bots and '[White "you"]' in bots


#: White, a queen and a rook up, mates a lone royal knight in a few moves.
QUEEN_AND_ROOK_UP = "4k3/8/8/8/8/8/8/QR2K3 w - - 0 1"


def test_a_whole_game_against_the_computer_at_level_1(page: Page, pgn_dir: Path) -> None:
    from bot.engine import Engine, Limits
    from variant import KnightmateBoard

    game_id = page.start_game(color="white", fen=QUEEN_AND_ROOK_UP, level="1", preset="5+3")
    assert "computer-1" in page.text("#top-player .name")
    engine = Engine(hash_mb=8)
    for _ in range(40):  # White's moves, the engine's choice, until the game ends
        if page.find("#status").get_attribute("data-result") is not None:
            break
        page.wait.until(lambda d: page.text("#status") == "Your move"
                        or page.find("#status").get_attribute("data-result") is not None)
        if page.find("#status").get_attribute("data-result") is not None:
            break
        board = KnightmateBoard(page.fen())
        move = engine.search(board, Limits(movetime_ms=100)).move
        assert move is not None
        plies = len(page.sans())
        page.move_by_clicks(board.uci(move)[:2], board.uci(move)[2:4])
        page.wait.until(lambda d, before=plies: len(page.sans()) >= before + 2
                        or page.find("#status").get_attribute("data-result") is not None)
    result = page.wait_over()
    assert result.startswith("1-0") and "Checkmate" in result, result
    assert not (pgn_dir / f"{game_id}.pgn").exists()  # the bot did not play it: the computer did


def test_a_drag_and_drop_move_is_played_and_an_illegal_drop_changes_nothing(page: Page) -> None:
    page.start_game(color="white")
    page.wait_your_move()
    page.wait.until(lambda d: "s to make the first move" in page.text("#countdown"))
    start = page.fen()
    page.drag("e2", "e5")  # a pawn cannot go there
    page.wait.until(lambda d: not page.targets() and page.piece_on("e2") == "wp")
    assert page.fen() == start and page.sans() == [] and page.piece_on("e5") is None
    assert page.text("#status") == "Your move"
    page.drag("e2", "e4")
    page.wait_plies(1)
    assert page.sans()[0] == "e4"
    page.wait_plies(2)  # the bot answered the dragged move: the server took it
    assert page.piece_on("e4") == "wp" and page.piece_on("e2") is None
    page.wait.until(lambda d: not page.find("#countdown").is_displayed())  # both sides have moved


def test_a_pawn_promotes_to_a_commoner_through_the_picker(page: Page) -> None:
    page.start_game(color="white", fen=PROMOTION)
    page.wait_your_move()
    page.click("b7")
    page.wait.until(lambda d: "b8" in page.targets())
    page.click("b8")
    page.wait.until(lambda d: page.find("#promotion").is_displayed())
    choices = [button.get_attribute("data-promotion") for button in page.find_all("#promotion button")]
    assert choices == ["q", "r", "b", "m"]  # the queen first, the commoner last
    page.screenshot(SCREENSHOTS, "3-promotion-picker")
    page.find('#promotion button[data-promotion="m"]').click()
    page.wait_plies(1)
    assert page.sans()[0] == "b8=M"
    assert page.piece_on("b8") == "wm"


def test_a_reload_mid_game_resumes_with_moves_and_clocks(page: Page) -> None:
    game_id = page.start_game(color="white", preset="5+3")
    page.wait_your_move()
    page.move_by_clicks("e2", "e4")
    page.wait_plies(2)
    page.wait_your_move()
    page.move_by_clicks("d2", "d4")  # the third ply: the clocks run from here
    page.wait_plies(4)
    page.wait_your_move()
    page.screenshot(SCREENSHOTS, "game-in-progress")
    before = page.sans()
    clocks = page.clocks_ms()
    reloaded_at = time.monotonic()
    page.driver.refresh()
    page.wait.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
    page.wait_plies(len(before))
    assert page.game_id() == game_id and page.sans() == before
    elapsed_ms = (time.monotonic() - reloaded_at) * 1000
    after = page.clocks_ms()
    assert abs(after["top"] - clocks["top"]) <= 150  # the bot's clock is stopped: unchanged
    # Ours runs: it went down by about the time the reload took, and not more.
    assert clocks["bottom"] - elapsed_ms - 300 <= after["bottom"] <= clocks["bottom"] + 150
    assert page.text("#status") == "Your move"


def test_the_pgn_panel_follows_the_game_with_its_real_headers(page: Page) -> None:
    page.start_game(color="white")
    page.wait_your_move()
    page.find("#pgn-panel summary").click()
    page.wait.until(lambda d: '[White "you"]' in str(page.find("#pgn").get_attribute("value")))
    text = str(page.find("#pgn").get_attribute("value"))
    assert '[Black "knightmate-bot"]' in text and '[TimeControl "180+2"]' in text and '[Result "*"]' in text
    assert '"?"' not in text
    page.move_by_clicks("e2", "e4")
    page.wait_plies(2)
    page.wait.until(lambda d: "1. e4 " in str(page.find("#pgn").get_attribute("value")))  # no click needed
    assert page.sans()[1] in str(page.find("#pgn").get_attribute("value"))


def test_resigning_ends_the_game_for_the_bot(page: Page, pgn_dir: Path) -> None:
    game_id = page.start_game(color="black")
    page.wait_plies(1)  # the bot moved first
    page.wait_your_move()
    page.move_by_clicks("e7", "e5")
    page.wait_plies(3)
    page.find("#resign").click()
    page.wait.until(lambda d: "armed" in str(page.find("#resign").get_attribute("class")))
    page.find("#resign").click()
    result = page.wait_over()
    assert result.startswith("1-0") and "resigned" in result
    page.wait.until(lambda d: (pgn_dir / f"{game_id}.pgn").exists())
    assert '[Result "1-0"]' in (pgn_dir / f"{game_id}.pgn").read_text(encoding="utf-8")


def test_a_draw_offer_the_bot_is_clearly_losing_is_accepted(page: Page) -> None:
    page.start_game(color="white", fen=BLACK_LOST)
    page.wait_your_move()
    page.move_by_clicks("e2", "e4")
    page.wait_your_move()  # the bot has replied, having searched a lost position
    page.find("#draw").click()
    result = page.wait_over()
    assert result.startswith("\u00BD-\u00BD") and "Draw" in result
    assert page.find("#draw-offer").is_displayed() is False


def test_a_draw_offer_in_a_level_game_is_declined_by_the_bots_move(page: Page) -> None:
    page.start_game(color="white")
    page.wait_your_move()
    page.find("#draw").click()
    page.wait.until(lambda d: page.text("#draw-offer").startswith("You offer a draw"))
    assert page.find("#draw").get_attribute("disabled") is not None
    page.move_by_clicks("e2", "e4")
    page.wait.until(lambda d: page.text("#draw-offer").endswith("declined the draw."))
    assert page.find("#draw").get_attribute("disabled") is None
    assert page.text("#status") == "Your move"


def test_the_opponents_draw_offer_is_shown_and_taken_on_the_page(driver: WebDriver) -> None:
    with Sandbox("lichess") as sandbox:
        sandbox.add_opponent("statue", strategy="idle")
        seat = sandbox.add_person("you", bot="statue")
        with PageServer(("127.0.0.1", 0), seat, "key", lambda game_id: None) as server:
            serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
            serving.start()
            try:
                page = Page(driver)
                page.open(f"{server.url}/?key=key")
                declined = page.start_game(color="white")
                sandbox.offer_draw(declined, "statue")
                page.wait.until(lambda d: page.find("#draw-decline").is_displayed())
                assert page.text("#draw-text") == "BOT statue offers a draw."
                page.find("#draw-decline").click()
                page.wait.until(lambda d: not page.find("#draw-offer").is_displayed())
                assert sandbox.game(declined).status == "started"
                page.find("#abort").click()
                page.wait_over()
                accepted = page.start_game(color="white")
                sandbox.offer_draw(accepted, "statue")
                page.wait.until(lambda d: page.find("#draw-accept").is_displayed())
                page.find("#draw-accept").click()
                assert page.wait_over().startswith("\u00BD-\u00BD")
                assert sandbox.game(accepted).status == "draw"
            finally:
                sandbox.stop()
                server.shutdown()
                server.close_connections()
                serving.join()


def test_a_time_control_the_bot_refuses_shows_its_reason(page: Page) -> None:
    page.challenge(preset="1+0")
    page.wait.until(lambda d: page.find("#challenge-message").get_attribute("data-reason") == "tooFast")
    assert "too fast" in page.text("#challenge-message")
    assert page.game_id() is None


def test_a_bad_fen_is_refused_with_a_clear_message(page: Page) -> None:
    page.challenge(fen="this is not a position")
    page.wait.until(lambda d: "FEN" in page.text("#challenge-message"))
    assert page.game_id() is None


def test_hostile_pastes_get_clear_messages_and_the_page_keeps_working(page: Page) -> None:
    page.challenge(fen="rmbq1bmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQ - 0 1")
    page.wait.until(lambda d: "black has no royal knight" in page.text("#challenge-message"))
    page.challenge(fen="4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1")
    page.wait.until(lambda d: "castling rights do not match" in page.text("#challenge-message"))
    page.read('document.getElementById("fen").value = "1. e4 e5 ".repeat(104858)')  # a megabyte pasted
    page.find("#challenge").click()
    page.wait.until(lambda d: "a FEN is one line of at most 120 characters" in page.text("#challenge-message"))
    assert page.find("#challenge-message").is_displayed() and page.game_id() is None
    page.start_game(color="white")  # and the page plays on
    page.wait_your_move()


def test_a_second_tab_follows_the_game_live(page: Page) -> None:
    game_id = page.start_game(color="white")
    page.wait_your_move()
    first_tab = page.driver.current_window_handle
    address = page.driver.current_url.split("#")[0]
    page.driver.switch_to.new_window("tab")
    watcher = Page(page.driver)
    watcher.open(f"{address}#game/{game_id}")
    watcher.wait.until(lambda d: watcher.ply() == 0)
    watcher.wait.until(lambda d: watcher.find(f'#games button[data-game="{game_id}"].current'))
    page.driver.switch_to.window(first_tab)
    page.move_by_clicks("d2", "d4")
    page.wait_plies(2)
    mine = page.sans()
    page.driver.switch_to.window(watcher.driver.window_handles[-1])
    watcher.wait_plies(2)
    assert watcher.sans()[:2] == mine[:2]
    watcher.wait.until(lambda d: "Hello from the test bot" in watcher.text("#chat-lines"))


def test_the_page_fits_a_phone(page: Page) -> None:
    page.driver.set_window_size(390, 844)
    assert page.find("header").rect["height"] < 120  # the title and legend in two short lines
    page.start_game(color="white")
    page.wait_your_move()
    in_view = page.read('const b = document.getElementById("board").getBoundingClientRect();'
                        ' return b.top >= 0 && b.bottom <= window.innerHeight')
    assert in_view  # the Play button was below the board: the board came back into view
    width = page.driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1]
    board = page.find("#board").rect
    assert board["width"] >= 300 and board["x"] >= 0
    page.move_by_clicks("e2", "e4")
    page.screenshot(SCREENSHOTS, "5-phone")


def test_the_first_moves_countdown_is_in_view_on_a_laptop(page: Page) -> None:
    """At 1280x900 the status and the warning that the game is aborted without a first move sat
    under the fold, under a board that took all the window's height."""
    page.driver.set_window_size(1280, 900)
    page.start_game(color="white")
    page.wait.until(lambda d: page.find("#countdown").is_displayed())
    assert page.read('return document.getElementById("countdown").getBoundingClientRect().bottom <= innerHeight')


def test_clicks_land_on_their_squares_after_the_page_moved_the_board(page: Page) -> None:
    """At this size the game panel brings a scroll bar and the clocks' row pushes the board down:
    the board must take its new place, not the one it had when drawn (a square off, before)."""
    page.driver.set_window_size(1280, 800)
    before = page.read('return JSON.stringify(document.querySelector("#board cg-board").getBoundingClientRect())')
    page.start_game(color="white")
    page.wait_your_move()
    after = page.read('return JSON.stringify(document.querySelector("#board cg-board").getBoundingClientRect())')
    assert before != after  # the board did move
    page.move_by_clicks("d2", "d4")
    assert page.sans()[0] == "d4"


def test_stepping_through_the_moves_with_keys_and_buttons_while_the_game_goes_on(page: Page) -> None:
    page.start_game(color="white")
    page.wait_your_move()
    page.move_by_clicks("e2", "e4")
    page.wait_plies(2)
    page.wait_your_move()
    live = page.fen()
    body = page.find("body")
    body.send_keys(Keys.ARROW_LEFT)
    page.wait.until(lambda d: page.ply() == 1)
    assert page.read('return document.querySelector("#moves .current").dataset.ply') == "1"
    assert page.piece_on("e4") == "wp" and page.fen() != live
    page.click("d2")
    assert page.selected() is None and page.targets() == set()  # no moves from a position of the past
    page.find("#first").click()
    page.wait.until(lambda d: page.ply() == 0 and page.piece_on("e2") == "wp")
    page.find("#forward").click()
    page.wait.until(lambda d: page.ply() == 1)
    body.send_keys(Keys.END)
    page.wait.until(lambda d: page.ply() == 2 and page.fen() == live)
    page.move_by_clicks("d2", "d4")  # back at the present, the board plays again


def test_watching_the_bot_play_its_sparring_partner_live(page: Page) -> None:
    page.find("#exhibition").click()
    page.wait.until(lambda d: page.game_id() is not None and page.ply() is not None)
    game_id = page.game_id()
    page.wait.until(lambda d: page.find(f'#games button[data-game="{game_id}"]'))
    names = {page.text("#top-player .name"), page.text("#bottom-player .name")}
    assert any("knightmate-bot" in name for name in names) and any("sparring" in name for name in names), names
    page.wait.until(lambda d: len(page.sans()) >= 4)
    seen = len(page.sans())
    # It goes on move by move (or it ended meanwhile, and the page shows how).
    page.wait.until(lambda d: len(page.sans()) > seen or page.find("#status").get_attribute("data-result"))
    assert page.targets() == set() and "You" not in names
    for button in ("#resign", "#abort", "#draw", "#rematch"):  # a spectator has no player's buttons
        assert not page.find(button).is_displayed(), button


def test_moves_sound_and_the_mute_switch_is_remembered(page: Page) -> None:
    page.start_game(color="white")
    page.wait_your_move()
    page.move_by_clicks("e2", "e4")
    assert page.read("return document.body.dataset.lastSound") == "move"
    page.find("#mute").click()
    page.driver.refresh()
    page.wait.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
    page.wait_your_move()
    assert page.text("#mute") == "Sound off" and page.find("#mute").get_attribute("aria-pressed") == "true"
    page.move_by_clicks("d2", "d4")
    page.wait_plies(4)
    assert page.read("return document.body.dataset.lastSound") is None  # neither ours nor the bot's
    page.find("#mute").click()  # the next test's page has sound again
    assert page.text("#mute") == "Sound on"


def test_a_game_that_does_not_exist_is_said_so(page: Page) -> None:
    page.driver.get(page.driver.current_url.split("#")[0] + "#game/nosuchgame")
    page.wait.until(lambda d: page.find("#notice").is_displayed())
    assert page.text("#notice") == "No such game"


def test_chat_reaches_the_bot_and_its_answer_comes_back(page: Page) -> None:
    page.start_game(color="white")
    page.wait_your_move()
    page.find("#chat-text").send_keys("!name")
    page.find("#chat-form button").click()
    page.wait.until(lambda d: "!name" in page.text("#chat-lines"))
    page.wait.until(lambda d: page.text("#chat-lines").count("knightmate-bot") >= 2)  # greeting, then the answer
    assert "knightmate-bot 0.1.0" in page.text("#chat-lines")


def test_the_bot_plays_the_page_on_the_pychess_dialect_too(driver: WebDriver, tmp_path: Path) -> None:
    config = tmp_path / "config.yml"
    config.write_text(CONFIG.format(pgn_dir=tmp_path / "games"), encoding="utf-8")
    with browser_page.play_server(config, dialect="pychess") as url:
        driver.set_window_size(1200, 900)
        page = Page(driver)
        page.open(url)
        game_id = page.start_game(color="white", fen=MATE_IN_TWO)
        page.wait_your_move()
        assert not page.find("#draw").is_displayed()  # pychess's Bot API carries no draw offers
        page.move_by_clicks("c5", "f8")
        page.wait_plies(2)
        page.wait_your_move()
        page.move_by_clicks("f8", "f4")
        assert page.wait_over().startswith("1-0")
        page.wait.until(lambda d: (tmp_path / "games" / f"{game_id}.pgn").exists())


def test_abort_while_allowed_then_a_rematch_with_the_colours_swapped(page: Page) -> None:
    first = page.start_game(color="white")
    page.wait_your_move()
    assert page.find("#abort").is_enabled() and not page.find("#resign").is_enabled()
    page.find("#abort").click()
    result = page.wait_over()
    assert "aborted" in result and not page.find("#abort").is_enabled()
    page.find("#rematch").click()
    page.wait.until(lambda d: page.game_id() not in (None, first) and page.ply() is not None)
    page.wait.until(lambda d: "You" in page.text("#bottom-player .name") and
                    page.read('return document.querySelector("#bottom-player").dataset.color') == "black")
    page.wait_plies(1)  # the bot, White now, moved first


class Puppet:
    """A page served by a bare sandbox whose opponent, ``puppet``, is a Bot API account this test
    moves itself: every move of the opponent comes when the test says."""

    TOKEN = "puppet-token"

    def __init__(self, driver: WebDriver, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        sandbox.add_account("puppet", token=self.TOKEN, bot=True)
        self.seat = sandbox.add_person("you", bot="puppet")
        self.server = self._serve(0)
        self.page = Page(driver)
        self.page.open(f"{self.server.url}/?key=key")

    def _serve(self, port: int) -> PageServer:
        server = PageServer(("127.0.0.1", port), self.seat, "key", lambda game_id: None)
        self.thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        self.thread.start()
        return server

    def stop_page_server(self) -> None:
        self.server.shutdown()
        self.server.close_connections()
        self.server.server_close()
        self.thread.join()

    def start_page_server(self) -> None:
        self.server = self._serve(self.server.port)

    def start_game(self, **challenge: str) -> str:
        """The page challenges the puppet, which accepts; the game's id once the page shows it."""
        seen = set(self.sandbox.challenges_from("you"))
        self.page.challenge(**challenge)
        self.page.wait.until(lambda d: set(self.sandbox.challenges_from("you")) - seen)
        (challenge_id,) = set(self.sandbox.challenges_from("you")) - seen
        self._post(f"/api/challenge/{challenge_id}/accept")
        self.page.wait.until(lambda d: self.page.game_id() is not None and self.page.ply() is not None)
        game_id = self.page.game_id()
        assert game_id is not None
        return game_id

    def move(self, game_id: str, uci: str) -> None:
        self._post(f"/api/bot/game/{game_id}/move/{uci}")

    def _post(self, path: str) -> None:
        response = requests.post(self.sandbox.url + path, headers={"Authorization": f"Bearer {self.TOKEN}"}, timeout=10)
        assert response.status_code == 200, response.text

    def close(self) -> None:
        self.sandbox.stop()
        self.stop_page_server()
        self.server.analyser.stop()  # quits its engine, whose thread would keep pytest from ending


@pytest.fixture
def puppet(driver: WebDriver) -> Iterator[Puppet]:
    driver.set_window_size(1200, 900)
    with Sandbox("lichess") as sandbox:
        puppet = Puppet(driver, sandbox)
        try:
            yield puppet
        finally:
            puppet.close()


def test_a_premove_is_played_the_moment_the_turn_comes(puppet: Puppet) -> None:
    page = puppet.page
    game_id = puppet.start_game(color="white", preset="5+0")
    page.wait_your_move()
    page.move_by_clicks("e2", "e4")
    page.click("d2")  # the puppet's turn: a premove
    page.click("d4")
    page.wait.until(lambda d: page.marked("current-premove") == {"d2", "d4"})
    puppet.move(game_id, "e7e5")
    record = puppet.sandbox.wait_moves(game_id, 3, timeout=10)
    assert record.moves == ["e2e4", "e7e5", "d2d4"]
    white_used_ms = 300_000 - record.clocks_after_ms[2]
    assert white_used_ms < 500, white_used_ms  # no click between the puppet's move and ours
    page.wait_plies(3)
    assert page.sans() == ["e4", "e5", "d4"] and page.marked("current-premove") == set()


def test_a_premove_that_became_illegal_is_dropped(puppet: Puppet) -> None:
    page = puppet.page
    game_id = puppet.start_game(color="white")
    page.wait_your_move()
    page.move_by_clicks("e2", "e4")
    page.click("e4")
    page.click("e5")  # blocked once the puppet plays e5
    page.wait.until(lambda d: page.marked("current-premove") == {"e4", "e5"})
    puppet.move(game_id, "e7e5")
    page.wait_plies(2)
    page.wait_your_move()
    assert page.marked("current-premove") == set() and len(puppet.sandbox.game(game_id).moves) == 2


def test_the_server_gone_shows_a_banner_and_the_game_resumes_when_it_is_back(puppet: Puppet) -> None:
    page = puppet.page
    game_id = puppet.start_game(color="white")
    page.wait_your_move()
    page.move_by_clicks("e2", "e4")
    assert not page.find("#offline").is_displayed()
    puppet.stop_page_server()
    page.wait.until(lambda d: page.find("#offline").is_displayed())
    assert "does not answer" in page.text("#offline")
    puppet.move(game_id, "e7e5")  # played while the page cannot see it
    puppet.start_page_server()
    page.wait.until(lambda d: not page.find("#offline").is_displayed())
    page.wait_plies(2)
    page.wait_your_move()
    page.move_by_clicks("d2", "d4")
    assert puppet.sandbox.wait_moves(game_id, 3, timeout=10).moves[2] == "d2d4"



ANALYSIS_PGN = """[White "A"]
[Black "B"]

1. c3 c6 2. Mc2 Mc7 3. Md3 *
"""


def bar_percent(score_text: str) -> float:
    """White's share as the eval bar should draw it for the score the page wrote ("+0.38", "#-3")."""
    score = (chess.engine.Mate(int(score_text[1:])) if score_text.startswith("#")
             else chess.engine.Cp(round(float(score_text) * 100)))
    return round(chances_percent(score, BUILTIN_CURVE), 1)  # the page's engine: the built-in one


def test_the_analysis_board_from_a_pasted_pgn(puppet: Puppet) -> None:
    page = puppet.page  # a sandbox where the person plays no game: no analysis during one
    page.find("#paste").send_keys(ANALYSIS_PGN)
    page.find("#analyse-paste").click()
    page.wait.until(lambda d: page.find("#analysis").is_displayed() and not page.find("#main").is_displayed())
    page.board_css = "#analysis-board"
    page.wait.until(lambda d: page.ply() == 5)
    assert page.read('return [...document.querySelectorAll("#tree .move")].map(m => m.textContent)') == \
        ["c3", "c6", "Mc2", "Mc7", "Md3"]
    depth = lambda: int(page.find("#analysis-depth").get_attribute("data-depth") or 0)  # noqa: E731
    page.wait.until(lambda d: depth() >= 2 and len(page.find_all("#lines li")) == 3)
    first = depth()
    page.wait.until(lambda d: depth() > first)  # the lines deepen while it thinks
    text, width = page.read('return [document.getElementById("eval-text").textContent,'
                            ' document.getElementById("eval-white").style.width]')
    assert width == f"{bar_percent(text):.1f}%", text  # the bar: the server's share, by the verdicts' curve
    page.wait.until(lambda d: page.find_all("#analysis-board .cg-shapes line"))  # the best move's arrow
    fen_before = page.fen()

    best_move = '#lines li[data-line="1"] .move[data-index="0"]'

    def hold_lines() -> bool:
        """The pointer moved onto the best line's first move: the lines are drawn anew with each
        report, and under a pointer they hold still, so the move read is the move clicked."""
        ActionChains(page.driver).move_to_element(page.find(best_move)).perform()
        return bool(page.find_all("#lines.held"))

    page.wait.until(lambda d: hold_lines())
    held = page.find(best_move)
    drawn_depth = depth()
    page.wait.until(lambda d: int(page.find("#lines").get_attribute("data-newer-depth") or 0) > drawn_depth)
    assert held == page.find(best_move) and depth() == drawn_depth  # a deeper report came, and waits
    assert f"depth {page.find('#lines').get_attribute('data-newer-depth')}" in page.read(
        'return getComputedStyle(document.getElementById("lines"), "::after").content')
    best_san, best_uci = held.text, str(held.get_attribute("data-uci"))
    held.click()  # plays the line's first move
    page.wait.until(lambda d: page.ply() == 6 and page.fen() != fen_before)
    assert page.text("#tree .move.current") == best_san
    body = page.find("body")
    body.send_keys(Keys.ARROW_LEFT)
    page.wait.until(lambda d: page.ply() == 5 and page.fen() == fen_before)
    # A move of our own that is not the engine's choice makes a side line.
    for square in page.pieces_of("black"):
        page.select(square)
        others = sorted(target for target in page.targets() if square + target != best_uci[:4])
        if others:
            page.click(others[0])
            break
    page.wait.until(lambda d: page.ply() == 6 and page.find_all("#tree .variation"))
    side = page.text("#tree .move.current")
    assert side != best_san and side in page.text("#tree .variation")
    body.send_keys(Keys.ARROW_LEFT)
    page.wait.until(lambda d: page.ply() == 5)
    body.send_keys(Keys.ARROW_RIGHT)  # into the main line again: the engine's move came first
    page.wait.until(lambda d: page.ply() == 6 and page.text("#tree .move.current") == best_san)
    page.find("#tree .variation .move").click()
    page.wait.until(lambda d: page.text("#tree .move.current") == side)
    page.wait.until(lambda d: page.find_all("#analysis-board .cg-shapes line") and depth() >= 3)
    page.screenshot(SCREENSHOTS, "6-analysis")
    page.driver.set_window_size(390, 844)
    page.screenshot(SCREENSHOTS, "7-analysis-phone")
    page.driver.set_window_size(1200, 900)
    page.find("#close-analysis").click()
    page.wait.until(lambda d: page.find("#main").is_displayed() and not page.find("#analysis").is_displayed())
    page.board_css = "#board"


def test_a_hostile_paste_on_the_analysis_board_is_said_so_and_the_page_works_on(puppet: Puppet) -> None:
    page = puppet.page
    for text, message in (("this is not chess at all", "neither a FEN nor a PGN"),
                          ("1. c3 c6 2. Ke3 *", "illegal move 2. Ke3"),
                          ("rmbq1bmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQ - 0 1", "black has no royal knight")):
        page.find("#paste").clear()
        page.find("#paste").send_keys(text)
        page.find("#analyse-paste").click()
        page.wait.until(lambda d, expected=message: expected in page.text("#paste-message"))
    page.read('document.getElementById("paste").value = "1. e4 e5 ".repeat(104858)')  # a megabyte
    page.find("#analyse-paste").click()
    page.wait.until(lambda d: "characters long" in page.text("#paste-message"))
    assert not page.find("#analysis").is_displayed()
    page.find("#paste").clear()
    page.find("#paste").send_keys("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
    page.find("#analyse-paste").click()
    page.wait.until(lambda d: page.find("#analysis").is_displayed())
    page.board_css = "#analysis-board"
    page.wait.until(lambda d: page.find_all("#lines li"))
    page.find("#close-analysis").click()
    page.board_css = "#board"


def test_a_finished_game_is_analysed_but_never_ones_own_running_game(puppet: Puppet) -> None:
    page = puppet.page
    game_id = puppet.start_game(color="white", fen=MATE_IN_ONE)
    page.wait_your_move()
    assert not page.find("#analyse-game").is_displayed()
    page.move_by_clicks("f7", "f4")
    page.wait_over()
    page.find("#analyse-game").click()
    page.board_css = "#analysis-board"
    page.wait.until(lambda d: page.ply() == 1)
    assert page.text("#tree .move.current") == "Qf4#"
    page.wait.until(lambda d: "1-0" in page.text("#analysis-status"))
    assert puppet.sandbox.game(game_id).status == "mate"
    page.find("#analysis-copy-pgn").click()  # the game's copy carries its players and result
    page.wait.until(lambda d: page.find("#analysis-copied").get_attribute("data-copied") == "PGN")
    copied = chess.pgn.read_game(io.StringIO(str(page.find("#analysis-copied").get_attribute("value"))))
    assert copied is not None and not copied.errors
    assert (copied.headers["White"], copied.headers["Black"], copied.headers["Result"]) == ("you", "puppet", "1-0")
    assert copied.headers["FEN"] == MATE_IN_ONE and [node.san() for node in copied.mainline()] == ["Qf4#"]
    page.find("#close-analysis").click()
    page.board_css = "#board"
    page.wait.until(lambda d: page.find("#main").is_displayed())


def test_a_review_marks_the_planted_blunder_and_its_pgn_carries_the_nag(puppet: Puppet, downloads: Path) -> None:
    page = puppet.page
    game_id = puppet.start_game(color="white", preset="5+3")
    page.wait_your_move()
    page.move_by_clicks("e2", "e3")
    puppet.move(game_id, "d7d5")
    page.wait_plies(2)
    page.wait_your_move()
    page.move_by_clicks("d1", "g4")  # the blunder: the c8 bishop takes the queen
    puppet.move(game_id, "c8g4")
    page.wait_plies(4)
    page.find("#resign").click()
    page.find("#resign").click()
    page.wait_over()
    page.find("#review").click()
    page.wait.until(lambda d: page.find_all("#review-graph .white-area"))
    assert page.read('return document.querySelector("#moves [data-ply=\\"3\\"]").dataset.judgement') == "blunder"
    assert page.text('#moves [data-ply="3"] .nag') == "??"
    assert "1 blunders" in page.text("#review-summary") or "1 blunder" in page.text("#review-summary")
    assert page.find_all('#review-graph circle.blunder[data-ply="3"]')
    page.find("#back").click()  # to the position before the blunder: the better move's arrow
    page.find("#back").click()
    page.wait.until(lambda d: page.ply() == 2 and page.find_all("#board .cg-shapes line"))
    page.screenshot(SCREENSHOTS, "8-review")
    page.find("#review-download").click()
    downloaded = downloads / f"knightmate-{game_id}-review.pgn"
    page.wait.until(lambda d: downloaded.exists() and downloaded.stat().st_size > 0)
    import chess.pgn

    import variant  # noqa: F401 (registers Knightmate with chess.pgn)

    game = chess.pgn.read_game(io.StringIO(downloaded.read_text(encoding="utf-8")))
    assert game is not None and not game.errors
    third = list(game.mainline())[2]
    assert third.san() == "Qg4" and chess.pgn.NAG_BLUNDER in third.nags


def start_review(page: Page) -> dict[str, object]:
    """Clicks "Review this game" and reads the review panel in the same script, before the server
    has answered: what a person sees in the first moments of the review."""
    return dict(page.read(
        'document.getElementById("review").click();'
        ' const shown = (id) => getComputedStyle(document.getElementById(id)).display !== "none";'
        ' const box = document.getElementById("review-progress").getBoundingClientRect();'
        ' return {download: shown("review-download"), graph: shown("review-graph"), progress: shown("review-progress"),'
        ' progressInView: box.top >= 0 && box.bottom <= window.innerHeight};'))


def wait_reviewed(page: Page) -> None:
    WebDriverWait(page.driver, 90).until(lambda d: page.find_all("#review-graph .white-area"))


def test_a_review_shows_itself_and_offers_its_pgn_only_when_done(puppet: Puppet, downloads: Path) -> None:
    page = puppet.page
    page.driver.set_window_size(1280, 900)
    game_id = puppet.start_game(color="white", preset="5+3")
    page.wait_your_move()
    for white, black in (("e2e3", "d7d5"), ("d1g4", "c8g4")):  # 2. Qg4?? Bxg4
        puppet.seat.move(game_id, white)
        puppet.move(game_id, black)
    page.wait_plies(4)
    puppet.seat.resign(game_id)
    page.wait_over()
    first_moments = start_review(page)
    assert first_moments == {"download": False, "graph": False, "progress": True, "progressInView": True}
    wait_reviewed(page)
    assert page.find("#review-download").is_displayed()
    assert not page.find("#chat-lines").is_displayed()  # the puppet said nothing: no empty box over the chat's field
    page.screenshot(SCREENSHOTS, "review-1280")
    page.driver.set_window_size(390, 844)
    page.read('document.getElementById("review-panel").scrollIntoView({block: "nearest"})')
    page.screenshot(SCREENSHOTS, "review-390")
    page.driver.set_window_size(1280, 900)
    summary = page.text("#review-summary")
    assert "1 blunder." in summary and "blunders" not in summary.split("Black")[0]
    # A mark on the graph is a round dot, whatever the graph's width.
    width, height = page.read('const r = document.querySelector("#review-graph circle.blunder")'
                              '.getBoundingClientRect(); return [r.width, r.height]')
    assert height >= 6 and abs(width - height) <= 1, (width, height)
    better = page.text('#moves .comment')
    assert better.startswith("Blunder.") and better.endswith("was best."), better
    page.find("#review-download").click()
    downloaded = downloads / f"knightmate-{game_id}-review.pgn"
    page.wait.until(lambda d: downloaded.exists() and downloaded.stat().st_size > 0)
    text = downloaded.read_text(encoding="utf-8")
    for side in summary.splitlines():
        assert side in text.replace("\n", " "), (side, text)  # the same figures, rounded once
    assert better in text


#: A long game of pawn moves, 32 plies, for the graph and the move list.
PAWN_MARCH = [f"{file}{a}{file}{b}" for a, b in (("2", "3"), ("3", "4")) for file in "abcdefgh"]
PAWN_MARCH_BLACK = [f"{file}{a}{file}{b}" for a, b in (("7", "6"), ("6", "5")) for file in "abcdefgh"]


def test_the_move_list_follows_the_move_chosen_on_the_graph(puppet: Puppet) -> None:
    page = puppet.page
    page.driver.set_window_size(1280, 900)
    game_id = puppet.start_game(color="white", preset="5+3")
    page.wait_your_move()
    for white, black in zip(PAWN_MARCH, PAWN_MARCH_BLACK, strict=True):
        puppet.seat.move(game_id, white)
        puppet.move(game_id, black)
    page.wait_plies(32)
    puppet.seat.resign(game_id)
    page.wait_over()
    page.find("#review").click()
    wait_reviewed(page)
    graph = page.find("#review-graph")
    ActionChains(page.driver).move_to_element_with_offset(graph, -graph.rect["width"] // 2 + 20, 0).click().perform()
    page.wait.until(lambda d: (page.ply() or 99) <= 3)
    in_list = page.read('const list = document.getElementById("moves").getBoundingClientRect();'
                        ' const c = document.querySelector("#moves .current").getBoundingClientRect();'
                        ' return c.top >= list.top - 1 && c.bottom <= list.bottom + 1')
    assert in_list
    page.screenshot(SCREENSHOTS, "review-long-1280")


#: White's rook takes Black's queen on h5 for nothing; a3 instead is the planted blunder.
QUEEN_FOR_THE_TAKING = "rmb1kbmr/pppppppp/8/7q/8/8/PPPPPPP1/RMBQKBMR w Q - 0 1"


def play_try(page: Page, origin: str, target: str) -> None:
    page.select(origin)
    page.wait.until(lambda d: target in page.targets())
    page.click(target)


def queen_escapes_and_white_resigns(puppet: Puppet, game_id: str) -> None:
    """After White's blunder in QUEEN_FOR_THE_TAKING: the bot's queen escapes, White resigns, and
    the page shows the game over (a short game with one error of the person's to review)."""
    puppet.move(game_id, "h5d5")
    puppet.page.wait_plies(2)
    puppet.seat.resign(game_id)
    puppet.page.wait_over()


def test_learning_from_a_planted_blunder(puppet: Puppet) -> None:
    page = puppet.page
    page.driver.set_window_size(1280, 900)
    game_id = puppet.start_game(color="white", preset="5+3", fen=QUEEN_FOR_THE_TAKING)
    page.wait_your_move()
    puppet.seat.move(game_id, "a2a3")  # the blunder: the queen goes free
    queen_escapes_and_white_resigns(puppet, game_id)
    page.find("#review").click()
    wait_reviewed(page)
    page.find("#learn-start").click()
    page.wait.until(lambda d: "Find a better move" in page.text("#learn-text") and page.ply() == 0)
    assert page.text("#learn-text").startswith("1 of 1: 1. a3??")
    page.wait.until(lambda d: page.piece_on("h5") == "bq" and page.piece_on("a2") == "wp")
    play_try(page, "b2", "b3")  # lets the queen go too
    page.wait.until(lambda d: "Try another move" in page.text("#learn-text"))
    assert "b3 would be a blunder too" in page.text("#learn-text")
    page.wait.until(lambda d: page.piece_on("b2") == "wp" and page.piece_on("b3") is None)  # back before the try
    page.find("#learn-hint").click()
    page.wait.until(lambda d: "Hint: move your rook" in page.text("#learn-text"))
    page.screenshot(SCREENSHOTS, "learn-1280")
    play_try(page, "h1", "h5")
    page.wait.until(lambda d: "Well found" in page.text("#learn-text") and page.piece_on("h5") == "wr")
    assert page.text("#viewing") == ""  # the exercise's words say what the board shows, not the game's line
    page.driver.set_window_size(390, 844)
    page.wait.until(lambda d: page.read(  # on a phone the exercise's words come right under the board
        'const board = document.getElementById("board").getBoundingClientRect();'
        ' const words = document.getElementById("learn-text").getBoundingClientRect();'
        ' return words.top >= board.bottom && words.top - board.bottom < 80'))
    page.screenshot(SCREENSHOTS, "learn-390")
    page.driver.set_window_size(1280, 900)
    page.find("#learn-next").click()
    page.wait.until(lambda d: page.text("#learn-text").startswith("Done: you found 1 of 1 better move"))
    assert page.find("#learn-text").get_attribute("data-found") == "1"
    page.find("#learn-stop").click()
    page.wait.until(lambda d: not page.find("#learn").is_displayed())
    page.find("#last").click()  # the game again, as it was played
    page.wait.until(lambda d: page.ply() == 2 and page.piece_on("d5") == "bq" and page.piece_on("a3") == "wp")
    page.find("#first").click()
    page.wait.until(lambda d: page.text("#viewing") == "Viewing the start position")


def test_the_analysis_board_steps_with_its_buttons_on_a_phone(puppet: Puppet) -> None:
    page = puppet.page
    page.driver.set_window_size(390, 844)
    page.find("#paste").send_keys(ANALYSIS_PGN)
    page.find("#analyse-paste").click()
    page.board_css = "#analysis-board"
    page.wait.until(lambda d: page.find("#analysis").is_displayed() and page.ply() == 5)
    assert page.read("return window.scrollY") == 0  # the board and its bar in view, though Analyse was far down
    assert page.find("#analysis-forward").get_attribute("disabled") is not None  # at the end already
    for button, ply in (("#analysis-back", 4), ("#analysis-first", 0), ("#analysis-forward", 1), ("#analysis-last", 5)):
        page.find(button).click()
        page.wait.until(lambda d, expected=ply: page.ply() == expected)
    right = page.read('return Math.max(...["first", "back", "forward", "last"].map(id =>'
                      ' document.getElementById("analysis-" + id).getBoundingClientRect().right))')
    assert right <= 390
    page.screenshot(SCREENSHOTS, "12-analysis-steps-phone")
    page.find("#close-analysis").click()
    page.board_css = "#board"


#: An annotated game: comments, NAGs, a side line after a White move with one in it, and one
#: after 2. Mc2 (so Black's reply after it is numbered again).
ANNOTATED_PGN = """[Event "Club"]
[White "A"]
[Black "B"]
[Result "*"]

{Quiet start} 1. c3 $1 c6 (1... e6 $6 {loosens d6} 2. Mc2 (2. d4 $4 d5) 2... d5) 2. Mc2 $2 $18 (2. d4 d5) 2... Mc7
3. Md3 *
"""


def paste(page: Page, text: str) -> None:
    """*text* in the paste box, as if pasted (typing it would take long), and Analyse clicked."""
    page.read('document.getElementById("paste").value = arguments[0]', text)
    page.find("#analyse-paste").click()


def open_in_analysis(page: Page, text: str, ply: int) -> None:
    """*text* pasted and opened on the analysis board, which the page then drives, at *ply*."""
    paste(page, text)
    page.board_css = "#analysis-board"
    page.wait.until(lambda d: page.find("#analysis").is_displayed() and page.ply() == ply)


def tree_of(node: chess.pgn.GameNode) -> list[object]:
    """Every move under *node* with its comments and NAGs, variations in order: what a copy keeps."""
    return [(child.uci(), child.comment, child.starting_comment, sorted(child.nags), tree_of(child))
            for child in node.variations]


def test_an_annotated_pgn_shows_its_comments_nags_and_side_lines_and_copies_back_whole(puppet: Puppet) -> None:
    page = puppet.page
    page.driver.set_window_size(1280, 900)
    open_in_analysis(page, ANNOTATED_PGN, ply=5)
    assert page.text("#tree") == ("Quiet start 1. c3! c6 (1... e6?! loosens d6 2. Mc2 (2. d4?? d5) 2... d5)"
                                  " 2. Mc2?+\u2212 (2. d4 d5) 2... Mc7 3. Md3")
    # Into the side line's side line, and on through it.
    page.find("#tree .variation .variation .move").click()
    page.wait.until(lambda d: page.text("#tree .move.current") == "d4??" and page.ply() == 3)
    page.find("body").send_keys(Keys.ARROW_RIGHT)
    page.wait.until(lambda d: page.text("#tree .move.current") == "d5" and page.ply() == 4)
    assert page.piece_on("d5") == "bp" and page.piece_on("e6") == "bp" and page.piece_on("c7") == "bp"
    page.find("#analysis-copy-fen").click()
    page.wait.until(lambda d: page.find("#analysis-copied").get_attribute("value") == page.fen())
    page.find("#analysis-copy-pgn").click()
    page.wait.until(lambda d: page.find("#analysis-copied").get_attribute("data-copied") == "PGN")
    copied = chess.pgn.read_game(io.StringIO(str(page.find("#analysis-copied").get_attribute("value"))))
    (pasted,) = read_games(ANNOTATED_PGN, default_variant="Knightmate")
    assert copied is not None and not copied.errors and copied.headers["Variant"] == "Knightmate"
    assert tree_of(copied) == tree_of(pasted) and copied.comment == pasted.comment == "Quiet start"
    page.find("#analysis-last").click()  # the end of the line shown: the side line's
    page.wait.until(lambda d: page.text("#tree .move.current") == "d5" and page.ply() == 4)
    page.find("#tree .variation .move").click()
    page.find("#analysis-last").click()
    page.wait.until(lambda d: page.text("#tree .move.current") == "d5" and page.ply() == 4)
    page.wait.until(lambda d: page.find_all("#lines li"))
    in_view = page.read('return document.getElementById("analysis-last").getBoundingClientRect().bottom <= innerHeight')
    assert in_view  # the step buttons under the board, with the header and the bar above it
    page.screenshot(SCREENSHOTS, "analysis-annotated-1280")
    page.driver.set_window_size(390, 844)
    page.screenshot(SCREENSHOTS, "analysis-annotated-390")
    page.read('document.getElementById("tree").scrollIntoView()')
    page.screenshot(SCREENSHOTS, "analysis-annotated-390-tree")
    page.find("#close-analysis").click()
    page.board_css = "#board"


def test_a_paste_of_two_games_offers_the_choice_and_opens_the_one_chosen(puppet: Puppet) -> None:
    page = puppet.page
    second = '[White "C"]\n[Black "D"]\n[Result "1-0"]\n[Date "2026.05.01"]\n\n1. e4 e5 2. d4 1-0\n'
    paste(page, ANNOTATED_PGN + "\n" + second)
    page.wait.until(lambda d: len(page.find_all("#paste-games button")) == 2)
    assert "2 games: choose one" in page.text("#paste-message")
    assert not page.find("#analysis").is_displayed()  # never silently the first
    assert [button.text for button in page.find_all("#paste-games button")] == ["A - B, Club", "C - D, 1-0, 2026.05.01"]
    page.read('document.getElementById("paste-games").scrollIntoView()')
    page.screenshot(SCREENSHOTS, "paste-of-two-games")
    page.find('#paste-games button[data-game="2"]').click()
    page.board_css = "#analysis-board"
    page.wait.until(lambda d: page.find("#analysis").is_displayed() and page.ply() == 3)
    assert page.text("#tree") == "1. e4 e5 2. d4"
    page.find("#close-analysis").click()
    page.board_css = "#board"
    assert not page.find("#paste-games").is_displayed()


@pytest.mark.parametrize(("fen", "width", "text"), [
    ("8/8/8/4R3/3K1Qk1/8/8/8 b - - 1 1", "100%", "Checkmate: White wins"),
    ("8/8/8/4r3/3k1qK1/8/8/8 w - - 1 1", "0%", "Checkmate: Black wins"),
    ("k7/8/8/2Q5/8/8/8/K7 b - - 0 1", "50%", "Stalemate: draw"),
])
def test_the_bar_at_the_end_of_a_game_says_how_it_ended(puppet: Puppet, fen: str, width: str, text: str) -> None:
    page = puppet.page
    paste(page, fen)
    page.wait.until(lambda d: page.find("#analysis").is_displayed() and page.text("#eval-text") == text)
    assert page.read('return document.getElementById("eval-white").style.width') == width
    page.wait.until(lambda d: abs(page.read(  # drawn so, once the bar's transition has run
        'return document.getElementById("eval-white").getBoundingClientRect().width'
        ' / document.getElementById("eval").getBoundingClientRect().width * 100') - float(width.rstrip("%"))) < 0.5)
    page.screenshot(SCREENSHOTS, f"bar-{text.split(':')[0].lower()}-{width.rstrip('%')}")
    page.find("#close-analysis").click()


def test_the_bar_fills_for_the_side_that_mates_on_the_board(puppet: Puppet) -> None:
    page = puppet.page
    open_in_analysis(page, MATE_IN_ONE, ply=0)
    page.select("f7")
    page.click("f4")
    page.wait.until(lambda d: page.ply() == 1 and page.text("#eval-text") == "Checkmate: White wins")
    assert page.read('return document.getElementById("eval-white").style.width') == "100%"
    page.find("#close-analysis").click()
    page.board_css = "#board"


def test_the_promotion_chooser_sits_on_its_square_on_a_phone_queen_first(puppet: Puppet) -> None:
    page = puppet.page
    page.driver.set_window_size(390, 844)
    open_in_analysis(page, PROMOTION, ply=0)
    page.select("b7")
    page.click("b8")
    page.wait.until(lambda d: page.find("#analysis-promotion").is_displayed())
    choices = page.read(
        'const square = (name) => {'
        ' const b = document.querySelector("#analysis-board cg-board").getBoundingClientRect();'
        ' const f = "abcdefgh".indexOf(name[0]), r = 8 - Number(name[1]);'
        ' return [b.left + f * b.width / 8, b.top + r * b.height / 8, b.width / 8]; };'
        ' return [...document.querySelectorAll("#analysis-promotion button")].map(button => {'
        ' const r = button.getBoundingClientRect(), l = button.querySelector(".label");'
        ' const t = l.getBoundingClientRect();'
        ' return {type: button.dataset.promotion, square: square("b8"),'
        ' x: r.left + r.width / 2, y: r.top + r.height / 2,'
        ' labelInside: [[t.left, t.top], [t.right, t.top], [t.left, t.bottom], [t.right, t.bottom]].every(([x, y]) =>'
        ' Math.hypot(x - r.left - r.width / 2, y - r.top - r.height / 2) <= r.width / 2 + 0.5)}; })')
    assert [choice["type"] for choice in choices] == ["q", "r", "b", "m"]
    left, top, size = choices[0]["square"]
    assert left <= choices[0]["x"] <= left + size and top <= choices[0]["y"] <= top + size  # the queen on b8
    assert all(choice["labelInside"] for choice in choices), choices  # each name's corners inside its circle
    steps = [choice["y"] - choices[0]["y"] for choice in choices]
    assert steps == pytest.approx([size * i for i in range(4)], abs=1.5)  # down the b file, a square each
    page.screenshot(SCREENSHOTS, "promotion-390")
    page.click("g3")  # beside the circles: the move is taken back
    page.wait.until(lambda d: not page.find("#analysis-promotion").is_displayed() and page.piece_on("b7") == "wp")
    page.select("b7")
    page.click("b8")
    page.wait.until(lambda d: page.find("#analysis-promotion").is_displayed())
    page.find('#analysis-promotion button[data-promotion="q"]').click()
    page.wait.until(lambda d: page.ply() == 1 and page.text("#tree .move.current") == "b8=Q+")
    page.find("#close-analysis").click()
    page.board_css = "#board"


def test_a_move_played_from_the_middle_of_a_line_makes_a_side_line(puppet: Puppet) -> None:
    page = puppet.page
    open_in_analysis(page, ANALYSIS_PGN, ply=5)
    page.find_all("#tree .move")[1].click()  # 1... c6
    page.wait.until(lambda d: page.ply() == 2)
    page.select("d2")
    page.click("d4")
    page.wait.until(lambda d: page.ply() == 3 and page.text("#tree .move.current") == "d4")
    assert page.text("#tree") == "1. c3 c6 2. Mc2 (2. d4) 2... Mc7 3. Md3"  # nothing cut off
    page.find("#close-analysis").click()
    page.board_css = "#board"


def test_the_move_list_follows_the_move_shown_and_leaves_the_page_where_it_is(puppet: Puppet) -> None:
    page = puppet.page
    page.driver.set_window_size(390, 844)
    moves = " ".join(f"{n + 1}. {white[2:]} {black[2:]}" for n, (white, black)
                     in enumerate(zip(PAWN_MARCH, PAWN_MARCH_BLACK, strict=True)))
    open_in_analysis(page, moves + " *", ply=32)
    page.read("window.scrollTo(0, 0)")
    page.find("#analysis-first").click()
    page.wait.until(lambda d: page.ply() == 0)
    page.find("#analysis-forward").click()
    page.wait.until(lambda d: page.ply() == 1)
    page.find("#analysis-last").click()
    page.wait.until(lambda d: page.ply() == 32)
    in_list, scrolled = page.read(
        'const list = document.getElementById("tree").getBoundingClientRect();'
        ' const c = document.querySelector("#tree .current").getBoundingClientRect();'
        ' return [c.top >= list.top - 1 && c.bottom <= list.bottom + 1, window.scrollY]')
    assert in_list and scrolled == 0
    page.find("#close-analysis").click()
    page.board_css = "#board"


def test_no_view_is_wider_than_a_phone(puppet: Puppet) -> None:
    """Each view of the page at 390 and 360 px, and at 1280: the lobby, a game, its review and
    lesson, and the analysis board with a pasted annotated game and its PGN copied. The game's move
    is clicked at 1280 px from the g file: the board's drag ghost, hidden after it, kept its place
    of that size and stuck out of a phone's width (the review's sideways scroll bar, before)."""
    page = puppet.page
    page.driver.set_window_size(1280, 900)
    page.fits_the_window("the lobby")
    game_id = puppet.start_game(color="white", preset="5+3", fen=QUEEN_FOR_THE_TAKING)
    page.wait_your_move()
    page.move_by_clicks("g2", "g3")  # the blunder: Rxh5 took the queen
    page.fits_the_window("a game in progress")
    queen_escapes_and_white_resigns(puppet, game_id)
    page.find("#review").click()
    wait_reviewed(page)
    page.fits_the_window("the review with its graph")
    page.find("#learn-start").click()
    page.wait.until(lambda d: "Find a better move" in page.text("#learn-text"))
    page.fits_the_window("learning from one's mistakes")
    page.find("#learn-stop").click()
    paste(page, ANNOTATED_PGN)
    page.wait.until(lambda d: page.find("#analysis").is_displayed() and page.find_all("#lines li"))
    page.find("#analysis-copy-pgn").click()
    page.wait.until(lambda d: page.find("#analysis-copied").is_displayed())
    page.fits_the_window("the analysis board with a pasted annotated game and its PGN")
    page.find("#close-analysis").click()
    page.driver.set_window_size(360, 780)  # the games list, where the game's line wraps
    result = page.find(f'#games button[data-game="{game_id}"] span')
    assert result.text == "0-1 resign" and page.read("return arguments[0].getClientRects().length", result) == 1
    page.driver.set_window_size(1280, 900)
