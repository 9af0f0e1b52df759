"""The game read from pychess's round socket while its game stream is refused.

After a restart pychess answers a game stream with a 200 and a raw 409 for as long as it counts
the killed process's stream open (up to 6 s), and for ever once the game is over. Meanwhile the
bot's clock runs and the opponent may move, or end the game. The round socket, which anyone may
open without login, shows the same game: every move, both clocks, the status and the result
(:class:`~bot.remote.events.RoundBoard`). So whenever an attempt to open the stream gives nothing, the
player's reader reads the board (:class:`RoundReader`, throttled: pychess allows 80 handshakes per
30 s) and the player applies what it shows as a game state (:func:`state_from_round`): a move due
from the bot is searched and posted (a move post needs no stream), a finished game gets its PGN
with the server's result at once and frees its slot.

The stream stays the source of truth. A board that does not extend what the stream said is
logged and ignored, and a stream that comes back and disagrees with what was read from the board
is logged and wins (:func:`disagreement`). A restarted bot has seen no ``gameFull`` yet; the
setup of each game (players, start position, time control) is kept in the state file from its
first ``gameFull`` (:func:`setup_of`, :func:`full_from_setup`) for that case.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from bot.games.record import Game
from bot.remote.client import Client, ClientError
from bot.remote.events import GameFull, GameState, Player, RoundBoard

log = logging.getLogger(__name__)

#: The least time between two reads of one game's round socket.
MIN_READ_INTERVAL_S = 1.0

_WINNERS = {"1-0": "white", "0-1": "black"}


class RoundReader:
    """Called by a game's stream reader after each refused attempt (``on_refused``): reads the
    round socket, at most every :data:`MIN_READ_INTERVAL_S`, and hands the board to *deliver*."""

    def __init__(self, client: Client, game_id: str, deliver: Callable[[RoundBoard], None]) -> None:
        self._client = client
        self._game_id = game_id
        self._deliver = deliver
        self._last_read = -MIN_READ_INTERVAL_S

    def __call__(self, reason: str) -> None:
        now = time.monotonic()
        if now - self._last_read < MIN_READ_INTERVAL_S:
            return
        self._last_read = now
        try:
            board = self._client.round_board(self._game_id)
        except ClientError as error:
            log.warning("game %s: stream refused (%s) and the round socket unreadable: %s", self._game_id, reason,
                        error)
            return
        self._deliver(board)


def state_from_round(game: Game, board: RoundBoard) -> GameState | None:
    """The game state *board* shows, when it tells the game more than it knows (a move, or the
    end); ``None`` when it does not, or disagrees with what the stream said (logged)."""
    known = game.state.moves if game.state is not None else ()
    moves = board.moves
    if moves is None and board.is_over and game.state is not None:
        moves = known     # an end with no moves told: the result still counts
    if moves is None or moves[:len(known)] != known:
        if moves is not None:
            log.warning("game %s: the round socket shows %d plies that do not extend the stream's %d; "
                        "the stream wins", game.id, len(moves), len(known))
        return None
    if game.state is not None and len(moves) == len(known) and not board.is_over:
        return None
    wtime, btime = board.wtime_ms, board.btime_ms
    if wtime is None or btime is None:
        if game.state is None:
            return None
        wtime, btime = game.state.wtime_ms, game.state.btime_ms
    increment = game.increment_ms or 0
    return GameState(moves=moves, wtime_ms=wtime, btime_ms=btime, winc_ms=increment, binc_ms=increment,
                     status=board.status, winner=_WINNERS.get(board.result) if board.is_over else None)


def disagreement(read: tuple[str, ...], streamed: tuple[str, ...]) -> str | None:
    """How the moves the stream sends differ from those read from the round socket before it;
    ``None`` when they agree (the stream may have moved on)."""
    if streamed[:len(read)] == read:
        return None
    return f"the stream shows {len(streamed)} plies, the round socket showed {len(read)} that differ"


def setup_of(game: Game) -> dict[str, Any] | None:
    """What a restarted bot needs to know of *game* before its stream answers, as JSON data;
    ``None`` before its first ``gameFull``, or for a game the bot does not play."""
    if game.white is None or game.black is None or game.problem is not None:
        return None
    return {"white": game.white.name, "black": game.black.name, "white_id": game.white.id,
            "black_id": game.black.id, "initial_fen": game.initial_fen, "base_ms": game.base_ms,
            "increment_ms": game.increment_ms}


def full_from_setup(game_id: str, setup: dict[str, Any] | None, state: GameState) -> GameFull | None:
    """The ``gameFull`` a stream would have sent with *state*, from a kept *setup*; ``None`` when
    there is none or it is not what :func:`setup_of` writes (the file may have been edited)."""
    if setup is None:
        return None
    try:
        names = [setup[key] for key in ("white", "black")]
        ids = [setup[key] for key in ("white_id", "black_id")]
        fen, base, increment = setup["initial_fen"], setup["base_ms"], setup["increment_ms"]
    except KeyError:
        return None
    if (not all(isinstance(name, str) for name in names)
            or not all(item is None or isinstance(item, str) for item in ids)
            or not (fen is None or isinstance(fen, str))
            or not all(value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)
                       for value in (base, increment))):
        return None
    # Only a Knightmate game the bot played has a setup kept.
    return GameFull(id=game_id, variant="knightmate", white=Player(names[0], ids[0]), black=Player(names[1], ids[1]),
                    initial_fen=fen, base_ms=base, increment_ms=increment, rated=None, state=state)
