"""Puzzles mined from games, as Lichess mines its puzzles: a move of the opponent after which
exactly one move wins (material or mate), and the line that follows while that stays so.

How a game is mined:

1. Every position is searched within the scan limit (:func:`bot.analysis.analyse_game`), as for
   a review. A move is a candidate when it hands the other side, the solver, a win it did not
   have: a forced mate within :data:`MAX_MATE` moves, or a win percentage of at least
   :data:`WINNING_PERCENT` that jumped by :data:`BLUNDER_JUMP_PERCENT` or more.
2. The candidate's position is searched again, deeper (the check limit) with two lines: the
   best must still win, and be the only move that does (:func:`only_winning_move`): the second
   best does not mate when the best does, and otherwise is :data:`UNIQUE_GAP_PERCENT` worse in
   win percentage. A position with one legal move is no puzzle.
3. The solution goes on with the engine's best reply and the solver's next move, each solver
   move checked the same way, while the solver's moves stay unique (at most
   :data:`MAX_SOLVER_MOVES`); it always ends on a solver's move. A mate must be played out to
   the mate: a mating line whose move stops being unique is dropped, except the mating move
   itself (Lichess accepts any mate in one there).

Every threshold is read on the curve of the engine that judges (:class:`WinningChancesCurve`):
the percentages are Lichess's, and an engine whose centipawns are smaller (the built-in one) reaches
them with fewer of its own, so the built-in engine and Fairy-Stockfish find the same puzzles.

Themes, as Lichess names them: ``mate`` and ``mateIn1``..``mateIn5``; else ``crushing`` (the
solver ends :data:`CRUSHING_CP` or more up) or ``advantage``; ``oneMove``, ``short``, ``long``,
``veryLong`` by the solver's moves; ``opening``/``middlegame``/``endgame`` by the position;
``promotion`` and ``quietMove`` (the first move neither captures nor checks).

The rating is an estimate until people play the puzzle (:func:`estimated_rating`): the depth at
which the engine settled on the first move, plus the solution's length and a quiet first move.
A puzzle can be checked by another engine (:func:`confirmed_by`), as the starter set is by
Fairy-Stockfish. Nothing here reads files or speaks to anything but the engine it is given.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import chess
import chess.engine

from bot.analysis.judgement import WinningChancesCurve, win_percent
from bot.analysis.lines import PositionAnalysis, analyse_position
from bot.analysis.whole_game import analyse_game
from variant import KnightmateBoard

#: The longest mate a puzzle holds (Lichess's themes stop at mateIn5).
MAX_MATE = 5
#: The most moves a solver plays in a puzzle that wins material.
MAX_SOLVER_MOVES = 5
#: A candidate's win percentage for the solver (about +200 centipawns on Lichess's curve) ...
WINNING_PERCENT = 67.0
#: ... reached by a jump this large from before the opponent's move (Lichess's puzzler asks 0.6
#: in winning chances, which is 30 points of win percentage).
BLUNDER_JUMP_PERCENT = 30.0
#: The second best move must be this much worse in win percentage for the best to be the only one.
UNIQUE_GAP_PERCENT = 30.0
#: A material puzzle whose solver ends this many centipawns (Lichess's) up is ``crushing``, else ``advantage``.
CRUSHING_CP = 600
#: A puzzle starting before this ply is an ``opening`` puzzle.
OPENING_PLIES = 20
#: At most this many pieces other than pawns and royals on the board: an ``endgame`` puzzle.
ENDGAME_PIECES = 6
#: Lichess's rating deviation of a puzzle nobody has played yet.
NEW_RATING_DEVIATION = 500
#: The bounds of :func:`estimated_rating`.
RATING_RANGE = (600, 2800)


@dataclass(frozen=True)
class MiningLimits:
    """How hard the engine looks: each position of a game (*scan*), and each candidate and each
    move of its solution (*check*, deeper)."""

    scan: chess.engine.Limit
    check: chess.engine.Limit


@dataclass(frozen=True)
class Puzzle:
    """One puzzle as Lichess's CSV holds it: the position before the opponent's move, that move
    and then the solution (UCI), the rating estimate and the themes."""

    fen: str
    moves: tuple[str, ...]
    rating: int
    themes: tuple[str, ...]
    game_url: str = ""
    rating_deviation: int = NEW_RATING_DEVIATION

    @property
    def puzzle_id(self) -> str:
        """Five letters and digits from the position and the moves, as Lichess's ids look: the
        same puzzle mined twice has the same id."""
        digest = int.from_bytes(hashlib.sha256(f"{self.fen} {' '.join(self.moves)}".encode()).digest()[:8])
        alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
        letters = []
        for _ in range(5):
            digest, index = divmod(digest, len(alphabet))
            letters.append(alphabet[index])
        return "".join(letters)


@dataclass(frozen=True)
class _Step:
    """A solver's move found by the deeper search: the move, its score from the solver's side, the
    engine's expected reply (None when the move ends the game), and the depth at which the
    engine settled on it."""

    move: chess.Move
    score: chess.engine.Score
    reply: chess.Move | None
    settled_depth: int


def mine_game(engine: chess.engine.SimpleEngine, start: KnightmateBoard, moves: Sequence[chess.Move],
              limits: MiningLimits, *, curve: WinningChancesCurve, game_url: str = "",
              on_progress: Callable[[int, int], None] | None = None) -> list[Puzzle]:
    """The puzzles of the game of *moves* from *start* (see the module docstring), judged on
    *engine*'s *curve*; *game_url* (a URL, or empty) is written with ``#ply`` of each puzzle;
    *on_progress* gets the scan's positions done and their total."""
    positions = analyse_game(engine, start, moves, limits.scan, on_progress=on_progress).positions
    board = start.copy()
    puzzles = []
    for ply, move in enumerate(moves):
        before = board.copy()
        board.push(move)
        solver = board.turn
        if not _candidate(positions[ply].score.pov(solver), positions[ply + 1].score.pov(solver), curve):
            continue
        puzzle = solve(engine, before, move, limits.check, curve=curve,
                       game_url=f"{game_url}#{ply + 1}" if game_url else "")
        if puzzle is not None:
            puzzles.append(puzzle)
    return puzzles


