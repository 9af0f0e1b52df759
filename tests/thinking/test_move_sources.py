"""``bot/thinking/sources.py`` without a server: what an external engine is told, what it answers, and what
happens when it fails to start, hangs or dies. Real engines where it matters: Fairy-Stockfish
(skipped where it is not installed) and ``knightmate-bot uci``; a fake for the faults."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

import chess
import chess.engine
import pytest

from bot.engine import Limits, SearchResult
from bot.engine.external import engine_board
from bot.thinking.sources import (
    BuiltinMoveSources,
    EngineHung,
    EngineStartError,
    UciMoveSources,
    answer_due_s,
    engine_limit,
    start_engine,
)
from tests.helpers.engine_processes import (
    FAIRY_STOCKFISH,
    FAKE_ENGINE,
    KNIGHTMATE_BOT_UCI,
    engine_pids,
    needs_fairy_stockfish,
    uci_settings,
    wait_until,
)
from variant import COMMONER, KnightmateBoard

#: White promotes on b8; with a commoner, Black's only king moves are d6 and f6 (M covers c7).
PROMOTION_FEN = "r3k3/1P4p1/8/8/8/8/6P1/4K2R w - - 0 1"
QUICK = Limits(wtime_ms=10_000, btime_ms=10_000, movetime_ms=300, move_overhead_ms=50)


@pytest.fixture
def engines(request: pytest.FixtureRequest) -> Iterator[UciMoveSources]:
    """UciMoveSources for the command in the test's ``engine`` marker (with its settings)."""
    marker = request.node.get_closest_marker("engine")
    assert marker is not None
    made = UciMoveSources(uci_settings(*marker.args, **marker.kwargs))
    yield made
    made.close()


def true_board(fen: str, moves: tuple[str, ...]) -> KnightmateBoard:
    board = KnightmateBoard(fen)
    for uci in moves:
        board.push_uci(uci)
    return board


# -- what the engine is told ---------------------------------------------------------------------


def test_the_engine_board_starts_after_the_last_commoner_promotion_and_keeps_the_moves_since() -> None:
    moves = ("b7b8m", "a8b8", "h1h7", "b8b1", "e1f3")
    board = engine_board(PROMOTION_FEN, moves)
    assert board.fen() == true_board(PROMOTION_FEN, moves).fen()
    assert [board.uci(move) for move in board.move_stack] == ["a8b8", "h1h7", "b8b1", "e1f3"]
    assert board.root().fen() == true_board(PROMOTION_FEN, moves[:1]).fen()


def test_the_engine_board_keeps_the_whole_history_without_commoner_promotions() -> None:
    moves = ("b7b8q", "a8b8", "h1h8")
    board = engine_board(PROMOTION_FEN, moves)
    assert [board.uci(move) for move in board.move_stack] == list(moves)
    assert board.root().fen() == PROMOTION_FEN


def test_a_move_list_that_is_not_a_game_is_refused() -> None:
    with pytest.raises(ValueError):
        engine_board(PROMOTION_FEN, ("b7b8m", "e8c7"))  # c7 is covered by the new commoner


@pytest.mark.parametrize("mode", ["no-uciok", "chess-only"])
def test_an_engine_refused_at_start_has_exited_before_the_error_is_raised(
        mode: str, caplog: pytest.LogCaptureFixture) -> None:
    # run closes its event loop right after the error; asyncio's child watcher then finds the loop
    # closed and logs a stray line after run's one-line message, unless the exit was seen first.
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(EngineStartError):
            loop.run_until_complete(start_engine(uci_settings((*FAKE_ENGINE, mode), start_timeout_s=1)))
    finally:
        loop.close()
    for watcher in threading.enumerate():
        if watcher.name.startswith("waitpid-"):
            watcher.join(10)
    assert "is closed" not in caplog.text


