"""A local Lichess-style Bot API server, in the Lichess or the pychess dialect (see API.md).

Tests and ``knightmate-bot demo`` start it in-process with :class:`Sandbox`; the bot under test
only speaks HTTP to ``sandbox.url``. It binds loopback addresses only and is never used by
``knightmate-bot run``. The full control API is documented in the next commits.
"""

from bot.sandbox.control import GameRecord, Sandbox

__all__ = ["GameRecord", "Sandbox"]
