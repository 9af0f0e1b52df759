"""bot.games.record: one game's board, turn, clocks, legality, abort timing, result and PGN, without I/O."""

from __future__ import annotations

import io
from dataclasses import replace

import chess
import chess.engine
import chess.pgn
import pytest

from bot.engine import SearchResult
from bot.games.record import Game
from bot.remote.events import GameEnded, GameFull, GameState, OpponentGone, Player, ReportedResult
from tests.helpers.games_harness import new_game
from variant import KnightmateBoard

# White mates at ply 7 with the queen: d1h5.
MATING_LINE = ("e2e3", "e8d6", "d2d3", "d6f5", "c1d2", "f5h6", "d1h5")
CUSTOM_FEN = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"


def state(moves: tuple[str, ...] = (), *, wtime: int = 60_000, btime: int = 60_000, status: str = "started",
          winner: str | None = None, inc: int = 0) -> GameState:
    return GameState(moves=moves, wtime_ms=wtime, btime_ms=btime, winc_ms=inc, binc_ms=inc, status=status,
                     winner=winner)


def full(moves: tuple[str, ...] = (), *, me_white: bool = True, fen: str | None = None, pychess: bool = True,
         variant: str = "knightmate") -> GameFull:
    me = Player("mybot") if pychess else Player("MyBot", id="mybot", title="BOT")
    other = Player("Alice") if pychess else Player("Alice", id="alice")
    white, black = (me, other) if me_white else (other, me)
    return GameFull(id="g1", variant=variant, white=white, black=black, initial_fen=fen,
                    base_ms=None if pychess else 60_000, increment_ms=None if pychess else 0, rated=None,
                    state=state(moves))


def test_colour_is_found_by_name_on_pychess_and_by_id_on_lichess() -> None:
    game = new_game()
    game.apply(full(me_white=False))
    assert game.color == chess.BLACK
    game = new_game()
    game.apply(full(pychess=False))
    assert game.color == chess.WHITE and game.problem is None


def test_board_is_rebuilt_from_the_custom_start_and_the_whole_move_list() -> None:
    game = new_game()
    game.apply(full(fen=CUSTOM_FEN))
    game.apply(state(("e2e4", "e8f6")))
    expected = chess.Board(CUSTOM_FEN)
    assert game.board.board_fen() != expected.board_fen()
    assert game.board.piece_at(chess.E4) == chess.Piece(chess.PAWN, chess.WHITE)
    assert game.board.piece_at(chess.F6) == chess.Piece(chess.KING, chess.BLACK)
    assert game.my_turn and game.ply == 2


def test_a_skipped_state_does_not_matter_because_each_state_carries_all_moves() -> None:
    game = new_game()
    game.apply(full())
    game.apply(state(MATING_LINE[:4]))
    assert game.board.fen() == new_game_board(MATING_LINE[:4]).fen()


def new_game_board(moves: tuple[str, ...]) -> chess.Board:
    game = new_game()
    game.apply(full(moves))
    return game.board


def test_only_legal_moves_on_our_turn_pass_validation() -> None:
    game = new_game()
    game.apply(full())
    assert game.legal_move("e1f3") is not None           # the royal knight jumps
    assert game.legal_move("b1c3") is None               # a commoner does not
    assert game.legal_move("e7e5") is None               # not our piece
    assert game.legal_move("zz") is None
    game.apply(state(("e1f3",)))
    assert not game.my_turn and game.legal_move("e7e5") is None


def test_fallback_move_is_legal() -> None:
    game = new_game()
    game.apply(full(MATING_LINE[:6]))
    assert game.fallback_move() in game.board.legal_moves


def test_limits_take_the_time_since_the_state_off_our_clock() -> None:
    game = new_game(move_overhead_ms=250, max_move_time_ms=500)
    game.apply(full(), now=100.0)
    game.apply(state(wtime=30_000, btime=40_000, inc=2_000), now=100.0)
    limits = game.limits(now=100.4)
    assert (limits.wtime_ms, limits.btime_ms, limits.winc_ms, limits.binc_ms) == (29_600, 40_000, 2_000, 2_000)
    assert (limits.move_overhead_ms, limits.movetime_ms) == (250, 500)


