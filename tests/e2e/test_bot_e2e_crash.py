"""``knightmate-bot run`` killed (SIGKILL) mid-game on pychess and restarted into pychess's refusals:
the game stream answers 200 + a raw 409 while the killed process's stream still counts open, and
for ever once the game is over. The bot plays from the round socket meanwhile, with the built-in
engine and with Fairy-Stockfish, and keeps its clock reserve in a fast game with faults."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import yaml

from bot.sandbox import GameSnapshot, Sandbox
from tests.helpers.bot_harness import BOT, play
from tests.helpers.bot_process import GOODBYE, start_bot, stop, write_config
from tests.helpers.engine_processes import FAIRY_STOCKFISH, needs_fairy_stockfish

#: The engines of these games: None is the built-in one.
ENGINES = [pytest.param(None, id="built-in"),
           pytest.param(FAIRY_STOCKFISH, id="fairy-stockfish", marks=needs_fairy_stockfish)]
#: How long pychess counts a killed bot's stream open after the restart.
STALE_STREAM_S = 6.0
#: The reserve the default config promises in a 15+1 game: the lesser of 5 s and a fifth of 15 s.
RESERVE_15_PLUS_1_MS = 3_000


def crash_config(sandbox: Sandbox, directory: Path, engine: str | None) -> Path:
    """The process tests' config with the engine on the clock (no move-time cap), as an operator runs it."""
    path = write_config(sandbox, directory)
    config = yaml.safe_load(path.read_text())
    config["engine"].update({"command": engine, "max_move_time_ms": None, "move_overhead_ms": 300})
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def bot_moves(record: GameSnapshot) -> int:
    return sum(1 for post in record.posts if post.username == BOT and post.accepted)


def bot_lost_on_time(record: GameSnapshot) -> bool:
    return record.status in ("outoftime", "timeout") and record.winner != ("white" if record.white == BOT else "black")


def pgn_result(directory: Path, game_id: str) -> str:
    return (directory / "games" / f"{game_id}.pgn").read_text().split('[Result "')[1].split('"')[0]


def said_goodbye(record: GameSnapshot) -> bool:
    return any(line.username == BOT and line.text == GOODBYE for line in record.chat)


def killed_mid_game(sandbox: Sandbox, directory: Path, engine: str | None, *, limit_s: int,
                    moves: int) -> tuple[Path, Path, str]:
    """Starts the bot, has it play a game, and kills it (SIGKILL) right after its *moves*-th move:
    the random mover answers at once, so the game waits on the bot. The config, log and game id."""
    config = crash_config(sandbox, directory, engine)
    log = directory / "bot.log"
    first = start_bot(sandbox, config, log)
    try:
        game_id = play(sandbox, color="white", limit_s=limit_s, increment_s=1)
        sandbox.wait_game(game_id, lambda game: bot_moves(game) >= moves or game.over, timeout=60,
                          what=f"{moves} moves by the bot")
    finally:
        first.kill()
        first.wait(timeout=10)
    assert not sandbox.game(game_id).over, "the game ended before the kill; the test proves nothing"
    return config, log, game_id


