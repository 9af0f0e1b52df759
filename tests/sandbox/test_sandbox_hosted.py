"""The sandbox's referee (bot.sandbox.hosted.Game): game ends, clocks and bad moves, without HTTP."""

from __future__ import annotations

import chess
import pytest

from bot.sandbox.hosted import Account, HostedChallenge, HostedGame, MoveRejected, decline_reason_key


def new_game(initial_fen: str | None = None, limit_s: int | None = 60, increment_s: int = 2) -> HostedGame:
    white, black = Account("W", "t1", True), Account("B", "t2", True)
    challenge = HostedChallenge("c1", white, black, limit_s, increment_s, None, False, "white", "white", "knightmate",
                          initial_fen)
    return HostedGame("g1", challenge, white, black, now=100.0)


def test_moves_are_refused_out_of_turn_and_when_illegal() -> None:
    game = new_game()
    with pytest.raises(MoveRejected) as out_of_turn:
        game.play(chess.BLACK, "e7e5", now=100.0)
    assert not out_of_turn.value.illegal
    with pytest.raises(MoveRejected) as illegal:
        game.play(chess.WHITE, "b1b3", now=100.0)  # a commoner steps like a king
    assert illegal.value.illegal
    assert game.moves == [] and not game.over


def test_commoner_promotion_is_recorded_with_m() -> None:
    game = new_game("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    game.play(chess.WHITE, "b7b8n", now=100.0)
    assert game.moves == ["b7b8m"]


def test_clock_is_not_charged_for_the_first_two_plies_and_gains_the_increment_after() -> None:
    game = new_game()
    game.play(chess.WHITE, "e2e4", now=110.0)
    game.play(chess.BLACK, "e7e5", now=120.0)
    assert game.times == {chess.WHITE: 60000, chess.BLACK: 60000}
    assert game.flag_time() == 120.0 + 60.0
    game.play(chess.WHITE, "d2d4", now=125.0)
    assert game.times[chess.WHITE] == 60000 - 5000 + 2000


def test_a_move_after_the_flag_fell_loses_on_time() -> None:
    game = new_game(limit_s=1, increment_s=0)
    game.play(chess.WHITE, "e2e4", now=100.0)
    game.play(chess.BLACK, "e7e5", now=100.0)
    with pytest.raises(MoveRejected):
        game.play(chess.WHITE, "d2d4", now=101.5)
    assert (game.status, game.winner, game.moves[-1]) == ("outoftime", chess.BLACK, "e7e5")


def test_flag_against_a_side_that_cannot_mate_is_a_draw() -> None:
    game = new_game("k7/8/8/8/8/8/P7/7K w - - 0 1", limit_s=1, increment_s=0)
    game.play(chess.WHITE, "a2a3", now=100.0)
    game.play(chess.BLACK, "a8b6", now=100.0)
    game.flag()  # white flags; black has a bare royal knight
    assert (game.status, game.winner) == ("outoftime", None)


def test_stalemate_ends_the_game() -> None:
    game = new_game("k7/8/8/8/8/8/8/1R4RK w - - 0 1")
    game.play(chess.WHITE, "g1c1", now=100.0)
    assert (game.status, game.winner) == ("stalemate", None)


def test_threefold_repetition_ends_the_game_as_a_draw_at_once() -> None:
    game = new_game()  # the position after ply 2 comes back at plies 6 and 10
    for ply, uci in enumerate((["e1f3", "e8f6", "f3e1", "f6e8"] * 3)[:10]):
        assert not game.over
        game.play(chess.WHITE if ply % 2 == 0 else chess.BLACK, uci, now=100.0)
    assert (game.status, game.winner) == ("draw", None)


def test_game_from_an_illegal_fen_still_has_a_board() -> None:
    game = new_game("8/8/8/8/8/8/8/8 w - - 0 1")  # no royal knights: the bot must abort it
    assert game.board.fen() == "8/8/8/8/8/8/8/8 w - - 0 1" and not game.over


@pytest.mark.parametrize(("sent", "key"), [("tooFast", "tooFast"), ("toofast", "tooFast"), ("NOBOT", "noBot"),
                                           ("", "generic"), (None, "generic"), ("whatever", "generic")])
def test_decline_reasons_match_case_insensitively_and_default_to_generic(sent: str | None, key: str) -> None:
    assert decline_reason_key(sent) == key
