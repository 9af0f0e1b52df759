"""An analysed game written back as PGN: evaluations, NAGs, better lines and each side's summary.

What is written, as Lichess's analysis writes it and as ``chess.pgn`` reads it: ``[%eval]`` on
every move (not on a mating move, whose position has no score to give), ``?!``, ``?`` and ``??``
on the errors, the engine's better line as a variation after each error with a comment naming
the better move, and a comment before the first move with each side's accuracy and error counts.

The input's own annotations from an earlier analysis are replaced, not added to: its
evaluations, move-quality NAGs, side variations and the sentences this module writes are dropped
first; clock times and other comments stay.
"""

from __future__ import annotations

import re

import chess
import chess.engine
import chess.pgn

from bot.analysis.judgement import Judgement
from bot.analysis.lines import EngineCommand
from bot.analysis.whole_game import GameAnalysis, MoveReview

#: The most moves of a better line written as a variation.
VARIATION_PLIES = 10
#: NAGs that judge a move (good, mistake, brilliant, blunder, speculative, dubious): an analysis
#: replaces them.
MOVE_QUALITY_NAGS = frozenset(range(1, 7))
_SUMMARY_PREFIX = "Analysis by "
#: The sentences this module writes, to be dropped when a game is analysed again.
_OWN_SENTENCES = re.compile(r"(?:Inaccuracy|Mistake|Blunder)\. \S+ was best\.|"
                            + re.escape(_SUMMARY_PREFIX) + r"[^\n]*")
_EVAL = re.compile(r"\[%eval\s[^\]]*\]")


def analyst(engine: EngineCommand, limit: chess.engine.Limit) -> str:
    """The annotator an analysed PGN names, ``knightmate-bot analyse (the built-in engine, 150 ms a
    position)``: the CLI and the page's review write the same for the same analysis."""
    budget = f"depth {limit.depth}" if limit.depth is not None else f"{(limit.time or 0) * 1000:g} ms a position"
    return f"knightmate-bot analyse ({engine.name}, {budget})"


def error_comment(judgement: Judgement, better_san: str) -> str:
    """The sentence written on an error, ``Blunder. Bxg4 was best.``: in the PGN and beside the move
    on the page's review alike."""
    return f"{judgement.label}. {better_san} was best."


def annotated(game: chess.pgn.Game, analysis: GameAnalysis, analyst: str) -> chess.pgn.Game:
    """A copy of *game*'s main line with *analysis* written in (see the module docstring);
    *analyst* names the engine and its limits in the summary and the ``Annotator`` header."""
    out = chess.pgn.Game()
    out.headers.update(game.headers)
    out.headers["Annotator"] = analyst
    summary = (f"{_SUMMARY_PREFIX}{analyst}. White: {analysis.white.describe()}. "
               f"Black: {analysis.black.describe()}.")
    out.comment = _joined(summary, _kept(game.comment))
    target: chess.pgn.GameNode = out
    for ply, node in enumerate(game.mainline()):
        child = target.add_main_variation(node.move)
        _copy_own_notes(node, child)
        position = analysis.positions[ply + 1]
        if position.lines or not child.board().is_checkmate():
            child.set_eval(position.score, position.depth or None)
        move_review = analysis.moves[ply]
        if move_review.judgement is not None:
            _mark_error(target, child, move_review)
        target = child
    return out


def _mark_error(parent: chess.pgn.GameNode, child: chess.pgn.ChildNode, move_review: MoveReview) -> None:
    """NAG and sentence on the error, and the better line as a variation beside it."""
    judgement = move_review.judgement
    assert judgement is not None
    child.nags.add(judgement.nag)
    better = move_review.better
    if better is None:
        return
    child.comment = _joined(error_comment(judgement, parent.board().san(better.move)), child.comment)
    variation = parent.add_variation(better.move)
    for move in better.pv[1:VARIATION_PLIES]:
        if move not in variation.board().legal_moves:
            break
        variation = variation.add_main_variation(move)


def _copy_own_notes(node: chess.pgn.ChildNode, child: chess.pgn.ChildNode) -> None:
    """The input's comments (with their clock times) and other NAGs, without an earlier analysis's."""
    child.comment = _kept(node.comment)
    child.starting_comment = _kept(node.starting_comment)
    child.nags.update(nag for nag in node.nags if nag not in MOVE_QUALITY_NAGS)


def _kept(comment: str) -> str:
    """*comment* without evaluations and this module's sentences (clock commands stay)."""
    return " ".join(_OWN_SENTENCES.sub("", _EVAL.sub("", comment)).split())


def _joined(*parts: str) -> str:
    return " ".join(part for part in parts if part)
