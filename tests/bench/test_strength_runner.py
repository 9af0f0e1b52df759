"""The match runner in bench/: Elo arithmetic, clocks, the pyffish referee, and forfeits.

MoveSources here are the random mover and tiny fake engines written per test, each misbehaving in one
way (an illegal move, no answer, a crash); games start from positions a few plies from the end,
so the whole file runs in seconds.
"""

from __future__ import annotations

import math
import shutil
import sys
from pathlib import Path

import chess.pgn
import pytest

import variant  # noqa: F401  (registers Knightmate with chess.pgn)
from bench.match import strength, uci_player
from bench.match.elo import elo_from_score, estimate, likelihood_of_superiority, score
from bench.match.referee import DRAW, Referee
from bench.match.strength import (
    GameClock,
    Match,
    MatchConfig,
    Opening,
    Tally,
    TimeControl,
    load_openings,
    parse_opening,
)

BENCH = Path(__file__).resolve().parents[2] / "bench" / "match"
RANDOM_MOVER = [sys.executable, str(BENCH / "random_mover.py"), "--seed", "7"]
# Forty-five moves without a capture or pawn move: a game from here ends by the fifty-move rule
# (or by insufficient material after a capture) within a few plies.
NEAR_FIFTY_MOVES = "fen 4k3/8/8/8/8/8/8/M3K3 w - - 96 60"

FAKE_ENGINE = """
import sys
import time
mode = sys.argv[1]
for line in sys.stdin:
    words = line.split() or [""]
    if words[0] == "uci":
        variants = "var chess" if mode == "chess-only" else "var chess var knightmate"
        print("id name Fake " + mode)
        print("option name UCI_Variant type combo default chess " + variants)
        print("uciok")
    elif words[0] == "isready":
        print("readyok")
    elif words[0] == "go" and mode == "illegal":
        print("bestmove e2e5")
    elif words[0] == "go" and mode == "crash":
        sys.exit(3)
    elif words[0] == "go" and mode == "late":
        time.sleep(0.3)
        print("bestmove a1a2")
    elif words[0] == "stop" and mode == "slow":
        print("bestmove 0000")
    elif words[0] == "quit":
        break
    sys.stdout.flush()
"""


@pytest.fixture
def fake_engine(tmp_path: Path):
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE)

    def command(mode: str) -> list[str]:
        return [sys.executable, str(script), mode]

    return command


@pytest.fixture
def engine_starts(monkeypatch) -> list[str]:
    """The names of the engines started during the test, once per process start."""
    starts: list[str] = []
    original_start = uci_player.UciPlayer.start

    def counted_start(player: uci_player.UciPlayer) -> None:
        starts.append(player.name)
        original_start(player)

    monkeypatch.setattr(uci_player.UciPlayer, "start", counted_start)
    return starts


def play_match(command_a: list[str], command_b: list[str], opening: str, games: int = 2,
               tc: str = "5+0", lag_grace_ms: int = 50, pgn: Path | None = None, concurrency: int = 1,
               ponder_a: bool = False, nodes: int | None = None) -> Tally:
    config = MatchConfig(
        command_a=command_a, command_b=command_b, options_a={}, options_b={}, name_a="A", name_b="B",
        games=games, openings=[parse_opening(opening, 1)], time_control=TimeControl.parse(tc),
        lag_grace_ms=lag_grace_ms, concurrency=concurrency, pgn=pgn, ponder_a=ponder_a, nodes=nodes,
    )
    match = Match(config)
    try:
        tally = Tally(*match.start_engines())
        match.run(tally, seed=1)
    finally:
        match.close()
    return tally


# Elo and score arithmetic.


def test_even_match_is_zero_elo_with_symmetric_interval() -> None:
    result = estimate(10, 0, 10)
    assert result.elo == 0
    # Score 0.5 +/- 1.96 * 0.5 / sqrt(20) = 0.5 +/- 0.219, i.e. 0.281 .. 0.719.
    assert result.lower == pytest.approx(-163.3, abs=0.2)
    assert result.upper == pytest.approx(163.3, abs=0.2)
    assert result.error == pytest.approx(163.3, abs=0.2)
    assert result.los == 0.5


