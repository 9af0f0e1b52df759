"""How the bot's settings become its search processes: workers, and threads for each worker."""

from __future__ import annotations

import pytest

from bot.cli import wiring
from bot.config import parse_settings


@pytest.mark.parametrize(("cores", "concurrency", "workers", "threads", "expected"), [
    (8, 1, 0, 4, (1, 4)),    # one game: its worker may take the cores
    (8, 2, 0, 4, (2, 4)),
    (8, 4, 0, 4, (4, 2)),    # four games at once: two cores each
    (2, 2, 0, 2, (2, 1)),    # two games on two cores: one thread each, not four processes
    (2, 1, 3, 2, (3, 1)),    # more workers than cores: still one thread each, never none
    (4, 1, 0, 1, (1, 1)),
])
def test_workers_times_threads_stay_within_the_cores(monkeypatch: pytest.MonkeyPatch, cores: int, concurrency: int,
                                                    workers: int, threads: int, expected: tuple[int, int]) -> None:
    monkeypatch.setattr(wiring.os, "cpu_count", lambda: cores)
    settings = parse_settings({"challenge": {"concurrency": concurrency},
                               "engine": {"workers": workers, "threads": threads}})
    searching = wiring.search_workers(settings)
    assert (searching, wiring.search_threads(settings, searching)) == expected
