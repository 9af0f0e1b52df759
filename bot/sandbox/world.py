"""The sandbox server's actions: what each API call does to the hosted records, in either dialect.

:class:`World` owns the accounts, challenges, games and open streams under one lock, performs
every action a client or the control API asks for, and sends the resulting lines to the right
streams, shaped by the dialect. A referee thread ends games whose clock falls or that never
start. HTTP is not spoken here: actions return plain JSON objects or raise :class:`ApiError`,
and the HTTP layer writes them. No action ever blocks on a socket while holding the lock.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import chess

from bot.sandbox.chunked import ndjson
from bot.sandbox.hosted import (
    Account,
    HostedChallenge,
    HostedChatLine,
    HostedGame,
    MovePost,
    MoveRejected,
    board_from_fen,
    color_name,
    decline_reason_key,
    new_id,
)
from bot.sandbox.imitations import JsonObject, ServerImitation
from bot.sandbox.streams import Feed, Stream

logger = logging.getLogger(__name__)

OK: JsonObject = {"ok": True}

#: What pychess sends on its event streams when the server shuts down.
TERMINATED = ndjson({"type": "terminated"})


class ApiError(Exception):
    """An error answer: HTTP *status* with ``{"error": message}`` (or an HTML page if *html*)."""

    def __init__(self, status: int, message: str, *, html: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.html = html


class Conflict(Exception):
    """pychess's answer to a game stream it will not open: a 200 whose body is a raw 409."""


