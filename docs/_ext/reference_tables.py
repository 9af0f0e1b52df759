"""Puts the generated references (``reference_text.py``) into the pages, as they are read.

A page asks for one with an empty block, `` ```{config-reference}`` ``, `` ```{uci-options}`` ``
or `` ```{strength-levels}`` `` followed by `` ``` ``: the block is replaced by the Markdown the
code writes before MyST parses the page, so its headings are the page's own (in its contents and
its links). A block left unreplaced is an unknown directive, and a generator's error (a key with
no comment) is raised: either fails the strict build.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import reference_text
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.typing import ExtensionMetadata

GENERATORS: dict[str, Callable[[], str]] = {
    "config-reference": reference_text.config_reference,
    "uci-options": reference_text.uci_options_table,
    "strength-levels": reference_text.levels_table,
}
_BLOCK = re.compile(r"^```\{(" + "|".join(GENERATORS) + r")\}\n```$", re.MULTILINE)


def _insert_references(app: Sphinx, docname: str, source: list[str]) -> None:
    source[0] = _BLOCK.sub(lambda match: GENERATORS[match.group(1)](), source[0])


def _pages_with_references(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
                           removed: set[str]) -> list[str]:
    """Their sources are code and config.yml, which Sphinx does not watch: read them every time."""
    return [docname for docname in env.found_docs
            if _BLOCK.search(Path(env.doc2path(docname)).read_text(encoding="utf-8"))]


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("source-read", _insert_references)
    app.connect("env-get-outdated", _pages_with_references)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
