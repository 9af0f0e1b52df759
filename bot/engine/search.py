"""The Knightmate searcher: iterative deepening principal-variation alpha-beta.

:class:`Engine` is the API the bot and the UCI front end call. One search works on a
:class:`~bot.engine.position.Position` made from the caller's :class:`variant.KnightmateBoard`:
int moves, make and unmake, proved equal to the board by tests. Moves are generated
pseudo-legally and checked for legality only when they are searched (a pushed move that leaves
the own royal knight attacked is taken back).

What the search does, and where:

- iterative deepening with aspiration windows (:meth:`_Search.run`, ``_root``); more time for a
  move whose best move or score has just changed; a timed search ends at the first iteration
  deep enough to hold every line of the mate it found, given or taken;
- a node (``_search``): draws (repetition, the fifty-move rule unless the side to move is mated,
  stalemate, insufficient material), mate-distance bounds, check extension, the transposition
  table (``_probe``), reverse futility, null-move pruning and razoring (a shallow node far
  below beta that quiescence cannot lift either ends: ``_static_cut``), ProbCut (a
  capture whose shallower search beats beta by a margin cuts the node: ``_probcut``), a ply
  less for a deep node the table knows no move for (internal iterative reduction), and whether
  the side to move is improving (its static evaluation against the one two plies before), which
  tightens the pruning when it is not;
- its moves (``_search_moves``) in stages (``MovePicker``): the hash move before any
  generation, captures by victim then attacker (``moves.capture_order``), two killers per ply and
  a countermove, quiet moves by their history and continuation history, losing captures last;
- skipped near the leaves: futile and late quiet moves that give no check (``_quiets_allowed``),
  moves that lose their exchange (``_loses_exchange``); reduced: late quiet moves
  (``_late_move_reduction``), searched with a null window first (``_zero_window_search``);
- a quiet move that cuts rewards its killers, countermove and histories (``_reward_quiet``);
- quiescence (``_quiescence_node``): captures and queen promotions, all evasions in check, and
  at its first ply the quiet checks (mates come early in Knightmate); it reads the table too
  (any entry is deep enough) and stores its own results at depth 0.

MultiPV: a search may ask for the best N root moves, each with its exact score and line (line k
is the best of the root moves not in lines 1..k-1, searched with an open window), as analysis
and UCI's ``MultiPV`` want them.

Strength: an engine made with an ``elo`` plays weaker, as :mod:`bot.engine.levels` designs it
(a shallow MultiPV search, then a choice among its lines); this module only applies it.

A search can ponder (think on the opponent's time, with a :class:`~bot.engine.clock.Ponder`): it
then has no time limit until the predicted move is played, and from that moment it obeys the real
move's limits while it goes on deepening; it never returns before that moment or a stop.

It must never mutate the caller's board, never return an illegal move when a legal one exists,
and never run past the hard deadline of its :class:`~bot.engine.clock.Budget` (checked every
few hundred nodes inside the tree).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import random
import threading
import time
from collections.abc import Callable
from typing import Final, Protocol

import chess
from librt.vecs import append, pop, vec
from mypy_extensions import i64

from bot.engine import evaluation, levels
from bot.engine.book import OpeningBook
from bot.engine.clock import Budget, Limits, Ponder, budget
from bot.engine.constants import BB_SQUARES, Bitboard, popcount
from bot.engine.moves import (
    MOVE_MASK,
    ORDER_SHIFT,
    best_first,
    capture_order,
    check_squares,
    gaining_moves,
    gives_check,
    quiet_checks,
    static_exchange,
)
from bot.engine.nnue import Net, shipped_net
from bot.engine.position import (
    FROM_TO_SLOTS,
    NO_MOVE,
    PAWN,
    Move,
    Position,
    decode,
    encode,
    from_square_of,
    from_to_of,
    promotion_of,
    to_square_of,
)
from bot.engine.result import SearchResult as SearchResult  # re-exported: callers import it from here
from bot.engine.smp import HelperError, HelperPool
from bot.engine.table import MAX_THREADS, SharedTable
from bot.engine.weights import PIECE_VALUES
from variant import KnightmateBoard, insufficient_material

logger = logging.getLogger(__name__)

MATE: Final = 30000
#: Scores beyond this are mates; ``MATE - ply`` is a mate given at that distance from the root.
MATE_BOUND: Final = MATE - 1000
MAX_PLY: Final = 100
INFINITY: Final = MATE + 1
#: What a step of the tree returns when it does not decide the node: below every score.
NO_SCORE: Final = -INFINITY - 1

#: Nodes between two looks at the clock and the stop flag (a few milliseconds of search).
CHECK_EVERY: Final = 128
#: How often a ponder search that has nothing left to search looks at its stop flag, in seconds.
PONDER_IDLE_CHECK_S: Final = 0.05
#: After a ponder hit the search is in an iteration begun long before, deeper than a timed search
#: would start; it may run until this many soft limits, not to the hard deadline. Without this
#: cap a hit ran on to the hard deadline: with 2 s on the clock a hit took 0.56 s where the same
#: move searched afresh took 0.2 s, and what pondering saved was spent again.
PONDER_HIT_HARD_FACTOR: Final = 2.0
#: Bytes one transposition-table entry costs in CPython: a 64-bit key (36), the tuple of four
#: ints (72, plus 28 for each int too big to be shared) and the dict slot (about 40). tracemalloc
#: after a depth-7 search measured 268 per entry with the pawn cache's share included.
TT_ENTRY_BYTES: Final = 200
#: When the table is full, bound entries shallower than this make room first (see _make_room).
TT_KEEP_DEPTH: Final = 3
#: Up to this depth remaining, positions whose static eval beats beta by a margin are cut: the
#: margin a ply, counted one ply less when the side to move is improving (see below).
REVERSE_FUTILITY_DEPTH: Final = 7
REVERSE_FUTILITY_MARGIN: Final = 120  # centipawns per ply of depth
#: The null move is searched NULL_MOVE_BASE plies shallower than the node, a ply more for every
#: NULL_MOVE_DEPTH_STEP plies of depth, and a ply more for every NULL_MOVE_EVAL_STEP centipawns
#: the static evaluation beats beta by, up to NULL_MOVE_EVAL_CAP plies: the further ahead, the
#: less a pass needs to prove.
NULL_MOVE_BASE: Final = 3
NULL_MOVE_DEPTH_STEP: Final = 3
NULL_MOVE_EVAL_STEP: Final = 200
NULL_MOVE_EVAL_CAP: Final = 3
#: A node at least this deep with no move from the table is searched a ply shallower (internal
#: iterative reduction): its ordering is a guess, and the shallower search fills the table for
#: the next visit.
IIR_DEPTH: Final = 4
#: Razoring: a non-PV node at depth RAZOR_DEPTH or less whose static evaluation is below alpha
#: by more than RAZOR_MARGINS[depth] is searched by quiescence alone, and ends there when that
#: fails low too: at such a deficit no quiet move is searched anyway (futility), and the
#: captures are what quiescence plays.
RAZOR_DEPTH: Final = 3
RAZOR_MARGINS: Final[tuple[int, ...]] = (0, 400, 650, 1000)
#: ProbCut: from this depth, a capture whose search PROBCUT_REDUCTION plies shallower beats beta
#: by the margin cuts the node (searched to full depth, it would almost surely beat beta too).
PROBCUT_DEPTH: Final = 5
PROBCUT_MARGIN: Final = 120
PROBCUT_REDUCTION: Final = 4
#: Futility pruning margins by remaining depth (index 0 unused): a quiet move is expected to
#: gain less than this, 150 cp at depth 1 and 90 more a ply. With these and the late-move limits
#: below reaching depth 6 and 7 (they stopped at 2 and 3), a search reaches depth 11 in about
#: half the nodes and a node costs about 6% more: +51 Elo at 25,000 nodes a move, +30 on a
#: clock (bench/RESULTS.md, 2026-12-05).
FUTILITY_MARGINS: Final[tuple[int, ...]] = (0, 150, 240, 330, 420, 510, 600)
#: Near the leaves of a non-PV node a move is skipped when its static exchange loses more than
#: this: a quiet move SEE_QUIET_MARGIN x depth^2 (a piece put where it is taken for nothing),
#: a capture SEE_CAPTURE_MARGIN x depth.
SEE_PRUNE_DEPTH: Final = 3
SEE_QUIET_MARGIN: Final = 50
SEE_CAPTURE_MARGIN: Final = 100
#: Late-move pruning: quiet moves tried at most, by remaining depth, in a non-PV node whose side
#: to move is improving (its static evaluation above the one two plies before), and two thirds of
#: these when it is not.
LATE_MOVE_LIMITS: Final[tuple[int, ...]] = (0, 6, 9, 13, 18, 24, 31, 40)
LATE_MOVE_LIMITS_NOT_IMPROVING: Final[tuple[int, ...]] = tuple(limit * 2 // 3 for limit in LATE_MOVE_LIMITS)
MAX_MOVES: Final = 256
#: The most lines a MultiPV search reports (UCI's ``MultiPV`` option has the same bound).
MAX_MULTIPV: Final = 5
#: Quiescence skips captures that cannot lift the score to alpha even with this margin (the
#: largest positional swing one capture is expected to cause).
DELTA_MARGIN: Final = 200

#: When the last iteration changed its mind (a new best move, or a score this many centipawns
#: worse), the next iteration may start until this many times the usual soft limit: that is
#: the move where more time pays (chess engine practice). Shallow iterations change often and
#: cheaply, so only those from UNSTABLE_FROM_DEPTH on count.
UNSTABLE_TIME_FACTOR: Final = 2.0
UNSTABLE_SCORE_DROP: Final = 40
UNSTABLE_FROM_DEPTH: Final = 5

#: Static evaluations remembered (a power of two; 16 bytes each): see :class:`EvalCache`.
EVAL_CACHE_SLOTS: Final = 1 << 18

#: History scores stay within +-HISTORY_MAX: each update moves a score towards the bound by a
#: share of the distance left ("gravity"), so old lessons fade as new ones come and no score
#: runs away. A cut by a quiet move rewards it by depth^2 + depth (at most HISTORY_BONUS_MAX),
#: and the quiet moves searched before it in that node lose as much: they were tried and did
#: not cut.
HISTORY_MAX: Final = 16384
HISTORY_BONUS_MAX: Final = 1600
#: Quiet moves sort by their two histories (from-to, and the continuation's) offset below every
#: promotion (whose order keys are above -4096).
_QUIET_ORDER_OFFSET: Final = 2 * HISTORY_MAX + 4096
#: The continuation history is indexed by the previous move's piece type and destination and the
#: reply's: rows of this many slots, one row a (piece type, square), type 0 for no previous move.
_CONTINUATION_ROW: Final = 7 * 64
#: A late quiet move is reduced by ln(depth) x ln(moves searched) / LMR_DIVISOR + LMR_BASE
#: plies, one less in a PV node and one less or more per LMR_HISTORY_STEP of its two histories
#: (rounded to the nearest, so a slightly negative history costs nothing).
LMR_BASE: Final = 0.75
LMR_DIVISOR: Final = 2.25
LMR_HISTORY_STEP: Final = 16384
_LMR_SIZE: Final = 64
_REDUCTIONS: Final[list[int]] = [
    int(LMR_BASE + math.log(depth) * math.log(searched) / LMR_DIVISOR) if depth and searched else 0
    for depth in range(_LMR_SIZE) for searched in range(_LMR_SIZE)]

EXACT: Final = 0
LOWER: Final = 1
UPPER: Final = 2

#: Order bonus of promotions (by promotion piece type; index 0 is no promotion) among captures
#: of the same victim and ahead of quiet moves; the underpromotions rank below any capture of a
#: commoner or better.
_PROMOTION_ORDER: Final[tuple[int, ...]] = (0, 0, -3000, -4000, -3500, 9000)


class StopSignal(Protocol):
    """What ends a search early: a :class:`threading.Event`, or a helper's (:class:`bot.engine.smp.HelperStop`)."""

    def is_set(self) -> bool: ...