def test_three_quarters_score_is_191_elo() -> None:
    assert score(7, 1, 2) == 0.75
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)


def test_draws_narrow_the_interval() -> None:
    assert estimate(10, 20, 10).error < estimate(20, 0, 20).error


def test_clean_sweep_has_infinite_elo_and_exact_binomial_lower_bound() -> None:
    result = estimate(20, 0, 0)
    assert result.elo == math.inf and result.upper == math.inf
    # 0.025 ** (1 / 20) = 0.8315, which is +277 Elo.
    assert result.lower == pytest.approx(277.4, abs=0.5)
    assert estimate(0, 0, 20).upper == pytest.approx(-277.4, abs=0.5)


def test_likelihood_of_superiority_counts_decisive_games_only() -> None:
    assert likelihood_of_superiority(0, 0) == 0.5
    assert likelihood_of_superiority(12, 4) == pytest.approx(0.9772, abs=1e-4)


def test_elo_line_gives_the_interval_and_drops_the_error_when_an_end_is_infinite() -> None:
    assert strength.format_elo(10, 0, 10) == "+0.0 +/- 163.3 (95%: -163.3 .. +163.3), LOS 50.0%"
    assert strength.format_elo(9, 0, 1) == "+381.7 (95%: +159.0 .. +inf), LOS 99.4%"
    assert strength.format_elo(20, 0, 0) == "+inf (95%: +277.4 .. +inf), LOS 100.0%"


def test_score_of_no_games_is_an_error() -> None:
    with pytest.raises(ValueError, match="no games"):
        score(0, 0, 0)


# Clocks.


def test_time_control_reads_seconds_and_increment() -> None:
    assert TimeControl.parse("10+0.1") == TimeControl(10_000, 100)
    assert TimeControl.parse("60") == TimeControl(60_000, 0)
    for bad in ("ten", "0+1", "5+-1"):
        with pytest.raises(ValueError):
            TimeControl.parse(bad)


def test_clock_charges_thinking_time_and_adds_increment() -> None:
    clock = GameClock(TimeControl(10_000, 100), lag_grace_ms=100)
    assert not clock.charge(strength.WHITE, 300.0)
    assert clock.remaining_ms[strength.WHITE] == 9_800
    assert clock.remaining_ms[strength.BLACK] == 10_000
    assert clock.go_arguments(strength.BLACK) == "wtime 9800 btime 10000 winc 100 binc 100"
    assert clock.deadline_s(strength.WHITE) == pytest.approx(9.9)


def test_overrun_within_lag_grace_is_forgiven_and_clock_stops_at_zero() -> None:
    clock = GameClock(TimeControl(1_000, 100), lag_grace_ms=100)
    assert not clock.charge(strength.BLACK, 1_080.0)
    assert clock.remaining_ms[strength.BLACK] == 100


def test_overrun_beyond_lag_grace_is_a_flag() -> None:
    clock = GameClock(TimeControl(1_000, 100), lag_grace_ms=100)
    assert clock.charge(strength.WHITE, 1_101.0)


# The referee and the openings.


def test_referee_scores_checkmate_for_the_mating_side() -> None:
    referee = Referee("k7/2Q5/1Q6/8/8/8/4K3/7R w - - 0 1")
    referee.push("h1a1")
    assert referee.verdict() == strength.Verdict("1-0", "checkmate")


def test_referee_calls_stalemate_a_draw() -> None:
    referee = Referee("k7/2Q5/8/1Q6/8/8/8/4K3 w - - 0 1")
    referee.push("b5b6")
    assert referee.verdict() == strength.Verdict(DRAW, "stalemate")


def test_referee_claims_threefold_repetition() -> None:
    # Once both royal knights have moved (no castling rights left) the position after 2 plies
    # comes back after 6 and 10.
    referee = Referee(moves=["e1f3", "e8f6", "f3e1", "f6e8"] * 2 + ["e1f3"])
    assert referee.verdict() is None
    referee.push("e8f6")
    assert referee.verdict() == strength.Verdict(DRAW, "threefold repetition")


