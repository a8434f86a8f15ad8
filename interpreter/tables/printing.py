"""Tables for people: `resolve` turns a `Table` into a `ResolvedTable` of display text.

Formula cells are evaluated when they do not roll, dice cells are shown with their range
and mean, rolls on other tables are named (`nested_rolls`), and each row's odds are added
on request.  The display helpers (`display_value`, `number_text`, `mean_text`,
`range_text`, `distribution_text`) also word the values in build.py's findings.
"""
from __future__ import annotations

import math
import re
from ..records import record, field
from fractions import Fraction
from typing import Mapping

from ..dice.distribution import Distribution
from ..lang.ast import Dice, Index, Name, Node, walk
from ..errors import NameError_
from ..expr.exact import exact
from .keys import Key, format_values
from .model import Table
from .rows import BrokenCell, Formula, Row, RowEnv, StepsCell


# ------------------------------------------------------------------- display values


def number_text(value) -> str:
    """A number for people: 7, 3.5, 2/3 (exact when the decimal would not be)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        d = value.denominator
        while d % 2 == 0:
            d //= 2
        while d % 5 == 0:
            d //= 5
        if d == 1:
            text = f"{float(value):.10f}".rstrip("0").rstrip(".")
            return text
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def mean_text(value) -> str:
    """A mean: exact when short (7, 3.5, 8.25), else two decimals (4.67)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    exact_text = number_text(value)
    if "/" not in exact_text and len(exact_text.split(".")[1]) <= 2:
        return exact_text
    return f"{float(value):.2f}"


def range_text(lo, hi) -> str:
    if lo == hi:
        return number_text(lo)
    if isinstance(lo, (int, Fraction)) and lo < 0:
        return f"{number_text(lo)} to {number_text(hi)}"
    return f"{number_text(lo)}-{number_text(hi)}"


