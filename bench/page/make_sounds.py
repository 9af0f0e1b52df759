"""Makes the page's sounds, bot/web/static/sounds/{move,capture,check,end}.wav, from sine tones.

Each sound is a few decaying partials written with the standard library's ``wave`` (16-bit mono,
22.05 kHz, a few kilobytes each): a move is a short wooden knock, a capture a lower, longer one
with a rattle, a check two rising pings, the end of a game three falling chime notes.
tests/test_play_page.py checks the shipped files are this script's output.

    python -m bench.page.make_sounds
"""

from __future__ import annotations

import io
import math
import random
import struct
import sys
import wave
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "bot" / "web" / "static" / "sounds"
RATE_HZ = 22050

#: Each sound as notes: (start s, length s, frequency Hz, loudness 0-1, decay per s, rattle 0-1).
SOUNDS = {
    "move": [(0.0, 0.07, 420.0, 0.55, 60.0, 0.15), (0.0, 0.05, 1260.0, 0.2, 90.0, 0.0)],
    "capture": [(0.0, 0.14, 260.0, 0.6, 30.0, 0.35), (0.02, 0.10, 780.0, 0.25, 50.0, 0.2)],
    "check": [(0.0, 0.12, 880.0, 0.4, 25.0, 0.0), (0.11, 0.16, 1320.0, 0.4, 20.0, 0.0)],
    "end": [(0.0, 0.35, 784.0, 0.35, 8.0, 0.0), (0.18, 0.35, 659.0, 0.35, 8.0, 0.0),
            (0.36, 0.5, 523.0, 0.4, 6.0, 0.0)],
}


def samples(notes: list[tuple[float, float, float, float, float, float]]) -> list[float]:
    """The sound's samples, -1..1; the rattle's noise is seeded, so every run writes the same bytes."""
    noise = random.Random(28)
    length = max(start + duration for start, duration, *_ in notes)
    out = [0.0] * int(length * RATE_HZ + 1)
    for start, duration, frequency, loudness, decay, rattle in notes:
        first = int(start * RATE_HZ)
        for i in range(int(duration * RATE_HZ)):
            t = i / RATE_HZ
            envelope = loudness * math.exp(-decay * t) * min(1.0, i / 40)  # a 2 ms attack: no click
            tone = math.sin(2 * math.pi * frequency * t)
            out[first + i] += envelope * ((1 - rattle) * tone + rattle * noise.uniform(-1, 1))
    return [max(-1.0, min(1.0, value)) for value in out]


def wav_bytes(name: str) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(RATE_HZ)
        file.writeframes(b"".join(struct.pack("<h", round(value * 32767)) for value in samples(SOUNDS[name])))
    return buffer.getvalue()


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in SOUNDS:
        (OUT / f"{name}.wav").write_bytes(wav_bytes(name))
    print(f"wrote {len(SOUNDS)} sounds to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
