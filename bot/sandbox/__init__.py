"""A local Lichess-style Bot API server, in the Lichess or the pychess dialect, for tests and trials.

It speaks the Bot API as ``docs/api.md`` documents each server, over real HTTP on a loopback
address only, with :class:`variant.KnightmateBoard` as the referee, opponents it plays itself and
faults injected on demand. Tests and ``knightmate-bot demo`` drive it in-process through
:class:`Sandbox`; ``knightmate-bot sandbox`` and ``knightmate-bot play`` serve it. It is never used
by ``knightmate-bot run``, and it never logs tokens.

Its manual (the control API, the human seat, the two dialects as imitated) is ``docs/sandbox.md``.
"""

from bot.sandbox.control import GameSnapshot, Sandbox

__all__ = ["GameSnapshot", "Sandbox"]
