"""The command line's exit codes, in one place for the commands that return them and the help that
documents them. Imports nothing, so every command may name them at no cost."""

#: Done: every game used.
EXIT_ALL_DONE = 0
#: At least one game was passed over (each named on standard error); the others were used.
EXIT_SOME_PASSED_OVER = 1
#: Bad input, a bad config or an engine that does not start: one line on standard error, nothing done.
EXIT_USAGE = 2
#: The exit codes of the commands that read PGN games (``analyse``, ``puzzles``), for their ``--help``.
GAMES_EXIT_HELP = (f"exit status: {EXIT_ALL_DONE} every game done; {EXIT_SOME_PASSED_OVER} some games passed over "
                   "(each named on stderr: another variant, an illegal move, no moves), the others done; "
                   f"{EXIT_USAGE} bad input (a missing path, a file that is not PGN) or an engine that does not "
                   "start, nothing done")
