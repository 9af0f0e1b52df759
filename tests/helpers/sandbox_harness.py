"""A tiny scripted Bot API client for the sandbox's own tests (no tests of its own here).

It speaks HTTP with requests exactly as a bot would, reads ndjson lines from streams with read
timeouts, and plays random legal moves rebuilt from ``initialFen`` + ``moves``. It is deliberately
naive: the real bot lives in ``bot/``; this only proves what the server sends and accepts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import requests

from bot.sandbox import Sandbox
from variant import KnightmateBoard

CAPABILITIES = '{"version":1,"variants":["knightmate"]}'
READ_TIMEOUT = 10.0


class ScriptedClient:
    def __init__(self, url: str, token: str, *, pychess: bool = False) -> None:
        self.url = url
        self.pychess = pychess
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.session.get(self.url + path, timeout=READ_TIMEOUT, **kwargs)

    def post(self, path: str, **kwargs: Any) -> requests.Response:
        return self.session.post(self.url + path, timeout=READ_TIMEOUT, **kwargs)

    def open_event_stream(self) -> requests.Response:
        headers = {"X-PyChess-Bot-Capabilities": CAPABILITIES} if self.pychess else {}
        return self.session.get(self.url + "/api/stream/event", headers=headers, stream=True,
                                timeout=READ_TIMEOUT)

    def open_game_stream(self, game_id: str) -> requests.Response:
        return self.session.get(f"{self.url}/api/bot/game/stream/{game_id}", stream=True, timeout=READ_TIMEOUT)


def raw_lines(response: requests.Response) -> Iterator[bytes]:
    """Every line of a stream, keep-alive blank lines included."""
    buffer = b""
    for chunk in response.iter_content(chunk_size=None):
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield line


def json_lines(response: requests.Response) -> Iterator[dict[str, Any]]:
    """The JSON lines of a stream, skipping keep-alives (blank lines and pychess pings)."""
    for line in raw_lines(response):
        if not line.strip():
            continue
        obj = json.loads(line)
        if obj.get("type") != "ping":
            yield obj


def drain(lines: Iterator[Any], limit: int = 100) -> list[Any]:
    """Everything left on a stream that must end soon; fails rather than hangs if it does not."""
    rest = []
    for line in lines:
        rest.append(line)
        if len(rest) > limit:
            raise AssertionError(f"the stream did not end after {limit} lines")
    return rest


def next_of_type(lines: Iterator[dict[str, Any]], kind: str) -> dict[str, Any]:
    for obj in lines:
        if obj.get("type") == kind:
            return obj
    raise AssertionError(f"stream ended before a {kind!r} line")


def board_of(initial_fen: str, moves: str) -> KnightmateBoard:
    board = KnightmateBoard() if initial_fen in ("", "startpos") else KnightmateBoard(initial_fen)
    for uci in moves.split():
        board.push_uci(uci)
    return board


def advance(board: KnightmateBoard, initial_fen: str, moves: list[str]) -> KnightmateBoard:
    """The board after *moves*, pushing only the new ones when *moves* extends what *board* holds."""
    played = [board.uci(move) for move in board.move_stack]
    if moves[:len(played)] != played:
        return board_of(initial_fen, " ".join(moves))
    for uci in moves[len(played):]:
        board.push_uci(uci)
    return board


def play_random_game(client: ScriptedClient, game_id: str, username: str, seed: int = 1) -> list[str]:
    """Plays random legal moves on one game stream until the game ends; returns the moves seen.

    Lichess: ends at a state whose status is not ``started`` (the stream then closes). pychess: ends
    at ``gameEnd``; the final move may be missing from what was seen.
    """
    rng = random.Random(seed)
    response = client.open_game_stream(game_id)
    assert response.status_code == 200
    lines = json_lines(response)
    full = next(lines)
    assert full["type"] == "gameFull"
    initial_fen = full["initialFen"]
    my_color = "white" if full["white"]["name"] == username else "black"
    state = full["state"]
    board_moves: list[str] = state["moves"].split()
    posted: set[int] = set()
    board = board_of(initial_fen, "")
    while True:
        if state["type"] == "gameState":
            board_moves = state["moves"].split()
        if state["type"] == "gameEnd" or state.get("status", "started") != "started":
            response.close()
            return board_moves
        board = advance(board, initial_fen, board_moves)
        mine = (board.turn == (my_color == "white"))
        if mine and len(board_moves) not in posted and not board.is_game_over():
            posted.add(len(board_moves))
            move = rng.choice(list(board.legal_moves))
            reply = client.post(f"/api/bot/game/{game_id}/move/{board.uci(move)}")
            assert reply.status_code == 200, reply.text
        state = next(line for line in lines if line["type"] in ("gameState", "gameEnd"))


def start_game(sandbox: Sandbox, client: ScriptedClient, opponent: str = "randy", **challenge: Any) -> str:
    """*opponent* challenges mybot, which accepts over HTTP; returns the new game's id."""
    cid = sandbox.challenge(opponent, "mybot", **challenge)
    assert client.post(f"/api/challenge/{cid}/accept").status_code == 200
    game_id = sandbox.game_of_challenge(cid)
    assert game_id is not None
    return game_id
