"""The null move ``0000`` is not a move in a game: not in the bot's game, its search pool or the sandbox's referee.

python-chess parses ``0000`` as :meth:`chess.Move.null`, and pushing it silently hands the turn over.
"""

from __future__ import annotations

import chess
import pytest

from bot.events import GameFull, GameState, Player
from bot.game import Game
from bot.sandbox.model import Account, Challenge, MoveRejected
from bot.sandbox.model import Game as RefereeGame
from bot.search_pool import _position
from variant import KnightmateBoard


def test_the_board_refuses_the_null_move_as_a_game_move() -> None:
    with pytest.raises(chess.IllegalMoveError):
        KnightmateBoard().parse_game_move("0000")
    assert KnightmateBoard().parse_game_move("e2e3") == chess.Move.from_uci("e2e3")


def test_a_null_move_in_the_servers_move_list_is_a_sync_problem_not_our_turn() -> None:
    game = Game("g1", "mybot")
    state = GameState(("0000",), 60_000, 60_000, 0, 0, "started")
    game.apply(GameFull("g1", "knightmate", Player("mybot"), Player("alice"), None, None, None, None, state))
    # As black after a "move" by white it would be our turn; it is not a move, so nothing is played.
    game_as_black = Game("g2", "mybot")
    game_as_black.apply(GameFull("g2", "knightmate", Player("alice"), Player("mybot"), None, None, None, None,
                                 state))
    assert game.sync_problem is not None and not game.my_turn
    assert game_as_black.sync_problem is not None and not game_as_black.my_turn
    assert game.legal_move("0000") is None


def test_the_search_pool_refuses_a_null_move_in_the_moves_it_is_given() -> None:
    with pytest.raises(chess.IllegalMoveError):
        _position(None, ("e2e3", "0000"))


def test_the_sandbox_referee_refuses_the_null_move_as_illegal() -> None:
    white, black = Account("W", "t1", True), Account("B", "t2", True)
    challenge = Challenge("c1", white, black, 60, 0, None, False, "white", "white", "knightmate", None)
    referee = RefereeGame("g1", challenge, white, black, now=100.0)
    with pytest.raises(MoveRejected) as rejected:
        referee.play(chess.WHITE, "0000", now=100.0)
    assert rejected.value.illegal and referee.moves == [] and referee.board.turn == chess.WHITE
