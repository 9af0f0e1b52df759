"""bot.games.round_fallback and the player's use of it: the game read from pychess's round socket while the
game stream is refused, the stream winning when it disagrees, and the setup a restarted bot keeps."""

from __future__ import annotations

import dataclasses
import json
import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path

import chess
import pytest

from bot.config import EngineSettings, GameSettings, Secret, ServerSettings, Settings
from bot.dialect import PYCHESS
from bot.engine import Limits, SearchResult
from bot.games import round_fallback
from bot.games.player import GamePlayer
from bot.games.record import Game, Result
from bot.games.round_fallback import RoundReader, disagreement, full_from_setup, setup_of, state_from_round
from bot.games.storage import StateFile
from bot.remote.client import Client, MoveOutcome
from bot.remote.events import GameFull, GameState, GameStreamEvent, KeepAlive, Player, ReportedResult, RoundBoard
from bot.remote.wire import MalformedLine, parse_round_board
from tests.helpers.games_harness import new_game
from variant import KnightmateBoard

OPENING = ("e2e3", "e7e6", "d2d3")


def state(moves: tuple[str, ...], wtime: int = 50_000, btime: int = 40_000) -> GameState:
    return GameState(moves=moves, wtime_ms=wtime, btime_ms=btime, winc_ms=1_000, binc_ms=1_000, status="started")


def full(moves: tuple[str, ...]) -> GameFull:
    return GameFull(id="g1", variant="knightmate", white=Player("alice"), black=Player("mybot"), initial_fen=None,
                    base_ms=None, increment_ms=None, rated=None, state=state(moves))


def board(moves: tuple[str, ...] | None, status: str = "started", result: str = "*", *,
          clocks: bool = True) -> RoundBoard:
    return RoundBoard("g1", status, result, moves, 30_000 if clocks else None, 20_000 if clocks else None)


def black_game(moves: tuple[str, ...] = OPENING[:2]) -> Game:
    game = new_game()
    game.apply(GameFull(id="g1", variant="knightmate", white=Player("alice"), black=Player("mybot"),
                        initial_fen=None, base_ms=None, increment_ms=None, rated=None,
                        state=GameState((), 60_000, 60_000, 1_000, 1_000, "started")))
    game.apply(state(moves))
    return game


# -- the board message ---------------------------------------------------------------------------

def board_message(**fields: object) -> str:
    message: dict[str, object] = {"type": "board", "gameId": "g1", "status": -1, "result": "*",
                                  "steps": [{"fen": "x", "san": None}, {"move": "e2e3"}, {"move": "e7e6"}],
                                  "clocks": {"white": 12_000, "black": 9_500}}
    message.update(fields)
    return json.dumps(message)


def test_a_full_board_gives_its_moves_and_clocks() -> None:
    assert parse_round_board(board_message()) == RoundBoard("g1", "started", "*", ("e2e3", "e7e6"), 12_000, 9_500)


@pytest.mark.parametrize(("fields", "moves", "clocks"), [
    ({"steps": [{"fen": "x"}, {"move": "e2e3; drop"}]}, None, (12_000, 9_500)),
    ({"steps": "e2e3"}, None, (12_000, 9_500)),
    ({"steps": []}, None, (12_000, 9_500)),
    ({"steps": [{"fen": "x"}, {"san": "e3"}]}, None, (12_000, 9_500)),
    ({"clocks": {"white": -5, "black": "soon"}}, ("e2e3", "e7e6"), (None, None)),
    ({"clocks": None}, ("e2e3", "e7e6"), (None, None)),
])
def test_odd_moves_or_clocks_are_left_out_and_the_status_still_counts(fields: dict[str, object],
                                                                       moves: tuple[str, ...] | None,
                                                                       clocks: tuple[int | None, int | None]) -> None:
    parsed = parse_round_board(board_message(status=2, result="1-0", **fields))
    assert parsed is not None and parsed.reported == ReportedResult("g1", "resign", "1-0")
    assert (parsed.moves, (parsed.wtime_ms, parsed.btime_ms)) == (moves, clocks)


def test_a_board_without_a_status_is_malformed() -> None:
    with pytest.raises(MalformedLine):
        parse_round_board(board_message(status="over"))


# -- what a board adds to a game -----------------------------------------------------------------

def test_a_board_that_extends_the_stream_is_the_next_state_with_its_clocks() -> None:
    new = state_from_round(black_game(OPENING[:1]), board(OPENING[:2]))
    assert new == GameState(OPENING[:2], 30_000, 20_000, 1_000, 1_000, "started")


