"""Checks on `--with` inputs, so a mistake is caught where it is made (the command line),
not as a located error inside a bundled rule file or, worse, silently ignored:
a value of the wrong type for a parameter, and a name no formula of the printed tables
reads."""
from __future__ import annotations

from fractions import Fraction

from ..errors import UsageError
from ..expr.values import describe
from ..lang.ast import Name, Node, walk
from ..suggest import did_you_mean
from ..tables import Formula

TYPE_WORDS = {"integer": "a whole number", "number": "a number", "boolean": "true or false",
              "text": "a text", "list": "a list", "record": "a record or a table row"}


def fits(type_name: str, value) -> bool:
    """Whether a `--with` value fits a declared parameter type."""
    if type_name == "integer":
        return type(value) is int or (isinstance(value, Fraction) and value.denominator == 1)
    if type_name == "number":
        return isinstance(value, (int, Fraction)) and not isinstance(value, bool)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "text":
        return isinstance(value, str)
    if type_name == "list":
        return isinstance(value, (list, tuple))
    if type_name == "record":
        return isinstance(value, dict) or hasattr(value, "dsl_names")
    return True


def check_parameter_types(proc, inputs: dict, value_of) -> None:
    """`--with distance=twenty` on a number parameter is the input's error: "distance must
    be a number, got the text 'twenty'"."""
    for name, text in inputs.items():
        if "." in name:
            continue
        param = proc.params.get(name)
        if param is None or param.type in ("unit", "any") or param.type not in TYPE_WORDS:
            continue
        value = value_of(text, name)
        if not fits(param.type, value):
            raise UsageError(f"--with {name}: {name} must be {TYPE_WORDS[param.type]}, got "
                             f"{describe(value)}",
                             hint=param.description or f"e.g. --with {name}={_example(param.type)}")


def _example(type_name: str) -> str:
    return {"integer": "3", "number": "12.5", "boolean": "true", "text": "front",
            "list": "[1, 2]", "record": '{range: 36}'}[type_name]


def formula_names(table) -> set[str] | None:
    """The names a table's formula cells read (None: the table may read any name)."""
    if getattr(table, "mode", None) == "computed":
        return None
    names: set[str] = set()
    for row in getattr(table, "rows", []):
        cells = list((row.cells or {}).values()) if row.cells else [row.value]
        for cell in _flat(cells):
            if isinstance(cell, Formula) and isinstance(cell.node, Node):
                names |= {n.id for n in walk(cell.node) if isinstance(n, Name)}
    return names


def _flat(cells):
    for cell in cells:
        if isinstance(cell, list):
            yield from _flat(cell)
        elif isinstance(cell, dict):
            yield from _flat(list(cell.values()))
        else:
            yield cell


def check_table_inputs(tables: list, inputs: dict) -> None:
    """A `--with` name that no formula of these tables reads would change nothing: an
    error, with the names they do read."""
    used: set[str] = set()
    for table in tables:
        names = formula_names(table)
        if names is None:
            return
        used |= names
    for name in inputs:
        head = name.split(".")[0]
        if head not in used:
            raise UsageError(f"--with {name}: no formula of {'this table' if len(tables) == 1 else 'these tables'} "
                             f"reads {head!r}, so it would change nothing",
                             hint=did_you_mean(head, used) or
                             ("the formulas read: " + ", ".join(sorted(used)) if used
                              else "these tables have no formulas"))
