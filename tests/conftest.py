"""Shared pytest setup: the markers that sort the tests by what they cost, ``--runslow``, and the fixtures
of the bot against the sandbox.

Run the tests (from the repository's root, in the environment ``pip install -e '.[test]'`` made):

- ``python -m pytest -m "not e2e and not browser and not long"``: the fast loop, every layer's unit
  tests (no whole bot, no browser, no long engine work), to run after each change: about 40 s of
  CPU, under two minutes on a busy two-core machine.
- ``python -m pytest``: everything CI runs, the whole bot's games and Chromium included.
- ``python -m pytest --runslow``: that and the opt-in ``slow`` checks too.
- ``python -m pytest tests/<layer>``: one layer's tests; the folders mirror ``variant/`` and ``bot/``
  (``tests/e2e`` holds the whole bot, ``tests/bench`` the tools, ``tests/helpers`` no tests).

The markers (registered in pyproject.toml):

- ``e2e``: the whole bot playing against the sandbox, on a thread or as a ``knightmate-bot run``
  process: every test in ``tests/e2e`` (set here, by folder) and such a game elsewhere (set on it).
- ``browser``: drives the page in Chromium (skipped without one, unless KNIGHTMATE_REQUIRE_BROWSER=1).
- ``long``: tens of seconds or more of engine work that CI runs every time (thousands of positions
  against Fairy-Stockfish, self-play between levels); CI's pure-Python build leaves it out.
- ``slow``: longer still; skipped unless ``--runslow``, so CI leaves it out too.

A fixture that differs by module says so with a marker, read where the fixture is defined:
``sandbox(**options)`` (the Sandbox options of the sandbox, lichess and pychess fixtures),
``searcher(workers=n)``, ``engine(command, **settings)`` (tests/thinking).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from bench.page import browser_page
from bot.sandbox import Sandbox
from bot.sandbox.imitations import IMITATIONS
from bot.thinking.search_pool import SearchPool
from tests.helpers.bot_harness import make_sandbox
from tests.helpers.markers import marked_options

TESTS = Path(__file__).parent
#: Folders whose every test carries a marker, by what the folder holds.
FOLDER_MARKERS = {"e2e": "e2e"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for folder, marker in FOLDER_MARKERS.items():
            if item.path.is_relative_to(TESTS / folder):
                item.add_marker(marker)
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


# -- the bot against the sandbox (tests.helpers.bot_harness) -------------------------------------


@pytest.fixture(params=sorted(IMITATIONS))
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """The sandbox of :func:`~tests.helpers.bot_harness.make_sandbox` in each dialect, with the options of
    the test's ``sandbox`` marker."""
    with make_sandbox(request.param, **marked_options(request, "sandbox")) as server:
        yield server


@pytest.fixture
def lichess(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """The same sandbox in the Lichess dialect only."""
    with make_sandbox("lichess", **marked_options(request, "sandbox")) as server:
        yield server


@pytest.fixture
def pychess(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """The same sandbox in the pychess dialect only."""
    with make_sandbox("pychess", **marked_options(request, "sandbox")) as server:
        yield server


@pytest.fixture(scope="module")
def searcher(request: pytest.FixtureRequest) -> Iterator[SearchPool]:
    """A warmed-up search pool shared by a module's games, one worker unless the module's ``searcher``
    marker says how many."""
    workers = marked_options(request, "searcher").get("workers", 1)
    assert isinstance(workers, int), f"searcher(workers=...) takes a count, not {workers!r}"
    pool = SearchPool(workers, hash_mb=16)
    pool.warm_up()
    yield pool
    pool.close()


# -- the page in Chromium (bench.page.browser_page) ----------------------------------------------


@pytest.fixture(scope="module")
def downloads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the module's browser saves what the page downloads."""
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def driver(downloads: Path) -> Iterator[WebDriver]:
    """Headless Chromium for a module's page tests: skipped without one, failed instead where
    KNIGHTMATE_REQUIRE_BROWSER=1 (CI) says the browser tests must run."""
    problem = browser_page.missing()
    if problem is not None:
        if os.environ.get("KNIGHTMATE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"the browser tests must run here: {problem}")
        pytest.skip(f"no browser for the page tests: {problem}")
    with browser_page.chromium(downloads) as chrome:
        yield chrome
