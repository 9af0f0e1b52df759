"""Streamed ndjson bodies written by hand as HTTP/1.1 chunks: the one writer of every stream the
sandbox's Bot API and the page serve.

The standard library's server has no chunked encoding, and a stream must reach its client line by
line, so each line is one chunk, flushed as soon as it is written. The Bot API's streams
(:mod:`bot.sandbox.streams`) write through :class:`ChunkedLines` with the faults they inject around
it; the page's streams hand :func:`relay` an iterator of lines. This module only writes: what a
line says and when a keep-alive is due are the caller's to decide. A client that went away shows
as the :exc:`OSError` of a write, which the caller catches.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from typing import Any

#: A JSON object as the streams and answers carry it.
JsonObject = dict[str, Any]

#: The chunk that ends a chunked body.
LAST_CHUNK = b"0\r\n\r\n"
#: The keep-alive line of Lichess's streams and of the page's: an empty line.
EMPTY_LINE = b"\n"


def ndjson(obj: JsonObject) -> bytes:
    """*obj* as one line of a stream, compact as Lichess writes it."""
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


class ChunkedLines:
    """The body of one streaming response: each line one chunk, sent at once."""

    def __init__(self, wfile: io.BufferedIOBase) -> None:
        self._wfile = wfile

    def write(self, line: bytes) -> None:
        """Sends *line* (bytes ending in a newline, or whatever a fault wants sent) as one chunk."""
        self._wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
        self._wfile.flush()

    def write_json(self, obj: JsonObject) -> None:
        self.write(ndjson(obj))

    def end(self) -> None:
        """Ends the body cleanly; nothing may be written after."""
        self._wfile.write(LAST_CHUNK)
        self._wfile.flush()


def relay(body: ChunkedLines, lines: Iterable[JsonObject | None], keepalive: bytes = EMPTY_LINE) -> None:
    """Writes each of *lines* as it comes, *keepalive* for each None (the source's sign that it
    stayed quiet), then ends *body* when the lines end.

    :raises: :exc:`OSError` when the client has gone (the body is left unended).
    """
    for line in lines:
        if line is None:
            body.write(keepalive)
        else:
            body.write_json(line)
    body.end()
