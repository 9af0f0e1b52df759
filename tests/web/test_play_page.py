"""The human seat and the page's HTTP API, over real HTTP on loopback, without a browser.

The person challenges an in-process opponent that never moves, so every position is the one the
test made. The browser tests (test_play_browser.py) play the real bot through the page.
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
import requests

from bench.page import make_pieces, make_sounds
from bot.analysis import BUILTIN_CURVE, LICHESS_CURVE, EngineCommand, WinningChancesCurve, chances_percent, close_engine
from bot.analysis.lines import final_position
from bot.analysis.pgn_input import read_games
from bot.cli.local_page import PlayError, announce, check_host
from bot.cli.main import main
from bot.engine import levels
from bot.engine.uci import ENGINE_NAME
from bot.httpd import host_allowed
from bot.own_command import OWN_COMMAND
from bot.sandbox import Sandbox, human
from bot.sandbox.opponents import strength_options
from bot.web.analysis_board import score_json
from bot.web.page_server import CSRF_HEADER, PageServer, PgnSource
from tests.helpers.engine_processes import FAIRY_STOCKFISH, needs_fairy_stockfish, recorded, wait_until
from variant import KnightmateBoard

KEY = "the-test-key"


class Served:
    def __init__(self, sandbox: Sandbox, page: PageServer) -> None:
        self.sandbox = sandbox
        self.page = page
        self.url = page.url
        self.session = requests.Session()
        self.session.cookies.set(page.session.cookie, KEY)

    def post(self, path: str, form: dict[str, Any] | None = None, **headers: str) -> requests.Response:
        return self.session.post(self.url + path, data=form or {}, headers={CSRF_HEADER: "1", **headers}, timeout=10)

    def get(self, path: str, **headers: str) -> requests.Response:
        return self.session.get(self.url + path, headers=headers, timeout=10)

    def new_game(self, fen: str | None = None) -> str:
        answer = self.post("/api/challenge/statue", {"clock.limit": 180, "clock.increment": 2, "color": "white",
                                                     "fen": fen or ""}).json()
        assert answer["status"] == "accepted", answer
        return str(answer["gameId"])

    def states(self, game_id: str) -> Iterator[dict[str, Any]]:
        """The game stream's states as they come (keep-alive newlines left out)."""
        with self.session.get(f"{self.url}/api/board/game/stream/{game_id}", stream=True, timeout=10) as response:
            for line in response.iter_lines():
                if line:
                    yield dict(json.loads(line))

    def state(self, game_id: str) -> dict[str, Any]:
        """The game's state with its legal moves (which may follow the position in a second line)."""
        return next(state for state in self.states(game_id) if state["legalMoves"] is not None)


@contextlib.contextmanager
def serving(sandbox: Sandbox, seat: human.HumanSeat, engine: EngineCommand | None = None,
            bot_pgn: PgnSource = lambda game_id: None) -> Iterator[Served]:
    """The page of *seat* on a port of its own, its analysis on *engine*, the bot's PGN files from
    *bot_pgn* (none by default); stopped with *sandbox*."""
    with PageServer(("127.0.0.1", 0), seat, KEY, bot_pgn, engine) as page:
        thread = threading.Thread(target=page.serve_forever, kwargs={"poll_interval": 0.1})
        thread.start()
        try:
            yield Served(sandbox, page)
        finally:
            sandbox.stop()
            page.analyser.stop()
            page.shutdown()
            page.close_connections()
            thread.join()


@pytest.fixture(params=["lichess", "pychess"])
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    with Sandbox(request.param) as sandbox:
        sandbox.add_opponent("statue", strategy="idle")
        with serving(sandbox, sandbox.add_person("you", bot="statue")) as page:
            yield page


