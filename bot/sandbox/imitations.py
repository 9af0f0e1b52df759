"""What the two servers say and how they behave, one class per dialect (docs/api.md).

:class:`LichessImitation` and :class:`PychessImitation` build every JSON line and answer body the sandbox sends and
hold the behaviour flags in which the servers differ (illegal moves, aborts, stream ends,
reconnects). Everything dialect-specific in the sandbox lives here; the rest asks the dialect.
This module never touches sockets or sandbox state: it turns model objects into plain dicts.
"""

from __future__ import annotations

from typing import ClassVar

import chess

from bot.sandbox.chunked import EMPTY_LINE, JsonObject
from bot.sandbox.hosted import STATUS_IDS, Account, HostedChallenge, HostedGame, color_name

#: The sandbox's statuses (Lichess's names) as pychess's status codes: pychess aborts a game whose
#: first moves never come, calls a flag FLAG (6) and a player who left and lost ABANDONE (7).
PYCHESS_STATUS_CODES = {
    "created": -2, "started": -1, "aborted": 0, "noStart": 0, "mate": 1, "resign": 2, "stalemate": 3,
    "draw": 5, "outoftime": 6, "timeout": 7, "cheat": 8, "illegalMove": 10, "unknownFinish": 11, "variantEnd": 12,
}


def _variant_name(key: str) -> str:
    return key[:1].upper() + key[1:]


class ServerImitation:
    """The shared shape of both dialects; subclasses override what differs."""

    name: ClassVar[str]
    #: The keep-alive line of both streams.
    keepalive: ClassVar[bytes]
    #: Default seconds between keep-alives.
    keepalive_s: ClassVar[float]
    #: Whether a keep-alive goes out at once when a stream opens.
    ping_at_connect: ClassVar[bool]
    #: Whether an illegal move is answered 200 and loses the game (else 400, nothing happens).
    illegal_move_loses: ClassVar[bool]
    #: Whether abort is allowed at any ply (else only before both sides have moved).
    abort_any_time: ClassVar[bool]
    #: Whether game streams end after the final state (else they stay open after ``gameEnd``).
    game_stream_closes: ClassVar[bool]
    #: Whether a cut stream counts as open until its next keep-alive tick.
    streams_linger: ClassVar[bool]
    #: Whether one event queue per account is shared by all its event streams (so a lingering
    #: stream can swallow a line, and lines sent while none is open wait for the next).
    shared_event_queue: ClassVar[bool]
    #: A header every event stream request must carry, or None.
    required_stream_header: ClassVar[str | None]
    #: Whether a new event stream starts with every unfinished game and open challenge of the
    #: account (else only with its games that have moves and no open game stream).
    full_replay_at_connect: ClassVar[bool]
    #: Whether open event streams get a ``terminated`` line when the server shuts down.
    says_terminated: ClassVar[bool]
    #: Whether a decline reason may come as JSON (else only form data is read).
    reads_json_bodies: ClassVar[bool]
    #: Whether a game stream is refused (409) while another of the player's is open, once the
    #: game is over, or while the server holds it back; a game aborted before both sides moved
    #: is then a 404 page.
    exclusive_game_streams: ClassVar[bool]
    #: Whether an action on a finished game is answered 200 (else 400).
    late_actions_ok: ClassVar[bool]
    #: Whether bots may create challenges and use the draw/takeback/claim endpoints.
    lichess_extras: ClassVar[bool]
    #: Whether chat lines are delivered to bot players' game streams.
    chat_reaches_bots: ClassVar[bool]
    #: Whether a player who resigns is told the game is over (pychess sends the resigner no ``gameEnd``).
    resignation_ends_stream: ClassVar[bool]
    #: Whether an aborted game is forgotten at once, so a chat line to it is answered 404 (pychess).
    aborted_games_vanish: ClassVar[bool]

    def __init__(self, base_url: str = "") -> None:
        self.base_url = base_url

    def account(self, account: Account) -> JsonObject:
        raise NotImplementedError

    def challenge(self, challenge: HostedChallenge) -> JsonObject:
        raise NotImplementedError

    def challenge_event(self, kind: str, challenge: HostedChallenge) -> JsonObject:
        return {"type": kind, "challenge": self.challenge(challenge)}

    def game_start(self, game: HostedGame, account: Account) -> JsonObject:
        raise NotImplementedError

    def game_finish(self, game: HostedGame, account: Account) -> JsonObject | None:
        """The event-stream line at a game's end, or None if the dialect sends none."""
        return None

    def game_full(self, game: HostedGame, now: float) -> JsonObject:
        raise NotImplementedError

    def game_state(self, game: HostedGame, now: float) -> JsonObject:
        raise NotImplementedError

    def game_end(self, game: HostedGame) -> JsonObject | None:
        """The game-stream line at a game's end, or None if the final state says it."""
        return None

    def round_socket(self, game: HostedGame, now: float) -> tuple[JsonObject, JsonObject] | None:
        """What the game's round socket sends a new connection: a greeting, then the ``board``
        message (what a spectator sees at *now*); None if the dialect has no round socket."""
        return None

    def time_control(self, challenge: HostedChallenge) -> JsonObject:
        if challenge.days is not None:
            return {"type": "correspondence", "daysPerTurn": challenge.days}
        if challenge.limit_s is None:
            return {"type": "unlimited"}
        return {"type": "clock", "limit": challenge.limit_s, "increment": challenge.increment_s}

    def _times(self, game: HostedGame) -> tuple[int, int]:
        # Clocks as of the last move, as both servers send them.
        return game.times[chess.WHITE], game.times[chess.BLACK]