def test_lichess_result_comes_from_status_and_winner() -> None:
    game = new_game()
    game.apply(full(pychess=False))
    game.apply(state(("e2e3",), status="resign", winner="black"))
    assert game.ended and not game.my_turn
    result = game.result()
    assert (result.result, result.termination) == ("0-1", "normal")


@pytest.mark.parametrize(("status", "winner", "expected"), [
    ("outoftime", "white", ("1-0", "time forfeit")),
    ("outoftime", None, ("1/2-1/2", "time forfeit")),
    ("stalemate", None, ("1/2-1/2", "normal")),
    ("aborted", None, ("*", "abandoned")),          # as Lichess's own PGN export writes it
    ("noStart", None, ("*", "abandoned")),
    ("timeout", "black", ("0-1", "time forfeit")),
    ("unknownFinish", None, ("*", "unterminated")),
])
def test_lichess_statuses(status: str, winner: str | None, expected: tuple[str, str]) -> None:
    game = new_game()
    game.apply(full(pychess=False))
    game.apply(state(status=status, winner=winner))
    assert (game.result().result, game.result().termination) == expected


def test_pychess_mate_seen_on_the_board_is_scored() -> None:
    game = new_game()
    game.apply(full(me_white=False))
    game.apply(state(MATING_LINE))
    game.apply(GameEnded())
    assert game.result().result == "1-0"


def test_pychess_bare_game_end_in_a_live_position_is_unknown_not_a_guess() -> None:
    game = new_game()
    game.apply(full(me_white=False))
    game.apply(state(MATING_LINE[:6]))    # the mating move itself is never echoed by pychess
    game.apply(GameEnded())
    result = game.result()
    assert result.result == "*" and "without saying how" in result.reason


def test_pychess_our_own_unechoed_mating_move_wins() -> None:
    game = new_game()
    game.apply(full())
    game.apply(state(MATING_LINE[:6]))
    move = game.legal_move("d1h5")
    assert move is not None
    game.note_own_move(move, clock_ms=game.my_clock_ms())
    game.apply(GameEnded())
    assert game.result().result == "1-0"


def test_pychess_our_own_mating_move_posted_at_the_flag_is_not_counted() -> None:
    game = new_game()
    game.apply(full())
    game.apply(state(MATING_LINE[:6], wtime=300))
    move = game.legal_move("d1h5")
    assert move is not None
    game.note_own_move(move, clock_ms=300)
    game.apply(GameEnded())
    assert game.result().result == "*"


def test_abort_deadline_runs_only_while_the_opponent_has_not_moved() -> None:
    game = new_game()
    game.apply(full(), now=10.0)
    assert game.abort_deadline() is None                 # our turn
    game.apply(state(("e2e3",)), now=12.0)
    assert game.abort_deadline() == 42.0                 # 30 s after our first move
    game.apply(state(("e2e3", "e7e6")), now=20.0)
    game.apply(state(("e2e3", "e7e6", "d2d3")), now=21.0)
    assert game.abort_deadline() is None


def test_abort_deadline_as_black_waits_for_whites_first_move() -> None:
    game = new_game()
    game.apply(full(me_white=False), now=5.0)
    assert game.abort_deadline() == 35.0


def test_an_illegal_custom_start_position_is_a_problem_and_never_our_turn() -> None:
    game = new_game()
    game.apply(full(fen="4k3/8/8/8/8/8/8/4K2P w - - 0 1"))
    assert game.problem is not None and "start position" in game.problem
    assert not game.my_turn


def test_another_variant_is_a_problem() -> None:
    game = new_game()
    game.apply(full(variant="chess"))
    assert game.problem is not None


