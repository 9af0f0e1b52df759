"""Which engine build runs: the modules compiled by mypyc, or their pure-Python sources.

The package build (``setup.py``) compiles :data:`COMPILED_MODULES` into extension modules beside
their ``.py`` files when a C compiler is available, and Python imports an extension module in
preference to a source file. :func:`choose` runs before any of those modules is imported (from
``bot/engine/__init__.py``) and makes the sources win instead when:

* ``KNIGHTMATE_BOT_PURE`` is set (not empty, not ``0``): the pure build was asked for, at run
  time as at build time, so the benchmark and the tests can run both builds from one install;
* a source changed since it was compiled (an edited ``.py`` in an editable install), or the
  extension modules come without the build's record of their sources: a warning names the file
  and says how to rebuild, and the edited code runs, never a stale compiled copy of it.

It chooses for all of :data:`COMPILED_MODULES` together: compiled and pure modules of the engine never mix.
:func:`running_build` reports what was actually imported, for ``--version`` and UCI's ``id name``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.util
import json
import logging
import os
import sys
from collections.abc import Sequence
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec
from pathlib import Path
from types import ModuleType

logger = logging.getLogger(__name__)

#: The engine modules setup.py compiles (names inside :mod:`bot.engine`).
COMPILED_MODULES = ("constants", "weights", "nnue", "position", "table", "search", "evaluation", "moves")
#: Set to anything but empty or ``0`` for the pure-Python build.
PURE_ENV = "KNIGHTMATE_BOT_PURE"
#: Written by a successful compile: the SHA-256 of each source as it was compiled.
SOURCES_RECORD = "_compiled_sources.json"
REBUILD_HINT = "rebuild with `pip install -e '.[test]'` (or `pip install .`)"

_PACKAGE = __name__.rpartition(".")[0]
_DIRECTORY = Path(__file__).parent


def choose() -> None:
    """Makes the engine modules import from their sources when the compiled ones must not run.

    Must be called before any of :data:`COMPILED_MODULES` is imported; calling it again does nothing.
    """
    if any(isinstance(finder, _SourceFinder) for finder in sys.meta_path):
        return
    if not compiled_modules_present():
        return
    if pure_requested():
        sys.meta_path.insert(0, _SourceFinder())
        return
    problem = _stale_source()
    if problem is not None:
        logger.warning("ignoring the compiled engine: %s; running the pure-Python engine, %s", problem, REBUILD_HINT)
        sys.meta_path.insert(0, _SourceFinder())


def pure_requested() -> bool:
    """Whether :data:`PURE_ENV` asks for the pure-Python build."""
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def running_build() -> str:
    """``"compiled"`` when the imported engine modules are mypyc extension modules, ``"pure"``
    when they are Python sources (imports them if that has not happened yet)."""
    compiled = [is_extension_module(importlib.import_module(f"{_PACKAGE}.{name}")) for name in COMPILED_MODULES]
    if all(compiled):
        return "compiled"
    if not any(compiled):
        return "pure"
    raise RuntimeError(f"engine modules from mixed builds: {dict(zip(COMPILED_MODULES, compiled, strict=True))}")


def is_extension_module(module: ModuleType) -> bool:
    """Whether *module* was loaded from a C extension (a shared library), not from Python source."""
    return (module.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))


def compiled_modules_present() -> bool:
    """Whether the build installed compiled modules beside the sources (whether or not they run)."""
    return any(_compiled(name) for name in COMPILED_MODULES)


def _compiled(name: str) -> bool:
    return any((_DIRECTORY / f"{name}{suffix}").exists() for suffix in EXTENSION_SUFFIXES)


def source_hashes(directory: Path = _DIRECTORY) -> dict[str, str]:
    """The SHA-256 of each compiled module's source in *directory*, by file name: setup.py
    records them when it compiles, :func:`choose` compares them with the sources it finds."""
    return {f"{name}.py": hashlib.sha256((directory / f"{name}.py").read_bytes()).hexdigest()
            for name in COMPILED_MODULES}


def _stale_source() -> str | None:
    """Why the compiled modules do not match the sources beside them, or None if they do."""
    missing = [name for name in COMPILED_MODULES if not _compiled(name)]
    if missing:
        return f"compiled modules missing for {', '.join(missing)}"
    try:
        recorded = json.loads((_DIRECTORY / SOURCES_RECORD).read_text())
    except (OSError, ValueError):
        return f"no readable record of the compiled sources ({SOURCES_RECORD})"
    for file_name, digest in source_hashes().items():
        if recorded.get(file_name) != digest:
            return f"{_DIRECTORY / file_name} changed since it was compiled"
    return None


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the engine modules as Python sources, ahead of the extension modules beside them."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None,
                  ) -> ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != _PACKAGE or name not in COMPILED_MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, _DIRECTORY / f"{name}.py")
