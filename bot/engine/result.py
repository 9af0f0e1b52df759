"""What a search returns: :class:`SearchResult`.

It lives apart from :mod:`bot.engine.search` because that module may be compiled with mypyc, and
a frozen dataclass compiled by mypyc cannot be unpickled (an open mypyc issue), while the result
travels back from the worker processes of :mod:`bot.thinking.search_pool` by pickle. This module stays
plain Python in every build.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess


@dataclass(frozen=True)
class SearchResult:
    """The outcome of a search (or of one iteration, in ``on_info`` reports). Picklable.

    ``score_cp`` and ``mate`` are from the side to move's view; exactly one of them is set,
    except in a move from the opening book (``from_book``), which has neither and was not
    searched (depth 0, no nodes). ``mate`` is N for mate in N moves, negative when being mated,
    0 when mated already.
    """

    move: chess.Move | None
    score_cp: int | None
    mate: int | None
    depth: int
    nodes: int
    time_ms: int
    pv: tuple[chess.Move, ...]
    from_book: bool = False
    #: A MultiPV search's lines, best first, each with its exact score (the first is this result's
    #: line); empty for a single-line search (see :meth:`principal_lines`).
    lines: tuple[SearchResult, ...] = ()

    def principal_lines(self) -> tuple[SearchResult, ...]:
        """The lines of a MultiPV search, or this one line for a single-line search."""
        return self.lines or (self,)