def test_a_board_that_tells_nothing_new_is_ignored() -> None:
    assert state_from_round(black_game(OPENING[:2]), board(OPENING[:2])) is None
    assert state_from_round(black_game(OPENING[:2]), board(None)) is None


def test_a_board_that_disagrees_with_the_stream_is_logged_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    assert state_from_round(black_game(OPENING[:2]), board(("d2d3", "e7e6", "e2e3"))) is None
    assert state_from_round(black_game(OPENING[:2]), board(OPENING[:1])) is None
    assert caplog.text.count("the stream wins") == 2


def test_a_finished_board_ends_the_game_with_the_servers_status_and_winner() -> None:
    game = black_game(OPENING[:2])
    over = state_from_round(game, board(None, "resign", "0-1", clocks=False))
    assert over is not None and over.moves == OPENING[:2] and (over.wtime_ms, over.btime_ms) == (50_000, 40_000)
    game.apply(over)
    assert game.ended and game.result() == Result("0-1", "normal", "resign, black wins")
    drawn = state_from_round(black_game(OPENING[:2]), board(OPENING[:2], "draw", "1/2-1/2"))
    assert drawn is not None and drawn.status == "draw" and drawn.winner is None


def test_the_stream_that_moved_on_agrees_and_one_that_differs_does_not() -> None:
    assert disagreement(OPENING[:2], OPENING) is None
    assert disagreement(OPENING[:2], OPENING[:1]) is not None
    assert disagreement(OPENING[:2], ("d2d3", "e7e6")) is not None


# -- the setup kept for a restart ----------------------------------------------------------------

def test_a_kept_setup_gives_back_the_game_full_a_stream_would_send() -> None:
    game = black_game()
    setup = setup_of(game)
    assert setup is not None and json.loads(json.dumps(setup)) == setup
    rebuilt = full_from_setup("g1", setup, state(OPENING))
    assert rebuilt is not None and (rebuilt.white, rebuilt.black) == (Player("alice"), Player("mybot"))
    assert (rebuilt.base_ms, rebuilt.increment_ms, rebuilt.initial_fen) == (60_000, 1_000, None)


@pytest.mark.parametrize("setup", [None, {}, {"white": "alice"},
                                   {"white": 1, "black": "b", "white_id": None, "black_id": None,
                                    "initial_fen": None, "base_ms": 1, "increment_ms": 0},
                                   {"white": "a", "black": "b", "white_id": None, "black_id": None,
                                    "initial_fen": None, "base_ms": True, "increment_ms": 0}])
def test_a_setup_that_is_not_what_the_bot_writes_is_refused(setup: dict[str, object] | None) -> None:
    assert full_from_setup("g1", setup, state(OPENING)) is None


def test_a_game_the_bot_does_not_play_keeps_no_setup() -> None:
    assert setup_of(new_game()) is None
    game = new_game()
    game.apply(dataclasses.replace(full(()), variant="chess"))
    assert setup_of(game) is None


# -- the player ------------------------------------------------------------------------------------

class RefusedClient:
    """A pychess client whose game stream is refused until the test sends a line; round boards
    and refusals from the test, move posts noted."""

    dialect = PYCHESS

    def __init__(self) -> None:
        self.lines: queue.Queue[GameStreamEvent | str] = queue.Queue()
        self.boards: queue.Queue[RoundBoard] = queue.Queue()
        self.posts: list[str] = []
        self.changed = threading.Condition()

    def game_events(self, game_id: str, stop: threading.Event,
                    on_refused: Callable[[str], None] | None = None) -> Iterator[GameStreamEvent]:
        while not stop.is_set():
            line = self.lines.get(timeout=10)
            if line == "refused":
                assert on_refused is not None
                on_refused("ChunkedEncodingError")
            elif not isinstance(line, str):
                yield line

    def round_board(self, game_id: str) -> RoundBoard:
        return self.boards.get(timeout=5)

    def post_move(self, game_id: str, uci: str, **kwargs: object) -> MoveOutcome:
        with self.changed:
            self.posts.append(uci)
            self.changed.notify_all()
        return MoveOutcome.LANDED

    def wait_posts(self, count: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.posts) >= count, 5), self.posts

    def chat(self, game_id: str, text: str) -> None:
        pass


class FirstLegalMove:
    """An engine that plays the first legal move and notes the limits it was given."""

    def __init__(self) -> None:
        self.limits: list[Limits] = []

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits) -> Future[SearchResult]:
        self.limits.append(limits)
        position = KnightmateBoard()
        for uci in moves:
            position.push_uci(uci)
        move = next(iter(position.legal_moves))
        future: Future[SearchResult] = Future()
        future.set_result(SearchResult(move, 0, None, 1, 1, 1, (move,)))
        return future

    def ponder(self, initial_fen: str | None, moves: tuple[str, ...]) -> None:
        pass

    def stop_ponder(self) -> None:
        pass


