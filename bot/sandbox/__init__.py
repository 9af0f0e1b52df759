"""A local Lichess-style Bot API server, in the Lichess or the pychess dialect, for tests and trials.

The sandbox speaks the Bot API exactly as ``docs/api.md`` documents each server, over real HTTP
on a loopback address (it refuses any other), with the standard library only: a threading HTTP
server writing HTTP/1.1 chunked ndjson streams by hand, :class:`variant.KnightmateBoard` as the
referee, clocks that flag, opponents it plays itself and faults injected on demand. Tests and
``knightmate-bot demo`` drive it in-process through :class:`Sandbox`; ``knightmate-bot sandbox``
runs it for a person's bot, and ``knightmate-bot play`` for a person to play the bot (the human
seat below). The bot under test only ever speaks HTTP to ``sandbox.url``. The sandbox is never
used by ``knightmate-bot run``, and it never logs tokens.

Control API
===========

::

    from bot.sandbox import Sandbox

    with Sandbox(dialect="lichess",          # or "pychess"
                 host="127.0.0.1", port=0,   # loopback only; 0 = any free port
                 keepalive_s=None,           # keep-alive interval (None: 7 s Lichess, 6 s pychess)
                 first_move_timeout_s=30.0,  # a game whose first two plies do not come ends "noStart"
                 engine_movetime_ms=100,     # the engine opponent's time per move
                 opponent_delay_s=0.0,       # in-process opponents wait this long before each move
                 gone_claim_s=10.0,          # Lichess: seconds until a "gone" opponent can be claimed
                 seed=None) as sandbox:      # seeds random movers and random colours
        sandbox.url                                   # "http://127.0.0.1:PORT"
        sandbox.add_account("mybot", token="tok-1", bot=True, rating=1500)  # a client logs in as this
        sandbox.add_opponent("randy", bot=True, strategy="random", rating=1500, accepts_challenges=True)

        cid = sandbox.challenge("randy", "mybot", limit_s=60, increment_s=1, days=None, rated=False,
                                color="random", initial_fen=None, variant="knightmate", level=0)
        sandbox.wait_challenge_answered(cid, timeout=10)  # -> "accepted" | "declined" | "canceled"
        sandbox.challenge_status(cid)                     # the same, now ("created" while open)
        sandbox.decline_reason(cid)                       # the reason key the server understood
        sandbox.cancel_challenge(cid)                     # challengeCanceled, as the challenger would
        sandbox.challenges_from("mybot")                  # ids of challenges an account created
        game_id = sandbox.game_of_challenge(cid)          # None until accepted; the challenge id after
        game_id = sandbox.rematch("randy", "mybot", limit_s=60, increment_s=1, color="white")
                                                          # gameStart with no challenge line first

        record = sandbox.game(game_id)                    # a snapshot (GameSnapshot), now
        sandbox.games()                                   # snapshots of every game
        record = sandbox.wait_game_over(game_id, timeout=120)
        record = sandbox.wait_moves(game_id, plies=10, timeout=30)   # at least 10 plies, or over
        record = sandbox.wait_game(game_id, lambda r: ..., timeout=5)  # any condition on the record
        sandbox.resign(game_id, "randy")                  # an opponent resigns
        sandbox.abort(game_id, "randy")                   # an opponent aborts (Lichess: before both moved)
        sandbox.abandon(game_id, "randy")                 # an opponent leaves for good and loses ("timeout")
        sandbox.offer_draw(game_id, "randy")              # Lichess: an opponent offers a draw
        sandbox.say(game_id, "randy", "hello", room="player")  # an opponent chats (Lichess: chatLine)

        sandbox.connections("event", "mybot")             # streams of that kind ever opened
        sandbox.connections("game", "mybot", game_id)
        sandbox.open_streams("game", "mybot", game_id)    # streams the server counts as open now
        sandbox.wait_connections("event", "mybot", count=2, timeout=10)
        sandbox.wait_open_streams("event", "mybot", count=1, timeout=10)

        sandbox.faults.http_status("move", 429, count=1, retry_after=2)  # next N requests of a kind
        sandbox.faults.http_status("stream_game", 502, count=2)
        sandbox.faults.drop_event_stream("mybot")         # cut the open event stream(s) now -> count
        sandbox.faults.drop_game_stream(game_id)          # cut that game's open stream(s) -> count
        sandbox.faults.silence("event", seconds=30)       # open streams send nothing, socket kept open
        sandbox.faults.silence("game", seconds=30, game_id=game_id)
        sandbox.faults.malformed_line("game", game_id=game_id)  # the next write is not JSON
        sandbox.faults.round_socket("silent", count=2)    # pychess round socket: "silent", "garbage", "close"
        sandbox.faults.refuse_game_stream(game_id, seconds=6)  # pychess: 200 + raw 409 for that game's stream
        sandbox.faults.lose_event("gameStart", "mybot")   # the next such event never arrives (pychess)
        sandbox.faults.fired                              # [("move", "429"), ("drop", "game"), ...]
        sandbox.faults.wait_fired(1, timeout=10)          # until a fault armed for "next" has fired

Every wait raises :exc:`TimeoutError` when its timeout runs out. :class:`GameSnapshot` fields: ``id``,
``white``, ``black`` (usernames), ``initial_fen``, ``moves`` (UCI, as played), ``status`` (Lichess
status names: started, aborted, mate, resign, stalemate, timeout, draw, outoftime, noStart, and the
sandbox's ``illegalMove`` for a pychess game lost by an illegal move), ``winner`` ("white", "black"
or None), ``over``, ``posts`` (every move POST the server acted on, as ``(username, uci,
accepted)``, in order; posts answered by an injected fault and an in-process opponent's moves are
not posts), ``duplicate_posts`` (refused posts repeating the poster's
last accepted move), ``chat`` (``(username, room, text)``), ``wtime_ms``/``btime_ms``,
``clocks_after_ms`` (the mover's clock after each move, its increment added).

Request kinds for ``http_status``: account, upgrade, stream_event, stream_game, move, accept,
decline, chat, abort, resign, challenge, cancel, draw, takeback, claim, round (the round socket's
handshake). An injected answer has an
HTML body (as proxies send) and ``Retry-After`` when asked. Silence holds keep-alives and lines
back (they follow when it ends) but still notices a client that hung up. A cut stream ends without
the terminating chunk (``ChunkedEncodingError`` in requests).

Opponent strategies: ``random`` (a random legal move), ``engine`` (``bot.engine.Engine`` with
``engine_movetime_ms``; falls back to random moves while the engine cannot be imported or fails),
``idle`` (never moves), ``gone`` (never moves; on Lichess it has left: ``opponentGone`` lines, and
``claim-victory``/``claim-draw`` work after ``gone_claim_s``). Opponents accept Knightmate
challenges (decline other variants with ``variant``, or everything with ``generic`` when
``accepts_challenges=False``), never offer draws unless told to and never accept them.

The human seat
==============

A person plays at the sandbox through a seat of its own, never through the Bot API, whose side
does not change: the bot sees the person's challenges and moves in its dialect, as from anyone.
``knightmate-bot play`` serves it to a browser (``bot/web/page_server.py``, which also checks the
session cookie, the ``X-Knightmate-Play`` header on POSTs and the ``Host``); in-process::

    seat = sandbox.add_person("you", bot="mybot", opponent="randy")   # -> HumanSeat
    seat.challenge("mybot", limit_s=180, increment_s=2, color="white", fen=None)
        # waits for the answer: {"id", "status", "gameId", "declineReason", "message"}
    seat.exhibition(limit_s=180, increment_s=2)   # randy challenges mybot, for the person to watch
    seat.games_json()                             # every game of the sandbox, newest first
    seat.game_json(game_id)                       # one game's whole state (below), any game
    seat.move(game_id, "e2e4"); seat.resign(game_id); seat.abort(game_id); seat.chat(game_id, "gg")
    seat.draw(game_id, accept=True)               # offer or accept a draw (False: decline); Lichess only
    seat.pgn(game_id)                             # the sandbox's PGN of the game so far
    seat.wait_change(lambda: seat.version(game_id), last, timeout=5)   # until the game changes

Its HTTP shape is Lichess's Board API, the Bot API's twin for people (the page's routes):
``GET /api/account``, ``GET /api/games``, ``GET /api/stream/event`` (ndjson ``{"type": "games",
"games": [...]}`` at once and on every change), ``GET /api/board/game/stream/{id}`` (``gameFull``
at once, then ``gameState`` on every change, a new position's first without its legal moves, which
follow in the next line; any game, so a spectator follows it too),
``GET /api/board/game/{id}/pgn`` (the bot's own PGN file once the game is over and written, else
the sandbox's), ``POST /api/challenge/{username}`` (form ``clock.limit`` and ``clock.increment``
in seconds, ``color``, ``fen``; answered once the bot has answered), ``POST /api/exhibition``,
``POST /api/board/game/{id}/move/{uci}|resign|abort|chat`` (form ``text``), ``POST
/api/board/game/{id}/draw/yes|no`` (offer or accept a draw, decline the bot's; the lichess dialect
only, as ``drawOffers`` in the account says: pychess's Bot API carries no draw offers). Errors are
``{"error": "..."}`` with 400 (an illegal or out-of-turn move in either dialect: a person's
misclick never loses a game; a draw offer on pychess), 401, 403, 404 or 421.

A game's state: ``id``, ``white``/``black`` (``name``, ``title``, ``rating``), ``you`` (the
person's colour or null), ``initialFen``, ``clock`` (``initial``, ``increment`` in ms, or null),
``moves`` (UCI, space-separated), ``plies`` (each ``uci``, ``san``, ``fen`` after it and the
checked royal knight's square ``check``), ``fen``, ``turn``, ``check``, ``legalMoves`` (each
``uci``, ``san`` and the ``fen`` after it, from :class:`variant.KnightmateBoard`; empty unless it
is the person's move, null while they are being worked out), ``wtime``/``btime`` (ms, now),
``winc``/``binc``, ``clockRunning``, ``lastMoveAtMs`` (wall-clock ms when the last move's request
reached the server, or the game started), ``startByMs`` (until the first two plies are played:
the wall-clock ms by which the side to move must move, or the game ends ``noStart``), ``status``,
``winner``, ``drawOffer`` (the colour whose draw offer stands, or null), ``abortable``, ``chat``
(``username``, ``room``, ``text``).

The two dialects
================

Both: Bearer tokens (401 otherwise); account, upgrade (400 for a bot or an account with games),
event and game streams, move, accept, decline (form ``reason``; unknown reasons become generic),
chat (form ``room``, ``text``), abort, resign. Clocks start on the third ply and flag at zero
(a draw if the other side cannot mate); repetition and the fifty-move rule end the game at once.

Lichess: blank-line keep-alives; one event stream per token (a new one ends the old); on connect,
``gameStart`` for every unfinished game, then every open incoming challenge; challenge lines with
``challenger.id``, ``destUser``, ``color`` (the challenger's choice) and ``finalColor``,
``initialFen`` when set; ``gameStart``/``gameFinish`` in the full shape; ``gameFull`` with
``initialFen`` "startpos", ``clock`` and increments in ms; the game stream ends after the final
``gameState`` (status, winner); 400 for an illegal or out-of-turn move and for abort once both sides
have moved; ``?offeringDraw=true``, ``draw/yes|no``, ``takeback/yes|no`` (no takebacks are ever
offered), ``claim-victory``/``claim-draw``, and ``POST /api/challenge/{username}`` (form
``clock.limit``, ``clock.increment``, ``days``, ``rated``, ``color``, ``variant``, ``fen``) and
``/api/challenge/{id}/cancel``; JSON decline bodies are read too.

pychess: the ``X-PyChess-Bot-Capabilities`` header is required on the event stream (else 400);
``{"type":"ping"}`` at connect and every interval on both streams; ``{"type":"terminated"}`` on
event streams at shutdown; one event queue per account, kept while no stream is open; on connect,
``gameStart`` only for unfinished games with a move and no game stream still counted open; never
challenges again; challenge lines without ``challenger.id`` or ``initialFen``, ``color`` the
challenger's, ``level`` and ``chess960``; ``gameStart`` as ``{"id","skill_level","chess960"}``
strings; ``gameFull`` with names only, ``initialFen`` "" or the FEN, no clock/speed/rated, increments
in seconds, status always "started"; the game stream never closes; a game-ending move sends no
``gameState``, only ``{"type":"gameEnd","game":{"id"}}``; resign sends the resigner no ``gameEnd``;
a move is always answered 200 (an illegal one loses at once; one out of turn is ignored); abort at
any ply; decline reads form data only (a JSON body's reason becomes generic); chat reaches no bot,
and a chat line to an aborted game is answered 404 (the game is gone); no draw, takeback or claim
endpoints (404) and 403 for a bot's challenge. The round socket a spectator's browser opens,
``ws://HOST:PORT/wsr/{gameId}`` on the API's own host and port, takes any connection without login
(its handshake sets a guest session cookie, ``pychess-variants``) and sends a ``user_present``
message, then ``{"type": "board",
"gameId", "status", "result", "fen", "lastMove", "steps", "ply", "check", "clocks"}``: pychess's full
board, ``steps`` every position of the game (``{"fen", "move", "san", "turnColor", "check"}``, the
first without a move), ``clocks`` ``{"white", "black"}`` in ms as they are now, with pychess's status code
(-1 started, 0 aborted or never started, 1 mate, 2 resign, 3 stalemate, 5 draw, 6 flag, 7 abandon
(the sandbox's ``timeout``), 8 cheat, 10 illegal move, 11 unknown, 12 variant end) and result
("1-0", "0-1", "1/2-1/2", "*"); then it reads until the client closes (a close is answered).
Lichess has no such socket (404). A cut stream still counts
as open until its next keep-alive tick, and a cut event stream swallows the next queued event
then. A game stream asked for while the old one counts open, or for a finished game, gets a 200
with chunked headers and a raw ``HTTP/1.1 409 Conflict`` in the body; for a finished game of
fewer than two plies, a 404 HTML page. ``faults.refuse_game_stream(game_id, seconds)`` gives that
409 for a while although no stream is open: what a bot restarted right after a crash meets while
pychess still counts the killed process's stream open (up to 6 s).
"""

from bot.sandbox.control import GameSnapshot, Sandbox

__all__ = ["GameSnapshot", "Sandbox"]
