"""Shared pytest setup: the markers that sort the tests by what they cost, and ``--runslow``.

Run the tests:

- ``python -m pytest -m "not e2e and not browser and not slow"``: the fast loop, the unit tests of every
  layer (no whole bot, no browser, no long game), to run after each change.
- ``python -m pytest``: everything CI runs, end-to-end games and Chromium included; tests marked
  ``slow`` are skipped unless ``--runslow`` is given.
- ``python -m pytest tests/<layer>``: one layer's tests (the folders mirror ``variant/`` and ``bot/``).

The markers (registered in pyproject.toml):

- ``e2e``: the whole bot against the sandbox over HTTP, or ``knightmate-bot`` as a process; every test
  in ``tests/e2e`` (set here, by folder), and whole bot games elsewhere (set in their modules).
- ``browser``: drives the page in Chromium (skipped without one, unless KNIGHTMATE_REQUIRE_BROWSER=1).
- ``slow``: long checks (whole games between engines, deep perft, copies of the tree): in CI's run, but
  out of the fast loop; those that are opt-in as well are skipped unless ``--runslow``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

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
        folder = item.path.relative_to(TESTS).parts[0]
        if folder in FOLDER_MARKERS:
            item.add_marker(FOLDER_MARKERS[folder])
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