def display_value(value) -> str:
    """A plain cell value as display text."""
    if value is None:
        return ""
    if isinstance(value, (bool, int, Fraction, float)):
        return number_text(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Row):
        return value.key
    if isinstance(value, StepsCell):
        return "; ".join(_step_text(s) for s in value.statements)
    if isinstance(value, (list, tuple)):
        return ", ".join(display_value(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {display_value(v)}" for k, v in value.items())
    if isinstance(value, Distribution):
        return distribution_text(value)
    label = getattr(value, "dsl_label", None)
    return label if isinstance(label, str) else str(value)


def _step_text(step) -> str:
    if isinstance(step, str):
        return step
    if isinstance(step, dict):
        return " ".join(f"{k}: {display_value(v) if not isinstance(v, list) else '[' + '; '.join(_step_text(s) for s in v) + ']'}"
                        for k, v in step.items())
    return str(step)


def distribution_text(dist: Distribution, text: str | None = None) -> str:
    values = dist.values()
    head = f"{text} " if text else ""
    if values and all(isinstance(v, (int, Fraction)) and not isinstance(v, bool)
                      for v in values):
        return f"{head}({range_text(dist.min(), dist.max())}, avg {mean_text(dist.mean())})"
    rows = [v for v in values if isinstance(v, Row)]
    if rows and len(rows) == len(values):
        tables = sorted({r.table.name for r in rows})
        return "roll on " + " or ".join(tables)
    shown = ", ".join(display_value(v) for v in values[:6])
    return f"{head}(one of: {shown}{', ...' if len(values) > 6 else ''})"


# -------------------------------------------------------------------------- resolve


@record
class ResolvedTable:
    """A table ready to render: every cell a display string.

    `columns` are the headers (the key column first); `rows` lists of strings aligned
    with them.  With odds, the last two columns are "chance" (an exact fraction) and
    "%" and `odds` holds, per row, {"row", "probability", "percent"}.  `needs` names the
    inputs that formula cells wanted and did not get (supply them with --with).
    """

    name: str
    title: str
    description: str
    columns: list[str]
    rows: list[list[str]]
    kind: str = "name"
    odds: list[dict] | None = None
    needs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)   # headings for people (column label:)
    code_columns: list[int] = field(default_factory=list)   # columns of rule code (steps)

    @property
    def headings(self) -> list[str]:
        """The column headings a reference sheet shows: the ruleset's `label:`, else the
        key with underscores as spaces (`result`, `armour save`)."""
        return self.labels if len(self.labels) == len(self.columns) else \
            [c.replace("_", " ") for c in self.columns]

    def as_json(self) -> dict:
        return {"name": self.name, "title": self.title, "description": self.description,
                "kind": self.kind, "columns": list(self.columns),
                "rows": [dict(zip(self.columns, row)) for row in self.rows],
                "odds": self.odds, "needs": list(self.needs), "notes": list(self.notes)}


def _title(table: Table) -> str:
    if table.title:
        return table.title
    words = table.name.replace("_", " ").replace("-", " ").strip()
    title = words[:1].upper() + words[1:]
    if table.roll_text:
        title += f" ({table.roll_text})"
    return title


def _key_header(table: Table) -> str:
    if table.mode == "die":
        return table.roll_text or "roll"
    if table.key_name:
        return table.key_name
    return "name" if table.mode == "name" else "value"


def _data_columns(table: Table) -> list[str]:
    if table.column_key is not None:
        return [k.text for k in table.column_keys]
    cols = list(table.columns)
    single = all(r.single for r in table.rows)
    if single:
        return cols[:1] if len(cols) == 1 else ["value"]
    for row in table.rows:
        for c in (row.cells or {}):
            if c not in cols:
                cols.append(c)
    return cols


def resolve(table: Table, with_env: Mapping | None = None, odds: bool = False
            ) -> ResolvedTable:
    """Resolve a table for printing: formula cells evaluated when they do not roll,
    dice cells shown with range and mean, nested rolls named, odds added on request."""
    if table.mode == "computed":
        return _resolve_computed(table, with_env)
    needs: set[str] = set()
    columns = [_key_header(table)] + _data_columns(table)
    data_cols = columns[1:]
    single = all(r.single for r in table.rows) and table.column_key is None
    env = table.env(with_env)
    rows: list[list[str]] = []
    odds_rows: list[dict] | None = [] if odds and table.roll_dist is not None else None
    entries: list[tuple[str, Row | None, Key]] = [(r.key, r, r.parsed) for r in table.rows]
    if table.unhandled and table.mode == "die":
        faces = sorted(table.unhandled & set(table.roll_dist.values())) \
            if table.roll_dist is not None else sorted(table.unhandled)
        text = format_values(faces) if len(faces) < 3 or faces[-1] - faces[0] + 1 != len(faces) \
            else f"{faces[0]}-{faces[-1]}"
        if len(faces) == 2 and faces[1] == faces[0] + 1:
            text = f"{faces[0]}-{faces[1]}"
        entries.append((text, None, Key(text, faces[0], faces[-1]) if faces else Key(text)))
        entries.sort(key=lambda e: (e[2].lo if e[2].lo is not None else -math.inf))
    for key_text, row, parsed in entries:
        line = [key_text]
        if row is None:
            line += ["roll again"] + [""] * (len(data_cols) - 1)
        elif single:
            line.append(_resolve_cell(table, row, "value", row.value, env, needs))
        else:
            for c in data_cols:
                if row.cells is not None and c in row.cells:
                    line.append(_resolve_cell(table, row, c, row.cells[c], env, needs))
                elif c in table.columns and "default" in table.columns[c]:
                    line.append(display_value(table.columns[c]["default"]))
                else:
                    line.append("")
        if odds_rows is not None:
            if row is None:
                p = sum((Fraction(w, table.roll_dist.total)
                         for v, w in table.roll_dist.items() if v in table.unhandled),
                        Fraction(0))
            else:
                p = table.key_probability(row)
            odds_rows.append({"row": key_text, "probability": _fraction(p),
                              "percent": round(float(p) * 100, 6)})
            line += [_fraction(p), f"{float(p) * 100:.2f}%"]
        rows.append(line)
    if odds_rows is not None:
        columns += ["chance", "%"]
    notes = []
    if odds and table.roll_dist is None:
        notes.append("no odds: the table is not rolled on a die of its own")
    labels = [str(table.columns.get(c, {}).get("label") or c.replace("_", " ")) if i else
              c.replace("_", " ") for i, c in enumerate(columns)]
    code = [i + 1 for i, c in enumerate(data_cols) if not single and any(
        isinstance((r.cells or {}).get(c), StepsCell) for r in table.rows)]
    return ResolvedTable(table.name, _title(table), table.description, columns, rows,
                         table.mode if table.column_key is None else "two-dimensional",
                         odds_rows, sorted(needs), notes, labels, code)


def _fraction(p: Fraction) -> str:
    p = Fraction(p)
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def _resolve_cell(table: Table, row: Row, column: str, cell, env: Mapping,
                  needs: set[str]) -> str:
    if isinstance(cell, BrokenCell):
        return "=" + cell.text
    if isinstance(cell, Formula):
        try:
            dist = exact(cell.node, RowEnv(row, column, env, None))
        except NameError_ as err:
            missing = re.search(r"unknown name '([^']+)'", err.message)
            if missing:
                needs.add(missing.group(1))
            return "=" + cell.text.strip()
        if len(dist) == 1 and not dist.capped:
            return display_value(dist.values()[0])
        nested = nested_rolls(cell.node, env)
        if nested:
            head = "roll on " + " and ".join(nested)
            values = dist.values()
            if all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in values):
                return f"{head} ({range_text(dist.min(), dist.max())}, " \
                       f"avg {mean_text(dist.mean())})"
            return head
        return distribution_text(dist, cell.text.strip())
    if isinstance(cell, list):
        return ", ".join(_resolve_cell(table, row, column, c, env, needs) for c in cell)
    if isinstance(cell, dict):
        return ", ".join(f"{k}: {_resolve_cell(table, row, column, c, env, needs)}"
                         for k, c in cell.items())
    return display_value(cell)


