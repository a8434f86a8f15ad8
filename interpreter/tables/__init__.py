"""Rulebook tables: keys, rows, cells, semantic checks, lookups from the DSL, resolving.

This module is the table stage's public face: every name a caller needs, gathered from
the six modules that hold them (each imports only those listed before it):

- `keys`         reading keys (`parse_key`, `numeric_key`, `format_values`) and finding
                 the row for a face, band or name;
- `rows`         `Row`, `RolledRow`, the cells (`Formula`, `StepsCell`, `BrokenCell`)
                 and `TableRecord`: what a lookup gives and how its cells are read;
- `model`        `Table`: lookups from the DSL, rolls on a table, odds;
- `printing`     `resolve` and `ResolvedTable`: a table as display text, and the display
                 helpers (`display_value`, `number_text`, `mean_text`, ...);
- `coverage`     the key checks: a die table's faces, a band table's gaps and overlaps;
- `build`        `build_table`: from the located YAML node to a `Table` and its findings,
                 with the kinds of table and every other semantic check.

Start with `build_table` (build.py) to see how a table comes to be.
"""
from __future__ import annotations

from .keys import MAX_BAND_LIST, Key, format_values, numeric_key, parse_key
from .model import MAX_CELL_DEPTH, REROLL_TRIES, Table
from .rows import BrokenCell, ComputedCell, Formula, RolledRow, Row, StepsCell, TableRecord

# Building a table (build.py, with the key checks of coverage.py) and showing one
# (printing.py) are imported at their first use: a game played from a kept model, or a
# roll, looks rows up but neither builds nor prints a table, and those three modules were
# a tenth of `play`'s imports.  `from interpreter.tables import build_table` still works
# (the import asks the module's `__getattr__`).
_LATER = {
    "COLUMN_TYPES": "build", "MAX_COMPUTED_CELLS": "build", "build_table": "build",
    "ResolvedTable": "printing", "display_value": "printing",
    "distribution_text": "printing", "mean_text": "printing", "nested_rolls": "printing",
    "number_text": "printing", "range_text": "printing", "resolve": "printing",
}


def __getattr__(name):
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value

__all__ = [
    "COLUMN_TYPES", "MAX_BAND_LIST", "MAX_CELL_DEPTH", "MAX_COMPUTED_CELLS", "REROLL_TRIES",
    "BrokenCell", "ComputedCell", "Formula", "Key", "ResolvedTable", "RolledRow", "Row",
    "StepsCell", "Table", "TableRecord",
    "build_table", "display_value", "distribution_text", "format_values", "mean_text",
    "nested_rolls", "number_text", "numeric_key", "parse_key", "range_text", "resolve",
]
