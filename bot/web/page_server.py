"""The web page of ``knightmate-bot play`` and the human seat's HTTP API, on the standard library's server.

The page is static files shipped with the package (``bot/web/static``: HTML, CSS, JS, SVG; no
CDN, nothing fetched from elsewhere); everything it shows comes from the JSON of
:class:`~bot.sandbox.human.HumanSeat`, over the routes below. It listens on its own address, apart
from the Bot API (which stays on loopback with the bot's token), so that ``--host`` exposes the page
and never the bot's side.

Who may use it: a browser that opened the URL ``play`` printed, ``/?key=KEY``, which opens a
session (:class:`bot.httpd.Session`); every API request needs that session, and every POST also the
``X-Knightmate-Play`` header the page sets (another site's page cannot set it without a CORS
preflight, which is never granted). A request whose ``Host`` is not the address served is refused
(:func:`bot.httpd.host_allowed`). This module speaks HTTP only.
"""

from __future__ import annotations

import itertools
import re
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from importlib import resources

from bot.analysis import EngineCommand
from bot.httpd import SECURITY_HEADERS, STATIC_TYPES, ClosingServer, Session, host_allowed, is_wildcard
from bot.sandbox.chunked import JsonObject, relay
from bot.sandbox.handler import StreamingHandler
from bot.sandbox.human import HumanSeat
from bot.sandbox.world import ApiError
from bot.web.analysis_board import Analyser, position_json, read_paste, tree_pgn
from bot.web.game_review import Reviewer
from bot.web.puzzle_set import PuzzleFilter, PuzzleSet

#: The header every state-changing request must carry (the page sets it).
CSRF_HEADER = "X-Knightmate-Play"
#: Seconds between keep-alive newlines on a quiet stream.
KEEPALIVE_S = 5.0

#: A static file's name: in the folder itself or one of its subfolders (the vendored board, the
#: pieces, the sounds); no other path reaches the disk.
STATIC_NAME = re.compile(r"(?:(?:vendor|pieces|sounds)/)?[a-z0-9-]+\.[a-z]+")

#: Fetches the bot's own PGN file of a finished game, or None when there is none.
PgnSource = Callable[[str], "str | None"]


class PageServer(ClosingServer):
    """The page and the human seat's API, for one person holding *key*; its analysis board and
    reviews run on *engine* (the config's ``engine.command``; None: the built-in engine), its
    puzzles are *puzzles* (none: an empty set)."""

    def __init__(self, address: tuple[str, int], seat: HumanSeat, key: str, bot_pgn: PgnSource,
                 engine: EngineCommand | None = None, *, puzzles: PuzzleSet | None = None) -> None:
        self.seat = seat
        self.puzzles = puzzles if puzzles is not None else PuzzleSet()
        self.bot_pgn = bot_pgn
        self.analyser = Analyser(engine)
        self.reviewer = Reviewer(engine)
        super().__init__(address, PageHandler)
        self.port = self.server_address[1]
        self.session = Session(key, self.port)

    @property
    def url(self) -> str:
        host = str(self.server_address[0])
        if is_wildcard(host):
            host = "::1" if ":" in host else "127.0.0.1"
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.port}"

    def host_allowed(self, header: str | None) -> bool:
        return host_allowed(header, str(self.server_address[0]), self.port)


