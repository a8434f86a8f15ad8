"""Rulebook tables: keys, rows, cells, semantic checks, lookups from the DSL, resolving.

A table in a ruleset (see docs/rule-format.md, "tables") is built once from its located
YAML node by `build_table`, which returns the `Table` and a list of `Finding`s (it never
raises for a problem in the rules).  Kinds of table:

- **die tables** (`roll: d20`): keys are faces and ranges of faces (`"3"`, `"1-2"`,
  `"19-20"`, `"0"`, `"-1"`; open bands like `"5+"` are clipped to the die); the rows must
  cover the roll's possible values exactly, except faces declared `unhandled:` (rolling
  one of those means "roll again").  A compound roll (`roll: 2d6`) works the same way:
  its possible totals are the faces.
- **value-band tables** (`key: bs`): keys are bands (`"5+"`, `"1-3"`, `"10 or more"`,
  `"2 or less"`, `"3-4 hexes"` with a trailing unit word); bands run in ascending or
  descending order, without gaps (over `domain:` when given, else over the span of the
  bounded bands) and without overlaps.  Bands are whole numbers: a fractional value is
  refused with a hint to round it explicitly.
- **name tables** (`key: name`, or keys that are not numbers): looked up by name,
  case-insensitively.
- **two-dimensional tables** (`column_key:`): each row maps column keys to cells;
  `t[r][c]`.
- **computed tables** (`computed: {formula, over}`): a formula tabulated exactly over the
  cross product of input ranges (`over: {sc: [1, 10]}` means sc = 1..10; a longer list
  gives the values themselves).

Cells are numbers (YAML floats become exact fractions), text, booleans, lists, records,
or strings starting with `=`: DSL expressions parsed once, at build time, located inside
the YAML string.  A formula cell is evaluated each time it is read, with the row's other
columns, then the table's environment (`bind`), then `params_env` as names; a dice cell
(`"=2d6"`) therefore rolls on every read.  A column typed `steps` keeps its statements
raw (`StepsCell`) for the engine to compile.

Lookups (`Table.dsl_index`) return a `Row` (hashable by identity, one object per row, so
exact distributions can hold rows) or, for single-value rows, the value itself.  In exact
mode (no ctx) a result that is itself random (a dice cell, a "roll again" face) is
returned as a `Distribution`; the evaluator mixes it in.

Finding codes: table-empty, table-key, table-roll, table-gap, table-overlap,
table-key-outside, table-unhandled, table-band-gap, table-band-order, table-type,
table-column, table-check, table-computed, plus the DSL's own codes (syntax, limit,
unknown-name) for formulas that do not parse or evaluate.
"""
from __future__ import annotations

import math
import re
from collections import ChainMap
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any, Iterable, Iterator, Mapping

from .distribution import Distribution
from .dsl import Dice, Index, Name, Node, parse_expression, walk
from .errors import EvalError, Finding, LimitError, Location, NameError_, RulecraftError
from .evaluate import Context, compile_sampler, exact
from .load import MapNode, ScalarNode, SeqNode
from .load import Node as YNode
from .suggest import did_you_mean

REROLL_TRIES = 100          # "roll again" attempts in sampled mode before giving up
MAX_COMPUTED_CELLS = 10_000  # combinations a computed table may tabulate
MAX_BAND_LIST = 12          # faces named one by one before runs are shortened to a-b
MAX_CELL_DEPTH = 24         # formula cells evaluated inside one another (nested rolls)

_depth = 0                  # current nesting of formula-cell evaluation

COLUMN_TYPES = ("integer", "number", "boolean", "text", "list", "record", "steps", "any")

# ---------------------------------------------------------------------------- keys

_UNIT = r"(?:\s*[A-Za-z][A-Za-z.]*|\s*[\"']{1,2})?"
_INT = r"([-+−]?\d+)"
_RANGE = re.compile(rf"^\s*{_INT}\s*(?:-|–|—|to)\s*{_INT}{_UNIT}\s*$")
_SINGLE = re.compile(rf"^\s*{_INT}{_UNIT}\s*$")
_PLUS = re.compile(rf"^\s*{_INT}\s*\+{_UNIT}\s*$")
_MORE = re.compile(rf"^\s*{_INT}{_UNIT}\s+or\s+(?:more|higher|greater|over|above|better)"
                   rf"{_UNIT}\s*$", re.IGNORECASE)
_LESS = re.compile(rf"^\s*{_INT}{_UNIT}\s+or\s+(?:less|lower|fewer|under|below|worse)"
                   rf"{_UNIT}\s*$", re.IGNORECASE)


def _int(text: str) -> int:
    return int(text.replace("−", "-").replace("+", ""))


@dataclass(frozen=True)
class Key:
    """One parsed row (or column) key.

    Numeric keys are integer intervals `lo..hi` (inclusive; None = open at that end);
    a single face has lo == hi.  Name keys have `name` set (and lo = hi = None).
    `text` is the key as written.
    """

    text: str
    lo: int | None = None
    hi: int | None = None
    name: str | None = None

    @property
    def is_name(self) -> bool:
        return self.name is not None

    @property
    def bounded(self) -> bool:
        return not self.is_name and self.lo is not None and self.hi is not None

    def contains(self, value) -> bool:
        if self.is_name:
            return False
        return (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi)

    def faces(self, universe: Iterable[int]) -> list[int]:
        return [f for f in universe if self.contains(f)]

    def describe(self) -> str:
        if self.is_name:
            return self.name
        if self.lo is None and self.hi is None:
            return "any value"
        if self.lo is None:
            return f"{self.hi} or less"
        if self.hi is None:
            return f"{self.lo} or more"
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"


def parse_key(raw: Any) -> Key:
    """Read a key as written in a table: a face or range (`3`, `1-2`, `-1`), a band
    (`5+`, `10 or more`, `2 or less`, `3-4 hexes`) or, failing those, a name.

    Integer keys (from code or YAML) read exactly like their text.  A range that runs
    backwards (`6-1`) is read as a name; `numeric_key` tells them apart with a reason.
    """
    key, _ = _parse_numeric(raw)
    if key is not None:
        return key
    text = str(raw)
    return Key(text=text, name=text.strip())


def numeric_key(raw: Any) -> tuple[Key | None, str | None]:
    """A numeric key, or (None, why it is not one)."""
    return _parse_numeric(raw)


