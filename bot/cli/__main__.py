"""``python -m bot.cli``: the same command line as the ``knightmate-bot`` script."""

import sys

from bot.cli.main import main

sys.exit(main())
