"""The Knightmate engine: search, evaluation, time management and the UCI front end.

The bot and ``knightmate-bot uci`` both use :class:`Engine`; this package never touches the network.
"""

from bot.engine.clock import Limits, Ponder
from bot.engine.search import Engine, SearchResult

__all__ = ["Engine", "Limits", "Ponder", "SearchResult"]
