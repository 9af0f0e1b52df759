"""Writes numbers into ``bot/engine/evaluation.py`` in the forms the module already uses.

The tuner's numbers (in ``evaluation_features.KEYS`` order) become the right-hand sides of the
module's assignments: tuples and scalars on one line (trailing comments kept), the shaped tables as
``_table(step, ranks)`` calls, and the pawn tables as 8 rows of 8 entries, rank 1 first. Nothing
else in the file changes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import evaluation_features as model

import bot.engine
from bot.engine import evaluation

#: The evaluation's source. Not ``evaluation.__file__``: in the compiled build that names the
#: extension module, not the source the numbers are written into.
PATH = Path(bot.engine.__file__).with_name("evaluation.py")


def with_values(source: str, values: Sequence[int]) -> str:
    """*source* (evaluation.py's text) with every fitted number set to *values*."""
    return write_source(source, source_values(values))


def source_values(values: Sequence[int]) -> dict[str, str]:
    """name -> new right-hand side of its assignment in evaluation.py."""
    by_key = dict(zip(model.KEYS, values, strict=True))
    text: dict[str, str] = {}
    for name, indices in model.TUPLE_PARAMETERS.items():
        entries = list(getattr(evaluation, name))
        for index in indices:
            entries[index] = by_key[(name, str(index))]
        text[name] = "(" + ", ".join(map(str, entries)) + ")"
    for name in model.SCALAR_PARAMETERS:
        text[name] = str(by_key[(name,)])
    for names in model.SHAPED_TABLES.values():
        for name in names:
            ranks = ", ".join(str(by_key[(name, f"rank {rank + 1}")]) for rank in range(8))
            text[name] = f"_table({by_key[(name, 'step')]}, ({ranks}))"
    for name in model.PAWN_TABLES:
        lines = []
        for rank in range(8):
            entries = [0 if rank in (0, 7) else by_key[(name, f"{'abcd'[min(f, 7 - f)]}{rank + 1}")]
                       for f in range(8)]
            lines.append("    " + ", ".join(map(str, entries)) + ",")
        text[name] = "(\n" + "\n".join(lines) + "\n)"
    return text


def write_source(source: str, new: dict[str, str]) -> str:
    """Replaces each assignment's right-hand side (name -> text), keeping its trailing comment."""
    for name, value in new.items():
        # The name, its annotation if any (``: Final[tuple[int, ...]]``), then the value: a table
        # written over several lines up to a lone ")", or the rest of the line up to a comment.
        if value.startswith("(\n"):
            pattern = re.compile(rf"^({name}(?::[^=\n]+)? = )\(\n.*?\n\)$", re.M | re.S)
        else:
            pattern = re.compile(rf"^({name}(?::[^=\n]+)? = )[^#\n]*?(?=(  #.*)?$)", re.M)
        source, found = pattern.subn(rf"\g<1>{value}", source)  # values hold no backslashes
        if found != 1:
            raise ValueError(f"evaluation.py: expected one assignment of {name}, found {found}")
    return source
