"""The UCI front end: scripted sessions, bad input, and play through python-chess's chess.engine."""

from __future__ import annotations

import queue
import subprocess
from pathlib import Path

import chess
import chess.engine
import pytest

from bot.engine import smp
from bot.engine.book import DEFAULT_BOOK, book_entry, write_book
from bot.engine.uci import OPTIONS, THREADS, UciSession
from bot.own_command import OWN_COMMAND
from variant import KnightmateBoard

TIMEOUT_S = 20


class Transcript:
    """A session whose output lines can be awaited (the search answers from its own thread)."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.session = UciSession(self.lines.put)

    def send(self, *lines: str) -> None:
        for line in lines:
            assert self.session.handle(line)

    def read_until(self, prefix: str) -> list[str]:
        """All lines up to and including the first one starting with *prefix*."""
        seen = []
        while True:
            line = self.lines.get(timeout=TIMEOUT_S)
            seen.append(line)
            if line.startswith(prefix):
                return seen

    def drain(self) -> list[str]:
        seen = []
        while not self.lines.empty():
            seen.append(self.lines.get_nowait())
        return seen


def test_uci_handshake_lists_variant_and_options() -> None:
    transcript = Transcript()
    transcript.send("uci")
    lines = transcript.read_until("uciok")
    assert lines[0].startswith("id name knightmate-bot")
    assert "option name UCI_Variant type combo default knightmate var knightmate" in lines
    assert any(line.startswith("option name Hash type spin") for line in lines)
    transcript.send("setoption name UCI_Variant value knightmate", "setoption name Hash value 8",
                    "setoption name Move Overhead value 0", "ucinewgame", "isready")
    assert transcript.read_until("readyok") == ["readyok"]


def test_each_option_is_announced_from_its_declaration_and_setoption_follows_its_bounds() -> None:
    """python-chess reads the announcement back into the very declarations; a session starts at the
    defaults; a spin's bounds are accepted and one past them is refused."""
    transcript = Transcript()
    transcript.send("uci")
    announced = [line for line in transcript.read_until("uciok") if line.startswith("option ")]
    assert len(announced) == len(OPTIONS)
    session, defaults = transcript.session, {option.spec.name: option.spec.default for option in OPTIONS}
    assert (session.engine.hash_mb, session.move_overhead_ms, session.own_book, str(session.book_file)) == \
        (defaults["Hash"], defaults["Move Overhead"], defaults["OwnBook"], defaults["Book File"])
    for option in OPTIONS:
        spec = option.spec
        if spec.type != "spin":
            continue
        transcript.send(f"setoption name {spec.name} value {spec.min}", f"setoption name {spec.name} value {spec.max}",
                        f"setoption name {spec.name} value {(spec.max or 0) + 1}", "isready")
        assert [line.startswith("info string error") for line in transcript.read_until("readyok")] == \
            [True, False], spec.name


def test_use_nnue_is_off_by_default_and_switches_the_network_on_and_off() -> None:
    transcript = Transcript()
    transcript.send("uci")
    assert "option name Use NNUE type check default false" in transcript.read_until("uciok")
    assert transcript.session.engine.net is None
    transcript.send("setoption name Use NNUE value true", "position startpos moves e2e4", "go depth 2")
    lines = transcript.read_until("bestmove")
    assert transcript.session.engine.net is not None
    board = KnightmateBoard()
    board.push_uci("e2e4")
    assert board.parse_uci(lines[-1].split()[1]) in board.legal_moves
    transcript.send("setoption name Use NNUE value false", "isready")
    assert transcript.read_until("readyok") == ["readyok"]
    assert transcript.session.engine.net is None


def test_python_chess_reads_the_announced_options_as_declared() -> None:
    with chess.engine.SimpleEngine.popen_uci([*OWN_COMMAND, "uci"], timeout=TIMEOUT_S) as engine:
        assert {name: engine.options[name] for name in engine.options} == \
            {option.spec.name: option.spec for option in OPTIONS}


def test_scripted_session_plays_legal_moves_with_info_lines() -> None:
    transcript = Transcript()
    transcript.send("uci", "isready")
    transcript.read_until("readyok")
    transcript.send("position startpos moves e2e4 e7e5 e1f3", "go depth 3")
    lines = transcript.read_until("bestmove")
    infos = [line for line in lines if line.startswith("info depth")]
    assert [line.split()[2] for line in infos][:3] == ["1", "2", "3"]
    for field in ("score", "nodes", "nps", "time", "pv"):
        assert f" {field} " in infos[0]
    board = KnightmateBoard()
    for uci in ("e2e4", "e7e5", "e1f3"):
        board.push_uci(uci)
    assert board.parse_uci(lines[-1].split()[1]) in board.legal_moves


