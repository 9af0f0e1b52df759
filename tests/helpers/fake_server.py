"""A tiny scripted HTTP server on 127.0.0.1 for the client's tests: each test routes a path to a function
that answers it, and reads back every request the client made. Never a real server: it answers only what
the test scripted and 404 to the rest."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from bot.config import GameSettings, Secret, ServerSettings
from bot.remote.client import Client

#: The token the scripted server's client sends; the tests check that it never shows.
TOKEN = "lip_TOPSECRET123"
#: The move post most tests script an answer to.
MOVE = "/api/bot/game/g1/move/e2e4"

Route = Callable[["Handler"], None]


class Handler(BaseHTTPRequestHandler):
    """Answers each request with the route the test put on its server for that method and path."""

    protocol_version = "HTTP/1.1"
    server: FakeServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _dispatch(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.body = self.rfile.read(length) if length else b""
        path = urlsplit(self.path).path
        self.server.requests.append((self.command, self.path, dict(self.headers), self.body))
        route = self.server.routes.get((self.command, path))
        if route is None:
            self.reply(404, b"<html>not found</html>")
        else:
            route(self)

    do_GET = do_POST = _dispatch

    def reply(self, status: int, body: bytes = b'{"ok":true}', headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def write_line(self, text: str) -> None:
        data = (text + "\n").encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class FakeServer(ThreadingHTTPServer):
    """The routes a test scripted and every request the client made; *release* frees a route that waits."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.routes: dict[tuple[str, str], Route] = {}
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        self.release = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def posts(self, path: str) -> list[bytes]:
        return [body for method, full, _, body in self.requests if method == "POST" and full.startswith(path)]


@contextlib.contextmanager
def serving() -> Iterator[FakeServer]:
    fake = FakeServer()
    thread = threading.Thread(target=fake.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.release.set()
        fake.shutdown()
        fake.server_close()


def make_client(server: FakeServer, dialect: str = "lichess", **overrides: Any) -> Client:
    settings = ServerSettings(url=server.url, dialect=dialect, connect_timeout_s=2.0,
                              read_timeout_s=overrides.pop("read_timeout_s", 2.0), backoff_initial_s=0.05,
                              backoff_max_s=0.2, rate_limit_pause_s=overrides.pop("rate_limit_pause_s", 60.0))
    overrides.setdefault("give_up_after_s", GameSettings().give_up_after_s)
    return Client(settings, Secret(TOKEN), **overrides)


def answer(status: int, body: bytes = b'{"ok":true}', headers: dict[str, str] | None = None) -> Route:
    return lambda handler: handler.reply(status, body, headers)


def sequence(*routes: Route) -> Route:
    """Answers the n-th request with the n-th route, then repeats the last one."""
    remaining = list(routes)

    def route(handler: Handler) -> None:
        (remaining.pop(0) if len(remaining) > 1 else remaining[0])(handler)
    return route
