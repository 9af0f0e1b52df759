"""The engine's two builds: the compiled modules are the ones imported when they are installed and
current; the pure sources run when asked for, or when a compiled module is stale.

Stale and pure cases run in a child interpreter on a copy of the package, so the session's own
imports and the installed files are never touched.
"""

from __future__ import annotations

import importlib
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from bot.engine import Limits, SearchResult, build

COMPILED_INSTALLED = build.compiled_modules_present()
needs_compiled = pytest.mark.skipif(not COMPILED_INSTALLED, reason="the pure build is installed (no C compiler, "
                                    "or KNIGHTMATE_BOT_PURE at build time)")

PROBE = ("from bot.engine import build; import importlib; print(build.running_build()); "
         "print(*(importlib.import_module('bot.engine.' + name).__file__ for name in build.COMPILED_MODULES))")


def copy_of_package(tmp_path: Path) -> Path:
    """A copy of the installed ``bot`` and ``variant`` packages (compiled modules included)."""
    for package in ("bot", "variant"):
        source = Path(__import__(package).__file__).parent
        shutil.copytree(source, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "bot" / "engine"


def probe(root: Path, pure: bool = False) -> tuple[str, list[str], str]:
    """Which build a fresh interpreter runs from the packages under *root*: its name, the
    engine modules' files and what was logged."""
    env = {key: value for key, value in os.environ.items() if key != build.PURE_ENV}
    if pure:
        env[build.PURE_ENV] = "1"
    env["PYTHONPATH"] = str(root)
    run = subprocess.run([sys.executable, "-c", PROBE], cwd=root, env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    name, files = run.stdout.splitlines()
    return name, files.split(), run.stderr


def test_the_build_in_use_is_the_one_installed() -> None:
    expected = "compiled" if COMPILED_INSTALLED and not build.pure_requested() else "pure"
    assert build.running_build() == expected, (
        f"compiled modules are installed but the {build.running_build()} build runs: a source changed since it was "
        f"compiled; {build.REBUILD_HINT}")


@needs_compiled
def test_compiled_build_imports_every_engine_module_compiled() -> None:
    if build.pure_requested():
        pytest.skip(f"{build.PURE_ENV} asks for the pure build")
    for name in build.COMPILED_MODULES:
        module = importlib.import_module(f"bot.engine.{name}")
        assert build.is_extension_module(module), (
            f"bot.engine.{name} was imported from {module.__file__}, not from its compiled module: it changed since "
            f"it was compiled; {build.REBUILD_HINT}")


def test_pure_build_asked_for_at_run_time_imports_the_sources(tmp_path: Path) -> None:
    copy_of_package(tmp_path)
    name, files, _ = probe(tmp_path, pure=True)
    assert name == "pure"
    assert all(file.endswith(".py") and file.startswith(str(tmp_path)) for file in files)


@needs_compiled
def test_unchanged_copy_of_the_compiled_build_runs_compiled(tmp_path: Path) -> None:
    copy_of_package(tmp_path)
    name, files, log = probe(tmp_path)
    assert name == "compiled", log
    assert not any(file.endswith(".py") for file in files)


@needs_compiled
def test_an_edited_source_is_run_instead_of_its_stale_compiled_module(tmp_path: Path) -> None:
    engine_dir = copy_of_package(tmp_path)
    with open(engine_dir / "moves.py", "a") as source:
        source.write("\n# an edit made after the compile\n")
    name, files, log = probe(tmp_path)
    assert name == "pure"
    assert all(file.endswith(".py") for file in files)
    assert "moves.py changed since it was compiled" in log and "pip install -e" in log


@needs_compiled
def test_compiled_modules_without_their_source_record_are_not_trusted(tmp_path: Path) -> None:
    engine_dir = copy_of_package(tmp_path)
    (engine_dir / build.SOURCES_RECORD).unlink()
    name, _, log = probe(tmp_path)
    assert name == "pure"
    assert build.SOURCES_RECORD in log


@needs_compiled
def test_an_incomplete_set_of_compiled_modules_is_not_mixed_with_sources(tmp_path: Path) -> None:
    engine_dir = copy_of_package(tmp_path)
    for path in engine_dir.glob("evaluation.*"):
        if path.suffix != ".py":
            path.unlink()
    name, files, log = probe(tmp_path)
    assert name == "pure"
    assert "compiled modules missing for evaluation" in log


def test_search_result_and_limits_survive_pickling() -> None:
    """They travel between the bot and its worker processes; a compiled frozen dataclass cannot
    be unpickled, so they must stay in uncompiled modules."""
    result = SearchResult(chess.Move.from_uci("e2e4"), 15, None, 6, 1234, 50, (chess.Move.from_uci("e2e4"),))
    limits = Limits(wtime_ms=1000, btime_ms=2000, winc_ms=10, binc_ms=10)
    assert pickle.loads(pickle.dumps(result)) == result
    assert pickle.loads(pickle.dumps(limits)) == limits
    assert not build.is_extension_module(sys.modules[SearchResult.__module__])