def _parse_numeric(raw: Any) -> tuple[Key | None, str | None]:
    if isinstance(raw, bool):
        return None, "true/false is not a face or a band"
    if isinstance(raw, int):
        return Key(str(raw), raw, raw), None
    if isinstance(raw, float) and raw.is_integer():
        return Key(str(int(raw)), int(raw), int(raw)), None
    if not isinstance(raw, str):
        return None, f"{raw!r} is not a face or a band"
    text = raw
    m = _RANGE.match(text)
    if m:
        lo, hi = _int(m.group(1)), _int(m.group(2))
        if hi < lo:
            return None, f"the range {text!r} runs backwards"
        return Key(text, lo, hi), None
    m = _SINGLE.match(text)
    if m:
        v = _int(m.group(1))
        return Key(text, v, v), None
    m = _PLUS.match(text) or _MORE.match(text)
    if m:
        return Key(text, _int(m.group(1)), None), None
    m = _LESS.match(text)
    if m:
        return Key(text, None, _int(m.group(1))), None
    return None, (f"cannot read {text!r} as a face, a range like 1-2 or a band like 5+, "
                  f"10 or more, 2 or less")


def format_values(values: Iterable[int]) -> str:
    """`[16, 17, 18]` -> "16, 17, 18"; long runs shortened: "1-40, 45"."""
    values = sorted(set(values))
    runs: list[tuple[int, int]] = []
    for v in values:
        if runs and runs[-1][1] == v - 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    if len(values) <= MAX_BAND_LIST:
        return ", ".join(str(v) for v in values)
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


# -------------------------------------------------------------------------- cells


class Formula:
    """A `=expression` cell: parsed once; compiled to a sampler on first use."""

    __slots__ = ("text", "node", "location", "_sampler")

    def __init__(self, text: str, node: Node, location: Location | None):
        self.text = text
        self.node = node
        self.location = location
        self._sampler = None

    def sample(self, ctx: Context):
        if self._sampler is None:
            self._sampler = compile_sampler(self.node, record=True)
        return self._sampler(ctx)

    def rolls(self) -> bool:
        """Whether the expression itself contains dice (nested rolls are found by
        evaluating it)."""
        return any(isinstance(n, Dice) for n in walk(self.node))

    def __repr__(self) -> str:
        return f"Formula({self.text!r})"


class BrokenCell:
    """A formula that did not parse: reported as a finding at build time, raised on use."""

    __slots__ = ("text", "error")

    def __init__(self, text: str, error: RulecraftError):
        self.text = text
        self.error = error

    def __repr__(self) -> str:
        return f"BrokenCell({self.text!r})"


class StepsCell:
    """A `steps` column's statements, kept raw for the engine: `node` is the located YAML
    (a SeqNode of strings / control-flow mappings, or one ScalarNode); `statements` the
    plain form."""

    __slots__ = ("node", "statements")

    def __init__(self, node: YNode):
        self.node = node
        plain = node.to_plain()
        self.statements = plain if isinstance(plain, list) else [plain]

    def dsl_label(self):  # pragma: no cover - describe() reads the attribute
        return "steps"

    def __repr__(self) -> str:
        return f"StepsCell({self.statements!r})"


_MISSING = object()


def _plain_scalar(value):
    if isinstance(value, float):
        if math.isfinite(value):
            return Fraction(str(value)) if not value.is_integer() else int(value)
        return value
    return value


# --------------------------------------------------------------------------- records


@dataclass
class TableRecord:
    """A transcript entry: a lookup on `table` with `key_used` hit the row `row_key`."""

    table: str
    key_used: Any
    row_key: str | None
    kind: str = field(default="table", init=False)

    def as_json(self) -> dict:
        key = self.key_used
        if isinstance(key, Fraction):
            key = str(key) if key.denominator != 1 else key.numerator
        return {"kind": "table", "table": self.table, "key": key, "row": self.row_key}

    @property
    def text(self) -> str:
        return f"{self.table}[{self.key_used}] -> {self.row_key}"


# ------------------------------------------------------------------------------ rows


class Row:
    """One row of a table.  Hashable by identity: the table builds one object per row.

    DSL: `row.column` (`dsl_attr`), `row[column_key]` in a two-dimensional table
    (`dsl_index`), plus the pseudo-fields `key` (and `name` in a name table) when no
    column has that name.
    """

    __slots__ = ("table", "key", "parsed", "cells", "value", "location", "key_location",
                 "node", "__weakref__")

    def __init__(self, table: "Table", key: Key, cells: dict[str, Any] | None,
                 value: Any, node: YNode | None, key_location: Location | None):
        self.table = table
        self.key = key.text
        self.parsed = key
        self.cells = cells          # column -> cell, or None for a single-value row
        self.value = value          # the cell of a single-value row (else _MISSING)
        self.node = node
        self.location = node.location if node is not None else None
        self.key_location = key_location

    # -- DSL protocol
    @property
    def dsl_label(self) -> str:
        return f"row {self.key!r} of {self.table.name!r}"

    @property
    def single(self) -> bool:
        return self.cells is None

    def dsl_names(self) -> list[str]:
        names = list(self.cells or {})
        for extra in ("key", "name") if self.table.mode == "name" else ("key",):
            if extra not in names:
                names.append(extra)
        return names

    def dsl_attr(self, name: str):
        return self.attr(name, None)

    def dsl_index(self, key, loc: Location | None, ctx: Context | None = None):
        return self.cell_at(key, loc, ctx)

    def attr(self, name: str, ctx: Context | None = None):
        """A column's value: sampled with ctx, exactly without (see `Table._cell_value`)."""
        cells = self.cells or {}
        if name in cells:
            return self.table._cell_value(self, name, cells[name], ctx)
        col = self.table.columns.get(name)
        if col is not None and "default" in col:
            return col["default"]
        if name == "key" or (name == "name" and self.table.mode == "name"):
            return self.key
        if col is not None:
            raise EvalError(f"{self.dsl_label} has no value for {name!r}")
        raise KeyError(name)

    def cell_at(self, key, loc: Location | None, ctx: Context | None = None):
        """`row[column_key]` (two-dimensional tables, or a column by name)."""
        if self.cells is None:
            raise EvalError(f"{self.dsl_label} holds a single value and cannot be indexed",
                            loc)
        table = self.table
        if table.column_index is None:
            if isinstance(key, str):
                for col in self.cells:
                    if col.casefold() == key.casefold():
                        return self.attr(col, ctx)
            raise EvalError(f"no column {key!r} in {self.dsl_label}", loc,
                            hint=did_you_mean(str(key), list(self.cells)))
        col = table.row_column_index(self).find(key, loc, f"the columns of {self.dsl_label}")
        return table._cell_value(self, col.text, self.cells[col.text], ctx)

    def get(self, column: str, ctx: Context | None = None):
        """A cell's value from Python (same as `row.column` in the DSL)."""
        if column == "value" and self.cells is None:
            return self.table._cell_value(self, "value", self.value, ctx)
        return self.attr(column, ctx)

    def __repr__(self) -> str:
        return f"<{self.dsl_label}>"

    def __str__(self) -> str:
        return self.key


