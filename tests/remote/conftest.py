"""Fixtures of the server layer's tests: the scripted HTTP server the client talks to."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.fake_server import FakeServer, serving


@pytest.fixture
def server() -> Iterator[FakeServer]:
    """A scripted server on 127.0.0.1 with no routes yet, shut down after the test."""
    with serving() as fake:
        yield fake
