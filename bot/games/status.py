"""What the bot is doing now, for the live status page: the games in progress, the last finished
games and challenges, uptime. Bounded, in memory, thread-safe; fed where the metrics are counted.

The runner and the players call it at the points where they already count into :mod:`bot.metrics`
(a challenge answered, a game's state seen or its move posted, a game over, the games left at
shutdown), each with a frozen snapshot built on the caller's own thread, so that the page's
thread never reads a live :class:`~bot.games.record.Game`. Counts the metrics keep already
(reconnects, errors) are read from them by the page, not kept twice. Nothing here does I/O.
"""

from __future__ import annotations

import collections
import threading
import time
from dataclasses import dataclass
from typing import Any

import chess

from bot import __version__
from bot.games.challenges import Decision
from bot.games.record import Game, Result
from bot.remote.events import Challenge, Player

#: Finished games kept (with their PGNs, a few kilobytes each) and challenges kept: the newest.
FINISHED_KEPT = 20
CHALLENGES_KEPT = 50


@dataclass(frozen=True)
class Evaluation:
    """The bot's latest search in a game: White's view, as the page shows it."""
    ply: int                 # the ply of the move it chose
    cp: int | None           # centipawns, or None with a mate or for a book move
    mate: int | None         # mate in N (negative: White is mated)
    depth: int
    line: str                # the expected line in SAN


@dataclass(frozen=True)
class GameView:
    """One game as the page shows it, taken from the :class:`Game` on the player's thread."""
    id: str
    url: str
    white: str
    black: str
    bot_color: str | None    # "white" or "black"; None before the first gameFull
    rated: bool | None
    time_control: str
    fen: str
    last_move: str | None    # UCI
    turn: str
    white_clock_ms: int | None   # as the server's latest state said
    black_clock_ms: int | None
    clocks_at_s: float           # time.monotonic() of that state (the page is told its age instead)
    evaluation: Evaluation | None
    move_times_ms: tuple[int | None, ...]   # by ply: what the server's clock charged the mover


@dataclass(frozen=True)
class FinishedGame:
    view: GameView
    result: str              # "1-0", "0-1", "1/2-1/2" or "*"
    reason: str
    ended_at: float          # time.time()
    pgn: str | None          # None: the game ended before a single state was seen


@dataclass(frozen=True)
class ChallengeAnswer:
    id: str
    challenger: str
    rating: int | None
    bot: bool
    variant: str
    time_control: str
    rated: bool
    accepted: bool
    reason: str | None       # the decline key the server was sent
    why: str
    at: float                # time.time()


def game_view(game: Game) -> GameView:
    """A snapshot of *game*; called on the thread that owns it."""
    state = game.state
    board = game.board
    return GameView(
        id=game.id, url=f"{game.site.rstrip('/')}/{game.id}" if game.site else game.id,
        white=_name(game.white), black=_name(game.black),
        bot_color=None if game.color is None else chess.COLOR_NAMES[game.color],
        rated=game.rated, time_control=_time_control(game.base_ms, game.increment_ms),
        fen=board.fen(), last_move=board.peek().uci() if board.move_stack else None,
        turn=chess.COLOR_NAMES[board.turn],
        white_clock_ms=state.wtime_ms if state is not None else None,
        black_clock_ms=state.btime_ms if state is not None else None, clocks_at_s=game.state_received,
        evaluation=_evaluation(game), move_times_ms=_move_times_ms(game))


def _name(player: Player | None) -> str:
    if player is None:
        return "?"
    title = f"{player.title} " if player.title else ""
    rating = f" ({player.rating})" if player.rating is not None else ""
    return f"{title}{player.name}{rating}"


def _time_control(base_ms: int | None, increment_ms: int | None) -> str:
    if base_ms is None or increment_ms is None:
        return "?"
    return f"{base_ms / 60000:g}+{increment_ms / 1000:g}"


def _evaluation(game: Game) -> Evaluation | None:
    if not game.searches:
        return None
    note = game.searches[max(game.searches)]
    white = note.score.white() if note.score is not None else None
    return Evaluation(ply=note.ply, cp=white.score() if white is not None else None,
                      mate=white.mate() if white is not None else None, depth=note.depth, line=note.pv_san)