class RolledRow:
    """A row reached by a sampled lookup: the same row, carrying the run's context so
    that reading a dice cell (`t[d6].damage` with damage "=2d6") rolls with the run's
    RNG and records in its transcript.  Equal to (and hashed like) its `Row`."""

    __slots__ = ("row", "ctx")

    def __init__(self, row: Row, ctx: Context):
        self.row = row
        self.ctx = ctx

    def dsl_attr(self, name: str):
        return self.row.attr(name, self.ctx)

    def dsl_index(self, key, loc: Location | None, ctx: Context | None = None):
        return self.row.cell_at(key, loc, ctx or self.ctx)

    def dsl_names(self) -> list[str]:
        return self.row.dsl_names()

    @property
    def dsl_label(self) -> str:
        return self.row.dsl_label

    def __getattr__(self, name):
        return getattr(self.row, name)

    def __eq__(self, other):
        if isinstance(other, RolledRow):
            other = other.row
        return self.row is other

    def __hash__(self):
        return hash(self.row)

    def __repr__(self) -> str:
        return repr(self.row)

    def __str__(self) -> str:
        return self.row.key


class _RowEnv(Mapping):
    """Names for a formula cell: the row's other columns, then the table's environment."""

    __slots__ = ("row", "skip", "base", "ctx", "active")

    def __init__(self, row: Row, skip: str | None, base: Mapping, ctx: Context | None,
                 active: frozenset = frozenset()):
        self.row, self.skip, self.base, self.ctx, self.active = row, skip, base, ctx, active

    def _own(self) -> dict:
        return self.row.cells or {}

    def __getitem__(self, name):
        cells = self._own()
        if name != self.skip and name in cells:
            if name in self.active:
                raise EvalError(f"the formulas of {self.row.dsl_label} refer to each other "
                                f"in a circle (through {name!r})")
            return self.row.table._cell_value(self.row, name, cells[name], self.ctx,
                                               self.base, self.active | {self.skip})
        return self.base[name]

    def __iter__(self) -> Iterator[str]:
        seen = set()
        for k in self._own():
            if k != self.skip:
                seen.add(k)
                yield k
        for k in self.base:
            if k not in seen:
                yield k

    def __len__(self) -> int:
        return sum(1 for _ in self)


# ---------------------------------------------------------------------- key index


class _KeyIndex:
    """Finds the entry whose key holds a value: faces/bands by value, names by casefold."""

    def __init__(self, label: str, keys: list[Key], items: list, numeric: bool,
                 domain_text: str | None = None):
        self.label = label
        self.keys = keys
        self.items = items
        self.numeric = numeric
        self.by_name = {k.name.casefold(): it for k, it in zip(keys, items) if k.is_name}
        self.by_text = {k.text.strip().casefold(): it for k, it in zip(keys, items)}
        self.faces: dict[int, Any] | None = None

    def lookup(self, value):
        """The item for value, or _MISSING."""
        if isinstance(value, str):
            hit = self.by_name.get(value.strip().casefold(), _MISSING)
            if hit is not _MISSING:
                return hit
            hit = self.by_text.get(value.strip().casefold(), _MISSING)
            if hit is not _MISSING:
                return hit
            if not self.numeric:
                return _MISSING
            key, _ = numeric_key(value)
            if key is None or not key.bounded or key.lo != key.hi:
                return _MISSING
            value = key.lo
        if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
            return _MISSING
        if not self.numeric:
            return self.by_name.get(str(value).casefold(), _MISSING)
        if self.faces is not None and type(value) is int and value in self.faces:
            return self.faces[value]
        for key, item in zip(self.keys, self.items):
            if not key.is_name and key.contains(value):
                if type(value) is int:   # remember it: the same keys come up again and again
                    if self.faces is None:
                        self.faces = {}
                    if len(self.faces) < 4096:
                        self.faces[value] = item
                return item
        return _MISSING

    def find(self, value, loc, what: str):
        hit = self.lookup(value)
        if hit is _MISSING:
            raise self.miss(value, loc, what)
        return hit

    def miss(self, value, loc, what: str) -> EvalError:
        if isinstance(value, str) and not self.numeric:
            return EvalError(f"no row {value!r} in {what}", loc,
                             hint=did_you_mean(value, [k.name for k in self.keys
                                                       if k.is_name]))
        if isinstance(value, Fraction) and value.denominator != 1 and self.numeric:
            return EvalError(f"no row for {value} in {what}: its keys are whole numbers",
                             loc, hint="round the value first: floor(x), ceil(x) or round(x)")
        shown = value if not isinstance(value, str) else repr(value)
        return EvalError(f"no row for {shown} in {what}", loc,
                         hint=("the keys are " + ", ".join(k.text for k in self.keys[:12])
                               + (" ..." if len(self.keys) > 12 else ""))
                         if self.keys else None)


# ---------------------------------------------------------------------------- table


@dataclass
class ComputedCell:
    """One combination of a computed table: the inputs and the exact distribution."""

    inputs: dict
    distribution: Distribution

    @property
    def mean(self):
        return self.distribution.mean()

    @property
    def min(self):
        return self.distribution.min()

    @property
    def max(self):
        return self.distribution.max()