class LichessImitation(ServerImitation):
    name = "lichess"
    keepalive = EMPTY_LINE
    keepalive_s = 7.0
    ping_at_connect = False
    illegal_move_loses = False
    abort_any_time = False
    game_stream_closes = True
    streams_linger = False
    shared_event_queue = False
    required_stream_header = None
    full_replay_at_connect = True
    says_terminated = False
    reads_json_bodies = True
    exclusive_game_streams = False
    late_actions_ok = False
    lichess_extras = True
    chat_reaches_bots = True
    resignation_ends_stream = True
    aborted_games_vanish = False

    def account(self, account: Account) -> JsonObject:
        body: JsonObject = {
            "id": account.id, "username": account.username, "online": True,
            "perfs": {"knightmate": {"games": 0, "rating": account.rating, "rd": 60, "prog": 0, "prov": True}},
        }
        if account.title:
            body["title"] = account.title
        return body

    def _user(self, account: Account) -> JsonObject:
        user: JsonObject = {"id": account.id, "name": account.username, "rating": account.rating,
                            "provisional": False, "online": True}
        if account.title:
            user["title"] = account.title
        return user

    def _variant(self, key: str) -> JsonObject:
        return {"key": key, "name": _variant_name(key), "short": key[:2].upper()}

    def challenge(self, challenge: HostedChallenge) -> JsonObject:
        control = self.time_control(challenge)
        if control["type"] == "clock":
            control["show"] = f"{challenge.limit_s // 60 if challenge.limit_s else 0}+{challenge.increment_s}"
        body: JsonObject = {
            "id": challenge.id, "url": f"{self.base_url}/{challenge.id}", "status": challenge.status,
            "challenger": self._user(challenge.challenger), "destUser": self._user(challenge.dest),
            "variant": self._variant(challenge.variant), "rated": challenge.rated, "speed": challenge.speed,
            "timeControl": control, "color": challenge.color, "finalColor": challenge.final_color,
            "perf": {"icon": "", "name": _variant_name(challenge.variant)},
        }
        if challenge.initial_fen:
            body["initialFen"] = challenge.initial_fen
        if challenge.decline_reason:
            body["declineReasonKey"] = challenge.decline_reason
            body["declineReason"] = f"declined: {challenge.decline_reason}"
        return body

    def _game_summary(self, game: HostedGame, account: Account) -> JsonObject:
        color = game.color_of(account)
        assert color is not None
        opponent = game.player(not color)
        summary: JsonObject = {
            "gameId": game.id, "fullId": game.id + "abcd", "id": game.id, "color": color_name(color),
            "fen": game.board.fen(), "hasMoved": game.has_moved(color),
            "isMyTurn": not game.over and game.board.turn == color,
            "lastMove": game.moves[-1] if game.moves else "",
            "opponent": {"id": opponent.id, "username": opponent.username, "rating": opponent.rating},
            "perf": game.challenge.variant, "rated": game.challenge.rated, "source": "friend",
            "speed": game.challenge.speed, "variant": self._variant(game.challenge.variant),
            "status": {"id": STATUS_IDS[game.status], "name": game.status},
            "compat": {"bot": True, "board": True},
        }
        if game.has_clock:
            summary["secondsLeft"] = game.times[color] // 1000
        if game.winner is not None:
            summary["winner"] = color_name(game.winner)
        return summary

    def game_start(self, game: HostedGame, account: Account) -> JsonObject:
        return {"type": "gameStart", "game": self._game_summary(game, account)}

    def game_finish(self, game: HostedGame, account: Account) -> JsonObject | None:
        return {"type": "gameFinish", "game": self._game_summary(game, account)}

    def _player(self, account: Account) -> JsonObject:
        return {"id": account.id, "name": account.username, "title": account.title, "rating": account.rating}

    def game_full(self, game: HostedGame, now: float) -> JsonObject:
        full: JsonObject = {
            "type": "gameFull", "id": game.id, "rated": game.challenge.rated,
            "variant": self._variant(game.challenge.variant), "speed": game.challenge.speed,
            "perf": {"name": _variant_name(game.challenge.variant)}, "createdAt": 0,
            "white": self._player(game.white), "black": self._player(game.black),
            "initialFen": game.initial_fen or "startpos", "state": self.game_state(game, now),
        }
        if game.has_clock:
            full["clock"] = {"initial": game.initial_ms, "increment": game.increment_ms}
        return full

    def game_state(self, game: HostedGame, now: float) -> JsonObject:
        wtime, btime = self._times(game)
        state: JsonObject = {
            "type": "gameState", "moves": " ".join(game.moves), "wtime": wtime, "btime": btime,
            "winc": game.increment_ms, "binc": game.increment_ms, "status": game.status,
            "wdraw": game.draw_offer == chess.WHITE, "bdraw": game.draw_offer == chess.BLACK,
            "wtakeback": False, "btakeback": False,
        }
        if game.winner is not None:
            state["winner"] = color_name(game.winner)
        return state


