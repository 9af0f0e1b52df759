"""Chat commands: what counts as one, where and how often it is answered, and the whole bot answering
them in a game on the Lichess sandbox (the dialect that delivers chat to bots)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import ChatSettings, ConfigError, parse_settings
from bot.games.chat import COMMANDS, COOLDOWN_S, ChatCommands, asked_command
from bot.remote.events import ChatLine
from bot.sandbox import Sandbox
from bot.thinking.search_pool import SearchPool
from tests.helpers.bot_harness import BOT, LocalBot, bot_settings, play


@pytest.mark.parametrize(("text", "command"), [
    ("!help", "help"), ("!EVAL", "eval"), ("  !name ", "name"),
    ("", None), ("!", None), ("!fly", None), ("please !help me", None), ("!help me", None), ("!!help", None),
    ("!help\x00", None), ("\x1b[2J!help", None), ("!eval\u009b", None), ("!name" + " " * 10_000, None),
    ("!help" * 2_000, None), ("!eval\n!help", None),
])
def test_only_a_whole_line_that_is_a_command_is_one(text: str, command: str | None) -> None:
    assert asked_command(text) == command


def line(text: str, room: str = "player", username: str = "alice") -> ChatLine:
    return ChatLine(room, username, text)


def test_each_command_is_answered_only_in_the_rooms_the_config_names() -> None:
    commands = ChatCommands(ChatSettings(help="player", name="off").rooms(), "mybot")
    assert commands.to_answer(line("!help", "spectator"), 0.0) is None
    assert commands.to_answer(line("!help", "player"), 0.0) == "help"
    assert commands.to_answer(line("!name", "player"), 0.0) is None                # switched off
    assert commands.to_answer(line("!eval", "player"), 0.0) is None                # spectators only, by default
    assert commands.to_answer(line("!eval", "spectator"), 0.0) == "eval"
    assert commands.to_answer(line("!help", "lobby"), 100.0) is None               # no such room
    assert commands.help_text("player") == "Commands: !help: " + COMMANDS["help"]
    assert commands.help_text("spectator") == "Commands: !eval: " + COMMANDS["eval"]


def test_a_command_is_answered_at_most_once_per_cooldown_per_game_whoever_asks() -> None:
    commands = ChatCommands(ChatSettings(eval="both").rooms(), "mybot")
    assert commands.to_answer(line("!eval", "player", "alice"), 100.0) == "eval"
    assert commands.to_answer(line("!eval", "spectator", "bob"), 100.0 + COOLDOWN_S - 0.1) is None
    assert commands.to_answer(line("!help", "spectator", "bob"), 100.5) == "help"   # another command
    assert commands.to_answer(line("!eval", "spectator", "bob"), 100.0 + COOLDOWN_S) == "eval"
    other_game = ChatCommands(ChatSettings(eval="both").rooms(), "mybot")
    assert other_game.to_answer(line("!eval"), 100.1) == "eval"


def test_the_bots_own_lines_are_never_commands() -> None:
    commands = ChatCommands(ChatSettings().rooms(), "MyBot")
    assert commands.to_answer(line("!help", username="mybot"), 0.0) is None


def test_the_config_names_each_command_and_refuses_an_unknown_room() -> None:
    assert set(ChatSettings().rooms()) == set(COMMANDS)
    assert parse_settings({"chat": {"eval": "both"}}).chat.rooms()["eval"] == ("player", "spectator")
    with pytest.raises(ConfigError, match="chat.name"):
        parse_settings({"chat": {"name": "everywhere"}})


# -- the whole bot, over HTTP ---------------------------------------------------------------------


@pytest.fixture
def bot(lichess: Sandbox, tmp_path: Path) -> Iterator[LocalBot]:
    pool = SearchPool(1, hash_mb=8)
    settings = bot_settings(lichess, tmp_path, greeting="", goodbye="")
    with LocalBot(lichess, dataclasses.replace(settings, chat=ChatSettings(help="player")), pool) as local:
        yield local
    pool.close()


def bot_lines(sandbox: Sandbox, game_id: str) -> list[tuple[str, str]]:
    return [(chat.room, chat.text) for chat in sandbox.game(game_id).chat if chat.username == BOT]


@pytest.mark.e2e
def test_the_bot_answers_each_command_in_the_room_asked_and_nothing_else(lichess: Sandbox, bot: LocalBot) -> None:
    """Lines are read in order, so once the answer to the last command has come, every line before
    it has had its chance: those that got no answer were not answered at all."""
    game_id = play(lichess, "statue", color="black", limit_s=300)    # the bot moves first; statue never does
    lichess.wait_game(game_id, lambda record: len(record.moves) == 1, timeout=30, what="with the bot's move")
    for room, text in [("player", "!eval"),                        # !eval: spectators only, by default
                       ("spectator", "!eval"),                     # answered ...
                       ("spectator", "!eval"),                     # ... once per 10 s
                       ("spectator", "!help"),                     # help="player" in this bot's config
                       ("player", "\x07!help"), ("player", "!help" + " " * 10_000),
                       ("player", "Could you say !name please?"), ("player", "!NAME")]:
        lichess.say(game_id, "statue", text, room)
    record = lichess.wait_game(game_id, lambda record: any(chat.username == BOT and "knightmate-bot" in chat.text
                                                           for chat in record.chat), timeout=20, what="with !name")
    assert not record.over
    answers = bot_lines(lichess, game_id)
    assert [room for room, _ in answers] == ["spectator", "player"]
    assert answers[0][1].startswith("At move 1: ") and ("depth" in answers[0][1] or "book move" in answers[0][1])
    assert answers[1][1].startswith("knightmate-bot ") and "the built-in engine" in answers[1][1]
    lichess.say(game_id, "statue", "!help", "player")
    lichess.wait_game(game_id, lambda record: sum(chat.username == BOT for chat in record.chat) == 3, timeout=20,
                      what="with !help")
    assert bot_lines(lichess, game_id)[2] == ("player", "Commands: !help: the commands; !name: " + COMMANDS["name"])