class Table:
    """A built table (see the module docstring).  Build with `build_table`."""

    def __init__(self, name: str, node: MapNode | None = None):
        self.name = name
        self.node = node
        self.location = node.location if node is not None else None
        self.title: str | None = None
        self.description: str = ""
        self.mode: str = "name"          # die | band | name | computed
        self.key_name: str | None = None
        self.column_key: str | None = None
        self.roll_text: str | None = None
        self.roll_node: Node | None = None
        self.roll_dist: Distribution | None = None
        self.domain: tuple[int, int] | None = None
        self.unhandled: frozenset[int] = frozenset()
        self.columns: dict[str, dict] = {}
        self.rows: list[Row] = []
        self.index: _KeyIndex | None = None
        self.column_index: _KeyIndex | None = None
        self.column_keys: list[Key] = []
        self.checks: list[dict] = []
        self.computed: dict | None = None
        self.params_env: Mapping = {}
        self._env: Mapping | None = None
        self._roll_sampler = None
        self._computed_cache: dict = {}
        self._row_columns: dict = {}

    # ----------------------------------------------------------------- environment
    def bind(self, env: Mapping) -> "Table":
        """Give formula cells the ruleset's names (tables, parameters, ...)."""
        self._env = env
        self._computed_cache.clear()
        return self

    def env(self, extra: Mapping | None = None) -> Mapping:
        maps = [m for m in (extra, self._env, self.params_env) if m]
        return ChainMap(*maps) if maps else {}

    # -------------------------------------------------------------------- labels
    @property
    def dsl_label(self) -> str:
        return f"table {self.name!r}"

    def dsl_names(self) -> list[str]:
        return [r.key for r in self.rows]

    def dsl_attr(self, name: str):
        if name == "name":
            return self.name
        if name == "description":
            return self.description
        raise KeyError(name)

    def _what(self) -> str:
        return f"table {self.name!r}"

    def _head(self) -> str:
        """`table 'layout' (1d20)` for messages."""
        if self.roll_text:
            return f"table {self.name!r} ({self.roll_text})"
        return f"table {self.name!r}"

    def __repr__(self) -> str:
        return f"<Table {self.name} ({self.mode}, {len(self.rows)} rows)>"

    # --------------------------------------------------------------------- lookup
    def dsl_index(self, key, loc: Location | None, ctx: Context | None = None):
        """`t[key]`: the row (or single value) for a face, band or name."""
        if self.mode == "computed":
            return self._computed_index(key, loc, ctx)
        if self.index is None:
            raise EvalError(f"{self._what()} has no rows", loc)
        if hasattr(key, "total") and not isinstance(key, (int, Fraction)):
            key = key.total
        row = self.index.lookup(key)
        if row is _MISSING:
            if self.mode == "die" and type(key) is int and key in self.unhandled:
                return self._roll_again(key, loc, ctx)
            raise self.index.miss(key, loc, self._what())
        if ctx is not None and ctx.record is not None:
            ctx.record.append(TableRecord(self.name, key, row.key))
        return self._result(row, ctx)

    def _result(self, row: Row, ctx: Context | None):
        if row.single:
            return self._cell_value(row, "value", row.value, ctx)
        return row if ctx is None else RolledRow(row, ctx)

    def _roll_again(self, face: int, loc, ctx: Context | None):
        """An `unhandled` face: roll the table's own die again (sampled), or the
        distribution of the handled faces (exact)."""
        if ctx is None:
            return self._conditioned_result()
        if ctx.record is not None:
            ctx.record.append(TableRecord(self.name, face, None))
        sampler = self._sampler()
        inner = Context(self.env(), ctx.rng, ctx.record)
        for _ in range(REROLL_TRIES):
            value = sampler(inner)
            if hasattr(value, "total") and not isinstance(value, (int, Fraction)):
                value = value.total
            row = self.index.lookup(value)
            if row is not _MISSING:
                if ctx.record is not None:
                    ctx.record.append(TableRecord(self.name, value, row.key))
                return self._result(row, ctx)
            if value not in self.unhandled:
                raise self.index.miss(value, loc, self._what())
            if ctx.record is not None:
                ctx.record.append(TableRecord(self.name, value, None))
        raise EvalError(f"{self._head()}: rolled again {REROLL_TRIES} times and never hit "
                        f"a row", loc)

    def _conditioned_result(self) -> Distribution:
        branches = []
        for row, p in self.row_distribution():
            if p:
                value = self._result(row, None)
                branches.append((p, value if isinstance(value, Distribution)
                                 else Distribution.constant(value)))
        if not branches:
            raise EvalError(f"{self._head()}: every face is unhandled")
        return Distribution.mix(branches)

    def _sampler(self):
        if self.roll_node is None:
            raise EvalError(f"{self._what()} has no roll: of its own")
        if self._roll_sampler is None:
            self._roll_sampler = compile_sampler(self.roll_node, record=True)
        return self._roll_sampler

    def roll_row(self, ctx: Context):
        """Roll the table's own die and look the result up (rerolling unhandled faces)."""
        value = self._sampler()(Context(self.env(), ctx.rng, ctx.record))
        return self.dsl_index(value, self.location, ctx)

    def dsl_contains(self, key) -> bool:
        """contains(t, key): whether a row answers this key (names case-insensitive)."""
        if self.index is None:
            return False
        if hasattr(key, "total") and not isinstance(key, (int, Fraction)):
            key = key.total
        try:
            return self.index.lookup(key) is not _MISSING
        except (TypeError, ValueError):
            return False

    def lookup(self, key, ctx: Context | None = None):
        """`t[key]` from Python."""
        return self.dsl_index(key, self.location, ctx)

    def row(self, key) -> Row:
        """The Row object for a key (never the bare single value)."""
        row = self.index.lookup(key) if self.index is not None else _MISSING
        if row is _MISSING:
            raise self.index.miss(key, None, self._what()) if self.index else \
                EvalError(f"{self._what()} has no rows")
        return row

    def row_column_index(self, row: Row) -> "_KeyIndex":
        """The column keys of one row of a two-dimensional table (rows may band their
        columns differently: "6-8" in one row, "6-9" in the next)."""
        index = self._row_columns.get(row)
        if index is None:
            keys = [parse_key(c) if self.column_index.numeric else Key(c, name=c.strip())
                    for c in row.cells]
            index = _KeyIndex(f"the columns of {row.dsl_label}", keys, keys,
                              self.column_index.numeric)
            self._row_columns[row] = index
        return index

    # ---------------------------------------------------------------------- cells
    def _cell_value(self, row: Row, column: str, cell, ctx: Context | None,
                    base: Mapping | None = None, active: frozenset = frozenset()):
        """A cell's value: constants as they are; formulas sampled with ctx, or exactly
        (a constant, or a Distribution when the formula is random)."""
        if isinstance(cell, Formula):
            global _depth
            if _depth >= MAX_CELL_DEPTH:
                raise LimitError(f"formula cells nest deeper than {MAX_CELL_DEPTH} levels "
                                 f"(in {row.dsl_label}, column {column!r}); does a table "
                                 f"roll on itself?", cell.location)
            _depth += 1
            try:
                return self._formula_value(row, column, cell, ctx, base, active)
            finally:
                _depth -= 1
        if isinstance(cell, BrokenCell):
            raise cell.error
        if isinstance(cell, list):
            return [self._cell_value(row, column, c, ctx, base, active) for c in cell]
        if isinstance(cell, dict):
            return {k: self._cell_value(row, column, c, ctx, base, active)
                    for k, c in cell.items()}
        return cell

    def _formula_value(self, row: Row, column: str, cell: "Formula", ctx: Context | None,
                       base: Mapping | None, active: frozenset):
        env = _RowEnv(row, column, base if base is not None else self.env(), ctx, active)
        if ctx is not None:
            return cell.sample(Context(env, ctx.rng, ctx.record))
        dist = exact(cell.node, env)
        if len(dist) == 1 and not dist.capped:
            return dist.values()[0]
        return dist

    # ---------------------------------------------------------------------- odds
    def face_distribution(self) -> Distribution | None:
        return self.roll_dist

    def key_probability(self, row: Row) -> Fraction | None:
        """The raw chance that the table's roll lands in this row's key."""
        if self.roll_dist is None:
            return None
        return sum((Fraction(w, self.roll_dist.total) for v, w in self.roll_dist.items()
                    if type(v) is int and row.parsed.contains(v)), Fraction(0))

    def unhandled_probability(self) -> Fraction:
        if self.roll_dist is None:
            return Fraction(0)
        return sum((Fraction(w, self.roll_dist.total) for v, w in self.roll_dist.items()
                    if v in self.unhandled), Fraction(0))

    def row_distribution(self) -> list[tuple[Row, Fraction]]:
        """The exact chance of ending on each row when the table's own roll is made
        ("roll again" faces rerolled, i.e. conditioned away).  Rows in table order."""
        if self.roll_dist is None:
            raise EvalError(f"{self._what()} has no roll: of its own, so its rows have no odds")
        handled = 1 - self.unhandled_probability()
        if handled == 0:
            raise EvalError(f"{self._head()}: every face is unhandled")
        return [(row, self.key_probability(row) / handled) for row in self.rows]

    # ------------------------------------------------------------------- computed
    def _computed_index(self, key, loc, ctx):
        inputs = list(self.computed["over"])
        return _ComputedLookup(self, inputs, {}).dsl_index(key, loc, ctx)

    def computed_cells(self, extra_env: Mapping | None = None) -> list[ComputedCell]:
        """Every combination of a computed table's inputs with its exact distribution."""
        if self.computed is None:
            raise EvalError(f"{self._what()} is not a computed table")
        cache_key = tuple(sorted((k, repr(v)) for k, v in (extra_env or {}).items()))
        if cache_key in self._computed_cache:
            return self._computed_cache[cache_key]
        over = self.computed["over"]
        names = list(over)
        cells = []
        env = self.env(extra_env)
        for combo in product(*(over[n] for n in names)):
            inputs = dict(zip(names, combo))
            dist = exact(self.computed["node"], ChainMap(inputs, env))
            cells.append(ComputedCell(inputs, dist))
        self._computed_cache[cache_key] = cells
        return cells


