"""The child processes of a process and waiting for processes to end, as the operating system sees
them (``/proc`` and pidfds), for the tests that an engine leaves no helper process behind."""

from __future__ import annotations

import os
import select
from pathlib import Path


def children(pid: int) -> set[int]:
    """The process ids of the children of process *pid*."""
    return {int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()}


def still_running(pids: set[int], timeout_s: float) -> set[int]:
    """Waits for each of the processes *pids* to end (up to *timeout_s* each, on a pidfd, so any
    process can be waited for, not only a child); returns those that have not."""
    running = set()
    for pid in pids:
        try:
            handle = os.pidfd_open(pid)
        except ProcessLookupError:
            continue  # ended, and reaped already
        try:
            if not select.select([handle], [], [], timeout_s)[0]:
                running.add(pid)
        finally:
            os.close(handle)
    return running