def test_go_with_clock_arguments_answers_in_time() -> None:
    transcript = Transcript()
    transcript.send("position fen rmbqkbmr/pppppppp/8/8/4P3/8/PPPP1PPP/RMBQKBMR b KQkq - 0 1",
                    "go wtime 1000 btime 1000 winc 10 binc 10 movestogo 20")
    bestmove = transcript.read_until("bestmove")[-1].split()[1]
    assert chess.Move.from_uci(bestmove) in KnightmateBoard(
        "rmbqkbmr/pppppppp/8/8/4P3/8/PPPP1PPP/RMBQKBMR b KQkq - 0 1").legal_moves


def test_stop_ends_infinite_search_with_bestmove() -> None:
    transcript = Transcript()
    transcript.send("position startpos", "go infinite")
    transcript.read_until("info depth 2")
    transcript.send("stop")
    assert transcript.read_until("bestmove")[-1].split()[1] in {
        KnightmateBoard().uci(move) for move in KnightmateBoard().legal_moves}


@pytest.mark.parametrize("promotion", ["m", "n"])
def test_position_accepts_commoner_promotion_in_both_letters(promotion: str) -> None:
    transcript = Transcript()
    transcript.send(f"position fen 8/4P2k/8/8/8/8/8/K7 w - - 0 1 moves e7e8{promotion}", "go depth 1")
    lines = transcript.read_until("bestmove")
    assert not [line for line in lines if "error" in line]
    assert transcript.session.board.piece_at(chess.E8) == chess.Piece(chess.KNIGHT, chess.WHITE)


@pytest.mark.parametrize("line", [
    "position",
    "position fen",
    "position fen not/a/fen w - - 0 1",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "position startpos moves e2e5",
    "position startpos moves e1g1",
    "position startpos moves 0000",
    "position startpos moves zz",
    "position middlegame",
    "setoption name Hash value lots",
    "setoption name Hash value 0",
    "setoption name UCI_Variant value chess",
    "setoption name Contempt value 10",
    "setoption Hash 8",
    "go depth",
    "go depth -1",
    "go movetime abc",
    "go sideways",
    "ponderhit",
    "setoption name Ponder value maybe",
    "fly",
])


def test_malformed_input_gets_info_string_error_and_keeps_position(line: str) -> None:
    transcript = Transcript()
    transcript.send("position startpos moves e2e4")
    transcript.send(line, "isready")
    lines = transcript.read_until("readyok")
    assert lines[0].startswith("info string error: ")
    assert transcript.session.board.move_stack == [chess.Move.from_uci("e2e4")]


def test_checkmated_position_answers_bestmove_none() -> None:
    transcript = Transcript()
    transcript.send("position fen k7/7p/8/8/8/8/2Q5/7K w - - 0 1 moves c2c6", "go depth 2")
    assert transcript.read_until("bestmove")[-1] == "bestmove (none)"


def test_quit_ends_the_session() -> None:
    transcript = Transcript()
    transcript.send("go infinite")
    assert transcript.session.handle("quit") is False
    assert transcript.drain()[-1].startswith("bestmove")


def test_plays_through_python_chess_engine_with_knightmate_board() -> None:
    board = KnightmateBoard("8/4P2k/8/8/8/8/1P6/K7 w - - 0 1")
    board.push_uci("e7e8m")  # the history reaches the engine as e7e8n (Move.uci())
    engine = chess.engine.SimpleEngine.popen_uci([*OWN_COMMAND, "uci"], timeout=TIMEOUT_S)
    try:
        engine.configure({"Hash": 16})
        for _ in range(4):
            result = engine.play(board, chess.engine.Limit(time=0.1))
            assert result.move in board.legal_moves
            board.push(result.move)
        info = engine.analyse(board, chess.engine.Limit(depth=3))
        assert info["depth"] == 3 and "score" in info and info["pv"]
    finally:
        engine.quit()


def test_undecodable_input_does_not_crash_the_process() -> None:
    completed = subprocess.run([*OWN_COMMAND, "uci"], input=b"\xff\xfe\x00garbage\nisready\nquit\n",
                               capture_output=True, timeout=TIMEOUT_S)
    lines = completed.stdout.decode().splitlines()
    assert completed.returncode == 0
    assert lines[0].startswith("info string error: unknown command") and lines[1] == "readyok"


