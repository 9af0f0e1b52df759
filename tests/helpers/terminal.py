"""A command run with its standard error on a pseudo-terminal, as a person at a terminal sees it."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios

from bot.own_command import OWN_COMMAND


def stderr_on_a_terminal(*arguments: str, timeout_s: float = 60) -> tuple[int, bytes]:
    """``knightmate-bot ARGUMENTS``' exit code and everything it wrote to its terminal (stderr)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # a new pty has no columns
    process = subprocess.Popen([*OWN_COMMAND, *arguments], stdout=subprocess.DEVNULL, stderr=follower,
                               stdin=subprocess.DEVNULL)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    return process.wait(timeout=timeout_s), seen
