"""One game's state, decisions and record: events in, board and answers out. No I/O, no threads.

The board is rebuilt from ``initialFen`` and the full move list on every state the server sends,
so a reconnect, a skipped line or a restart can never leave the bot on a stale position. The
game knows whose turn it is, what the engine may spend (:meth:`Game.limits`), which moves are
legal, when to abort a game the opponent never started, and how it ended.

Results are never guessed. Lichess says how a game ended; pychess often does not (a bare
``gameEnd``), so the result is then read from the final position when that position is over
(mate, stalemate, dead draw) or from what the bot did itself (it resigned, it aborted), and is
otherwise what the server reports when asked (:attr:`Game.needs_reported_result`; the player
asks), or ``*`` with the reason in :attr:`Result.reason`. A wrong result in a PGN is a defect; an
honest ``*`` is not.
"""

from __future__ import annotations

import datetime
import logging
import re
import time
from dataclasses import dataclass

import chess
import chess.engine
import chess.pgn

from bot.engine import Limits, SearchResult
from bot.games.clock_reserve import ClockReserve, EchoLatency, engine_clock_ms
from bot.remote.events import GameEnded, GameFull, GameState, GameStreamEvent, OpponentGone, Player, ReportedResult
from variant import STARTING_FEN, GameMoveError, KnightmateBoard

log = logging.getLogger(__name__)

#: Our own last move counts for the result (pychess never echoes a game-ending move) only when
#: our clock still had this much left as it was posted: a move posted near zero may have flagged.
SAFE_CLOCK_MARGIN_MS = 1_000

#: Accept a draw offer when our last search said we are at least this much worse (centipawns).
ACCEPT_DRAW_AT_OR_BELOW_CP = -150
#: Offer a draw (where the server has offers) when our last OFFER_DRAW_AFTER_MOVES searches all
#: scored within OFFER_DRAW_WITHIN_CP of level, from ply OFFER_DRAW_FROM_PLY on, and then again
#: only after as many moves more: a dead level game ends sooner, a live one is not pestered.
OFFER_DRAW_WITHIN_CP = 10
OFFER_DRAW_AFTER_MOVES = 8
OFFER_DRAW_FROM_PLY = 60

#: The PGN Termination of each status name, as Lichess's PGN export writes it, with pychess's own
#: names (:data:`bot.remote.wire.PYCHESS_STATUSES`) where Lichess has none. An unknown name: unterminated.
TERMINATIONS = {
    "created": "unterminated", "started": "unterminated", "unknownFinish": "unterminated",
    "aborted": "abandoned", "noStart": "abandoned", "abandon": "abandoned", "bye": "abandoned",
    "timeout": "time forfeit", "outoftime": "time forfeit",
    "mate": "normal", "resign": "normal", "stalemate": "normal", "draw": "normal", "variantEnd": "normal",
    "claim": "normal",
    "cheat": "rules infraction", "illegalMove": "rules infraction",
}
_UNSTARTED_STATUSES = ("aborted", "noStart")
_DRAWN_STATUSES = ("draw", "stalemate")


@dataclass(frozen=True)
class SearchNote:
    """What the bot's search said about the move it played at ``ply``: the PGN's ``[%eval]`` and
    the ``!eval`` chat command read it."""
    ply: int
    score: chess.engine.PovScore | None   # None: a book move, or no score reported
    depth: int
    pv_san: str                           # the expected line in SAN, from the position before the move


@dataclass(frozen=True)
class Result:
    result: str          # "1-0", "0-1", "1/2-1/2" or "*"
    termination: str     # PGN Termination: normal, time forfeit, abandoned, rules infraction, unterminated
    reason: str          # one sentence for the log and the PGN comment


