"""Table cells and rows: formula, steps and broken cells, records, rows as the DSL reads them.

A formula cell (`"=2d6 + strength"`) is a DSL expression parsed once at build time and
evaluated on each read with the row's other columns, then the table's environment, as
names (`RowEnv`).  A `Row` is hashable by identity (one object per row), so that exact
distributions can hold rows; `RolledRow` is a row as one roll left it (its formula cells
read once), `ConstantRow` one whose cells cannot vary.  The `Table` that owns them is in
model.py.
"""

from ..records import record, field
from fractions import Fraction
from typing import Any, Iterator, Mapping

from ..dice.distribution import Distribution
from ..lang.ast import Binary, Dice, Node, Num, Unary, walk
from ..errors import EvalError, Location, RulecraftError
from ..expr.sampled import Context, compile_sampler
from ..source.nodes import Node as YNode
from ..suggest import did_you_mean
from .keys import Key

# cells that are their own value (no formula, no nested list or record to resolve)
_PLAIN_CELLS = frozenset((int, bool, str, float, Fraction, type(None)))



# -------------------------------------------------------------------------- cells

NOT_LITERAL = object()   # Formula.literal: a formula that reads names, rolls or calls
_LITERAL_NODES = frozenset((Num, Unary, Binary))


class Formula:
    """A `=expression` cell: parsed once; compiled to a sampler on first use."""

    __slots__ = ("text", "node", "location", "_sampler", "_literal", "reference")

    def __init__(self, text: str, node: Node, location: Location | None):
        self.text = text
        self.node = node
        self.location = location
        self._sampler = None
        self._literal = None   # not worked out yet; then (value,) or () (see `literal`)
        self.reference = None   # the row it names, as Table.referenced_row found it

    def literal(self):
        """The value of a formula of numbers alone (`"=1/2"`: no name, no die, no call),
        worked out once, since every read gives the same; NOT_LITERAL for any other
        formula, or one whose arithmetic fails (read as before, it says why where it is
        read)."""
        # kept as a tuple, not a marker object: a ruleset's model is pickled (the
        # checked model's cache), and a marker would not be itself once unpickled
        if self._literal is None:
            self._literal = ()
            if all(n.__class__ in _LITERAL_NODES for n in walk(self.node)):
                try:
                    self._literal = (self.sample(Context({}, None, None)),)
                except Exception:   # noqa: BLE001 -- read again each time, which raises
                    self._literal = ()
        return self._literal[0] if self._literal else NOT_LITERAL

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


# --------------------------------------------------------------------------- records


def plain_found(row) -> Any:
    """A single-value row's value when it is plain data (a formula cell is shown by its
    own roll records instead)."""
    value = row.value if row.single else None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    return value


@record
class TableRecord:
    """A transcript entry: a lookup on `table` with `key_used` hit the row `row_key`
    (None: the face is `unhandled` and the table's die is rolled again)."""

    table: str
    key_used: Any
    row_key: str | None
    found: Any = None   # the value of a single-value row (what the table says: 4 for "4+")
    kind: str = field(default="table", init=False)

    def as_json(self) -> dict:
        key = self.key_used
        if isinstance(key, Fraction):
            key = str(key) if key.denominator != 1 else key.numerator
        found = {"kind": "table", "table": self.table, "key": key, "row": self.row_key}
        if self.row_key is None:
            found["unhandled"] = True
        if self.found is not None:
            found["value"] = self.found
        return found

    @property
    def text(self) -> str:
        """`to_hit[3] -> 4`: what the table says for the key (the row too when the key
        fell in a band, `to_hit[7] (row 5+) -> 2`); a row of several columns, or a
        formula cell whose own rolls follow, by its key: `glancing[1] -> row 1-2`."""
        head = f"{self.table}[{self.key_used}]"
        if self.row_key is None:
            return f"{head} -> {UNHANDLED_TEXT}"
        if self.found is None:
            return f"{head} -> row {self.row_key}"
        band = "" if str(self.row_key) == str(self.key_used) else f" (row {self.row_key})"
        return f"{head}{band} -> {self.found}"


UNHANDLED_TEXT = "unhandled, rolled again"
"""What a transcript says for a face a table leaves unhandled ("roll again")."""


# ------------------------------------------------------------------------------ rows


class Row:
    """One row of a table.  Hashable by identity: the table builds one object per row.

    DSL: `row.column` (`dsl_attr`), `row[column_key]` in a two-dimensional table
    (`dsl_index`), plus the pseudo-fields `key` (and `name` in a name table) when no
    column has that name.
    """

    __slots__ = ("table", "key", "parsed", "cells", "value", "location", "key_location",
                 "node", "__weakref__")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        """A row is rule data no step can change: copies of a world (exact odds'
        branches) share it, as they share the table, instead of copying the table."""
        return self

    def __init__(self, table, key: Key, cells: dict[str, Any] | None,
                 value: Any, node: YNode | None, key_location: Location | None):
        self.table = table
        self.key = key.text
        self.parsed = key
        self.cells = cells          # column -> cell, or None for a single-value row
        self.value = value          # the cell of a single-value row (else MISSING)
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
            cell = cells[name]
            if cell.__class__ in _PLAIN_CELLS:   # a constant: what _cell_value would give
                return cell
            return self.table._cell_value(self, name, cell, ctx)
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


def varies(cell) -> bool:
    """Whether a cell's value can differ between reads (a formula, or a broken one)."""
    if isinstance(cell, (Formula, BrokenCell)):
        return True
    if isinstance(cell, dict):
        return any(varies(c) for c in cell.values())
    if isinstance(cell, list):
        return any(varies(c) for c in cell)
    return False


class RolledRow:
    """A row reached by a sampled lookup: the same row, carrying the run's context so
    that reading a dice cell (`t[d6].damage` with damage "=2d6") rolls with the run's
    RNG and records in its transcript.  Equal to (and hashed like) its `Row`."""

    __slots__ = ("row", "ctx")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        """Shared like its row (and the run's context is not the world's to copy)."""
        return self

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

    # The row's own attributes, read from the row.  Named one by one rather than by a
    # `__getattr__`: a class with one has every attribute read through it (Python then
    # cannot specialise a read of `values`, a ConstantRow's slot, which the generated
    # code makes at every cell it reads: hundreds a game).
    table = property(lambda self: self.row.table)
    key = property(lambda self: self.row.key)
    parsed = property(lambda self: self.row.parsed)
    cells = property(lambda self: self.row.cells)
    value = property(lambda self: self.row.value)
    node = property(lambda self: self.row.node)
    location = property(lambda self: self.row.location)
    key_location = property(lambda self: self.row.key_location)
    single = property(lambda self: self.row.single)
    attr = property(lambda self: self.row.attr)
    cell_at = property(lambda self: self.row.cell_at)
    get = property(lambda self: self.row.get)

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


class ConstantRow(RolledRow):
    """A row of a `Table.constant` table reached without a transcript: its cells that
    are plain values (text, numbers, truth values, steps) read straight from a dict."""

    __slots__ = ("values",)

    def __init__(self, row: Row):
        super().__init__(row, None)
        self.values = {k: v for k, v in (row.cells or {}).items()
                       if type(v) in (str, int, bool, float, Fraction, StepsCell)}

    def dsl_attr(self, name: str):
        values = self.values
        if name in values:
            return values[name]
        return self.row.attr(name, None)


class RowEnv(Mapping):
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
        column = self.row.table.columns.get(name)
        if name != self.skip and column is not None and "default" in column:
            return column["default"]   # as `row.name` reads it
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


# ---------------------------------------------------------------------------- table


@record
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