class World:
    """Accounts, challenges, games and streams, and every action on them."""

    def __init__(self, dialect: ServerImitation, *, keepalive_s: float, first_move_timeout_s: float,
                 gone_claim_s: float, start_opponent: Callable[[World, HostedGame, Account], None],
                 rng: random.Random) -> None:
        self.dialect = dialect
        self.keepalive_s = keepalive_s
        self.first_move_timeout_s = first_move_timeout_s
        self.gone_claim_s = gone_claim_s
        self.cond = threading.Condition(threading.RLock())
        self.accounts: dict[str, Account] = {}
        self.challenges: dict[str, HostedChallenge] = {}
        self.games: dict[str, HostedGame] = {}
        self.streams: list[Stream] = []
        self.connects: Counter[tuple[str, str, str | None]] = Counter()
        self.garbage_due: Callable[[Stream], bool] = lambda stream: False
        #: Whether a game stream asked for now is refused as if another one still counted open (a fault).
        self.game_stream_refused: Callable[[str], bool] = lambda game_id: False
        #: Whether this event for this account is lost on its way, as a lingering pychess handler loses it (a fault).
        self.event_lost: Callable[[Account, JsonObject], bool] = lambda account, event: False
        self.stopping = False
        # The wall clock less the monotonic one, taken once: a game's monotonic stamps turn into the
        # same wall-clock times at every reading (a difference sampled per reading jitters by a ms).
        self._wall_offset_s = time.time() - time.monotonic()
        self._tokens: dict[str, str] = {}
        self._event_feeds: dict[str, Feed] = {}
        self._start_opponent = start_opponent
        self._rng = rng
        self._referee = threading.Thread(target=self._referee_loop, name="sandbox-referee", daemon=True)

    def wall_time_s(self, monotonic_s: float) -> float:
        """The wall-clock time (seconds since the epoch) of a ``time.monotonic()`` stamp."""
        return monotonic_s + self._wall_offset_s

    def start(self) -> None:
        self._referee.start()

    def stop(self) -> None:
        """Stops the referee and ends every open stream now (pychess event streams say so)."""
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
            streams = list(self.streams)
        for stream in streams:
            terminated = stream.kind == "event" and self.dialect.says_terminated
            stream.halt(TERMINATED if terminated else None)
        if self._referee.is_alive():
            self._referee.join()

    # Accounts.

    def add_account(self, account: Account) -> None:
        with self.cond:
            if account.id in self.accounts:
                raise ValueError(f"account {account.username!r} exists already")
            if account.token is not None:
                if account.token in self._tokens:
                    raise ValueError("that token belongs to another account")
                self._tokens[account.token] = account.id
            self.accounts[account.id] = account

    def account(self, name: str) -> Account:
        try:
            return self.accounts[name.lower()]
        except KeyError:
            raise ValueError(f"no account named {name!r}") from None

    def authenticate(self, token: str | None) -> Account:
        with self.cond:
            account_id = self._tokens.get(token or "")
            if account_id is None:
                raise ApiError(401, "No such token")
            return self.accounts[account_id]

    def account_json(self, account: Account) -> JsonObject:
        return self.dialect.account(account)

    def upgrade(self, account: Account) -> JsonObject:
        with self.cond:
            if account.bot:
                raise ApiError(400, "This account is already a bot account")
            if account.has_played:
                raise ApiError(400, "This account has played games and cannot become a bot account")
            account.bot = True
            return OK

    # Challenges.

    def create_challenge(self, challenger: Account, dest: Account, *, limit_s: int | None, increment_s: int,
                         days: int | None, rated: bool, color: str, variant: str, initial_fen: str | None,
                         level: int = 0, rematch: bool = False) -> HostedChallenge:
        """Creates a challenge and tells both sides; an in-process opponent answers it at once.
        A *rematch* starts its game at once with a ``gameStart`` and no ``challenge`` line, as
        pychess does.

        :raises: :exc:`ValueError` for a bad colour, time control or FEN, or a self-challenge.
        """
        if color not in ("white", "black", "random"):
            raise ValueError(f"color must be white, black or random, not {color!r}")
        if challenger.id == dest.id:
            raise ValueError("an account cannot challenge itself")
        if limit_s is not None and (limit_s < 0 or increment_s < 0 or limit_s + increment_s == 0):
            raise ValueError("the clock needs a positive limit or increment")
        board_from_fen(initial_fen)
        final = color if color != "random" else self._rng.choice(("white", "black"))
        challenge = HostedChallenge(new_id(), challenger, dest, limit_s, increment_s, days, rated, color, final,
                              variant, initial_fen, level)
        with self.cond:
            self.challenges[challenge.id] = challenge
            if rematch:
                self._start_game(challenge)
                return challenge
            event = self.dialect.challenge_event("challenge", challenge)
            self._send_event(dest, event)
            if self.dialect.lichess_extras:
                self._send_event(challenger, event)
            if dest.strategy is not None:
                self._opponent_answers(challenge)
            self.cond.notify_all()
        logger.info("challenge %s: %s -> %s", challenge.id, challenger.username, dest.username)
        return challenge

    def create_challenge_json(self, challenger: Account, username: str, form: dict[str, str]) -> JsonObject:
        """POST /api/challenge/{username} (Lichess; pychess answers 403 to bots)."""
        if not self.dialect.lichess_extras:
            raise ApiError(403, "Bots cannot create challenges")
        with self.cond:
            dest = self.accounts.get(username.lower())
            if dest is None:
                raise ApiError(404, f"No such user: {username}")
            try:
                limit = _optional_int(form, "clock.limit")
                challenge = self.create_challenge(
                    challenger, dest, limit_s=limit, increment_s=_optional_int(form, "clock.increment") or 0,
                    days=_optional_int(form, "days"), rated=form.get("rated", "false") == "true",
                    color=form.get("color", "random"), variant=form.get("variant", "standard"),
                    initial_fen=form.get("fen") or None)
            except ValueError as error:
                raise ApiError(400, str(error)) from None
            return dict(self.dialect.challenge(challenge), direction="out")

    def accept(self, account: Account, challenge_id: str) -> JsonObject:
        with self.cond:
            challenge = self._open_challenge(challenge_id, dest=account)
            self._start_game(challenge)
            return OK

    def decline(self, account: Account, challenge_id: str, reason: str | None, *, json_body: bool) -> JsonObject:
        """Declines with *reason*; pychess reads only form data, so a JSON reason becomes generic."""
        with self.cond:
            challenge = self._open_challenge(challenge_id, dest=account)
            if json_body and not self.dialect.reads_json_bodies:
                reason = None
            self._decline(challenge, decline_reason_key(reason))
            return OK

    def cancel(self, account: Account | None, challenge_id: str) -> JsonObject:
        """Cancels a challenge, by its challenger (or by the control API when *account* is None)."""
        with self.cond:
            challenge = self.challenges.get(challenge_id)
            if challenge is None or challenge.status != "created" or (
                    account is not None and account.id != challenge.challenger.id):
                raise ApiError(404, "No such challenge")
            challenge.status = "canceled"
            self._send_event(challenge.dest, self.dialect.challenge_event("challengeCanceled", challenge))
            self.cond.notify_all()
            return OK

    def _open_challenge(self, challenge_id: str, *, dest: Account) -> HostedChallenge:
        challenge = self.challenges.get(challenge_id)
        if challenge is None or challenge.dest.id != dest.id or challenge.status != "created":
            raise ApiError(404, "No such challenge")
        return challenge

    def _decline(self, challenge: HostedChallenge, reason: str) -> None:
        challenge.status = "declined"
        challenge.decline_reason = reason
        self._send_event(challenge.challenger, self.dialect.challenge_event("challengeDeclined", challenge))
        self.cond.notify_all()
        logger.info("challenge %s declined: %s", challenge.id, reason)

    def _opponent_answers(self, challenge: HostedChallenge) -> None:
        if challenge.variant != "knightmate":
            self._decline(challenge, "variant")
        elif not challenge.dest.accepts_challenges:
            self._decline(challenge, "generic")
        else:
            self._start_game(challenge)

    def _start_game(self, challenge: HostedChallenge) -> None:
        challenger, dest = challenge.challenger, challenge.dest
        white, black = (challenger, dest) if challenge.final_color == "white" else (dest, challenger)
        # Both servers give the game its challenge's id (pychess creates it under the id the accept names).
        game = HostedGame(challenge.id, challenge, white, black, time.monotonic())
        challenge.status = "accepted"
        challenge.game_id = game.id
        self.games[game.id] = game
        for player in (white, black):
            player.has_played = True
            self._send_event(player, self.dialect.game_start(game, player))
        for player in (white, black):
            if player.strategy == "gone":
                game.gone = game.color_of(player)
            if player.strategy is not None:
                self._start_opponent(self, game, player)
        self.cond.notify_all()
        logger.info("game %s started: %s - %s", game.id, white.username, black.username)

    # Streams.

    def open_event_stream(self, account: Account, headers: dict[str, str]) -> tuple[Stream, list[bytes]]:
        """Registers a new event stream and gives the lines it starts with (reconnect rules)."""
        with self.cond:
            if self.stopping:
                raise ApiError(503, "The server is shutting down")
            required = self.dialect.required_stream_header
            if required is not None and not headers.get(required.lower()):
                raise ApiError(400, f"the {required} header is required")
            if self.dialect.shared_event_queue:
                feed = self._event_feeds.setdefault(account.id, Feed())
            else:
                feed = Feed()
                for old in self._streams_of("event", account):
                    old.close()  # one event stream per token
            stream = self._register(Stream("event", account.id, None, feed, **self._stream_options()))
            unfinished = [game for game in self.games.values()
                          if not game.over and game.color_of(account) is not None]
            full_replay = self.dialect.full_replay_at_connect
            if not full_replay:
                unfinished = [game for game in unfinished
                              if game.moves and not self._streams_of("game", account, game.id)]
            first = [ndjson(self.dialect.game_start(game, account)) for game in unfinished]
            if full_replay:
                first += [ndjson(self.dialect.challenge_event("challenge", challenge))
                          for challenge in self.challenges.values()
                          if challenge.status == "created" and challenge.dest.id == account.id]
            return stream, first

    def open_game_stream(self, account: Account, game_id: str) -> tuple[Stream, list[bytes]]:
        """Registers a game stream; its first line is ``gameFull``.

        :raises: :exc:`Conflict` where pychess answers with a raw 409 in the body, and
            :exc:`ApiError` (404) for a game that does not exist or is not the account's.
        """
        with self.cond:
            if self.stopping:
                raise ApiError(503, "The server is shutting down")
            game = self._my_game(account, game_id)[0]
            if self.dialect.exclusive_game_streams:
                if game.over and len(game.moves) < 2:
                    raise ApiError(404, "<html><body><h1>404: Not Found</h1></body></html>", html=True)
                if game.over or self._streams_of("game", account, game.id) or self.game_stream_refused(game.id):
                    raise Conflict(game.id)
            stream = self._register(Stream("game", account.id, game.id, Feed(), **self._stream_options()))
            now = time.monotonic()
            first = [ndjson(self.dialect.game_full(game, now))]
            if self.dialect.lichess_extras and not game.over and game.gone == (not game.color_of(account)):
                first.append(ndjson(self._opponent_gone(game, now)))
            if game.over and self.dialect.game_stream_closes:
                stream.close()
            return stream, first

    def unregister(self, stream: Stream) -> None:
        with self.cond:
            if stream in self.streams:
                self.streams.remove(stream)
            self.cond.notify_all()

    def _register(self, stream: Stream) -> Stream:
        self.streams.append(stream)
        self.connects[(stream.kind, stream.username, stream.game_id)] += 1
        self.cond.notify_all()
        return stream

    def _stream_options(self) -> dict[str, Any]:
        return {"keepalive": self.dialect.keepalive, "keepalive_s": self.keepalive_s,
                "ping_at_connect": self.dialect.ping_at_connect, "lingers": self.dialect.streams_linger,
                "garbage_due": self.garbage_due}

    def _streams_of(self, kind: str, account: Account | None = None, game_id: str | None = None) -> list[Stream]:
        return [stream for stream in self.streams
                if stream.kind == kind and (account is None or stream.username == account.id)
                and (game_id is None or stream.game_id == game_id)]

    def _send_event(self, account: Account, obj: JsonObject) -> None:
        if account.strategy is not None:
            return  # in-process opponents read the world directly
        if self.event_lost(account, obj):
            return
        line = ndjson(obj)
        if self.dialect.shared_event_queue:
            self._event_feeds.setdefault(account.id, Feed()).put(line)
        else:
            for stream in self._streams_of("event", account):
                stream.feed.put(line)

    def _send_game(self, game: HostedGame, obj: JsonObject, *, skip: Account | None = None) -> None:
        line = ndjson(obj)
        for stream in self._streams_of("game", game_id=game.id):
            if skip is None or stream.username != skip.id:
                stream.feed.put(line)

    # Games.

    def move(self, account: Account, game_id: str, uci: str, *, received_at: float,
             offering_draw: bool = False) -> JsonObject:
        """Plays a move posted by *account*, timed *received_at* (``time.monotonic()`` when its
        request arrived, so the time the handler waited for the world's lock is not the bot's);
        Lichess refuses a bad move with 400, pychess answers 200 and an illegal move loses at once."""
        with self.cond:
            game, color = self._my_game(account, game_id, bot_only=True)
            was_over = game.over
            try:
                game.play(color, uci, received_at)
            except MoveRejected as rejection:
                self._record_post(game, MovePost(account.username, uci, False))
                if rejection.illegal and self.dialect.illegal_move_loses:
                    game.finish("illegalMove", not color)
                if game.over and not was_over:
                    self._game_ended(game)
                if self.dialect.illegal_move_loses:
                    return OK
                raise ApiError(400, f"Not your turn, or game already over: {rejection.reason}") from None
            self._record_post(game, MovePost(account.username, uci, True))
            if offering_draw and self.dialect.lichess_extras and not game.over:
                game.draw_offer = color
            self.after_move(game)
            return OK

    def human_move(self, account: Account, game_id: str, uci: str, *, received_at: float) -> None:
        """Plays a person's move (the human seat), timed as :meth:`move` times one: refused with a
        400 in either dialect when it is illegal or out of turn, so a person's misclick never loses
        a game. Not a post."""
        with self.cond:
            game, color = self._my_game(account, game_id)
            was_over = game.over
            try:
                game.play(color, uci, received_at)
            except MoveRejected as rejection:
                if game.over and not was_over:
                    self._game_ended(game)
                raise ApiError(400, rejection.reason) from None
            self.after_move(game)

    def play_opponent_move(self, account: Account, game: HostedGame, ply: int, move: chess.Move) -> None:
        """Plays an in-process opponent's move, if the game is still where it was at ply *ply*."""
        with self.cond:
            color = game.color_of(account)
            if game.over or len(game.moves) != ply or color is None:
                return
            try:
                game.play(color, game.board.uci(move), time.monotonic())
            except MoveRejected as rejection:
                logger.warning("opponent %s move refused: %s", account.username, rejection.reason)
                if game.over:
                    self._game_ended(game)
                return
            self.after_move(game)

    def after_move(self, game: HostedGame) -> None:
        if game.over:
            self._game_ended(game)
        else:
            self._send_game(game, self.dialect.game_state(game, time.monotonic()))
            self.cond.notify_all()

    def _record_post(self, game: HostedGame, post: MovePost) -> None:
        mine = [earlier for earlier in game.posts if earlier.username == post.username and earlier.accepted]
        if not post.accepted and mine and mine[-1].uci == post.uci:
            game.duplicate_posts.append(post)
        game.posts.append(post)

    def abort(self, account: Account, game_id: str, *, bot_only: bool = True) -> JsonObject:
        with self.cond:
            game = self._my_game(account, game_id, bot_only=bot_only)[0]
            if game.over:
                return self._too_late(game)
            if not self.dialect.abort_any_time and len(game.moves) >= 2:
                raise ApiError(400, "This game can no longer be aborted")
            game.finish("aborted", None)
            self._game_ended(game)
            return OK

    def resign(self, account: Account, game_id: str, *, bot_only: bool = True) -> JsonObject:
        """Resigns; pychess changes the state but sends the resigner no ``gameEnd``."""
        with self.cond:
            game, color = self._my_game(account, game_id, bot_only=bot_only)
            if game.over:
                return self._too_late(game)
            game.finish("resign", not color)
            self._game_ended(game, skip=None if self.dialect.resignation_ends_stream else account)
            return OK

    def abandon(self, account: Account, game_id: str) -> None:
        """*account* leaves the game for good and loses it: Lichess's ``timeout`` (a player left),
        pychess's ABANDONE. Only the control API does this; no request can."""
        with self.cond:
            game, color = self._my_game(account, game_id)
            if game.over:
                raise ValueError(f"game {game_id} is already over")
            game.finish("timeout", not color)
            self._game_ended(game)

    def round_board(self, game_id: str) -> tuple[JsonObject, JsonObject] | None:
        """The greeting and ``board`` messages of the game's round socket, or None where there is no
        such socket (Lichess, or no such game)."""
        with self.cond:
            game = self.games.get(game_id)
            return None if game is None else self.dialect.round_socket(game, time.monotonic())

    def chat(self, account: Account, game_id: str, room: str | None, text: str | None, *,
             bot_only: bool = True) -> JsonObject:
        """Posts a chat line: recorded always, sent to the players' game streams on Lichess only."""
        with self.cond:
            game = self._my_game(account, game_id, bot_only=bot_only)[0]
            if game.status == "aborted" and self.dialect.aborted_games_vanish:
                raise ApiError(404, "No such game")
            if room not in ("player", "spectator"):
                raise ApiError(400, "room must be player or spectator")
            if not text:
                raise ApiError(400, "text is required")
            game.chat.append(HostedChatLine(account.username, room, text))
            if self.dialect.chat_reaches_bots:
                self._send_game(game, {"type": "chatLine", "room": room, "username": account.username,
                                       "text": text})
            self.cond.notify_all()
            return OK

    def draw(self, account: Account, game_id: str, accept: bool, *, bot_only: bool = True) -> JsonObject:
        """Offers or accepts a draw (yes), or declines the opponent's offer (no). Lichess only."""
        with self.cond:
            game, color = self._lichess_game(account, game_id, bot_only=bot_only)
            if game.over:
                return self._too_late(game)
            if accept and game.draw_offer == (not color):
                game.finish("draw", None)
            elif accept:
                game.draw_offer = color
            elif game.draw_offer == (not color):
                game.draw_offer = None
            self.after_move(game)
            return OK

    def takeback(self, account: Account, game_id: str) -> JsonObject:
        """Takebacks are never offered in the sandbox: both answers are accepted and change nothing."""
        with self.cond:
            self._lichess_game(account, game_id)
            return OK

    def claim(self, account: Account, game_id: str, victory: bool) -> JsonObject:
        """claim-victory / claim-draw, allowed once the opponent has been gone ``gone_claim_s``."""
        with self.cond:
            game, color = self._lichess_game(account, game_id)
            if game.over:
                return self._too_late(game)
            if game.gone != (not color) or time.monotonic() < game.gone_since + self.gone_claim_s:
                raise ApiError(400, "The opponent has not left the game long enough")
            if victory:
                game.finish("timeout", color)
            else:
                game.finish("draw", None)
            self._game_ended(game)
            return OK

    def _opponent_gone(self, game: HostedGame, now: float) -> JsonObject:
        claim_in = max(0, math.ceil(game.gone_since + self.gone_claim_s - now))
        return {"type": "opponentGone", "gone": True, "claimWinInSeconds": claim_in}

    def _too_late(self, game: HostedGame) -> JsonObject:
        if self.dialect.late_actions_ok:
            return OK
        raise ApiError(400, "The game is already over")

    def _lichess_game(self, account: Account, game_id: str, *, bot_only: bool = True) -> tuple[HostedGame, chess.Color]:
        if not self.dialect.lichess_extras:
            raise ApiError(404, "Not found", html=True)
        return self._my_game(account, game_id, bot_only=bot_only)

    def _my_game(self, account: Account, game_id: str, *, bot_only: bool = False) -> tuple[HostedGame, chess.Color]:
        if bot_only and not account.bot:
            raise ApiError(400, "This endpoint can only be used with a Bot account")
        game = self.games.get(game_id)
        color = game.color_of(account) if game is not None else None
        if game is None or color is None:
            raise ApiError(404, "No such game")
        return game, color

    def _game_ended(self, game: HostedGame, *, skip: Account | None = None) -> None:
        """Tells the streams: Lichess the final state, then the end of the stream and a ``gameFinish``
        event; pychess a bare ``gameEnd`` (to everyone but *skip*) on streams that stay open."""
        end = self.dialect.game_end(game)
        if end is None:
            final = ndjson(self.dialect.game_state(game, time.monotonic()))
            for stream in self._streams_of("game", game_id=game.id):
                stream.close(final)
        else:
            self._send_game(game, end, skip=skip)
        for player in (game.white, game.black):
            finish = self.dialect.game_finish(game, player)
            if finish is not None:
                self._send_event(player, finish)
        self.cond.notify_all()
        winner = color_name(game.winner) if game.winner is not None else "none"
        logger.info("game %s over: %s, winner %s", game.id, game.status, winner)

    # The referee: clocks and games that never start.

    def _referee_loop(self) -> None:
        with self.cond:
            while not self.stopping:
                now = time.monotonic()
                due = {game: when for game in list(self.games.values()) if (when := self._due(game)) is not None}
                expired = [game for game, when in due.items() if when <= now]
                for game in expired:
                    self._time_out(game)
                if not expired:
                    self.cond.wait(min(due.values()) - now if due else None)

    def _due(self, game: HostedGame) -> float | None:
        if game.over:
            return None
        due = game.turn_started + self.first_move_timeout_s if len(game.moves) < 2 else game.flag_time()
        if self._claim_to_announce(game):
            claimable = game.gone_since + self.gone_claim_s
            due = claimable if due is None else min(due, claimable)
        return due

    def _claim_to_announce(self, game: HostedGame) -> bool:
        return game.gone is not None and not game.gone_claimable_told and self.dialect.lichess_extras

    def _time_out(self, game: HostedGame) -> None:
        now = time.monotonic()
        if self._claim_to_announce(game) and now >= game.gone_since + self.gone_claim_s:
            game.gone_claimable_told = True
            self._send_game(game, self._opponent_gone(game, now))
            self.cond.notify_all()
            return
        if len(game.moves) < 2:
            game.finish("noStart", None)
        else:
            game.flag()
        self._game_ended(game)


def _optional_int(form: dict[str, str], key: str) -> int | None:
    text = form.get(key)
    if text is None or text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{key} must be an integer, not {text!r}") from None
