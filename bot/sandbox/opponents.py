"""In-process opponents: accounts the sandbox plays itself, one thread per game.

A strategy picks a move for a position: ``random`` (any legal move), ``engine`` (our engine with a
short move time; the random mover stands in once the engine chose a move the referee refuses),
``level1`` to ``level8`` (our engine at that level of :data:`bot.engine.levels.LEVELS`, or the
operator's UCI engine with that ``UCI_Elo``: "the computer" a person plays on the page, as
Lichess's ``/api/challenge/ai`` has it) or
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
import chess.engine

from bot.analysis import AnalysisEngineError, EngineCommand, close_engine
from bot.engine import Engine, Limits
from bot.engine.external import engine_board_of
from bot.engine.levels import LEVELS, Level
from bot.sandbox.hosted import Account, HostedGame
from variant import KnightmateBoard

if TYPE_CHECKING:
    from bot.sandbox.world import World

logger = logging.getLogger(__name__)

#: The longest a level opponent thinks; the levels' own depth and node limits make the low ones
#: answer in milliseconds. An external engine thinks its level's share of it (level 1 an eighth):
#: Stockfish's weakened levels use the whole time they are given.
LEVEL_MOVETIME_MS = 1000
LEVEL_STRATEGIES = tuple(f"level{level.number}" for level in LEVELS)
STRATEGIES = ("random", "engine", "idle", "gone", *LEVEL_STRATEGIES)


class Strategy:
    """Chooses a move; None means "do not move"."""

    def choose(self, board: KnightmateBoard) -> chess.Move | None:
        raise NotImplementedError

    def close(self) -> None:
        """Lets go of what the strategy holds (an engine process) once its game is over."""


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
    """Our engine (:class:`bot.engine.Engine`) with a short move time. Should it choose a move the
    referee would refuse, the random mover plays the rest of the game: the game goes on, and the
    log says why."""

    def __init__(self, movetime_ms: int, rng: random.Random) -> None:
        self._movetime_ms = movetime_ms
        self._fallback = RandomMover(rng)
        self._engine: Engine | None = None
        self._failed = False

    def choose(self, board: KnightmateBoard) -> chess.Move | None:
        if not self._failed:
            try:
                return self._search(board)
            except chess.IllegalMoveError:
                logger.warning("engine opponent failed; playing random moves instead", exc_info=True)
                self._failed = True
        return self._fallback.choose(board)

    def _search(self, board: KnightmateBoard) -> chess.Move | None:
        """The engine's move.

        :raises: :exc:`chess.IllegalMoveError` for a move that is not legal in *board*.
        """
        if self._engine is None:
            self._engine = Engine(hash_mb=16)
        move = self._engine.search(board.copy(), Limits(movetime_ms=self._movetime_ms)).move
        if move is not None and move not in board.legal_moves:
            raise chess.IllegalMoveError(f"engine chose an illegal move {move}")
        return move


class LevelMover(Strategy):
    """The computer at one of the named levels: our engine (``Engine(elo=...)``, its own hash table
    per game) or, when the config names one, the external UCI engine *external* with
    ``UCI_LimitStrength`` and the level's ``UCI_Elo`` (clamped to the range the engine offers).

    An external engine that cannot be started, has no ``UCI_Elo``, or fails during the game is
    logged and our engine plays on: a person's game never stops for it.
    """

    def __init__(self, level: Level, external: EngineCommand | None = None) -> None:
        self._level = level
        self._external = external
        self._uci: chess.engine.SimpleEngine | None = None
        self._builtin: Engine | None = None

    def choose(self, board: KnightmateBoard) -> chess.Move | None:
        if self._external is not None and self._uci is None:
            self._uci = self._open_external(self._external)
        if self._uci is not None:
            try:
                return self._play_external(self._uci, board)
            except (chess.engine.EngineError, TimeoutError, ValueError):
                logger.warning("the level %d engine failed; the built-in engine plays on", self._level.number,
                               exc_info=True)
                self.close()
        return self._play_builtin(board)

    def close(self) -> None:
        uci, self._uci, self._external = self._uci, None, None
        if uci is not None:
            close_engine(uci)

    def _open_external(self, external: EngineCommand) -> chess.engine.SimpleEngine | None:
        try:
            engine = external.at_full_strength().open()
        except AnalysisEngineError as error:
            logger.warning("the level %d engine did not start (%s); the built-in engine plays", self._level.number,
                           error)
            self._external = None
            return None
        try:
            engine.configure(strength_options(engine, self._level.elo))
        except (chess.engine.EngineError, ValueError) as error:
            logger.warning("the level %d engine cannot be weakened (%s); the built-in engine plays",
                           self._level.number, error)
            close_engine(engine)
            self._external = None
            return None
        return engine

    def _play_external(self, engine: chess.engine.SimpleEngine, board: KnightmateBoard) -> chess.Move | None:
        movetime_s = LEVEL_MOVETIME_MS * self._level.number / LEVELS[-1].number / 1000
        move = engine.play(engine_board_of(board), chess.engine.Limit(time=movetime_s)).move
        if move is not None and move not in board.legal_moves:
            raise ValueError(f"the engine chose an illegal move {move}")
        return move

    def _play_builtin(self, board: KnightmateBoard) -> chess.Move | None:
        if self._builtin is None:
            self._builtin = Engine(hash_mb=8, elo=self._level.elo)
        move: chess.Move | None = self._builtin.search(board.copy(), Limits(movetime_ms=LEVEL_MOVETIME_MS)).move
        return move


def strength_options(engine: chess.engine.SimpleEngine, elo: int) -> dict[str, chess.engine.ConfigValue]:
    """``UCI_LimitStrength`` and ``UCI_Elo`` for *elo*, clamped to the engine's range (Debian's
    Fairy-Stockfish starts at 1350, above our lowest levels).

    :raises: :exc:`ValueError` for an engine without those options.
    """
    missing = [name for name in ("UCI_LimitStrength", "UCI_Elo") if name not in engine.options]
    if missing:
        raise ValueError(f"it has no {' or '.join(missing)} option")
    option = engine.options["UCI_Elo"]
    low = option.min if option.min is not None else elo
    high = option.max if option.max is not None else elo
    return {"UCI_LimitStrength": True, "UCI_Elo": min(max(elo, low), high)}


def make_strategy(name: str, *, movetime_ms: int, rng: random.Random,
                  level_engine: EngineCommand | None = None) -> Strategy:
    """The strategy *name*; the levels play *level_engine* when given (see :class:`LevelMover`)."""
    if name in LEVEL_STRATEGIES:
        return LevelMover(LEVELS[LEVEL_STRATEGIES.index(name)], level_engine)
    if name == "random":
        return RandomMover(rng)
    if name == "engine":
        return EngineMover(movetime_ms, rng)
    if name in ("idle", "gone"):
        return Idle()
    raise ValueError(f"unknown opponent strategy {name!r} (one of {', '.join(STRATEGIES)})")


class OpponentPlayer:
    """Plays one game for an in-process account until the game ends or the world stops."""

    def __init__(self, world: World, game: HostedGame, account: Account, strategy: Strategy,
                 delay_s: float = 0.0) -> None:
        self._world = world
        self._game = game
        self._account = account
        self._strategy = strategy
        self._delay_s = delay_s
        self.thread = threading.Thread(target=self._run, name=f"sandbox-opponent-{game.id}", daemon=True)

    def _run(self) -> None:
        try:
            self._play()
        finally:
            self._strategy.close()

    def _play(self) -> None:
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
