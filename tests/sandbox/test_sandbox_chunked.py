"""The one writer of streamed ndjson (bot.sandbox.chunked), byte for byte, without a socket."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest

from bot.sandbox.chunked import ChunkedLines, relay


def test_each_line_is_one_chunk_and_a_none_is_a_keepalive_then_the_last_chunk() -> None:
    out = io.BytesIO()
    relay(ChunkedLines(out), iter([{"type": "gameState", "moves": "e2e4"}, None, {"type": "end"}]))
    assert out.getvalue() == (b'24\r\n{"type":"gameState","moves":"e2e4"}\n\r\n'
                              b"1\r\n\n\r\n"
                              b'f\r\n{"type":"end"}\n\r\n'
                              b"0\r\n\r\n")


def test_a_keepalive_may_be_a_line_of_its_own_as_pychess_pings() -> None:
    out = io.BytesIO()
    relay(ChunkedLines(out), iter([None]), keepalive=b'{"type":"ping"}\n')
    assert out.getvalue() == b'10\r\n{"type":"ping"}\n\r\n0\r\n\r\n'


class GoneClient(io.BytesIO):
    """A socket file whose client went away after *lines_kept* writes."""

    def __init__(self, lines_kept: int) -> None:
        super().__init__()
        self.lines_kept = lines_kept

    def write(self, data: Any) -> int:
        if self.lines_kept == 0:
            raise BrokenPipeError("the client went away")
        self.lines_kept -= 1
        return super().write(data)


def test_a_client_gone_stops_the_relay_with_the_write_error_and_no_last_chunk() -> None:
    out = GoneClient(lines_kept=1)
    read: list[int] = []

    def lines() -> Iterator[dict[str, int]]:
        for number in range(5):
            read.append(number)
            yield {"n": number}

    with pytest.raises(BrokenPipeError):
        relay(ChunkedLines(out), lines())
    assert read == [0, 1]  # the source is not drained after the client left
    assert out.getvalue() == b'8\r\n{"n":0}\n\r\n'
