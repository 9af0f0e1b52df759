"""Where a game's moves come from: the built-in engine in worker processes, or any UCI engine."""
