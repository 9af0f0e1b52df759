"""Makes the page's piece images, bot/web/static/pieces/{w,b}{k,q,r,b,m,p}.svg, from one drawing each.

The pieces are drawn for knightmate-bot (nothing copied). Each drawing below is the piece's SVG
body on a 100 x 100 square: ``{fill}`` and ``{line}`` are the body and its outline, ``{detail}``
the inner lines (dark on white pieces, light on black ones). The royal knight is a knight wearing
a gold crown; the commoner is a standing figure in a brimmed hat with broad shoulders and a
diamond on its chest, as tall as the queen, so that no one takes it for a pawn at 40 px (a round
head on a cone). chessgroundx shows them as CSS backgrounds (bot/web/static/play.css);
tests/test_play_page.py checks the shipped files are this script's output.

    python -m bench.page.make_pieces
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "bot" / "web" / "static" / "pieces"

BASE = '<path d="M24 82 H76 Q80 82 80 86 V91 H20 V86 Q20 82 24 82 Z"/>'

DRAWINGS = {
    "p": """<path d="M36 82 C36 66 42 56 45 48 H55 C58 56 64 66 64 82 Z"/>
<path d="M38 48 Q50 42 62 48 V52 Q50 48 38 52 Z"/>
<circle cx="50" cy="33" r="12"/>""",
    "r": """<path d="M31 82 L34 44 H66 L69 82 Z"/>
<path d="M27 44 V20 H37 V28 H45 V20 H55 V28 H63 V20 H73 V44 Z"/>
<path d="M34 44 H66 M32 72 H68" fill="none" stroke="{detail}" stroke-width="2.5"/>""",
    "b": """<path d="M38 68 C38 76 32 79 29 82 H71 C68 79 62 76 62 68 Z"/>
<path d="M50 17 C34 30 31 48 38 62 H62 C69 48 66 30 50 17 Z"/>
<path d="M35 62 H65 V68 H35 Z"/>
<circle cx="50" cy="12" r="5"/>
<path d="M55 30 L45 44" fill="none" stroke="{detail}" stroke-width="3" stroke-linecap="round"/>""",
    "q": """<path d="M30 70 L21 37 L37 55 L36 27 L46 52 L50 20 L54 52 L64 27 L63 55 L79 37 L70 70 Z"
stroke-linejoin="round"/>
<path d="M30 70 H70 L73 82 H27 Z"/>
<circle cx="21" cy="35" r="4.5"/><circle cx="36" cy="25" r="4.5"/><circle cx="50" cy="17" r="4.5"/>
<circle cx="64" cy="25" r="4.5"/><circle cx="79" cy="35" r="4.5"/>
<path d="M31 75 H69" fill="none" stroke="{detail}" stroke-width="2.5"/>""",
    # The commoner: broad square shoulders, a head in a brimmed hat (the hat's crown reaches as high
    # as the queen's), a diamond on the chest and a belt.
    "m": """<path d="M22 82 L26 50 Q27 40 38 38 H62 Q73 40 74 50 L78 82 Z" stroke-linejoin="round"/>
<circle cx="50" cy="28" r="10"/>
<path d="M39 20 L41 6 H59 L61 20 Z" stroke-linejoin="round"/>
<path d="M29 21 H71 Q73 21 73 23 Q73 25 71 25 H29 Q27 25 27 23 Q27 21 29 21 Z"/>
<path d="M50 47 L58 58 L50 69 L42 58 Z" fill="{detail}" stroke="none"/>
<path d="M27 75 H73" fill="none" stroke="{detail}" stroke-width="3" stroke-linecap="round"/>""",
    # The royal knight: a knight wearing a gold crown (it is the piece to mate).
    "k": """<path d="M70 82 H31 C31 70 37 63 47 56 C41 57 33 61 27 63 C20 62 17 56 21 51 C29 43 35 38 39 30
L38 22 L45 27 L50 20 L54 29 C67 33 74 46 72 62 C71 70 70 76 70 82 Z" stroke-linejoin="round"/>
<circle cx="43" cy="37" r="2.8" fill="{detail}" stroke="none"/>
<path d="M57 34 C63 44 64 56 61 70" fill="none" stroke="{detail}" stroke-width="2.5" stroke-linecap="round"/>
<path d="M36 19 L38 5 L45 12 L50 3 L55 12 L62 5 L64 19 Z" fill="#e6b422" stroke="#5a4300" stroke-width="2"
stroke-linejoin="round"/>""",
}

COLOURS = {
    "w": {"fill": "#fbfaf6", "line": "#1e1e1e", "detail": "#1e1e1e"},
    "b": {"fill": "#2e2b28", "line": "#0c0c0c", "detail": "#e9e4da"},
}


def piece_svg(colour: str, piece: str) -> str:
    """The SVG file of one piece of one colour (``w``/``b``)."""
    paint = COLOURS[colour]
    body = (DRAWINGS[piece] + "\n" + BASE).format(**paint)
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">\n'
            '<!-- Knightmate, drawn for knightmate-bot by bench/page/make_pieces.py -->\n'
            f'<g fill="{paint["fill"]}" stroke="{paint["line"]}" stroke-width="2.6">\n{body}\n</g>\n</svg>\n')


def pieces() -> dict[str, str]:
    """Every piece file by name."""
    return {f"{colour}{piece}.svg": piece_svg(colour, piece) for colour in COLOURS for piece in DRAWINGS}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in pieces().items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(DRAWINGS) * len(COLOURS)} pieces to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