@pytest.mark.parametrize("engine", ENGINES)
def test_killed_after_a_move_and_refused_its_stream_for_6_s_the_bot_moves_in_time_from_the_round_socket(
        pychess: Sandbox, tmp_path: Path, engine: str | None) -> None:
    config, log, game_id = killed_mid_game(pychess, tmp_path, engine, limit_s=15, moves=4)
    record = pychess.game(game_id)
    pychess.faults.refuse_game_stream(game_id, STALE_STREAM_S)
    streams_before_restart = pychess.connections("game", BOT, game_id)
    restarted_at = time.monotonic()
    second = start_bot(pychess, config, log)
    try:
        moved = pychess.wait_game(game_id, lambda game: bot_moves(game) > bot_moves(record) or game.over,
                                  timeout=20, what="the bot's first move after the restart")
        first_move_s = time.monotonic() - restarted_at
        record = pychess.wait_game_over(game_id, timeout=120)
        pychess.wait_game(game_id, said_goodbye, timeout=20, what="the goodbye after the PGN")
        reconnected = pychess.connections("game", BOT, game_id)
    finally:
        code, _ = stop(second)
    text = log.read_text(errors="replace")
    assert code == 0, text[-3000:]
    # The first move went out while the stream was still refused: read from the round socket.
    assert not moved.over or bot_moves(moved) > 4, moved.status
    assert first_move_s < STALE_STREAM_S, (first_move_s, text[-3000:])
    assert ("refuse", "game") in pychess.faults.fired
    # The stream came back once pychess let it (unless the game ended in those 6 s, seen on the round socket).
    ended_on_the_round_socket = re.search(rf"game {game_id}: stream refused; the round socket shows \d+ plies, over",
                                          text)
    assert reconnected > streams_before_restart or ended_on_the_round_socket, text[-3000:]
    assert f"game {game_id}: stream refused; the round socket shows" in text
    assert f"game {game_id}: first move since the restart: a short search" in text
    assert all(post.accepted for post in record.posts if post.username == BOT)
    assert not [post for post in record.duplicate_posts if post.username == BOT]
    assert not bot_lost_on_time(record), record.status
    assert pgn_result(tmp_path, game_id) == record.result != "*"
    assert game_id not in (tmp_path / "state.json").read_text()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_game_the_opponent_ended_while_the_bot_was_down_gets_its_pgn_at_once_and_the_next_challenge_is_accepted(
        pychess: Sandbox, tmp_path: Path, engine: str | None) -> None:
    config, log, game_id = killed_mid_game(pychess, tmp_path, engine, limit_s=60, moves=3)
    pychess.resign(game_id, "randy")     # the stream of a finished game: 200 + 409 for ever
    restarted_at = time.monotonic()
    second = start_bot(pychess, config, log)
    try:
        pychess.wait_game(game_id, said_goodbye, timeout=10 - (time.monotonic() - restarted_at),
                          what="the PGN and goodbye within 10 s of the restart")
        # concurrency 1: the slot is free again.
        next_game = play(pychess, color="white", limit_s=60, increment_s=1)
        pychess.wait_moves(next_game, 2, timeout=30)
    finally:
        code, _ = stop(second)
    text = log.read_text(errors="replace")
    assert code == 0, text[-3000:]
    record = pychess.game(game_id)
    assert record.status == "resign"
    assert pgn_result(tmp_path, game_id) == record.result == ("1-0" if record.white == BOT else "0-1")
    assert "Termination \"normal\"" in (tmp_path / "games" / f"{game_id}.pgn").read_text()


@pytest.mark.parametrize("engine", ENGINES)
def test_in_a_15_plus_1_game_with_faults_the_bots_clock_never_falls_under_its_reserve(
        pychess: Sandbox, tmp_path: Path, engine: str | None) -> None:
    config = crash_config(pychess, tmp_path, engine)
    log = tmp_path / "bot.log"
    process = start_bot(pychess, config, log)
    faults = {3: lambda game_id: pychess.faults.drop_game_stream(game_id, BOT),
              6: lambda game_id: pychess.faults.http_status("move", 502, count=2),
              9: lambda game_id: pychess.faults.refuse_game_stream(game_id, 2.0),
              12: lambda game_id: pychess.faults.drop_game_stream(game_id, BOT)}
    try:
        game_id = play(pychess, color="white", limit_s=15, increment_s=1)
        for moves, fault in faults.items():
            record = pychess.wait_game(game_id, lambda game, moves=moves: bot_moves(game) >= moves or game.over,
                                       timeout=60, what=f"{moves} moves by the bot")
            if record.over:
                break
            fault(game_id)
        record = pychess.wait_game_over(game_id, timeout=120)
    finally:
        code, _ = stop(process)
    text = log.read_text(errors="replace")
    assert code == 0, text[-3000:]
    assert pychess.faults.fired, "no fault fired"
    assert not bot_lost_on_time(record), record.status
    first_mover_is_bot = record.white == BOT
    # The bot's clock after each of its charged moves (the clocks start at the third ply).
    mine = [clock for ply, clock in enumerate(record.clocks_after_ms)
            if ply >= 2 and (ply % 2 == 0) == first_mover_is_bot]
    assert len(mine) >= 4, record.moves
    assert min(mine) >= RESERVE_15_PLUS_1_MS, mine
