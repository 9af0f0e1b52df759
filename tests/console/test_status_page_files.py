"""The status page's files as source: its script type-checked, and every file the page and its
script load (the board's too, borrowed from ``play``'s package data) both on disk beside the source,
where tsc finds it, and served at the address the browser asks for."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

from bot.console.server import static_file

STATIC = Path(__file__).resolve().parents[2] / "bot" / "console" / "static"
#: A runtime import of a file: ``import {a} from "../x.js"`` (not the JSDoc ``@import`` of a type).
IMPORT = re.compile(r"""^import\b[^;]*?["'](\.{1,2}/[^"']+)["']""", re.MULTILINE)
#: What the HTML and the CSS load: ``href="/..."``, ``src="/..."``, ``url(/...)``.
LOADED = re.compile(r"""(?:href|src)="(/[^"]*)"|url\((/[^)]*)\)""")


def test_the_script_is_type_checked() -> None:
    assert (STATIC / "status.js").read_text(encoding="utf-8").startswith("// @ts-check\n")


def test_every_import_is_on_disk_for_tsc_and_served_for_the_browser() -> None:
    imports = IMPORT.findall((STATIC / "status.js").read_text(encoding="utf-8"))
    assert imports == ["../../web/static/vendor/chessgroundx.js"]
    for target in imports:
        assert (STATIC / target).resolve().is_file()
        served = static_file(urllib.parse.urlsplit(urllib.parse.urljoin("http://host/static/status.js",
                                                                          target)).path)
        assert served is not None and served.is_file(), target


def test_every_file_the_page_and_its_style_load_is_served() -> None:
    loaded = [path for name in ("status.html", "status.css")
              for match in LOADED.finditer((STATIC / name).read_text(encoding="utf-8")) for path in match.groups()
              if path]
    assert "/static/status.js" in loaded and "/web/static/pieces/wm.svg" in loaded
    for path in loaded:
        served = static_file(path)
        assert served is not None and served.is_file(), path