class PageHandler(StreamingHandler):
    server_version = "knightmate-play"
    server: PageServer
    timeout = 120
    answer_headers = {**SECURITY_HEADERS, "Cache-Control": "no-store"}

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's naming)
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def _handle(self, method: str) -> None:
        if not self.server.host_allowed(self.headers.get("Host")):
            self._send_json(421, {"error": "This address is not the one the page is served on."})
            return
        url = urllib.parse.urlsplit(self.path)
        body = self._read_body()
        if body is None:
            return
        if method == "GET" and not url.path.startswith("/api/"):
            self._static(url)
            return
        if not self.server.session.holds(self.headers.get("Cookie")):
            self._send_json(401, {"error": "Open the address `knightmate-bot play` printed: it carries the key."})
            return
        if method == "POST" and self.headers.get(CSRF_HEADER) != "1":
            self._send_json(403, {"error": f"The {CSRF_HEADER} header is missing."})
            return
        route = _route(method, url.path)
        if route is None:
            self._send_json(404, {"error": "Not found"})
            return
        action, params = route
        form = dict(urllib.parse.parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))
        try:
            action(self, params, form)
        except ApiError as error:
            self._send_json(error.status, {"error": error.message})

    # Static files and the session.

    def _static(self, url: urllib.parse.SplitResult) -> None:
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/" and "key" in query:
            self._open_session(self.server.session, query["key"],
                               "That key is not this server's: open the address knightmate-bot play printed.")
            return
        name = "index.html" if url.path == "/" else url.path.removeprefix("/static/")
        suffix = name[name.rfind("."):] if "." in name else ""
        if not STATIC_NAME.fullmatch(name) or suffix not in STATIC_TYPES:
            self._send_json(404, {"error": "Not found"})
            return
        resource = resources.files("bot.web").joinpath("static", *name.split("/"))
        if not resource.is_file():
            self._send_json(404, {"error": "Not found"})
            return
        self._send(200, resource.read_bytes(), STATIC_TYPES[suffix], {"Cache-Control": "no-cache"})

    # Actions.

    def account(self, params: dict[str, str], form: dict[str, str]) -> None:
        self._send_json(200, self.server.seat.account_json())

    def games(self, params: dict[str, str], form: dict[str, str]) -> None:
        self._send_json(200, {"games": self.server.seat.games_json()})

    def challenge(self, params: dict[str, str], form: dict[str, str]) -> None:
        fen = form.get("fen", "").strip() or None
        answer = self.server.seat.challenge(params["user"], limit_s=_clock(form, "clock.limit"),
                                            increment_s=_clock(form, "clock.increment"),
                                            color=form.get("color", "random"), fen=fen)
        self._send_json(200, answer)

    def challenge_ai(self, params: dict[str, str], form: dict[str, str]) -> None:
        fen = form.get("fen", "").strip() or None
        try:
            level = int(form.get("level", ""))
        except ValueError:
            raise ApiError(400, f"level must be a whole number, not {form.get('level', '')!r}") from None
        answer = self.server.seat.challenge_ai(level, limit_s=_clock(form, "clock.limit"),
                                               increment_s=_clock(form, "clock.increment"),
                                               color=form.get("color", "random"), fen=fen)
        self._send_json(200, answer)

    def exhibition(self, params: dict[str, str], form: dict[str, str]) -> None:
        answer = self.server.seat.exhibition(limit_s=_clock(form, "clock.limit"),
                                             increment_s=_clock(form, "clock.increment"))
        self._send_json(200, answer)

    def move(self, params: dict[str, str], form: dict[str, str]) -> None:
        self.server.seat.move(params["game"], params["uci"], received_at=self.received_at)
        self._send_json(200, {"ok": True})

    def resign(self, params: dict[str, str], form: dict[str, str]) -> None:
        self.server.seat.resign(params["game"])
        self._send_json(200, {"ok": True})

    def abort(self, params: dict[str, str], form: dict[str, str]) -> None:
        self.server.seat.abort(params["game"])
        self._send_json(200, {"ok": True})

    def draw(self, params: dict[str, str], form: dict[str, str]) -> None:
        self.server.seat.draw(params["game"], params["answer"] == "yes")
        self._send_json(200, {"ok": True})

    def chat(self, params: dict[str, str], form: dict[str, str]) -> None:
        self.server.seat.chat(params["game"], form.get("text", ""))
        self._send_json(200, {"ok": True})

    def pgn(self, params: dict[str, str], form: dict[str, str]) -> None:
        """The bot's own PGN file once it has written it, else the sandbox's record of the game so
        far; a game the bot does not play (against the computer) has no file to wait for."""
        game_id = params["game"]
        seat = self.server.seat
        over = seat.game_json(game_id, legal_moves=False)["status"] != "started"  # 404s for an unknown game
        text = (self.server.bot_pgn(game_id) if over and seat.bot_plays(game_id) else None) or seat.pgn(game_id)
        self._send(200, text.encode(), "application/x-chess-pgn; charset=utf-8",
                   {"Content-Disposition": f'attachment; filename="knightmate-{game_id}.pgn"'})

    def event_stream(self, params: dict[str, str], form: dict[str, str]) -> None:
        seat = self.server.seat
        self._relay(self._changes(lambda: seat.version(None),
                                  lambda first: iter([{"type": "games", "games": seat.games_json()}])))

    def game_stream(self, params: dict[str, str], form: dict[str, str]) -> None:
        seat = self.server.seat
        game_id = params["game"]
        seat.version(game_id)  # 404s before the stream starts

        def lines(first: bool) -> Iterator[JsonObject]:
            """The new state, then, if its legal moves were still to be worked out, the state with them:
            the position is on its way to the page while they are (milliseconds of python-chess)."""
            state = seat.game_json(game_id, legal_moves=False)
            yield dict(state, type="gameFull" if first else "gameState")
            if state["legalMoves"] is None:
                yield dict(seat.game_json(game_id), type="gameState")

        self._relay(self._changes(lambda: seat.version(game_id), lines))

    def analysis_import(self, params: dict[str, str], form: dict[str, str]) -> None:
        self._send_json(200, read_paste(form.get("text", "")))

    def analysis_pgn(self, params: dict[str, str], form: dict[str, str]) -> None:
        """The analysis board's tree as PGN, written by python-chess (the page's "Copy PGN")."""
        self._send_json(200, {"pgn": tree_pgn(form.get("tree", ""))})

    def analysis_position(self, params: dict[str, str], form: dict[str, str]) -> None:
        self._send_json(200, position_json(self._query().get("fen", "")))

    def analysis_stream(self, params: dict[str, str], form: dict[str, str]) -> None:
        """The engine's lines for one position, as they come; the search stops when the page
        leaves (a keep-alive that cannot be written) or starts another. Never while the person
        plays a game: the engine would be theirs to consult."""
        self._refuse_while_playing()
        query = self._query()
        try:
            multipv = int(query.get("multipv", "1"))
        except ValueError:
            raise ApiError(400, "multipv must be a whole number") from None
        search = self.server.analyser.start(query.get("fen", ""), multipv)

        def lines() -> Iterator[JsonObject | None]:
            """The search's lines to their end, which comes soon after a stop (its reason last)."""
            for line in search.lines(KEEPALIVE_S / 5):
                if self.server.seat.stopping:
                    search.stop("the server stopped")
                yield line

        try:
            self._relay(lines())
        finally:
            search.stop("the page left")

    def learn_try(self, params: dict[str, str], form: dict[str, str]) -> None:
        """A move tried in place of one of the person's errors, judged by the engine: not while
        they play a game, as for the analysis board."""
        self._refuse_while_playing()
        query = self._query()
        self._send_json(200, self.server.analyser.judge_try(query.get("fen", ""), query.get("uci", "")))

    def review_stream(self, params: dict[str, str], form: dict[str, str]) -> None:
        """A finished game's review: progress lines, then every move judged and the annotated PGN."""
        game_id = params["game"]
        seat = self.server.seat
        if seat.game_json(game_id, legal_moves=False)["status"] == "started":
            raise ApiError(409, "A game is reviewed once it is over.")
        lines = self.server.reviewer.review(game_id, seat.pgn(game_id), KEEPALIVE_S / 5)
        try:
            self._relay(itertools.takewhile(lambda line: not seat.stopping, lines))
        finally:
            lines.close()  # stops the review if it is still going

    def review_pgn(self, params: dict[str, str], form: dict[str, str]) -> None:
        game_id = params["game"]
        text = self.server.reviewer.pgns.get(game_id)
        if text is None:
            raise ApiError(404, "That game has not been reviewed yet.")
        self._send(200, text.encode(), "application/x-chess-pgn; charset=utf-8",
                   {"Content-Disposition": f'attachment; filename="knightmate-{game_id}-review.pgn"'})

    def puzzle_list(self, params: dict[str, str], form: dict[str, str]) -> None:
        self._send_json(200, self.server.puzzles.listing_json(PuzzleFilter.from_query(self._query())))

    def puzzle(self, params: dict[str, str], form: dict[str, str]) -> None:
        self._send_json(200, self.server.puzzles.puzzle_json(params["puzzle"]))

    def _refuse_while_playing(self) -> None:
        """No engine's help while the person plays a game: it would be theirs to consult."""
        if self.server.seat.playing_game() is not None:
            raise ApiError(409, "No analysis while you play a game: finish it first.")

    def _query(self) -> dict[str, str]:
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))

    # Streams.

    def _relay(self, lines: Iterable[JsonObject | None]) -> None:
        """Streams *lines* to the page, each as soon as it is made and a newline for each None,
        until they end or the page goes away."""
        try:
            relay(self._start_ndjson(), lines)
        except OSError:
            pass  # the page went away

    def _changes(self, version: Callable[[], object],
                 lines: Callable[[bool], Iterator[JsonObject]]) -> Iterator[JsonObject | None]:
        """*lines(True)* at once, then *lines(False)* whenever *version* changes and None (a
        keep-alive) after :data:`KEEPALIVE_S` without a change, until the sandbox stops."""
        seat = self.server.seat
        last = version()
        yield from lines(True)
        while True:
            changed = seat.wait_change(version, last, KEEPALIVE_S)
            if seat.stopping:
                return
            if changed:
                last = version()
                yield from lines(False)
            else:
                yield None