class _ComputedLookup:
    """`t[a][b]` on a computed table: binds inputs one index at a time."""

    def __init__(self, table: Table, names: list[str], bound: dict):
        self.table, self.names, self.bound = table, names, bound

    @property
    def dsl_label(self):
        return f"table {self.table.name!r} with {self.bound}"

    def dsl_index(self, key, loc, ctx):
        name = self.names[len(self.bound)]
        if key not in self.table.computed["over"][name]:
            raise EvalError(f"{name} = {key} is outside the range of computed table "
                            f"{self.table.name!r}", loc)
        bound = {**self.bound, name: key}
        if len(bound) < len(self.names):
            return _ComputedLookup(self.table, self.names, bound)
        formula = self.table.computed["formula"]
        env = ChainMap(bound, self.table.env())
        if ctx is None:
            dist = exact(formula.node, env)
            return dist.values()[0] if len(dist) == 1 else dist
        return formula.sample(Context(env, ctx.rng, ctx.record))


# ------------------------------------------------------------------------- building


class _Builder:
    def __init__(self, name: str, node: MapNode, params_env: Mapping):
        self.name = name
        self.node = node
        self.table = Table(name, node)
        self.table.params_env = params_env or {}
        self.findings: list[Finding] = []

    # -- helpers
    def add(self, code: str, message: str, location: Location | None,
            severity: str = "error", hint: str | None = None) -> None:
        self.findings.append(Finding(severity, code, message, location, hint))

    def error_finding(self, err: RulecraftError) -> None:
        self.findings.append(Finding.from_error(err))

    def formula(self, scalar: ScalarNode, text: str, offset: int) -> Formula | BrokenCell:
        loc = scalar.location_at(offset) if hasattr(scalar, "location_at") else scalar.location
        try:
            node = parse_expression(text, loc)
        except RulecraftError as err:
            self.error_finding(err)
            return BrokenCell(text, err)
        return Formula(text, node, loc)

    def plain(self, node: YNode | None, default=None):
        return node.to_plain() if node is not None else default

    # -- the build
    def build(self) -> Table:
        t, node = self.table, self.node
        if not isinstance(node, MapNode):
            self.add("table-empty", f"table {self.name!r} must be a mapping with rows",
                     getattr(node, "location", None))
            return t
        t.title = _text(node.get("title"))
        t.description = _text(node.get("description")) or ""
        self.read_columns()
        if "computed" in node:
            self.read_computed()
            return t
        if "roll" in node:
            self.read_roll()
            t.mode = "die"
        t.key_name = _text(node.get("key"))
        t.column_key = _text(node.get("column_key"))
        self.read_domain()
        rows = node.get("rows")
        if not isinstance(rows, MapNode) or not len(rows):
            self.add("table-empty", f"table {self.name!r} has no rows",
                     rows.location if rows is not None else node.location)
            return t
        keys = self.read_keys(rows)
        self.read_rows(rows, keys)
        self.read_unhandled()
        if t.mode == "die":
            self.check_die()
        elif t.mode == "band":
            self.check_bands()
        self.read_checks()
        return t

    def read_columns(self) -> None:
        cols = self.node.get("columns")
        if cols is None:
            return
        if not isinstance(cols, MapNode):
            self.add("table-type", f"table {self.name!r}: columns must be a mapping",
                     cols.location)
            return
        for cname, spec in cols.items():
            info: dict = {"location": cols.key_location(cname)}
            if isinstance(spec, MapNode):
                tnode = spec.get("type")
                if tnode is not None:
                    ctype = tnode.to_plain()
                    if ctype not in COLUMN_TYPES:
                        self.add("table-type",
                                 f"table {self.name!r}: column {cname!r} has unknown type "
                                 f"{ctype!r}", tnode.location,
                                 hint="types: " + ", ".join(COLUMN_TYPES))
                    else:
                        info["type"] = ctype
                if "default" in spec:
                    info["default"] = _plain_tree(spec["default"].to_plain())
                if "description" in spec:
                    info["description"] = _text(spec["description"])
            elif isinstance(spec, ScalarNode) and spec.value in COLUMN_TYPES:
                info["type"] = spec.value  # shorthand: `damage: integer`
            self.table.columns[cname] = info

    def read_roll(self) -> None:
        t = self.table
        rnode = self.node["roll"]
        text = str(rnode.to_plain())
        t.roll_text = text
        cell = self.formula(rnode, text, 0) if isinstance(rnode, ScalarNode) else None
        if not isinstance(cell, Formula):
            return
        t.roll_node = cell.node
        try:
            dist = exact(cell.node, self.table.params_env)
        except RulecraftError as err:
            self.add("table-roll", f"{t._head()}: cannot work out the faces of the roll: "
                     f"{err.message}", rnode.location)
            return
        if any(type(v) is not int for v in dist.values()):
            self.add("table-roll", f"{t._head()}: the roll must give whole numbers",
                     rnode.location)
            return
        t.roll_dist = dist

    def read_domain(self) -> None:
        dnode = self.node.get("domain")
        if dnode is None:
            return
        value = dnode.to_plain()
        if (isinstance(value, list) and len(value) == 2
                and all(type(v) is int for v in value) and value[0] <= value[1]):
            self.table.domain = (value[0], value[1])
        else:
            self.add("table-key", f"table {self.name!r}: domain must be [low, high] with "
                     f"whole numbers, low <= high", dnode.location)

    def read_keys(self, rows: MapNode) -> list[Key]:
        t = self.table
        parsed = {k: numeric_key(k) for k in rows}
        numeric_count = sum(1 for k, (key, _) in parsed.items() if key is not None)
        if t.mode != "die":
            if t.key_name == "name" or numeric_count == 0:
                t.mode = "name"
            else:
                t.mode = "band"
        keys = []
        for k in rows:
            key, why = parsed[k]
            if t.mode == "name":
                keys.append(Key(k, name=k.strip()))
                continue
            if key is None:
                kind = "a face" if t.mode == "die" else "a band"
                self.add("table-key", f"{t._head()}: row key {k!r} is not {kind}: {why}",
                         rows.key_location(k))
                keys.append(Key(k, name=k.strip()))
                continue
            keys.append(key)
        if t.mode == "name":
            seen: dict[str, str] = {}
            for key in keys:
                folded = key.name.casefold()
                if folded in seen:
                    self.add("table-overlap", f"table {self.name!r}: rows {seen[folded]!r} "
                             f"and {key.text!r} have the same name (names ignore case)",
                             rows.key_location(key.text))
                seen.setdefault(folded, key.text)
        return keys

    def read_rows(self, rows: MapNode, keys: list[Key]) -> None:
        t = self.table
        if t.column_key is not None:
            self.read_column_keys(rows)
        for key, (ktext, vnode) in zip(keys, rows.items()):
            if isinstance(vnode, MapNode):
                cells = {}
                for cname, cnode in vnode.items():
                    if t.column_key is None and t.columns and cname not in t.columns:
                        self.add("table-column",
                                 f"table {self.name!r} row {ktext!r}: column {cname!r} is not "
                                 f"declared in columns:", vnode.key_location(cname),
                                 hint=did_you_mean(cname, list(t.columns)))
                    cells[cname] = self.cell(cnode, t.columns.get(cname), ktext, cname)
                row = Row(t, key, cells, _MISSING, vnode, rows.key_location(ktext))
            else:
                col = None
                if len(t.columns) == 1:
                    col = next(iter(t.columns.values()))
                value = self.cell(vnode, col, ktext, next(iter(t.columns), "value"))
                row = Row(t, key, None, value, vnode, rows.key_location(ktext))
            t.rows.append(row)
        t.index = _KeyIndex(t._what(), [r.parsed for r in t.rows], t.rows,
                            numeric=t.mode in ("die", "band"))

    def read_column_keys(self, rows: MapNode) -> None:
        t = self.table
        texts: list[str] = []
        for vnode in rows.values():
            if isinstance(vnode, MapNode):
                for c in vnode:
                    if c not in texts:
                        texts.append(c)
        parsed = [numeric_key(c)[0] for c in texts]
        numeric = bool(texts) and all(p is not None for p in parsed) and \
            t.column_key != "name"
        keys = [p if numeric else Key(c, name=c.strip()) for c, p in zip(texts, parsed)]
        t.column_keys = keys
        t.column_index = _KeyIndex(f"the columns of {t._what()}", keys, keys, numeric)

    def cell(self, node: YNode, column: dict | None, row_key: str, cname: str):
        ctype = (column or {}).get("type")
        if ctype == "steps":
            if isinstance(node, (SeqNode, ScalarNode)) or isinstance(node, MapNode):
                return StepsCell(node)
        value = self.raw_cell(node)
        if ctype and ctype != "any" and not self.type_ok(value, ctype):
            self.add("table-type",
                     f"table {self.name!r} row {row_key!r}: {cname} should be {_a(ctype)} "
                     f"but is {_describe_cell(value)}", node.location)
        return value

    def raw_cell(self, node: YNode):
        if isinstance(node, ScalarNode):
            value = node.value
            if isinstance(value, str) and value.startswith("="):
                return self.formula(node, value[1:], 1)
            return _plain_scalar(value)
        if isinstance(node, SeqNode):
            return [self.raw_cell(item) for item in node]
        if isinstance(node, MapNode):
            return {k: self.raw_cell(v) for k, v in node.items()}
        return node.to_plain()

    @staticmethod
    def type_ok(value, ctype: str) -> bool:
        if isinstance(value, (Formula, BrokenCell)) or value is None:
            return True
        if ctype == "integer":
            return type(value) is int
        if ctype == "number":
            return type(value) in (int, Fraction, float)
        if ctype == "boolean":
            return type(value) is bool
        if ctype == "text":
            return isinstance(value, str)
        if ctype == "list":
            return isinstance(value, list)
        if ctype == "record":
            return isinstance(value, dict)
        return True

    def read_unhandled(self) -> None:
        t = self.table
        unode = self.node.get("unhandled")
        if unode is None:
            return
        items = list(unode) if isinstance(unode, SeqNode) else [unode]
        faces: set[int] = set()
        for item in items:
            key, why = numeric_key(item.to_plain())
            if key is None or not key.bounded:
                self.add("table-unhandled", f"{t._head()}: unhandled entry "
                         f"{item.to_plain()!r} is not a face or a range of faces"
                         + (f" ({why})" if why else ""), item.location)
                continue
            faces.update(range(key.lo, key.hi + 1))
        t.unhandled = frozenset(faces)
        if t.mode != "die":
            self.add("table-unhandled", f"table {self.name!r}: unhandled: only applies to "
                     f"tables with a roll:", unode.location)

    # -- checks
    def check_die(self) -> None:
        t = self.table
        if t.roll_dist is None:
            return
        faces = t.roll_dist.values()
        face_set = set(faces)
        rows_node = self.node["rows"]
        covered: dict[int, Row] = {}
        reported_pairs: dict[tuple[str, str], list[int]] = {}
        for row in t.rows:
            key = row.parsed
            if key.is_name:
                continue
            inside = key.faces(faces)
            if key.bounded:
                outside = [v for v in range(key.lo, key.hi + 1) if v not in face_set]
            else:
                outside = []
            if outside or not inside:
                what = (f"covers {format_values(outside)}, which {t.roll_text} cannot roll"
                        if outside else f"covers no face that {t.roll_text} can roll")
                self.add("table-key-outside",
                         f"{t._head()}: row {row.key!r} {what} (faces {_span(face_set)})",
                         row.key_location)
            for f in inside:
                if f in covered:
                    pair = (covered[f].key, row.key)
                    reported_pairs.setdefault(pair, []).append(f)
                else:
                    covered[f] = row
        for (a, b), fs in reported_pairs.items():
            self.add("table-overlap",
                     f"{t._head()}: rows {a!r} and {b!r} both cover {format_values(fs)}",
                     rows_node.key_location(b))
        gap = [f for f in faces if f not in covered and f not in t.unhandled]
        if gap:
            self.add("table-gap", f"{t._head()}: no row for {format_values(gap)}",
                     rows_node.location,
                     hint="add rows for them, or declare them `unhandled:` (roll again)")
        bad_unhandled = sorted(f for f in t.unhandled if f in covered)
        if bad_unhandled:
            self.add("table-unhandled",
                     f"{t._head()}: {format_values(bad_unhandled)} declared unhandled but "
                     f"covered by a row", self.node["unhandled"].location)
        off_die = sorted(f for f in t.unhandled if f not in face_set)
        if off_die:
            self.add("table-unhandled",
                     f"{t._head()}: unhandled {format_values(off_die)} cannot be rolled on "
                     f"{t.roll_text} (faces {_span(face_set)})",
                     self.node["unhandled"].location)
        # a face -> row map for fast lookups (other values are found by scanning)
        t.index.faces = dict(covered)

    def check_bands(self) -> None:
        t = self.table
        rows_node = self.node["rows"]
        bands = [r for r in t.rows if not r.parsed.is_name]
        if not bands:
            return
        NEG, POS = -math.inf, math.inf

        def lo(r):
            return NEG if r.parsed.lo is None else r.parsed.lo

        def hi(r):
            return POS if r.parsed.hi is None else r.parsed.hi

        # order: ascending or descending, as the first two bands say
        if len(bands) >= 2:
            ascending = lo(bands[1]) >= lo(bands[0])
            for prev, cur in zip(bands, bands[1:]):
                ok = lo(cur) >= lo(prev) if ascending else lo(cur) <= lo(prev)
                if not ok:
                    self.add("table-band-order",
                             f"table {self.name!r}: row {cur.key!r} is out of order after "
                             f"{prev.key!r} (bands run {'up' if ascending else 'down'} from "
                             f"{bands[0].key!r})", cur.key_location)
                    break
        ordered = sorted(bands, key=lambda r: (lo(r), hi(r)))
        # overlaps: sweep with the band reaching furthest so far
        reach = None
        for cur in ordered:
            if reach is not None and hi(reach) >= lo(cur):
                a, b = max(lo(cur), lo(reach)), min(hi(cur), hi(reach))
                self.add("table-overlap",
                         f"table {self.name!r}: rows {reach.key!r} and {cur.key!r} both "
                         f"cover {_interval_text(a, b)}", cur.key_location)
            if reach is None or hi(cur) > hi(reach):
                reach = cur
        # gaps over the domain, or between the bounded ends
        if t.domain is not None:
            d_lo, d_hi = t.domain
        else:
            finite = [v for r in bands for v in (r.parsed.lo, r.parsed.hi) if v is not None]
            d_lo, d_hi = min(finite), max(finite)
        missing: list[tuple] = []
        cursor = d_lo
        for cur in ordered:
            if lo(cur) > cursor and cursor <= d_hi:
                missing.append((cursor, min(lo(cur) - 1, d_hi)))
            if hi(cur) + 1 > cursor:
                cursor = hi(cur) + 1
        if cursor <= d_hi:
            missing.append((cursor, d_hi))
        if missing:
            values = []
            for a, b in missing:
                values.extend(range(int(a), int(b) + 1))
            self.add("table-band-gap", f"table {self.name!r}: no row for "
                     f"{format_values(values)}", rows_node.location)
        if t.domain is not None:
            for r in bands:
                if hi(r) < d_lo or lo(r) > d_hi:
                    self.add("table-key-outside",
                             f"table {self.name!r}: row {r.key!r} lies outside the domain "
                             f"{d_lo}-{d_hi}", r.key_location)

    def read_checks(self) -> None:
        t = self.table
        cnode = self.node.get("checks")
        if cnode is None:
            return
        if not isinstance(cnode, SeqNode):
            self.add("table-check", f"table {self.name!r}: checks must be a list",
                     cnode.location)
            return
        for item in cnode:
            if not isinstance(item, MapNode) or "column" not in item or "formula" not in item:
                self.add("table-check", f"table {self.name!r}: a check needs column: and "
                         f"formula:", item.location)
                continue
            column = str(item["column"].to_plain())
            fnode = item["formula"]
            text = str(fnode.to_plain())
            offset = 1 if text.startswith("=") else 0
            formula = self.formula(fnode, text[offset:], offset) \
                if isinstance(fnode, ScalarNode) else None
            severity = str(item["severity"].to_plain()) if "severity" in item else "warning"
            severity = "error" if severity == "error" else "warning"
            t.checks.append({"column": column, "formula": formula, "severity": severity,
                             "text": text[offset:].strip()})
            if isinstance(formula, Formula):
                self.run_check(column, formula, severity, text[offset:].strip())

    def run_check(self, column: str, formula: Formula, severity: str, text: str) -> None:
        t = self.table
        for row in t.rows:
            if row.cells is None or column not in row.cells:
                continue
            cell = row.cells[column]
            try:
                printed = t._cell_value(row, column, cell, None)
                dist = exact(formula.node, _RowEnv(row, None, t.env(), None))
            except RulecraftError as err:
                self.add("table-check", f"table {self.name!r} row {row.key!r}: the check of "
                         f"{column} cannot be evaluated: {err.message}",
                         err.location or formula.location, severity, err.hint)
                if isinstance(err, NameError_):
                    return  # the formula itself is wrong: once is enough
                continue
            if len(dist) != 1:
                self.add("table-check", f"table {self.name!r}: check formula for {column} "
                         f"rolls dice; it must give one value", formula.location, severity)
                return
            expected = dist.values()[0]
            if not _same(printed, expected):
                cell_node = row.node[column] if isinstance(row.node, MapNode) else row.node
                self.add("table-check",
                         f"table {self.name!r} row {row.key!r}: {column} is "
                         f"{display_value(printed)} but {text} gives "
                         f"{display_value(expected)}", cell_node.location, severity)

    def read_computed(self) -> None:
        t = self.table
        t.mode = "computed"
        cnode = self.node["computed"]
        if not isinstance(cnode, MapNode) or "formula" not in cnode or "over" not in cnode:
            self.add("table-computed", f"table {self.name!r}: computed: needs formula: and "
                     f"over:", cnode.location)
            return
        fnode = cnode["formula"]
        text = str(fnode.to_plain())
        offset = 1 if text.startswith("=") else 0
        formula = self.formula(fnode, text[offset:], offset)
        over: dict[str, list] = {}
        onode = cnode["over"]
        if not isinstance(onode, MapNode) or not len(onode):
            self.add("table-computed", f"table {self.name!r}: over: must map each input to "
                     f"a range [low, high] or a list of values", onode.location)
            return
        size = 1
        for name, rnode in onode.items():
            values = _range_values(rnode.to_plain())
            if values is None:
                self.add("table-computed", f"table {self.name!r}: the range of {name!r} must "
                         f"be [low, high], \"low-high\" or a list of values", rnode.location)
                return
            over[name] = values
            size *= len(values)
        if size > MAX_COMPUTED_CELLS:
            self.add("table-computed", f"table {self.name!r}: {size:,} combinations is more "
                     f"than the limit of {MAX_COMPUTED_CELLS:,}", onode.location)
            return
        if isinstance(formula, Formula):
            t.computed = {"formula": formula, "node": formula.node, "over": over,
                          "text": text[offset:].strip()}


