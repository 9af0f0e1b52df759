"""The page's own ES modules (``bot/web/static/*.js``) as source: no import circle, every import
found, every module type-checked.

tsc (``.ci/typecheck``) checks the types but accepts a circle, which ES modules run half-initialised;
this reads the modules' runtime imports (``import ... from "./x.js"``, not the JSDoc ``@import`` of
a type, which the browser never loads) and looks for one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "bot" / "web" / "static"
#: A runtime import or re-export of one of our files: ``import {a} from "./x.js"``, ``import "./x.js"``.
IMPORT = re.compile(r"""^(?:import|export)\b[^;]*?["'](\./[^"']+)["']""", re.MULTILINE)


def page_modules() -> dict[str, list[str]]:
    """Each module of ours (vendored ones are not) and the modules it imports, by file name."""
    return {path.name: [target.removeprefix("./") for target in IMPORT.findall(path.read_text(encoding="utf-8"))]
            for path in sorted(STATIC.glob("*.js"))}


def import_circle(imports: Mapping[str, list[str]]) -> list[str] | None:
    """A circle of modules (the first one again at its end), or None if there is none."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return path[path.index(module):] + [module]
        if module in done:
            return None
        path.append(module)
        for target in imports.get(module, []):
            circle = visit(target)
            if circle is not None:
                return circle
        path.pop()
        done.add(module)
        return None

    return next((circle for module in imports if (circle := visit(module)) is not None), None)


@pytest.mark.parametrize(("imports", "circle"), [
    ({"a.js": ["b.js"], "b.js": ["c.js"], "c.js": []}, None),
    ({"a.js": ["b.js", "c.js"], "b.js": ["c.js"], "c.js": []}, None),  # a diamond is no circle
    ({"a.js": ["b.js"], "b.js": ["c.js"], "c.js": ["a.js"]}, ["a.js", "b.js", "c.js", "a.js"]),
    ({"play.js": ["game.js"], "game.js": ["review.js"], "review.js": ["game.js"]}, ["game.js", "review.js", "game.js"]),
])
def test_an_import_circle_is_found_with_its_modules(imports: dict[str, list[str]], circle: list[str] | None) -> None:
    assert import_circle(imports) == circle


def test_the_imports_are_read_from_the_source_and_not_from_type_comments() -> None:
    source = 'import { a } from "./a.js";\nimport * as b from "./b.js";\n/** @import { C } from "./c.js" */\n'
    assert IMPORT.findall(source) == ["./a.js", "./b.js"]


def test_the_page_has_no_import_circle() -> None:
    modules = page_modules()
    assert {"play.js", "game.js", "review.js", "state.js"} <= set(modules)
    assert "game.js" not in modules["review.js"] and "review.js" not in modules["game.js"]
    assert import_circle(modules) is None


def test_every_import_of_the_page_is_a_file_it_has() -> None:
    for module, targets in page_modules().items():
        for target in targets:
            assert (STATIC / target).is_file(), f"{module} imports {target}, which is not there"


def test_every_module_of_ours_is_type_checked() -> None:
    for path in STATIC.glob("*.js"):
        assert path.read_text(encoding="utf-8").startswith("// @ts-check\n"), path.name
