"""The ``knightmate-bot`` command line: argparse in :mod:`bot.cli.main`, one module a group of subcommands."""