def nested_rolls(node: Node, env: Mapping) -> list[str]:
    """Names of the tables an expression rolls on: `t[<dice>]` or `roll(t)`."""
    from ..lang.ast import Call
    found: list[str] = []
    for n in walk(node):
        name = None
        if isinstance(n, Index) and isinstance(n.obj, Name) and \
                any(isinstance(k, Dice) for k in walk(n.key)):
            name = n.obj.id
        elif isinstance(n, Call) and n.func == "roll" and n.args and \
                isinstance(n.args[0], Name):
            name = n.args[0].id
        if name is not None and name not in found:
            try:
                target = env[name]
            except KeyError:
                continue
            if isinstance(target, Table):
                found.append(name)
    return found


def _resolve_computed(table: Table, with_env: Mapping | None) -> ResolvedTable:
    title = _title(table)
    if table.computed is None:
        return ResolvedTable(table.name, title, table.description, [], [], "computed")
    over = table.computed["over"]
    names = list(over)
    needs: list[str] = []
    try:
        cells = table.computed_cells(with_env)
    except NameError_ as err:
        m = re.search(r"unknown name '([^']+)'", err.message)
        needs = [m.group(1)] if m else []
        return ResolvedTable(table.name, title, table.description, names + ["value"], [],
                             "computed", None, needs,
                             [f"cannot tabulate {table.computed['text']}: {err.message}"])
    notes = [f"{table.computed['text']}: average (range) for each combination"]
    if len(names) == 2:
        a, b = names
        columns = [f"{a} \\ {b}"] + [display_value(v) for v in over[b]]
        rows = []
        it = iter(cells)
        for va in over[a]:
            line = [display_value(va)]
            for _ in over[b]:
                cell = next(it)
                line.append(f"{mean_text(cell.mean)} ({range_text(cell.min, cell.max)})")
            rows.append(line)
    else:
        columns = names + ["mean", "min", "max"]
        rows = [[display_value(c.inputs[n]) for n in names]
                + [mean_text(c.mean), number_text(c.min), number_text(c.max)] for c in cells]
    return ResolvedTable(table.name, title, table.description, columns, rows, "computed",
                         None, needs, notes)
