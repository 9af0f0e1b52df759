"""The bot's Prometheus metrics: declared once here, counted where things happen, served on 127.0.0.1.

Every layer of the run path records into these module-level metrics (as Prometheus clients keep
them); :func:`serve` publishes them in Prometheus's text format when ``bot.metrics_port`` is set,
on 127.0.0.1 only, with the process collector's memory, file descriptors and CPU beside them.

Why ``prometheus_client`` rather than the text format by hand: it is small, pure Python with no
dependencies of its own, the library Python services export with, and thread-safe; writing the
format would mean writing its escaping, its histogram buckets and its locking again, and the tests
read ``/metrics`` with its own parser.

Names follow Prometheus's conventions: the ``knightmate_bot_`` prefix, base units (seconds, while
the program counts milliseconds: the conversion happens here), ``_total`` on counters (the
library adds it). Labels take a handful of values each, never a player's name or a game's id,
whose number would grow without bound. This module imports nothing of the bot's.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, start_http_server

#: The only address :func:`serve` binds: the metrics say whom the bot plays and how it fares.
METRICS_HOST = "127.0.0.1"

GAMES_ACTIVE = Gauge("knightmate_bot_games_active", "Games the bot is playing now.")
GAMES_STARTED = Counter("knightmate_bot_games_started", "Games the bot began to play (resumed ones included).")
GAMES_FINISHED = Counter("knightmate_bot_games_finished", "Games over, by the bot's result.", ["result"])
CHALLENGES = Counter("knightmate_bot_challenges", "Challenges answered, by decision and decline reason "
                     "(reason is none for an accepted one).", ["decision", "reason"])
MOVES_POSTED = Counter("knightmate_bot_moves_posted", "Moves the server took from the bot.")
THINK_SECONDS = Histogram("knightmate_bot_think_seconds", "The engine's time on each of the bot's searched moves.",
                          buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80))
MOVE_LATENCY_SECONDS = Histogram("knightmate_bot_move_latency_seconds",
                                 "From a move's post until the game stream showed it.",
                                 buckets=(0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10))
STREAM_RECONNECTS = Counter("knightmate_bot_stream_reconnects", "Streams reopened after a drop, a silence or an "
                            "error, by stream (event or game).", ["stream"])
ERRORS = Counter("knightmate_bot_errors", "Failures, by kind: http_429, http_4xx, http_5xx, network, "
                 "malformed_line, engine, storage, bug.", ["kind"])
ENGINE_RESTARTS = Counter("knightmate_bot_engine_restarts", "Engine processes (search workers or an external "
                          "engine) started again after they died or hung.")


def game_result(result: str, bot_is_white: bool | None) -> str:
    """The label of a finished game's result from the bot's side: win, draw, loss or unknown (``*``)."""
    if result == "1/2-1/2":
        return "draw"
    if result not in ("1-0", "0-1") or bot_is_white is None:
        return "unknown"
    return "win" if (result == "1-0") == bot_is_white else "loss"


def http_error_kind(status: int | None) -> str:
    """The ``kind`` label of a failed request: by its HTTP status, or ``network`` without one."""
    if status is None:
        return "network"
    if status == 429:
        return "http_429"
    return "http_5xx" if status >= 500 else "http_4xx"


class MetricsServer:
    """The ``/metrics`` endpoint on 127.0.0.1:*port* (0: any free port, see :attr:`port`), on a
    thread of its own until :meth:`close`."""

    def __init__(self, port: int) -> None:
        self._server, self._thread = start_http_server(port, addr=METRICS_HOST)
        self.port: int = self._server.server_port

    @property
    def url(self) -> str:
        return f"http://{METRICS_HOST}:{self.port}/metrics"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


def counts_by_label(counter: Counter) -> dict[str, int]:
    """A counter with one label, as ``{label value: count}`` (for the status page, which shows the
    same numbers as ``/metrics`` rather than counting them twice)."""
    return {value: int(sample.value) for metric in counter.collect() for sample in metric.samples
            if sample.name.endswith("_total") for value in sample.labels.values()}
