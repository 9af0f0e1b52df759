"""The analysis board's server side: positions and games pasted in and copied out, and the engine's lines.

The page knows no rules, so everything it shows on the analysis board comes from here: a pasted
FEN or PGN read into a tree of moves (each with SAN and the position after it, and the PGN's
comments, NAGs and variations; every game of a paste of several), the page's tree written back as
PGN by python-chess, a position's legal moves, and the engine's best lines (:mod:`bot.analysis`,
with the config's engine), streamed as the engine reports them. One search runs at a time on the
whole server (it shares the machine with the bot's own games): a new analysis stops the one
before, and a search ends when its page goes away or after :data:`MAX_SEARCH_S`. Nothing here
speaks HTTP.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import chess
import chess.engine
import chess.pgn

from bot.analysis import (
    AnalysisEngineError,
    AnalysisStopped,
    EngineCommand,
    PositionAnalysis,
    WinningChancesCurve,
    analyse_position,
    chances_percent,
    close_engine,
    engine_name,
    judge_try,
)
from bot.analysis.pgn_input import read_error, read_games
from bot.sandbox.human import check_square, legal_moves_json
from bot.sandbox.imitations import JsonObject
from bot.sandbox.world import ApiError
from variant import KnightmateBoard, describe_status

logger = logging.getLogger(__name__)

#: The longest paste read: a long game's PGN is under 5 kB, and the URL-encoded form must stay
#: under the server's 64 kB body limit.
MAX_PASTE_CHARS = 20_000
#: The longest a search runs for one position when nobody moves on.
MAX_SEARCH_S = 60.0
MAX_MULTIPV = 3
#: Seconds the engine searches a move tried in place of an error (and, if need be, the position
#: after it): long enough to see a piece left hanging, short enough to try again at once.
TRY_SEARCH_S = 0.4


def knightmate_pgn(text: str) -> str:
    """PGN *text* read as Knightmate where it names no variant (a pasted game or the page's own)."""
    return text if "[Variant " in text else '[Variant "Knightmate"]\n' + text


def score_json(score: chess.engine.PovScore, curve: WinningChancesCurve) -> JsonObject:
    """A score as the page reads it: centipawns or moves to mate, and the share of the winning
    chances (0..100, what the bar and the graph draw: worked out here on the *curve* of the engine
    that gave the score, so that the page and the verdicts go by one curve), all from White's side;
    at a final mate (``mate`` 0, which JSON cannot sign) the side that mated as ``winner``, so the
    page can say who mated."""
    white = score.white()
    mate = white.mate()
    winner = ("white" if white > chess.engine.Cp(0) else "black") if mate == 0 else None
    return {"cp": white.score(), "mate": mate, "winPercent": round(chances_percent(white, curve), 1), "winner": winner}


def drain(items: queue.Queue[JsonObject | None], keepalive_s: float) -> Iterator[JsonObject | None]:
    """Each item of a stream to the page as it comes, None after *keepalive_s* without one (a
    keep-alive), until a None item ends the stream."""
    while True:
        try:
            item = items.get(timeout=keepalive_s)
        except queue.Empty:
            yield None
            continue
        if item is None:
            return
        yield item


def read_paste(text: str) -> JsonObject:
    """A pasted FEN or PGN as ``{"games": [game, ...]}``, each game as :func:`game_json` makes it
    (a FEN as a game without moves). Of several games, one that cannot be read is listed with its
    ``error`` (the page offers the others); a single one that cannot be read is refused.

    :raises: :exc:`ApiError` (400) with one sentence for anything else.
    """
    text = text.strip()
    if not text:
        raise ApiError(400, "Paste a FEN or a PGN game first.")
    if len(text) > MAX_PASTE_CHARS:
        raise ApiError(400, f"That paste is {len(text)} characters long; a FEN or a PGN game is at most "
                            f"{MAX_PASTE_CHARS}.")
    if "\n" not in text and text.count("/") == 7 and not text.startswith("["):
        return {"games": [{"headers": {}, "initialFen": _position(text).fen(), "comment": "", "moves": []}]}
    # Text that is not PGN reads as no game at all (a "game" of nothing but the default headers).
    games = read_games(text, default_variant="Knightmate")
    if not games:
        raise ApiError(400, "That is neither a FEN nor a PGN game.")
    if len(games) == 1:
        return {"games": [game_json(games[0])]}
    listed: list[JsonObject] = []
    for game in games:
        try:
            listed.append(game_json(game))
        except ApiError as error:
            listed.append({"headers": _headers(game), "error": error.message})
    return {"games": listed}


def game_json(game: chess.pgn.Game) -> JsonObject:
    """A game read from PGN as the analysis board's tree: ``{"headers", "initialFen", "comment",
    "moves"}``, *moves* every move of the main line and the variations in the order PGN writes
    them (each move before its continuations, a node's main move before its other choices), each
    ``{parent, uci, san, fen, check, comment, startingComment, nags}`` with *parent* the index of
    the move it follows (-1: the start). A flat list, not nested: a long game would nest deeper
    than JSON readers go.

    :raises: :exc:`ApiError` (400) for a game that is not Knightmate or cannot be read.
    """
    board = game.board()
    if not isinstance(board, KnightmateBoard):
        raise ApiError(400, f"That game is not Knightmate (its Variant is {game.headers.get('Variant')!r}).")
    error = read_error(game)
    if error is not None:
        raise ApiError(400, f"That PGN cannot be read: {error}.")
    problem = _problem(board)
    if problem:
        raise ApiError(400, f"That PGN's start position is not a Knightmate position: {problem}.")
    moves: list[JsonObject] = []
    # Depth first without recursion (a long game is a deep tree): the main move is taken first.
    stack: list[tuple[int, KnightmateBoard, chess.pgn.ChildNode]] = [
        (-1, board, node) for node in reversed(game.variations)]
    while stack:
        parent, before, node = stack.pop()
        after = before.copy(stack=False)
        uci, san = after.uci(node.move), after.san_and_push(node.move)
        moves.append({"parent": parent, "uci": uci, "san": san, "fen": after.fen(), "check": check_square(after),
                      "comment": node.comment, "startingComment": node.starting_comment, "nags": sorted(node.nags)})
        index = len(moves) - 1
        stack.extend((index, after, child) for child in reversed(node.variations))
    return {"headers": _headers(game), "initialFen": board.fen(), "comment": game.comment, "moves": moves}


def _headers(game: chess.pgn.Game) -> dict[str, str]:
    """The tags a person wrote (not python-chess's "?" for the ones left out)."""
    return {key: value for key, value in game.headers.items() if value not in ("?", "????.??.??", "")}


def tree_pgn(text: str) -> str:
    """The analysis board's tree, sent by the page as JSON, as PGN that python-chess writes: the
    tags the game came with, and every move, comment, NAG and variation, the moves' SAN worked out
    here (the commoner's ``M``). The tree is ``{"headers", "initialFen", "comment", "moves"}`` as
    :func:`game_json` makes it, each move read by :func:`tree_move` (the page sends most as bare
    UCI, to stay far under the server's 64 kB body limit once the form encodes the JSON).

    :raises: :exc:`ApiError` (400) for a tree that is not one.
    """
    try:
        tree = json.loads(text)
        initial_fen, headers, comment, moves = tree["initialFen"], tree["headers"], tree["comment"], tree["moves"]
    except (ValueError, TypeError, KeyError):
        raise ApiError(400, "That is not an analysis tree: JSON with initialFen, headers, comment and moves.") from None
    if not (isinstance(headers, dict) and isinstance(comment, str) and isinstance(moves, list)
            and all(isinstance(key, str) and isinstance(value, str) for key, value in headers.items())):
        raise ApiError(400, "That is not an analysis tree: headers are text, moves a list.")
    board = _position(str(initial_fen))
    game = chess.pgn.Game()
    for key, value in headers.items():
        if key not in ("FEN", "SetUp", "Variant"):
            game.headers[key] = value
    game.setup(board)
    game.comment = comment
    # Each node and the position after it, the start's first: a move's parent p is at p + 1.
    nodes: list[chess.pgn.GameNode] = [game]
    boards = [board]
    for index, sent in enumerate(moves):
        move = tree_move(sent, index)
        before = boards[move.parent + 1]
        try:
            played = before.parse_uci(move.uci)
        except ValueError:
            raise ApiError(400, f"Move {index + 1} of the tree, {move.uci[:10]!r}, is not legal there.") from None
        nodes.append(nodes[move.parent + 1].add_variation(played, comment=move.comment,
                                                          starting_comment=move.starting_comment, nags=move.nags))
        after = before.copy(stack=False)
        after.push(played)
        boards.append(after)
    return str(game)


@dataclass(frozen=True)
class TreeMove:
    """A move of the page's tree: the index of the move it follows (-1: the start), and PGN's
    comments and NAGs."""

    parent: int
    uci: str
    comment: str = ""
    starting_comment: str = ""
    nags: tuple[int, ...] = ()


def tree_move(sent: object, index: int) -> TreeMove:
    """Move *index* of a tree as the page sends it: bare UCI for a move that follows the one before
    it and has no comment or NAG, else ``{uci, parent, comment, startingComment, nags}`` (all but
    *uci* may be left out: the one before, none).

    :raises: :exc:`ApiError` (400) for a move that is not one.
    """
    fields = {"uci": str, "parent": int, "comment": str, "startingComment": str, "nags": list}
    move = {"uci": sent} if isinstance(sent, str) else sent
    if not (isinstance(move, dict) and isinstance(move.get("uci"), str)
            and all(isinstance(move[key], kind) for key, kind in fields.items() if key in move)
            and all(isinstance(nag, int) and 0 <= nag <= 255 for nag in move.get("nags", []))):
        raise ApiError(400, f"Move {index + 1} of the tree is not a move: UCI, or uci with parent, comment, "
                            "startingComment and nags (0-255).")
    parent = move.get("parent", index - 1)
    if not -1 <= parent < index:
        raise ApiError(400, f"Move {index + 1} of the tree follows a move that does not come before it.")
    return TreeMove(parent, move["uci"], move.get("comment", ""), move.get("startingComment", ""),
                    tuple(move.get("nags", [])))


def position_json(fen: str) -> JsonObject:
    """A position as the analysis board needs it: its legal moves, check and outcome."""
    board = _position(fen)
    outcome = board.outcome(claim_draw=False)
    return {"fen": board.fen(), "turn": "white" if board.turn else "black", "check": check_square(board),
            "legalMoves": legal_moves_json(board),
            "outcome": None if outcome is None else {"result": outcome.result(),
                                                     "termination": outcome.termination.name.lower()}}


def _position(fen: str) -> KnightmateBoard:
    if len(fen) > 120:
        raise ApiError(400, "That is not a FEN: a FEN is one line of at most 120 characters.")
    try:
        board = KnightmateBoard(fen)
    except ValueError as error:
        raise ApiError(400, f"That is not a Knightmate FEN: {_first_line(error).split(': ')[0]}.") from None
    problem = _problem(board)
    if problem:
        raise ApiError(400, f"That is not a Knightmate position: {problem}.")
    return board


def _problem(board: KnightmateBoard) -> str | None:
    status = board.status()
    return None if status == chess.STATUS_VALID else describe_status(status)


def _first_line(error: object) -> str:
    return str(error).splitlines()[0][:200]


class Analyser:
    """The analysis engine, one search at a time on the whole server.

    The engine is *engine* at its full strength (the config's ``engine.command`` with its options,
    or the built-in engine), a UCI process driven by :mod:`bot.analysis` as the review and
    ``knightmate-bot analyse`` drive theirs. It starts with the first search and lives until
    :meth:`stop`; an engine that fails is quit, and the next search starts a new one.
    """

    def __init__(self, engine: EngineCommand | None = None) -> None:
        self._command = (engine or EngineCommand()).at_full_strength()
        self._engine: chess.engine.SimpleEngine | None = None
        self._lock = threading.Lock()
        #: Held by the search using the engine: a stopped search lets go once the engine has stopped.
        self.engine_lock = threading.Lock()
        self._current: AnalysisBoardSearch | None = None

    @property
    def curve(self) -> WinningChancesCurve:
        """The engine's curve from centipawns to winning chances, for the page's bar."""
        return self._command.curve

    def start(self, fen: str, multipv: int) -> AnalysisBoardSearch:
        """Stops the search under way, if any, and starts one of *fen* with *multipv* lines."""
        board = _position(fen)
        if not 1 <= multipv <= MAX_MULTIPV:
            raise ApiError(400, f"multipv must be between 1 and {MAX_MULTIPV}")
        if board.is_game_over(claim_draw=False):
            raise ApiError(400, "The game is over in that position: there is nothing to search.")
        with self._lock:
            if self._current is not None:
                self._current.stop("another analysis started")
            search = AnalysisBoardSearch(self, board, multipv)
            self._current = search
        search.start()
        return search

    @property
    def current(self) -> AnalysisBoardSearch | None:
        """The search started last (running or not)."""
        return self._current

    def stop(self) -> None:
        """Stops the search under way and quits the engine (the server is stopping)."""
        with self._lock:
            if self._current is not None:
                self._current.stop("the server stopped")
        with self.engine_lock:
            self.forget_engine()

    def judge_try(self, fen: str, uci: str) -> JsonObject:
        """A move *uci* tried in *fen* in place of an error (learn from your mistakes), judged by
        the engine (:func:`bot.analysis.judge_try`); the search under way, if any, is stopped."""
        board = _position(fen)
        try:
            move = board.parse_uci(uci)
        except ValueError:
            raise ApiError(400, f"{uci[:10]!r} is not a legal move in that position.") from None
        with self._lock:
            if self._current is not None:
                self._current.stop("a move tried is judged")
        with self.engine_lock:
            try:
                verdict = judge_try(self.engine(), board, move, chess.engine.Limit(time=TRY_SEARCH_S),
                                    curve=self.curve)
            except AnalysisEngineError as error:
                self.forget_engine()
                raise ApiError(503, str(error)) from None
        best = verdict.best.move
        return {"uci": uci, "san": board.san(move), "accepted": verdict.accepted, "isBest": verdict.is_best,
                "judgement": verdict.judgement.label if verdict.judgement else None,
                "best": {"uci": board.uci(best), "san": board.san(best)}, **score_json(verdict.score, self.curve)}

    def engine(self) -> chess.engine.SimpleEngine:
        """The engine, started if need be; called with :attr:`engine_lock` held.

        :raises: :exc:`~bot.analysis.AnalysisEngineError`.
        """
        if self._engine is None:
            self._engine = self._command.open()
        return self._engine

    def forget_engine(self) -> None:
        """Quits the engine (if it still answers) so that the next search starts a new one."""
        engine, self._engine = self._engine, None
        if engine is not None:
            close_engine(engine)


class AnalysisBoardSearch:
    """The analysis board's search of one position, in a thread of its own: its lines come out of
    :meth:`lines` as the engine finds them, for the page's stream."""

    def __init__(self, analyser: Analyser, board: KnightmateBoard, multipv: int) -> None:
        self._analyser = analyser
        self._board = board
        self._multipv = multipv
        self._stop = threading.Event()
        self._why_stopped = "done"
        self._queue: queue.Queue[JsonObject | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="analysis", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, why: str) -> None:
        if not self._stop.is_set():
            self._why_stopped = why
            self._stop.set()

    def wait_stopped(self, timeout: float) -> bool:
        """Whether the search was told to stop within *timeout* seconds."""
        return self._stop.wait(timeout)

    def lines(self, keepalive_s: float) -> Iterator[JsonObject | None]:
        """Each report as it comes, None after *keepalive_s* without one, until the search ends."""
        return drain(self._queue, keepalive_s)

    def _run(self) -> None:
        # An infinite search, stopped from here: an engine given a clock stops early, at a mate found.
        timer = threading.Timer(MAX_SEARCH_S, self.stop, args=("searched for long enough",))
        timer.daemon = True
        timer.start()
        try:
            with self._analyser.engine_lock:
                if not self._stop.is_set():
                    analyse_position(self._analyser.engine(), self._board, chess.engine.Limit(),
                                     multipv=self._multipv, on_info=self._report, stop=self._stop)
        except AnalysisStopped:
            pass
        except AnalysisEngineError as error:
            self._why_stopped = str(error)
        except Exception as error:  # the page says so; the log keeps the details
            logger.exception("the analysis search failed")
            self._why_stopped = f"the engine failed: {type(error).__name__}"
            with self._analyser.engine_lock:
                self._analyser.forget_engine()
        finally:
            timer.cancel()
            self._queue.put({"type": "end", "reason": self._why_stopped})
            self._queue.put(None)

    def _report(self, analysis: PositionAnalysis) -> None:
        """An iteration's lines, scores from White's side (as the page's bar and list show them), and
        the engine's name (UCI's ``id name``, for the built-in engine its version and build) with the
        depth, so the page can say which build answers and how deep it looked."""
        lines = []
        for line in analysis.lines:
            board = self._board.copy()
            ucis, sans, fens = [], [], []
            for move in line.pv:
                ucis.append(board.uci(move))
                sans.append(board.san_and_push(move))
                fens.append(board.fen())
            lines.append({"uci": ucis, "san": sans, "fen": fens, **score_json(line.score, self._analyser.curve)})
        self._queue.put({"type": "info", "engine": engine_name(self._analyser.engine()), "depth": analysis.depth,
                         "nodes": analysis.nodes, "lines": lines, "sentAtMs": round(time.time() * 1000)})
