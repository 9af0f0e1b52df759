"""Reads and writes the evaluation's numbers in ``bot/engine/data/weights.json``.

The tuner's numbers (in ``evaluation_features.KEYS`` order) go into the file in the forms
:mod:`bot.engine.weights` reads: scalars, lists, the piece-square tables as 8 rows of 8 (rank 1
first, a pawn's end ranks 0). Only the numbers change: everything the tuner does not fit (the
phase weights, the typical mobility counts, unfitted entries such as the royal knight's value) is
kept as the file has it. One entry a line, so a refit reads as a diff.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import chess

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
    for names in model.TABLES.values():
        for name in names:
            new[name] = [[by_key.get((name, chess.square_name(chess.square(file, rank))), 0) for file in range(8)]
                         for rank in range(8)]
    return new


def dumps(data: dict[str, Any]) -> str:
    """The file's text: one name a line, a piece-square table's rows one a line."""
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
