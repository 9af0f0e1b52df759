"""The manual's generated references (docs/_ext/reference_text.py) cover every key and option."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from bot.config import known_keys
from bot.engine.uci import OPTIONS

GENERATOR = Path(__file__).resolve().parents[2] / "docs" / "_ext" / "reference_text.py"


@pytest.fixture(scope="module")
def reference() -> ModuleType:
    """The generator the docs build runs, loaded from its file (docs/ is not a package)."""
    spec = importlib.util.spec_from_file_location("reference_text", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def test_configuration_reference_has_an_entry_for_every_key(reference: ModuleType) -> None:
    page = reference.config_reference()
    entries = [line.removeprefix("```{confval} ") for line in page.splitlines() if line.startswith("```{confval} ")]
    assert sorted(entries) == sorted(known_keys())
    assert len(set(entries)) == len(entries)


def test_configuration_reference_shows_the_codes_default_and_reader(reference: ModuleType) -> None:
    keys = {key.name: key for key in reference.config_keys(reference.CONFIG_YML.read_text(encoding="utf-8"))}
    assert keys["engine.clock_reserve_share"].default == "0.2"
    assert keys["engine.clock_reserve_share"].accepts == "a number >= 0 and <= 0.5"
    assert keys["engine.max_move_time_ms"].accepts == "a whole number >= 1, or null"
    assert keys["server.dialect"].accepts == "one of auto, lichess, pychess"
    assert keys["challenge.modes"].default == "[casual, rated]"
    assert "Default" not in keys["server.backoff_max_s"].comment
    assert keys["server.backoff_max_s"].comment == keys["server.backoff_initial_s"].comment


def test_a_key_without_its_own_comment_fails_the_build(reference: ModuleType) -> None:
    text = reference.CONFIG_YML.read_text(encoding="utf-8")
    comment = "  # Built-in engine: transposition table size per worker process, MB.  Default: 64\n"
    assert comment in text
    with pytest.raises(reference.ReferenceError, match="engine.hash_mb"):
        reference.config_reference(text.replace(comment, ""))


def test_a_key_the_code_does_not_read_fails_the_build(reference: ModuleType) -> None:
    text = reference.CONFIG_YML.read_text(encoding="utf-8").replace(
        "  hash_mb: 64\n", "  hash_mb: 64\n  # The table's colour.\n  hash_colour: blue\n")
    with pytest.raises(reference.ReferenceError, match="engine.hash_colour"):
        reference.config_reference(text)


def test_uci_options_table_lists_every_option_in_order(reference: ModuleType) -> None:
    rows = reference.uci_options_table().splitlines()[2:]
    assert [row.split("`")[1] for row in rows] == [option.spec.name for option in OPTIONS]
    assert rows[1].startswith("| `Hash` | spin, 1 to 4096 | `64` |")
    assert rows[5].startswith("| `Book File` | string | `knightmate.bin (shipped)` |")
