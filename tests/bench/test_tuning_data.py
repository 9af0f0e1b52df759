"""bench/datagen/make_tuning_data.py: scores read for White, game ends as the referee calls them, and a real
game's records."""

from __future__ import annotations

import random
import shutil

import pyffish as sf
import pytest

from bench.datagen import make_tuning_data
from bench.match.referee import VARIANT
from bench.match.strength import parse_opening
from bench.match.uci_player import UciPlayer
from variant import KnightmateBoard

FAIRY_STOCKFISH = "/usr/games/fairy-stockfish"


def test_scores_are_turned_to_whites_view_and_mates_are_capped() -> None:
    output = ["info depth 3 score cp 80 nodes 10", "info depth 4 score cp 34 nodes 90 pv e2e4"]
    assert make_tuning_data.white_score(output, white_to_move=True) == 34
    assert make_tuning_data.white_score(output, white_to_move=False) == -34
    assert make_tuning_data.white_score(["info depth 9 score mate -3"], white_to_move=False) == 10000
    assert make_tuning_data.white_score(["info string classical evaluation"], white_to_move=True) is None


def board_after(fen: str, moves: list[str]) -> KnightmateBoard:
    board = KnightmateBoard(fen)
    for move in moves:
        board.push(board.parse_uci(move))
    return board


def test_game_ends_as_the_match_referee_calls_them() -> None:
    """The same positions as the referee's tests in test_strength_runner.py."""
    assert make_tuning_data.ending(board_after("k7/2Q5/1Q6/8/8/8/4K3/7R w - - 0 1", ["h1a1"])) == (1.0, "checkmate")
    assert make_tuning_data.ending(board_after("k7/2Q5/8/1Q6/8/8/8/4K3 w - - 0 1", ["b5b6"])) == (0.5, "stalemate")
    shuffle = ["e1f3", "e8f6", "f3e1", "f6e8"] * 2 + ["e1f3"]
    start = KnightmateBoard().fen()
    assert make_tuning_data.ending(board_after(start, shuffle)) is None
    assert make_tuning_data.ending(board_after(start, [*shuffle, "e8f6"])) == (0.5, "threefold repetition")


@pytest.mark.skipif(shutil.which(FAIRY_STOCKFISH) is None, reason="needs Fairy-Stockfish native")
def test_a_real_game_writes_legal_positions_with_the_referees_check_flag() -> None:
    """One game at a few hundred nodes a move: every position is a valid Knightmate FEN, the check flag
    agrees with pyffish, and the plies follow one another."""
    engine = UciPlayer("fairy-stockfish", [FAIRY_STOCKFISH], {})
    engine.start()
    settings = make_tuning_data.GenerationSettings(nodes=300, random_plies=2, win_cp=1000, win_plies=6, draw_after=100,
                                         draw_plies=20, max_plies=160)
    try:
        result, reason, samples = make_tuning_data.play_game(
            engine, parse_opening("e2e4 e7e5", 1), settings, random.Random(3))
    finally:
        engine.close()
    assert result in (0.0, 0.5, 1.0) and reason
    assert len(samples) > 4
    for sample in samples:
        assert sf.validate_fen(sample.fen, VARIANT) == 1, sample.fen
        assert sample.in_check == bool(sf.gives_check(VARIANT, sample.fen, [])), sample.fen
        assert sample.ply >= 2
    # Each sample is the position the next one was played from: plies count up by one.
    assert [s.ply for s in samples] == list(range(samples[0].ply, samples[0].ply + len(samples)))


def test_next_game_follows_the_last_game_of_the_seed_only(tmp_path) -> None:
    data = tmp_path / "data.tsv"
    assert make_tuning_data.next_game(data, 101) == 0
    rows = [("101:0", 1), ("101:7", 2), ("5:30", 3), ("101:3", 4)]
    data.write_text("".join(f"8/8/8/8/8/8/8/4K2k w - - 0 1\t0.5\t{tag}\t{ply}\t0\t0\t0\n" for tag, ply in rows))
    assert make_tuning_data.next_game(data, 101) == 8
    assert make_tuning_data.next_game(data, 5) == 31
    assert make_tuning_data.next_game(data, 6) == 0


def games_in(path) -> dict[str, list[str]]:
    games: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        fields = line.split("\t")
        games.setdefault(fields[2], []).append(fields[0])
    return games


@pytest.mark.skipif(shutil.which(FAIRY_STOCKFISH) is None, reason="needs Fairy-Stockfish native")
def test_a_resumed_run_numbers_on_and_plays_new_games(tmp_path) -> None:
    """A run of one game, then --resume: game 1 follows game 0 and is another game; a plain rerun
    (no --resume) repeats game 0 exactly, which is what --resume is for."""
    short = ["--seed", "7", "--games", "1", "--nodes", "200", "--max-plies", "30", "--random-plies", "4"]
    first, resumed, again = tmp_path / "first.tsv", tmp_path / "resumed.tsv", tmp_path / "again.tsv"
    assert make_tuning_data.main(["--out", str(first), *short]) == 0
    resumed.write_text(first.read_text())
    assert make_tuning_data.main(["--out", str(resumed), "--resume", *short]) == 0
    assert make_tuning_data.main(["--out", str(again), *short]) == 0
    games = games_in(resumed)
    assert list(games) == ["7:0", "7:1"]
    assert games["7:0"] == games_in(first)["7:0"] == games_in(again)["7:0"]
    assert games["7:1"] != games["7:0"]
