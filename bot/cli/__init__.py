"""The ``knightmate-bot`` command line: argparse in :mod:`bot.cli.main`, one module a group of subcommands,
and what they share: :mod:`bot.cli.wiring` (the bot put together) and :mod:`bot.cli.stopping` (signals)."""
