"""Reads and writes the evaluation's numbers in ``bot/engine/data/weights.json``.

The tuner's numbers (in ``evaluation_features.KEYS`` order) go into the file in the forms
:mod:`bot.engine.weights` reads: scalars, lists, the pawn tables as 8 rows of 8 (rank 1 first),
the other piece-square tables as a step and 8 rank bonuses. Only the numbers change: everything
the tuner does not fit (the phase weights, the typical mobility counts, unfitted entries such as
the royal knight's value) is kept as the file has it. One entry a line, so a refit reads as a diff.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bot.engine
from bench.training import evaluation_features as model
from bot.engine import weights

#: The shipped weights file, in the source tree the tuner writes into.
PATH = Path(bot.engine.__file__).parent.joinpath(*weights.DATA_FILE)


def with_values(data: dict[str, Any], values: Sequence[int]) -> dict[str, Any]:
    """A copy of *data* (the weights file's content) with every fitted number set to *values*."""
    by_key = dict(zip(model.KEYS, values, strict=True))
    new: dict[str, Any] = json.loads(json.dumps(data))
    for name, indices in model.TUPLE_PARAMETERS.items():
        for index in indices:
            new[name][index] = by_key[(name, str(index))]
    for name in model.SCALAR_PARAMETERS:
        new[name] = by_key[(name,)]
    for names in model.SHAPED_TABLES.values():
        for name in names:
            new[name] = {"step": by_key[(name, "step")],
                         "ranks": [by_key[(name, f"rank {rank + 1}")] for rank in range(8)]}
    for name in model.PAWN_TABLES:
        new[name] = [[0 if rank in (0, 7) else by_key[(name, f"{'abcd'[min(f, 7 - f)]}{rank + 1}")]
                      for f in range(8)] for rank in range(8)]
    return new


def dumps(data: dict[str, Any]) -> str:
    """The file's text: one name a line, a pawn table's rows one a line."""
    lines = []
    for name, value in data.items():
        if isinstance(value, list) and value and isinstance(value[0], list):
            rows = ",\n".join(f"    {json.dumps(row)}" for row in value)
            lines.append(f"  {json.dumps(name)}: [\n{rows}\n  ]")
        else:
            lines.append(f"  {json.dumps(name)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write(values: Sequence[int], path: Path = PATH) -> None:
    """Puts the fitted *values* into the weights file at *path*, keeping what is not fitted."""
    data = weights.read_data(path.read_text())
    path.write_text(dumps(with_values(data, values)))
