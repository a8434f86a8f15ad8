"""Building a table from its YAML node: `build_table` and the semantic checks.

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

Formula cells (`=...`) are parsed here, once; how cells are read is in model.py.

Finding codes: table-empty, table-key, table-roll, table-gap, table-overlap,
table-key-outside, table-unhandled, table-band-gap, table-band-order, table-type,
table-column, table-check, table-computed, plus the DSL's own codes (syntax, limit,
unknown-name) for formulas that do not parse or evaluate.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Mapping

from ..lang.parse import parse_expression
from ..errors import Finding, Location, NameError_, RulecraftError
from ..expr.exact import exact
from ..source.nodes import MapNode, ScalarNode, SeqNode
from ..source.nodes import Node as YNode
from ..suggest import did_you_mean
from .keys import Key, KeyIndex, MISSING, format_values, numeric_key
from .model import Table
from .rows import BrokenCell, Formula, Row, RowEnv, StepsCell
from .printing import display_value

MAX_COMPUTED_CELLS = 10_000  # combinations a computed table may tabulate

COLUMN_TYPES = ("integer", "number", "boolean", "text", "list", "record", "steps", "any")


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
                row = Row(t, key, cells, MISSING, vnode, rows.key_location(ktext))
            else:
                col = None
                if len(t.columns) == 1:
                    col = next(iter(t.columns.values()))
                value = self.cell(vnode, col, ktext, next(iter(t.columns), "value"))
                row = Row(t, key, None, value, vnode, rows.key_location(ktext))
            t.rows.append(row)
        t.index = KeyIndex(t._what(), [r.parsed for r in t.rows], t.rows,
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
        t.column_index = KeyIndex(f"the columns of {t._what()}", keys, keys, numeric)

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
        elif ctype != "text" and isinstance(value, str) and _DICE_TEXT.fullmatch(value.strip()):
            self.add("table-dice-text",
                     f"table {self.name!r} row {row_key!r}: {cname} is the text {value!r}, "
                     f"which is never rolled", node.location, "warning",
                     f"write \"={value.strip()}\" to roll it, or give the column type: text")
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
            faces.update(key.span())
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
                outside = [v for v in key.span() if v not in face_set]
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
                dist = exact(formula.node, RowEnv(row, None, t.env(), None))
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


# a cell that is nothing but dice notation ("2d6", "d10+2"): almost surely meant as a roll
_DICE_TEXT = re.compile(r"\d*[dD](\d+|%|F)([-+*]\s*\d+)?")


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


def _plain_scalar(value):
    if isinstance(value, float):
        if math.isfinite(value):
            return Fraction(str(value)) if not value.is_integer() else int(value)
        return value
    return value


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
            return key.span()
    if type(value) is int:
        return [value]
    return None
