"""A UCI engine behind a recorder, for tests that check what an engine was told: run as
``python tests/helpers/uci_recorder.py FILE COMMAND [ARG ...]``. It starts COMMAND, passes it every line
it reads and appends that line to FILE; the engine answers on the recorder's own standard output.
"""

from __future__ import annotations

import subprocess
import sys


def main(record: str, *command: str) -> int:
    engine = subprocess.Popen(command, stdin=subprocess.PIPE, text=True)
    assert engine.stdin is not None
    with open(record, "a", encoding="utf-8") as file:
        for line in sys.stdin:
            file.write(line)
            file.flush()
            engine.stdin.write(line)
            engine.stdin.flush()
            if line.strip() == "quit":
                break
    engine.stdin.close()
    return engine.wait()


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