def test_a_server_move_list_with_an_illegal_move_stops_the_bot_from_moving() -> None:
    game = new_game()
    game.apply(full())
    game.apply(state(("e2e4", "b8c6")))
    assert game.sync_problem is not None and not game.my_turn
    game.apply(state(("e2e4", "e7e5")))
    assert game.problem is None and game.my_turn


def test_opponent_gone_sets_and_clears_the_claim_time() -> None:
    game = new_game()
    game.apply(full(pychess=False))
    game.apply(OpponentGone(True, 10), now=50.0)
    assert game.claim_win_at == 60.0
    game.apply(OpponentGone(False, None), now=52.0)
    assert game.claim_win_at is None


def test_opponent_draw_offer_is_read_from_the_opponents_flag() -> None:
    game = new_game()
    game.apply(full(pychess=False))
    game.apply(replace(state(("e2e3",)), bdraw=True))
    assert game.opponent_offers_draw()
    game.apply(replace(state(("e2e3",)), wdraw=True))
    assert not game.opponent_offers_draw()


def test_pgn_has_variant_players_result_termination_and_reads_back() -> None:
    game = new_game()
    game.apply(full(fen=CUSTOM_FEN, pychess=False))
    game.apply(state(("e2e4", "e8f6"), status="resign", winner="white"))
    text = game.pgn(game.result())
    parsed = chess.pgn.read_game(io.StringIO(text))
    assert parsed is not None
    headers = parsed.headers
    assert headers["Variant"] == "Knightmate" and headers["FEN"] == CUSTOM_FEN
    assert (headers["White"], headers["Black"]) == ("MyBot", "Alice")
    assert (headers["Result"], headers["Termination"], headers["TimeControl"]) == ("1-0", "normal", "60+0")
    assert [move.uci() for move in parsed.mainline_moves()] == ["e2e4", "e8f6"]
    assert headers["Event"] == "knightmate-bot game"           # the server did not say rated or casual
    assert "WhiteElo" not in headers and "BlackTitle" not in headers


def test_pgn_has_what_the_server_told_of_mode_ratings_and_titles() -> None:
    game = new_game()
    players = replace(full(pychess=False), rated=True, white=Player("MyBot", id="mybot", title="BOT", rating=1720),
                      black=Player("Alice", id="alice", rating=1650))
    game.apply(players)
    game.apply(state(("e2e4", "e8f6"), status="resign", winner="white"))
    parsed = chess.pgn.read_game(io.StringIO(game.pgn(game.result())))
    assert parsed is not None
    headers = parsed.headers
    assert headers["Event"] == "Rated Knightmate game"
    assert (headers["WhiteElo"], headers["BlackElo"], headers["WhiteTitle"]) == ("1720", "1650", "BOT")
    assert "BlackTitle" not in headers
    game = new_game()
    game.apply(replace(players, rated=False))
    game.apply(state(("e2e4",), status="aborted"))
    assert '[Event "Casual Knightmate game"]' in game.pgn(game.result())


def searched(move: str, *, score_cp: int | None = None, mate: int | None = None, depth: int = 0,
             pv: tuple[str, ...] = (), from_book: bool = False) -> SearchResult:
    return SearchResult(chess.Move.from_uci(move), score_cp, mate, depth, 1000, 10,
                        tuple(chess.Move.from_uci(uci) for uci in (move, *pv)), from_book)


