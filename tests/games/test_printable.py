"""bot.games.printable: server text is logged without control characters, other text as it is."""

from __future__ import annotations

from bot.games.printable import printable


def test_control_and_format_characters_are_escaped() -> None:
    assert printable("a\nb\rc\x1b[31m\x00") == "a\\nb\\rc\\x1b[31m\\x00"
    assert printable("left\u202eright") == "left\\u202eright"   # a right-to-left override


def test_printable_text_in_any_script_is_kept() -> None:
    assert printable("José Łukasz 王 🙂 a b") == "José Łukasz 王 🙂 a b"


def test_long_text_is_cut() -> None:
    assert printable("x" * 300, limit=10) == "x" * 10 + "..."
