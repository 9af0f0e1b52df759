"""Threads: one thread searches exactly as before; several (Lazy SMP over helper processes sharing
one table in shared memory) play sound moves, count every process's nodes, stop when told, and leave
no process or shared memory behind, whether the engine quits or is killed."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bot.engine import Engine, Limits
from bot.engine.search import MATE
from bot.engine.smp import BLOCK_PREFIX, SHARED_MEMORY_DIRECTORY
from bot.engine.table import HEADER_WORDS, MAX_THREADS, SharedTable, block_bytes
from bot.engine.uci import THREADS
from bot.own_command import OWN_COMMAND
from tests.helpers.child_processes import children, still_running
from variant import KnightmateBoard

TIMEOUT_S = 30

#: Nodes of a depth-7 search of each position by a fresh engine with one thread, then of the same
#: search again (its table, histories and caches kept), as the engine counted them before Threads
#: existed (main's compiled build at ee23005 and at 3f1baae; this branch's pure build the same),
#: counted again when the evaluation gained the royal danger, the endgame flight squares and the
#: commoners' passed-pawn distances (both builds alike), again when futility and late-move
#: pruning reached depths 6 and 7, and again with the larger null-move reduction, internal
#: iterative reduction and the improving flag, with ProbCut, with quiescence's use of the table,
#: with razoring, and with the evaluation's refit piece-square tables (both builds alike each
#: time). A change to the search or the evaluation that changes them changes these figures on
#: purpose; Threads must not.
POSITIONS_AND_NODES = [
    ("rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq - 0 1", 10709, 769),
    ("r1bqkb1r/ppp2ppp/2m2m2/3pp3/4P3/2M2M2/PPPP1PPP/R1BQKB1R w KQkq - 0 4", 12329, 6877),
    ("r3k2r/pp1b1ppp/2mqpm2/3p4/3P4/2MBPM2/PPQ2PPP/R3K2R w KQkq - 4 10", 13459, 2908),
    ("2r1k2r/pp3ppp/2m1pm2/3p4/3P4/2M1PM2/PP3PPP/2R1K2R b Kk - 2 16", 15546, 1053),
    ("8/5pk1/3m2p1/8/3P4/5MP1/5P2/6K1 w - - 0 40", 2556, 407),
]
#: Mates in two, one with the queen alone, one with queen and rook (the search's own test set has more).
MATES_IN_TWO = ["8/3Q4/8/8/8/8/K4k2/8 w - - 0 1", "1k6/8/4K1Q1/8/8/8/2R5/8 w - - 0 1"]
#: White's rook takes the queen left alone on d5.
HANGING_QUEEN = "k7/pp6/8/3q4/8/8/PP6/K2R4 w - - 0 1"
needs_two_cores = pytest.mark.skipif(THREADS.max is None or THREADS.max < 2,
                                     reason="UCI offers Threads up to the machine's cores")


@pytest.fixture(scope="module")
def two_threads() -> Iterator[Engine]:
    engine = Engine(hash_mb=16, threads=2)
    yield engine
    engine.close()


def test_one_thread_searches_the_nodes_it_searched_before_threads() -> None:
    engine = Engine(hash_mb=16, threads=1)
    for fen, fresh_nodes, again_nodes in POSITIONS_AND_NODES:
        board = KnightmateBoard(fen)
        engine.new_game()
        nodes = (engine.search(board, Limits(depth=7)).nodes, engine.search(board, Limits(depth=7)).nodes)
        assert nodes == (fresh_nodes, again_nodes), fen


def test_back_to_one_thread_the_search_is_the_single_thread_one_again() -> None:
    board = KnightmateBoard(POSITIONS_AND_NODES[2][0])
    engine = Engine(hash_mb=16, threads=2)
    engine.search(board, Limits(depth=4))
    engine.threads = 1
    engine.new_game()
    assert engine.search(board, Limits(depth=7)).nodes == POSITIONS_AND_NODES[2][1]


def test_the_shared_table_gives_back_what_it_was_given_and_a_torn_entry_is_a_miss() -> None:
    table = SharedTable(memoryview(bytearray(block_bytes(1))))
    entries = {-(2**63): (5, 1, -(MATE - 3), 0x7FFF), 2**63 - 1: (255, 0, MATE - 7, 1), 12345: (1, 2, 0, 77)}
    for key, (depth, flag, score, move) in entries.items():
        table.put(key, depth, flag, score, move)
    for key, entry in entries.items():
        assert table.get(key) == entry
    assert table.get(54321) is None
    # A shallower entry of the same position does not replace a deeper one; a deeper one does.
    table.put(12345, 0, 0, 10, 5)
    assert table.get(12345) == entries[12345]
    table.put(12345, 3, 0, 10, 5)
    assert table.get(12345) == (3, 0, 10, 5)
    # Another position in the same slot: its first word written, its second not yet (another
    # process's write torn by a read): neither position's entry is read.
    other = 12345 + table.slots
    index = HEADER_WORDS + 2 * (12345 % table.slots)
    old_data = table.words[index + 1]
    table.put(other, 9, 0, 99, 9)
    table.words[index + 1] = old_data
    assert table.get(12345) is None and table.get(other) is None
    for key in range(-5000, 0, 7):  # negative keys (most are) land among the entries, not in the header
        table.put(key * 7919, 1, 1, 1, 1)
    assert not table.stopped and not any(table.nodes(worker) for worker in range(MAX_THREADS))
    assert table.get(-5000 * 7919) == (1, 1, 1, 1)
    table.clear()
    assert not any(table.words[HEADER_WORDS:]) and table.get(-5000 * 7919) is None


@pytest.mark.parametrize("fen", MATES_IN_TWO)
def test_two_threads_find_and_play_the_mates_in_two(two_threads: Engine, fen: str) -> None:
    board = KnightmateBoard(fen)
    two_threads.new_game()
    for ply in range(3):
        result = two_threads.search(board, Limits(depth=5))
        assert result.move in board.legal_moves
        assert result.mate == (2, -1, 1)[ply]
        board.push(result.move)
    assert board.is_checkmate()


def test_two_threads_take_the_hanging_queen_as_one_does(two_threads: Engine) -> None:
    board = KnightmateBoard(HANGING_QUEEN)
    alone = Engine(hash_mb=16).search(board, Limits(depth=6))
    shared = two_threads.search(board, Limits(depth=6))
    assert shared.move == alone.move == board.parse_uci("d1d5")
    assert shared.score_cp is not None and shared.score_cp > 500


def test_reports_count_the_helpers_nodes(two_threads: Engine) -> None:
    """The main search's nodes are those of one thread searching the same tree (it shares the
    table, so not exactly); the totals reported are more, and grow with each report."""
    board = KnightmateBoard(POSITIONS_AND_NODES[2][0])
    two_threads.new_game()
    reports: list[int] = []
    result = two_threads.search(board, Limits(depth=7), on_info=lambda info: reports.append(info.nodes))
    assert reports == sorted(reports) and result.nodes >= reports[-1]
    pool = two_threads._pool
    assert pool is not None and 0 < pool.helper_nodes() < result.nodes


@needs_two_cores
def test_a_dead_helper_costs_one_search_its_help_and_is_started_again(caplog: pytest.LogCaptureFixture) -> None:
    """A helper killed between searches: the next search runs alone (and says so), the helpers are
    started again, and the search after that has their help."""
    engine = Engine(hash_mb=16, threads=2)
    try:
        engine.wait_for_helpers()
        pool = engine._pool
        assert pool is not None
        dead = pool.pids[0]
        os.kill(dead, signal.SIGKILL)
        assert still_running({dead}, TIMEOUT_S) == set()
        board = KnightmateBoard(HANGING_QUEEN)
        with caplog.at_level(logging.WARNING, logger="bot.engine.search"):
            alone = engine.search(board, Limits(depth=6))
        assert alone.move == board.parse_uci("d1d5")
        assert any("searching alone" in record.getMessage() for record in caplog.records)
        again = engine._pool
        assert again is not None and again is not pool and dead not in again.pids
        helped = engine.search(board, Limits(depth=6))
        assert helped.move == board.parse_uci("d1d5") and again.helper_nodes() > 0
    finally:
        engine.close()


def _blocks_of(pid: int) -> list[str]:
    return [path.name for path in Path(SHARED_MEMORY_DIRECTORY).glob(f"{BLOCK_PREFIX}-{pid}-*")]


@contextmanager
def _uci_with_two_threads(first: str = "go depth 4", answer: str = "bestmove",
                          ) -> Iterator[tuple[subprocess.Popen[str], set[int]]]:
    """``knightmate-bot uci`` with Threads 2 after the command *first* (by default a search) has
    been answered; its child processes."""
    process = subprocess.Popen([*OWN_COMMAND, "uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(f"setoption name Threads value 2\nposition startpos moves e2e4\n{first}\n")
        process.stdin.flush()
        for line in process.stdout:
            if line.startswith(answer):
                break
        helpers = children(process.pid)
        assert len(helpers) >= 2  # the helper and the shared memory's resource tracker
        yield process, helpers
    finally:
        process.kill()
        process.wait(TIMEOUT_S)


def _quit_leaving_nothing(process: subprocess.Popen[str], helpers: set[int]) -> None:
    """Tells the engine to quit, and checks it exits with its helpers gone and no table left."""
    assert process.stdin is not None
    process.stdin.write("quit\n")
    process.stdin.flush()
    assert process.wait(TIMEOUT_S) == 0
    assert still_running(helpers, TIMEOUT_S) == set()
    assert _blocks_of(process.pid) == []


@needs_two_cores
def test_quit_ends_the_helpers_and_leaves_no_shared_memory() -> None:
    with _uci_with_two_threads() as (process, helpers):
        _quit_leaving_nothing(process, helpers)


@needs_two_cores
def test_isready_answers_once_the_helpers_are_up_and_the_tables_name_is_gone() -> None:
    with _uci_with_two_threads("isready", "readyok") as (process, helpers):
        assert _blocks_of(process.pid) == [] and helpers


@needs_two_cores
def test_quit_before_any_search_ends_the_helpers_and_removes_the_shared_memory() -> None:
    """Until the engine has waited for its helpers (at isready or a search), the table's name is
    still there; quit removes it."""
    with _uci_with_two_threads("uci", "uciok") as (process, helpers):
        assert len(_blocks_of(process.pid)) == 1
        _quit_leaving_nothing(process, helpers)


@needs_two_cores
@pytest.mark.parametrize(("first", "answer"), [("go depth 4", "bestmove"), ("uci", "uciok")],
                         ids=["searching", "before any search"])
def test_a_killed_engine_leaves_no_helpers_searching_and_no_shared_memory(first: str, answer: str) -> None:
    """Killed in a search, the helpers see their parent gone; killed before any search, while the
    table's name may still be there, the resource tracker removes it once the helpers have left."""
    with _uci_with_two_threads(first, answer) as (process, helpers):
        assert process.stdin is not None
        process.stdin.write("go infinite\n")
        process.stdin.flush()
        process.send_signal(signal.SIGKILL)
        process.wait(TIMEOUT_S)
        assert still_running(helpers, TIMEOUT_S) == set()
        assert _blocks_of(process.pid) == []