def test_the_printed_key_becomes_an_http_only_strict_cookie(served: Served) -> None:
    response = requests.get(f"{served.url}/?key={KEY}", allow_redirects=False, timeout=10)
    assert response.status_code == 303 and response.headers["Location"] == "/"
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith(f"knightmate_session_{served.page.port}={KEY};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert requests.get(f"{served.url}/?key=wrong", allow_redirects=False, timeout=10).status_code == 403


def test_the_api_needs_the_session_cookie(served: Served) -> None:
    assert requests.get(f"{served.url}/api/account", timeout=10).status_code == 401
    guessed = {served.page.session.cookie: "guess"}
    assert requests.get(f"{served.url}/api/account", cookies=guessed, timeout=10).status_code == 401
    assert served.get("/api/account").json()["bot"] == "statue"
    assert requests.get(f"{served.url}/", timeout=10).status_code == 200  # the page itself is public


def test_a_post_without_the_page_header_changes_nothing(served: Served) -> None:
    response = served.session.post(f"{served.url}/api/challenge/statue",
                                   data={"clock.limit": 180, "clock.increment": 2, "color": "white"}, timeout=10)
    assert response.status_code == 403
    assert served.sandbox.games() == [] and served.sandbox.challenges_from("you") == []


def test_a_request_for_another_host_name_is_refused(served: Served) -> None:
    port = served.page.port
    assert served.get("/api/account", Host=f"rebound.example:{port}").status_code == 421
    assert served.get("/", Host=f"127.0.0.1:{port + 1}").status_code == 421
    assert served.get("/api/account", Host=f"localhost:{port}").status_code == 200


def test_host_rules_for_a_specific_and_a_wildcard_address() -> None:
    assert host_allowed("127.0.0.1:8000", "127.0.0.1", 8000)
    assert host_allowed("localhost:8000", "127.0.0.1", 8000)
    assert not host_allowed("192.168.1.5:8000", "127.0.0.1", 8000)
    assert not host_allowed(None, "127.0.0.1", 8000)
    assert not host_allowed("127.0.0.1:bad", "127.0.0.1", 8000)
    assert host_allowed("192.168.1.5:8000", "0.0.0.0", 8000)
    assert host_allowed("[::1]:8000", "::", 8000)
    assert not host_allowed("attacker.example:8000", "0.0.0.0", 8000)
    assert host_allowed("127.0.0.1:9000", "0.0.0.0", 8000)  # docker run -p 127.0.0.1:9000:8000


def test_every_position_carries_its_legal_moves_from_knightmate_board(served: Served) -> None:
    game_id = served.new_game()
    state = served.state(game_id)
    board = KnightmateBoard()
    expected = {board.uci(move): board.san(move) for move in board.legal_moves}
    assert {move["uci"]: move["san"] for move in state["legalMoves"]} == expected
    after = {move["uci"]: move["fen"] for move in state["legalMoves"]}
    board.push_uci("e1f3")
    assert after["e1f3"] == board.fen()
    assert state["you"] == "white" and state["turn"] == "white" and state["abortable"]


def test_a_new_position_is_streamed_before_its_legal_moves_are_worked_out(served: Served) -> None:
    game_id = served.new_game()
    first_page, second_page = served.states(game_id), served.states(game_id)
    position, completed = next(first_page), next(first_page)
    assert (position["type"], position["legalMoves"]) == ("gameFull", None)
    assert completed["type"] == "gameState" and len(completed["legalMoves"]) == KnightmateBoard().legal_moves.count()
    assert {key: value for key, value in completed.items() if key not in ("type", "legalMoves", "wtime")} == {
        key: value for key, value in position.items() if key not in ("type", "legalMoves", "wtime")}
    # Worked out once: a second page of the game gets them in its first line.
    assert next(second_page)["legalMoves"] == completed["legalMoves"]
    first_page.close()
    second_page.close()


def test_a_played_move_comes_back_with_its_san_and_position(served: Served) -> None:
    game_id = served.new_game()
    assert served.post(f"/api/board/game/{game_id}/move/e1f3").status_code == 200
    state = served.state(game_id)
    board = KnightmateBoard()
    board.push_uci("e1f3")
    assert state["plies"] == [{"uci": "e1f3", "san": "Kf3", "fen": board.fen(), "check": None}]
    assert state["legalMoves"] == []  # the opponent's turn
    assert served.sandbox.game(game_id).moves == ["e1f3"]


def test_working_out_a_positions_legal_moves_holds_no_lock_the_sandbox_needs(
        served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = served.new_game()
    seat = served.page.seat
    working, done = threading.Event(), threading.Event()
    worked_out = human.legal_moves_json

    def legal_moves_held_open(board: chess.Board) -> list[dict[str, Any]]:
        working.set()
        done.wait(10)
        return worked_out(board)

    monkeypatch.setattr(human, "legal_moves_json", legal_moves_held_open)
    states: list[dict[str, Any]] = []
    reader = threading.Thread(target=lambda: states.append(seat.game_json(game_id)))
    reader.start()
    try:
        assert working.wait(10)
        # Meanwhile the world's lock, which the bot's moves, the referee and every stream take, is free.
        assert seat.world.cond.acquire(timeout=5)
        seat.world.cond.release()
    finally:
        done.set()
        reader.join(10)
    assert len(states[0]["legalMoves"]) == KnightmateBoard().legal_moves.count()


def test_a_move_is_timed_by_its_requests_arrival_not_by_when_the_lock_let_it_in(
        served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = served.new_game()
    world = served.page.seat.world
    arrived = threading.Event()
    play = world.human_move

    def human_move(*args: Any, **kwargs: Any) -> None:
        arrived.set()
        play(*args, **kwargs)

    monkeypatch.setattr(world, "human_move", human_move)
    answers: list[int] = []
    with world.cond:
        poster = threading.Thread(
            target=lambda: answers.append(served.post(f"/api/board/game/{game_id}/move/e2e4").status_code))
        poster.start()
        assert arrived.wait(10)
        released_at = time.monotonic()
    poster.join(10)
    assert answers == [200]
    assert world.games[game_id].turn_started < released_at


def test_an_illegal_move_is_refused_in_either_dialect_and_the_game_goes_on(served: Served) -> None:
    game_id = served.new_game()
    response = served.post(f"/api/board/game/{game_id}/move/e2e5")
    assert response.status_code == 400 and "illegal" in response.json()["error"]
    record = served.sandbox.game(game_id)
    assert record.moves == [] and not record.over


def test_a_bad_fen_is_refused_with_a_clear_message(served: Served) -> None:
    response = served.post("/api/challenge/statue", {"clock.limit": 180, "clock.increment": 2, "color": "white",
                                                     "fen": "8/8/8/8/8/8/8/8 w - - 0 1"})
    assert response.status_code == 400 and "FEN cannot start a game" in response.json()["error"]
    assert served.sandbox.challenges_from("you") == []


def test_resign_and_abort_end_the_persons_game(served: Served) -> None:
    game_id = served.new_game()
    assert served.post(f"/api/board/game/{game_id}/abort").status_code == 200
    assert served.sandbox.game(game_id).status == "aborted"
    game_id = served.new_game()
    assert served.post(f"/api/board/game/{game_id}/resign").status_code == 200
    record = served.sandbox.game(game_id)
    assert record.status == "resign" and record.winner == "black"


@pytest.mark.parametrize("served", ["lichess"], indirect=True)
def test_draw_offers_go_both_ways_on_lichess(served: Served) -> None:
    assert served.get("/api/account").json()["drawOffers"] is True
    game_id = served.new_game()
    assert served.post(f"/api/board/game/{game_id}/draw/yes").status_code == 200
    assert served.state(game_id)["drawOffer"] == "white"
    served.sandbox.offer_draw(game_id, "statue")  # the opponent's yes accepts the standing offer
    assert (served.state(game_id)["status"], served.sandbox.game(game_id).winner) == ("draw", None)

    game_id = served.new_game()
    served.sandbox.offer_draw(game_id, "statue")
    assert served.state(game_id)["drawOffer"] == "black"
    assert served.post(f"/api/board/game/{game_id}/draw/no").status_code == 200
    state = served.state(game_id)
    assert (state["drawOffer"], state["status"]) == (None, "started")


@pytest.mark.parametrize("served", ["pychess"], indirect=True)
def test_a_draw_offer_on_pychess_is_refused_with_the_reason(served: Served) -> None:
    assert served.get("/api/account").json()["drawOffers"] is False
    game_id = served.new_game()
    response = served.post(f"/api/board/game/{game_id}/draw/yes")
    assert response.status_code == 400 and "lichess dialect" in response.json()["error"]
    assert served.state(game_id)["drawOffer"] is None


def test_the_pgn_so_far_comes_from_the_sandbox_while_no_bot_file_exists(served: Served) -> None:
    game_id = served.new_game()
    served.post(f"/api/board/game/{game_id}/move/e2e4")
    response = served.get(f"/api/board/game/{game_id}/pgn")
    assert response.status_code == 200 and "attachment" in response.headers["Content-Disposition"]
    assert '[Variant "Knightmate"]' in response.text
    game = chess.pgn.read_game(io.StringIO(response.text))
    assert game is not None and [node.san() for node in game.mainline()] == ["e4"]
    assert game.end().clock() is not None  # [%clk], as the bot's own file has it
    headers = game.headers
    assert headers["White"] == "you" and headers["Black"] == "statue" and headers["TimeControl"] == "180+2"
    assert headers["Event"] == "knightmate-bot play" and "?" not in headers["Date"] and headers["Result"] == "*"


def test_the_pgn_of_a_finished_game_comes_from_the_bot_s_file_only_when_the_bot_played_it() -> None:
    """A game against the computer has no bot file: its PGN must not wait for one (it took 5 s)."""
    asked: list[str] = []

    def bot_pgn(game_id: str) -> str | None:
        asked.append(game_id)
        return None

    with Sandbox("lichess") as sandbox:
        sandbox.add_opponent("statue", strategy="idle")
        sandbox.add_opponent("computer-1", strategy="level1")
        seat = sandbox.add_person("you", bot="statue", computers={1: "computer-1"})
        with serving(sandbox, seat, bot_pgn=bot_pgn) as served:
            answer = served.post("/api/challenge/ai", {"level": 1, "clock.limit": 300, "clock.increment": 3,
                                                       "color": "black", "fen": ""}).json()
            against_computer = answer["gameId"]
            sandbox.wait_moves(against_computer, 1, timeout=10)
            reply = served.state(against_computer)["legalMoves"][0]["uci"]
            assert served.post(f"/api/board/game/{against_computer}/move/{reply}").status_code == 200
            assert served.post(f"/api/board/game/{against_computer}/resign").status_code == 200
            computer_pgn = served.get(f"/api/board/game/{against_computer}/pgn").text
            against_bot = served.new_game()
            assert served.post(f"/api/board/game/{against_bot}/resign").status_code == 200
            assert served.get(f"/api/board/game/{against_bot}/pgn").status_code == 200
    assert asked == [against_bot]
    game = chess.pgn.read_game(io.StringIO(computer_pgn))
    assert game is not None and game.headers["White"] == "computer-1" and game.headers["Result"] == "1-0"
    clocks = [node.clock() for node in game.mainline()]
    assert len(clocks) >= 2 and all(clock is not None and 0 < clock <= 303 for clock in clocks), clocks


def test_a_paste_too_long_for_a_fen_is_refused_without_being_echoed(served: Served) -> None:
    paste = "1. e4 e5 2. Nf3 " * 1000
    response = served.post("/api/challenge/statue", {"clock.limit": 180, "clock.increment": 2, "color": "white",
                                                     "fen": paste})
    assert response.status_code == 400
    assert response.json()["error"] == ("That is not a FEN: a FEN is one line of at most 120 characters, "
                                        f"not {len(paste.strip())}.")


def test_the_vendored_board_pieces_and_sounds_are_served_and_nothing_beside_them(served: Served) -> None:
    board = served.get("/static/vendor/chessgroundx.js")
    assert board.status_code == 200 and board.headers["Content-Type"].startswith("text/javascript")
    assert "export{" in board.text and "Chessground" in board.text
    assert "GNU GENERAL PUBLIC LICENSE" in served.get("/static/vendor/chessgroundx-license.txt").text
    assert served.get("/static/pieces/wm.svg").headers["Content-Type"] == "image/svg+xml"
    assert served.get("/static/sounds/move.wav").content[:4] == b"RIFF"
    for path in ("/static/vendor/README.md", "/static/other/x.js", "/static/vendor/../../server.py",
                 "/static/vendor/sub/x.js", "/static/%2e%2e/__init__.py"):
        assert served.get(path).status_code == 404, path


def test_the_shipped_pieces_and_sounds_are_what_their_scripts_make() -> None:
    for name, text in make_pieces.pieces().items():
        assert (make_pieces.OUT / name).read_text(encoding="utf-8") == text, name
    for name in make_sounds.SOUNDS:
        assert (make_sounds.OUT / f"{name}.wav").read_bytes() == make_sounds.wav_bytes(name), name


def test_play_binds_ip_addresses_only() -> None:
    assert check_host("localhost") == "127.0.0.1"
    assert check_host("0.0.0.0") == "0.0.0.0"
    with pytest.raises(PlayError, match="IP address"):
        check_host("example.com")


def test_another_address_than_loopback_is_announced_with_a_warning() -> None:
    out = io.StringIO()
    announce(out, "http://127.0.0.1:8000/?key=k", "0.0.0.0", "lichess")
    assert "WARNING: the page listens on 0.0.0.0" in out.getvalue()
    out = io.StringIO()
    announce(out, "http://127.0.0.1:8000/?key=k", "127.0.0.1", "lichess")
    assert "WARNING" not in out.getvalue() and "Open http://127.0.0.1:8000/?key=k" in out.getvalue()


def test_the_play_command_reports_a_bad_host_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--host", "example.com"]) == 2
    assert capsys.readouterr().err.strip() == "knightmate-bot play: --host must be an IP address, not 'example.com'"


def test_the_play_command_prints_its_address_serves_the_page_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    config = tmp_path / "config.yml"
    config.write_text(f"engine:\n  workers: 1\n  hash_mb: 8\n  ponder: false\ngame:\n  pgn_dir: {tmp_path / 'games'}\n",
                      encoding="utf-8")
    process = subprocess.Popen([*OWN_COMMAND, "play", "--config", str(config), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=tmp_path)
    assert process.stdout is not None
    guard = threading.Timer(60, process.kill)  # a hung command fails the test instead of hanging it
    guard.start()
    try:
        lines = []
        for line in process.stdout:  # until it says where the page is
            lines.append(line)
            if line.startswith("Open "):
                break
        guard.cancel()
        address = lines[-1].split()[1]
        assert address.startswith("http://127.0.0.1:") and "?key=" in address, lines
        session = requests.Session()
        assert session.get(address, timeout=10).status_code == 200  # the redirect to the page, with the cookie
        assert session.get(address.split("?")[0] + "api/account", timeout=10).json()["bot"] == "knightmate-bot"
        assert not any("WARNING" in line for line in lines)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
    finally:
        guard.cancel()
        process.kill()
        process.stdout.close()


# The analysis board's server side.

GAME_PGN = """[Event "a game"]
[White "A"]
[Black "B"]

1. c3 c6 2. Mc2 Mc7 3. Md3 *
"""


def test_a_pasted_pgn_is_read_into_moves_with_san_and_positions(served: Served) -> None:
    (game,) = served.post("/api/analysis/import", {"text": GAME_PGN}).json()["games"]
    assert [move["san"] for move in game["moves"]] == ["c3", "c6", "Mc2", "Mc7", "Md3"]
    assert [move["parent"] for move in game["moves"]] == [-1, 0, 1, 2, 3]
    board = KnightmateBoard()
    for move in game["moves"]:
        board.push_uci(move["uci"])
        assert move["fen"] == board.fen()
    assert game["headers"]["White"] == "A"
    fen_only = served.post("/api/analysis/import", {"text": "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"}).json()
    assert fen_only == {"games": [{"initialFen": "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "moves": [], "headers": {},
                                   "comment": ""}]}


#: An annotated game: a comment before the moves and in a variation, NAGs, and a variation in a variation.
ANNOTATED_PGN = """[Event "Club"]
[White "A"]
[Black "B"]
[Result "*"]

{Quiet start} 1. c3 $1 c6 (1... e6 $6 {loosens d6} 2. Mc2 (2. d4 d5) 2... d5) 2. Mc2 $2 $18 Mc7 3. Md3 *
"""


def tree_of(node: chess.pgn.GameNode) -> list[object]:
    """Every move under *node* with its comments and NAGs, variations in order: what a copy keeps."""
    return [(child.uci(), child.comment, child.starting_comment, sorted(child.nags), tree_of(child))
            for child in node.variations]


def test_a_pasted_pgn_keeps_its_comments_nags_and_variations_and_is_written_back_as_it_came(served: Served) -> None:
    (game,) = served.post("/api/analysis/import", {"text": ANNOTATED_PGN}).json()["games"]
    assert game["comment"] == "Quiet start"
    by_san = {move["san"]: move for move in game["moves"]}
    assert by_san["e6"]["nags"] == [chess.pgn.NAG_DUBIOUS_MOVE] and by_san["e6"]["comment"] == "loosens d6"
    assert by_san["e6"]["parent"] == by_san["c6"]["parent"] == 0  # the other choice to 1... c6
    assert game["moves"][by_san["d4"]["parent"]]["san"] == "e6"  # 2. d4 in the variation's variation
    pgn = served.post("/api/analysis/pgn", {"tree": json.dumps(game)}).json()["pgn"]
    copied = chess.pgn.read_game(io.StringIO(pgn))
    (pasted,) = read_games(ANNOTATED_PGN, default_variant="Knightmate")
    assert copied is not None and not copied.errors and isinstance(copied.board(), KnightmateBoard)
    assert tree_of(copied) == tree_of(pasted) and copied.comment == "Quiet start"
    assert copied.headers["White"] == "A" and copied.headers["Event"] == "Club"


def test_a_tree_sent_as_bare_uci_where_it_can_be_reads_the_same(served: Served) -> None:
    """The page's short form: a move that follows the one before, without comment or NAG, as UCI."""
    tree = {"initialFen": KnightmateBoard().fen(), "headers": {}, "comment": "",
            "moves": ["c2c3", "c7c6", "b1c2", {"uci": "e7e6", "parent": 0, "nags": [6]}, "b1c2"]}
    pgn = served.post("/api/analysis/pgn", {"tree": json.dumps(tree)}).json()["pgn"]
    assert pgn.splitlines()[-1] == "1. c3 c6 ( 1... e6 $6 2. Mc2 ) 2. Mc2 *", pgn


def test_a_paste_of_several_games_lists_them_all_and_says_what_is_wrong_with_one(served: Served) -> None:
    text = GAME_PGN + "\n" + '[White "C"]\n[Black "D"]\n\n1. c3 c6 2. Ke3 *\n\n' + '[White "E"]\n\n1. c3 c6 2. Mc2 *\n'
    games = served.post("/api/analysis/import", {"text": text}).json()["games"]
    assert [game["headers"]["White"] for game in games] == ["A", "C", "E"]
    assert games[1]["error"] == "That PGN cannot be read: illegal move 2. Ke3."
    assert [move["san"] for move in games[2]["moves"]] == ["c3", "c6", "Mc2"]  # Knightmate, though it names none


@pytest.mark.parametrize(("tree", "message"), [
    ("not json", "That is not an analysis tree"),
    (json.dumps({"initialFen": KnightmateBoard().fen(), "headers": {}, "comment": "",
                 "moves": [{"parent": -1, "uci": "e2e5", "comment": "", "startingComment": "", "nags": []}]}),
     "Move 1 of the tree, 'e2e5', is not legal there."),
    (json.dumps({"initialFen": KnightmateBoard().fen(), "headers": {}, "comment": "",
                 "moves": [{"parent": 3, "uci": "e2e4", "comment": "", "startingComment": "", "nags": []}]}),
     "Move 1 of the tree follows a move that does not come before it."),
    (json.dumps({"initialFen": KnightmateBoard().fen(), "headers": {}, "comment": "", "moves": [{"parent": -1}]}),
     "Move 1 of the tree is not a move"),
    (json.dumps({"initialFen": KnightmateBoard().fen(), "headers": {}, "comment": "",
                 "moves": ["e2e4", {"uci": "e7e5", "nags": [256]}]}),
     "Move 2 of the tree is not a move"),
    (json.dumps({"initialFen": "8/8/8/8/8/8/8/8 w - - 0 1", "headers": {}, "comment": "", "moves": []}),
     "That is not a Knightmate FEN: invalid Knightmate position (white has no royal knight"),
])
def test_a_tree_that_is_not_one_gets_one_clear_sentence(served: Served, tree: str, message: str) -> None:
    response = served.post("/api/analysis/pgn", {"tree": tree})
    assert response.status_code == 400
    assert response.json()["error"].startswith(message), response.json()["error"]


@pytest.mark.parametrize(("text", "message"), [
    ("", "Paste a FEN or a PGN game first."),
    ("hello, this is not chess", "That is neither a FEN nor a PGN game."),
    ("x" * 20_001, "That paste is 20001 characters long; a FEN or a PGN game is at most 20000."),
    ("rmbq1bmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQ - 0 1",
     "That is not a Knightmate FEN: invalid Knightmate position (black has no royal knight)."),
    ("1. e4 e5 2. Ke3 *", "That PGN cannot be read: illegal move 2. Ke3."),
    ("1. e4 d5 2. Qg4 Nf6 *", "That PGN cannot be read: illegal move 2... Nf6."),
    ('[Variant "Crazyhouse"]\n\n1. e4 *', "That game is not Knightmate (its Variant is 'Crazyhouse')."),
])
def test_a_hostile_paste_gets_one_clear_sentence(served: Served, text: str, message: str) -> None:
    response = served.post("/api/analysis/import", {"text": text})
    assert response.status_code == 400
    assert response.json()["error"].startswith(message), response.json()["error"]


@pytest.mark.parametrize(("fen", "winner"), [("8/8/8/4R3/3K1Qk1/8/8/8 b - - 1 1", "white"),
                                             ("8/8/8/4r3/3k1qK1/8/8/8 w - - 1 1", "black")])
def test_a_final_mate_is_scored_for_its_winner(fen: str, winner: str) -> None:
    board = KnightmateBoard(fen)
    assert board.is_checkmate()
    assert score_json(final_position(board).score, LICHESS_CURVE) == {"cp": None, "mate": 0, "winner": winner,
                                                        "winPercent": 100.0 if winner == "white" else 0.0}
    assert score_json(chess.engine.PovScore(chess.engine.Mate(2), chess.WHITE), LICHESS_CURVE)["winner"] is None


def test_a_position_comes_with_its_legal_moves_and_outcome(served: Served) -> None:
    position = served.get("/api/analysis/position?fen=" + requests.utils.quote(KnightmateBoard().fen())).json()
    assert len(position["legalMoves"]) == KnightmateBoard().legal_moves.count() and position["outcome"] is None
    mate = served.get("/api/analysis/position?fen=" + requests.utils.quote("8/8/8/4R3/3K1Qk1/8/8/8 b - - 1 1")).json()
    assert position["turn"] == "white" and mate["legalMoves"] == []
    assert mate["outcome"] == {"result": "1-0", "termination": "checkmate"}


def test_the_engine_lines_stream_deepen_and_stop_when_the_page_leaves(served: Served) -> None:
    fen = "8/5Q2/8/4R3/3K2k1/8/8/8 w - - 0 1"  # Qf4 mates
    url = f"{served.url}/api/analysis/stream?fen={requests.utils.quote(fen)}&multipv=2"
    depths = []
    with served.session.get(url, stream=True, timeout=10) as response:
        assert response.status_code == 200
        for raw in response.iter_lines():
            if not raw:
                continue
            line = json.loads(raw)
            assert line["type"] == "info" and len(line["lines"]) == 2
            depths.append(line["depth"])
            if len(depths) == 4:
                break
    assert depths == sorted(depths) and depths[-1] > depths[0]
    assert line["engine"] == ENGINE_NAME  # the page says which build answers: this very install's
    assert line["lines"][0]["san"][0] == "Qf4#" and line["lines"][0]["mate"] == 1
    assert line["lines"][0]["winPercent"] == 100  # the bar's share, sent with the score
    assert len(line["lines"][0]["fen"]) == len(line["lines"][0]["uci"])
    search = served.page.analyser.current
    assert search is not None and search.wait_stopped(timeout=5)  # at the first keep-alive that finds no page


def test_a_score_goes_to_the_page_from_whites_side_with_its_share_of_the_chances() -> None:
    black_ahead = chess.engine.PovScore(chess.engine.Cp(100), chess.BLACK)
    assert score_json(black_ahead, LICHESS_CURVE) == {"cp": -100, "mate": None, "winner": None,
                                                      "winPercent": round(chances_percent(chess.engine.Cp(-100)), 1)}
    assert score_json(black_ahead, LICHESS_CURVE)["winPercent"] == 40.9  # Lichess's curve: 0.004's would be 40.1
    # The built-in engine's pawn is worth more winning chances: its curve is steeper.
    assert score_json(black_ahead, BUILTIN_CURVE)["winPercent"] < 40.9


def analysis_reports(served: Served, fen: str, multipv: int, count: int) -> list[dict[str, Any]]:
    """The first *count* engine reports of the analysis stream of *fen*; the page then leaves."""
    url = f"{served.url}/api/analysis/stream?fen={requests.utils.quote(fen)}&multipv={multipv}"
    reports = []
    with served.session.get(url, stream=True, timeout=30) as response:
        assert response.status_code == 200
        for raw in response.iter_lines():
            if raw:
                reports.append(json.loads(raw))
                assert reports[-1]["type"] == "info", reports[-1]
                if len(reports) == count:
                    break
    return reports


@needs_fairy_stockfish
def test_the_analysis_board_runs_the_configured_engine_at_full_strength(tmp_path: Path) -> None:
    assert FAIRY_STOCKFISH is not None
    record = tmp_path / "told.txt"
    # The operator's options, weakening ones included: the analysis keeps the others, not those.
    engine = EngineCommand(recorded(record, FAIRY_STOCKFISH),
                           {"Threads": 1, "Hash": 8, "UCI_LimitStrength": True, "UCI_Elo": 1500})
    with Sandbox("lichess") as sandbox:
        sandbox.add_opponent("statue", strategy="idle")
        with serving(sandbox, sandbox.add_person("you", bot="statue"), engine) as served:
            fen = "8/5Q2/8/4R3/3K2k1/8/8/8 w - - 0 1"  # Qf4 mates
            reports = analysis_reports(served, fen, multipv=2, count=3)
            search = served.page.analyser.current
            assert search is not None and search.wait_stopped(timeout=5)
    assert all(len(report["lines"]) == 2 for report in reports)
    assert [report["depth"] for report in reports] == sorted(report["depth"] for report in reports)
    assert reports[-1]["lines"][0]["san"][0] == "Qf4#" and reports[-1]["lines"][0]["mate"] == 1
    told = record.read_text().splitlines()
    assert "setoption name UCI_Variant value knightmate" in told
    assert "setoption name Hash value 8" in told  # (Threads 1 is the default: python-chess sends no default)
    assert not [line for line in told if "UCI_LimitStrength" in line or "UCI_Elo" in line]
    assert "go" in told and told[-1] == "quit"  # an infinite search; quit with the page's server


@needs_fairy_stockfish
def test_a_review_runs_the_configured_engine_at_full_strength(tmp_path: Path) -> None:
    assert FAIRY_STOCKFISH is not None
    record = tmp_path / "told.txt"
    engine = EngineCommand(recorded(record, FAIRY_STOCKFISH), {"Hash": 8, "UCI_LimitStrength": True, "UCI_Elo": 1500})
    with Sandbox("lichess") as sandbox:
        sandbox.add_opponent("statue", strategy="idle")
        with serving(sandbox, sandbox.add_person("you", bot="statue"), engine) as served:
            game_id = served.new_game()
            assert served.post(f"/api/board/game/{game_id}/move/e2e4").status_code == 200
            assert served.post(f"/api/board/game/{game_id}/resign").status_code == 200
            with served.session.get(f"{served.url}/api/review/stream/{game_id}", stream=True, timeout=30) as response:
                lines = [json.loads(raw) for raw in response.iter_lines() if raw]
    assert lines[-1]["type"] == "review" and len(lines[-1]["evals"]) == 2, lines[-1]
    assert lines[-1]["engine"].startswith("Fairy-Stockfish") and len(lines[-1]["depths"]) == 2
    white = lines[-1]["white"]["accuracy"]  # the page's figure is the PGN's (it said 87.6% against 88%)
    assert isinstance(white, int) and f"White: accuracy {white}%" in lines[-1]["pgn"]
    progress = [line for line in lines if line["type"] == "progress"]
    assert [line["done"] for line in progress] == [1, 2] and all(line["depth"] > 0 for line in progress[:1])
    assert all(line["engine"] == lines[-1]["engine"] for line in progress)
    told = record.read_text().splitlines()
    assert told.count("go movetime 150") == 2 and "setoption name Hash value 8" in told
    assert not [line for line in told if "UCI_LimitStrength" in line or "UCI_Elo" in line]


def test_no_analysis_while_the_person_plays_a_game(served: Served) -> None:
    served.new_game()
    response = served.get("/api/analysis/stream?fen=" + requests.utils.quote(KnightmateBoard().fen()))
    assert response.status_code == 409 and "finish it first" in response.json()["error"]


def test_a_move_tried_in_place_of_an_error_is_judged_by_the_engine(served: Served) -> None:
    fen = requests.utils.quote("rmb1kbmr/pppppppp/8/7q/8/8/PPPPPPP1/RMBQKBMR w Q - 0 1")  # Rxh5 wins a queen
    wrong = served.get(f"/api/learn/try?fen={fen}&uci=b2b3").json()
    assert wrong["accepted"] is False and wrong["judgement"] == "Blunder" and wrong["best"]["san"] == "Rxh5"
    right = served.get(f"/api/learn/try?fen={fen}&uci=h1h5").json()
    assert right["accepted"] is True and right["isBest"] is True and right["san"] == "Rxh5"
    illegal = served.get(f"/api/learn/try?fen={fen}&uci=h1h8")
    assert illegal.status_code == 400 and illegal.json()["error"] == "'h1h8' is not a legal move in that position."
    served.new_game()
    assert served.get(f"/api/learn/try?fen={fen}&uci=h1h5").status_code == 409  # not while playing


# The computer at your level: POST /api/challenge/ai, as Lichess's Board API has it.

@pytest.fixture
def with_computer() -> Iterator[Served]:
    with Sandbox("lichess") as sandbox:
        sandbox.add_opponent("statue", strategy="idle")
        sandbox.add_opponent("computer-1", strategy="level1")
        with serving(sandbox, sandbox.add_person("you", bot="statue", computers={1: "computer-1"})) as page:
            yield page


def test_the_computer_at_level_1_plays_at_once(with_computer: Served) -> None:
    account = with_computer.get("/api/account").json()
    first = levels.level(1)
    assert account["levels"] == [{"level": 1, "elo": first.elo, "label": first.label, "username": "computer-1"}]
    answer = with_computer.post("/api/challenge/ai", {"level": 1, "clock.limit": 300, "clock.increment": 3,
                                                      "color": "black", "fen": ""}).json()
    assert answer["status"] == "accepted"
    record = with_computer.sandbox.wait_moves(answer["gameId"], 1, timeout=10)  # White, the computer, moved
    assert record.white == "computer-1" and record.black == "you"
    assert record.moves[0] in {move.uci() for move in KnightmateBoard().legal_moves}


@pytest.mark.parametrize(("level", "message"), [("9", "level must be one of 1, not 9"),
                                                ("one", "level must be a whole number, not 'one'")])
def test_a_level_there_is_not_is_refused(with_computer: Served, level: str, message: str) -> None:
    response = with_computer.post("/api/challenge/ai", {"level": level, "clock.limit": 300, "clock.increment": 3,
                                                        "color": "white", "fen": ""})
    assert response.status_code == 400 and response.json()["error"] == message


@needs_fairy_stockfish
def test_the_computer_at_a_level_plays_the_configured_engine_weakened_to_that_level(tmp_path: Path) -> None:
    assert FAIRY_STOCKFISH is not None
    record = tmp_path / "told.txt"
    engine = EngineCommand(recorded(record, FAIRY_STOCKFISH), {"Hash": 8, "UCI_Elo": 2000})
    with Sandbox("lichess", level_engine=engine) as sandbox:
        sandbox.add_opponent("statue", strategy="idle")
        sandbox.add_opponent("computer-4", strategy="level4")
        sandbox.add_opponent("computer-8", strategy="level8")
        seat = sandbox.add_person("you", bot="statue", computers={4: "computer-4", 8: "computer-8"})
        with serving(sandbox, seat) as served:
            for level in (4, 8):
                answer = served.post("/api/challenge/ai", {"level": level, "clock.limit": 300, "clock.increment": 3,
                                                           "color": "black", "fen": ""}).json()
                game_id = answer["gameId"]
                board = KnightmateBoard()
                for ply in (0, 2):  # the computer's first two moves, each answered
                    computer_move = sandbox.wait_moves(game_id, ply + 1, timeout=10).moves[ply]
                    board.push_uci(computer_move)  # raises for an illegal move
                    reply = next(iter(board.legal_moves))
                    assert served.post(f"/api/board/game/{game_id}/move/{board.uci(reply)}").status_code == 200
                    board.push(reply)
                board.push_uci(sandbox.wait_moves(game_id, 5, timeout=10).moves[4])
                if not board.is_game_over():  # (level 8 may have mated the person's careless moves)
                    assert served.post(f"/api/board/game/{game_id}/resign").status_code == 200
                quits = 1 if level == 4 else 2
                wait_until(lambda quits=quits: record.read_text().count("quit") == quits, 10,  # type: ignore[misc]
                           "the level's engine quits when its game is over")
    told = record.read_text().split("quit\n")
    # Each game's engine at its level's Elo (not the operator's 2000), thinking its level's share of a second.
    for game, elo, movetime_ms in ((told[0], levels.level(4).elo, 500), (told[1], levels.level(8).elo, 1000)):
        lines = game.splitlines()
        assert "setoption name UCI_LimitStrength value true" in lines
        assert f"setoption name UCI_Elo value {elo}" in lines and "setoption name Hash value 8" in lines
        assert "setoption name UCI_Variant value knightmate" in lines
        assert lines.count(f"go movetime {movetime_ms}") == 3


@needs_fairy_stockfish
@pytest.mark.parametrize("level", [1, 4, 8])
def test_a_levels_elo_is_clamped_to_what_the_engine_offers(level: int) -> None:
    assert FAIRY_STOCKFISH is not None
    # Debian's Fairy-Stockfish offers UCI_Elo 1350-2850: level 1, below that, gets its lowest.
    assert levels.level(1).elo < 1350 <= levels.level(4).elo and levels.level(8).elo <= 2850
    elo = max(levels.level(level).elo, 1350)
    engine = EngineCommand((FAIRY_STOCKFISH,)).open()
    try:
        assert strength_options(engine, levels.level(level).elo) == {"UCI_LimitStrength": True, "UCI_Elo": elo}
    finally:
        close_engine(engine)


def test_an_engine_that_does_not_start_is_said_so_and_the_computer_plays_on(caplog: pytest.LogCaptureFixture) -> None:
    missing = EngineCommand(("/nonexistent/engine",))
    with Sandbox("lichess", level_engine=missing) as sandbox:
        sandbox.add_opponent("statue", strategy="idle")
        sandbox.add_opponent("computer-1", strategy="level1")
        with serving(sandbox, sandbox.add_person("you", bot="statue", computers={1: "computer-1"}), missing) as served:
            fen = requests.utils.quote(KnightmateBoard().fen())
            with served.session.get(f"{served.url}/api/analysis/stream?fen={fen}", stream=True, timeout=10) as response:
                reports = [json.loads(raw) for raw in response.iter_lines() if raw]
                # The server closes a stream's connection: it says so, so the next request takes another.
                assert response.headers["Connection"] == "close"
            assert reports == [{"type": "end", "reason": "cannot start /nonexistent/engine: No such file or directory"}]
            answer = served.post("/api/challenge/ai", {"level": 1, "clock.limit": 300, "clock.increment": 3,
                                                       "color": "black", "fen": ""}).json()
            record = sandbox.wait_moves(answer["gameId"], 1, timeout=10)  # the built-in engine at level 1
            assert record.moves[0] in {move.uci() for move in KnightmateBoard().legal_moves}
    assert "the level 1 engine did not start (cannot start /nonexistent/engine" in caplog.text


#: A slope no engine has, set by hand: what the page draws must follow it.
HAND_SLOPE = 0.01


def drawn_on(curve: WinningChancesCurve, score: dict[str, Any]) -> bool:
    """Whether the page's *score* (cp, mate, winPercent) puts White's share where *curve* does."""
    white = chess.engine.Mate(score["mate"]) if score["mate"] is not None else chess.engine.Cp(score["cp"])
    return bool(score["winPercent"] == round(chances_percent(white, curve), 1))


@needs_fairy_stockfish
def test_the_analysis_board_and_the_review_draw_on_the_judging_engines_curve() -> None:
    assert FAIRY_STOCKFISH is not None
    engine = EngineCommand((FAIRY_STOCKFISH,), {"Hash": 8}, slope=HAND_SLOPE)
    with Sandbox("lichess") as sandbox:
        sandbox.add_opponent("statue", strategy="idle")
        with serving(sandbox, sandbox.add_person("you", bot="statue"), engine) as served:
            reports = analysis_reports(served, "rmbqkbmr/pppppppp/8/8/4P3/8/PPPP1PPP/RMBQKBMR b KQkq - 0 1",
                                       multipv=1, count=3)
            search = served.page.analyser.current
            assert search is not None and search.wait_stopped(timeout=5)
            game_id = served.new_game()
            assert served.post(f"/api/board/game/{game_id}/move/e2e4").status_code == 200
            assert served.post(f"/api/board/game/{game_id}/resign").status_code == 200
            with served.session.get(f"{served.url}/api/review/stream/{game_id}", stream=True, timeout=30) as response:
                review = [json.loads(raw) for raw in response.iter_lines() if raw][-1]
    lines = [line for report in reports for line in report["lines"]]
    assert lines and all(drawn_on(WinningChancesCurve(HAND_SLOPE), line) for line in lines)
    assert review["type"] == "review" and all(drawn_on(WinningChancesCurve(HAND_SLOPE), e) for e in review["evals"])
    assert any(not drawn_on(LICHESS_CURVE, e) for e in review["evals"] if e["cp"] not in (None, 0))
