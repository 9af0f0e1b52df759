"""bench/match/verdict_agreement.py: the built-in engine's marks counted against Fairy-Stockfish's."""

from __future__ import annotations

from pathlib import Path

from bench.match.verdict_agreement import MarkAgreement, Marks, read_games


def test_recall_precision_and_any_mark_count_the_plies_both_engines_mark() -> None:
    fairy_stockfish = Marks(serious=frozenset({3, 8, 20, 31}), any=frozenset({3, 8, 11, 20, 31}), accuracies=(80, 60))
    builtin = Marks(serious=frozenset({8, 31, 40}), any=frozenset({8, 20, 31, 40}), accuracies=(84, None))
    tally = MarkAgreement()
    tally.add(builtin, fairy_stockfish)
    assert (tally.ours, tally.theirs, tally.both, tally.theirs_with_any_mark) == (3, 4, 2, 3)
    assert tally.accuracy_gaps == [4]  # a side without a move (None) is left out
    assert tally.describe() == ("built-in marks 3, Fairy-Stockfish 4, both 2: recall 50%, precision 67%; "
                                "Fairy-Stockfish's with any built-in mark 3 (75%); accuracy, built-in less "
                                "Fairy-Stockfish: mean +4.0, mean absolute 4.0 points")


def test_games_without_moves_are_left_out(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[Variant "Knightmate"]\n\n1. e4 e5 *\n\n[Variant "Knightmate"]\n\n*\n\n'
                   '[Variant "Knightmate"]\n\n1. d4 *\n', encoding="utf-8")
    assert [len(list(game.mainline_moves())) for game in read_games([pgn])] == [2, 1]