class _Abort(Exception):
    """Raised inside the tree when the deadline, the node limit or the stop flag is reached."""


class EvalCache:
    """Static evaluations by position key, one a slot chosen by the key's low bits (the newest
    stays): native arrays, where a dict cost a boxed key, a hash and a boxed score a lookup.
    An evaluation depends on the position alone, so the cache outlives a search; only another
    evaluator (the NNUE on or off) makes it stale (see :meth:`clear`)."""

    def __init__(self) -> None:
        self.keys = vec[i64]([0] * EVAL_CACHE_SLOTS)
        self.scores = vec[i64]([0] * EVAL_CACHE_SLOTS)

    def clear(self) -> None:
        """Forgets every evaluation (key 0 is never looked up: see ``_Search._evaluate``)."""
        self.keys = vec[i64]([0] * EVAL_CACHE_SLOTS)


class Engine:
    """A reusable searcher: keeps its hash table and history between moves of one game.

    Not thread-safe: one search at a time per instance (the UCI front end and the bot each own
    one). ``hash_mb`` bounds the transposition table. With a *book*, a position the book knows is
    answered at once with one of its moves (see :meth:`search`). With an *elo* (``UCI_Elo``,
    see :mod:`bot.engine.levels`) it plays at that strength, its random choices drawn from *seed*.
    With *nnue*, positions are scored by the shipped network (:mod:`bot.engine.nnue`) instead of
    the hand evaluation; :attr:`net` is that network, or None for the hand evaluation.

    With *threads* above 1 (UCI's ``Threads``) a search is Lazy SMP: ``threads - 1`` helper
    processes (:mod:`bot.engine.smp`) search the same position at once, all sharing one table of
    ``hash_mb`` in shared memory, and the main search's move is played. The helpers live until
    :meth:`close` (or until the engine's process ends). With one thread the search runs alone on
    its own table, as it always did: the same nodes, move for move. A weakened engine (*elo*)
    searches alone too: its level is designed for one.
    """

    def __init__(self, hash_mb: int = 64, book: OpeningBook | None = None, elo: int | None = None,
                 seed: int | None = None, nnue: bool = False, threads: int = 1) -> None:
        self._pool: HelperPool | None = None
        self._threads = 1
        self.hash_mb = hash_mb
        self.book = book
        self.elo = elo
        self._rng = random.Random(seed)
        self._eval_cache = EvalCache()
        self.net = shipped_net() if nnue else None
        self._tt: dict[int, tuple[int, int, int, Move]] = {}
        self._history, self._countermoves, self._continuation = _new_histories()
        self._pawn_cache = evaluation.PawnCache()
        self.threads = threads

    @property
    def net(self) -> Net | None:
        """The network that scores positions, or None for the hand evaluation."""
        return self._net

    @net.setter
    def net(self, value: Net | None) -> None:
        self._net = value
        self._eval_cache.clear()

    @property
    def hash_mb(self) -> int:
        return self._hash_mb

    @hash_mb.setter
    def hash_mb(self, value: int) -> None:
        if value < 1:
            raise ValueError(f"hash size must be at least 1 MB, got {value}")
        self._hash_mb = value
        self._tt_capacity = value * 1024 * 1024 // TT_ENTRY_BYTES
        self._start_helpers()

    @property
    def threads(self) -> int:
        """Processes a search runs in: the main one and its helpers (see the class)."""
        return self._threads

    @threads.setter
    def threads(self, value: int) -> None:
        if not 1 <= value <= MAX_THREADS:
            raise ValueError(f"threads must be between 1 and {MAX_THREADS}, got {value}")
        self._threads = value
        self._start_helpers()

    def _start_helpers(self) -> None:
        """Starts the helpers the current threads and hash size want (none for one thread),
        ending those started for other ones or broken; at once, so that they are ready by the
        first search. Helpers that fit already are kept (a GUI may set every option again)."""
        pool = self._pool
        if pool is not None and not pool.broken and (pool.threads, pool.hash_mb) == (self._threads, self._hash_mb):
            return
        self.close()
        if self._threads > 1:
            self._pool = HelperPool(self._threads, self._hash_mb, Engine)

    def wait_for_helpers(self) -> None:
        """Waits until the helpers are ready to search (started, the table mapped: a second or so
        after ``threads`` is set), so that the first search does not spend its time on that; for
        UCI's ``isready`` and a bot's warm-up. Not during a search. Helpers that failed to start
        are started again."""
        self._on_helpers(HelperPool.wait_until_idle)

    def _on_helpers(self, action: Callable[[HelperPool], None], consequence: str = "") -> bool:
        """Whether *action* on the helpers succeeded (False without helpers). Helpers that fail it
        are started again, for the next search: a broken helper costs a search its help, never
        the game."""
        pool = self._pool
        if pool is None:
            return False
        try:
            action(pool)
        except HelperError as error:
            logger.warning("%s%s; starting the helpers again", consequence, error)
            self._start_helpers()
            return False
        return True

    def close(self) -> None:
        """Ends the helper processes and frees the shared table; the engine can search again
        afterwards (alone until ``threads`` or ``hash_mb`` is set again)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    @property
    def elo(self) -> int | None:
        """The strength it plays at (``UCI_Elo``), or None for its full strength."""
        return self._strength.elo if self._strength is not None else None

    @elo.setter
    def elo(self, value: int | None) -> None:
        self._strength = levels.strength_for_elo(value) if value is not None else None

    def new_game(self) -> None:
        """Forgets everything learnt: hash table, histories and countermoves. (The caches of
        evaluations and pawn terms stay: what they hold depends on the position alone.)"""
        self._tt.clear()
        self._on_helpers(HelperPool.new_game)
        self._history, self._countermoves, self._continuation = _new_histories()

    def search(self, board: KnightmateBoard, limits: Limits,
               stop: threading.Event | None = None,
               on_info: Callable[[SearchResult], None] | None = None,
               ponder: Ponder | None = None, multipv: int = 1) -> SearchResult:
        """Searches *board* within *limits* and returns the best move found.

        *stop* ends the search early (the best move so far is still returned); *on_info* is
        called after every completed iteration, as UCI ``info`` lines want. With *ponder*, the
        search ignores the time in *limits* and runs until ``ponder.hit(...)`` gives it the real
        move's limits, or until *stop*; it does not return before one of them. A book move is
        returned without a search and without *on_info* calls (a pondered one at the hit), except
        to an ``infinite`` or MultiPV search, which is analysis.

        With *multipv* above 1 (at most :data:`MAX_MULTIPV`) the result and every *on_info*
        report carry that many lines (fewer if there are fewer legal moves) in ``lines``, best
        first, from the last completed iteration: a stopped iteration's lines are not exact yet.
        """
        if not 1 <= multipv <= MAX_MULTIPV:
            raise ValueError(f"multipv must be between 1 and {MAX_MULTIPV}, got {multipv}")
        started = time.perf_counter()
        if self.book is not None and not limits.infinite and multipv == 1:
            move = self.book.choose(board)
            if move is not None:
                if ponder is not None:
                    _wait_for_hit_or_stop(ponder, stop)
                return SearchResult(move, None, None, 0, 0, int((time.perf_counter() - started) * 1000), (move,),
                                    from_book=True)
        self._trim_table()
        strength = self._strength
        lines = multipv
        report = on_info
        if strength is not None:
            limits, lines = _weaker_limits(limits, strength), max(multipv, strength.lines)
            if on_info is not None:
                report = _trimmed_report(on_info, multipv)
        time_budget = Budget(None, None) if ponder is not None else budget(limits, board.turn, board.fullmove_number)
        pool = self._helpers_on(board) if strength is None else None
        search = _Search(board, limits, time_budget, started, stop,
                         self._tt, self._tt_capacity, self._history, self._countermoves, self._continuation,
                         self._pawn_cache, self._eval_cache, ponder,
                         lines, levels.MIN_DEPTH if strength is not None else 0,
                         pool.table if pool is not None else None)
        if self.net is not None:
            search.position.use_nnue(self.net)
        if pool is None:
            result = search.run(report)
        else:
            result = _run_with_helpers(pool, search, report)
        if strength is not None:
            result = self._weaker_choice(board, result, multipv, strength)
        if ponder is not None:
            # Searched to the end before the opponent moved: UCI wants no answer before ponderhit or stop.
            _wait_for_hit_or_stop(ponder, stop)
        return result

    def _trim_table(self) -> None:
        """Empties the table kept from earlier searches when it has outgrown its bound (a smaller
        ``Hash``; the table also makes room as it fills, see ``_Search._make_room``)."""
        if len(self._tt) > self._tt_capacity:
            self._tt.clear()

    def _helpers_on(self, board: KnightmateBoard) -> HelperPool | None:
        """The helpers, set searching *board*; None with one thread. Helpers that failed are
        started again for the next search, and this one runs alone."""
        with_net = self.net is not None
        return self._pool if self._on_helpers(lambda pool: pool.start(board, with_net), "searching alone: ") else None

    def help_search(self, board: KnightmateBoard, table: SharedTable, worker: int, stop: StopSignal) -> None:
        """A helper's search (in a helper process, see :mod:`bot.engine.smp`): *board* without
        a limit until *stop*, through *table*, with this engine's histories. Odd helpers search
        each iteration a ply deeper than the main search would, so that what they put in the table
        is what the main search needs next rather than what it has; the others diverge from it by
        timing alone. Publishes its nodes as *worker* in the table."""
        self._trim_table()
        search = _Search(board, Limits(infinite=True), Budget(None, None), time.perf_counter(), stop,
                         self._tt, self._tt_capacity, self._history, self._countermoves, self._continuation,
                         self._pawn_cache, self._eval_cache, None, 1, 0, table, worker)
        if self.net is not None:
            search.position.use_nnue(self.net)
        search.depth = worker % 2
        search.run(None)
        table.publish_nodes(worker, search.nodes)

    def _weaker_choice(self, board: KnightmateBoard, result: SearchResult, multipv: int,
                       strength: levels.Strength) -> SearchResult:
        """The line a player of *strength* picks from *result*'s lines, with the search's totals
        and the *multipv* lines that were asked for."""
        lines = result.principal_lines()
        present_cp = evaluation.evaluate(Position.from_board(board), self._pawn_cache)
        chosen = lines[levels.choose_line(lines, present_cp, strength, self._rng)]
        return dataclasses.replace(chosen, nodes=result.nodes, time_ms=result.time_ms,
                                   lines=lines[:multipv] if multipv > 1 else ())


def _run_with_helpers(pool: HelperPool, search: _Search,
                      report: Callable[[SearchResult], None] | None) -> SearchResult:
    """*search* run as the main search of a Lazy SMP one, its helpers searching already; its
    reports and result count every process's nodes, as UCI engines count them."""
    def counted(info: SearchResult) -> None:
        if report is not None:
            report(dataclasses.replace(info, nodes=info.nodes + pool.helper_nodes()))

    try:
        result = search.run(counted if report is not None else None)
    finally:
        helper_nodes = pool.finish()
    return dataclasses.replace(result, nodes=result.nodes + helper_nodes)


