"""The opening book: python-chess's Polyglot reader on Knightmate boards, our writer, the shipped
book, and the engine answering book positions without a search."""

from __future__ import annotations

import queue
import shlex
import statistics
import struct
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import chess
import chess.polyglot
import pytest

from bench.datagen.make_book import line_lengths
from bot.engine import Engine, Limits
from bot.engine.book import DEFAULT_BOOK, BookError, OpeningBook, book_entry, check_book_file, write_book
from tests.helpers.engine_processes import KNIGHTMATE_BOT_UCI
from variant import KnightmateBoard

# Both sides may castle both ways: the back ranks hold only royal knights and rooks.
CASTLING_FEN = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
# White pawns on b7 and d7 (one may capture on c8), royal knights far apart.
PROMOTION_FEN = "2r5/1P1P3k/8/8/8/8/8/K7 w - - 0 1"


def make_book(path: Path, *offers: tuple[KnightmateBoard, chess.Move, int]) -> Path:
    write_book(path, [book_entry(board, move, weight) for board, move, weight in offers])
    return path


def raw_moves(path: Path, board: chess.Board) -> list[int]:
    """The raw 16-bit move fields stored for *board*'s key, unfiltered by legality."""
    with chess.polyglot.open_reader(path) as reader:
        return [entry.raw_move for entry in reader.find_all(chess.polyglot.zobrist_hash(board))]


def found(path: Path, board: chess.Board) -> dict[chess.Move, int]:
    with chess.polyglot.open_reader(path) as reader:
        return {entry.move: entry.weight for entry in reader.find_all(board)}


# Keys.


def test_polyglot_key_depends_on_piece_types_so_knightmate_boards_hash_like_chess_boards() -> None:
    # The key reads python-chess's piece types: the royal knight hashes as a king, the commoner
    # as a knight, which is what makes python-chess's reader usable for Knightmate at all.
    for fen in (KnightmateBoard.starting_fen, CASTLING_FEN, PROMOTION_FEN):
        chess_fen = fen.translate(str.maketrans("Mm", "Nn"))
        assert chess.polyglot.zobrist_hash(KnightmateBoard(fen)) == chess.polyglot.zobrist_hash(chess.Board(chess_fen))


def test_polyglot_key_tells_apart_a_commoner_from_a_royal_knight_and_each_game_state() -> None:
    keys = {chess.polyglot.zobrist_hash(KnightmateBoard(fen)) for fen in (
        "4k3/8/8/8/8/8/8/M3K3 w - - 0 1",   # commoner a1
        "4k3/8/8/8/8/8/8/K3M3 w - - 0 1",   # commoner and royal knight swapped
        "4k3/8/8/8/8/8/8/M3K3 b - - 0 1",   # other side to move
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1",  # one castling right fewer
        "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1",    # en passant possible
        "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1",    # the same before e2e4
    )}
    assert len(keys) == 7


def test_key_after_moves_equals_key_of_the_same_position_set_up_from_fen() -> None:
    board = KnightmateBoard()
    for uci in ("e2e4", "d7d5", "e1f3", "d8d6", "e4d5"):
        board.push_uci(uci)
    assert chess.polyglot.zobrist_hash(board) == chess.polyglot.zobrist_hash(KnightmateBoard(board.fen()))


# Entries written by us, read by python-chess.


@pytest.mark.parametrize(("fen", "uci", "rook"), [
    (CASTLING_FEN, "e1g1", chess.H1),
    (CASTLING_FEN, "e1c1", chess.A1),
    (CASTLING_FEN.replace(" w ", " b "), "e8g8", chess.H8),
    (CASTLING_FEN.replace(" w ", " b "), "e8c8", chess.A8),
])
def test_castling_is_written_as_royal_knight_takes_rook_and_read_back_as_castling(
        tmp_path: Path, fen: str, uci: str, rook: chess.Square) -> None:
    board = KnightmateBoard(fen)
    move = board.parse_uci(uci)
    assert board.is_castling(move)
    book = make_book(tmp_path / "castling.bin", (board, move, 7))
    king = move.from_square
    assert raw_moves(book, board) == [rook | king << 6]
    assert found(book, board) == {move: 7}
    board.push(move)
    assert board.piece_type_at(move.to_square) == chess.KING


def test_royal_knight_jumps_next_to_the_castling_squares_are_not_taken_for_castling(tmp_path: Path) -> None:
    # e1g2 and e1c2 cross two files like castling does; they must stay jumps.
    board = KnightmateBoard("r3k2r/pppppppp/8/8/8/8/PP1PPP1P/R3K2R w KQkq - 0 1")
    jumps = [board.parse_uci("e1g2"), board.parse_uci("e1c2")]
    assert not any(board.is_castling(jump) for jump in jumps)
    book = make_book(tmp_path / "jumps.bin", *((board, jump, 1) for jump in jumps))
    assert set(found(book, board)) == set(jumps)


@pytest.mark.parametrize(("uci", "code"), [("b7b8q", 4), ("b7b8r", 3), ("b7b8b", 2), ("b7b8m", 1),
                                           ("d7c8m", 1), ("d7d8m", 1)])
