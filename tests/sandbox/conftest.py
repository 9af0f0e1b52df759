"""Fixtures of the sandbox's own tests: the server under test, and a scripted client of its bot account.

The server has one bot account, MyBot (token ``tok-bot``), and randy, who moves at random. It runs
in each dialect unless the module's ``dialect`` fixture names one, with the Sandbox options of the
module's ``sandbox`` marker (its keep-alive interval, its seed).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.sandbox import Sandbox
from bot.sandbox.imitations import IMITATIONS
from tests.helpers.markers import marked_options
from tests.helpers.sandbox_harness import ScriptedClient


@pytest.fixture(params=sorted(IMITATIONS))
def dialect(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def sandbox(dialect: str, request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    with Sandbox(dialect, **marked_options(request, "sandbox")) as server:  # type: ignore[arg-type]
        server.add_account("MyBot", token="tok-bot")
        server.add_opponent("randy", strategy="random")
        yield server


@pytest.fixture
def client(sandbox: Sandbox) -> ScriptedClient:
    """MyBot's client, which sends pychess's capabilities header where the server is pychess."""
    return ScriptedClient(sandbox.url, "tok-bot", pychess=sandbox.dialect.name == "pychess")
