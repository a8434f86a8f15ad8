"""Built tables at run time: lookups from the DSL, odds (cells and rows: rows.py).

A `Table` is made by `build_table` (build.py) and read by the DSL: `t[key]`
(`Table.dsl_index`), `row.column`, `row[column_key]`, `roll(t)`, `contains(t, key)`.

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
"""
from __future__ import annotations

from collections import ChainMap
from fractions import Fraction
from itertools import product
from typing import Mapping

from ..dice.distribution import Distribution
from ..lang.ast import Index, Name, Node, Num, Text
from ..errors import EvalError, LimitError, Location
from ..expr.sampled import Context, compile_sampler
from ..source.nodes import MapNode
from .keys import Key, KeyIndex, MISSING, parse_key
from .rows import (NOT_LITERAL, BrokenCell, ComputedCell, ConstantRow, Formula, RolledRow,
                   Row, RowEnv, TableRecord, plain_found, varies)


# The exact-odds modules' entry points, bound by `_load_exact` where an enumeration
# first needs them (a sampled game never loads those modules; a function-level import
# would cost about a microsecond on every call of these hot paths).
exact = None


def _load_exact() -> None:
    global exact
    from ..expr.exact import exact

REROLL_TRIES = 100          # "roll again" attempts in sampled mode before giving up
MAX_CELL_DEPTH = 24         # formula cells evaluated inside one another (nested rolls)

_depth = 0                  # current nesting of formula-cell evaluation


class Table:
    """A built table (its kinds: see build.py).  Build with `build_table`."""

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
        self.index: KeyIndex | None = None
        self.column_index: KeyIndex | None = None
        self.column_keys: list[Key] = []
        self.checks: list[dict] = []
        self.computed: dict | None = None
        self.params_env: Mapping = {}
        self._env: Mapping | None = None
        self._roll_sampler = None
        self._computed_cache: dict = {}
        self._row_columns: dict = {}
        self._memo: dict = {}            # key -> result, for `constant` tables (codegen)
        self._constant: bool | None = None

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
        if row is MISSING:
            if self.mode == "die" and type(key) is int and key in self.unhandled:
                return self._roll_again(key, loc, ctx)
            raise self.index.miss(key, loc, self._what())
        if ctx is not None and ctx.record is not None:
            ctx.record.append(TableRecord(self.name, key, row.key, plain_found(row)))
        return self._result(row, ctx)

    @property
    def constant(self) -> bool:
        """Whether every lookup gives the same value each time, whatever the run: no
        formula cells (which may roll), no computed rows, no faces to roll again."""
        if self._constant is None:
            self._constant = (self.mode in ("die", "band", "name") and self.index is not None
                              and not self.unhandled
                              and not any(varies(row.value) or varies(row.cells)
                                          for row in self.rows))
        return self._constant

    def constant_lookup(self, key, loc: Location | None):
        """`t[key]` on a `constant` table, in a run without a transcript: what
        `dsl_index` gives there (a row reached this way reads its cells as they are)."""
        value = self.dsl_index(key, loc, None)
        return ConstantRow(value) if type(value) is Row else value

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
            if row is not MISSING:
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
            return self.index.lookup(key) is not MISSING
        except (TypeError, ValueError):
            return False

    def lookup(self, key, ctx: Context | None = None):
        """`t[key]` from Python."""
        return self.dsl_index(key, self.location, ctx)

    def row(self, key) -> Row:
        """The Row object for a key (never the bare single value)."""
        row = self.index.lookup(key) if self.index is not None else MISSING
        if row is MISSING:
            raise self.index.miss(key, None, self._what()) if self.index else \
                EvalError(f"{self._what()} has no rows")
        return row

    def row_column_index(self, row: Row) -> "KeyIndex":
        """The column keys of one row of a two-dimensional table (rows may band their
        columns differently: "6-8" in one row, "6-9" in the next)."""
        index = self._row_columns.get(row)
        if index is None:
            keys = [parse_key(c) if self.column_index.numeric else Key(c, name=c.strip())
                    for c in row.cells]
            index = KeyIndex(f"the columns of {row.dsl_label}", keys, keys,
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
        if ctx is not None:
            value = cell.literal()
            if value is not NOT_LITERAL:
                return value
            if ctx.record is None and base is None:
                named = self.referenced_row(row, column, cell)
                if named is not None:
                    return RolledRow(named, ctx)
        env = RowEnv(row, column, base if base is not None else self.env(), ctx, active)
        if ctx is not None:
            return cell.sample(Context(env, ctx.rng, ctx.record))
        if exact is None:   # the exact-odds modules, loaded at first use
            _load_exact()
        dist = exact(cell.node, env)
        if len(dist) == 1 and not dist.capped:
            return dist.values()[0]
        return dist

    def referenced_row(self, row: Row, column: str, cell: "Formula") -> Row | None:
        """The row a formula cell `=standard_weapons[1]` names -- a row of a table of
        the ruleset by a literal key (a weapon's profile kept in another table) -- or None
        for any other formula.  Read without a transcript, such a cell is what the
        lookup gives there, the row with the run's dice (`_result`), and the lookup
        gives the same row every time: the key is a literal and a table's rows never
        change.  So the row is found once (by the same names the formula would see:
        the row's other columns and their defaults hide a table of the same name) and
        kept for the table's environment it was found in."""
        kept = cell.reference
        if kept is not None and kept[0] is self._env and kept[1] is self.params_env:
            return kept[2]
        found = None
        node = cell.node
        if type(node) is Index and type(node.obj) is Name and type(node.key) in (Num, Text):
            name = node.obj.id
            hidden = name != column and (name in (row.cells or {}) or
                                         "default" in self.columns.get(name, {}))
            table = None if hidden else self.env().get(name)
            if type(table) is Table and table.mode in ("die", "band", "name") \
                    and table.index is not None:
                try:
                    hit = table.index.lookup(node.key.value)
                except (TypeError, ValueError):   # (the formula says why, when read)
                    hit = MISSING
                if hit is not MISSING and not hit.single:
                    found = hit
        cell.reference = (self._env, self.params_env, found)
        return found

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
        if exact is None:   # the exact-odds modules, loaded at first use
            _load_exact()
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
            if exact is None:   # the exact-odds modules, loaded at first use
                _load_exact()
            dist = exact(formula.node, env)
            return dist.values()[0] if len(dist) == 1 else dist
        return formula.sample(Context(env, ctx.rng, ctx.record))