def test_promotions_including_to_a_commoner_round_trip(tmp_path: Path, uci: str, code: int) -> None:
    board = KnightmateBoard(PROMOTION_FEN)
    move = board.parse_uci(uci)
    book = make_book(tmp_path / "promotion.bin", (board, move, 3))
    assert raw_moves(book, board) == [move.to_square | move.from_square << 6 | code << 12]
    with chess.polyglot.open_reader(book) as reader:
        entry = reader.weighted_choice(board)
    assert entry.move == move and board.is_legal(entry.move)
    assert board.uci(entry.move) == uci


def test_entries_are_sorted_by_key_for_the_readers_binary_search(tmp_path: Path) -> None:
    board = KnightmateBoard()
    offers = []
    for uci in ("e2e4", "d2d4", "c2c3"):
        offers.append((board.copy(), board.parse_uci(uci), 5))
        child = board.copy()
        child.push_uci(uci)
        offers.append((child, child.parse_uci("e7e5"), 5))
    book = make_book(tmp_path / "sorted.bin", *offers)
    data = book.read_bytes()
    keys = [struct.unpack_from(">Q", data, offset)[0] for offset in range(0, len(data), 16)]
    assert keys == sorted(keys) and len(keys) == 6
    assert set(found(book, board)) == {offers[index][1] for index in (0, 2, 4)}
    for position, move, _ in offers[1::2]:
        assert found(book, position) == {move: 5}


def test_writer_refuses_an_illegal_move_and_a_weight_polyglot_cannot_hold() -> None:
    board = KnightmateBoard()
    with pytest.raises(ValueError, match="not legal"):
        book_entry(board, chess.Move.from_uci("e1g1"), 1)  # castling through own pieces
    with pytest.raises(ValueError, match="weight"):
        book_entry(board, board.parse_uci("e2e4"), 70_000)


# The OpeningBook the engine uses.


def test_weighted_choice_follows_the_weights_and_repeats_with_a_seed(tmp_path: Path) -> None:
    board = KnightmateBoard()
    e4, d4 = board.parse_uci("e2e4"), board.parse_uci("d2d4")
    path = make_book(tmp_path / "weights.bin", (board, e4, 300), (board, d4, 100))
    book = OpeningBook(path, seed=1)
    picks = Counter(book.choose(board) for _ in range(400))
    assert set(picks) == {e4, d4}
    assert 250 <= picks[e4] <= 350  # expected 300; a binomial deviation of 5 sigma either way
    first, again = OpeningBook(path, seed=9), OpeningBook(path, seed=9)
    line = [first.choose(board) for _ in range(30)]
    assert line == [again.choose(board) for _ in range(30)] and len(set(line)) == 2


def test_position_outside_the_book_gets_no_move(tmp_path: Path) -> None:
    board = KnightmateBoard()
    path = make_book(tmp_path / "start.bin", (board, board.parse_uci("e2e4"), 1))
    board.push_uci("d2d4")
    assert OpeningBook(path).choose(board) is None


def test_a_position_seen_before_in_the_game_is_not_answered_from_the_book(tmp_path: Path) -> None:
    board = KnightmateBoard("4k3/8/8/8/8/8/8/M3K3 w - - 0 1")
    path = make_book(tmp_path / "cycle.bin", (board, board.parse_uci("a1a2"), 1))
    book = OpeningBook(path, seed=1)
    assert book.choose(board) == chess.Move.from_uci("a1a2")
    for uci in ("a1a2", "e8f6", "a2a1", "f6e8"):
        board.push_uci(uci)
    assert book.choose(board) is None


@pytest.mark.parametrize(("content", "reason"), [
    (None, "cannot read it"),
    (b"", "not a Polyglot book"),
    (b"x" * 17, "not a Polyglot book"),
])
def test_a_file_that_is_no_book_is_refused_with_the_reason(tmp_path: Path, content: bytes | None,
                                                           reason: str) -> None:
    path = tmp_path / "book.bin"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(BookError, match=reason):
        OpeningBook(path)
    with pytest.raises(BookError, match="not a file"):
        check_book_file(tmp_path)


# The engine.


def test_engine_answers_a_book_position_at_once_and_searches_outside_the_book(tmp_path: Path) -> None:
    board = KnightmateBoard()
    e4 = board.parse_uci("e2e4")
    engine = Engine(hash_mb=4, book=OpeningBook(make_book(tmp_path / "e4.bin", (board, e4, 1))))
    result = engine.search(board, Limits(depth=4))
    assert (result.move, result.from_book, result.depth, result.nodes) == (e4, True, 0, 0)
    assert result.score_cp is None and result.mate is None and result.pv == (e4,)
    board.push(e4)
    searched = engine.search(board, Limits(depth=2))
    assert not searched.from_book and searched.depth == 2 and searched.nodes > 0