def test_pgn_carries_the_bots_evals_with_depth_and_every_clock_the_server_told() -> None:
    """Read back by chess.pgn: evals from White's side, on the bot's searched moves only (none on a
    book move), and each move's clock as the state after it gave the mover's."""
    game = new_game()
    game.apply(full(me_white=False, pychess=False))
    game.apply(state(("e2e3",), wtime=59_000, btime=60_000))
    game.note_search(searched("e8d6", from_book=True))
    game.apply(state(("e2e3", "e8d6"), wtime=59_000, btime=58_500))
    game.apply(state(("e2e3", "e8d6", "d2d3"), wtime=57_250, btime=58_500))
    game.note_search(searched("d6f5", score_cp=35, depth=9, pv=("c1d2",)))
    game.apply(state(("e2e3", "e8d6", "d2d3", "d6f5"), wtime=57_250, btime=51_100))
    game.apply(state(("e2e3", "e8d6", "d2d3", "d6f5", "c1d2"), wtime=50_000, btime=51_100))
    game.note_search(searched("f5h6", mate=-3, depth=12))
    game.apply(state(("e2e3", "e8d6", "d2d3", "d6f5", "c1d2", "f5h6"), wtime=50_000, btime=49_000,
                     status="resign", winner="black"))
    parsed = chess.pgn.read_game(io.StringIO(game.pgn(game.result())))
    assert parsed is not None
    nodes = list(parsed.mainline())
    assert [node.clock() for node in nodes] == [59.0, 58.5, 57.25, 51.1, 50.0, 49.0]
    black = [chess.engine.PovScore(chess.engine.Cp(35), chess.BLACK), chess.engine.PovScore(chess.engine.Mate(-3),
                                                                                             chess.BLACK)]
    assert [node.eval() for node in nodes] == [None, None, None, black[0], None, black[1]]
    assert [node.eval_depth() for node in nodes] == [None, None, None, 9, None, 12]
    assert nodes[3].eval().white() == chess.engine.Cp(-35)  # type: ignore[union-attr]
    assert "resign, black wins" in nodes[-1].comment


def test_eval_describes_the_latest_search_from_whites_side_with_its_line_in_san() -> None:
    game = new_game()
    game.apply(full(pychess=False))
    assert game.describe_search(140) == "No search yet in this game."
    game.note_search(searched("e2e4", from_book=True))
    assert game.describe_search(140) == "At move 1: a book move, not searched."
    game.apply(state(("e2e4", "e8f6")))
    game.note_search(searched("d1h5", score_cp=-120, depth=7, pv=("f6e4",)))
    assert game.describe_search(140) == "At move 2: -1.20 (white's view), depth 7, expecting 2. Qh5 Kxe4."
    game.apply(state(("e2e4", "e8f6", "d1h5", "f6e4")))
    game.note_search(searched("h5f7", mate=2, depth=5, pv=("e7e6", "e5e6")))  # a line that is not legal here
    assert game.describe_search(140) == "At move 3: mate in 2 for white, depth 5."


def test_eval_shows_as_much_of_a_long_line_as_fits_a_chat_line() -> None:
    game = new_game()
    game.apply(full(me_white=False, pychess=False))
    game.apply(state(("e2e4",)))
    board, line = KnightmateBoard.replay(None, ("e2e4",)), []
    for _ in range(30):
        move = sorted(board.legal_moves, key=board.uci)[0]
        line.append(board.uci(move))
        board.push(move)
    game.note_search(searched(line[0], score_cp=80, depth=30, pv=tuple(line[1:])))
    whole = game.describe_search(10_000)
    assert whole.startswith("At move 1: -0.80 (white's view), depth 30, expecting 1...a5 2. a3 ")
    assert " ..." not in whole
    for limit in (140, 90, 70):
        cut = game.describe_search(limit)
        assert len(cut) <= limit and cut.endswith(" ....") and cut[:-5] in whole
        assert not cut[:-5].endswith(".")   # never a move number without its move
    assert game.describe_search(20) == "At move 1: -0.80 (white's view), depth 30."


def test_pgn_of_an_unknown_result_says_why() -> None:
    game = new_game()
    game.apply(full())
    game.apply(state(("e2e3", "e7e6")))
    game.apply(GameEnded())
    text = game.pgn(game.result())
    assert '[Result "*"]' in text and "without saying how" in text


def test_limits_show_the_engine_only_its_share_of_our_clock_when_games_share_workers() -> None:
    game = new_game()
    game.apply(full(me_white=False), now=0.0)
    game.apply(state(("e2e3",), wtime=50_000, btime=40_000, inc=2_000), now=0.0)
    limits = game.limits(now=0.0, share=0.25)
    assert (limits.btime_ms, limits.binc_ms) == (10_000, 500)
    assert (limits.wtime_ms, limits.winc_ms) == (50_000, 2_000)


