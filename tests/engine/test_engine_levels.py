"""Strength levels: the table, the choice among lines, safety from blunders, and monotonic strength."""

from __future__ import annotations

import random

import chess
import chess.engine
import pytest

from bot.engine import Engine, Limits, SearchResult
from bot.engine.levels import (
    LEVELS,
    MAX_ELO,
    MIN_DEPTH,
    MIN_ELO,
    Strength,
    choose_line,
    level,
    strength_for_elo,
)
from bot.engine.weights import PIECE_VALUES
from bot.own_command import OWN_COMMAND
from tests.helpers.random_positions import random_positions
from variant import KnightmateBoard

TIMEOUT_S = 20


def test_levels_climb_from_a_beginner_to_just_below_full_strength() -> None:
    assert [entry.number for entry in LEVELS] == list(range(1, 9))
    elos = [entry.elo for entry in LEVELS]
    assert elos == sorted(set(elos)) and MIN_ELO <= elos[0] and elos[-1] <= MAX_ELO
    strengths = [strength_for_elo(elo) for elo in range(MIN_ELO, MAX_ELO + 1, 25)]
    for weaker, stronger in zip(strengths, strengths[1:], strict=False):
        assert weaker.depth <= stronger.depth and weaker.nodes <= stronger.nodes
        assert weaker.noise_cp >= stronger.noise_cp and weaker.blind_chance >= stronger.blind_chance
    assert all(strength.depth >= MIN_DEPTH for strength in strengths)
    assert level(1).label and level(8).elo == LEVELS[-1].elo


@pytest.mark.parametrize("elo", [MIN_ELO - 1, MAX_ELO + 1])
def test_an_elo_out_of_range_is_refused(elo: int) -> None:
    with pytest.raises(ValueError, match="UCI_Elo"):
        Engine(elo=elo)
    with pytest.raises(ValueError, match="level"):
        level(9)


def line(uci: str, score_cp: int | None, mate: int | None = None) -> SearchResult:
    move = chess.Move.from_uci(uci)
    return SearchResult(move, score_cp, mate, 2, 100, 1, (move,))


WEAK = Strength(elo=600, depth=2, nodes=500, lines=5, noise_cp=80, blind_chance=0.5)


def test_a_line_that_gives_material_away_is_never_chosen() -> None:
    lines = [line("a2a3", 40), line("b2b3", -30), line("c2c3", -200), line("d2d3", -900)]
    chosen = {choose_line(lines, 20, WEAK, random.Random(seed)) for seed in range(500)}
    assert chosen == {0, 1}  # both within 80 cp of the present 20 and the best 40; never -200 or worse


def test_a_weak_player_sometimes_misses_a_capture_and_a_strong_one_never() -> None:
    # The first line wins a rook; the others keep the balance (present evaluation 0).
    lines = [line("a2a3", 480), line("b2b3", 10), line("c2c3", -5), line("d2d3", -300)]
    weak = [choose_line(lines, 0, WEAK, random.Random(seed)) for seed in range(500)]
    assert 0.2 < weak.count(0) / len(weak) < 0.8 and 3 not in weak
    strong = Strength(elo=2000, depth=6, nodes=50_000, lines=3, noise_cp=12, blind_chance=0.0)
    assert {choose_line(lines, 0, strong, random.Random(seed)) for seed in range(200)} == {0}


def test_when_every_line_loses_the_least_losing_ones_are_chosen() -> None:
    # A piece is attacked: the present evaluation (+300) counts it, every line loses something.
    lines = [line("a2a3", -20), line("b2b3", -60), line("c2c3", -250)]
    assert {choose_line(lines, 300, WEAK, random.Random(seed)) for seed in range(300)} <= {0, 1}


def test_a_mate_found_is_played_unless_blind_and_being_mated_later_is_preferred() -> None:
    lines = [line("a2a3", None, 2), line("b2b3", 30), line("c2c3", -200)]
    assert sorted(set(choose_line(lines, 0, WEAK, random.Random(seed)) for seed in range(300))) == [0, 1]
    mated = [line("a2a3", None, -5), line("b2b3", None, -1)]
    assert {choose_line(mated, 0, WEAK, random.Random(seed)) for seed in range(100)} == {0}


