"""Rulebook tables: keys, rows, cells, semantic checks, lookups from the DSL, resolving.

This module is the table stage's public face: every name a caller needs, gathered from
the five modules that hold them (each imports only those listed before it):

- `keys`         reading keys (`parse_key`, `numeric_key`, `format_values`) and finding
                 the row for a face, band or name;
- `rows`         `Row`, `RolledRow`, the cells (`Formula`, `StepsCell`, `BrokenCell`)
                 and `TableRecord`: what a lookup gives and how its cells are read;
- `model`        `Table`: lookups from the DSL, rolls on a table, odds;
- `printing`     `resolve` and `ResolvedTable`: a table as display text, and the display
                 helpers (`display_value`, `number_text`, `mean_text`, ...);
- `build`        `build_table`: from the located YAML node to a `Table` and its findings,
                 with the kinds of table and every semantic check.

Start with `build_table` (build.py) to see how a table comes to be.
"""
from __future__ import annotations

from .build import COLUMN_TYPES, MAX_COMPUTED_CELLS, build_table
from .keys import MAX_BAND_LIST, Key, format_values, numeric_key, parse_key
from .model import MAX_CELL_DEPTH, REROLL_TRIES, Table
from .rows import BrokenCell, ComputedCell, Formula, RolledRow, Row, StepsCell, TableRecord
from .printing import (ResolvedTable, display_value, distribution_text, mean_text,
                          nested_rolls, number_text, range_text, resolve)

__all__ = [
    "COLUMN_TYPES", "MAX_BAND_LIST", "MAX_CELL_DEPTH", "MAX_COMPUTED_CELLS", "REROLL_TRIES",
    "BrokenCell", "ComputedCell", "Formula", "Key", "ResolvedTable", "RolledRow", "Row",
    "StepsCell", "Table", "TableRecord",
    "build_table", "display_value", "distribution_text", "format_values", "mean_text",
    "nested_rolls", "number_text", "numeric_key", "parse_key", "range_text", "resolve",
]
