"""The layers are checked: ``lint-imports`` passes on the tree, and fails, naming the contract, when a
copy of the tree gets one import that breaks the rules of DESIGN.md (the check is not vacuous)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` in *tree*, its packages found there first (not the installed ones), its report
    as wide as a contract's name (it wraps at the terminal's width, 80 columns without one)."""
    environment = {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "200"}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=tree, env=environment, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the sources lint-imports reads: the two packages and pyproject.toml."""
    for package in ("bot", "variant"):
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "static"))
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def add_import(module: Path, line: str) -> None:
    """Puts *line* after the module's ``from __future__`` import, as a real import would be."""
    text = module.read_text(encoding="utf-8")
    future = "from __future__ import annotations\n"
    assert future in text
    module.write_text(text.replace(future, future + line + "\n", 1), encoding="utf-8")


def test_the_tree_keeps_every_contract(tree: Path) -> None:
    result = lint_imports(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("module", "line", "broken"), [
    # The engine reaching up into the games layer: the layers, and the engine's own rule.
    ("bot/engine/clock.py", "import bot.games.storage", ["bot's layers", "the engine imports nothing of the bot"]),
    # HTTP from outside the server layer.
    ("bot/engine/book.py", "import requests", ["only bot.remote speaks HTTP"]),
    # A board in the server layer.
    ("bot/remote/events.py", "import chess", ["the server layer never touches a board"]),
    # The run path importing the sandbox (indirect: the sandbox is imported by a module the runner imports).
    ("bot/games/chat.py", "import bot.sandbox", ["the bot's run path never imports the sandbox", "bot's layers"]),
    # The status page borrowing play's Python (its board's files it reads as data, never imports).
    ("bot/console/server.py", "import bot.web.page_server",
     ["the bot's run path never imports the sandbox", "bot's layers"]),
    # The shared server ground reaching into a server that uses it.
    ("bot/httpd.py", "import bot.sandbox.handler", ["the small web servers' shared ground"]),
    # A circle between two sibling modules of one layer.
    ("bot/games/storage.py", "import bot.games.player", ["no import cycles"]),
])
def test_a_forbidden_import_breaks_the_contract_that_forbids_it(tree: Path, module: str, line: str,
                                                                 broken: list[str]) -> None:
    add_import(tree / module, line)
    result = lint_imports(tree)
    assert result.returncode != 0
    reported = [text for text in result.stdout.splitlines() if " BROKEN" in text]
    for name in broken:
        assert any(text.startswith(name) for text in reported), (name, result.stdout)
