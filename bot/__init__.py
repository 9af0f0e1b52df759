"""knightmate-bot: a Knightmate engine and a bot for Lichess-style Bot APIs."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("knightmate-bot")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
