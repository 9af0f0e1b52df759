"""Headless Chromium for ``knightmate-bot play``'s page, and the page driven as a person drives it
(clicks and drags on its squares): for its browser tests and for bench/web_latency.py.

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
from selenium.common.exceptions import StaleElementReferenceException
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

    def challenge(self, *, color: str = "white", preset: str = "3+2", fen: str = "") -> None:
        """Fills in the challenge form and sends it."""
        self.find("#new-game").is_displayed()
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
        value = self.find("#board").get_attribute("data-ply")
        return int(value) if value else None

    def fen(self) -> str:
        return str(self.find("#board").get_attribute("data-fen"))

    def read(self, script: str) -> Any:
        """What *script* returns, read in one go (the page cannot redraw halfway through)."""
        return self.driver.execute_script(script)

    def sans(self) -> list[str]:
        return list(self.read('return [...document.querySelectorAll("#moves .ply[data-ply]")].map(c => c.textContent)'))

    def clocks_ms(self) -> dict[str, int]:
        """The clocks as the page shows them now, by where they are ("top", "bottom")."""
        return {side: int(self.read(f'return document.querySelector("#{side}-player .clock").dataset.ms'))
                for side in ("top", "bottom")}

    def square(self, name: str) -> WebElement:
        return self.find(f'#board rect.sq[data-square="{name}"]')

    def piece_on(self, name: str) -> str | None:
        piece = self.read(f'const p = document.querySelector(\'#pieces use[data-square="{name}"]\');'
                          ' return p && p.dataset.piece')
        return str(piece) if piece else None

    def targets(self) -> set[str]:
        return set(self.read('return [...document.querySelectorAll("#targets .target")].map(t => t.dataset.square)'))

    def click(self, square: str) -> None:
        self.square(square).click()

    def move_by_clicks(self, origin: str, target: str) -> None:
        plies = len(self.sans())
        self.click(origin)
        self.wait.until(lambda d: target in self.targets())
        self.click(target)
        self.wait_plies(plies + 1)

    def drag(self, origin: str, target: str) -> None:
        ActionChains(self.driver).click_and_hold(self.square(origin)).move_to_element(self.square(target)) \
            .release().perform()

    def wait_plies(self, plies: int) -> None:
        """Until the move list has *plies* moves, confirmed by the server."""
        self.wait.until(lambda d: len(self.sans()) >= plies and self.ply() == len(self.sans()))

    def wait_your_move(self) -> None:
        self.wait.until(lambda d: self.text("#status") == "Your move")

    def wait_over(self) -> str:
        self.wait.until(lambda d: self.find("#status").get_attribute("data-result") is not None)
        return self.text("#status")

    def screenshot(self, folder: Path, name: str) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path
