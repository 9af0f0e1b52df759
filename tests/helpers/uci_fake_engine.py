"""A UCI engine that misbehaves on purpose, for the tests of ``bot/thinking/sources.py``: run as
``python tests/helpers/uci_fake_engine.py MODE [ARG]``.

Modes: ``bestmove MOVE`` answers every ``go`` with MOVE; ``hang-once FILE MOVE``, when FILE does
not exist at its start, creates FILE at its first ``go`` and from then on answers nothing
(``isready``, ``stop`` and ``quit`` included), and otherwise plays like ``bestmove MOVE``, so the
engine started after the hang works; ``record FILE MOVE`` plays like ``bestmove MOVE`` and appends
every line it reads to FILE; ``no-uciok`` never finishes the ``uci`` handshake;
``exit`` quits before it; ``no-variant`` has no ``UCI_Variant`` option; ``chess-only`` has one
without knightmate.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(mode: str, *arguments: str) -> None:
    if mode == "exit":
        return
    first = mode == "hang-once" and not Path(arguments[0]).exists()
    hanging = False
    for line in sys.stdin:
        if mode == "record":
            with open(arguments[0], "a", encoding="utf-8") as record:
                record.write(line)
        command = line.split()[0] if line.split() else ""
        if command == "uci" and mode != "no-uciok":
            say("id name fake")
            if mode == "chess-only":
                say("option name UCI_Variant type combo default chess var chess")
            elif mode != "no-variant":
                say("option name UCI_Variant type combo default chess var chess var knightmate")
            say("option name Hash type spin default 16 min 1 max 64")
            say("uciok")
        elif command == "isready" and not hanging:
            say("readyok")
        elif command == "go" and not hanging:
            hanging = first
            if hanging:
                Path(arguments[0]).touch()
            else:
                say(f"bestmove {arguments[-1]}")
        elif command == "quit" and not hanging:
            return


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(*sys.argv[1:])