def long_level_game(plies: int) -> Game:
    game = new_game()
    game.apply(full(pychess=False))
    shuffle = ("e1f3", "e8f6", "f3e1", "f6e8")   # the royal knights hop out and back
    game.apply(state(tuple(shuffle[index % 4] for index in range(plies))))
    assert game.sync_problem is None
    return game


def test_a_draw_is_offered_only_after_long_level_play_and_not_again_at_once() -> None:
    game = long_level_game(60)
    game.scores = [0, 5, -8, 0, 3, 0, 0, -2]
    assert game.wants_draw_offer()
    game.draw_offered_at = game.ply
    assert not game.wants_draw_offer()
    game.scores[-1] = 40
    game.draw_offered_at = None
    assert not game.wants_draw_offer()


def test_no_draw_offer_early_in_the_game() -> None:
    game = long_level_game(20)
    game.scores = [0] * 8
    assert not game.wants_draw_offer()


def test_a_draw_offer_is_accepted_only_when_we_are_clearly_worse() -> None:
    game = new_game()
    game.apply(full(pychess=False))
    game.apply(replace(state(("e2e3",)), bdraw=True))
    game.scores = [-40]
    assert not game.accepts_draw()
    game.scores = [-300]
    assert game.accepts_draw()


def test_pychess_time_control_is_read_from_the_untouched_clocks_of_the_first_plies() -> None:
    game = new_game()
    game.apply(replace(full(), state=state(("e2e3",), wtime=180_000, btime=180_000, inc=2_000)))
    assert "[TimeControl \"180+2\"]" in game.pgn(game.result())
    late = new_game()
    late.apply(full(MATING_LINE[:4]))
    assert "[TimeControl \"?\"]" in late.pgn(late.result())


def test_a_pychess_game_the_bot_resigned_is_scored_as_its_loss() -> None:
    game = new_game()
    game.apply(full(me_white=False))
    game.apply(state(("e2e3",)))
    game.resigned = True
    assert (game.result().result, game.result().reason) == ("1-0", "the bot resigned")


def test_pgn_header_values_from_the_server_are_escaped() -> None:
    # A name that would close its tag and forge a Result line, one with a backslash, and a game id
    # with a line break: each stays inside its own header.
    hostile_white = 'Eve"]\n[Result "1-0'
    game = new_game('g"1\r\n')
    game.apply(replace(full(), white=Player(hostile_white), black=Player("mybot"), id='g"1\r\n'))
    game.apply(state(("e2e3", "e7e6")))
    game.apply(GameEnded())
    text = game.pgn(game.result())
    header_lines = [line for line in text.splitlines() if line.startswith("[")]
    assert sorted(line.split(" ", 1)[0] for line in header_lines) == sorted([
        "[Event", "[Site", "[Date", "[Round", "[White", "[Black", "[Result", "[Variant", "[FEN", "[Termination",
        "[TimeControl"])
    assert '[White "Eve\\"] [Result \\"1-0"]' in header_lines
    assert '[Site "http://127.0.0.1:1/g\\"1  "]' in header_lines
    parsed = chess.pgn.read_game(io.StringIO(text))
    assert parsed is not None and parsed.headers["Result"] == "*"
    assert [move.uci() for move in parsed.mainline_moves()] == ["e2e3", "e7e6"]


def test_pgn_header_escaping_keeps_backslashes_readable() -> None:
    game = new_game()
    game.apply(replace(full(), black=Player("back\\slash")))
    game.apply(state(("e2e3",)))
    game.apply(GameEnded())
    assert '[Black "back\\\\slash"]' in game.pgn(game.result()).splitlines()


# -- the result the server reports, and the bot's own abort --------------------------------------

