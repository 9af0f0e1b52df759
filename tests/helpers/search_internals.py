"""The search's internals set up by hand, for tests that drive one node or one quiescence call where a
whole search would hide what they look at behind its other pruning."""

from __future__ import annotations

import time

from bot.engine import Limits
from bot.engine.clock import Budget
from bot.engine.evaluation import PawnCache
from bot.engine.search import EvalCache, _new_histories, _Search
from variant import KnightmateBoard


def make_search(fen: str, tt: dict[int, tuple[int, int, int, int]] | None = None,
                tt_capacity: int = 100_000) -> _Search:
    """A search of *fen* with no limits, its tables fresh (or *tt*)."""
    return _Search(KnightmateBoard(fen), Limits(depth=1), Budget(None, None), time.perf_counter(), None,
                   {} if tt is None else tt, tt_capacity, *_new_histories(), PawnCache(), EvalCache(), None, 1, 0)
