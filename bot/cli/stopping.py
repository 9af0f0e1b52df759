"""How the long-running commands (``run``, ``play``, ``sandbox``) are stopped: by signals that set an event.

A handler does nothing but set a :class:`threading.Event`; whoever waits on it shuts down in order
(games saved, sockets closed, worker processes ended), so a signal never interrupts that work halfway.
"""

from __future__ import annotations

import signal
import threading

#: What stops a command: Ctrl-C and ``kill`` (as ``docker stop`` sends it).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def event_on_signals(signal_numbers: tuple[signal.Signals, ...] = STOP_SIGNALS) -> threading.Event:
    """An event that any of *signal_numbers* sets. Call it on the main thread (Python's rule for handlers)."""
    event = threading.Event()
    for signal_number in signal_numbers:
        signal.signal(signal_number, lambda number, frame: event.set())
    return event
