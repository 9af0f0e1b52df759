"""The sandbox's HTTP layer: routes, bodies, statuses and chunked streaming on a threading server.

Each request is matched to a route and a request kind, checked against injected faults, then
authenticated and handed to the :class:`~bot.sandbox.world.World` action; answers are JSON (or
HTML for injected errors, as proxies send), streams are ndjson in HTTP/1.1 chunks (:mod:`bot.sandbox.chunked`).
This module speaks HTTP only: it never decides game rules, and it never logs tokens or bodies.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import urllib.parse
from collections.abc import Callable

from bot.httpd import ClosingServer, JsonHandler
from bot.sandbox import websocket
from bot.sandbox.chunked import ChunkedLines
from bot.sandbox.faults import Faults
from bot.sandbox.hosted import Account
from bot.sandbox.imitations import JsonObject
from bot.sandbox.streams import Stream
from bot.sandbox.world import ApiError, Conflict, World

logger = logging.getLogger(__name__)

#: The raw reply pychess writes inside a 200's chunked body when it will not open a game stream.
RAW_CONFLICT = (b"HTTP/1.1 409 Conflict\r\nContent-Type: text/plain; charset=utf-8\r\n"
                b"Content-Length: 8\r\n\r\nConflict")


class Request:
    """What an action needs from a request: the account, path parameters, form and query."""

    def __init__(self, account: Account, params: dict[str, str], form: dict[str, str], json_body: bool,
                 query: dict[str, str], headers: dict[str, str], received_at: float) -> None:
        self.account = account
        self.params = params
        self.form = form
        self.json_body = json_body
        self.query = query
        self.headers = headers
        self.received_at = received_at


Action = Callable[[World, Request], "JsonObject | tuple[Stream, list[bytes]]"]


def _routes() -> list[tuple[str, re.Pattern[str], str, Action]]:
    game = r"/api/bot/game/(?P<game>[A-Za-z0-9]+)"
    challenge = r"/api/challenge/(?P<challenge>[A-Za-z0-9]+)"
    table: list[tuple[str, str, str, Action]] = [
        ("GET", r"/api/account", "account", lambda w, r: w.account_json(r.account)),
        ("POST", r"/api/bot/account/upgrade", "upgrade", lambda w, r: w.upgrade(r.account)),
        ("GET", r"/api/stream/event", "stream_event", lambda w, r: w.open_event_stream(r.account, r.headers)),
        ("GET", r"/api/bot/game/stream/(?P<game>[A-Za-z0-9]+)", "stream_game",
         lambda w, r: w.open_game_stream(r.account, r.params["game"])),
        ("POST", game + r"/move/(?P<uci>[a-z0-9]+)", "move",
         lambda w, r: w.move(r.account, r.params["game"], r.params["uci"],
                             offering_draw=r.query.get("offeringDraw") == "true", received_at=r.received_at)),
        ("POST", game + r"/chat", "chat",
         lambda w, r: w.chat(r.account, r.params["game"], r.form.get("room"), r.form.get("text"))),
        ("POST", game + r"/abort", "abort", lambda w, r: w.abort(r.account, r.params["game"])),
        ("POST", game + r"/resign", "resign", lambda w, r: w.resign(r.account, r.params["game"])),
        ("POST", game + r"/draw/(?P<answer>yes|no)", "draw",
         lambda w, r: w.draw(r.account, r.params["game"], r.params["answer"] == "yes")),
        ("POST", game + r"/takeback/(?:yes|no)", "takeback", lambda w, r: w.takeback(r.account, r.params["game"])),
        ("POST", game + r"/claim-(?P<claim>victory|draw)", "claim",
         lambda w, r: w.claim(r.account, r.params["game"], victory=r.params["claim"] == "victory")),
        ("POST", challenge + r"/accept", "accept", lambda w, r: w.accept(r.account, r.params["challenge"])),
        ("POST", challenge + r"/decline", "decline",
         lambda w, r: w.decline(r.account, r.params["challenge"], r.form.get("reason"), json_body=r.json_body)),
        ("POST", challenge + r"/cancel", "cancel", lambda w, r: w.cancel(r.account, r.params["challenge"])),
        ("POST", r"/api/challenge/(?P<user>[A-Za-z0-9_-]+)", "challenge",
         lambda w, r: w.create_challenge_json(r.account, r.params["user"], r.form)),
    ]
    return [(method, re.compile(pattern + r"/?"), kind, action) for method, pattern, kind, action in table]


ROUTES = _routes()

#: pychess's round socket, the one a spectator's browser opens (no login).
ROUND_SOCKET = re.compile(r"/wsr/(?P<game>[A-Za-z0-9]+)/?")
#: The name of pychess's session cookie, which its round socket sets for a visitor without one.
GUEST_COOKIE = "pychess-variants"


class StreamingHandler(JsonHandler):
    """:class:`~bot.httpd.JsonHandler` with ndjson streams: what both of the sandbox's servers speak."""

    def _start_ndjson(self) -> ChunkedLines:
        """Starts a streamed answer and returns its body. The connection closes after it, and a
        header says so, not only done: a client that pools connections must not send its next
        request down this one after the stream ends (it would find it closed under it)."""
        self.close_connection = True
        self.send_response(200)
        self.send_header("Connection", "close")
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in self.answer_headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()
        return ChunkedLines(self.wfile)


class SandboxServer(ClosingServer):
    """The Bot API server: its world and faults, for the handler."""

    def __init__(self, address: tuple[str, int], world: World, faults: Faults) -> None:
        self.world = world
        self.faults = faults
        super().__init__(address, SandboxHandler)


