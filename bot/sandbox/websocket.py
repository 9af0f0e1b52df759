"""The little of RFC 6455 the sandbox needs to serve pychess's round socket: the handshake's accept
key, unmasked text and close frames out, masked client frames in.

The sandbox serves the socket from its own HTTP server (same host and port as the API, as pychess
does), so it speaks the protocol by hand with the standard library. No extensions, no
fragmentation of what it sends, client frames read whole up to :data:`MAX_CLIENT_PAYLOAD`.
This module never touches sandbox state.
"""

from __future__ import annotations

import base64
import hashlib
import io
import struct

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

TEXT = 0x1
CLOSE = 0x8
PING = 0x9
PONG = 0xA

#: A spectator's client sends next to nothing; anything bigger is a broken or hostile one.
MAX_CLIENT_PAYLOAD = 64 * 1024


class ProtocolError(Exception):
    """A client frame the sandbox will not read: the connection is dropped."""


def accept_key(client_key: str) -> str:
    """The ``Sec-WebSocket-Accept`` answer to a client's ``Sec-WebSocket-Key``."""
    return base64.b64encode(hashlib.sha1(client_key.strip().encode() + _GUID).digest()).decode()


def frame(opcode: int, payload: bytes) -> bytes:
    """One final, unmasked frame, as a server sends it."""
    size = len(payload)
    if size < 126:
        header = struct.pack("!BB", 0x80 | opcode, size)
    elif size < 1 << 16:
        header = struct.pack("!BBH", 0x80 | opcode, 126, size)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 127, size)
    return header + payload


def text_frame(text: str | bytes) -> bytes:
    return frame(TEXT, text.encode() if isinstance(text, str) else text)


def close_frame(code: int = 1000) -> bytes:
    return frame(CLOSE, struct.pack("!H", code))


def read_frame(rfile: io.BufferedIOBase) -> tuple[int, bytes]:
    """The next client frame's opcode and unmasked payload.

    :raises ProtocolError: an unmasked or oversized frame.
    :raises EOFError: the client went away.
    """
    first, second = _read(rfile, 2)
    size = second & 0x7F
    if size == 126:
        (size,) = struct.unpack("!H", _read(rfile, 2))
    elif size == 127:
        (size,) = struct.unpack("!Q", _read(rfile, 8))
    if not second & 0x80:
        raise ProtocolError("client frames must be masked")
    if size > MAX_CLIENT_PAYLOAD:
        raise ProtocolError(f"client frame of {size} bytes")
    mask = _read(rfile, 4)
    payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(_read(rfile, size)))
    return first & 0x0F, payload


def _read(rfile: io.BufferedIOBase, count: int) -> bytes:
    data = rfile.read(count) if count else b""
    if len(data) < count:
        raise EOFError("the client closed the connection")
    return data