def test_the_engine_sees_the_movers_clock_less_the_overhead_and_the_other_clock_as_it_is() -> None:
    limit = engine_limit(Limits(wtime_ms=60_000, btime_ms=50_000, winc_ms=2_000, binc_ms=1_000, move_overhead_ms=300),
                         chess.BLACK)
    assert (limit.white_clock, limit.black_clock, limit.white_inc, limit.black_inc, limit.time) == \
        (60.0, 49.7, 2.0, 1.0, None)


def test_a_capped_move_time_is_sent_as_movetime_the_clock_can_afford() -> None:
    roomy = engine_limit(Limits(wtime_ms=60_000, btime_ms=60_000, movetime_ms=500, move_overhead_ms=100), chess.WHITE)
    assert roomy.time == pytest.approx(0.4)          # the cap less the overhead
    short = engine_limit(Limits(wtime_ms=1_100, btime_ms=60_000, movetime_ms=500, move_overhead_ms=100), chess.WHITE)
    assert short.time is not None and short.time < 0.4  # a nearly empty clock lowers it


def test_an_engine_is_due_to_answer_within_its_time_and_the_margin() -> None:
    assert answer_due_s(chess.engine.Limit(time=0.4, white_clock=60), chess.WHITE, 2) == pytest.approx(2.4)
    assert answer_due_s(chess.engine.Limit(white_clock=60, black_clock=5), chess.BLACK, 2) == pytest.approx(7)
    assert answer_due_s(chess.engine.Limit(depth=3), chess.WHITE, 2) is None


def test_the_engine_reads_the_position_after_the_commoner_promotion_and_the_clocks_less_the_overhead(
        tmp_path: Path) -> None:
    lines = tmp_path / "received"
    engines = UciMoveSources(uci_settings((*FAKE_ENGINE, "record", str(lines), "a8b8")))
    try:
        limits = Limits(wtime_ms=60_000, btime_ms=50_000, winc_ms=2_000, binc_ms=1_000, move_overhead_ms=300)
        engines.open("g1").submit(PROMOTION_FEN, ("b7b8m",), limits).result(timeout=30)
    finally:
        engines.close()
    received = lines.read_text().splitlines()
    position = f"position fen {true_board(PROMOTION_FEN, ('b7b8m',)).fen()}"   # no "moves b7b8n"
    assert received.index("setoption name UCI_Variant value knightmate") < received.index(position)
    assert received[received.index(position) + 1] == "go wtime 60000 btime 49700 winc 2000 binc 1000"


# -- real engines --------------------------------------------------------------------------------


@needs_fairy_stockfish
@pytest.mark.engine(FAIRY_STOCKFISH or "")
@pytest.mark.parametrize("moves", [("b7b8m",), ("b7b8m", "a8b8", "h1h8")])
def test_fairy_stockfish_searches_the_true_position_after_a_commoner_promotion(
        engines: UciMoveSources, moves: tuple[str, ...]) -> None:
    # Told "b7b8n", Fairy-Stockfish would ignore it and every move after, and search with White to
    # move: its answer would be a White move, illegal here.
    engine = engines.open("g1")
    result = engine.submit(PROMOTION_FEN, moves, QUICK).result(timeout=30)
    assert result.move is not None
    assert true_board(PROMOTION_FEN, moves).is_legal(result.move)


@pytest.mark.engine(KNIGHTMATE_BOT_UCI)
def test_knightmate_bot_uci_plays_a_legal_move_with_a_score(engines: UciMoveSources) -> None:
    result = engines.open("g1").submit(PROMOTION_FEN, ("b7b8m",), QUICK).result(timeout=60)
    assert result.move is not None and true_board(PROMOTION_FEN, ("b7b8m",)).is_legal(result.move)
    assert result.depth >= 1 and (result.score_cp is not None or result.mate is not None)


@pytest.mark.engine((*FAKE_ENGINE, "bestmove", "b7b8m"))
def test_an_engines_commoner_promotion_m_is_read_back_as_the_commoner(engines: UciMoveSources) -> None:
    result = engines.open("g1").submit(PROMOTION_FEN, (), QUICK).result(timeout=30)
    assert result.move == chess.Move(chess.B7, chess.B8, promotion=COMMONER)


