"""The status page's server: one static page, its script, and one JSON answer it polls.

It listens on 127.0.0.1 only. Who may read it: a browser that opened the address the bot logged,
``/?key=KEY``, which opens a session (:class:`bot.httpd.Session`); the JSON and the PGNs need that
session, and every request a ``Host`` that names the address served (:func:`bot.httpd.host_allowed`).
It only reads: no request changes anything the bot does, so there is no POST at all. What it shows
comes from the :class:`~bot.games.status.StatusRecorder` and, for the counts the metrics keep
already, from :mod:`bot.metrics`.
"""

from __future__ import annotations

import re
import threading
import urllib.parse
from importlib import resources
from importlib.resources.abc import Traversable

from bot.games.status import StatusRecorder
from bot.httpd import SECURITY_HEADERS, STATIC_TYPES, ClosingServer, JsonHandler, Session, host_allowed
from bot.metrics import ERRORS, STREAM_RECONNECTS, counts_by_label

#: The only address the page is served on: it says whom the bot plays and how.
STATUS_HOST = "127.0.0.1"

#: The page's own files (``/static/NAME``), and the board's (``/web/static/NAME``: the URL mirrors
#: the package's folders, so the script's relative import of the board resolves the same for the
#: browser and for tsc), read from ``play``'s package data, never imported.
OWN_FILE = re.compile(r"/static/(?P<name>status\.(?:html|js|css))")
BOARD_FILE = re.compile(r"/web/static/(?P<name>vendor/chessgroundx(?:-base\.css|\.js)|pieces/[bw][a-z]\.svg)")
PGN_PATH = re.compile(r"/api/games/(?P<game>[A-Za-z0-9]+)/pgn")


class StatusServer(ClosingServer):
    """The status page on 127.0.0.1:*port* (0: any free port) for whoever holds *key*, on a thread
    of its own until :meth:`close`."""

    def __init__(self, port: int, recorder: StatusRecorder, key: str) -> None:
        self.recorder = recorder
        super().__init__((STATUS_HOST, port), StatusHandler)
        self.port: int = self.server_address[1]
        self.session = Session(key, self.port)
        # A short poll: close() waits for serve_forever to notice, and the bot's stop should not.
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1}, name="status-page",
                                        daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{STATUS_HOST}:{self.port}/"

    def close(self) -> None:
        self.shutdown()
        self.close_connections()
        self.server_close()
        self._thread.join(5)


class StatusHandler(JsonHandler):
    server_version = "knightmate-status"
    server: StatusServer
    timeout = 30
    answer_headers = {**SECURITY_HEADERS, "Cache-Control": "no-store"}

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's naming)
        if not host_allowed(self.headers.get("Host"), STATUS_HOST, self.server.port):
            self._send_json(421, {"error": "This address is not the one the page is served on."})
            return
        if self._read_body() is None:
            return
        url = urllib.parse.urlsplit(self.path)
        if not url.path.startswith("/api/"):
            self._static(url)
        elif not self.server.session.holds(self.headers.get("Cookie")):
            self._send_json(401, {"error": "Open the address the bot logged at its start: it carries the key."})
        elif url.path == "/api/status":
            self._send_json(200, self._status())
        elif (match := PGN_PATH.fullmatch(url.path)) is not None:
            self._pgn(match["game"])
        else:
            self._send_json(404, {"error": "Not found"})

    def do_POST(self) -> None:  # noqa: N802
        self._send_json(405, {"error": "The status page only reads."})

    def _status(self) -> dict[str, object]:
        return dict(self.server.recorder.snapshot(), reconnects=counts_by_label(STREAM_RECONNECTS),
                    errors=counts_by_label(ERRORS))

    def _pgn(self, game_id: str) -> None:
        text = self.server.recorder.pgn(game_id)
        if text is None:
            self._send_json(404, {"error": "No PGN of that game is kept here."})
            return
        self._send(200, text.encode(), "application/x-chess-pgn; charset=utf-8",
                   {"Content-Disposition": f'attachment; filename="knightmate-{game_id}.pgn"'})

    def _static(self, url: urllib.parse.SplitResult) -> None:
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/" and "key" in query:
            self._open_session(self.server.session, query["key"],
                               "That key is not this page's: open the address the bot logged at its start.")
            return
        resource = static_file("/static/status.html" if url.path == "/" else url.path)
        if resource is None or not resource.is_file():
            self._send_json(404, {"error": "Not found"})
            return
        self._send(200, resource.read_bytes(), STATIC_TYPES[resource.name[resource.name.rfind("."):]],
                   {"Cache-Control": "no-cache"})


def static_file(path: str) -> Traversable | None:
    """The file a static *path* names, or None: the page's own, or the board's from ``bot/web/static``
    (read as data: importing :mod:`bot.web` would pull the sandbox into the run path)."""
    if (own := OWN_FILE.fullmatch(path)) is not None:
        return resources.files("bot.console").joinpath("static", own["name"])
    if (board := BOARD_FILE.fullmatch(path)) is not None:
        return resources.files("bot").joinpath("web", "static", *board["name"].split("/"))
    return None