class Game:
    """A game as the bot sees it. Feed it stream events with :meth:`apply`."""

    def __init__(self, game_id: str, username: str, *, site: str, move_overhead_ms: int,
                 max_move_time_ms: int | None, abort_after_s: float, reserve: ClockReserve) -> None:
        """The settings come from :mod:`bot.config`, the one place where they have defaults."""
        self.id = game_id
        self.username = username
        self.site = site
        self.move_overhead_ms = move_overhead_ms
        self.max_move_time_ms = max_move_time_ms
        self.abort_after_s = abort_after_s
        self.reserve = reserve
        self.echoes = EchoLatency()
        self.color: chess.Color | None = None
        self.white: Player | None = None
        self.black: Player | None = None
        self.initial_fen: str | None = None
        self.base_ms: int | None = None
        self.increment_ms: int | None = None
        self.rated: bool | None = None          # None: the server did not say
        self.board = KnightmateBoard()
        self.state: GameState | None = None
        self.state_received = 0.0       # time.monotonic() of the latest state
        self.ended = False              # the server said the game is over
        self.setup_problem: str | None = None   # why the bot must not play this game (abort it)
        self.sync_problem: str | None = None    # why the last move list made no sense
        self.claim_win_at: float | None = None
        self._own_pending: tuple[int, chess.Move] | None = None  # posted, not yet echoed
        self.scores: list[int | None] = []    # our searches' scores, centipawns (mates as +-100000)
        self.searches: dict[int, SearchNote] = {}   # by ply: what the search said of each move we played
        self.clocks_ms: dict[int, int] = {}   # by ply: the mover's clock after the move, as the server said
        self.draw_offered_at: int | None = None
        self.resigned = False                 # the bot resigned (pychess then says nothing more)
        self.aborted_because: str | None = None   # the bot aborted the game, and why
        self.reported: ReportedResult | None = None    # how the server says it ended, when asked
        self.unreported_because: str | None = None     # why asking the server failed
        self._waiting_since = time.monotonic()
        self.started = datetime.datetime.now(datetime.UTC)

    # -- events ----------------------------------------------------------------------------------

    def apply(self, event: GameStreamEvent, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if isinstance(event, GameFull):
            self._apply_full(event)
            self._apply_state(event.state, now)
        elif isinstance(event, GameState):
            self._apply_state(event, now)
        elif isinstance(event, GameEnded):
            self.ended = True
        elif isinstance(event, OpponentGone):
            self.claim_win_at = (now + event.claim_win_in_s
                                 if event.gone and event.claim_win_in_s is not None else None)

    def _apply_full(self, full: GameFull) -> None:
        self.white, self.black = full.white, full.black
        self.initial_fen = full.initial_fen
        self.rated = full.rated
        self.base_ms, self.increment_ms = full.base_ms, full.increment_ms
        me = self.username.lower()
        if me in (_name(full.white), (full.white.id or "").lower()):
            self.color = chess.WHITE
        elif me in (_name(full.black), (full.black.id or "").lower()):
            self.color = chess.BLACK
        else:
            self.setup_problem = f"{self.username} plays neither side"
        if full.variant != "knightmate":
            self.setup_problem = f"variant {full.variant} is not Knightmate"
        # pychess shows a custom start position only here, never in the challenge.
        fen_problem = KnightmateBoard.start_position_problem(full.initial_fen)
        if fen_problem is not None:
            self.setup_problem = f"start position: {fen_problem}"

    def _apply_state(self, state: GameState, now: float) -> None:
        if self.state is None or state.moves != self.state.moves:
            self._waiting_since = now
        if self.base_ms is None and len(state.moves) < 2:
            # pychess tells no time control, but its clocks do not run before the third ply.
            self.base_ms, self.increment_ms = max(state.wtime_ms, state.btime_ms), state.winc_ms
        self.state = state
        self.state_received = now
        self.echoes.seen(len(state.moves), now)
        if state.is_over:
            self.ended = True
        if KnightmateBoard.start_position_problem(self.initial_fen) is None:
            self.board = self._rebuild(state.moves)
            if state.moves and self.sync_problem is None:
                mover = not self.board.turn
                self.clocks_ms.setdefault(len(state.moves) - 1, state.clock_ms(mover))
        if self._own_pending is not None and len(state.moves) > self._own_pending[0]:
            self._own_pending = None

    def _rebuild(self, moves: tuple[str, ...]) -> KnightmateBoard:
        board = KnightmateBoard(self.initial_fen or STARTING_FEN)
        self.sync_problem = None
        try:
            board.push_game_moves(moves)
        except GameMoveError as error:
            self.sync_problem = f"illegal move {error.uci!r} at ply {error.index + 1} in the server's move list"
            log.error("game %s: %s", self.id, self.sync_problem)
        return board

    # -- questions -------------------------------------------------------------------------------

    @property
    def problem(self) -> str | None:
        return self.setup_problem or self.sync_problem

    @property
    def ply(self) -> int:
        return len(self.state.moves) if self.state is not None else 0

    @property
    def my_turn(self) -> bool:
        return (not self.ended and self.problem is None and self.state is not None
                and self.color is not None and self.board.turn == self.color
                and self.board.outcome() is None)

    @property
    def opponent(self) -> Player | None:
        return self.black if self.color == chess.WHITE else self.white

    def opponent_offers_draw(self) -> bool:
        if self.state is None or self.color is None:
            return False
        return self.state.bdraw if self.color == chess.WHITE else self.state.wdraw

    def my_clock_ms(self, now: float | None = None) -> int | None:
        """Our clock now: the server's figure less the time since that state arrived, on our turn."""
        if self.state is None or self.color is None:
            return None
        remaining = self.state.clock_ms(self.color)
        if self.my_turn:
            now = time.monotonic() if now is None else now
            remaining -= int((now - self.state_received) * 1000)
        return max(0, remaining)

    def limits(self, now: float | None = None, share: float = 1.0) -> Limits:
        """What the engine may spend on this move, from the clocks as they are now.

        The engine is shown our clock less the reserve (:mod:`bot.games.clock_reserve`). ``share`` (0
        to 1) is the part of a core this game can count on when several games share the search
        workers: the engine is shown that part of the clock and increment, so a game whose
        searches wait behind other games' does not spend its clock twice.
        """
        assert self.state is not None and self.color is not None
        mine = engine_clock_ms(self.my_clock_ms(now) or 0, self.reserve_ms())
        state = self.state
        server = Limits(wtime_ms=state.wtime_ms, btime_ms=state.btime_ms, winc_ms=state.winc_ms,
                        binc_ms=state.binc_ms, movetime_ms=self.max_move_time_ms,
                        move_overhead_ms=self.move_overhead_ms)
        return server.with_clock(self.color, int(mine * share), int(server.increment_ms(self.color) * share))

    def reserve_ms(self) -> int:
        """What the bot keeps on its clock after each move in this game (:mod:`bot.games.clock_reserve`)."""
        return self.reserve.reserve_ms(self.base_ms, self.echoes.slowest_ms)

    def fallback_deadline(self) -> float:
        """When to stop waiting for the engine and post any legal move: half our clock from the state."""
        mine = self.my_clock_ms(self.state_received) or 0
        budget_ms = max(200, (mine - self.move_overhead_ms) // 2)
        if self.max_move_time_ms is not None:
            budget_ms = min(max(budget_ms, 200), self.max_move_time_ms + 2_000)
        return self.state_received + budget_ms / 1000

    def must_move_by(self) -> float | None:
        """When our clock, less the move overhead, runs out: a move held back (by a 429 pause) must
        go out by then anyway. ``None`` before the game is known."""
        mine = self.my_clock_ms(self.state_received)
        if mine is None:
            return None
        return self.state_received + max(0, mine - self.move_overhead_ms) / 1000

    def legal_move(self, uci: str | None) -> chess.Move | None:
        """The move if it is legal here and now, else ``None``: nothing unchecked is ever posted."""
        if uci is None or not self.my_turn:
            return None
        try:
            move = self.board.parse_game_move(uci)
        except ValueError:
            return None
        return move if self.board.is_legal(move) else None

    def fallback_move(self) -> chess.Move:
        """A legal move without the engine: a capture or check if there is one, else the first."""
        moves = list(self.board.legal_moves)
        forcing = [move for move in moves if self.board.is_capture(move) or self.board.gives_check(move)]
        return (forcing or moves)[0]

    def accepts_draw(self) -> bool:
        """The opponent offers a draw and our last search says we are clearly worse."""
        last = self.scores[-1] if self.scores else None
        return self.opponent_offers_draw() and last is not None and last <= ACCEPT_DRAW_AT_OR_BELOW_CP

    def wants_draw_offer(self) -> bool:
        """The game has long been level by our searches (see ``OFFER_DRAW_*``)."""
        recent = self.scores[-OFFER_DRAW_AFTER_MOVES:]
        level = (len(recent) == OFFER_DRAW_AFTER_MOVES
                 and all(score is not None and abs(score) <= OFFER_DRAW_WITHIN_CP for score in recent))
        rested = self.draw_offered_at is None or self.ply - self.draw_offered_at >= 2 * OFFER_DRAW_AFTER_MOVES
        return level and rested and self.ply >= OFFER_DRAW_FROM_PLY

    def abort_deadline(self) -> float | None:
        """When to abort: the opponent has not made a first move after ``abort_after_s``."""
        if self.ended or self.state is None or self.color is None or self.my_turn:
            return None
        opponent_moves = (self.ply + (1 if self.color == chess.BLACK else 0)) // 2
        if opponent_moves > 0:
            return None
        return self._waiting_since + self.abort_after_s

    def note_search(self, result: SearchResult) -> SearchNote:
        """Remembers what the search said about the move about to be played here, for the draw
        decisions, the PGN and ``!eval``."""
        self.scores.append(_centipawns(result))
        score: chess.engine.Score | None = None
        if result.mate is not None:
            score = chess.engine.Mate(result.mate)
        elif result.score_cp is not None:
            score = chess.engine.Cp(result.score_cp)
        try:
            pv_san = self.board.variation_san(list(result.pv))
        except ValueError:  # an external engine's line that is not legal here: shown as nothing
            pv_san = ""
        note = SearchNote(self.ply, chess.engine.PovScore(score, self.board.turn) if score is not None else None,
                          result.depth, pv_san)
        self.searches[self.ply] = note
        return note

    def describe_search(self, max_chars: int) -> str:
        """The latest search in a sentence of at most *max_chars* (``!eval``): the score from
        White's side, depth and as much of the expected line as fits."""
        if not self.searches:
            return "No search yet in this game."
        note = self.searches[max(self.searches)]
        move = f"move {note.ply // 2 + 1}"
        if note.score is None:
            return f"At {move}: a book move, not searched."
        white = note.score.white()
        if white.is_mate():
            mate = white.mate() or 0
            score = f"mate in {abs(mate)} for {'white' if mate > 0 else 'black'}"
        else:
            score = f"{(white.score() or 0) / 100:+.2f} (white's view)"
        sentence = f"At {move}: {score}, depth {note.depth}"
        words = note.pv_san.split()
        for kept in range(len(words), 0, -1):
            if words[kept - 1].endswith("."):
                continue  # a move number without its move
            line = f"{sentence}, expecting {' '.join(words[:kept])}{' ...' if kept < len(words) else ''}."
            if len(line) <= max_chars:
                return line
        return f"{sentence}."

    def note_own_move(self, move: chess.Move, clock_ms: int | None, posted_at: float | None = None) -> None:
        """Remembers a posted move (posted at *posted_at*, ``time.monotonic()``): it may decide the
        result if pychess never echoes it, and its echo measures the server's latency."""
        if posted_at is not None:
            self.echoes.posted(self.ply, posted_at)
        if clock_ms is not None and clock_ms >= SAFE_CLOCK_MARGIN_MS:
            self._own_pending = (self.ply, move)

    # -- the end ---------------------------------------------------------------------------------

    def final_board(self) -> KnightmateBoard:
        board = self.board.copy()
        if self._own_pending is not None and self._own_pending[0] == self.ply and board.is_legal(self._own_pending[1]):
            board.push(self._own_pending[1])
        return board

    def note_abort(self, why: str) -> None:
        """The server took the bot's abort of this game, aborted for *why*."""
        self.aborted_because = why

    def note_reported(self, reported: ReportedResult | None, problem: str | None = None) -> None:
        """What the server said when asked how the game ended, or (``None``) why it could not be asked."""
        self.reported = reported
        self.unreported_because = problem

    @property
    def aborted(self) -> bool:
        """The game was aborted, by the bot or as the server says. It never counted, and a server
        may forget it at once: pychess answers a chat line to an aborted game with 404."""
        if self.aborted_because is not None:
            return True
        if self.state is not None and self.state.is_over and self.state.status in _UNSTARTED_STATUSES:
            return True
        return self.reported is not None and self.reported.status in _UNSTARTED_STATUSES

    @property
    def needs_reported_result(self) -> bool:
        """The server ended the game and nothing the bot saw says how: only the server can tell."""
        return self._seen_result() is None

    def result(self) -> Result:
        return self._seen_result() or self._reported_result()

    def _seen_result(self) -> Result | None:
        """The result from what the bot saw and did; ``None`` for a game the server ended unexplained."""
        state = self.state
        if state is None:
            return Result("*", "unterminated", "the game was never seen")
        if state.is_over:
            return self._result_from_status(state.status, state.winner)
        if self.resigned and self.color is not None:
            return Result("0-1" if self.color == chess.WHITE else "1-0", "normal", "the bot resigned")
        if self.aborted_because is not None:
            return Result("*", TERMINATIONS["aborted"], f"the bot aborted the game: {self.aborted_because}")
        outcome = self.final_board().outcome()
        if outcome is not None:
            return Result(outcome.result(), "normal", f"{outcome.termination.name.lower()} on the board")
        if not self.ended:
            return Result("*", "unterminated", "the bot left the game before it ended")
        return None

    def _reported_result(self) -> Result:
        reported = self.reported
        if reported is not None and reported.is_over:
            return Result(reported.result, TERMINATIONS.get(reported.status, "unterminated"),
                          f"{reported.status}, as the server reports it")
        if reported is not None:
            why = f"the server still reports the game as {reported.status}"
        else:
            why = self.unreported_because or "the server was not asked"
        if self.final_board().can_claim_draw():
            return Result("*", "unterminated", f"ended in a position where a draw could be claimed; {why}")
        return Result("*", "unterminated", "the server ended the game without saying how "
                      f"(resignation, flag, abort, or a move the bot never saw); {why}")

    def _result_from_status(self, status: str, winner: str | None) -> Result:
        termination = TERMINATIONS.get(status, "unterminated")
        if status in _UNSTARTED_STATUSES:
            why = f"the bot aborted the game: {self.aborted_because}" if self.aborted_because else f"game {status}"
            return Result("*", termination, why)
        if winner is not None and termination != "unterminated":
            return Result("1-0" if winner == "white" else "0-1", termination, f"{status}, {winner} wins")
        if status in _DRAWN_STATUSES or (termination == "time forfeit" and winner is None):
            return Result("1/2-1/2", termination, status)
        return Result("*", "unterminated", f"status {status} without a winner")

    def pgn(self, result: Result) -> str:
        game = chess.pgn.Game.from_board(self.final_board())
        headers = game.headers
        headers["Event"] = ("knightmate-bot game" if self.rated is None
                            else f"{'Rated' if self.rated else 'Casual'} Knightmate game")
        headers["Site"] = f"{self.site.rstrip('/')}/{self.id}" if self.site else self.id
        headers["Date"] = self.started.strftime("%Y.%m.%d")
        headers["White"] = self.white.name if self.white else "?"
        headers["Black"] = self.black.name if self.black else "?"
        headers["Result"] = result.result
        headers["Variant"] = "Knightmate"
        headers["Termination"] = result.termination
        for side, player in (("White", self.white), ("Black", self.black)):
            if player is not None and player.rating is not None:
                headers[f"{side}Elo"] = str(player.rating)
            if player is not None and player.title is not None:
                headers[f"{side}Title"] = player.title
        if self.base_ms is not None and self.increment_ms is not None:
            headers["TimeControl"] = f"{self.base_ms // 1000}+{self.increment_ms // 1000}"
        else:
            headers["TimeControl"] = "?"
        game.end().comment = result.reason
        self._annotate(game)
        return game.accept(_EscapingExporter()) + "\n"

    def _annotate(self, game: chess.pgn.Game) -> None:
        """``[%clk]`` on every move whose clock the server told, ``[%eval]`` (with depth) on each of
        the bot's searched moves: what Lichess's and pychess's analysis boards and chess.pgn read."""
        for ply, node in enumerate(game.mainline()):
            clock_ms = self.clocks_ms.get(ply)
            if clock_ms is not None:
                node.set_clock(clock_ms / 1000)
            note = self.searches.get(ply)
            if note is not None and note.score is not None:
                node.set_eval(note.score, note.depth)


class _EscapingExporter(chess.pgn.StringExporter):
    """python-chess's exporter, with header values written as PGN strings.

    python-chess writes header values as they are (and checks only non-roster tags for line
    breaks), so a player name or game id from the server with a quote or a line break would end
    its tag early and forge or break the lines after it. Here a backslash and a quote are escaped
    as the PGN standard says, and control characters, which a PGN string may not hold, become spaces.
    """

    def __init__(self) -> None:
        super().__init__(columns=None)

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        super().visit_header(tagname, pgn_string(tagvalue))


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def pgn_string(value: str) -> str:
    """*value* as the inside of a PGN string token (between its quotes): a backslash or a quote
    gets a backslash before it, and a control character becomes a space."""
    return _CONTROL.sub(" ", value.replace("\\", "\\\\").replace('"', '\\"'))


def _name(player: Player) -> str:
    return player.name.lower()


def _centipawns(result: SearchResult) -> int | None:
    """Centipawns from our side, a mate counting as a huge score."""
    if result.mate is not None:
        return 100_000 if result.mate > 0 else -100_000
    return result.score_cp
