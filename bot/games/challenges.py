"""Which challenges to accept: a pure function of the settings, the challenge and the load.

The answer is a :class:`Decision`: accept, or decline with one of the reason keys both servers
understand (``generic``, ``later``, ``tooFast``, ``tooSlow``, ``timeControl``, ``rated``,
``casual``, ``variant``, ``noBot``, ``onlyBot``), plus a sentence for the log. Checks go from the
most permanent reason to the most passing one, so a challenger is told ``later`` only when the
challenge would be accepted at a quieter moment. No I/O here.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from bot.config import ChallengeSettings
from bot.remote.events import Challenge
from variant import KnightmateBoard

#: Lichess lets no bot play UltraBullet: an estimated game time (base + 40 increments) under 30 s.
ULTRABULLET_LIMIT_MS = 30_000


@dataclass(frozen=True)
class Decision:
    accept: bool
    reason: str | None      # the decline reason key; None when accepted
    why: str                # for the log

    @classmethod
    def accepted(cls) -> Decision:
        return cls(True, None, "accepted")

    @classmethod
    def declined(cls, reason: str, why: str) -> Decision:
        return cls(False, reason, why)


#: What each of python-chess's position problems means in Knightmate's words (its "king" is the
#: royal knight), for the person who typed the FEN.
_STATUS_WORDS = {
    chess.STATUS_NO_WHITE_KING: "White has no royal knight (K)",
    chess.STATUS_NO_BLACK_KING: "Black has no royal knight (k)",
    chess.STATUS_TOO_MANY_KINGS: "a side has more than one royal knight",
    chess.STATUS_TOO_MANY_WHITE_PAWNS: "White has more than 8 pawns",
    chess.STATUS_TOO_MANY_BLACK_PAWNS: "Black has more than 8 pawns",
    chess.STATUS_PAWNS_ON_BACKRANK: "a pawn stands on the first or last rank",
    chess.STATUS_TOO_MANY_WHITE_PIECES: "White has more than 16 pieces",
    chess.STATUS_TOO_MANY_BLACK_PIECES: "Black has more than 16 pieces",
    chess.STATUS_BAD_CASTLING_RIGHTS: "the castling rights do not match the royal knights and rooks",
    chess.STATUS_INVALID_EP_SQUARE: "the en passant square is impossible",
    chess.STATUS_OPPOSITE_CHECK: "the side that just moved is in check",
    chess.STATUS_EMPTY: "the board is empty",
    chess.STATUS_TOO_MANY_CHECKERS: "the side to move is checked by more pieces than a move can make",
    chess.STATUS_IMPOSSIBLE_CHECK: "the check could not have come from a move",
}


def position_problems(status: chess.Status) -> str:
    """*status*'s problems in words, joined by "; "."""
    words = [text for flag, text in _STATUS_WORDS.items() if status & flag]
    return "; ".join(dict.fromkeys(words)) or f"{status!r}"


def start_position_problem(fen: str | None) -> str | None:
    """Why ``fen`` cannot start a Knightmate game, or ``None`` when it can (``None`` = standard)."""
    if fen is None:
        return None
    try:
        board = KnightmateBoard(fen)
    except ValueError as error:
        return f"not a Knightmate FEN: {error}"
    if not board.is_valid():
        return f"not a legal Knightmate position: {position_problems(board.status())}"
    if board.outcome() is not None:
        return "the game would already be over"
    return None


def decide(settings: ChallengeSettings, challenge: Challenge, active_games: int) -> Decision:
    """Accept or decline ``challenge`` while ``active_games`` games are being played."""
    if challenge.challenger.lower() in {name.lower() for name in settings.block_list}:
        return Decision.declined("generic", f"{challenge.challenger} is on the block list")
    if challenge.variant not in settings.variants:
        return Decision.declined("variant", f"variant {challenge.variant} is not played")
    problem = start_position_problem(challenge.initial_fen)
    if problem is not None:
        return Decision.declined("generic", problem)
    time_decision = _time_control(settings, challenge)
    if time_decision is not None:
        return time_decision
    mode = "rated" if challenge.rated else "casual"
    if mode not in settings.modes:
        return Decision.declined(mode, f"{mode} games are not played")
    if challenge.challenger_is_bot and not settings.accept_bots:
        return Decision.declined("noBot", "bots are not accepted")
    if not challenge.challenger_is_bot and not settings.accept_humans:
        return Decision.declined("onlyBot", "only bots are accepted")
    if active_games >= settings.concurrency:
        return Decision.declined("later", f"already playing {active_games} of {settings.concurrency} games")
    return Decision.accepted()


def _time_control(settings: ChallengeSettings, challenge: Challenge) -> Decision | None:
    if challenge.time_control != "clock" or challenge.base_ms is None or challenge.increment_ms is None:
        return Decision.declined("timeControl", f"{challenge.time_control} games are not played, only clock games")
    base_s, increment_s = challenge.base_ms / 1000, challenge.increment_ms / 1000
    shown = f"{base_s:g}+{increment_s:g}"
    if challenge.base_ms + 40 * challenge.increment_ms < ULTRABULLET_LIMIT_MS:
        return Decision.declined("tooFast", f"{shown} is UltraBullet")
    if base_s < settings.min_base or increment_s < settings.min_increment:
        return Decision.declined("tooFast", f"{shown} is faster than {settings.min_base:g}+{settings.min_increment:g}")
    if base_s > settings.max_base or increment_s > settings.max_increment:
        return Decision.declined("tooSlow", f"{shown} is slower than {settings.max_base:g}+{settings.max_increment:g}")
    return None
