"""The analysing engine is the installed build whatever the working folder: a non-editable install
in a fresh environment, run from the root of a source tree (a fresh clone: no compiled modules).

``python -m`` puts the working folder first on the module path, so a child ``python -m bot.cli
uci`` started there imported the tree's pure-Python engine instead of the compiled one installed.
Slow (``--runslow``): the install compiles the engine with mypyc, one to three minutes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.pgn_games import write_game

ROOT = Path(__file__).resolve().parents[2]
#: What a fresh clone does not have: builds, environments, caches and compiled modules.
NOT_IN_A_CLONE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.so",
                                        ".mypy_cache", ".ruff_cache", ".pytest_cache", "_compiled_sources.json")
INSTALL_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A fresh clone of the repository, and a fresh environment with the package installed from it
    (not editable); the clone is left as it was (no compiled module in it)."""
    clone = tmp_path_factory.mktemp("clone") / "knightmate-bot"
    shutil.copytree(ROOT, clone, ignore=NOT_IN_A_CLONE)
    environment = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(environment)], check=True, timeout=120)
    subprocess.run([str(environment / "bin" / "python"), "-m", "pip", "install", "-q", str(clone)], check=True,
                   capture_output=True, timeout=INSTALL_TIMEOUT_S)
    shutil.rmtree(clone / "build", ignore_errors=True)
    assert not list((clone / "bot").rglob("*.so")), "the install compiled into the source tree"
    version = run(environment / "bin" / "knightmate-bot", "--version", cwd=environment).stdout
    if "(compiled)" not in version:
        pytest.skip(f"no compiled build was installed (no C compiler?): {version.strip()}")
    return clone, environment


def run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_console_script_run_from_the_repository_root_is_the_compiled_build(installed: tuple[Path, Path]) -> None:
    clone, environment = installed
    version = run(environment / "bin" / "knightmate-bot", "--version", cwd=clone)
    assert version.returncode == 0 and version.stdout.strip().endswith("(compiled)"), version


@pytest.mark.slow
def test_the_analysing_engine_is_the_compiled_build_even_for_a_cli_imported_from_the_tree(
        installed: tuple[Path, Path]) -> None:
    clone, environment = installed
    python = environment / "bin" / "python"
    # The trap: `python -m` from the root imports the tree's sources, the pure engine.
    assert run(python, "-m", "bot.cli", "--version", cwd=clone).stdout.strip().endswith("(pure)")
    game = write_game(clone / "game.pgn")
    for command in ([environment / "bin" / "knightmate-bot"], [python, "-m", "bot.cli"]):
        analysed = run(*command, "analyse", game.name, "--depth", "2", cwd=clone)
        assert analysed.returncode == 0, analysed.stderr
        engine_line = analysed.stderr.splitlines()[0]
        assert engine_line.startswith("knightmate-bot analyse: knightmate-bot ") and "(compiled)" in engine_line, (
            command, analysed.stderr)