class PychessImitation(ServerImitation):
    name = "pychess"
    keepalive = b'{"type":"ping"}\n'
    keepalive_s = 6.0
    ping_at_connect = True
    illegal_move_loses = True
    abort_any_time = True
    game_stream_closes = False
    streams_linger = True
    shared_event_queue = True
    required_stream_header = "X-PyChess-Bot-Capabilities"
    full_replay_at_connect = False
    says_terminated = True
    reads_json_bodies = False
    exclusive_game_streams = True
    late_actions_ok = True
    lichess_extras = False
    chat_reaches_bots = False
    resignation_ends_stream = False
    aborted_games_vanish = True

    def account(self, account: Account) -> JsonObject:
        return {"id": account.id, "username": account.username, "title": account.title or ""}

    def challenge(self, challenge: HostedChallenge) -> JsonObject:
        challenger: JsonObject = {"name": challenge.challenger.username,
                                  "rating": challenge.challenger.rating,
                                  "title": challenge.challenger.title or ""}
        return {
            "id": challenge.id, "url": f"{self.base_url}/{challenge.id}", "color": challenge.final_color,
            "rated": challenge.rated, "challenger": challenger, "variant": {"key": challenge.variant},
            "speed": challenge.speed, "timeControl": self.time_control(challenge),
            "level": challenge.level, "chess960": False,
        }

    def game_start(self, game: HostedGame, account: Account) -> JsonObject:
        return {"type": "gameStart",
                "game": {"id": game.id, "skill_level": str(game.challenge.level), "chess960": "False"}}

    def game_full(self, game: HostedGame, now: float) -> JsonObject:
        return {
            "type": "gameFull", "id": game.id, "variant": {"name": game.challenge.variant},
            "white": {"name": game.white.username}, "black": {"name": game.black.username},
            "initialFen": game.initial_fen or "", "state": self.game_state(game, now),
        }

    def game_state(self, game: HostedGame, now: float) -> JsonObject:
        wtime, btime = self._times(game)
        increment_s = game.increment_ms // 1000
        return {"type": "gameState", "moves": " ".join(game.moves), "wtime": wtime, "btime": btime,
                "winc": increment_s, "binc": increment_s, "status": "started"}

    def game_end(self, game: HostedGame) -> JsonObject | None:
        return {"type": "gameEnd", "game": {"id": game.id}}

    def round_socket(self, game: HostedGame, now: float) -> tuple[JsonObject, JsonObject] | None:
        # pychess first says who of the players is online.
        greeting: JsonObject = {"type": "user_present", "username": game.white.username}
        if game.winner is not None:
            result = "1-0" if game.winner == chess.WHITE else "0-1"
        else:
            result = "*" if not game.over or game.status in ("aborted", "noStart") else "1/2-1/2"
        # The board a new connection gets is pychess's full one: every step of the game (the first
        # one, the start position, without a move) and the clocks as they are now.
        replay = game.board.root()
        steps: list[JsonObject] = [{"fen": replay.fen(), "san": None, "turnColor": color_name(replay.turn),
                                    "check": replay.is_check()}]
        for move, uci in zip(game.board.move_stack, game.moves, strict=True):
            san = replay.san(move)
            replay.push(move)
            steps.append({"fen": replay.fen(), "move": uci, "san": san, "turnColor": color_name(replay.turn),
                          "check": replay.is_check()})
        clocks = {color_name(color): max(0, game.remaining_ms(color, now)) for color in chess.COLORS}
        board = {"type": "board", "gameId": game.id, "status": PYCHESS_STATUS_CODES[game.status], "result": result,
                 "fen": game.board.fen(), "lastMove": game.moves[-1] if game.moves else "", "steps": steps,
                 "ply": len(game.moves), "check": game.board.is_check(), "clocks": clocks}
        return greeting, board


IMITATIONS: dict[str, type[ServerImitation]] = {"lichess": LichessImitation, "pychess": PychessImitation}

__all__ = ["IMITATIONS", "JsonObject", "LichessImitation", "PychessImitation", "ServerImitation"]
