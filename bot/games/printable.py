"""Text from a server, made safe to log: control characters shown as escapes, never written raw.

An opponent's name or chat line that holds a newline, a carriage return or a terminal escape
sequence could otherwise forge log lines or rewrite an operator's terminal. Printable text,
accents and other scripts included, is left as it is.
"""

from __future__ import annotations

import unicodedata


def printable(text: str, limit: int = 200) -> str:
    """``text`` with every control, format or unassigned character escaped (``\\n``, ``\\x1b``, ``\\u202e``),
    cut to ``limit`` characters with ``...``."""
    shown = "".join(_escaped(char) for char in text[:limit])
    return shown + "..." if len(text) > limit else shown


def _escaped(char: str) -> str:
    if unicodedata.category(char)[0] != "C":
        return char
    return repr(char)[1:-1] if char.isascii() else f"\\u{ord(char):04x}"