def test_referee_rejects_a_move_it_finds_illegal() -> None:
    referee = Referee()
    assert not referee.is_legal("e1e2")  # the royal knight does not step like a king
    with pytest.raises(ValueError, match="illegal"):
        referee.push("e1e2")


def test_opening_line_with_an_illegal_move_is_rejected_with_its_line_number(tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text("# comment\ne2e4 e7e5\ne2e4 e2e4\n")
    with pytest.raises(ValueError, match=r"openings.txt:3: illegal move 'e2e4'"):
        load_openings(path)


def test_opening_that_is_already_over_is_rejected() -> None:
    with pytest.raises(ValueError, match="already over"):
        parse_opening("fen 4k3/8/8/8/8/8/8/1B2K3 w - - 0 1", 1)


def test_opening_position_command_uses_startpos_or_fen() -> None:
    assert parse_opening("e2e4", 1).position(["e7e5"]) == "startpos moves e2e4 e7e5"
    assert parse_opening("startpos", 1).position() == "startpos"
    fen = "4k3/8/8/8/8/8/8/M3K3 w - - 0 1"
    assert parse_opening(f"fen {fen} moves a1a2", 1).position() == f"fen {fen} moves a1a2"


def test_shipped_openings_are_legal_and_enough_for_forty_games() -> None:
    openings = load_openings(strength.DEFAULT_OPENINGS)
    assert len(openings) >= 20
    assert len({opening.moves for opening in openings}) == len(openings)


def test_schedule_plays_each_opening_with_both_colours() -> None:
    openings = [Opening(variant.STARTING_FEN, (move,), number, False) for number, move in enumerate("abc")]
    games = list(strength.schedule(openings, 6, seed=3))
    assert [a_is_white for _, _, a_is_white in games] == [True, False] * 3
    assert [opening for _, opening, _ in games[0::2]] == [opening for _, opening, _ in games[1::2]]
    assert {opening.line_number for _, opening, _ in games} == {0, 1, 2}


# Whole games between processes.


def test_random_movers_finish_games_by_the_rules_and_write_pgn(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    tally = play_match(RANDOM_MOVER, RANDOM_MOVER, NEAR_FIFTY_MOVES, games=2, pgn=pgn)
    assert tally.games == 2
    assert set(tally.reasons) <= {"fifty-move rule", "insufficient material"}
    assert all(stats.illegal_moves == stats.time_forfeits == stats.crashes == 0 for stats in tally.stats.values())
    with pgn.open() as handle:
        games = [chess.pgn.read_game(handle) for _ in range(2)]
    assert [game.headers["White"] for game in games if game] == ["A", "B"]
    for game in games:
        assert game is not None and not game.errors
        assert game.headers["Variant"] == "Knightmate"
        assert game.headers["Result"] == DRAW


def test_concurrent_games_run_on_their_own_engine_pairs_and_all_count(tmp_path: Path, engine_starts) -> None:
    pgn = tmp_path / "games.pgn"
    tally = play_match(RANDOM_MOVER, RANDOM_MOVER, NEAR_FIFTY_MOVES, games=4, pgn=pgn, concurrency=2)
    assert tally.games == 4
    assert sorted(engine_starts) == ["A", "A", "B", "B"]
    with pgn.open() as handle:
        rounds = sorted(int(game.headers["Round"]) for game in iter(lambda: chess.pgn.read_game(handle), None))
    assert rounds == [1, 2, 3, 4]


def test_game_that_cannot_be_written_as_pgn_is_still_counted(tmp_path: Path, monkeypatch, caplog) -> None:
    def disagreeing_rules(*args: object) -> None:
        raise ValueError("illegal san")

    monkeypatch.setattr(strength, "write_pgn", disagreeing_rules)
    tally = play_match(RANDOM_MOVER, RANDOM_MOVER, NEAR_FIFTY_MOVES, pgn=tmp_path / "games.pgn")
    assert tally.games == 2
    assert "game 1 not written" in caplog.text and "illegal san" in caplog.text


def test_illegal_move_loses_the_game(fake_engine) -> None:
    tally = play_match(fake_engine("illegal"), RANDOM_MOVER, NEAR_FIFTY_MOVES)
    assert (tally.wins, tally.draws, tally.losses) == (0, 0, 2)
    assert tally.stats["A"].illegal_moves == 2
    assert tally.stats["B"].illegal_moves == 0


def test_engine_that_does_not_answer_in_time_loses_on_time(fake_engine) -> None:
    # A commoner each: both sides could still mate, so a flag loses.
    tally = play_match(fake_engine("slow"), RANDOM_MOVER, "fen m3k3/8/8/8/8/8/8/M3K3 w - - 0 60", tc="0.2+0")
    assert (tally.wins, tally.draws, tally.losses) == (0, 0, 2)
    assert tally.stats["A"].time_forfeits == 2
    assert tally.reasons == {"time forfeit": 2}


def test_flag_against_a_side_that_cannot_mate_is_a_draw(fake_engine) -> None:
    # Two commoners against a bare royal knight. As White, A's flag meets a side that can never
    # mate (a draw); as Black, A has the bare royal knight and its flag loses.
    tally = play_match(fake_engine("slow"), RANDOM_MOVER, "fen 4k3/8/8/8/8/8/8/MM2K3 w - - 0 60", tc="0.2+0")
    assert (tally.wins, tally.draws, tally.losses) == (0, 1, 1)
    assert tally.stats["A"].time_forfeits == 2
    assert tally.reasons == {"time forfeit, but the opponent cannot mate": 1, "time forfeit": 1}


def test_late_engine_loses_on_time_and_keeps_its_process_for_the_next_game(fake_engine, engine_starts) -> None:
    # The fake answers 0.3 s after go, past its 0.2 s clock and 50 ms grace: the runner flags it,
    # then reads the late bestmove while stopping it, so nothing needs killing or restarting.
    tally = play_match(fake_engine("late"), RANDOM_MOVER, "fen m3k3/8/8/8/8/8/8/M3K3 w - - 0 60", tc="0.2+0")
    assert tally.stats["A"].time_forfeits == 2
    assert (tally.wins, tally.draws, tally.losses) == (0, 0, 2)
    assert sorted(engine_starts) == ["A", "B"]


def test_node_budget_asks_for_nodes_and_runs_no_clock(fake_engine, engine_starts) -> None:
    # The same late fake as above, at the same time control, but with a node budget: its 0.3 s
    # moves are no flag, and both games end by the rules.
    tally = play_match(fake_engine("late"), RANDOM_MOVER, "fen m3k3/8/8/8/8/8/8/M3K3 w - - 0 60", tc="0.2+0",
                       nodes=500)
    assert tally.stats["A"].time_forfeits == 0
    assert "time forfeit" not in tally.reasons
    assert tally.games == 2
    assert strength.NodeBudget(500).go_arguments(strength.BLACK) == "nodes 500"


def test_engine_b_may_have_a_node_budget_of_its_own_whichever_colour_it_plays() -> None:
    parser = strength.build_parser()
    args = parser.parse_args(["--engine-a", "a", "--engine-b", "b", "--nodes", "500", "--nodes-b", "2000"])
    config = strength.config_from_args(args, parser)
    for a_is_white in (True, False):
        clock = config.new_clock(a_is_white)
        a_side, b_side = (strength.WHITE, strength.BLACK) if a_is_white else (strength.BLACK, strength.WHITE)
        assert (clock.go_arguments(a_side), clock.go_arguments(b_side)) == ("nodes 500", "nodes 2000")


def test_a_node_budget_for_b_alone_is_refused() -> None:
    parser = strength.build_parser()
    args = parser.parse_args(["--engine-a", "a", "--engine-b", "b", "--nodes-b", "2000"])
    with pytest.raises(SystemExit):
        strength.config_from_args(args, parser)


def test_engine_that_ignores_stop_is_killed_and_restarted(fake_engine, engine_starts, monkeypatch) -> None:
    monkeypatch.setattr(uci_player, "STOP_TIMEOUT_S", 0.2)
    tally = play_match(fake_engine("silent"), RANDOM_MOVER, "fen m3k3/8/8/8/8/8/8/M3K3 w - - 0 60", tc="0.2+0")
    assert (tally.wins, tally.draws, tally.losses) == (0, 0, 2)
    assert tally.stats["A"].time_forfeits == 2
    assert sorted(engine_starts) == ["A", "A", "B"]


def test_engine_that_crashes_loses_and_is_restarted_for_the_next_game(fake_engine, engine_starts) -> None:
    tally = play_match(fake_engine("crash"), RANDOM_MOVER, NEAR_FIFTY_MOVES)
    assert (tally.wins, tally.draws, tally.losses) == (0, 0, 2)
    assert tally.stats["A"].crashes == 2
    assert sorted(engine_starts) == ["A", "A", "B"]


def test_unknown_option_is_refused_before_any_game() -> None:
    player = uci_player.UciPlayer("random", RANDOM_MOVER, {"Skill Levl": "3"})
    with pytest.raises(uci_player.EngineError, match="has no option 'Skill Levl'"):
        player.start()
    player.close()


def test_engine_without_knightmate_is_refused(fake_engine) -> None:
    player = uci_player.UciPlayer("chess engine", fake_engine("chess-only"), {})
    with pytest.raises(uci_player.EngineError, match="does not know variant knightmate"):
        player.start()
    player.close()


def test_command_line_prints_score_elo_and_faults(tmp_path: Path, capsys) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text(NEAR_FIFTY_MOVES + "\n")
    code = strength.main([
        "--engine-a", " ".join(RANDOM_MOVER), "--engine-b", " ".join(RANDOM_MOVER), "--games", "2",
        "--tc", "5+0.05", "--openings", str(openings),
    ])
    output = capsys.readouterr().out
    assert code == 0
    assert "Score of Random Mover (A) vs Random Mover (B): +" in output
    assert "Elo difference: " in output
    assert "Random Mover (B): illegal moves 0, time forfeits 0, crashes 0" in output



def test_sprt_prints_the_llr_per_pair_and_stops_the_match_at_a_bound(tmp_path: Path, capsys, fake_engine) -> None:
    """Engine A loses every game (its moves are illegal): against "A is 400 Elo stronger" each
    lost pair is strong evidence (LLR -1.71 a pair), so H0 is accepted after the second pair
    and the other 16 games of --games are never played."""
    openings = tmp_path / "openings.txt"
    openings.write_text(NEAR_FIFTY_MOVES + "\n")
    code = strength.main([
        "--engine-a", " ".join(fake_engine("illegal")), "--engine-b", " ".join(RANDOM_MOVER), "--games", "20",
        "--nodes", "100", "--openings", str(openings), "--sprt", "0,400",
    ])
    output = capsys.readouterr().out
    assert code == 0
    status = [line for line in output.splitlines() if line.startswith("SPRT pentanomial")]
    assert status[0].startswith("SPRT pentanomial, elo0 0 elo1 400 (logistic), alpha 0.05 beta 0.05: pairs [1 0 0 0 0]")
    assert "LLR -1.71" in status[0] and "(-2.94, +2.94)" in status[0]
    assert status[1].endswith("LLR -3.41 (-2.94, +2.94): H0 accepted") and "pairs [2 0 0 0 0]" in status[1]
    assert "in 4 games" in output and "Game 5/" not in output


# Pondering.

PONDER_ENGINE = """
import sys
import time
from variant import KnightmateBoard

mode, log = sys.argv[1], open(sys.argv[2], "a")
board, pondering = KnightmateBoard(), False

def ordered(board):
    return sorted(board.uci(move) for move in board.legal_moves)

for line in sys.stdin:
    log.write(line)
    log.flush()
    words = line.split() or [""]
    if words[0] == "uci":
        print("id name Ponder " + mode)
        print("option name Ponder type check default false")
        print("uciok")
    elif words[0] == "isready":
        print("readyok")
    elif words[0] == "position":
        split = words.index("moves") if "moves" in words else len(words)
        board = KnightmateBoard() if words[1] == "startpos" else KnightmateBoard(" ".join(words[2:split]))
        for text in words[split + 1:]:
            board.push_uci(text)
    elif words[0] == "go" and "ponder" in words:
        pondering = True
    elif words[0] == "go":
        if mode == "slow-first":
            time.sleep(0.3)
        move = ordered(board)[-1 if mode == "last" else 0]
        board.push_uci(move)
        replies = ordered(board)
        print("bestmove " + move + (" ponder " + replies[0] if replies else ""))
    elif words[0] == "ponderhit" and pondering:
        pondering = False
        print("bestmove " + ordered(board)[0])
    elif words[0] == "stop" and pondering:
        pondering = False
        print("bestmove 0000")
    elif words[0] == "quit":
        break
    sys.stdout.flush()
"""


@pytest.fixture
def ponder_engine(tmp_path: Path):
    """A fake engine that predicts the first legal reply in UCI order and logs what it is sent.
    Modes: ``first`` plays the first legal move, ``slow-first`` the same after 0.3 s, ``last`` the
    last one; a pondering side answers ``ponderhit`` with the first move and ``stop`` with 0000."""
    script = tmp_path / "ponder_engine.py"
    script.write_text(PONDER_ENGINE)

    def command(mode: str, log: str) -> tuple[list[str], Path]:
        path = tmp_path / log
        return [sys.executable, str(script), mode, str(path)], path

    return command


def commands(log: Path) -> list[str]:
    return log.read_text().splitlines()


def after_each_go_ponder(log: Path) -> list[str]:
    lines = commands(log)
    return [lines[index + 1] for index, line in enumerate(lines) if line.startswith("go ponder")]


def test_a_ponder_hit_is_timed_from_ponderhit_not_from_go_ponder(ponder_engine) -> None:
    command_a, log_a = ponder_engine("first", "a.log")
    command_b, log_b = ponder_engine("slow-first", "b.log")
    tally = play_match(command_a, command_b, NEAR_FIFTY_MOVES, ponder_a=True)
    assert tally.games == 2 and tally.stats["A"].illegal_moves == tally.stats["A"].time_forfeits == 0
    assert "ponderhit" in commands(log_a) and "setoption name Ponder value true" in commands(log_a)
    # A thought on B's 0.3 s per move, yet each of its moves took only the answer to ponderhit.
    assert tally.stats["B"].longest_move_s >= 0.3 > tally.stats["A"].longest_move_s + 0.1
    assert set(after_each_go_ponder(log_a)) <= {"ponderhit", "stop"}
    assert not [line for line in commands(log_b) if "ponder" in line]    # B was not asked to ponder
    assert tally.stats["A"].ponder_misses == 0 and tally.stats["A"].ponder_hits >= 2


def test_a_ponder_miss_stops_drops_that_answer_and_asks_again(ponder_engine) -> None:
    command_a, log_a = ponder_engine("first", "a.log")
    command_b, _ = ponder_engine("last", "b.log")
    tally = play_match(command_a, command_b, NEAR_FIFTY_MOVES, ponder_a=True)
    # A's answer to stop is 0000: had the runner played it, A would have lost on an illegal move.
    assert tally.games == 2 and tally.stats["A"].illegal_moves == 0
    lines = commands(log_a)
    assert "ponderhit" not in lines and after_each_go_ponder(log_a).count("stop") >= 2
    assert tally.stats["A"].ponder_hits == 0 and tally.stats["A"].ponder_misses >= 2
    assert "; ponder hits 0 of " in tally.summary()[-2] and "ponder" not in tally.summary()[-1]
    stop = lines.index("stop")
    assert lines[stop + 1].startswith("position ") and lines[stop + 2].startswith("go wtime")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None, reason="needs Node and npm")
def test_fairy_stockfish_plays_knightmate_at_limited_strength() -> None:
    # Installs the npm package into bench/node_modules on first use.
    player = uci_player.UciPlayer("Fairy-Stockfish", [str(BENCH / "fairy_stockfish.sh")],
                                  {"UCI_LimitStrength": "true", "UCI_Elo": "1500"})
    try:
        player.start()
        player.new_game()
        reply = player.go("startpos moves e2e4", "movetime 200", deadline_s=10)
    finally:
        player.close()
    assert reply.bestmove is not None
    assert Referee(moves=["e2e4"]).is_legal(reply.bestmove)