class SandboxHandler(StreamingHandler):
    server_version = "knightmate-sandbox"
    server: SandboxServer
    #: Seconds an idle keep-alive connection (or a stalled write) may last.
    timeout = 120

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's naming)
        round_socket = ROUND_SOCKET.fullmatch(urllib.parse.urlsplit(self.path).path)
        if round_socket is not None:
            self._round_socket(round_socket["game"])
        else:
            self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        url = urllib.parse.urlsplit(self.path)
        body = self._read_body()
        if body is None:
            return
        route = _route(method, url.path)
        if route is None:
            self._send(404, b"<html><body><h1>404: Not Found</h1></body></html>", "text/html")
            return
        kind, action, params = route
        if self._send_injected(kind):
            return
        world = self.server.world
        try:
            account = world.authenticate(_bearer(self.headers.get("Authorization")))
            form, json_body = _parse_body(body, self.headers.get("Content-Type", ""))
            request = Request(account, params, form, json_body,
                              dict(urllib.parse.parse_qsl(url.query)),
                              {key.lower(): value for key, value in self.headers.items()}, self.received_at)
            result = action(world, request)
        except ApiError as error:
            if error.html:
                self._send(error.status, error.message.encode(), "text/html")
            else:
                self._send_json(error.status, {"error": error.message})
            return
        except Conflict:
            self._send_raw_conflict()
            return
        if isinstance(result, tuple):
            self._stream(*result)
        else:
            self._send_json(200, result)

    def _send_injected(self, kind: str) -> bool:
        """Answers with the error status injected for this request's *kind*, if one is pending."""
        injected = self.server.faults.take_status(kind)
        if injected is None:
            return False
        headers = {"Retry-After": f"{injected.retry_after:g}"} if injected.retry_after is not None else {}
        page = f"<html><body><h1>{injected.status}</h1><p>injected by the sandbox</p></body></html>"
        self._send(injected.status, page.encode(), "text/html", headers)
        return True

    def _round_socket(self, game_id: str) -> None:
        """pychess's round socket as a spectator meets it: no login, a greeting and the ``board``
        message, then whatever the client says is read (and a close answered) until it leaves."""
        self.close_connection = True
        if self._read_body() is None or self._send_injected("round"):
            return
        messages = self.server.world.round_board(game_id)
        if messages is None:
            self._send(404, b"<html><body><h1>404: Not Found</h1></body></html>", "text/html")
            return
        key = self.headers.get("Sec-WebSocket-Key")
        if key is None or (self.headers.get("Upgrade") or "").lower() != "websocket":
            self._send_json(400, {"error": "a round socket needs a WebSocket handshake"})
            return
        self.send_response(101, "Switching Protocols")
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", websocket.accept_key(key))
        # pychess hands every visitor without a session a guest one, the bot's round socket too.
        self.send_header("Set-Cookie", f"{GUEST_COOKIE}={secrets.token_urlsafe(16)}; Path=/; HttpOnly")
        self.end_headers()
        behaviour = self.server.faults.take_round_socket()
        try:
            if behaviour == "close":
                self.wfile.write(websocket.close_frame())
                return
            if behaviour == "garbage":
                texts = [b"this is not JSON", json.dumps(dict(messages[1], status=99)).encode()]
            else:
                texts = [] if behaviour == "silent" else [json.dumps(message).encode() for message in messages]
            for text in texts:
                self.wfile.write(websocket.text_frame(text))
            self.wfile.flush()
            self._read_round_socket()
        except (OSError, EOFError, websocket.ProtocolError) as error:
            logger.debug("round socket of game %s ended: %s", game_id, error)

    def _read_round_socket(self) -> None:
        while True:
            opcode, payload = websocket.read_frame(self.rfile)
            if opcode == websocket.CLOSE:
                self.wfile.write(websocket.close_frame())
                self.wfile.flush()
                return
            if opcode == websocket.PING:
                self.wfile.write(websocket.frame(websocket.PONG, payload))
                self.wfile.flush()

    def _send_raw_conflict(self) -> None:
        self._start_ndjson()
        self.wfile.write(RAW_CONFLICT)

    def _stream(self, stream: Stream, first_lines: list[bytes]) -> None:
        try:
            stream.run(self.connection, self._start_ndjson(), first_lines)
        except OSError:
            pass  # the client left before the headers went out
        finally:
            self.server.world.unregister(stream)


def _route(method: str, path: str) -> tuple[str, Action, dict[str, str]] | None:
    """The request kind, action and path parameters of a request, or None if nothing matches."""
    for route_method, pattern, kind, action in ROUTES:
        match = pattern.fullmatch(path)
        if match and route_method == method:
            return kind, action, match.groupdict()
    return None


def _bearer(header: str | None) -> str | None:
    if header is None or not header.startswith("Bearer "):
        return None
    return header[len("Bearer "):].strip()


def _parse_body(body: bytes, content_type: str) -> tuple[dict[str, str], bool]:
    """The body's fields and whether it was JSON. Form data is what both servers read."""
    if not body:
        return {}, False
    text = body.decode("utf-8", errors="replace")
    if content_type.startswith("application/json"):
        try:
            data = json.loads(text)
        except ValueError:
            raise ApiError(400, "the body is not valid JSON") from None
        if not isinstance(data, dict):
            raise ApiError(400, "the JSON body must be an object")
        return {str(key): str(value) for key, value in data.items()}, True
    return dict(urllib.parse.parse_qsl(text, keep_blank_values=True)), False
