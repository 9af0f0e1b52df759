"""Whether a host name stays on this machine: the one test behind the safety rules that ask it.

The config refuses plain ``http://`` to any other host (the token would cross a network in clear),
the sandbox binds nothing else (it hands out tokens and plays for anyone who can reach it), and
``play`` warns when its page listens on another address. It sits outside the layers so all of them
may import it; it imports nothing of the bot.
"""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """True for ``localhost`` (any case) and loopback addresses (``127.0.0.0/8``, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