def _weaker_limits(limits: Limits, strength: levels.Strength) -> Limits:
    """*limits* capped at the depth and nodes of *strength*."""
    return dataclasses.replace(limits, depth=min(limits.depth or MAX_PLY, strength.depth),
                               nodes=min(limits.nodes or strength.nodes, strength.nodes))


def _trimmed_report(on_info: Callable[[SearchResult], None], multipv: int) -> Callable[[SearchResult], None]:
    """*on_info* given only the *multipv* lines asked for, not all a weaker search looks at."""
    def report(info: SearchResult) -> None:
        on_info(dataclasses.replace(info, lines=info.lines[:multipv] if multipv > 1 else ()))
    return report


def _wait_for_hit_or_stop(ponder: Ponder, stop: threading.Event | None) -> None:
    while not ponder.is_hit and not (stop is not None and stop.is_set()):
        ponder.wait(PONDER_IDLE_CHECK_S)


class _Search:
    """The state of one search: the working position, counters and the tables it borrows."""

    def __init__(self, board: KnightmateBoard, limits: Limits, time_budget: Budget, started: float,
                 stop: StopSignal | None, tt: dict[int, tuple[int, int, int, Move]],
                 tt_capacity: int, history: list[vec[i64]], countermoves: list[vec[i64]],
                 continuation: vec[i64], pawn_cache: evaluation.PawnCache, eval_cache: EvalCache,
                 ponder: Ponder | None, multipv: int,
                 min_depth: int, shared: SharedTable | None = None, worker: int = 0) -> None:
        self.position, self.keys = _replay(board)
        self.multipv = multipv
        # Iterations up to this depth finish whatever the node limit: a weaker level's nodes
        # are few, and it must always see the replies to its moves (see bot.engine.levels).
        self.min_depth = min_depth
        self.turn = board.turn
        self.move_number = board.fullmove_number
        self.limits = limits
        self.max_depth = min(limits.depth or MAX_PLY, MAX_PLY)
        self.depth = 0  # the iteration in progress
        self.started = started
        # Where the move's clock started: the search's start, or the ponder hit.
        self.clock_started = started
        self.soft_deadline: float | None = None
        self.hard_deadline: float | None = None
        self._set_deadlines(time_budget, started)
        self.ponder = ponder
        self.stop = stop
        self.tt = tt
        self.tt_capacity = tt_capacity
        # With helpers (Lazy SMP) every process's table instead of ``tt``; *worker* is this
        # process's number in it (0 for the main search).
        self.shared = shared
        self.worker = worker
        self.history = history
        # The reply that last refuted a move, by side to move and the move's from and to squares.
        self.countermoves = countermoves
        # How quiet replies fared after a move, by the move's piece type and destination and the
        # reply's (a row of _CONTINUATION_ROW slots for each first pair).
        self.continuation = continuation
        # The moves from the root to the node being searched (NO_MOVE for a null move), after
        # the game's last move: a node's countermove is looked up by the move before it.
        self.stack = vec[i64]([encode(board.peek()) if board.move_stack else NO_MOVE])
        self.pawn_cache = pawn_cache
        self.eval_cache = eval_cache
        self.nodes = 0
        self.node_limit = limits.nodes if limits.nodes is not None else None
        self.next_check = CHECK_EVERY if self.node_limit is None else min(CHECK_EVERY, self.node_limit)
        self.killers = [vec[i64]([NO_MOVE, NO_MOVE]) for _ in range(MAX_PLY + 2)]
        # The static evaluation of the node at each ply of the current line, -INFINITY in check:
        # a node compares its own with the one two plies before (the same side to move).
        self.statics: list[int] = [-INFINITY] * (MAX_PLY + 2)
        # Index in ``keys`` of the position after the latest null move: a repetition across a
        # null move is not a real one, so the draw test never looks further back than this.
        self.null_floors = vec[i64]([0])
        # The best root move of the unfinished iteration, once one has beaten the previous best.
        self.partial_best = NO_MOVE
        self.partial_score = -INFINITY

    # -- driver ------------------------------------------------------------------------------

    def run(self, on_info: Callable[[SearchResult], None] | None) -> SearchResult:
        position = self.position
        root_moves = position.legal_moves()
        if not root_moves:
            mate = 0 if position.in_check() else None
            return SearchResult(None, None if mate is not None else 0, mate, 0, 0, self._elapsed_ms(), ())
        best = SearchResult(decode(root_moves[0]), 0, None, 0, 0, 0, (decode(root_moves[0]),))
        previous_score, previous_move = 0, NO_MOVE
        while self.depth < self.max_depth:
            self.depth += 1
            depth = self.depth
            try:
                if self.multipv > 1:
                    lines = self._root_lines(root_moves, depth, previous_score)
                    score, move = lines[0][0], root_moves[0]
                else:
                    score, move = self._root(root_moves, depth, previous_score)
            except _Abort:
                if self.multipv == 1 and self.partial_best and decode(self.partial_best) != best.move:
                    best = self._result(self.partial_best, self.partial_score, depth, partial=True)
                break
            unstable = depth >= UNSTABLE_FROM_DEPTH and (
                move != previous_move or score < previous_score - UNSTABLE_SCORE_DROP)
            previous_score, previous_move = score, move
            if self.multipv > 1:
                results = tuple(self._result(line_move, line_score, depth, pv=pv)
                                for line_score, line_move, pv in lines)
                best = dataclasses.replace(results[0], lines=results)
            else:
                best = self._result(move, score, depth)
            if on_info is not None:
                on_info(best)
            self._check_ponder_hit()
            timed = self.hard_deadline is not None
            if len(root_moves) == 1 and timed:
                break
            if best.mate is not None and _mate_plies(best.mate) <= depth and timed:
                break  # deeper iterations would only repeat the mate (and report depth MAX_PLY)
            if self.soft_deadline is not None:
                soft_deadline = self.soft_deadline
                if unstable:
                    soft_deadline = self.clock_started + (soft_deadline - self.clock_started) * UNSTABLE_TIME_FACTOR
                if time.perf_counter() > soft_deadline:
                    break
        return dataclasses.replace(best, nodes=self.nodes, time_ms=self._elapsed_ms())

    def _result(self, move: Move, score: int, depth: int, partial: bool = False,
                pv: tuple[chess.Move, ...] | None = None) -> SearchResult:
        """The result of *move* with *score* at *depth*; its line is read from the hash table
        unless *pv* gives it."""
        if pv is None:
            pv = self._principal_variation(move)
        if abs(score) >= MATE_BOUND:
            plies = MATE - abs(score)
            mate = (plies + 1) // 2 if score > 0 else -(plies // 2)
            return SearchResult(decode(move), None, mate, depth - 1 if partial else depth, self.nodes,
                                self._elapsed_ms(), pv)
        return SearchResult(decode(move), score, None, depth - 1 if partial else depth, self.nodes,
                            self._elapsed_ms(), pv)

    def _root(self, moves: list[Move], depth: int, previous_score: int) -> tuple[int, Move]:
        """One iteration over the root moves, best first; reorders *moves* for the next one."""
        self.partial_best = NO_MOVE
        self.partial_score = -INFINITY
        if depth >= 4 and abs(previous_score) < MATE_BOUND:
            window = 40
            while True:
                alpha, beta = previous_score - window, previous_score + window
                score, move = self._root_window(moves, depth, alpha, beta)
                if alpha < score < beta:
                    return score, move
                window *= 4
                if window > 1000:
                    break
        return self._root_window(moves, depth, -INFINITY, INFINITY)

    def _root_lines(self, moves: list[Move], depth: int,
                    previous_score: int) -> list[tuple[int, Move, tuple[chess.Move, ...]]]:
        """One MultiPV iteration: the best ``multipv`` root moves with their exact scores and
        lines, best first. Line k searches the moves not in lines 1..k-1 with an open window, so
        its score is exact; the lines are read from the hash table at once, before the next line's
        search overwrites it. Reorders *moves*: these lines' moves first, for the next iteration."""
        remaining = list(moves)
        lines: list[tuple[int, Move, tuple[chess.Move, ...]]] = []
        for index in range(min(self.multipv, len(moves))):
            if index == 0:
                score, move = self._root(remaining, depth, previous_score)
            else:
                score, move = self._root_window(remaining, depth, -INFINITY, INFINITY, first_line=False)
            lines.append((score, move, self._principal_variation(move)))
            remaining.remove(move)
        # A later line may score above an earlier one (the tree was pruned differently); the
        # order is by score, as a reader of the lines expects. Python's sort is stable.
        lines.sort(key=_line_score, reverse=True)
        moves[:] = [move for _, move, _ in lines] + remaining
        return lines

    def _root_window(self, moves: list[Move], depth: int, alpha: int, beta: int,
                     first_line: bool = True) -> tuple[int, Move]:
        """The best of *moves* at *depth* within the window; reorders *moves* (best first). Only
        the *first_line* of a MultiPV iteration (the one over all root moves) is the root's
        result: it alone is stored in the hash table and kept when the iteration is stopped."""
        best_score, best_move = -INFINITY, moves[0]
        original_alpha = alpha
        for index, move in enumerate(moves):
            self._push(move)
            try:
                if index == 0:
                    score = -self._search(depth - 1, -beta, -alpha, 1, True)
                else:
                    score = -self._search(depth - 1, -alpha - 1, -alpha, 1, True)
                    if alpha < score < beta:
                        score = -self._search(depth - 1, -beta, -alpha, 1, True)
            finally:
                self._pop()
            if score > best_score:
                best_score, best_move = score, move
                if first_line and score > original_alpha and (not self.partial_best or score > self.partial_score):
                    self.partial_best, self.partial_score = move, score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
        if best_score > original_alpha:
            moves.remove(best_move)
            moves.insert(0, best_move)
        else:
            # Failed low: every score is an upper bound, none says which move is best, so the
            # previous iteration's best stays in front for the re-search.
            best_move = moves[0]
        if first_line:
            self._store(depth, best_score, original_alpha, beta, best_move, best_move, 0)
        return best_score, best_move

    # -- the tree ---------------------------------------------------------------------------

    def _search(self, depth: int, alpha: int, beta: int, ply: int, null_allowed: bool) -> int:
        """The score of the position reached, within (*alpha*, *beta*), searched *depth* plies
        deep. The node ends at the first step that decides it: a draw, a mate bound, the horizon,
        the table's entry, a static cut; else its moves are searched (:meth:`_search_moves`)."""
        self._count_node()
        pv_node = beta - alpha > 1
        if self._is_draw(ply):
            return 0
        # Mate-distance pruning: no line from here can beat a mate already found nearer the root.
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha
        in_check = self.position.in_check()
        if in_check:
            depth += 1  # check extension
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiescence_node(alpha, beta, ply, in_check, True)  # this node, already counted
        hash_move, score = self._probe(depth, alpha, beta, ply, pv_node)
        if score != NO_SCORE:
            return score
        static = -INFINITY if in_check else self._evaluate()
        self.statics[ply] = static
        improving = not in_check and (ply < 2 or static > self.statics[ply - 2])
        if not pv_node and not in_check:
            score = self._static_cut(depth, beta, ply, static, improving, null_allowed)
            if score == NO_SCORE and depth >= PROBCUT_DEPTH and -MATE_BOUND < beta < MATE_BOUND:
                score = self._probcut(depth, beta, ply, static)
            if score != NO_SCORE:
                return score
        if depth >= IIR_DEPTH and hash_move == NO_MOVE:
            depth -= 1
        return self._search_moves(depth, alpha, beta, ply, pv_node, in_check, static, improving, hash_move)

    def _probe(self, depth: int, alpha: int, beta: int, ply: int, pv_node: bool) -> tuple[Move, int]:
        """The table's move for this position (NO_MOVE if it has none), and its score when the
        entry is deep enough and its bound decides the node, else NO_SCORE. A PV node never takes
        the table's score: its line must come from a search."""
        entry = self._entry(self.keys[-1])
        if entry is None:
            return NO_MOVE, NO_SCORE
        entry_depth, flag, entry_score, hash_move = entry
        if entry_depth >= depth and not pv_node:
            score = _score_from_tt(entry_score, ply)
            if _bound_decides(flag, score, alpha, beta):
                return hash_move, score
        return hash_move, NO_SCORE

    def _static_cut(self, depth: int, beta: int, ply: int, static: int, improving: bool, null_allowed: bool) -> int:
        """The score that ends a non-PV node out of check before any move is searched, else
        NO_SCORE: reverse futility (the static evaluation beats beta by a margin a ply, a ply
        fewer when *improving*), then the null move (:meth:`_null_move_cut`), then razoring (the
        static evaluation far below beta, and quiescence agrees)."""
        if depth <= REVERSE_FUTILITY_DEPTH and static - REVERSE_FUTILITY_MARGIN * (depth - improving) >= beta \
                and -MATE_BOUND < beta < MATE_BOUND:
            return static
        position = self.position
        if null_allowed and depth >= 3 and static >= beta and position.has_non_pawn_material(position.turn):
            return self._null_move_cut(depth, beta, ply, static)
        if depth <= RAZOR_DEPTH and static + RAZOR_MARGINS[depth] < beta - 1:
            score = self._quiescence_node(beta - 1, beta, ply, False, True)  # this node, already counted
            if score < beta:
                return score
        return NO_SCORE

    def _null_move_cut(self, depth: int, beta: int, ply: int, static: int) -> int:
        """The score when passing, searched shallower (by depth and by how far *static* beats
        beta), still beats beta (the side to move has pieces besides pawns, so zugzwang is
        unlikely), else NO_SCORE. A mate found after a pass is not proved: beta is returned instead."""
        reduction = NULL_MOVE_BASE + depth // NULL_MOVE_DEPTH_STEP \
            + min((static - beta) // NULL_MOVE_EVAL_STEP, NULL_MOVE_EVAL_CAP)
        self._push_null()
        try:
            score = -self._search(depth - 1 - reduction, -beta, -beta + 1, ply + 1, False)
        finally:
            self._pop()
        if score < beta:
            return NO_SCORE
        return beta if score >= MATE_BOUND else score

    def _probcut(self, depth: int, beta: int, ply: int, static: int) -> int:
        """The score that ends a non-PV node out of check when a good capture beats beta by
        PROBCUT_MARGIN in a search PROBCUT_REDUCTION plies shallower (first checked by quiescence,
        which is cheap and usually says no), else NO_SCORE. Only captures whose exchange could
        lift the static evaluation that far are tried; the cut is stored as a lower bound."""
        position = self.position
        raised_beta = beta + PROBCUT_MARGIN
        needed = raised_beta - static
        pin_squares = position.pin_squares(False)
        for move in gaining_moves(position, needed, skip_losing=True):
            if static_exchange(position, move) < needed:
                continue
            if not self._push_legal(move, pin_squares):
                continue
            try:
                score = -self._quiescence(-raised_beta, -raised_beta + 1, ply + 1)
                if score >= raised_beta:
                    score = -self._search(depth - 1 - PROBCUT_REDUCTION, -raised_beta, -raised_beta + 1, ply + 1,
                                          True)
            finally:
                self._pop()
            if score >= raised_beta:
                self._store(depth - PROBCUT_REDUCTION, score, raised_beta - 1, raised_beta, move, move, ply)
                return score
        return NO_SCORE

    def _search_moves(self, depth: int, alpha: int, beta: int, ply: int, pv_node: bool, in_check: bool,
                      static: int, improving: bool, hash_move: Move) -> int:
        """The best score of the node's moves, searched in order (:class:`MovePicker`), and
        stored in the table; a node without a legal move is mated or stalemated. In a non-PV node
        out of check, some moves after the first are skipped: quiet ones beyond
        :func:`_quiets_allowed`, unless they give check (found from the squares each piece type
        checks from, looked up once a node), and those that lose too much material
        (:func:`_loses_exchange`)."""
        position = self.position
        prune = not pv_node and not in_check
        quiets_allowed = _quiets_allowed(depth, alpha, static, improving) if prune else MAX_MOVES
        quiets = searched = 0
        original_alpha = alpha
        best_score, best_move = -INFINITY, NO_MOVE
        killers = self.killers[ply]
        history = self.history[position.turn]
        previous = self.stack[-1]
        countermove = self.countermoves[position.turn][from_to_of(previous)] if previous else NO_MOVE
        replies = _continuation_row(position, previous)
        continuation = self.continuation
        failed_quiets = vec[i64]()
        pin_squares = position.pin_squares(in_check)
        checking: tuple[Bitboard, ...] | None = None
        picker = MovePicker(position, hash_move, killers, countermove, history, continuation, replies)
        while True:
            move = picker.next()
            if not move:
                break
            quiet = not position.is_capture(move) and not promotion_of(move)
            if prune and searched:
                if quiet and quiets >= quiets_allowed:
                    if checking is None:
                        checking = check_squares(position)
                    if not gives_check(position, move, checking):
                        continue
                if _loses_exchange(position, move, quiet, depth):
                    continue
            if not self._push_legal(move, pin_squares):
                continue
            quiets += quiet
            try:
                if searched == 0:
                    score = -self._search(depth - 1, -beta, -alpha, ply + 1, True)
                else:
                    reduction = 0
                    if (depth >= 3 and searched >= 3 and quiet and not in_check and move != countermove
                            and move not in killers and not position.in_check()):
                        reduction = self._late_move_reduction(move, depth, searched, pv_node, history, replies)
                    score = self._zero_window_search(depth, alpha, beta, ply, reduction)
            finally:
                self._pop()
            searched += 1
            if score > best_score:
                best_score, best_move = score, move
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        if quiet:
                            self._reward_quiet(move, depth, killers, history, failed_quiets, previous, replies)
                        break
            if quiet:
                failed_quiets = append(failed_quiets, move)

        if searched == 0:
            return -MATE + ply if in_check else 0
        self._store(depth, best_score, original_alpha, beta, best_move, hash_move, ply)
        return best_score

    def _late_move_reduction(self, move: Move, depth: int, searched: int, pv_node: bool, history: vec[i64],
                             replies: int) -> int:
        """Plies a late quiet *move* (just pushed) is searched less: logarithmic in the depth and
        the moves searched before it, one less in a PV node, less or more by its two histories,
        and never to below one ply."""
        reduction = _REDUCTIONS[min(depth, _LMR_SIZE - 1) * _LMR_SIZE + min(searched, _LMR_SIZE - 1)]
        if pv_node:
            reduction -= 1
        scored = _quiet_score(self.position, move, history, self.continuation, replies, moved=True)
        reduction -= (scored + LMR_HISTORY_STEP // 2) // LMR_HISTORY_STEP
        return max(0, min(reduction, depth - 2))

    def _zero_window_search(self, depth: int, alpha: int, beta: int, ply: int, reduction: int) -> int:
        """The score of a move after the first (just pushed): a null window on alpha, *reduction*
        plies shallower, proves most moves no better; one that beats alpha is searched again at
        full depth, and with the full window when its score falls inside it."""
        score = -self._search(depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, True)
        if score > alpha and reduction:
            score = -self._search(depth - 1, -alpha - 1, -alpha, ply + 1, True)
        if alpha < score < beta:
            score = -self._search(depth - 1, -beta, -alpha, ply + 1, True)
        return score

    def _quiescence(self, alpha: int, beta: int, ply: int) -> int:
        self._count_node()
        return self._quiescence_node(alpha, beta, ply, self.position.in_check(), False)

    def _quiescence_node(self, alpha: int, beta: int, ply: int, in_check: bool, first: bool) -> int:
        """Quiescence search of a node already counted (by :meth:`_quiescence`, or by
        :meth:`_search` at its horizon, which also knows whether the side to move is in check).
        At the *first* quiescence ply the quiet checks are tried after the captures. The table
        is read here too: any entry is as deep as a quiescence search, so a bound that decides
        the node ends it; and the node's own result is stored, at depth 0, where no deeper entry
        of the position would be overwritten."""
        position = self.position
        entry = self._entry(self.keys[-1])
        if entry is not None:
            _, flag, entry_score, _ = entry
            score = _score_from_tt(entry_score, ply)
            if _bound_decides(flag, score, alpha, beta):
                return score
        original_alpha = alpha
        best_move = NO_MOVE
        moves: list[Move]
        if in_check:
            if ply >= MAX_PLY:
                return self._evaluate()
            moves = _by_capture_value(position, position.pseudo_legal_moves())
            best = -MATE + ply
        else:
            stand_pat = evaluation.material_score(position.turn, (position.mg, position.eg, position.phase))
            if stand_pat - evaluation.LAZY_MARGIN < beta:
                stand_pat = self._evaluate()
            if stand_pat >= beta or ply >= MAX_PLY:
                return stand_pat
            alpha = max(alpha, stand_pat)
            best = stand_pat
            # Delta pruning: captures that cannot lift the score to alpha are not generated.
            moves = gaining_moves(position, alpha - stand_pat - DELTA_MARGIN + 1, skip_losing=True)
            if first:
                # A check that loses its exchange is taken at once (unless it mates, which the
                # search proper finds a ply earlier).
                moves += [move for move in quiet_checks(position) if static_exchange(position, move) >= 0]
        pin_squares = position.pin_squares(in_check)
        for move in moves:
            if not self._push_legal(move, pin_squares):
                continue
            try:
                score = -self._quiescence(-beta, -alpha, ply + 1)
            finally:
                self._pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    best_move = move
                    if score >= beta:
                        break
        if entry is None or entry[0] == 0:
            # A node that failed low is stored as "at most alpha", not at its own score: delta
            # pruning skipped captures that may score above that, though not above alpha.
            self._store(0, max(best, original_alpha), original_alpha, beta, best_move,
                        NO_MOVE if entry is None else entry[3], ply)
        return best

    # -- helpers ----------------------------------------------------------------------------

    # The line's stacks are native vectors: a list would box each 64-bit key and move it holds.
    def _push(self, move: Move) -> None:
        self.position.push(move)
        self.keys = append(self.keys, self.position.key)
        self.stack = append(self.stack, move)

    def _push_legal(self, move: Move, pin_squares: Bitboard) -> bool:
        """Pushes the pseudo-legal *move*, or takes it back and says False when it leaves the
        mover's royal knight attacked: only a move from one of *pin_squares* (the node's
        :meth:`Position.pin_squares`) can, so the others skip the attack test."""
        self._push(move)
        if BB_SQUARES[from_square_of(move)] & pin_squares and self.position.mover_in_check():
            self._pop()
            return False
        return True

    def _push_null(self) -> None:
        self.position.push_null()
        self.keys = append(self.keys, self.position.key)
        self.stack = append(self.stack, NO_MOVE)
        self.null_floors = append(self.null_floors, len(self.keys) - 1)

    def _pop(self) -> None:
        if len(self.null_floors) > 1 and self.null_floors[-1] == len(self.keys) - 1:
            self.null_floors = pop(self.null_floors)[0]
        self.position.pop()
        self.keys = pop(self.keys)[0]
        self.stack = pop(self.stack)[0]

    def _count_node(self) -> None:
        """Counts a node, and every CHECK_EVERY nodes looks at the limits (:meth:`_checkpoint`)."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._checkpoint()

    def _evaluate(self) -> int:
        """The full static evaluation, cached by position key (transpositions are common, and a
        position comes back in the next move's search)."""
        key: i64 = self.keys[-1]
        slot = key & (EVAL_CACHE_SLOTS - 1)
        cache = self.eval_cache
        if key and cache.keys[slot] == key:
            return cache.scores[slot]
        score = evaluation.evaluate(self.position, self.pawn_cache)
        cache.keys[slot] = key
        cache.scores[slot] = score
        return score

    def _is_draw(self, ply: int) -> bool:
        position = self.position
        clock = position.halfmove_clock
        if clock >= 100:
            # The fifty-move rule yields to mate, as in chess and in Fairy-Stockfish.
            return not (position.in_check() and not position.legal_moves())
        if clock >= 4:
            keys = self.keys
            key = keys[-1]
            last = len(keys) - 1
            for index in range(last - 4, max(self.null_floors[-1], last - clock) - 1, -2):
                if keys[index] == key:
                    return True
        if not position.pawns and popcount(position.occupied) <= 4:
            occupied, bishops, royals = position.occupied, position.bishops, position.kings
            return (insufficient_material(position.white, occupied, bishops, royals)
                    and insufficient_material(position.black, occupied, bishops, royals))
        return False

    def _reward_quiet(self, move: Move, depth: int, killers: vec[i64], history: vec[i64],
                      failed_quiets: vec[i64], previous: Move, replies: int) -> None:
        """A quiet move cut: it becomes the first killer and the countermove of *previous*,
        gains both histories, and the quiet moves tried before it lose as much."""
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        if previous:
            self.countermoves[self.position.turn][from_to_of(previous)] = move
        bonus = min(depth * depth + depth, HISTORY_BONUS_MAX)
        position, continuation = self.position, self.continuation
        _update_history(history, from_to_of(move), bonus)
        _update_history(continuation, _reply_slot(position, move, replies), bonus)
        for failed in failed_quiets:
            _update_history(history, from_to_of(failed), -bonus)
            _update_history(continuation, _reply_slot(position, failed, replies), -bonus)

    def _entry(self, key: int) -> tuple[int, int, int, Move] | None:
        shared = self.shared
        return self.tt.get(key) if shared is None else shared.get(key)

    def _store(self, depth: int, score: int, alpha: int, beta: int, move: Move, hash_move: Move, ply: int) -> None:
        """Enters the node's result in the table with its best *move*. A node that failed low
        knows no best move (each of its scores is an upper bound), so it keeps the *hash_move* it
        had rather than store the highest bound's move over it."""
        flag = UPPER if score <= alpha else LOWER if score >= beta else EXACT
        if flag == UPPER:
            move = hash_move
        key = self.keys[-1]
        shared = self.shared
        if shared is not None:
            shared.put(key, depth, flag, _score_to_tt(score, ply), move)
            return
        if len(self.tt) >= self.tt_capacity and key not in self.tt:
            self._make_room()
        self.tt[key] = (depth, flag, _score_to_tt(score, ply), move)

    def _make_room(self) -> None:
        """Frees at least a quarter of a full table, keeping its exact entries (the principal
        variations, this iteration's among them) and its deep bounds: the bounds shallower than
        TT_KEEP_DEPTH go, or every bound when those are too few. (Clearing the whole table, as
        was done, threw the current iteration's principal variation away mid-search.)"""
        tt = self.tt
        doomed = [key for key, entry in tt.items() if entry[1] != EXACT and entry[0] < TT_KEEP_DEPTH]
        if len(doomed) < len(tt) // 4:
            doomed = [key for key, entry in tt.items() if entry[1] != EXACT]
        for key in doomed:
            del tt[key]
        if len(tt) >= self.tt_capacity:
            tt.clear()  # only exact entries: a table too small to keep even those

    def _set_deadlines(self, time_budget: Budget, clock_started: float) -> None:
        self.clock_started = clock_started
        if time_budget.soft_ms is not None:
            self.soft_deadline = clock_started + time_budget.soft_ms / 1000
        if time_budget.hard_ms is not None:
            self.hard_deadline = clock_started + time_budget.hard_ms / 1000

    def _check_ponder_hit(self) -> None:
        """Once the pondered move is played, the search obeys the real move's limits, its time
        counted from that moment; the iteration in progress goes on."""
        ponder = self.ponder
        if ponder is None or not ponder.is_hit:
            return
        self.ponder = None
        limits = ponder.limits
        time_budget = budget(limits, self.turn, self.move_number)
        if time_budget.soft_ms is not None and time_budget.hard_ms is not None:
            time_budget = Budget(time_budget.soft_ms, min(time_budget.hard_ms,
                                                          time_budget.soft_ms * PONDER_HIT_HARD_FACTOR))
        self._set_deadlines(time_budget, ponder.hit_at)
        if limits.depth is not None:
            self.max_depth = min(limits.depth, MAX_PLY)
            if self.depth > self.max_depth:
                self.hard_deadline = ponder.hit_at  # already past the depth asked for: answer now
        if limits.nodes is not None:
            self.node_limit = limits.nodes

    def _checkpoint(self) -> None:
        self._check_ponder_hit()
        self.next_check = self.nodes + CHECK_EVERY
        if self.node_limit is not None and self.depth > self.min_depth:
            if self.nodes >= self.node_limit:
                raise _Abort
            self.next_check = min(self.next_check, self.node_limit)
        if self.hard_deadline is not None and time.perf_counter() >= self.hard_deadline:
            raise _Abort
        if self.shared is not None:
            self.shared.publish_nodes(self.worker, self.nodes)
        if self.stop is not None and self.stop.is_set():
            raise _Abort

    def _principal_variation(self, first: Move) -> tuple[chess.Move, ...]:
        """The first move and the hash moves after it, as far as they are legal and new.

        Called between iterations, when the position is back at the root; leaves it there.
        """
        position = self.position
        pv = [first]
        position.push(first)
        seen = {position.key}
        while len(pv) < MAX_PLY:
            entry = self._entry(position.key)
            if entry is None or not position.is_pseudo_legal(entry[3]):
                break
            position.push(entry[3])
            if position.mover_in_check():
                position.pop()
                break
            pv.append(entry[3])
            if position.key in seen:
                break
            seen.add(position.key)
        for _ in pv:
            position.pop()
        return tuple(decode(move) for move in pv)

    def _elapsed_ms(self) -> int:
        return int((time.perf_counter() - self.started) * 1000)


def _line_score(line: tuple[int, Move, tuple[chess.Move, ...]]) -> int:
    return line[0]


def _new_histories() -> tuple[list[vec[i64]], list[vec[i64]], vec[i64]]:
    """Empty move-ordering tables: the from-to history and the countermoves (by side to move), and
    the continuation history. Native vectors: a list would box every score it is given."""
    return ([vec[i64]([0] * FROM_TO_SLOTS) for _ in chess.COLORS],
            [vec[i64]([NO_MOVE] * FROM_TO_SLOTS) for _ in chess.COLORS],
            vec[i64]([0] * (_CONTINUATION_ROW * _CONTINUATION_ROW)))


def _update_history(history: vec[i64], index: int, bonus: i64) -> None:
    """Moves a history score by *bonus*, less the share of it the score already has of the bound."""
    score: i64 = history[index]  # native arithmetic: mypyc multiplies a negative int the slow way
    size = bonus if bonus >= 0 else -bonus  # and abs() is a Python call
    history[index] = score + bonus - score * size // HISTORY_MAX


def _continuation_row(position: Position, previous: Move) -> int:
    """Where the continuation history's row for the replies to *previous* starts: by the piece
    type that move brought to its destination, row 0 after no move or a null move."""
    if not previous:
        return 0
    to_square = to_square_of(previous)
    return (position.types[to_square] * 64 + to_square) * _CONTINUATION_ROW


def _reply_slot(position: Position, move: Move, replies: int, moved: bool = False) -> int:
    """Where *move* sits in the continuation history's row *replies*: by the piece that moves and
    its destination. The piece is on the move's origin, or on its destination once it is *moved*."""
    to_square = to_square_of(move)
    return replies + position.types[to_square if moved else from_square_of(move)] * 64 + to_square


def _bound_decides(flag: int, score: int, alpha: int, beta: int) -> bool:
    """Whether a table entry's *score*, with its bound's *flag*, settles a node searched within
    (*alpha*, *beta*): an exact score does, a lower bound at or above beta, an upper bound at or
    below alpha."""
    return flag == EXACT or (flag == LOWER and score >= beta) or (flag == UPPER and score <= alpha)


def _quiets_allowed(depth: int, alpha: int, static: int, improving: bool) -> int:
    """How many quiet moves a non-PV node out of check searches before it skips the rest (except
    those that give check): none after its first move when the static evaluation is too far below
    alpha for a quiet move to matter (futility), a few by depth near the leaves (late-move
    pruning: the ordering put the promising ones first), fewer when the side to move is not
    *improving* (its position is getting worse, so a late quiet move is less likely to save it),
    else all."""
    if depth < len(FUTILITY_MARGINS) and -MATE_BOUND < alpha < MATE_BOUND and static + FUTILITY_MARGINS[depth] <= alpha:
        return 0
    if depth >= len(LATE_MOVE_LIMITS):
        return MAX_MOVES
    return LATE_MOVE_LIMITS[depth] if improving else LATE_MOVE_LIMITS_NOT_IMPROVING[depth]


def _loses_exchange(position: Position, move: Move, quiet: bool, depth: int) -> bool:
    """Whether *move*, near the leaves, loses more material in its static exchange than the
    node can hope to win back (SEE pruning); a promotion never does."""
    if depth > SEE_PRUNE_DEPTH or promotion_of(move):
        return False
    margin = SEE_QUIET_MARGIN * depth * depth if quiet else SEE_CAPTURE_MARGIN * depth
    return static_exchange(position, move) < -margin


def _quiet_score(position: Position, move: Move, history: vec[i64], continuation: vec[i64], replies: int,
                 moved: bool = False) -> int:
    """A quiet move's two histories together: from-to, and as a reply to the move before."""
    return history[from_to_of(move)] + continuation[_reply_slot(position, move, replies, moved)]


# The stages of MovePicker, in the order it goes through them. A stage's moves are generated when
# the stage is reached, not before: the moves before them may cut the node, and the quiet moves'
# order depends on the histories the searches of the moves before them update.
_HASH_MOVE: Final = 0
_GENERATE_CAPTURES: Final = 1
_GOOD_CAPTURES: Final = 2
_KILLERS: Final = 3
_COUNTERMOVE: Final = 4
_GENERATE_QUIETS: Final = 5
_QUIETS: Final = 6
_BAD_CAPTURES: Final = 7
_DONE: Final = 8


class MovePicker:
    """Pseudo-legal moves in search order, generated in stages because a node is often refuted
    by its first moves: the hash move before any generation, then captures that do not give
    material away (most valuable victim, cheapest attacker), then the killers and the
    countermove, the other quiet moves (promotions first, the rest by their histories), and last the
    captures by a more valuable piece that lose their static exchange.

    A class, not a generator: a generator boxes each move it yields into an int object, and its
    frame is an object too; :meth:`next` returns a native int."""

    def __init__(self, position: Position, hash_move: Move, killers: vec[i64], countermove: Move,
                 history: vec[i64], continuation: vec[i64], replies: int) -> None:
        self.position = position
        self.hash_move: i64 = hash_move
        self.killers = killers
        self.countermove: i64 = countermove
        self.history = history
        self.continuation = continuation
        self.replies = replies
        self.stage: i64 = _HASH_MOVE
        # The stage's moves, packed with their order (see moves.best_first), and how many are left.
        self.items = vec[i64]()
        self.left: i64 = 0
        self.bad = vec[i64]()
        self.next_killer: i64 = 0

    def next(self) -> Move:
        """The next move, NO_MOVE after the last."""
        position = self.position
        while True:
            stage = self.stage
            if stage == _GOOD_CAPTURES or stage == _QUIETS or stage == _BAD_CAPTURES:
                left = self.left
                if left:
                    self.left = left - 1
                    return _take_best(self.items, left) & MOVE_MASK
                if stage == _GOOD_CAPTURES:
                    self.stage = _KILLERS
                elif stage == _QUIETS:
                    self._pick_from(_BAD_CAPTURES, self.bad)
                else:
                    self.stage = _DONE
            elif stage == _HASH_MOVE:
                self.stage = _GENERATE_CAPTURES
                hash_move = self.hash_move
                if hash_move and position.is_pseudo_legal(hash_move):
                    return hash_move
                self.hash_move = NO_MOVE
            elif stage == _GENERATE_CAPTURES:
                self._pick_from(_GOOD_CAPTURES, self._captures())
            elif stage == _KILLERS:
                if self.next_killer == 2:
                    self.stage = _COUNTERMOVE
                else:
                    killer = self.killers[self.next_killer]
                    self.next_killer += 1
                    if _is_playable_quiet(position, killer, self.hash_move):
                        return killer
            elif stage == _COUNTERMOVE:
                self.stage = _GENERATE_QUIETS
                countermove = self.countermove
                if countermove != self.killers[0] and countermove != self.killers[1] \
                        and _is_playable_quiet(position, countermove, self.hash_move):
                    return countermove
                self.countermove = NO_MOVE
            elif stage == _GENERATE_QUIETS:
                self._pick_from(_QUIETS, self._quiets())
            else:
                return NO_MOVE

    def _pick_from(self, stage: i64, items: vec[i64]) -> None:
        self.stage = stage
        self.items = items
        self.left = len(items)

    def _captures(self) -> vec[i64]:
        """The captures that do not lose their exchange, scored; the others go to ``bad``."""
        position = self.position
        hash_move = self.hash_move
        types = position.types
        values = PIECE_VALUES
        good, bad = vec[i64](), vec[i64]()
        for move in position.captures(position.side(not position.turn)):
            if move == hash_move:
                continue
            victim = values[types[to_square_of(move)] or PAWN]
            attacker = types[from_square_of(move)]
            promotion = promotion_of(move)
            item = (capture_order(victim, attacker) + _PROMOTION_ORDER[promotion]) << ORDER_SHIFT | move
            if values[attacker] > victim and not promotion and static_exchange(position, move) < 0:
                bad = append(bad, item)
            else:
                good = append(good, item)
        self.bad = bad
        return good

    def _quiets(self) -> vec[i64]:
        """The quiet moves not tried already, scored: promotions first, the rest by their histories."""
        position = self.position
        hash_move, countermove = self.hash_move, self.countermove
        first_killer, second_killer = self.killers[0], self.killers[1]
        history, continuation, replies = self.history, self.continuation, self.replies
        scored = vec[i64]()
        for move in position.quiet_moves():
            if move != hash_move and move != first_killer and move != second_killer and move != countermove:
                promotion = promotion_of(move)
                order = _PROMOTION_ORDER[promotion] if promotion \
                    else _quiet_score(position, move, history, continuation, replies) - _QUIET_ORDER_OFFSET
                scored = append(scored, order << ORDER_SHIFT | move)
        return scored


def _take_best(items: vec[i64], count: i64) -> i64:
    """The highest of the first *count* (at least one) *items*, whose place the last of them
    takes: a selection sort, one step at a time, for a node is often cut by its first moves
    and most of a full sort would be wasted. Items are distinct (each holds its move), so the
    order is the one a sort would give. (Native indices: a vector indexed by an int converts it
    at each use.)"""
    last = count - 1
    best_index = last
    best = items[last]
    for index in range(last):
        item = items[index]
        if item > best:
            best, best_index = item, index
    items[best_index] = items[last]
    return best


def _is_playable_quiet(position: Position, move: Move, hash_move: Move) -> bool:
    """Whether a remembered quiet move (a killer, a countermove) is to be tried here: it is a
    move, not the hash move already tried, and still a pseudo-legal non-capture in this position
    (it was learnt in another)."""
    return move != NO_MOVE and move != hash_move and not position.is_capture(move) and position.is_pseudo_legal(move)


def _by_capture_value(position: Position, moves: vec[i64]) -> list[Move]:
    """*moves* by their captured value (a promotion's gain included), most valuable victim
    first, then cheapest attacker."""
    types = position.types
    values = PIECE_VALUES
    keys = []
    for move in moves:
        value = values[types[to_square_of(move)] or PAWN] if position.is_capture(move) else 0
        promotion = promotion_of(move)
        if promotion:
            value += values[promotion] - values[PAWN]
        keys.append(capture_order(value, types[from_square_of(move)]) << ORDER_SHIFT | move)
    return best_first(keys)


def _mate_plies(mate: int) -> int:
    """The plies of a mate in *mate* moves: ours up to the mating one, or, being mated (*mate*
    negative), each of ours answered."""
    return 2 * mate - 1 if mate > 0 else -2 * mate


def _score_to_tt(score: int, ply: int) -> int:
    """Mate scores are stored relative to the node, so they stay right at another ply."""
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def _score_from_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


def _replay(board: KnightmateBoard) -> tuple[Position, vec[i64]]:
    """The search position for *board*, and the keys of the game's positions so far (as far as
    the fifty-move counter reaches), oldest first, ending with the current one: the search checks
    repetitions against them. The position is reached by replaying those moves, so the keys come
    from the same pushes the search makes (it never pops below its root)."""
    replay = board.copy()
    moves = [replay.pop() for _ in range(min(board.halfmove_clock, len(board.move_stack)))]
    position = Position.from_board(replay)
    keys = vec[i64]([position.key])
    for move in reversed(moves):
        position.push(encode(move))
        keys = append(keys, position.key)
    return position, keys
