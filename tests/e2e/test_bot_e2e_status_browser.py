"""The live status page in headless Chromium, as an operator opens it: the real bot (started as
``run`` starts it, with ``bot.status_port``) plays an opponent that takes its time against the
sandbox; the page shows the game in progress on a board with the bot's evaluation, then, once the
opponent resigns, the finished result with its PGN link. Screenshots go to ``tests/screenshots``
(git-ignored)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from bench.page.browser_page import WAIT_S, Page
from bot.sandbox import Sandbox
from tests.helpers.bot_harness import decline_reason, make_sandbox, play
from tests.helpers.status_bot import running_status_bot

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"
KEY = "the-status-key"
#: A searched evaluation as the page writes it: a score in pawns or a mate, at a depth.
SEARCHED = re.compile(r"^(?:[+-]\d+\.\d\d|#-?\d+) at depth \d+: \S")


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    # The opponent waits before each move: the game lasts long enough to be watched.
    server = make_sandbox("pychess", opponent_delay_s=0.4)
    yield server
    server.stop()


def test_the_page_shows_a_game_in_progress_with_its_evaluation_then_its_result(
        driver: WebDriver, sandbox: Sandbox, tmp_path: Path) -> None:
    with running_status_bot(sandbox, tmp_path, KEY) as (_, url):
        page = Page(driver)
        page.open(f"{url}/?key={KEY}")
        assert decline_reason(sandbox, "human", variant="chess") == "variant"
        game_id = play(sandbox, "randy")
        card = f'article.game[data-game="{game_id}"]'

        def evaluation_shown(_: WebDriver) -> bool:
            cards = page.find_all(f"{card} .eval")
            return bool(cards) and SEARCHED.match(cards[0].text) is not None

        WebDriverWait(driver, WAIT_S).until(evaluation_shown)
        assert len(page.find_all(f"{card} cg-board piece")) >= 20       # the board drawn from the FEN
        assert re.search(r"\d+:\d\d", page.text(f"{card} .top .clock"))
        assert page.text(f"{card} .times").startswith("time per move")
        assert "declined: variant" in [cell.text for cell in page.find_all("#challenges td.declined")]
        SCREENSHOTS.mkdir(exist_ok=True)
        driver.save_screenshot(str(SCREENSHOTS / "status-in-progress.png"))

        sandbox.resign(game_id, "randy")
        row = f'#finished tr[data-game="{game_id}"]'
        WebDriverWait(driver, WAIT_S).until(lambda _: bool(page.find_all(row)) and not page.find_all(card))
        cells = [cell.text for cell in page.find_all(f"{row} td")]
        white, black, result = cells[2], cells[3], cells[4]
        assert "randy" in white + black
        assert result == ("0-1" if "randy" in white else "1-0")      # the opponent resigned
        links = page.find_all(f"{row} a")
        assert links[-1].text == "PGN" and links[-1].get_attribute("href").endswith(f"/api/games/{game_id}/pgn")
        assert page.find("#problem").get_attribute("hidden") is not None
        driver.save_screenshot(str(SCREENSHOTS / "status-finished.png"))