PageAction = Callable[[PageHandler, dict[str, str], dict[str, str]], None]


def _routes() -> list[tuple[str, re.Pattern[str], PageAction]]:
    game = r"/api/board/game/(?P<game>[A-Za-z0-9]+)"
    table: list[tuple[str, str, PageAction]] = [
        ("GET", r"/api/account", PageHandler.account),
        ("GET", r"/api/games", PageHandler.games),
        ("GET", r"/api/stream/event", PageHandler.event_stream),
        ("GET", r"/api/board/game/stream/(?P<game>[A-Za-z0-9]+)", PageHandler.game_stream),
        ("GET", game + r"/pgn", PageHandler.pgn),
        ("POST", r"/api/challenge/ai", PageHandler.challenge_ai),  # before a user named "ai"
        ("POST", r"/api/challenge/(?P<user>[A-Za-z0-9_-]+)", PageHandler.challenge),
        ("POST", r"/api/exhibition", PageHandler.exhibition),
        ("POST", game + r"/move/(?P<uci>[a-z0-9]+)", PageHandler.move),
        ("POST", game + r"/resign", PageHandler.resign),
        ("POST", game + r"/abort", PageHandler.abort),
        ("POST", game + r"/draw/(?P<answer>yes|no)", PageHandler.draw),
        ("POST", game + r"/chat", PageHandler.chat),
        ("POST", r"/api/analysis/import", PageHandler.analysis_import),
        ("POST", r"/api/analysis/pgn", PageHandler.analysis_pgn),
        ("GET", r"/api/analysis/position", PageHandler.analysis_position),
        ("GET", r"/api/analysis/stream", PageHandler.analysis_stream),
        ("GET", r"/api/review/stream/(?P<game>[A-Za-z0-9]+)", PageHandler.review_stream),
        ("GET", r"/api/review/(?P<game>[A-Za-z0-9]+)/pgn", PageHandler.review_pgn),
        ("GET", r"/api/puzzles", PageHandler.puzzle_list),
        ("GET", r"/api/puzzles/(?P<puzzle>[A-Za-z0-9_-]+)", PageHandler.puzzle),
        ("GET", r"/api/learn/try", PageHandler.learn_try),
    ]
    return [(method, re.compile(pattern), action) for method, pattern, action in table]


ROUTES = _routes()


def _route(method: str, path: str) -> tuple[PageAction, dict[str, str]] | None:
    for route_method, pattern, action in ROUTES:
        match = pattern.fullmatch(path)
        if match and route_method == method:
            return action, match.groupdict()
    return None


def _clock(form: dict[str, str], key: str) -> int:
    """A clock field in whole seconds (the page sends seconds)."""
    text = form.get(key, "")
    try:
        value = int(text)
    except ValueError:
        raise ApiError(400, f"{key} must be a whole number of seconds, not {text!r}") from None
    if not 0 <= value <= 3 * 3600:
        raise ApiError(400, f"{key} must be between 0 and 10800 seconds")
    return value