def _candidate(before: chess.engine.Score, after: chess.engine.Score, curve: WinningChancesCurve) -> bool:
    """Whether the opponent's move took the solver from *before* to a win at *after*."""
    if _mates(before):
        return False
    if after.is_mate():
        return _mates(after, within=MAX_MATE)
    return (win_percent(after, curve) >= WINNING_PERCENT
            and win_percent(after, curve) - win_percent(before, curve) >= BLUNDER_JUMP_PERCENT)


def _mates(score: chess.engine.Score, within: int | None = None) -> bool:
    """Whether *score* is a forced mate for the side it is from (in at most *within* moves)."""
    mate = score.mate()
    return mate is not None and mate > 0 and (within is None or mate <= within)


def only_winning_move(best: chess.engine.Score, second: chess.engine.Score | None, curve: WinningChancesCurve) -> bool:
    """Whether the best move, scored *best* from the mover's side, is the only one that wins, the
    second best being scored *second* (None: there is no other move), on the judging engine's *curve*."""
    if second is None:
        return True
    if _mates(best):
        return not _mates(second)
    return win_percent(best, curve) - win_percent(second, curve) >= UNIQUE_GAP_PERCENT


def solve(engine: chess.engine.SimpleEngine, before: KnightmateBoard, opponent_move: chess.Move,
          limit: chess.engine.Limit, *, curve: WinningChancesCurve, game_url: str = "") -> Puzzle | None:
    """The puzzle that starts with *opponent_move* in *before*, or None if the solver has no
    single winning move there (see the module docstring), judged on *engine*'s *curve*."""
    start = before.copy()
    start.push(opponent_move)
    steps = _solution(engine, start, limit, curve)
    if steps is None:
        return None
    end, line = _played(start, steps)
    return Puzzle(before.fen(), (before.uci(opponent_move), *line), estimated_rating(start, steps),
                  themes(before, start, steps, end, curve), game_url)


