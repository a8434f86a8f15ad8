"""The exact odds of one formula of a ruleset, for `rulecraft diff`: a table cell written
`=...` (as the table gives it), a computed table's formula (at the inputs named with
`--with`), a kind's derived stat or `=...` state default (on a unit of the kind with its
declared defaults).  A house rule that turns `=2d6` into `=3d6` is shown as the two
distributions, not only as the changed text."""
from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping
from fractions import Fraction

from ..dice.distribution import Distribution
from ..errors import RulecraftError
from ..expr.exact import exact
from ..expr.values import json_value
from ..lang.parse import parse_expression
from .runs import input_value, make_unit


def formula_text(path: list[str], value) -> str | None:
    """The expression of a changed formula, or None when the piece is not one: a table
    cell written `=...`, a computed table's `formula`, a kind's derived stat, or a
    kind's state default written `=...`."""
    if not isinstance(value, str) or len(path) < 4:
        return None
    if path[0] == "tables" and path[2] == "rows" and value.lstrip().startswith("="):
        return value.lstrip()[1:]
    if path[0] == "tables" and path[2:] == ["computed", "formula"]:
        return value
    if path[0] == "kinds" and len(path) == 4 and path[2] == "derived":
        return value
    if path[0] == "kinds" and len(path) == 4 and path[2] == "state" and value.lstrip().startswith("="):
        return value.lstrip()[1:]
    return None


class _UnitNames(Mapping):
    """A unit's stats, derived stats and state by their bare names (as a kind's formulas
    read them), then the ruleset's names."""

    def __init__(self, unit, names: Mapping):
        self.unit, self.names = unit, names

    def __getitem__(self, name):
        try:
            return self.unit.dsl_attr(name)
        except KeyError:
            return self.names[name]

    def __iter__(self):
        yield from self.unit.dsl_names()
        yield from self.names

    def __len__(self) -> int:
        return sum(1 for _ in self)


def formula_odds(ruleset, path: list[str], text: str, inputs: dict) -> dict:
    """The exact distribution of a formula as the ruleset holds it: a table cell as the
    table gives it, a computed table's formula at the inputs named with `--with` (its
    `over` names), a kind's formula on a unit of the kind with its declared defaults."""
    if path[0] == "tables":
        table = ruleset.tables[path[1]]
        if path[2] == "computed":
            over = list(table.computed["over"])
            missing = [n for n in over if n not in inputs]
            if missing:
                raise RulecraftError("depends on " + ", ".join(over) + ": name them with --with "
                                     + " ".join(f"{n}=..." for n in missing))
            values = {n: input_value(inputs[n], ruleset, n) for n in over}
            value = exact(table.computed["node"], ChainMap(values, table.env()))
        else:
            row = table.row(path[3]) if path[3] not in ("", None) else None
            value = row.get(path[4] if len(path) > 4 else "value")
    else:
        # the state default asked about is evaluated exactly below, not sampled here
        unit = make_unit(ruleset, path[1], path[1], "", {path[3]: 0} if path[2] == "state" else None)
        value = exact(parse_expression(text), _UnitNames(unit, ruleset.globals))
    if not isinstance(value, Distribution):
        return {str(json_value(value)): Fraction(1)}
    return {str(json_value(v)): Fraction(w, value.total) for v, w in value.items()}
