"""Chat commands people type in a game's chat: ``!help``, ``!eval`` and ``!name``.

They exist where the server delivers chat to the bot (:attr:`bot.dialect.Dialect.delivers_chat`:
Lichess does, pychess delivers chat to humans only). A chat line is a command only when it is the
command and nothing else (any case, blanks around it allowed): a sentence that mentions ``!eval``,
an empty line, a line with control characters and a line longer than a chat line can be are never
answered. A command is answered in the room it was asked in, if ``chat.<command>`` in config.yml
allows that room, and at most once per :data:`COOLDOWN_S` per game whoever asks, so a crowd of
spectators cannot make the bot flood its own game's chat. The bot's own lines (which the server
echoes) are never commands.

This module decides only whether and what to answer; the player sends the answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bot.remote.events import ChatLine

#: The commands, each with what ``!help`` says it does.
COMMANDS = {
    "help": "the commands",
    "eval": "the bot's latest evaluation, depth and expected line",
    "name": "the bot's name, version and engine",
}
#: The least time between two answers to one command in one game.
COOLDOWN_S = 10.0
#: The longest line that can be a command: a Lichess chat line holds at most 140 characters.
MAX_LINE_CHARS = 140

_COMMAND = re.compile(r"!([a-z]+)", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def asked_command(text: str) -> str | None:
    """The command *text* is, or ``None``: the whole line must be one known command."""
    if len(text) > MAX_LINE_CHARS or _CONTROL.search(text) is not None:
        return None
    match = _COMMAND.fullmatch(text.strip(" "))
    if match is None:
        return None
    command = match.group(1).lower()
    return command if command in COMMANDS else None


class ChatCommands:
    """One game's chat commands: which to answer, where, and when (the cooldown)."""

    def __init__(self, rooms: Mapping[str, tuple[str, ...]], username: str) -> None:
        """*rooms*: for each command, the rooms it is answered in (none: switched off)."""
        self.rooms = rooms
        self.username = username.lower()
        self._answered_at: dict[str, float] = {}

    def to_answer(self, line: ChatLine, now: float) -> str | None:
        """The command *line* asks, if the bot answers it here and now; remembers the answer's time."""
        if line.username.lower() == self.username:
            return None
        command = asked_command(line.text)
        if command is None or line.room not in self.rooms.get(command, ()):
            return None
        last = self._answered_at.get(command)
        if last is not None and now - last < COOLDOWN_S:
            return None
        self._answered_at[command] = now
        return command

    def help_text(self, room: str) -> str:
        """What ``!help`` says in *room*: the commands answered there."""
        here = [f"!{command}: {what}" for command, what in COMMANDS.items() if room in self.rooms.get(command, ())]
        return "Commands: " + "; ".join(here)