def _move_times_ms(game: Game) -> tuple[int | None, ...]:
    """Each ply's time as the server's clocks charged it: the mover's clock after its previous move,
    plus the increment, less its clock after this one (None where a clock was not told, and for
    each side's first move, which has no clock before it: both servers start the clocks later)."""
    increment_ms = game.increment_ms or 0
    times: list[int | None] = [None] * min(2, game.ply)
    for ply in range(2, game.ply):
        before, after = game.clocks_ms.get(ply - 2), game.clocks_ms.get(ply)
        times.append(None if before is None or after is None else max(0, before + increment_ms - after))
    return tuple(times)


class StatusRecorder:
    """The bot's recent doings, for :mod:`bot.console`. One per runner; every method is thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started_monotonic = time.monotonic()
        self._playing: dict[str, GameView] = {}
        self._finished: collections.deque[FinishedGame] = collections.deque(maxlen=FINISHED_KEPT)
        self._challenges: collections.deque[ChallengeAnswer] = collections.deque(maxlen=CHALLENGES_KEPT)

    def game_seen(self, view: GameView) -> None:
        """A game in progress changed (a state from the server, or the bot's move posted)."""
        with self._lock:
            self._playing[view.id] = view

    def game_over(self, view: GameView, result: Result, pgn: str | None) -> None:
        with self._lock:
            self._playing.pop(view.id, None)
            self._finished.appendleft(FinishedGame(view, result.result, result.reason, time.time(), pgn))

    def games_left(self, game_ids: list[str]) -> None:
        """The bot stopped with these games unfinished (they are resumed at the next start)."""
        with self._lock:
            for game_id in game_ids:
                self._playing.pop(game_id, None)

    def challenge_answered(self, challenge: Challenge, decision: Decision) -> None:
        control = (_time_control(challenge.base_ms, challenge.increment_ms)
                   if challenge.base_ms is not None else challenge.time_control)
        answer = ChallengeAnswer(id=challenge.id, challenger=challenge.challenger, rating=challenge.challenger_rating,
                                 bot=challenge.challenger_is_bot, variant=challenge.variant, time_control=control,
                                 rated=challenge.rated, accepted=decision.accept, reason=decision.reason,
                                 why=decision.why, at=time.time())
        with self._lock:
            self._challenges.appendleft(answer)

    def pgn(self, game_id: str) -> str | None:
        """The PGN of a finished game still kept, or None."""
        with self._lock:
            return next((game.pgn for game in self._finished if game.view.id == game_id), None)

    def snapshot(self) -> dict[str, Any]:
        """Everything, JSON-ready: the newest first, the games in progress by id, each with the age of
        its clocks (``clocks_age_ms``: the side to move has spent that much since, once both have moved)."""
        now = time.monotonic()
        with self._lock:
            playing = [dict(_view_json(view), clocks_age_ms=max(0, int((now - view.clocks_at_s) * 1000)))
                       for _, view in sorted(self._playing.items())]
            finished = [dict(vars(game), view=_view_json(game.view), pgn=game.pgn is not None)
                        for game in self._finished]
            challenges = [dict(vars(answer)) for answer in self._challenges]
        return {"version": __version__, "uptime_s": round(time.monotonic() - self._started_monotonic, 1),
                "playing": playing, "finished": finished, "challenges": challenges}


def _view_json(view: GameView) -> dict[str, Any]:
    """*view* for the page, without the monotonic time of its clocks, which means nothing there.

    The records are copied shallow (``vars``; their fields are immutable), not with
    :func:`dataclasses.asdict`: asdict rebuilds every tuple as ``tuple(generator)``, which is
    over-allocated then shrunk, and each read left such tuples parked in CPython's per-size tuple
    free lists until those were full, some 5 MB (the bot's growth with the page read in the soak)."""
    shown = dict(vars(view), evaluation=None if view.evaluation is None else dict(vars(view.evaluation)))
    del shown["clocks_at_s"]
    return shown
