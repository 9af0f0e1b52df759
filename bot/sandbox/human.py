"""The human seat: what a person at the sandbox can see and do, as plain JSON objects.

A person plays through this seat, not through the Bot API: the page ``knightmate-bot play`` serves
(:mod:`bot.web.page_server`) is its only client. Every position the seat describes carries its legal
moves in UCI and SAN and the position after each of them, computed here by
:class:`variant.KnightmateBoard`, so the page never needs rules of its own. The shape follows
Lichess's Board API (``gameFull`` then ``gameState`` objects) with those extras; the bot's side of
the sandbox is untouched: the bot sees the person's challenges and moves in its own dialect.

All reads and actions take the world's lock; the lock's condition is notified on every change (a
move, a result, a chat line, an answered challenge), which is what :meth:`HumanSeat.wait_change`
waits on. A read holds the world's lock only to copy what it needs: the plies' SAN and FEN and the
legal moves (milliseconds of python-chess per position) are worked out after, under the seat's own
lock, so that neither the bot's moves, the referee nor another page's stream wait on them.
Nothing here speaks HTTP.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

import chess
import chess.pgn

from bot.engine.levels import LEVELS
from bot.sandbox.hosted import Account, HostedChallenge, HostedGame, board_from_fen, color_name
from bot.sandbox.imitations import JsonObject
from bot.sandbox.world import ApiError, World
from variant import KnightmateBoard

T = TypeVar("T")

#: How long a challenge request waits for the bot's answer before it withdraws the challenge.
ANSWER_TIMEOUT_S = 30.0

#: The longest FEN the seat reads (a real one is under 90 characters); a longer paste is refused
#: without being echoed back.
MAX_FEN_CHARS = 120

#: The sentence the page shows for each decline reason key (the keys both servers understand).
DECLINE_TEXTS = {
    "generic": "The bot is not accepting this challenge.",
    "later": "The bot is busy with another game; try again later.",
    "tooFast": "This time control is too fast for the bot; choose a slower one.",
    "tooSlow": "This time control is too slow for the bot; choose a faster one.",
    "timeControl": "The bot does not play this time control.",
    "rated": "The bot plays rated games only.",
    "casual": "The bot plays casual games only.",
    "standard": "The bot does not play this variant.",
    "variant": "The bot does not play this variant.",
    "noBot": "The bot does not play other bots.",
    "onlyBot": "The bot plays other bots only, not people.",
}


class HumanSeat:
    """One person's account at the sandbox, and the games of the sandbox they may watch.

    :param opponent: the built-in opponent that :meth:`exhibition` sets against *bot*.
    """

    def __init__(self, world: World, account: Account, *, bot: str, opponent: str | None = None,
                 computers: dict[int, str] | None = None) -> None:
        self.world = world
        self.account = account
        self.bot = bot
        self.opponent = opponent
        #: The built-in computer opponents by level (1-8), which :meth:`challenge_ai` plays.
        self.computers = computers or {}
        #: Guards the two caches below, worked out outside the world's lock.
        self._cache_lock = threading.Lock()
        self._plies: dict[str, list[JsonObject]] = {}
        self._legal: dict[str, tuple[int, list[JsonObject]]] = {}

    # Reads.

    def account_json(self) -> JsonObject:
        return {"username": self.account.username, "bot": self.bot, "opponent": self.opponent,
                "dialect": self.world.dialect.name, "drawOffers": self.world.dialect.lichess_extras,
                "startingFen": board_from_fen(None).fen(),
                "levels": [{"level": level.number, "elo": level.elo, "label": level.label,
                            "username": self.computers[level.number]}
                           for level in LEVELS if level.number in self.computers]}

    def games_json(self) -> list[JsonObject]:
        """Every game of the sandbox, newest first, as the watch list shows it."""
        with self.world.cond:
            games = sorted(self.world.games.values(), key=lambda game: game.created_at, reverse=True)
            return [self._summary(game) for game in games]

    def game_json(self, game_id: str, *, legal_moves: bool = True) -> JsonObject:
        """The whole state of one game: players, clocks, every ply (SAN, FEN, check), the legal
        moves of the position, the result and the chat.

        With *legal_moves* false, legal moves not worked out yet are left out (``legalMoves`` is
        None): the page's stream sends a new position at once and its legal moves a moment after.

        :raises: :exc:`ApiError` (404) for a game that does not exist.
        """
        with self.world.cond:
            game = self._game(game_id)
            now = time.monotonic()
            board = game.board
            you = game.color_of(self.account)
            last_move_at_s = self.world.wall_time_s(game.turn_started)
            moves, fen, initial_fen = list(game.moves), board.fen(), game.initial_fen
            state: JsonObject = {
                "id": game.id,
                "white": _player(game.white), "black": _player(game.black),
                "you": color_name(you) if you is not None else None,
                "clock": ({"initial": game.initial_ms, "increment": game.increment_ms} if game.has_clock else None),
                "moves": " ".join(moves),
                "fen": fen,
                "turn": color_name(board.turn),
                "check": check_square(board),
                "wtime": game.remaining_ms(chess.WHITE, now), "btime": game.remaining_ms(chess.BLACK, now),
                "winc": game.increment_ms, "binc": game.increment_ms,
                "clockRunning": game.clock_running,
                "lastMoveAtMs": round(last_move_at_s * 1000) if game.moves else None,
                "startByMs": (round((last_move_at_s + self.world.first_move_timeout_s) * 1000)
                              if len(game.moves) < 2 and not game.over else None),
                "status": game.status,
                "winner": color_name(game.winner) if game.winner is not None else None,
                "drawOffer": color_name(game.draw_offer) if game.draw_offer is not None else None,
                "abortable": you is not None and not game.over and (
                    self.world.dialect.abort_any_time or len(game.moves) < 2),
                "chat": [{"username": line.username, "room": line.room, "text": line.text} for line in game.chat],
            }
            wants_moves = you == board.turn and not game.over
        state["initialFen"] = board_from_fen(initial_fen).fen()
        with self._cache_lock:
            state["plies"] = self._plies_of(game_id, state["initialFen"], moves)
            state["legalMoves"] = (self._legal_moves_of(game_id, len(moves), fen, work_out=legal_moves)
                                   if wants_moves else [])
        return state

    def playing_game(self) -> str | None:
        """The id of a game the person plays that is not over, if any."""
        with self.world.cond:
            for game in self.world.games.values():
                if not game.over and game.color_of(self.account) is not None:
                    return game.id
        return None

    def version(self, game_id: str | None) -> tuple[object, ...]:
        """What changes whenever something the page shows changes: of one game, or (None) of the list."""
        with self.world.cond:
            if game_id is None:
                return tuple((game.id, game.status, len(game.moves)) for game in self.world.games.values())
            game = self._game(game_id)
            return len(game.moves), game.status, len(game.chat), game.draw_offer

    def wait_change(self, seen: Callable[[], T], last: T, timeout: float) -> bool:
        """Waits until *seen()* differs from *last* or the sandbox stops; False after *timeout*."""
        with self.world.cond:
            return self.world.cond.wait_for(lambda: self.world.stopping or seen() != last, timeout)

    @property
    def stopping(self) -> bool:
        return self.world.stopping

    # Actions.

    def challenge(self, username: str, *, limit_s: int, increment_s: int, color: str, fen: str | None) -> JsonObject:
        """Challenges *username* and waits for the answer: the challenge's status, its game or why it
        was declined. A challenge left unanswered for :data:`ANSWER_TIMEOUT_S` is withdrawn.

        :raises: :exc:`ApiError` (400) for a bad FEN, colour or clock.
        """
        if fen is not None and len(fen) > MAX_FEN_CHARS:
            raise ApiError(400, f"That is not a FEN: a FEN is one line of at most {MAX_FEN_CHARS} characters, "
                                f"not {len(fen)}.")
        problem = KnightmateBoard.start_position_problem(fen)
        if problem is not None:
            raise ApiError(400, f"That FEN cannot start a game: {problem}.")
        return self._challenge_and_wait(self.account, username, limit_s=limit_s, increment_s=increment_s,
                                        color=color, fen=fen)

    def challenge_ai(self, level: int, *, limit_s: int, increment_s: int, color: str, fen: str | None) -> JsonObject:
        """Plays the computer at *level* (1-8), as Lichess's ``POST /api/challenge/ai``: the game
        starts at once (the computer always accepts).

        :raises: :exc:`ApiError` (400) for a level this sandbox has not, a bad FEN, colour or clock.
        """
        username = self.computers.get(level)
        if username is None:
            raise ApiError(400, f"level must be one of {', '.join(map(str, sorted(self.computers)))}, not {level}")
        return self.challenge(username, limit_s=limit_s, increment_s=increment_s, color=color, fen=fen)

    def exhibition(self, *, limit_s: int, increment_s: int) -> JsonObject:
        """Has the built-in opponent challenge the bot, for the person to watch."""
        if self.opponent is None:
            raise ApiError(404, "This sandbox has no built-in opponent")
        return self._challenge_and_wait(self.world.account(self.opponent), self.bot, limit_s=limit_s,
                                        increment_s=increment_s, color="random", fen=None)

    def move(self, game_id: str, uci: str, *, received_at: float | None = None) -> None:
        """Plays the person's move, timed *received_at* (``time.monotonic()`` when the request
        carrying it arrived), or now for a caller in the same process."""
        self.world.human_move(self.account, game_id, uci,
                              received_at=time.monotonic() if received_at is None else received_at)

    def resign(self, game_id: str) -> None:
        self.world.resign(self.account, game_id, bot_only=False)

    def abort(self, game_id: str) -> None:
        self.world.abort(self.account, game_id, bot_only=False)

    def draw(self, game_id: str, accept: bool) -> None:
        """Offers a draw or accepts the bot's offer (*accept*), or declines it, as Lichess's Board
        API does; a move declines a standing offer too. The bot answers as it answers on Lichess.

        :raises: :exc:`ApiError` (400) on the pychess dialect, whose Bot API carries no draw offers.
        """
        if not self.world.dialect.lichess_extras:
            raise ApiError(400, "Draw offers need the lichess dialect: pychess's Bot API carries none to the bot.")
        self.world.draw(self.account, game_id, accept, bot_only=False)

    def chat(self, game_id: str, text: str) -> None:
        self.world.chat(self.account, game_id, "player", text.strip()[:140], bot_only=False)

    def bot_plays(self, game_id: str) -> bool:
        """Whether the bot is one of the game's players (a game against the computer or the
        sparring opponent is the sandbox's alone: the bot writes no PGN file of it).

        :raises: :exc:`ApiError` (404) for a game that does not exist.
        """
        with self.world.cond:
            game = self._game(game_id)
            return self.bot.lower() in (game.white.username.lower(), game.black.username.lower())

    def pgn(self, game_id: str) -> str:
        """The game so far as PGN, from the sandbox's own record (the page prefers the bot's file
        once the game is over), with the headers the bot's file has: event, site, date, players,
        result, variant, time control, and each move's ``[%clk]`` (the mover's clock after it, as
        the bot's file has them) in a game with a clock. Written outside the world's lock (the SAN
        of 100 plies takes python-chess 3 ms)."""
        with self.world.cond:
            game = self._game(game_id)
            board, white, black = game.board.copy(), game.white.username, game.black.username
            status, winner = game.status, game.winner
            clock = f"{game.initial_ms // 1000}+{game.increment_ms // 1000}" if game.has_clock else "-"
            clocks_after_ms = list(game.clocks_after_ms) if game.has_clock else []
            started_s = self.world.wall_time_s(game.created_at)
        record = chess.pgn.Game.from_board(board)
        for node, clock_ms in zip(record.mainline(), clocks_after_ms, strict=False):
            node.set_clock(clock_ms / 1000)
        headers = record.headers
        headers["Event"] = "knightmate-bot play"
        headers["Site"] = f"knightmate-bot play sandbox, game {game_id}"
        headers["Date"] = time.strftime("%Y.%m.%d", time.localtime(started_s))
        headers["Round"] = "-"  # PGN's "not applicable": a game of its own
        headers["White"] = white
        headers["Black"] = black
        headers["Result"] = _pgn_result(status, winner)
        headers["Variant"] = "Knightmate"
        headers["TimeControl"] = clock
        return str(record) + "\n"

    # Internals.

    def _challenge_and_wait(self, challenger: Account, username: str, *, limit_s: int, increment_s: int,
                            color: str, fen: str | None) -> JsonObject:
        world = self.world
        with world.cond:
            dest = world.accounts.get(username.lower())
            if dest is None:
                raise ApiError(404, f"No such user: {username}")
            try:
                challenge = world.create_challenge(challenger, dest, limit_s=limit_s, increment_s=increment_s,
                                                   days=None, rated=False, color=color, variant="knightmate",
                                                   initial_fen=fen)
            except ValueError as error:
                raise ApiError(400, str(error)) from None
            answered = world.cond.wait_for(lambda: challenge.status != "created" or world.stopping,
                                           ANSWER_TIMEOUT_S)
            if not answered:
                world.cancel(None, challenge.id)
            return _answer(challenge, answered)

    def _summary(self, game: HostedGame) -> JsonObject:
        you = game.color_of(self.account)
        clock = f"{game.initial_ms / 60_000:g}+{game.increment_ms // 1000}" if game.has_clock else "unlimited"
        return {"id": game.id, "white": game.white.username, "black": game.black.username, "clock": clock,
                "plies": len(game.moves), "status": game.status, "over": game.over,
                "winner": color_name(game.winner) if game.winner is not None else None,
                "you": color_name(you) if you is not None else None}

    def _game(self, game_id: str) -> HostedGame:
        game = self.world.games.get(game_id)
        if game is None:
            raise ApiError(404, "No such game")
        return game

    def _plies_of(self, game_id: str, initial_fen: str, moves: list[str]) -> list[JsonObject]:
        """Each ply's UCI, SAN, FEN after it and checked royal square; extended as the game goes on
        (a game's moves are only ever appended). Under the cache lock."""
        plies = self._plies.setdefault(game_id, [])
        if len(plies) < len(moves):
            board = board_from_fen(plies[-1]["fen"] if plies else initial_fen)
            for uci in moves[len(plies):]:
                move = board.parse_uci(uci)
                san = board.san_and_push(move)
                plies.append({"uci": uci, "san": san, "fen": board.fen(), "check": check_square(board)})
        return plies[:len(moves)]

    def _legal_moves_of(self, game_id: str, ply: int, fen: str, *, work_out: bool) -> list[JsonObject] | None:
        """The legal moves of the position *fen* at *ply*, worked out once per position (every open
        page of the game asks for them); None if they are not yet and *work_out* is false. Under
        the cache lock."""
        cached_ply, moves = self._legal.get(game_id, (-1, []))
        if cached_ply == ply:
            return moves
        if not work_out:
            return None
        moves = legal_moves_json(board_from_fen(fen))
        self._legal[game_id] = (ply, moves)
        return moves


def _answer(challenge: HostedChallenge, answered: bool) -> JsonObject:
    reason = challenge.decline_reason
    status = challenge.status if answered else "unanswered"
    text = {"declined": DECLINE_TEXTS.get(reason or "generic", DECLINE_TEXTS["generic"]),
            "canceled": "The challenge was withdrawn.",
            "unanswered": f"The bot did not answer within {ANSWER_TIMEOUT_S:g} s; is it running?"}.get(status)
    return {"id": challenge.id, "status": status, "gameId": challenge.game_id, "declineReason": reason,
            "message": text}


def _pgn_result(status: str, winner: chess.Color | None) -> str:
    """PGN's result of a game in *status*: "*" while it goes on or when it never really started."""
    if status in ("started", "created", "aborted", "noStart"):
        return "*"
    if winner is not None:
        return "1-0" if winner == chess.WHITE else "0-1"
    return "1/2-1/2"


def _player(account: Account) -> JsonObject:
    return {"name": account.username, "title": account.title, "rating": account.rating}


def check_square(board: chess.Board) -> str | None:
    """The checked royal knight's square, if the side to move is in check."""
    royal = board.king(board.turn)
    return chess.square_name(royal) if royal is not None and board.is_check() else None


def legal_moves_json(board: chess.Board) -> list[JsonObject]:
    moves = []
    for move in board.legal_moves:
        uci = board.uci(move)
        san = board.san_and_push(move)
        moves.append({"uci": uci, "san": san, "fen": board.fen()})
        board.pop()
    return moves