def build_table(name: str, node: MapNode, params_env: Mapping | None = None
                ) -> tuple[Table, list[Finding]]:
    """Build one table from its located YAML node.  Problems come back as findings."""
    builder = _Builder(name, node, params_env or {})
    try:
        table = builder.build()
    except RulecraftError as err:  # pragma: no cover - defensive: never raise to callers
        builder.error_finding(err)
        table = builder.table
    return table, builder.findings


# ------------------------------------------------------------------------- helpers


def _text(node: YNode | None) -> str | None:
    if node is None:
        return None
    value = node.to_plain()
    return None if value is None else str(value)


def _plain_tree(value):
    if isinstance(value, list):
        return [_plain_tree(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain_tree(v) for k, v in value.items()}
    return _plain_scalar(value)


def _a(ctype: str) -> str:
    return {"integer": "an integer", "number": "a number", "boolean": "true or false",
            "text": "text", "list": "a list", "record": "a record"}.get(ctype, ctype)


def _describe_cell(value) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, (int, Fraction)):
        return f"the number {display_value(value)}"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a record"
    if value is None:
        return "empty"
    return repr(value)


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    try:
        return a == b
    except Exception:  # pragma: no cover
        return False


def _span(faces: set[int]) -> str:
    lo, hi = min(faces), max(faces)
    if len(faces) == hi - lo + 1:
        return f"{lo}-{hi}"
    return format_values(faces)


