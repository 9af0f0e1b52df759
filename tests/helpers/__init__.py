"""What the tests share and no test module holds: harnesses, stand-ins and reference data, no tests.

A test module imports from here (or gets a fixture from a ``conftest.py``), never from another test
module. By what they stand in for:

- ``bot_harness``: the bot on a thread against the sandbox, and the checks every finished game passes;
  ``bot_process``: ``knightmate-bot`` as a process, its config and environment.
- ``sandbox_harness``: a scripted Bot API client for the sandbox's own tests.
- ``fake_server``: a scripted HTTP server for the client's tests.
- ``games_harness``: a game record, a scripted game client and a one-move engine for the games layer.
- ``engine_processes``, ``uci_fake_engine``, ``uci_recorder``: external UCI engines, real, faulty or
  recorded; ``search_internals``: the search's internals built by hand.
- ``fairy``, ``perft_counts``, ``random_positions``: Fairy-Stockfish as the rules' referee, its perft
  counts, seeded random positions.
- ``markers``: how a module says where its fixture differs (see tests/conftest.py).
"""
