"""Each engine's curve from centipawns to winning chances: verdicts that do not depend on its scale."""

from __future__ import annotations

import math

import chess
import chess.engine
import pytest

from bot.analysis import BUILTIN_CURVE, LICHESS_CURVE, EngineCommand, PositionAnalysis, WinningChancesCurve
from bot.analysis.judgement import BUILTIN_SLOPE, LICHESS_SLOPE, chances_percent, judge, win_percent
from bot.analysis.whole_game import GameAnalysis, review
from variant import KnightmateBoard

Cp, Mate = chess.engine.Cp, chess.engine.Mate
FAIRY_STOCKFISH = ("/usr/games/fairy-stockfish",)

#: A game's moves, and White's score after each position (the start first) as an engine on
#: Stockfish's scale saw it: an inaccuracy, a mistake and a blunder by White, a mistake by Black,
#: a forced mate let in by White while 8 pawns down (a mistake, as Lichess has it), and Black's
#: mate let slip while 3 pawns up (a blunder).
SANS = ["e4", "e5", "d3", "d6", "c3", "c6", "a3", "a6", "b3", "b6", "g3", "g6", "h3", "h6"]
STOCKFISH_SCALE: list[chess.engine.Score] = [Cp(30), Cp(35), Cp(30), Cp(-40), Cp(-30), Cp(-150), Cp(-10), Cp(20),
                                             Cp(25), Cp(-790), Cp(-800), Mate(-5), Cp(-300), Cp(-310), Cp(-300)]
STOCKFISH_VERDICTS = [None, None, "Inaccuracy", None, "Mistake", "Mistake", None, None, "Blunder", None, "Mistake",
                      "Blunder", None, None]


def builtin_scale(score: chess.engine.Score) -> chess.engine.Score:
    """*score* as an engine whose centipawns spread less saw it: the same winning chances on the
    built-in engine's curve (mates are mates on every scale)."""
    cp = score.score()
    return score if cp is None else Cp(round(cp * LICHESS_SLOPE / BUILTIN_SLOPE))


def judged(scores: list[chess.engine.Score], curve: WinningChancesCurve) -> GameAnalysis:
    """The game of :data:`SANS` reviewed from *scores* (White's, one a position) on *curve*."""
    board = KnightmateBoard()
    moves, positions = [], []
    for san, score in zip([*SANS, None], scores, strict=True):
        positions.append(PositionAnalysis(chess.engine.PovScore(score, chess.WHITE), (), 1))
        if san is not None:
            moves.append(board.push_san(san))
    return review(KnightmateBoard(), moves, positions, curve)


def verdicts(analysis: GameAnalysis) -> list[str | None]:
    return [None if move.judgement is None else move.judgement.label for move in analysis.moves]


def test_the_same_game_on_two_scales_gets_the_same_verdicts_each_on_its_own_curve() -> None:
    stockfish = judged(STOCKFISH_SCALE, LICHESS_CURVE)
    builtin = judged([builtin_scale(score) for score in STOCKFISH_SCALE], BUILTIN_CURVE)
    assert verdicts(stockfish) == STOCKFISH_VERDICTS
    assert verdicts(builtin) == verdicts(stockfish)
    for side in (chess.WHITE, chess.BLACK):
        ours, theirs = builtin.side(side).accuracy, stockfish.side(side).accuracy
        assert ours is not None and theirs is not None and ours == pytest.approx(theirs, abs=0.2)
    assert [move.accuracy for move in builtin.moves] == pytest.approx([move.accuracy for move in stockfish.moves],
                                                                      abs=0.5)  # cp rounded


def test_the_smaller_scale_judged_on_lichess_curve_misses_errors() -> None:
    """What the curves are for: Lichess's curve on the built-in engine's centipawns sees less."""
    builtin_on_lichess = judged([builtin_scale(score) for score in STOCKFISH_SCALE], LICHESS_CURVE)
    assert verdicts(builtin_on_lichess).count(None) > verdicts(judged(STOCKFISH_SCALE, LICHESS_CURVE)).count(None)


def test_mates_let_in_or_slip_are_judged_by_the_pawns_at_stake_on_the_engines_scale() -> None:
    eight_pawns_down = builtin_scale(Cp(-800))
    assert judge(eight_pawns_down, Mate(-3), BUILTIN_CURVE) is judge(Cp(-800), Mate(-3))
    assert judge(eight_pawns_down, Mate(-3), LICHESS_CURVE) is not judge(Cp(-800), Mate(-3))


def test_lichess_curve_is_the_default_and_unchanged() -> None:
    assert LICHESS_CURVE.slope == 0.00368208
    assert LICHESS_CURVE.winning_chances(100) == 2 / (1 + math.exp(-0.00368208 * 100)) - 1
    assert chances_percent(Cp(100)) == chances_percent(Cp(100), LICHESS_CURVE) == pytest.approx(59.103, abs=1e-3)
    assert win_percent(Cp(5000)) == 50 + 50 * LICHESS_CURVE.winning_chances(1000)
    assert [LICHESS_CURVE.centipawns(cp) for cp in (700, 999, 1000)] == [700, 999, 1000]
    assert judge(Cp(-800), Mate(-3)).label == "Mistake" and judge(Cp(-1000), Mate(-3)).label == "Inaccuracy"


def test_each_engine_has_its_curve_and_a_slope_set_by_hand_wins() -> None:
    assert EngineCommand().curve == BUILTIN_CURVE
    assert EngineCommand(FAIRY_STOCKFISH).curve == LICHESS_CURVE
    assert EngineCommand(FAIRY_STOCKFISH, slope=0.005).curve == WinningChancesCurve(0.005)
    assert EngineCommand(slope=0.003, options={"UCI_Elo": 1500}).at_full_strength().curve.slope == 0.003


def test_the_built_in_curve_is_steeper_than_lichess() -> None:
    """The built-in engine's pawn is worth less on the board than Stockfish's (about 0.7 of it)."""
    assert 1.2 < BUILTIN_SLOPE / LICHESS_SLOPE < 2.0
    assert chances_percent(Cp(100), BUILTIN_CURVE) > chances_percent(Cp(100), LICHESS_CURVE)


@pytest.mark.parametrize("slope", [0.0, -0.003, math.nan])
def test_a_curve_that_is_not_rising_is_refused(slope: float) -> None:
    with pytest.raises(ValueError, match="must be positive"):
        WinningChancesCurve(slope)