def _interval_text(a, b) -> str:
    if a == -math.inf and b == math.inf:
        return "every value"
    if a == -math.inf:
        return f"{b} or less"
    if b == math.inf:
        return f"{a} or more"
    return format_values(range(int(a), int(b) + 1))


def _range_values(value) -> list | None:
    if isinstance(value, list):
        if len(value) == 2 and all(type(v) is int for v in value) and value[0] <= value[1]:
            return list(range(value[0], value[1] + 1))
        if value and all(isinstance(v, (int, str)) and not isinstance(v, bool) for v in value):
            return list(value)
        return None
    if isinstance(value, str):
        key, _ = numeric_key(value)
        if key is not None and key.bounded:
            return list(range(key.lo, key.hi + 1))
    if type(value) is int:
        return [value]
    return None


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


@dataclass
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
    return ResolvedTable(table.name, _title(table), table.description, columns, rows,
                         table.mode if table.column_key is None else "two-dimensional",
                         odds_rows, sorted(needs), notes)


def _fraction(p: Fraction) -> str:
    p = Fraction(p)
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def _resolve_cell(table: Table, row: Row, column: str, cell, env: Mapping,
                  needs: set[str]) -> str:
    if isinstance(cell, BrokenCell):
        return "=" + cell.text
    if isinstance(cell, Formula):
        try:
            dist = exact(cell.node, _RowEnv(row, column, env, None))
        except NameError_ as err:
            missing = re.search(r"unknown name '([^']+)'", err.message)
            if missing:
                needs.add(missing.group(1))
            return "=" + cell.text.strip()
        except RulecraftError:
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
    from .dsl import Call
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