def queen_positions(count: int) -> list[KnightmateBoard]:
    """Ordinary middlegame positions in which the side to move has its queen."""
    return [board for board in random_positions(count * 4, seed=27, plies=range(10, 40), unfinished=True)
            if board.pieces(chess.QUEEN, board.turn) and not board.is_check()][:count]


def test_the_weakest_level_never_hangs_its_queen_in_one() -> None:
    """The move of the weakest level, searched by the full engine one ply deeper (the reply and
    its captures), never loses more than a minor piece against the full engine's best move:
    a queen left en prise would lose about 1000 cp."""
    for index, board in enumerate(queen_positions(12)):
        best = Engine(hash_mb=16).search(board, Limits(depth=2))
        assert best.score_cp is not None or best.mate is not None
        for seed in range(2):
            move = Engine(hash_mb=16, elo=MIN_ELO, seed=seed).search(board, Limits(nodes=100_000)).move
            assert move is not None
            board.push(move)
            reply = Engine(hash_mb=16).search(board, Limits(depth=1))
            board.pop()
            if best.mate is not None or reply.mate is not None:
                continue  # mates are the tests below; here the material
            assert reply.score_cp is not None and best.score_cp is not None
            loss = best.score_cp + reply.score_cp
            assert loss < PIECE_VALUES[chess.BISHOP], (index, board.fen(), board.san(move), loss)


def test_the_weakest_level_saves_its_attacked_queen() -> None:
    # Black's pawn on e5 attacks the white queen on d4 (and f4 is no better: the g5 pawn).
    board = KnightmateBoard("4k3/pppp3p/8/4p1p1/3Q4/8/PPP2PPP/4K3 w - - 0 1")
    for seed in range(10):
        move = Engine(hash_mb=16, elo=MIN_ELO, seed=seed).search(board, Limits(nodes=100_000)).move
        assert move is not None
        after = board.copy()
        after.push(move)
        queen = after.pieces(chess.QUEEN, chess.WHITE)
        assert queen and not any(after.attackers(chess.BLACK, square) for square in queen), board.san(move)


def test_low_levels_search_little_and_the_top_level_more() -> None:
    board = KnightmateBoard("rmbqkbmr/ppp2ppp/3p4/4p3/3PP3/8/PPP2PPP/RMBQKBMR w KQkq - 0 3")
    weakest = Engine(hash_mb=16, elo=LEVELS[0].elo, seed=1).search(board, Limits(depth=6))
    assert weakest.depth == MIN_DEPTH and weakest.nodes < 3000  # a few milliseconds compiled
    strongest = Engine(hash_mb=16, elo=LEVELS[-1].elo, seed=1).search(board, Limits(depth=6))
    assert strongest.depth == 6 and strongest.nodes > 10 * weakest.nodes


def test_uci_limit_strength_and_elo_weaken_the_process_as_they_do_fairy_stockfish() -> None:
    board = KnightmateBoard("4k3/pppp3p/8/4p1p1/3Q4/8/PPP2PPP/4K3 w - - 0 1")
    with chess.engine.SimpleEngine.popen_uci([*OWN_COMMAND, "uci"], timeout=TIMEOUT_S) as engine:
        assert engine.options["UCI_LimitStrength"].default is False
        elo = engine.options["UCI_Elo"]
        assert (elo.min, elo.max) == (MIN_ELO, MAX_ELO)
        engine.configure({"UCI_LimitStrength": True, "UCI_Elo": LEVELS[0].elo})
        info = engine.analyse(board, chess.engine.Limit(nodes=10**6))
        assert info["depth"] <= strength_for_elo(LEVELS[0].elo).depth
        assert info["pv"][0] in board.legal_moves
        engine.configure({"UCI_LimitStrength": False})
        assert engine.analyse(board, chess.engine.Limit(depth=5))["depth"] == 5
        with pytest.raises(chess.engine.EngineError):
            engine.configure({"UCI_Elo": MAX_ELO + 1})