def restarted_player(tmp_path: Path, client: RefusedClient,
                     engine: FirstLegalMove) -> tuple[GamePlayer, list[Result | None]]:
    """A player resumed from a state file that kept the game's setup (the bot black, 60+1)."""
    kept = StateFile(tmp_path / "state.json")
    kept.add("g1")
    setup = setup_of(black_game())
    assert setup is not None
    kept.note_setup("g1", setup)
    settings = Settings(engine=EngineSettings(ponder=False),
                        game=GameSettings(pgn_dir=str(tmp_path), greeting="", goodbye=""))
    done: list[Result | None] = []
    player = GamePlayer("g1", client=client, searcher=engine, settings=settings,  # type: ignore[arg-type]
                        username="mybot", on_done=lambda game_id, result: done.append(result),
                        state=StateFile(tmp_path / "state.json"), resumed=True)
    player.start()
    return player, done


def test_the_round_socket_is_read_at_most_once_a_second_and_a_failed_read_is_only_logged(
        caplog: pytest.LogCaptureFixture) -> None:
    client = RefusedClient()
    boards: list[RoundBoard] = []
    reader = RoundReader(client, "g1", boards.append)  # type: ignore[arg-type]
    client.boards.put(board(OPENING[:1]))
    reader("409")
    reader("409")                                     # too soon: no second handshake
    assert boards == [board(OPENING[:1])] and client.boards.empty()
    failing = RoundReader(Client(ServerSettings(url="http://127.0.0.1:9", dialect="pychess", connect_timeout_s=0.5),
                                 Secret("tok"), give_up_after_s=20.0), "g1", boards.append)
    failing("409")
    assert len(boards) == 1 and "the round socket unreadable" in caplog.text


def test_a_restarted_player_moves_from_the_round_socket_quickly_and_the_stream_wins_later(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(round_fallback, "MIN_READ_INTERVAL_S", 0.0)   # every refusal reads the board
    client, engine = RefusedClient(), FirstLegalMove()
    player, done = restarted_player(tmp_path, client, engine)
    client.boards.put(board(OPENING[:1]))
    client.lines.put("refused")
    client.wait_posts(1)
    assert engine.limits[0].movetime_ms is not None and engine.limits[0].movetime_ms <= 1_000 + 300
    first = client.posts[0]
    # The opponent's reply, seen on the next refusal; this search is not a short one any more.
    client.boards.put(board((*OPENING[:1], first, "d2d3")))
    client.lines.put("refused")
    client.wait_posts(2)
    assert engine.limits[1].movetime_ms is None
    # The stream is back, and says something else: it wins (the bot moves in its position), and
    # the bot says so.
    client.lines.put(full(("e2e3", "d7d6", "a2a3")))
    client.wait_posts(3)
    assert "differ; the stream wins" in caplog.text
    client.lines.put(state(("e2e3", "d7d6", "a2a3", "d6d5", "b2b3")))
    client.wait_posts(4)
    assert player.game.ply == 5 and player.game.board.peek() == chess.Move.from_uci("b2b3")
    # Over while the stream is refused again: the PGN at once, with the server's result.
    client.boards.put(board(None, "resign", "0-1"))
    client.lines.put("refused")
    assert player.finished.wait(5)
    assert done == [Result("0-1", "normal", "resign, black wins")]
    assert '[Result "0-1"]' in (tmp_path / "g1.pgn").read_text()
    client.lines.put(KeepAlive())   # the reader may still be waiting for a line
    player.join(5)


def test_without_a_kept_setup_the_player_waits_for_the_stream(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    client, engine = RefusedClient(), FirstLegalMove()
    settings = Settings(engine=EngineSettings(ponder=False), game=GameSettings(pgn_dir=str(tmp_path), greeting="",
                                                                               goodbye=""))
    player = GamePlayer("g1", client=client, searcher=engine, settings=settings,  # type: ignore[arg-type]
                        username="mybot", on_done=lambda game_id, result: None, resumed=True)
    player.start()
    client.boards.put(board(OPENING[:1]))
    client.lines.put("refused")
    client.lines.put(full(OPENING[:1]))
    client.wait_posts(1)
    assert "its setup is not kept" in caplog.text
    player.stop()
    client.lines.put(KeepAlive())
    player.join(5)
