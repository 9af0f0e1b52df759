"""What the bot's own small web servers share: a closing threading server, JSON answers, the Host
check and the session key. Neutral ground: ``play``'s page (:mod:`bot.web`), the sandbox
(:mod:`bot.sandbox`) and the run path's status page (:mod:`bot.console`) all import it, and it imports
nothing of the bot but :mod:`bot.loopback` (the import-linter contract ``httpd-neutral``).

The session: a browser that opens ``/?key=KEY`` gets the key as an HttpOnly, SameSite=Strict cookie
named after the port (cookies ignore ports, and two pages on two ports of one host must not take
each other's session) and a redirect to ``/``, so the key leaves the address bar. A request whose
``Host`` is not the address served is refused (DNS rebinding): for a specific address, that
address or ``localhost`` with the port served; for a wildcard address, any literal IP address or
``localhost`` on any port (a container's port may be published as another), never a DNS name.
This module speaks HTTP only, and never logs a key, a cookie or a body.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import socket
import sys
import threading
import time
import urllib.parse
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bot.loopback import is_loopback

logger = logging.getLogger(__name__)

#: The session cookie's name, before the port.
COOKIE_PREFIX = "knightmate_session_"
#: Headers every page of ours carries: no framing, no sniffing, no referrer, scripts from itself only.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
#: The content type of each kind of static file our pages are made of.
STATIC_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
                ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml", ".wav": "audio/wav",
                ".txt": "text/plain; charset=utf-8"}
#: The largest request body read; a longer one is refused with a 400.
MAX_BODY_BYTES = 64 * 1024


class ClosingServer(ThreadingHTTPServer):
    """A threading HTTP server that can close every connection at once, so that stop() never waits
    on a client's idle keep-alive connection."""

    daemon_threads = False
    block_on_close = True
    #: Room for a burst of connections (many bots or games connecting at once).
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, handler)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        # Small writes (headers, then a body or a line) must not wait for delayed ACKs.
        request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._connections_lock:
            self._connections.add(request)
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._connections_lock:
                self._connections.discard(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-request (a bot killed, a browser tab closed) is no fault of
        the server's: one line at debug level, not a traceback on stderr."""
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError):
            logger.debug("client %s went away mid-request: %s", client_address[0], error)
            return
        super().handle_error(request, client_address)

    def close_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Session:
    """The one key that opens a page served on *port*, and the cookie that carries it."""

    def __init__(self, key: str, port: int) -> None:
        self.key = key
        self.cookie = f"{COOKIE_PREFIX}{port}"

    def matches(self, given: str) -> bool:
        return hmac.compare_digest(given.encode(), self.key.encode())

    def set_cookie(self) -> str:
        """The ``Set-Cookie`` value that opens the session."""
        return f"{self.cookie}={self.key}; HttpOnly; SameSite=Strict; Path=/"

    def holds(self, cookie_header: str | None) -> bool:
        """Whether a request's ``Cookie`` header carries this session."""
        cookies: SimpleCookie = SimpleCookie()
        try:
            cookies.load(cookie_header or "")
        except Exception:  # http.cookies raises its own CookieError for a malformed header
            return False
        morsel = cookies.get(self.cookie)
        return morsel is not None and self.matches(morsel.value)


def host_allowed(header: str | None, bound: str, port: int) -> bool:
    """Whether a request's ``Host`` names the address *bound*:*port* (see the module docstring)."""
    if not header:
        return False
    split = urllib.parse.urlsplit(f"//{header}")
    try:
        hostname, asked_port = split.hostname, split.port
    except ValueError:
        return False
    if hostname is None:
        return False
    if is_wildcard(bound):
        # Any of the machine's addresses, and any port: a container's page is published on another.
        return hostname == "localhost" or _is_ip_address(hostname)
    if (asked_port or 80) != port:
        return False
    if hostname == "localhost":
        return is_loopback(bound)
    return _is_ip_address(hostname) and ipaddress.ip_address(hostname) == ipaddress.ip_address(bound)


def _is_ip_address(hostname: str) -> bool:
    """Whether *hostname* is an address, not a DNS name (which is what a rebinding attack sends)."""
    try:
        ipaddress.ip_address(hostname)
    except ValueError:
        return False
    return True


def is_wildcard(host: str) -> bool:
    """Whether *host* is the address of every interface (``0.0.0.0``, ``::``)."""
    return ipaddress.ip_address(host).is_unspecified


class JsonHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 with bounded request bodies and JSON answers: what every server of ours speaks."""

    protocol_version = "HTTP/1.1"
    #: Headers every answer carries (a call's own headers win).
    answer_headers: dict[str, str] = {}
    #: When the request line arrived (``time.monotonic()``): a move is timed by this, so neither
    #: the mover's clock nor the page's latency figures leave out the server's own delays.
    received_at = 0.0

    def parse_request(self) -> bool:
        self.received_at = time.monotonic()
        return super().parse_request()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the stdlib's signature)
        logger.debug("%s " + format, self.address_string(), *args)

    def _read_body(self) -> bytes | None:
        """The request's body; None (after a 400) when its length is bad or over the limit."""
        length_text = self.headers.get("Content-Length") or "0"
        try:
            length = int(length_text)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY_BYTES:
            self.close_connection = True
            self._send_json(400, {"error": "bad Content-Length"})
            return None
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in {**self.answer_headers, **(headers or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_json(self, status: int, obj: dict[str, Any]) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def _open_session(self, session: Session, given_key: str, wrong_key: str) -> None:
        """Answers ``/?key=``: the session cookie and a redirect to ``/``, or a 403 saying *wrong_key*."""
        if not session.matches(given_key):
            self._send(403, wrong_key.encode(), "text/plain; charset=utf-8")
            return
        self._send(303, b"", "text/plain", {"Location": "/", "Set-Cookie": session.set_cookie()})
