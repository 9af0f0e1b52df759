"""The Knightmate engine: search, evaluation, time management and the UCI front end.

The bot and ``knightmate-bot uci`` both use :class:`Engine`; this package never touches the network.
"""

from bot.engine import build

build.choose()  # before any engine module is imported: compiled or pure, see bot.engine.build

from bot.engine.clock import Limits, Ponder  # noqa: E402
from bot.engine.result import SearchResult  # noqa: E402
from bot.engine.search import Engine  # noqa: E402

__all__ = ["Engine", "Limits", "Ponder", "SearchResult"]
