"""bot.games.player with a scripted client and engine: a move whose answer was lost is never posted twice blindly."""

from __future__ import annotations

from pathlib import Path

from bot.config import EngineSettings, GameSettings, Settings
from bot.games.player import GamePlayer
from bot.games.record import Result
from bot.remote.client import MoveOutcome
from bot.remote.events import GameEnded, GameState
from tests.helpers.games_harness import OneMoveEngine, ScriptedGameClient, game_full


def run_player(client: ScriptedGameClient, tmp_path: Path, engine: OneMoveEngine | None = None,
               ponder: bool = True, greeting: str = "", goodbye: str = "") -> tuple[GamePlayer, list[Result | None]]:
    settings = Settings(engine=EngineSettings(ponder=ponder),
                        game=GameSettings(pgn_dir=str(tmp_path), greeting=greeting, goodbye=goodbye))
    done: list[Result | None] = []
    player = GamePlayer("g1", client=client, searcher=engine or OneMoveEngine(), settings=settings,  # type: ignore[arg-type]
                        username="mybot", on_done=lambda game_id, result: done.append(result))
    player.start()
    return player, done


def test_an_unanswered_move_that_landed_is_not_posted_again(tmp_path: Path) -> None:
    client = ScriptedGameClient([MoveOutcome.UNCERTAIN], after_interrupt=game_full(("e2e3",)))
    player, done = run_player(client, tmp_path)
    client.lines.put(game_full(()))
    client.wait(posts=1, interrupts=1)          # the gameFull after the interrupt is queued first
    client.lines.put(GameEnded())
    assert player.finished.wait(5)
    assert client.posts == ["e2e3"] and len(done) == 1


def test_an_unanswered_move_that_did_not_land_is_posted_once_more(tmp_path: Path) -> None:
    client = ScriptedGameClient([MoveOutcome.UNCERTAIN, MoveOutcome.LANDED, MoveOutcome.LANDED],
                            after_interrupt=game_full(()))
    player, done = run_player(client, tmp_path)
    client.lines.put(game_full(()))
    client.wait(posts=2, interrupts=1)
    client.lines.put(GameState(("e2e3", "e7e6"), 60_000, 60_000, 0, 0, "started"))
    client.wait(posts=3, interrupts=1)
    client.lines.put(GameEnded())
    assert player.finished.wait(5)
    assert client.posts == ["e2e3", "e2e3", "d2d3"] and len(done) == 1


# Pondering hooks.

def play_two_moves(tmp_path: Path, ponder: bool) -> list[tuple[str, ...]]:
    client = ScriptedGameClient([MoveOutcome.LANDED, MoveOutcome.LANDED], after_interrupt=game_full(()))
    engine = OneMoveEngine()
    player, _ = run_player(client, tmp_path, engine, ponder=ponder)
    client.lines.put(game_full(()))
    client.wait(posts=1, interrupts=0)
    client.lines.put(GameState(("e2e3", "e7e6"), 60_000, 60_000, 0, 0, "started"))
    client.wait(posts=2, interrupts=0)
    client.lines.put(GameEnded())
    assert player.finished.wait(5)
    return engine.calls


def test_the_player_ponders_after_each_move_and_stops_when_the_game_ends(tmp_path: Path) -> None:
    assert play_two_moves(tmp_path, ponder=True) == [
        ("submit",),
        ("ponder", "e2e3", "e7e6"),                   # on the reply the engine expects
        ("submit", "e2e3", "e7e6"),                   # the next request ends the ponder search
        ("ponder", "e2e3", "e7e6", "d2d3"),           # no expected reply: the position after our move
        ("stop_ponder",),
    ]


def test_with_pondering_off_the_player_never_asks_for_it(tmp_path: Path) -> None:
    assert [call[0] for call in play_two_moves(tmp_path, ponder=False)] == ["submit", "submit", "stop_ponder"]


# Chat after the end: nothing to a game that was aborted or whose chat the server has closed.

def chats_of_a_game_ending(tmp_path: Path, status: str, *, greeting: str = "", chat_status: int | None = None,
                           winner: str | None = None, goodbye: str = "good game") -> list[str]:
    """The chat lines the player tries to post in a game that ends with *status* after the bot's first move."""
    client = ScriptedGameClient([MoveOutcome.LANDED], after_interrupt=game_full(()))
    client.chat_status = chat_status
    player, done = run_player(client, tmp_path, greeting=greeting, goodbye=goodbye)
    client.lines.put(game_full(()))
    client.wait(posts=1, interrupts=0)
    client.lines.put(GameState(("e2e3",), 60_000, 60_000, 0, 0, status, winner=winner))
    player.join(5)                              # the goodbye, if any, is the player's last act
    assert len(done) == 1
    return client.chats


def test_a_finished_game_gets_its_goodbye(tmp_path: Path) -> None:
    assert chats_of_a_game_ending(tmp_path, "resign", winner="white") == ["good game"]


def test_greeting_and_goodbye_name_the_opponent_the_bot_and_the_engine(tmp_path: Path) -> None:
    chats = chats_of_a_game_ending(tmp_path, "resign", winner="white", greeting="Hi {opponent}, {me} here ({engine})",
                                   goodbye="Thanks, {opponent}! {{gg}}")
    assert chats == ["Hi alice, mybot here (the one-move engine)", "Thanks, alice! {gg}"]


def test_an_aborted_game_gets_no_goodbye(tmp_path: Path) -> None:
    # pychess forgets an aborted game at once: a goodbye was answered 404.
    assert chats_of_a_game_ending(tmp_path, "aborted") == []


def test_after_a_404_to_a_chat_line_the_player_says_nothing_more_in_that_game(tmp_path: Path) -> None:
    assert chats_of_a_game_ending(tmp_path, "resign", greeting="hello", winner="white") == ["hello", "good game"]
    assert chats_of_a_game_ending(tmp_path, "resign", greeting="hello", winner="white", chat_status=404) == ["hello"]
    # Another failure (a rate limit, a server error) closes nothing.
    assert chats_of_a_game_ending(tmp_path, "resign", greeting="hello", winner="white",
                                  chat_status=429) == ["hello", "good game"]
