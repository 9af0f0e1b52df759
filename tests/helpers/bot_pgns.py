"""PGNs written by the bot's own writer (:meth:`bot.games.record.Game.pgn`), for the tests of ``stats``.

A game is fed to a :class:`~bot.games.record.Game` as the Lichess dialect's events would feed it: a
``gameFull`` with both players (the bot rated 1700), then one ``gameState`` per move with the clocks
the server would report, the last one with the end.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.games.clock_reserve import ClockReserve
from bot.games.record import Game
from bot.remote.events import GameFull, GameState, Player

BOT_NAME = "MyBot"
#: Twelve plies of a game no side wins (each side's royal knight and pawns shuffle): enough for clocks.
QUIET_MOVES = ("e2e3", "e7e6", "d2d3", "d7d6", "c2c3", "c7c6", "b2b3", "b7b6", "a2a3", "a7a6", "h2h3", "h7h6")


def bot_pgn(game_id: str, opponent: str, *, rating: int | None, bot_white: bool = True,
            moves: Sequence[str] = QUIET_MOVES, think_ms: Sequence[int] = (), opponent_think_ms: int = 500,
            status: str = "resign", winner: str | None = "white", base_ms: int = 60_000,
            increment_ms: int = 1_000) -> str:
    """The PGN the bot writes for this game. The bot's *think_ms* (one per move of its own, else 1 s)
    and the opponent's fixed think time are charged to the clocks the states report."""
    game = Game(game_id, BOT_NAME.lower(), site="https://lichess.org", move_overhead_ms=300, max_move_time_ms=None,
                abort_after_s=30.0, reserve=ClockReserve())
    me = Player(BOT_NAME, id=BOT_NAME.lower(), title="BOT", rating=1700)
    other = Player(opponent, id=opponent.lower(), rating=rating)
    white, black = (me, other) if bot_white else (other, me)
    game.apply(GameFull(id=game_id, variant="knightmate", white=white, black=black, initial_fen=None,
                        base_ms=base_ms, increment_ms=increment_ms, rated=True,
                        state=GameState((), base_ms, base_ms, increment_ms, increment_ms, "started")))
    clocks = [base_ms, base_ms]          # white's, black's
    own = iter(think_ms)
    for ply in range(len(moves)):
        mover = ply % 2                  # 0: white
        bots_move = (mover == 0) == bot_white
        spent = next(own, 1_000) if bots_move else opponent_think_ms
        clocks[mover] = clocks[mover] - spent + increment_ms
        last = ply == len(moves) - 1
        game.apply(GameState(tuple(moves[:ply + 1]), clocks[0], clocks[1], increment_ms, increment_ms,
                             status if last else "started", winner if last else None))
    return game.pgn(game.result())