def _solution(engine: chess.engine.SimpleEngine, start: KnightmateBoard,
              limit: chess.engine.Limit, curve: WinningChancesCurve) -> list[_Step] | None:
    """The solver's moves from *start* while each is the only winning one, or None if the first
    is not, or a mate is not played out to the mate."""
    if start.legal_moves.count() < 2:
        return None
    first = _step(engine, start, limit, curve)
    if first is None or not _wins(first.score, curve):
        return None
    mating = first.score.is_mate()
    board = start.copy()
    steps = [first]
    while True:
        step = steps[-1]
        board.push(step.move)
        if step.reply is None or len(steps) >= (MAX_MATE if mating else MAX_SOLVER_MOVES):
            break
        board.push(step.reply)
        following = _step(engine, board, limit, curve, mating=mating)
        if following is None:
            board.pop()
            break
        steps.append(following)
    return None if mating and not board.is_checkmate() else steps


def _played(start: KnightmateBoard, steps: Sequence[_Step]) -> tuple[KnightmateBoard, list[str]]:
    """The position after the solution from *start*, and the solution in UCI: each solver move
    and, between two of them, the reply."""
    board = start.copy()
    line = []
    for index, step in enumerate(steps):
        line.append(board.uci(step.move))
        board.push(step.move)
        if index + 1 < len(steps):
            assert step.reply is not None
            line.append(board.uci(step.reply))
            board.push(step.reply)
    return board, line


def confirmed_by(engine: chess.engine.SimpleEngine, puzzle: Puzzle, limit: chess.engine.Limit, *,
                 curve: WinningChancesCurve) -> str | None:
    """Why *engine* (whose centipawns read on *curve*) disagrees with *puzzle* (a solver move that
    is not its best, or whose second best is not clearly worse, by :func:`only_winning_move`), or
    None when it agrees with every one. A last move that mates may be one of several mates. Each
    puzzle is a new game to the engine (a cleared hash table), so its verdict on a puzzle is the
    same whichever puzzles it checked before: a set checked once is confirmed again by a later
    check, as the starter set's test does."""
    board = KnightmateBoard(puzzle.fen)
    game = object()  # this puzzle's: its moves share what the engine learns, no other puzzle's
    for index, uci in enumerate(puzzle.moves):
        move = board.parse_uci(uci)
        if index % 2 == 1:
            analysis = analyse_position(engine, board, limit, multipv=2, game=game)
            best = analysis.best
            assert best is not None  # the puzzle's move is legal, so the game is not over
            board.push(move)
            if board.is_checkmate() and index == len(puzzle.moves) - 1:
                continue
            board.pop()
            score = best.score.pov(board.turn)
            second = analysis.lines[1].score.pov(board.turn) if len(analysis.lines) > 1 else None
            if best.move != move:
                return f"{uci} (ply {index + 1} of the line): the engine prefers {board.uci(best.move)}"
            if not only_winning_move(score, second, curve):
                return f"{uci} (ply {index + 1} of the line): the second best is as good ({second} against {score})"
        board.push(move)
    return None


def _wins(score: chess.engine.Score, curve: WinningChancesCurve) -> bool:
    return _mates(score, within=MAX_MATE) if score.is_mate() else win_percent(score, curve) >= WINNING_PERCENT