@needs_fairy_stockfish
@pytest.mark.engine(FAIRY_STOCKFISH or "", options={"UCI_LimitStrength": True, "UCI_Elo": 1500})
def test_options_from_the_config_are_applied(engines: UciMoveSources) -> None:
    engines.check()
    result = engines.open("g1").submit(None, (), QUICK).result(timeout=30)
    assert result.move is not None


# -- one process per game: start, quit, hang, crash ----------------------------------------------


@pytest.mark.engine(KNIGHTMATE_BOT_UCI)
def test_each_game_has_its_own_process_which_quits_when_the_game_is_closed(engines: UciMoveSources) -> None:
    first, second = engines.open("g1"), engines.open("g2")
    for engine in (first, second):
        engine.submit(None, (), QUICK).result(timeout=60)
    assert len(engine_pids(KNIGHTMATE_BOT_UCI)) == 2
    first.close()
    assert first.closing is not None
    first.closing.result(timeout=10)
    assert len(engine_pids(KNIGHTMATE_BOT_UCI)) == 1
    engines.close()
    assert engine_pids(KNIGHTMATE_BOT_UCI) == set()


@pytest.mark.engine((*FAKE_ENGINE, "bestmove", "e1f3"))
def test_an_engine_that_dies_between_moves_is_started_again_for_the_next(engines: UciMoveSources) -> None:
    engine = engines.open("g1")
    assert engine.submit(PROMOTION_FEN, (), QUICK).result(timeout=30).move == chess.Move(chess.E1, chess.F3)
    (before,) = engine_pids(FAKE_ENGINE[1])
    os.kill(before, signal.SIGKILL)
    assert engine.submit(PROMOTION_FEN, (), QUICK).result(timeout=30).move == chess.Move(chess.E1, chess.F3)
    (after,) = engine_pids(FAKE_ENGINE[1])
    assert after != before


def test_a_hung_engine_is_killed_and_the_next_move_gets_a_new_one(tmp_path: Path) -> None:
    marker = tmp_path / "hung-once"
    engines = UciMoveSources(uci_settings((*FAKE_ENGINE, "hang-once", str(marker), "e1f3"), hang_margin_s=0.5))
    try:
        engine = engines.open("g1")
        with pytest.raises(EngineHung):
            engine.submit(PROMOTION_FEN, (), QUICK).result(timeout=30)
        assert marker.exists()
        assert engine.submit(PROMOTION_FEN, (), QUICK).result(timeout=30).move == chess.Move(chess.E1, chess.F3)
        wait_until(lambda: len(engine_pids(FAKE_ENGINE[1])) == 1, 10, "the hung engine is gone")
    finally:
        engines.close()
    assert engine_pids(FAKE_ENGINE[1]) == set()


def test_a_search_left_hanging_is_superseded_by_the_next_and_the_engine_replaced(tmp_path: Path) -> None:
    # The player posts a fallback move long before a hung engine's time is up; the next search must
    # not wait for that time.
    marker = tmp_path / "hung"
    engines = UciMoveSources(uci_settings((*FAKE_ENGINE, "hang-once", str(marker), "e1f3"), hang_margin_s=0.5))
    try:
        engine = engines.open("g1")
        hanging = engine.submit(PROMOTION_FEN, (), Limits(wtime_ms=600_000, btime_ms=600_000))
        wait_until(marker.exists, 20, "the engine hangs on its first 'go'")
        assert engine.submit(PROMOTION_FEN, (), QUICK).result(timeout=20).move == chess.Move(chess.E1, chess.F3)
        assert hanging.cancelled()
    finally:
        engines.close()


