"""Sphinx configuration of the manual: ``python -m sphinx -W -b html docs build/docs``.

Pages are Markdown (MyST); the API reference comes from the docstrings through autodoc, and the
configuration and UCI references from the code that declares them (``_ext/reference_tables.py``).
The build is offline: no intersphinx inventory is fetched, so links to python-chess are plain URLs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))
# autodoc reads signatures with inspect, which sees through the pure-Python engine but not always
# through a mypyc-compiled one: the reference is built from the sources, the same for either build.
os.environ["KNIGHTMATE_BOT_PURE"] = "1"

project = "knightmate-bot"
author = "the knightmate-bot authors"
copyright = "the knightmate-bot authors, GPL-3.0-or-later"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
    "reference_tables",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# Bases are shown where they say something (KnightmateBoard is a chess.Board), not as "object".
autodoc_default_options = {"members": True}
autodoc_member_order = "bysource"
autodoc_typehints_format = "short"
# An override without a docstring of its own would show python-chess's text for Board's method:
# the reference shows what Knightmate adds or changes, and says so in its own words.
autodoc_inherit_docstrings = False

html_theme = "furo"
html_title = "knightmate-bot"
html_static_path = ["_static"]
html_css_files = ["reference.css"]

