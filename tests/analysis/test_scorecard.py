"""bot.analysis.scorecard on PGNs the bot's own writer produced: results, performance, think times, clocks."""

from __future__ import annotations

import io

import chess
import chess.engine
import chess.pgn
import pytest

from bot.analysis.scorecard import ScorecardError, game_line, likely_player, performance, scorecard
from tests.helpers.bot_pgns import BOT_NAME, bot_pgn


def read(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return game


def test_think_times_are_what_the_clock_lost_between_two_own_moves_plus_the_increment() -> None:
    line = game_line(read(bot_pgn("g1", "Alice", rating=1500, think_ms=[2_000, 3_000, 500, 1_500, 4_000, 2_500])),
                     BOT_NAME)
    assert line.think_times_ms == (3_000, 500, 1_500, 4_000, 2_500)     # the first move has no clock before it
    assert line.lowest_clock_ms == 60_000 - 2_000 - 3_000 - 500 - 1_500 - 4_000 - 2_500 + 6 * 1_000


def test_an_emt_comment_is_the_think_time_where_a_pgn_has_one() -> None:
    game = read(bot_pgn("g1", "Alice", rating=1500))
    for node in list(game.mainline())[::2]:                        # the bot is white
        node.set_emt(0.25)
    assert set(game_line(game, BOT_NAME).think_times_ms) == {250}


def test_each_game_is_seen_from_the_players_side_whatever_its_colour_and_case() -> None:
    white_win = game_line(read(bot_pgn("g1", "Alice", rating=1500, bot_white=False, winner="white")), "mybot")
    assert (white_win.color, white_win.score, white_win.opponent, white_win.opponent_rating) == \
        (chess.BLACK, 0.0, "Alice", 1500)
    assert white_win.opening == "1. e3 e6" and white_win.time_control == "60+1" and white_win.game_id == "g1"


def test_the_performance_is_the_rule_of_400_over_finished_games_against_rated_opponents() -> None:
    lines = [game_line(read(text), BOT_NAME) for text in (
        bot_pgn("g1", "Alice", rating=1500, winner="white"),                 # a win against 1500
        bot_pgn("g2", "Bob", rating=1700, winner="black"),                   # a loss against 1700
        bot_pgn("g3", "Carol", rating=1900, status="draw", winner=None),     # a draw against 1900
        bot_pgn("g4", "Dave", rating=None, winner="white"),                  # no rating: not counted
        bot_pgn("g5", "Erin", rating=2500, status="aborted", winner=None),   # unfinished: not counted
    )]
    assert performance(lines) == 1700          # mean 1700, wins - losses = 0
    assert performance(lines[:1]) == 1900 and performance(lines[3:]) is None


def test_a_scorecard_groups_by_opponent_time_control_and_first_moves_and_lists_time_losses_and_stars() -> None:
    games = [read(text) for text in (
        bot_pgn("g1", "Alice", rating=1500, winner="white"),
        bot_pgn("g2", "Alice", rating=1500, status="outoftime", winner="black", think_ms=[10_000] * 6),
        bot_pgn("g3", "Bob", rating=1600, status="aborted", winner=None, base_ms=180_000, increment_ms=2_000),
        bot_pgn("g4", "Bob", rating=1600, moves=("d2d4", "d7d5"), status="draw", winner=None),
    )]
    card = scorecard(games, likely_player(games))
    assert card.player == BOT_NAME
    overall = card.overall
    assert (overall.games, overall.wins, overall.draws, overall.losses, overall.unfinished) == (4, 1, 1, 1, 1)
    assert overall.score_percent == 50.0
    assert overall.lowest_clock_ms == 60_000 - 6 * 10_000 + 6 * 1_000      # g2's last move
    assert card.by_opponent["Bob"].lowest_clock_ms == 60_000
    assert overall.average_think_ms == (10 * 1_000 + 5 * 10_000) // 15     # 1 s moves in g1 and g3, 10 s in g2
    assert list(card.by_opponent) == ["Alice", "Bob"] and card.by_opponent["Alice"].losses == 1
    assert card.by_time_control["180+2"].unfinished == 1 and card.by_time_control["60+1"].games == 3
    assert list(card.by_opening) == ["1. e3 e6", "1. d4 d5"]
    assert [line.game_id for line in card.lost_on_time] == ["g2"]
    assert [line.game_id for line in card.unfinished] == ["g3"]


def test_a_player_not_in_a_game_is_named_in_one_line() -> None:
    with pytest.raises(ScorecardError, match=r"^Zed does not play in MyBot - Alice \(g1\)$"):
        game_line(read(bot_pgn("g1", "Alice", rating=1500)), "Zed")


def test_whose_games_cannot_be_told_when_two_names_are_in_as_many_games_and_no_evals_tell() -> None:
    with pytest.raises(ScorecardError, match="--player"):
        likely_player([read(bot_pgn("g1", "Alice", rating=1500))])


def test_against_a_single_opponent_the_player_is_the_side_whose_moves_carry_the_evals() -> None:
    games = [read(bot_pgn(f"g{index}", "Alice", rating=1500, bot_white=index % 2 == 0)) for index in range(2)]
    for game in games:
        bot_color = chess.WHITE if game.headers["White"] == BOT_NAME else chess.BLACK
        for node in game.mainline():
            if node.turn() != bot_color:                        # the bot's own move, as its writer notes it
                node.set_eval(chess.engine.PovScore(chess.engine.Cp(30), bot_color), depth=5)
    assert likely_player(games) == BOT_NAME
