"""This machine's addresses, for the tests that prove a server of ours is not reachable on them."""

from __future__ import annotations

import socket

import pytest


def own_addresses() -> list[str]:
    """This machine's IPv4 addresses, the loopback's among them; a test that needs another skips without."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))     # TEST-NET-1: nothing is sent, the route picks an address
            addresses = [probe.getsockname()[0]]
        except OSError:
            addresses = []
    if not [address for address in addresses if not address.startswith("127.")]:
        pytest.skip("no address besides the loopback")
    return addresses
