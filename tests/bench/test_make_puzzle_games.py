"""bench.datagen.make_puzzle_games: games that read back as Knightmate PGN, the same for the same seed."""

from __future__ import annotations

from pathlib import Path

import chess.pgn

from bench.datagen.make_puzzle_games import main
from tests.helpers.engine_processes import FAIRY_STOCKFISH, needs_fairy_stockfish


def read_all(path: Path) -> list[chess.pgn.Game]:
    games = []
    with path.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


@needs_fairy_stockfish
def test_the_games_are_knightmate_pgn_and_the_seed_repeats_them(tmp_path: Path) -> None:
    assert FAIRY_STOCKFISH is not None
    for name in ("one.pgn", "two.pgn"):
        assert main(["--engine", FAIRY_STOCKFISH, "--games", "2", "--depth", "1", "--blunder", "0.3",
                     "--seed", "7", "-o", str(tmp_path / name)]) == 0
    games = read_all(tmp_path / "one.pgn")
    assert len(games) == 2 and all(game.headers["Variant"] == "Knightmate" and not game.errors for game in games)
    assert all(game.next() is not None for game in games)
    assert (tmp_path / "one.pgn").read_text() == (tmp_path / "two.pgn").read_text()
