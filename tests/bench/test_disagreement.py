"""bench/training/disagreement.py: where a royal knight stands, the sign of each side's difference,
and a run with native Fairy-Stockfish and the built-in engine on a short game."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import chess
import chess.pgn
import pytest

from bench.match.uci_player import NATIVE_FAIRY_STOCKFISH
from bench.training import disagreement
from bench.training.disagreement import Scored, by_royal_place, royal_place
from variant import KnightmateBoard

#: White castled short (royal knight on g1), Black's royal knight at home on e8, all pieces on.
CASTLED = "rmbqkb1r/pppppppp/5m2/8/8/5M2/PPPPPPPP/RMBQ1RK1 b kq - 5 3"
#: Few pieces: White's royal knight on e4, Black's on e7 (its second rank).
ENDGAME = "8/4k3/8/8/4K3/8/4P3/7R w - - 0 40"


def test_a_royal_knight_is_placed_from_its_own_side() -> None:
    castled, endgame = KnightmateBoard(CASTLED), KnightmateBoard(ENDGAME)
    assert royal_place(castled, chess.WHITE) == "g1"
    assert royal_place(castled, chess.BLACK) == "e1"  # e8, seen from Black's side
    assert royal_place(endgame, chess.WHITE) == "beyond"
    assert royal_place(endgame, chess.BLACK) == "rank 2"


def test_each_side_gets_the_difference_from_its_own_view() -> None:
    """The reference likes White's position 100 cp more than the engine does: that is +100 for
    White's royal knight's place and -100 for Black's."""
    groups = by_royal_place([Scored(CASTLED, 150, 50), Scored(ENDGAME, -20, 30)])
    assert groups == {
        ("g1", "middlegame"): [100],
        ("e1", "middlegame"): [-100],
        ("beyond", "endgame"): [-50],
        ("rank 2", "endgame"): [50],
    }


def _random_game(path: Path, plies: int, seed: int) -> None:
    board = KnightmateBoard()
    generator = random.Random(seed)
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(generator.choice(moves))
    path.write_text(str(chess.pgn.Game.from_board(board)) + "\n\n")


@pytest.mark.skipif(shutil.which(NATIVE_FAIRY_STOCKFISH) is None,
                    reason="needs Debian's fairy-stockfish")
def test_a_run_scores_the_sampled_positions_with_both_engines(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "games.pgn"
    _random_game(games, 24, seed=5)
    chess_game = tmp_path / "chess.pgn"
    chess_game.write_text('[Event "a chess game"]\n\n1. e4 e5 *\n')
    argv = [str(games), str(chess_game), "--depth", "3", "--engine-depth", "2", "--from-ply", "2", "--every", "2",
            "--max-cp", "100000"]
    assert disagreement.main(argv) == 0
    captured = capsys.readouterr()
    assert "positions of" in captured.out and "fairy-stockfish at depth 3 against the built-in engine" in captured.out
    assert "| royal knight | phase | positions |" in captured.out
    assert "chess.pgn game 1: not Knightmate" in captured.err


def test_a_missing_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert disagreement.main([str(tmp_path / "none.pgn")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