def test_an_engine_hanging_when_its_game_ends_is_killed_within_the_margin(tmp_path: Path,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    marker = tmp_path / "hung"
    engines = UciMoveSources(uci_settings((*FAKE_ENGINE, "hang-once", str(marker), "e1f3"), hang_margin_s=0.5))
    try:
        engine = engines.open("g1")
        engine.submit(PROMOTION_FEN, (), Limits(wtime_ms=600_000, btime_ms=600_000))
        wait_until(marker.exists, 20, "the engine hangs on its first 'go'")
        engine.close()
        assert engine.closing is not None
        engine.closing.result(timeout=10)
        assert engine_pids(FAKE_ENGINE[1]) == set()
    finally:
        engines.close()
    assert "the engine did not quit within 0.5 s; killed" in caplog.text


# -- engines that cannot play: one line naming the key -------------------------------------------


START_ERRORS = [
    pytest.param("/nonexistent/engine", {}, r"^engine\.command: cannot start /nonexistent/engine: No such file",
                 id="missing"),
    pytest.param((*FAKE_ENGINE, "exit"), {}, r"^engine\.command: .* exited before answering 'uci'", id="exits"),
    pytest.param((*FAKE_ENGINE, "no-uciok"), {"start_timeout_s": 1},
                 r"^engine\.command: .* did not answer 'uci' within 1 s \(engine\.start_timeout_s\)", id="not-uci"),
    pytest.param((*FAKE_ENGINE, "no-variant"), {}, r"^engine\.command: .* has no UCI_Variant option", id="no-variant"),
    pytest.param((*FAKE_ENGINE, "chess-only"), {}, r"^engine\.command: .* does not play knightmate \(its UCI_Variant "
                 r"option lists chess\)", id="no-knightmate"),
    pytest.param((*FAKE_ENGINE, "bestmove", "0000"), {"options": {"Threads": 2}},
                 r"^engine\.options: engine does not support option Threads", id="unknown-option"),
    pytest.param((*FAKE_ENGINE, "bestmove", "0000"), {"options": {"Hash": 100}},
                 r"^engine\.options: expected value for option 'Hash' to be at most 64, got: 100", id="bad-value"),
]


@pytest.mark.parametrize(("command", "values", "message"), START_ERRORS)
def test_an_engine_that_cannot_play_is_one_line_naming_the_key(command: str | tuple[str, ...],
                                                               values: dict[str, object], message: str) -> None:
    engines = UciMoveSources(uci_settings(command, **values))
    try:
        with pytest.raises(EngineStartError, match=message) as caught:
            engines.check()
    finally:
        engines.close()
    assert "\n" not in str(caught.value)
    wait_until(lambda: not engine_pids(FAKE_ENGINE[1]), 10, "the refused engine is gone")


def test_a_game_whose_engine_cannot_start_fails_its_searches_not_the_bot() -> None:
    engines = UciMoveSources(uci_settings("/nonexistent/engine"))
    try:
        with pytest.raises(EngineStartError):
            engines.open("g1").submit(None, (), QUICK).result(timeout=30)
    finally:
        engines.close()



class RecordingPool:
    """A search pool that notes what it is asked, for the built-in engine's per-game wrapper."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def submit(self, initial_fen: str | None, moves: tuple[str, ...], limits: Limits,
               game_id: str | None = None) -> Future[SearchResult]:
        self.calls.append(("submit", game_id, *moves))
        return Future()

    def ponder(self, game_id: str, initial_fen: str | None, moves: tuple[str, ...]) -> bool:
        self.calls.append(("ponder", game_id, *moves))
        return True

    def stop_ponder(self, game_id: str) -> None:
        self.calls.append(("stop_ponder", game_id))


def test_a_built_in_games_searches_name_the_game_and_closing_it_ends_its_pondering() -> None:
    pool = RecordingPool()
    engine = BuiltinMoveSources(pool).open("g7")
    engine.submit(None, ("e2e3",), Limits(movetime_ms=10))
    engine.ponder(None, ("e2e3", "e7e6"))
    engine.close()
    assert pool.calls == [("submit", "g7", "e2e3"), ("ponder", "g7", "e2e3", "e7e6"), ("stop_ponder", "g7")]
