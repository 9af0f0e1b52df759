"""Headless Chromium for ``knightmate-bot play``'s page, and the page driven as a person drives it
(clicks and drags on its squares): for its browser tests and for bench/page/web_latency.py.

Debian's ``chromium`` and ``chromium-driver``: the flags below keep it from reaching for the
network (which this closed machine would make it wait on), each driver gets a fresh profile, and
downloads go to a folder the caller names. Where they are missing, :func:`missing` says so: the
tests skip with that reason unless ``KNIGHTMATE_REQUIRE_BROWSER=1`` (``.ci/run`` sets it) makes
them fail instead.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from bot.cli.local_page import play

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1200,900")
#: Two phones and a laptop, the sizes a view of the page must fit (the last the one it is left at).
WINDOW_SIZES = ((390, 844), (360, 780), (1280, 900))
#: Seconds any wait on the page may take before the test fails.
WAIT_S = 20.0


def missing() -> str | None:
    """Why the browser cannot run here, or None."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.exists():
            return f"{path} not found (apt-get install {package})"
    return None


@contextlib.contextmanager
def chromium(downloads: Path) -> Iterator[WebDriver]:
    with tempfile.TemporaryDirectory(prefix="knightmate-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                                  "download.prompt_for_download": False})
        driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
        try:
            driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow",
                                                                    "downloadPath": str(downloads)})
            yield driver
        finally:
            driver.quit()


#: The bot's config for a measured page: one quick engine, no pondering (it would take the core the
#: browser needs), the games' PGNs in a directory of the run's own.
PLAY_CONFIG = """\
engine:
  max_move_time_ms: {move_time_ms}
  move_overhead_ms: {move_overhead_ms}
  ponder: false
  workers: 1
game:
  pgn_dir: {pgn_dir}
bot:
  log_level: WARNING
"""


def write_play_config(directory: Path, *, move_time_ms: int, move_overhead_ms: int) -> Path:
    """``config.yml`` in *directory* for :func:`play_server`, the PGNs under ``directory/games``."""
    config = directory / "config.yml"
    config.write_text(PLAY_CONFIG.format(move_time_ms=move_time_ms, move_overhead_ms=move_overhead_ms,
                                         pgn_dir=directory / "games"), encoding="utf-8")
    return config


@contextlib.contextmanager
def play_server(config: Path, dialect: str = "lichess") -> Iterator[str]:
    """``knightmate-bot play`` on a free port, in this process; yields the page's URL with its key."""
    stop = threading.Event()
    ready = threading.Event()
    urls: list[str] = []
    errors: list[BaseException] = []

    def main() -> None:
        try:
            play(config_path=str(config), dialect=dialect, host="127.0.0.1", port=0, open_browser=False,
                 out=open(os.devnull, "w"), stop=stop, ready=ready, page_url=urls)
        except BaseException as error:
            errors.append(error)
            ready.set()

    thread = threading.Thread(target=main, name="play")
    thread.start()
    try:
        if not ready.wait(90) or errors:
            raise RuntimeError(f"knightmate-bot play did not start: {errors}")
        yield urls[0]
    finally:
        stop.set()
        thread.join(30)


