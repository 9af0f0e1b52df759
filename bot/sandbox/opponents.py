"""In-process opponents: accounts the sandbox plays itself, one thread per game.

A strategy picks a move for a position: ``random`` (any legal move), ``engine`` (our engine with a
short move time; the random mover stands in while the engine cannot be imported or fails) or
``idle`` (never moves, for testing aborts and flags) or ``gone`` (never moves, and the world treats
its player as having left the game). An :class:`OpponentPlayer` waits for its turn
on the world's condition and plays through the same referee as posted moves. Opponents never
touch HTTP and never search while holding the world's lock.
"""

from __future__ import annotations

import logging
import random
import threading
from typing import TYPE_CHECKING

import chess

from bot.sandbox.model import Account, Game
from variant import KnightmateBoard

if TYPE_CHECKING:
    from bot.sandbox.world import World

logger = logging.getLogger(__name__)

STRATEGIES = ("random", "engine", "idle", "gone")


class Strategy:
    """Chooses a move; None means "do not move"."""

    def choose(self, board: KnightmateBoard) -> chess.Move | None:
        raise NotImplementedError


class RandomMover(Strategy):
    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, board: KnightmateBoard) -> chess.Move | None:
        moves = list(board.legal_moves)
        return self._rng.choice(moves) if moves else None


class Idle(Strategy):
    def choose(self, board: KnightmateBoard) -> chess.Move | None:
        return None


class EngineMover(Strategy):
    """Our engine (``bot.engine``), imported lazily: while it does not exist or if it fails, the
    random mover plays instead, so the sandbox works at every stage of the project."""

    def __init__(self, movetime_ms: int, rng: random.Random) -> None:
        self._movetime_ms = movetime_ms
        self._fallback = RandomMover(rng)
        self._engine: object | None = None
        self._broken = False

    def choose(self, board: KnightmateBoard) -> chess.Move | None:
        if not self._broken:
            try:
                return self._search(board)
            except Exception:  # the engine is someone else's work in progress: never let it stop a game
                logger.warning("engine opponent failed; playing random moves instead", exc_info=True)
                self._broken = True
        return self._fallback.choose(board)

    def _search(self, board: KnightmateBoard) -> chess.Move | None:
        from bot.engine import Engine, Limits  # type: ignore[attr-defined,unused-ignore]

        if self._engine is None:
            self._engine = Engine(hash_mb=16)
        move: chess.Move | None = self._engine.search(  # type: ignore[attr-defined]
            board.copy(), Limits(movetime_ms=self._movetime_ms)).move
        if move is not None and move not in board.legal_moves:
            raise ValueError(f"engine chose an illegal move {move}")
        return move


def make_strategy(name: str, *, movetime_ms: int, rng: random.Random) -> Strategy:
    if name == "random":
        return RandomMover(rng)
    if name == "engine":
        return EngineMover(movetime_ms, rng)
    if name in ("idle", "gone"):
        return Idle()
    raise ValueError(f"unknown opponent strategy {name!r} (one of {', '.join(STRATEGIES)})")


class OpponentPlayer:
    """Plays one game for an in-process account until the game ends or the world stops."""

    def __init__(self, world: World, game: Game, account: Account, strategy: Strategy,
                 delay_s: float = 0.0) -> None:
        self._world = world
        self._game = game
        self._account = account
        self._strategy = strategy
        self._delay_s = delay_s
        self.thread = threading.Thread(target=self._run, name=f"sandbox-opponent-{game.id}", daemon=True)

    def _run(self) -> None:
        color = self._game.color_of(self._account)
        assert color is not None
        cond = self._world.cond
        while True:
            with cond:
                cond.wait_for(lambda: self._world.stopping or self._game.over or self._game.board.turn == color)
                if self._world.stopping or self._game.over:
                    return
                board = self._game.board.copy()
                ply = len(self._game.moves)
            move = self._strategy.choose(board)
            with cond:
                if move is None:
                    self._wait_past(ply)
                    continue
                if self._delay_s and cond.wait_for(lambda: self._world.stopping or self._game.over,
                                                   timeout=self._delay_s):
                    return
                self._world.play_opponent_move(self._account, self._game, ply, move)

    def _wait_past(self, ply: int) -> None:
        """Idles until the game ends or moves past *ply* (which it cannot on our turn)."""
        self._world.cond.wait_for(
            lambda: self._world.stopping or self._game.over or len(self._game.moves) != ply)
