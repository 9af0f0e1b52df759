"""This package's command line as a child process of this Python: the installed build answers,
whatever the working folder.

``python -m bot.cli`` puts the working folder first on the module path, so a child started from a
source tree imports that tree's ``bot`` (the engine's pure-Python sources, no compiled modules)
instead of the build this environment installed: the analysis board, the review and ``analyse``
then search at a fraction of the speed. Python's ``-P`` (3.11) leaves the working folder out, so
the child imports what this interpreter's environment has installed (an editable install
included), and a ``bot/`` folder where the user happens to stand can neither slow the engine
down nor run in its place. It sits outside the layers so all of them may use it; it imports
nothing of the bot.
"""

from __future__ import annotations

import sys

#: ``knightmate-bot`` as a child process of this interpreter; the subcommand and its arguments follow.
OWN_COMMAND: tuple[str, ...] = (sys.executable, "-P", "-m", "bot.cli")
