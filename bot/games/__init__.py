"""The playing of games: the event loop that takes challenges, one state machine a game, and what a game keeps."""
