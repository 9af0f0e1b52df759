"""The null move ``0000`` is not a move in a game: not in the bot's game, its search pool, its external
engines, ``knightmate-bot uci`` or the sandbox's referee; and a move list is replayed in one place,
:meth:`KnightmateBoard.replay`, whose error names the move.

python-chess parses ``0000`` as :meth:`chess.Move.null`, and pushing it silently hands the turn over.
"""

from __future__ import annotations

import chess
import pytest

from bot.engine.external import engine_board
from bot.engine.uci import UciSession
from bot.remote.events import GameFull, GameState, Player
from bot.sandbox.hosted import Account, HostedChallenge, MoveRejected
from bot.sandbox.hosted import HostedGame as RefereeGame
from bot.thinking.search_pool import _position
from tests.helpers.games_harness import new_game
from variant import STARTING_FEN, GameMoveError, KnightmateBoard

PROMOTION_FEN = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"


def test_the_board_refuses_the_null_move_as_a_game_move() -> None:
    with pytest.raises(chess.IllegalMoveError):
        KnightmateBoard().parse_game_move("0000")
    assert KnightmateBoard().parse_game_move("e2e3") == chess.Move.from_uci("e2e3")


def test_a_null_move_in_the_servers_move_list_is_a_sync_problem_not_our_turn() -> None:
    game = new_game("g1")
    state = GameState(("0000",), 60_000, 60_000, 0, 0, "started")
    game.apply(GameFull("g1", "knightmate", Player("mybot"), Player("alice"), None, None, None, None, state))
    # As black after a "move" by white it would be our turn; it is not a move, so nothing is played.
    game_as_black = new_game("g2")
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
    challenge = HostedChallenge("c1", white, black, 60, 0, None, False, "white", "white", "knightmate", None)
    referee = RefereeGame("g1", challenge, white, black, now=100.0)
    with pytest.raises(MoveRejected) as rejected:
        referee.play(chess.WHITE, "0000", now=100.0)
    assert rejected.value.illegal and referee.moves == [] and referee.board.turn == chess.WHITE


def test_replay_plays_a_move_list_from_the_initial_fen_or_the_start() -> None:
    board = KnightmateBoard.replay(None, ("e2e4", "e8f6"))
    assert board.root().fen() == STARTING_FEN
    assert [board.uci(move) for move in board.move_stack] == ["e2e4", "e8f6"]
    promoted = KnightmateBoard.replay(PROMOTION_FEN, ("b7b8m",))
    assert promoted.piece_at(chess.B8) == chess.Piece(chess.KNIGHT, chess.WHITE)


@pytest.mark.parametrize(("moves", "index", "bad"), [
    (("e2e4", "0000"), 1, "0000"),
    (("e2e4", "e7e5", "e2e4"), 2, "e2e4"),
    (("e2e9",), 0, "e2e9"),
    (("e2e4", "e8f6", "x" * 5000), 2, "x" * 5000),
])
def test_replay_names_the_first_move_that_cannot_be_played(moves: tuple[str, ...], index: int, bad: str) -> None:
    with pytest.raises(GameMoveError) as refused:
        KnightmateBoard.replay(None, moves)
    assert (refused.value.index, refused.value.uci) == (index, bad)
    assert f"move {index + 1} " in str(refused.value) and repr(bad[:20]) in str(refused.value)
    assert len(str(refused.value)) < 400  # a hostile 5 KB "move" is not copied into the log


def test_continuing_a_board_counts_the_moves_from_the_games_start() -> None:
    board = KnightmateBoard.replay(None, ("e2e4",))
    with pytest.raises(GameMoveError) as refused:
        board.push_game_moves(("e8f6", "0000"), first_index=1)
    assert refused.value.index == 2 and [board.uci(move) for move in board.move_stack] == ["e2e4", "e8f6"]


def test_every_replay_of_the_bot_refuses_the_null_move_and_names_it() -> None:
    """The game, the search pool, the external engines' board and ``knightmate-bot uci``."""
    moves = ("e2e4", "0000")
    game = new_game("g1")
    game.apply(GameFull("g1", "knightmate", Player("mybot"), Player("alice"), None, None, None, None,
                        GameState(moves, 60_000, 60_000, 0, 0, "started")))
    assert game.sync_problem is not None and "'0000' at ply 2" in game.sync_problem
    for replay in (_position, engine_board):
        with pytest.raises(GameMoveError) as refused:
            replay(None, moves)
        assert refused.value.index == 1
    answers: list[str] = []
    session = UciSession(answers.append)
    session.handle("position startpos moves " + " ".join(moves))
    assert answers == ["info string error: position ignored, move 2 ('0000') of the move list cannot be played: "
                       "the null move '0000' is not a move in a game"]
    assert session.board.move_stack == []