class Page:
    """The page in one browser tab, driven as a person would."""

    def __init__(self, driver: WebDriver) -> None:
        self.driver = driver
        #: The board driven: the game's, or ``#analysis-board``.
        self.board_css = "#board"
        # The board is drawn anew on every update: an element read a moment ago may be gone.
        self.wait = WebDriverWait(driver, WAIT_S, ignored_exceptions=(StaleElementReferenceException,))

    def open(self, url: str) -> None:
        self.driver.get(url)
        self.wait.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))

    def find(self, css: str) -> WebElement:
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css: str) -> list[WebElement]:
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css: str) -> str:
        return str(self.find(css).text)

    def challenge(self, *, color: str = "white", preset: str = "3+2", fen: str = "", level: str = "") -> None:
        """Fills in the challenge form and sends it: against the bot, or the computer at *level*."""
        self.find(f'input[name="opponent"][value="{"computer" if level else "bot"}"]').click()
        if level:
            self.find(f'#levels button[data-level="{level}"]').click()
        self.find(f'input[name="color"][value="{color}"]').click()
        self.find(f'#presets button[data-preset="{preset}"]').click()
        field = self.find("#fen")
        field.clear()
        if fen:
            field.send_keys(fen)
        self.find("#challenge").click()

    def start_game(self, **challenge: str) -> str:
        """Challenges the bot and waits for the board of the new game; its id."""
        old = self.game_id()
        self.challenge(**challenge)
        self.wait.until(lambda d: self.game_id() not in (None, old) and self.ply() is not None)
        game_id = self.game_id()
        assert game_id is not None
        return game_id

    def game_id(self) -> str | None:
        fragment = str(self.driver.execute_script("return location.hash"))
        return fragment.removeprefix("#game/") if fragment.startswith("#game/") else None

    def ply(self) -> int | None:
        value = self.find(self.board_css).get_attribute("data-ply")
        return int(value) if value else None

    def fen(self) -> str:
        return str(self.find(self.board_css).get_attribute("data-fen"))

    def read(self, script: str, *args: Any) -> Any:
        """What *script* returns (given *args* as ``arguments``), read in one go (the page cannot
        redraw halfway through)."""
        return self.driver.execute_script(script, *args)

    def sans(self) -> list[str]:
        return list(self.read('return [...document.querySelectorAll("#moves .ply[data-ply]")].map(c => c.textContent)'))

    def clocks_ms(self) -> dict[str, int]:
        """The clocks as the page shows them now, by where they are ("top", "bottom")."""
        return {side: int(self.read(f'return document.querySelector("#{side}-player .clock").dataset.ms'))
                for side in ("top", "bottom")}

    def board(self) -> WebElement:
        """chessgroundx's board element, on which clicks and drags land, scrolled wholly into view
        (Selenium's offsets count from the centre of an element's visible part)."""
        board = self.find(f"{self.board_css} cg-board")
        self.driver.execute_script('arguments[0].scrollIntoView({block: "nearest"})', board)
        return board

    def offset(self, name: str) -> tuple[int, int]:
        """Where square *name*'s centre is, from the board's centre, in CSS pixels as the board is turned."""
        rect, black = self.read('const b = document.querySelector(arguments[0] + " cg-board").getBoundingClientRect();'
                                ' return [[b.width, b.height],'
                                ' document.querySelector(arguments[0]).classList.contains("orientation-black")]',
                                self.board_css)
        file, rank = "abcdefgh".index(name[0]), int(name[1]) - 1
        column, row = (7 - file, rank) if black else (file, 7 - rank)
        width, height = rect
        return round((column + 0.5) * width / 8 - width / 2), round((row + 0.5) * height / 8 - height / 2)

    def piece_on(self, name: str) -> str | None:
        """The piece shown on *name* (``wp``, ``bk``...), not counting one being dragged or fading out."""
        piece = self.read(
            'const p = [...document.querySelectorAll(arguments[1] + " cg-board piece")]'
            '.find(p => p.cgKey === arguments[0]'
            ' && !["ghost", "fading", "dragging"].some(c => p.classList.contains(c)));'
            ' return p ? (p.classList.contains("white") ? "w" : "b") + p.className.match(/\\b(\\w)-piece/)[1] : null;',
            name, self.board_css)
        return str(piece) if piece else None

    def pieces_of(self, color: str) -> list[str]:
        """The squares of *color*'s pieces as shown."""
        return list(self.read('return [...document.querySelectorAll(arguments[1] + " cg-board piece." + arguments[0])]'
                              '.filter(p => !p.classList.contains("ghost") && !p.classList.contains("fading"))'
                              '.map(p => p.cgKey)', color, self.board_css))

    def marked(self, kind: str) -> set[str]:
        """The squares the board marks as *kind* (``move-dest``, ``selected``, ``check``, ``last-move``,
        ``current-premove``)."""
        return set(self.read('return [...document.querySelectorAll(arguments[1] + " cg-board square." + arguments[0])]'
                             '.map(s => s.cgKey)', kind, self.board_css))

    def selected(self) -> str | None:
        """The square the board holds selected, read from its state: a click sets it at once, while
        the marks on the squares (``marked``) are drawn a frame later."""
        square = self.read('return document.querySelector(arguments[0]).kmBoard.state.selectable.selected',
                           self.board_css)
        return str(square) if square else None

    def targets(self) -> set[str]:
        return self.marked("move-dest")

    def click(self, square: str) -> None:
        x, y = self.offset(square)
        ActionChains(self.driver).move_to_element_with_offset(self.board(), x, y).click().perform()

    def select(self, square: str) -> None:
        """Clicks the piece on *square* and waits until the board has drawn it selected: the board
        draws a selection and its targets together, a frame after the click, so ``targets`` read
        before that may still be another piece's."""
        self.click(square)
        self.wait.until(lambda d: self.marked("selected") == {square})

    def move_by_clicks(self, origin: str, target: str) -> None:
        plies = len(self.sans())
        self.click(origin)
        self.wait.until(lambda d: target in self.targets())
        self.click(target)
        self.wait_plies(plies + 1)

    def drag(self, origin: str, target: str) -> None:
        board = self.board()
        (x1, y1), (x2, y2) = self.offset(origin), self.offset(target)
        ActionChains(self.driver).move_to_element_with_offset(board, x1, y1).click_and_hold() \
            .move_to_element_with_offset(board, (x1 + x2) // 2, (y1 + y2) // 2) \
            .move_to_element_with_offset(board, x2, y2).release().perform()

    def wait_plies(self, plies: int) -> None:
        """Until the move list has *plies* moves, confirmed by the server."""
        self.wait.until(lambda d: len(self.sans()) >= plies and self.ply() == len(self.sans()))

    def wait_your_move(self) -> None:
        self.wait.until(lambda d: self.text("#status") == "Your move")

    def wait_over(self) -> str:
        self.wait.until(lambda d: self.find("#status").get_attribute("data-result") is not None)
        return self.text("#status")

    def fits_the_window(self, view: str, sizes: tuple[tuple[int, int], ...] = WINDOW_SIZES) -> None:
        """Fails unless *view*, the page as it is, is no wider than the window at each of *sizes*:
        a page wider than a phone scrolls sideways under the thumb. It waits for the page to settle
        at each size (the board redraws itself a frame after a resize); what still sticks out is
        named in the failure."""
        for width, height in sizes:
            self.driver.set_window_size(width, height)
            try:
                self.wait.until(lambda d: not self.sticking_out())
            except TimeoutException:
                raise AssertionError(f"{view} at {width} px: wider than the window: {self.sticking_out()}") from None

    def sticking_out(self) -> list[str]:
        """The elements past the window's right or left edge while the page is wider than the
        window (nothing when it is not, so a clipped element does not count), as ``tag#id.class``."""
        return list(self.read(
            'const width = document.documentElement.clientWidth;'
            ' if (document.documentElement.scrollWidth <= width) return [];'
            ' return [...document.body.querySelectorAll("*")].filter(e => {'
            ' const r = e.getBoundingClientRect(); return r.width > 0 && (r.right > width + 0.5 || r.left < -0.5); })'
            '.map(e => `${e.tagName.toLowerCase()}#${e.id}.${e.getAttribute("class") || ""}'
            ' ${e.getAttribute("style") || ""}`.trim()).slice(-8);'))

    def screenshot(self, folder: Path, name: str) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path


@contextlib.contextmanager
def page_of_play(*, move_time_ms: int, move_overhead_ms: int,
                 window_size: tuple[int, int] | None = None) -> Iterator[Page]:
    """``knightmate-bot play`` with the bot of :data:`PLAY_CONFIG`, and its page open in headless
    Chromium (at *window_size*, if given, before it loads): what the page tools play on. A
    temporary folder holds the config, the games and the downloads, and goes with them."""
    with tempfile.TemporaryDirectory(prefix="knightmate-page-") as temporary:
        directory = Path(temporary)
        config = write_play_config(directory, move_time_ms=move_time_ms, move_overhead_ms=move_overhead_ms)
        with play_server(config) as url, chromium(directory / "downloads") as driver:
            if window_size is not None:
                driver.set_window_size(*window_size)
            page = Page(driver)
            page.open(url)
            yield page