def bare_end(moves: tuple[str, ...] = ("e2e3", "e7e6"), **full_options: object) -> Game:
    """A pychess game that ended with a bare gameEnd in a live position."""
    game = new_game()
    game.apply(full(**full_options))  # type: ignore[arg-type]
    game.apply(state(moves))
    game.apply(GameEnded())
    return game


@pytest.mark.parametrize(("status", "result", "termination"), [
    ("resign", "0-1", "normal"), ("outoftime", "1-0", "time forfeit"), ("timeout", "1-0", "time forfeit"),
    ("abandon", "0-1", "abandoned"), ("aborted", "*", "abandoned"), ("draw", "1/2-1/2", "normal"),
    ("illegalMove", "1-0", "rules infraction"), ("claim", "1/2-1/2", "normal"),
])
def test_a_bare_end_takes_the_result_and_termination_the_server_reports(status: str, result: str,
                                                                         termination: str) -> None:
    game = bare_end()
    assert game.needs_reported_result
    game.note_reported(ReportedResult("g1", status, result))
    told = game.result()
    assert (told.result, told.termination) == (result, termination)
    assert status in told.reason
    assert f'[Termination "{termination}"]' in game.pgn(told)


def test_a_failed_lookup_is_an_honest_star_with_its_reason() -> None:
    game = bare_end()
    game.note_reported(None, "no board message within 5 s")
    told = game.result()
    assert (told.result, told.termination) == ("*", "unterminated")
    assert "without saying how" in told.reason and "no board message within 5 s" in told.reason


def test_a_server_reporting_the_game_as_still_started_is_not_believed_over() -> None:
    game = bare_end()
    game.note_reported(ReportedResult("g1", "started", "*"))
    assert game.result().result == "*" and "still reports the game as started" in game.result().reason


@pytest.mark.parametrize("seen", ["mate on the board", "the bot resigned", "the bot aborted", "the bot left"])
def test_the_server_is_asked_only_when_nothing_the_bot_saw_says_how(seen: str) -> None:
    game = new_game()
    game.apply(full())
    if seen == "mate on the board":
        game.apply(state(MATING_LINE))
    else:
        game.apply(state(("e2e3", "e7e6")))
    if seen == "the bot resigned":
        game.resigned = True
    if seen == "the bot aborted":
        game.note_abort("the opponent made no move")
    if seen != "the bot left":
        game.apply(GameEnded())
    assert not game.needs_reported_result


def test_the_bots_own_abort_is_written_as_such_on_pychess() -> None:
    game = new_game()
    game.apply(full())
    game.note_abort("the opponent made no move in 30 s")
    game.apply(GameEnded())
    told = game.result()
    assert (told.result, told.termination) == ("*", "abandoned")
    assert told.reason == "the bot aborted the game: the opponent made no move in 30 s"
    assert "{ the bot aborted the game: the opponent made no move in 30 s }" in game.pgn(told)


def test_the_bots_own_abort_is_written_as_such_on_lichess() -> None:
    game = new_game()
    game.apply(full(pychess=False))
    game.note_abort("variant chess is not Knightmate")
    game.apply(state(status="aborted"))
    told = game.result()
    assert (told.result, told.termination) == ("*", "abandoned")
    assert told.reason == "the bot aborted the game: variant chess is not Knightmate"


def test_a_game_is_aborted_when_the_bot_aborted_it_or_the_server_says_so() -> None:
    game = new_game()
    game.apply(full())
    assert not game.aborted
    game.note_abort("the opponent made no move in 30 s")
    assert game.aborted
    game = new_game()
    game.apply(full(("e2e3",)))
    game.apply(state(("e2e3",), status="aborted"))
    assert game.aborted
    game = new_game()
    game.apply(full(("e2e3", "e8d6")))
    game.apply(GameEnded())
    game.note_reported(ReportedResult("g1", "aborted", "*"))     # pychess's bare gameEnd, then asked
    assert game.aborted
    game = new_game()
    game.apply(full(("e2e3",)))
    game.apply(state(("e2e3",), status="resign", winner="white"))
    assert not game.aborted