def test_infinite_analysis_searches_even_a_book_position(tmp_path: Path) -> None:
    import threading

    board = KnightmateBoard()
    engine = Engine(hash_mb=4, book=OpeningBook(make_book(tmp_path / "e4.bin", (board, board.parse_uci("e2e4"), 1))))
    stop = threading.Event()
    result = engine.search(board, Limits(infinite=True, depth=2), stop=stop)
    assert not result.from_book and result.depth == 2


# The shipped book.


def test_shipped_book_is_small_and_answers_the_start_position_with_several_moves() -> None:
    assert check_book_file(DEFAULT_BOOK).stat().st_size < 2 * 1024 * 1024
    assert len(found(DEFAULT_BOOK, KnightmateBoard())) >= 2


def test_every_move_in_the_shipped_book_is_legal_and_both_colours_have_lines() -> None:
    # Walks the book from the start position; an entry the reader drops as illegal (a writer
    # that spelled castling or a promotion wrongly) shows as a raw entry without a found move.
    seen: set[int] = set()
    frontier = [KnightmateBoard()]
    plies = Counter[bool]()
    with chess.polyglot.open_reader(DEFAULT_BOOK) as reader:
        while frontier:
            board = frontier.pop()
            key = chess.polyglot.zobrist_hash(board)
            if key in seen:
                continue
            seen.add(key)
            moves = [entry.move for entry in reader.find_all(board)]
            assert len(moves) == len(list(reader.find_all(key))), board.fen()
            if moves:
                plies[board.turn] += 1
            for move in moves:
                child = board.copy(stack=False)
                child.push(move)
                frontier.append(child)
    assert plies[chess.WHITE] >= 20 and plies[chess.BLACK] >= 20


#: White's first moves after which every Black reply must be answered, besides the book's own.
PEOPLES_FIRST_MOVES = ("e2e4", "d2d4", "c2c3", "e2e3")
#: How fast a book move must come back through ``knightmate-bot uci``, I/O included.
BOOK_ANSWER_MS = 100


def lines_after(first_moves: list[str] | tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every line of White's first move, then every line of a Black reply to *first_moves*."""
    start = KnightmateBoard()
    lines = [(start.uci(move),) for move in start.legal_moves]
    for first in first_moves:
        board = KnightmateBoard()
        board.push_uci(first)
        lines += [(first, board.uci(reply)) for reply in board.legal_moves]
    return lines


def test_shipped_book_answers_every_first_move_and_every_reply_to_its_own_and_peoples_first_moves() -> None:
    own = [KnightmateBoard().uci(move) for move in found(DEFAULT_BOOK, KnightmateBoard())]
    lines = lines_after(sorted({*own, *PEOPLES_FIRST_MOVES}))
    assert len(lines) >= 18 + 4 * 18
    unanswered = []
    for line in lines:
        board = KnightmateBoard()
        for uci in line:
            board.push_uci(uci)
        if not found(DEFAULT_BOOK, board):
            unanswered.append(" ".join(line))
    assert unanswered == []


def test_shipped_books_main_lines_are_eight_plies_deep_on_average() -> None:
    # Both sides by the book's weights, as the engine picks: the lines the engine plays itself.
    lengths = line_lengths(DEFAULT_BOOK, 2000, None, seed=7)
    assert statistics.fmean(lengths) >= 8


class UciProcess:
    """``knightmate-bot uci`` as a subprocess, its lines awaited through a reader thread."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(shlex.split(KNIGHTMATE_BOT_UCI), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def read_until(self, prefix: str) -> list[str]:
        seen = []
        while not seen or not seen[-1].startswith(prefix):
            seen.append(self.lines.get(timeout=20))
        return seen

    def quit(self) -> None:
        self.send("quit")
        self.process.wait(timeout=20)


def test_knightmate_bot_uci_answers_from_the_book_at_once_after_every_first_move_and_reply_to_e4_d4_c3_e3(
) -> None:
    engine = UciProcess()
    try:
        engine.send("uci")
        engine.read_until("uciok")
        engine.send("isready")
        engine.read_until("readyok")
        slowest_ms = 0.0
        for line in [(), *lines_after(PEOPLES_FIRST_MOVES)]:
            board = KnightmateBoard()
            for uci in line:
                board.push_uci(uci)
            # Each position is asked twice and the faster answer counts: on a shared machine one
            # answer can wait for a core longer than the bound, while a search (its budget here is
            # over a second) is slower both times.
            answers_ms = []
            for _ in range(2):
                engine.send("position startpos" + (" moves " + " ".join(line) if line else ""))
                started = time.monotonic()
                engine.send("go wtime 60000 btime 60000 winc 1000 binc 1000")
                answer = engine.read_until("bestmove")
                answers_ms.append((time.monotonic() - started) * 1000)
                move = answer[-1].split()[1]
                assert answer == [f"info string book move {move}", f"bestmove {move}"], line
                assert board.parse_uci(move) in found(DEFAULT_BOOK, board)
            slowest_ms = max(slowest_ms, min(answers_ms))
        assert slowest_ms < BOOK_ANSWER_MS
    finally:
        engine.quit()
