"""The tuner's linear model of the evaluation (bench/training/evaluation_features.py) is the evaluation."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from bench.training import evaluation_features, weights_file
from bot.engine import weights
from bot.engine.evaluation import _KNIGHT_DISTANCE, PawnCache, evaluate
from bot.engine.position import Position
from tests.helpers.random_positions import random_positions
from variant import KnightmateBoard


def test_features_times_the_current_numbers_are_the_evaluation() -> None:
    """Exact equality on many positions, both colours to move, full boards to bare endgames: a
    count the tuner misses, gives the wrong number or the wrong half of the blend shows up here,
    and so does a number changed in weights.json in a way the model does not follow."""
    values = evaluation_features.current_values()
    boards = random_positions(600, seed=71, plies=range(1, 160))
    for board in boards:
        expected = evaluate(Position.from_board(board), PawnCache())
        assert evaluation_features.score(values, evaluation_features.features(board)) == expected, board.fen()


def test_every_number_is_used_by_some_position() -> None:
    """A number whose counts are always zero would be fitted to nothing (a key misspelt in one
    place). The piece-square entries are checked square by square below: random games do not
    put every piece on every square."""
    used: set[int] = set()
    for board in random_positions(600, seed=72, plies=range(1, 160)):
        f = evaluation_features.features(board)
        used.update(i for i, (m, e) in enumerate(zip(f.mg, f.eg, strict=True)) if m or e)
    used.add(evaluation_features.TEMPO)  # outside the blend: counted as the side to move
    table_names = {name for names in evaluation_features.TABLES.values() for name in names}
    unused = [evaluation_features.label(key) for i, key in enumerate(evaluation_features.KEYS)
              if i not in used and key[0] not in table_names]
    assert not unused


@pytest.mark.parametrize("piece_type", chess.PIECE_TYPES)
def test_a_piece_counts_its_own_table_entry_on_every_square(piece_type: chess.PieceType) -> None:
    """A piece of either colour on a square counts +1 or -1 (White, Black) for that square, seen
    from its own side, in the middlegame table and the endgame one: every fitted entry is reached,
    and Black's view is mirrored. The royal knights stand where no other count meets the one
    looked at."""
    mg_name, eg_name = evaluation_features.TABLES[piece_type]
    for square in evaluation_features.TABLE_SQUARES[piece_type]:
        for color in chess.COLORS:
            own_view = square if color == chess.WHITE else chess.square_mirror(square)
            board = KnightmateBoard(None)
            board.set_piece_at(square, chess.Piece(piece_type, color))
            for royal_color in chess.COLORS:
                if piece_type == chess.KING and royal_color == color:
                    continue
                free = next(s for s in (chess.A1, chess.H1, chess.A8, chess.H8, chess.D4)
                            if board.piece_at(s) is None and s != own_view and chess.square_mirror(s) != own_view)
                board.set_piece_at(free, chess.Piece(chess.KING, royal_color))
            counts = evaluation_features.features(board)
            sign = 1 if color == chess.WHITE else -1
            for name, half in ((mg_name, counts.mg), (eg_name, counts.eg)):
                assert half[evaluation_features.INDEX[(name, chess.square_name(own_view))]] == sign, \
                    (name, chess.square_name(square), color)


def test_changed_numbers_change_the_score_as_the_counts_say() -> None:
    """Doubling every number doubles the blended sum: the model is linear, with no hidden constant."""
    board = KnightmateBoard("r3k2r/pp1b1ppp/2mqpm2/3p4/3P4/2MBPM2/PPQ2PPP/R3K2R w KQkq - 4 10")
    f = evaluation_features.features(board)
    values = evaluation_features.current_values()
    values[evaluation_features.TEMPO] = 0
    doubled = [2 * v for v in values]
    once = evaluation_features.score(values, f)
    assert abs(evaluation_features.score(doubled, f) - 2 * once) <= 1


def test_numbers_written_into_the_weights_file_are_the_numbers_read_back(tmp_path: Path) -> None:
    """The tuner's --write: every number changed (by a different amount each), written into a copy
    of weights.json, and read back by the feature model as exactly those numbers, the numbers it
    does not fit kept; the current numbers written back give the shipped file, byte for byte."""
    current = evaluation_features.current_values()
    changed = [value + 1 + index % 7 for index, value in enumerate(current)]
    path = tmp_path / "weights.json"
    path.write_text(weights_file.PATH.read_text())
    weights_file.write(changed, path)
    written = weights.read_data(path.read_text())
    assert evaluation_features._current(written) == dict(zip(evaluation_features.KEYS, changed, strict=True))
    shipped = weights.read_data()
    assert written["PHASE_WEIGHTS"] == shipped["PHASE_WEIGHTS"]
    assert written["QUEEN_MOBILITY"][2] == shipped["QUEEN_MOBILITY"][2]
    assert written["PIECE_VALUES"][chess.KING] == shipped["PIECE_VALUES"][chess.KING]
    weights_file.write(current, path)
    assert path.read_text() == weights_file.PATH.read_text()


def test_the_engine_reads_its_numbers_from_the_weights_file() -> None:
    """The tables the position and evaluation use are built from the file: a piece-square entry is
    the piece's value plus its table's entry (rank 1 first, Black's mirrored), and a slider's
    mobility weights are its [middlegame, endgame, typical], as the file says."""
    data = weights.read_data()
    expected = data["PIECE_VALUES"][chess.QUEEN] + data["QUEEN_MG"][3][2]  # c4
    assert weights.MG[weights.piece_square_index(chess.WHITE, chess.QUEEN, chess.C4)] == expected
    assert weights.MG[weights.piece_square_index(chess.BLACK, chess.QUEEN, chess.C5)] == -expected
    expected = data["PIECE_VALUES"][chess.ROOK] + data["ROOK_EG"][6][7]  # h7
    assert weights.EG[weights.piece_square_index(chess.WHITE, chess.ROOK, chess.H7)] == expected
    assert weights.EG[weights.piece_square_index(chess.BLACK, chess.ROOK, chess.H2)] == -expected
    for name in ("BISHOP_MOBILITY", "ROOK_MOBILITY", "QUEEN_MOBILITY"):
        mobility = getattr(weights, name)
        assert [mobility.middlegame, mobility.endgame, mobility.typical] == data[name]
    commoner = weights.COMMONER_MOBILITY
    assert (commoner.middlegame, commoner.endgame, commoner.typical) == (data["COMMONER_MOBILITY"], 0, 0)
    assert evaluation_features._current() == dict(zip(evaluation_features.KEYS,
                                                       evaluation_features.current_values(), strict=True))


def test_a_malformed_weights_file_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="weights.json: expected an object"):
        weights.read_data("[1, 2]")


def _count(board: KnightmateBoard, name: str, index: str | None = None) -> tuple[int, int]:
    """(middlegame, endgame) count, White minus Black, of one number of the model."""
    f = evaluation_features.features(board)
    position = evaluation_features.INDEX[(name,) if index is None else (name, index)]
    return f.mg[position], f.eg[position]


def test_a_flight_square_the_enemy_attacks_is_not_free() -> None:
    """White's royal knight on b1 has a3, c3 and d2 to flee to. A black rook on the a-file takes
    a3 away; on the h-file, which holds no flight square, it takes none. The count goes to the
    middlegame table and to the endgame one."""
    rook_off_line = KnightmateBoard("4k2r/8/8/8/8/8/8/1K6 w - - 0 1")
    rook_on_a3 = KnightmateBoard("r3k3/8/8/8/8/8/8/1K6 w - - 0 1")
    assert _count(rook_off_line, "ESCAPE_SQUARE_BONUS", "3") == (1, 0)
    assert _count(rook_off_line, "ESCAPE_SQUARE_BONUS_EG", "3") == (0, 1)
    assert _count(rook_on_a3, "ESCAPE_SQUARE_BONUS", "2") == (1, 0)
    assert _count(rook_on_a3, "ESCAPE_SQUARE_BONUS_EG", "2") == (0, 1)


def test_royal_danger_counts_the_square_of_the_attack_units_on_the_zone() -> None:
    """Black's royal knight on e8 jumps to c7, d6, f6 and g7. White's rook on d1 attacks d6 (one
    unit); a queen on f1 attacks f6 too (two units a square): three units, nine, more than the
    one and four of each piece alone. A queen on h1 attacks none of the zone. Bishops alone do
    not threaten a royal knight, so they count nothing."""
    rook = KnightmateBoard("4k3/8/8/8/8/8/8/K2R4 w - - 0 1")
    rook_and_queen = KnightmateBoard("4k3/8/8/8/8/8/8/K2R1Q2 w - - 0 1")
    queen_off_the_zone = KnightmateBoard("4k3/8/8/8/8/8/8/K6Q w - - 0 1")
    bishop = KnightmateBoard("4k3/8/8/8/8/8/8/K1B5 w - - 0 1")
    assert _count(rook, "ROYAL_DANGER") == (1, 0)
    assert _count(rook_and_queen, "ROYAL_DANGER") == (9, 0)
    assert _count(queen_off_the_zone, "ROYAL_DANGER") == (0, 0)
    assert _count(bishop, "ROYAL_DANGER") == (0, 0)


def test_only_undefended_checking_squares_are_safe_checks() -> None:
    """White's rook on a1 can check Black's royal knight on e8 from e1 or a8: with a black bishop
    on b7, a8 is covered, and only e1 is a safe check."""
    both_safe = KnightmateBoard("4k3/8/8/8/8/8/8/R6K w - - 0 1")
    one_covered = KnightmateBoard("4k3/1b6/8/8/8/8/8/R6K w - - 0 1")
    for board in (both_safe, one_covered):
        assert _count(board, "ROOK_CHECK_PENALTY") == (2, 0)
    assert _count(both_safe, "SAFE_CHECK_BONUS") == (2, 0)
    assert _count(one_covered, "SAFE_CHECK_BONUS") == (1, 0)


def test_threats_and_hanging_pieces_are_counted_for_the_attacker() -> None:
    """A white pawn attacks a black commoner that nothing defends: one pawn threat and one
    hanging piece for White; defended by a pawn on e6, it is no longer hanging."""
    hanging = KnightmateBoard("4k3/8/8/3m4/4P3/8/8/4K3 w - - 0 1")
    defended = KnightmateBoard("4k3/8/4p3/3m4/4P3/8/8/4K3 w - - 0 1")
    assert _count(hanging, "THREAT_BY_PAWN", "0") == (1, 0)
    assert _count(hanging, "HANGING", "0") == (1, 0)
    assert _count(defended, "THREAT_BY_PAWN", "0") == (1, 0)
    assert _count(defended, "HANGING", "0") == (0, 0)


def test_a_passed_pawn_runs_free_only_on_an_empty_unattacked_path() -> None:
    """A white pawn on d6 (its sixth rank, index 5): d7 and d8 empty and unwatched make a free path;
    a black rook on h7 watches d7."""
    free = KnightmateBoard("k7/8/3P4/8/8/8/8/K7 w - - 0 1")
    watched = KnightmateBoard("k7/7r/3P4/8/8/8/8/K7 w - - 0 1")
    assert _count(free, "PASSED_FREE_PATH", "5") == (0, 1)
    assert _count(watched, "PASSED_FREE_PATH", "5") == (0, 0)


def test_the_nearest_commoner_counts_its_steps_to_the_square_before_a_passed_pawn() -> None:
    """White's pawn on d6 has come three ranks past its third (index 5 - 2): its blocking square
    d7 is three king steps from White's commoner on d4, one from the one on e8 (the nearer counts),
    and six from Black's commoner on h1."""
    board = KnightmateBoard("k3M3/8/3P4/8/3M4/8/8/K6m w - - 0 1")
    far_only = KnightmateBoard("k7/8/3P4/8/3M4/8/8/K6m w - - 0 1")
    assert _count(board, "PASSED_COMMONER_DISTANCE", "1") == (0, 3 * 1)
    assert _count(far_only, "PASSED_COMMONER_DISTANCE", "1") == (0, 3 * 3)
    assert _count(board, "PASSED_COMMONER_DISTANCE", "0") == (0, 3 * 6)


def test_knight_distances_are_knight_moves_on_an_empty_board() -> None:
    """The corner case every knight-distance table must get right: a1 to b2 takes four moves."""
    assert _KNIGHT_DISTANCE[chess.A1 << 6 | chess.C2] == 1
    assert _KNIGHT_DISTANCE[chess.A1 << 6 | chess.B2] == 4
    assert _KNIGHT_DISTANCE[chess.A1 << 6 | chess.H8] == 6
    assert _KNIGHT_DISTANCE[chess.E4 << 6 | chess.E4] == 0
    assert all(_KNIGHT_DISTANCE[a << 6 | b] == _KNIGHT_DISTANCE[b << 6 | a]
               for a in chess.SQUARES for b in chess.SQUARES)