def _step(engine: chess.engine.SimpleEngine, board: KnightmateBoard, limit: chess.engine.Limit,
          curve: WinningChancesCurve, *, mating: bool = False) -> _Step | None:
    """The solver's only winning move in *board*, searched with two lines, or None if there is none.
    On a *mating* line the move must keep the mate, and a mate in one need not be the only one."""
    settled: list[tuple[int, chess.Move]] = []
    analysis = analyse_position(engine, board, limit, multipv=2,
                                on_info=lambda found: _note_best(found, settled))
    best = analysis.best
    if best is None:
        return None
    score = best.score.pov(board.turn)
    second = analysis.lines[1].score.pov(board.turn) if len(analysis.lines) > 1 else None
    if mating and not _mates(score):
        return None
    if not (mating and score.mate() == 1) and not only_winning_move(score, second, curve):
        return None
    reply = best.pv[1] if len(best.pv) > 1 else None
    if reply is None and not _ends_game(board, best.move):
        reply = _best_reply(engine, board, best.move, limit)
    return _Step(best.move, score, reply, _settled_depth(settled, best.move))


def _note_best(found: PositionAnalysis, settled: list[tuple[int, chess.Move]]) -> None:
    if found.best is not None:
        settled.append((found.depth, found.best.move))


def _settled_depth(settled: Sequence[tuple[int, chess.Move]], move: chess.Move) -> int:
    """The shallowest depth from which every iteration had *move* first (1 when none was reported)."""
    depth = settled[-1][0] if settled else 1
    for found_depth, found_move in reversed(settled):
        if found_move != move:
            break
        depth = found_depth
    return max(1, depth)


def _ends_game(board: KnightmateBoard, move: chess.Move) -> bool:
    board.push(move)
    try:
        return board.is_game_over(claim_draw=False)
    finally:
        board.pop()


def _best_reply(engine: chess.engine.SimpleEngine, board: KnightmateBoard, move: chess.Move,
                limit: chess.engine.Limit) -> chess.Move | None:
    """The opponent's best answer to *move*, for an engine whose line stopped at it."""
    after = board.copy()
    after.push(move)
    reply = analyse_position(engine, after, limit).best
    return reply.move if reply is not None else None


def estimated_rating(solved: KnightmateBoard, steps: Sequence[_Step]) -> int:
    """A first guess at the puzzle's rating before anyone plays it (Lichess's ratings come from
    plays): 800, plus 100 for each ply of depth the engine needed to settle on the first move
    beyond the first, plus 150 for each solver move beyond the first, plus 200 for a quiet first
    move; within :data:`RATING_RANGE`."""
    first = steps[0]
    rating = 800 + 100 * (first.settled_depth - 1) + 150 * (len(steps) - 1)
    if _quiet(solved, first.move):
        rating += 200
    return max(RATING_RANGE[0], min(RATING_RANGE[1], rating))


def _quiet(board: KnightmateBoard, move: chess.Move) -> bool:
    return not board.is_capture(move) and not board.gives_check(move) and move.promotion is None


def themes(before: KnightmateBoard, solved: KnightmateBoard, steps: Sequence[_Step],
           end: KnightmateBoard, curve: WinningChancesCurve) -> tuple[str, ...]:
    """The puzzle's themes (see the module docstring), sorted: *before* the opponent's move,
    *solved* the position the solver starts from, *end* the position after the solution, the
    scores read on the judging engine's *curve*."""
    found = set()
    if end.is_checkmate():
        found |= {"mate", f"mateIn{len(steps)}"}
    else:
        final_cp = steps[-1].score.score(mate_score=100_000) or 0
        found.add("crushing" if final_cp >= curve.centipawns(CRUSHING_CP) else "advantage")
    found.add({1: "oneMove", 2: "short", 3: "long"}.get(len(steps), "veryLong"))
    found.add(_phase(before))
    if _quiet(solved, steps[0].move):
        found.add("quietMove")
    if any(step.move.promotion is not None for step in steps):
        found.add("promotion")
    return tuple(sorted(found))


def _phase(board: KnightmateBoard) -> str:
    if board.ply() < OPENING_PLIES:
        return "opening"
    pieces = board.occupied & ~board.pawns & ~board.kings
    return "endgame" if chess.popcount(pieces) <= ENDGAME_PIECES else "middlegame"
