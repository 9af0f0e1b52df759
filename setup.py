"""Builds knightmate-bot with the engine's hot modules compiled by mypyc, where that can be done.

pyproject.toml holds everything else about the package; this file exists only because the
compiled modules need code at build time. The modules named in ``bot/engine/build.py`` are
compiled into C extension modules beside their ``.py`` sources, which the package always ships
too. Python imports an extension module before a ``.py`` of the same name, so the compiled build
runs wherever the compile succeeded, and the pure-Python build runs where:

* ``KNIGHTMATE_BOT_PURE=1`` is set at build time (nothing is compiled, and compiled modules an
  earlier editable build left beside the sources are deleted), or
* no working C compiler (or no Python headers) is found: the build says why and goes on without
  the extension modules instead of failing the install.

A successful compile also writes ``bot/engine/_compiled_sources.json``, the SHA-256 of each
source as it was compiled: ``bot.engine.build`` refuses compiled modules whose source has changed
since (an edited ``.py`` in an editable install), so a stale extension module never runs.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import BaseError, CCompilerError

PACKAGE_DIR = Path("bot", "engine")
#: mypyc puts the engine's compiled modules in one shared library (calls between them stay native), named
#: after this group plus "__mypyc", inside the package rather than at the top level.
GROUP = "_engine"
#: Lets the C compiler inline the engine's calls to its own small functions (a move's parts, the
#: bit scans). Without it every function a shared library exports may be replaced when the library
#: is loaded, so each call goes through the procedure linkage table and none is inlined; CPython
#: builds itself with it too. Measured with bench.speed.search_speed --game 120: 1.07x the nodes a
#: second of the build without it (0.98x), the same nodes.
INLINING_FLAG = "-fno-semantic-interposition"


def load_build_rules() -> ModuleType:
    """bot/engine/build.py, loaded on its own (importing ``bot`` would need its dependencies):
    the module list, the environment variable and the source record are defined there once."""
    spec = importlib.util.spec_from_file_location("knightmate_engine_build", PACKAGE_DIR / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rules = load_build_rules()


class OptionalBuildExt(build_ext):
    """Builds the mypyc extension modules, or, when the C compiler fails, none of them."""

    def run(self) -> None:
        try:
            super().run()
        except (CCompilerError, BaseError, OSError) as error:
            self._remove_outputs()
            self.warn(f"could not compile the engine ({error}); installing the pure-Python engine")
            return
        if self.extensions:
            target = Path(self.get_ext_fullpath(f"bot.engine.{rules.COMPILED_MODULES[0]}")).parent
            (target / rules.SOURCES_RECORD).write_text(json.dumps(rules.source_hashes(PACKAGE_DIR), indent=1) + "\n")

    def build_extensions(self) -> None:
        if self.extensions and self.compiler.compiler_type == "unix" and self._accepts(INLINING_FLAG):
            for extension in self.extensions:
                extension.extra_compile_args.append(INLINING_FLAG)
        super().build_extensions()

    def _accepts(self, flag: str) -> bool:
        """Whether the C compiler compiles a trivial file with *flag*, warnings as errors (as mypyc
        compiles): a compiler that does not know the flag builds the engine without it."""
        with tempfile.TemporaryDirectory() as directory:
            source = Path(directory, "flag.c")
            source.write_text("int main(void) { return 0; }\n")
            try:
                self.compiler.compile([str(source)], output_dir=directory, extra_postargs=["-Werror", flag])
            except CCompilerError:
                return False
        return True

    def _remove_outputs(self) -> None:
        """Deletes the extension modules built before the failure: all or none must be installed."""
        for extension in self.extensions:
            Path(self.get_ext_fullpath(extension.name)).unlink(missing_ok=True)
        if self.inplace:
            remove_compiled_from_sources()


def remove_compiled_from_sources() -> None:
    """Deletes extension modules an earlier editable build left beside the sources: they would
    be imported instead of the ``.py`` files the pure build is meant to run."""
    for name in (*rules.COMPILED_MODULES, f"{GROUP}__mypyc"):
        for suffix in EXTENSION_SUFFIXES:
            (PACKAGE_DIR / f"{name}{suffix}").unlink(missing_ok=True)
    (PACKAGE_DIR / rules.SOURCES_RECORD).unlink(missing_ok=True)


def metadata_only() -> bool:
    """Whether this run only writes metadata (pip runs setup.py for that before it builds): mypyc's
    type check and C generation, seconds of CPU, are then skipped."""
    commands = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    return bool(commands) and commands[0] in ("egg_info", "dist_info")


def extension_modules() -> list[Extension]:
    if rules.pure_requested():
        remove_compiled_from_sources()
        return []
    if metadata_only():
        return []
    from mypyc.build import mypycify

    return mypycify([str(PACKAGE_DIR / f"{name}.py") for name in rules.COMPILED_MODULES],
                    group_name=f"bot.engine.{GROUP}", target_dir=str(Path("build", "mypyc")))


setup(ext_modules=extension_modules(), cmdclass={"build_ext": OptionalBuildExt})
