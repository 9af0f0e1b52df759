"""bot.games.status: what the status page is handed: games as snapshots, finished games and challenges bounded."""

from __future__ import annotations

import dataclasses
import sys
import time

import chess

from bot.engine import SearchResult
from bot.games.challenges import Decision
from bot.games.record import Game, Result
from bot.games.status import CHALLENGES_KEPT, FINISHED_KEPT, StatusRecorder, game_view
from bot.remote.events import Challenge, GameFull, GameState, Player
from tests.helpers.games_harness import new_game
from variant import KnightmateBoard


def state(moves: tuple[str, ...], wtime_ms: int, btime_ms: int) -> GameState:
    return GameState(moves=moves, wtime_ms=wtime_ms, btime_ms=btime_ms, winc_ms=1000, binc_ms=1000, status="started")


def played_game(game_id: str = "g1") -> Game:
    """The bot (black, on Lichess) three plies in, with a search noted for its reply."""
    game = new_game(game_id)
    game.apply(GameFull(id=game_id, variant="knightmate", white=Player("Alice", id="alice", rating=1850),
                        black=Player("MyBot", id="mybot", title="BOT"), initial_fen=None, base_ms=60_000,
                        increment_ms=1000, rated=True, state=state((), 60_000, 60_000)))
    game.apply(state(("e2e4",), 58_000, 60_000))
    game.note_search(SearchResult(move=chess.Move.from_uci("e8f6"), score_cp=50, mate=None, depth=9, nodes=1000,
                                  time_ms=2500, pv=(chess.Move.from_uci("e8f6"), chess.Move.from_uci("d2d4"))))
    game.apply(state(("e2e4", "e8f6"), 58_000, 57_500))
    game.apply(state(("e2e4", "e8f6", "d2d4"), 55_000, 57_500))
    return game


def challenge(number: int) -> Challenge:
    return Challenge(id=f"c{number}", challenger=f"player{number}", challenger_is_bot=False, variant="knightmate",
                     rated=True, time_control="clock", base_ms=180_000, increment_ms=2000, initial_fen=None,
                     challenger_rating=1500 + number)


def test_a_game_view_has_the_position_clocks_white_view_evaluation_and_time_per_move() -> None:
    view = game_view(played_game())
    board = KnightmateBoard()
    board.push_uci("e2e4")
    board.push_uci("e8f6")
    board.push_uci("d2d4")
    assert view.fen == board.fen()
    assert view.last_move == "d2d4" and view.turn == "black" and view.bot_color == "black"
    assert (view.white, view.black) == ("Alice (1850)", "BOT MyBot")
    assert (view.white_clock_ms, view.black_clock_ms) == (55_000, 57_500)
    assert view.time_control == "1+1"
    # The bot is black and found +50 for itself: White's view is -50.
    assert view.evaluation is not None
    assert (view.evaluation.cp, view.evaluation.mate, view.evaluation.depth) == (-50, None, 9)
    assert view.evaluation.line == "1...Kf6 2. d4"
    # Each side's clock before the move, plus the increment, less its clock after; the first
    # moves have no clock before them.
    assert view.move_times_ms == (None, None, 4000)


def test_a_game_over_leaves_the_games_in_progress_and_keeps_its_result_and_pgn() -> None:
    recorder = StatusRecorder()
    game = played_game()
    recorder.game_seen(game_view(game))
    assert [view["id"] for view in recorder.snapshot()["playing"]] == ["g1"]
    recorder.game_over(game_view(game), Result("0-1", "normal", "White resigned"), "[Event \"x\"]\n\n0-1\n")
    snapshot = recorder.snapshot()
    assert snapshot["playing"] == []
    assert "clocks_at_s" not in snapshot["finished"][0]["view"]
    assert [(done["view"]["id"], done["result"], done["reason"], done["pgn"]) for done in snapshot["finished"]] == [
        ("g1", "0-1", "White resigned", True)]
    assert recorder.pgn("g1") == "[Event \"x\"]\n\n0-1\n"
    assert recorder.pgn("unknown") is None


def test_finished_games_and_challenges_are_bounded_newest_first() -> None:
    recorder = StatusRecorder()
    for number in range(FINISHED_KEPT + 5):
        recorder.game_over(game_view(new_game(f"g{number}")), Result("*", "unterminated", "left"), None)
    for number in range(CHALLENGES_KEPT + 5):
        recorder.challenge_answered(challenge(number), Decision.declined("tooFast", "faster than 3+0"))
    snapshot = recorder.snapshot()
    assert len(snapshot["finished"]) == FINISHED_KEPT
    assert snapshot["finished"][0]["view"]["id"] == f"g{FINISHED_KEPT + 4}"
    assert snapshot["finished"][0]["pgn"] is False
    assert len(snapshot["challenges"]) == CHALLENGES_KEPT
    newest = snapshot["challenges"][0]
    assert (newest["id"], newest["accepted"], newest["reason"], newest["why"], newest["time_control"]) == (
        f"c{CHALLENGES_KEPT + 4}", False, "tooFast", "faster than 3+0", "3+2")


def test_a_game_in_progress_tells_the_age_of_its_clocks() -> None:
    recorder = StatusRecorder()
    game = played_game()
    game.state_received = time.monotonic() - 2.5      # the latest state came 2.5 s ago
    recorder.game_seen(game_view(game))
    [shown] = recorder.snapshot()["playing"]
    assert 2500 <= shown["clocks_age_ms"] < 10_000 and "clocks_at_s" not in shown


def test_games_left_at_shutdown_are_no_longer_shown_in_progress() -> None:
    recorder = StatusRecorder()
    recorder.game_seen(game_view(played_game("g1")))
    recorder.game_seen(game_view(played_game("g2")))
    recorder.games_left(["g1"])
    assert [view["id"] for view in recorder.snapshot()["playing"]] == ["g2"]


def test_reading_the_snapshot_again_and_again_keeps_no_memory() -> None:
    """The page reads the snapshot every 1.5 s for as long as the bot runs: a read must leave nothing
    behind. Copying the records with dataclasses.asdict did (each tuple it copies is built by
    ``tuple(generator)``, over-allocated then shrunk, and parked in CPython's per-size tuple free
    lists: some 5 MB before they were full, the page's growth in the soak)."""
    recorder = StatusRecorder()
    for number in range(FINISHED_KEPT):
        short = dataclasses.replace(game_view(new_game(f"g{number}")), move_times_ms=tuple(range(number % 19 + 1)))
        recorder.game_over(short, Result("1-0", "normal", "mate"), "1-0")
    for number in range(CHALLENGES_KEPT):
        recorder.challenge_answered(challenge(number), Decision.accepted())
    recorder.game_seen(game_view(played_game()))
    for _ in range(50):
        recorder.snapshot()
    before = sys.getallocatedblocks()
    for _ in range(2000):
        recorder.snapshot()
    assert sys.getallocatedblocks() - before < 1000
