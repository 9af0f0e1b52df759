"""Sphinx directives that put the generated references (``reference_text.py``) into the pages.

``config-reference``, ``uci-options`` and ``strength-levels`` take no arguments: each writes its
Markdown when the page is built, and MyST parses it as if it had been written in the page. An
error of the generator (a key with no comment) is raised, so the strict build fails on it.
"""

from __future__ import annotations

from collections.abc import Callable

import reference_text
from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.typing import ExtensionMetadata

#: The pages that use the directives below.
GENERATED_PAGES = ("configuration", "engine")


def _generated(markdown: Callable[[], str]) -> type[SphinxDirective]:
    class Generated(SphinxDirective):
        """Markdown made by the code at build time, parsed in place."""

        def run(self) -> list[nodes.Node]:
            container = nodes.container()
            lines = markdown().splitlines()
            self.state.nested_parse(StringList(lines, source=self.get_source_info()[0]), self.content_offset,
                                    container)
            # The page's own headings and the generated ones stay one tree: unwrap the container.
            return list(container.children)

    return Generated


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_directive("config-reference", _generated(reference_text.config_reference))
    app.add_directive("uci-options", _generated(reference_text.uci_options_table))
    app.add_directive("strength-levels", _generated(reference_text.levels_table))
    # Their sources are code and config.yml, which Sphinx does not watch: rebuild them every time.
    app.connect("env-get-outdated", lambda app, env, added, changed, removed: list(GENERATED_PAGES))
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
