"""Analysis of Knightmate positions and games by any UCI engine, as Lichess analyses chess games.

A layer beside :mod:`bot.thinking`: it uses the engine layer, the rules and python-chess, and
never the network, the bot's games, the sandbox or the web page (which use it).

* :mod:`bot.analysis.lines`: the engine (built-in or any UCI engine) and one position's lines.
* :mod:`bot.analysis.whole_game`: a whole game, each move judged, each side summed up.
* :mod:`bot.analysis.judgement`: winning chances on the judging engine's curve; Lichess's errors and accuracy.
* :mod:`bot.analysis.annotate`: the analysed game as an annotated PGN.
* :mod:`bot.analysis.pgn_input`: PGN read as Knightmate games, each game's problem in one sentence.
* :mod:`bot.analysis.puzzle_mining`: puzzles mined from a game; :mod:`bot.analysis.puzzle_csv`: Lichess's
  puzzle CSV and the starter set shipped in ``data/puzzles.csv``.
* :mod:`bot.analysis.tries`: a move tried in place of an error, judged (learn from your mistakes).
"""

from bot.analysis.annotate import analyst, annotated, error_comment
from bot.analysis.judgement import BUILTIN_CURVE, LICHESS_CURVE, Judgement, WinningChancesCurve, chances_percent
from bot.analysis.lines import (
    BUILTIN_COMMAND,
    AnalysisEngineError,
    AnalysisStopped,
    EngineCommand,
    Line,
    PositionAnalysis,
    analyse_position,
    close_engine,
    engine_name,
    open_engine,
)
from bot.analysis.tries import TryVerdict, judge_try
from bot.analysis.whole_game import GameAnalysis, MoveReview, SideSummary, analyse_game

__all__ = [
    "BUILTIN_COMMAND", "BUILTIN_CURVE", "LICHESS_CURVE", "AnalysisEngineError", "AnalysisStopped", "EngineCommand",
    "GameAnalysis", "Judgement", "Line", "MoveReview", "PositionAnalysis", "SideSummary", "TryVerdict",
    "WinningChancesCurve", "analyse_game", "analyse_position", "analyst", "annotated", "chances_percent",
    "close_engine", "engine_name", "error_comment", "judge_try", "open_engine",
]