def test_a_gui_that_goes_away_mid_search_ends_the_session_quietly() -> None:
    """The GUI dies while the engine searches: its end of each pipe closes, the search's next
    line meets a closed pipe, and the engine ends as after ``quit``, with no traceback on stderr."""
    process = subprocess.Popen([*OWN_COMMAND, "uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    try:
        process.stdin.write("uci\n")
        process.stdin.flush()
        for line in process.stdout:  # ends at end of output too, so a dead engine fails below, not hangs
            if line.strip() == "uciok":
                break
        process.stdin.write("setoption name OwnBook value false\nposition startpos\ngo infinite\n")
        process.stdin.flush()
        assert process.stdout.readline().startswith("info")  # the search is under way
        process.stdout.close()
        process.stdin.close()
        assert process.wait(timeout=TIMEOUT_S) == 0
        errors = process.stderr.read()
    finally:
        process.kill()
        process.stderr.close()
    assert "Traceback" not in errors and "Exception ignored" not in errors, errors


# Pondering.


def legal_ucis(moves: tuple[str, ...]) -> set[str]:
    board = KnightmateBoard()
    for uci in moves:
        board.push_uci(uci)
    return {board.uci(move) for move in board.legal_moves}


def info_time_ms(line: str) -> int:
    words = line.split()
    return int(words[words.index("time") + 1])


def ponder_until(transcript: Transcript, moves: tuple[str, ...], go: str, ms: int) -> list[str]:
    """Starts ``go ponder`` on startpos + *moves* (a search: the book is off); returns the lines up to an
    iteration at least *ms* in."""
    transcript.send("setoption name OwnBook value false", f"position startpos moves {' '.join(moves)}",
                    f"go ponder {go}")
    lines: list[str] = []
    while not lines or not lines[-1].startswith("info depth") or info_time_ms(lines[-1]) < ms:
        lines.append(transcript.lines.get(timeout=TIMEOUT_S))
    return lines


def test_handshake_offers_ponder_as_gui_expect() -> None:
    transcript = Transcript()
    transcript.send("uci")
    assert "option name Ponder type check default false" in transcript.read_until("uciok")
    transcript.send("setoption name Ponder value true", "isready")
    assert transcript.read_until("readyok") == ["readyok"]


def test_bestmove_names_the_expected_reply_to_ponder_on() -> None:
    transcript = Transcript()
    transcript.send("setoption name OwnBook value false", "position startpos moves e2e4", "go depth 4")
    words = transcript.read_until("bestmove")[-1].split()
    assert words[0] == "bestmove" and words[2] == "ponder"
    assert words[1] in legal_ucis(("e2e4",)) and words[3] in legal_ucis(("e2e4", words[1]))


def test_ponderhit_turns_the_ponder_search_into_a_timed_one_that_ends_by_itself() -> None:
    transcript = Transcript()
    # 300 ms on the clock would end a normal search in well under 100 ms.
    lines = ponder_until(transcript, ("e2e4", "e7e5"), "wtime 300 btime 300", ms=300)
    assert not [line for line in lines if line.startswith("bestmove")]
    transcript.send("ponderhit")
    assert transcript.read_until("bestmove")[-1].split()[1] in legal_ucis(("e2e4", "e7e5"))


def test_stop_during_ponder_answers_a_legal_bestmove() -> None:
    transcript = Transcript()
    ponder_until(transcript, ("e2e4", "e7e5"), "wtime 60000 btime 60000", ms=50)
    transcript.send("stop")
    assert transcript.read_until("bestmove")[-1].split()[1] in legal_ucis(("e2e4", "e7e5"))


def test_a_ponder_miss_stops_and_searches_the_position_really_played() -> None:
    transcript = Transcript()
    ponder_until(transcript, ("e2e4", "e7e5"), "wtime 60000 btime 60000", ms=50)
    transcript.send("stop")
    transcript.read_until("bestmove")
    transcript.send("position startpos moves e2e4 d7d5", "go wtime 2000 btime 2000")
    lines = transcript.read_until("bestmove")
    assert not [line for line in lines if "error" in line]
    assert lines[-1].split()[1] in legal_ucis(("e2e4", "d7d5"))


def test_python_chess_can_play_against_the_process_with_pondering_on() -> None:
    # python-chess sends 'go ponder' on the expected reply after each move, and 'stop' before the next command.
    board = KnightmateBoard()
    engine = chess.engine.SimpleEngine.popen_uci([*OWN_COMMAND, "uci"], timeout=TIMEOUT_S)
    try:
        engine.configure({"OwnBook": False})   # book moves name no reply to ponder on
        for _ in range(3):
            result = engine.play(board, chess.engine.Limit(white_clock=5, black_clock=5), ponder=True)
            assert result.move in board.legal_moves and result.ponder is not None
            board.push(result.move)
            board.push(result.ponder)
    finally:
        engine.quit()


def e4_book(path: Path) -> Path:
    board = KnightmateBoard()
    write_book(path, [book_entry(board, board.parse_uci("e2e4"), 1)])
    return path


def test_handshake_offers_the_own_book_and_its_file() -> None:
    transcript = Transcript()
    transcript.send("uci")
    lines = transcript.read_until("uciok")
    assert "option name OwnBook type check default true" in lines
    assert f"option name Book File type string default {DEFAULT_BOOK}" in lines


def test_book_position_is_answered_from_the_book_without_a_search(tmp_path: Path) -> None:
    transcript = Transcript()
    transcript.send(f"setoption name Book File value {e4_book(tmp_path / 'e4.bin')}",
                    "position startpos", "go wtime 60000 btime 60000")
    lines = transcript.read_until("bestmove")
    assert lines == ["info string book move e2e4", "bestmove e2e4"]


def test_own_book_false_searches_the_book_position(tmp_path: Path) -> None:
    transcript = Transcript()
    transcript.send(f"setoption name Book File value {e4_book(tmp_path / 'e4.bin')}",
                    "setoption name OwnBook value false", "position startpos", "go depth 2")
    lines = transcript.read_until("bestmove")
    assert [line.split()[2] for line in lines if line.startswith("info depth")][:2] == ["1", "2"]
    assert not any("book" in line for line in lines)
    assert transcript.session.engine.book is None


@pytest.mark.parametrize(("value", "reason"), [("/no/such/book.bin", "cannot read it"), ("", "no file given")])
def test_a_bad_book_file_is_an_error_and_keeps_the_book(tmp_path: Path, value: str, reason: str) -> None:
    transcript = Transcript()
    transcript.send(f"setoption name Book File value {e4_book(tmp_path / 'e4.bin')}")
    book = transcript.session.engine.book
    transcript.send(f"setoption name Book File value {value}", "setoption name OwnBook value maybe", "isready")
    lines = transcript.read_until("readyok")
    assert lines[0].startswith("info string error: Book File") and reason in lines[0]
    assert lines[1].startswith("info string error: OwnBook must be true or false")
    assert transcript.session.engine.book is book and book is not None


@pytest.mark.skipif(THREADS.max is None or THREADS.max < 2, reason="Threads goes up to the machine's cores")
def test_stop_ends_a_two_thread_search_and_the_helpers_serve_the_next_one() -> None:
    transcript = Transcript()
    transcript.send("setoption name Threads value 2", "position startpos", "go infinite")
    transcript.read_until("info depth 3")
    transcript.send("stop")
    assert transcript.read_until("bestmove")[-1].startswith("bestmove ")
    pool = transcript.session.engine._pool
    assert pool is not None
    helpers = pool.pids
    transcript.send("position startpos moves e2e4", "go depth 3")
    assert transcript.read_until("bestmove")[-1].startswith("bestmove ")
    assert transcript.session.engine._pool is pool and pool.pids == helpers
    transcript.send("setoption name Threads value 2", "setoption name Hash value 64")  # as they were
    assert transcript.session.engine._pool is pool
    transcript.send("setoption name Hash value 32")
    assert transcript.session.engine._pool is not pool and transcript.session.engine._pool is not None
    transcript.session.close()


@pytest.mark.parametrize("value", ["0", "-1", "two", "65", ""])
def test_a_bad_threads_value_is_an_error_and_keeps_the_threads(value: str) -> None:
    transcript = Transcript()
    transcript.send(f"setoption name Threads value {value}", "isready")
    error, ready = transcript.read_until("readyok")
    assert error.startswith("info string error: Threads must be") and ready == "readyok"
    assert transcript.session.engine.threads == 1


def test_threads_without_the_shared_memory_for_the_table_is_an_error_and_one_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(smp, "_shared_memory_free", lambda: 2**20)
    transcript = Transcript()
    transcript.send("setoption name Hash value 16", "setoption name Threads value 2", "isready")
    error, ready = transcript.read_until("readyok")
    assert error.startswith("info string error: Threads 2 with Hash 16: the shared memory") and "--shm-size" in error
    assert transcript.session.engine.threads == 1
    transcript.send("position startpos", "go depth 2")
    assert transcript.read_until("bestmove")[-1].startswith("bestmove ")
