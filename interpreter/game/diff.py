"""What a house rule changes: the documents compared item by item, and for every
affected table and procedure the exact odds before and after (`rulecraft diff`).

The changes are found on the documents as loaded (base, and house with every overlay
applied), so they read in the rule-file language: `tables.to_hit.rows.1: 6 -> 5`.  An
item is affected when it changed, or when it names (in its rules, not its prose) an
affected item: a procedure that rolls on a changed table, a procedure that calls it.
"""
from __future__ import annotations

import difflib
import json
import re
import signal
import threading
from ..records import record, field
from fractions import Fraction

from ..errors import RulecraftError
from ..expr.values import json_value
from ..model.overlay import split_path
from .formula_odds import formula_odds, formula_text

SECTIONS = ("parameters", "kinds", "tables", "statuses", "procedures", "scenarios")
_META = ("ruleset", "title", "description", "extends", "source")
_PROSE = ("description", "text", "title", "why", "ruling", "topic", "examples", "one_of", "outcomes")
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_LET = re.compile(r"\s*let\s+([A-Za-z_][A-Za-z_0-9]*)\s*=")
_QUOTED = re.compile(r'"[^"]*"|\'[^\']*\'')


@record
class Change:
    op: str            # "changed", "added", "removed"
    path: str
    before: object = None
    after: object = None

    def as_json(self) -> dict:
        data = {"op": self.op, "path": self.path}
        if self.op != "added":
            data["before"] = self.before
        if self.op != "removed":
            data["after"] = self.after
        return data


@record
class OddsDiff:
    """One distribution before and after: a table's rows, or a procedure's results."""

    what: str                      # "table", "formula" or "procedure"
    name: str
    inputs: dict = field(default_factory=dict)
    before: dict | None = None     # label -> Fraction
    after: dict | None = None
    error_before: str | None = None
    error_after: str | None = None
    tracked: str | None = None     # a field tracked to the end of the procedure

    @property
    def title(self) -> str:
        given = ", ".join(f"{k}={v}" for k, v in self.inputs.items())
        field_text = f", {self.tracked} at the end" if self.tracked else ""
        defaults = self.what == "procedure" or self.name.startswith("kinds.")
        return f"{self.what} {self.name}{field_text}" + (
            f" with {given}" if given else " (declared defaults)" if defaults else "")

    def rows(self) -> list[tuple[str, Fraction, Fraction, float]]:
        """(label, before, after, change in percentage points), in a stable order."""
        before, after = self.before or {}, self.after or {}
        labels = list(before) + [k for k in after if k not in before]
        return [(k, before.get(k, Fraction(0)), after.get(k, Fraction(0)),
                 round(float(after.get(k, 0) - before.get(k, 0)) * 100, 6)) for k in labels]

    @property
    def changed(self) -> bool:
        return self.before != self.after or self.error_before != self.error_after

    def as_json(self) -> dict:
        return {"what": self.what, "name": self.name, "inputs": self.inputs, "tracked": self.tracked,
                "error_before": self.error_before, "error_after": self.error_after,
                "outcomes": [{"value": label, "before": _frac(b), "after": _frac(a),
                              "before_percent": round(float(b) * 100, 6),
                              "after_percent": round(float(a) * 100, 6),
                              "change_pp": pp} for label, b, a, pp in self.rows()]}


@record
class RulesetDiff:
    base: str
    house: str
    changes: list[Change]
    odds: list[OddsDiff]
    unchanged: list[str]           # affected items whose odds came out the same
    play_changed: bool             # the turn or a scenario changed: try simulate --compare
    not_computed: list[str] = field(default_factory=list)   # "procedure x: why"

    def as_json(self) -> dict:
        return {"base": self.base, "house": self.house,
                "changes": [c.as_json() for c in self.changes],
                "odds": [o.as_json() for o in self.odds if o.changed],
                "unchanged_odds": self.unchanged, "not_computed": self.not_computed,
                "play_changed": self.play_changed}


def _frac(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


# ------------------------------------------------------------------ the documents


def document_changes(base: dict, house: dict) -> list[Change]:
    out: list[Change] = []
    for key in list(base) + [k for k in house if k not in base]:
        if key in _META:
            continue
        _diff(base.get(key, _MISSING), house.get(key, _MISSING), key, out)
    return out


_MISSING = object()


def _diff(a, b, path: str, out: list[Change]) -> None:
    if a is _MISSING:
        out.append(Change("added", path, after=b))
    elif b is _MISSING:
        out.append(Change("removed", path, before=a))
    elif a == b and type(a) is type(b):
        return
    elif isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            _diff(a.get(key, _MISSING), b.get(key, _MISSING), f"{path}.{_segment(key)}", out)
    elif isinstance(a, list) and isinstance(b, list):
        _diff_list(a, b, path, out)
    else:
        out.append(Change("changed", path, a, b))


def _segment(key) -> str:
    key = str(key)
    return f'"{key}"' if "." in key else key


def _ids(items: list) -> list[str] | None:
    """The items' ids or names when every item has a distinct one (rulings, phases)."""
    ids = [_item_id(item) for item in items]
    return ids if all(ids) and len(set(ids)) == len(ids) else None


def _item_id(item) -> str | None:
    if isinstance(item, dict):
        for key in ("id", "name"):
            if item.get(key) is not None:
                return str(item[key])
    return None


def _diff_list(a: list, b: list, path: str, out: list[Change]) -> None:
    ids_a, ids_b = _ids(a), _ids(b)
    if ids_a is not None and ids_b is not None and (set(ids_a) & set(ids_b) or not a or not b):
        by_a, by_b = dict(zip(ids_a, a)), dict(zip(ids_b, b))
        for key in ids_a + [k for k in ids_b if k not in by_a]:
            _diff(by_a.get(key, _MISSING), by_b.get(key, _MISSING), f"{path}.{_segment(key)}", out)
        return
    text_a = [json.dumps(x, sort_keys=True, default=str) for x in a]
    text_b = [json.dumps(x, sort_keys=True, default=str) for x in b]
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, text_a, text_b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op == "replace" and i2 - i1 == j2 - j1:
            for i, j in zip(range(i1, i2), range(j1, j2)):
                _diff(a[i], b[j], f"{path}.{_position(a, i)}", out)
            continue
        for i in range(i1, i2):
            out.append(Change("removed", f"{path}.{_position(a, i)}", before=a[i]))
        for j in range(j1, j2):
            out.append(Change("added", f"{path}.{_position(b, j)}", after=b[j]))


def _position(items: list, index: int) -> str:
    """A list item's segment: its id/name, or the name its `let` binds when no other
    step of the list binds it, else its position from 1 (as overlays name items)."""
    item = items[index]
    if isinstance(item, dict):
        return _segment(_item_id(item) or index + 1)
    match = _LET.match(item) if isinstance(item, str) else None
    if match and sum(1 for x in items if isinstance(x, str) and (m := _LET.match(x))
                     and m.group(1) == match.group(1)) == 1:
        return match.group(1)
    return str(index + 1)


# ------------------------------------------------------------------ what is affected


def _rule_words(plain, section: str = "") -> tuple[set[str], set[str]]:
    """The names an item's rules use (its prose left out): the words outside quotes, and
    the words inside quotes (where statuses are named: `apply(target, "shaken")`).

    In a table's rows a text cell is data, not a rule (`notes: ... the main ram` names
    no procedure): only a formula cell (`=2d6`) and the steps of a cell are read there."""
    words: set[str] = set()
    quoted: set[str] = set()
    stack = [(plain, False)]
    if section == "tables" and isinstance(plain, dict):
        stack = [(v, k == "rows") for k, v in plain.items() if k not in _PROSE]
    while stack:
        value, in_rows = stack.pop()
        if isinstance(value, dict):
            stack.extend((v, in_rows) for k, v in value.items() if k not in _PROSE)
        elif isinstance(value, list):
            stack.extend((v, False) for v in value)
        elif isinstance(value, str) and in_rows and not value.lstrip().startswith("="):
            continue
        elif isinstance(value, str):
            for literal in _QUOTED.findall(value):
                quoted.update(_WORD.findall(literal))
            words.update(_WORD.findall(_QUOTED.sub(" ", value)))
    return words, quoted


def _procedure_words(house, name: str, plain: dict) -> tuple[set[str], set[str]]:
    """The names a procedure uses, from the resolver: what its steps read that is not
    one of its locals, what they call, and (from its declaration) its parameters' kinds
    and default expressions; statuses are named in quotes in its steps."""
    resolution = house.procedures[name].resolution()
    declared, _ = _rule_words(plain.get("params") or {})
    _, quoted = _rule_words(plain.get("steps") or [])
    return set(resolution.free()) | set(resolution.calls()) | declared, quoted


def affected_items(house_plain: dict, changes: list[Change], house=None) -> list[tuple[str, str]]:
    """(section, name) of every changed item and of every table or procedure whose rules
    name one (a changed status when it is named in quotes), in the order of the file.
    With `house` (the built ruleset) a procedure's names come from the resolver
    (lang/resolve.py), so a local that shares a table's name does not count."""
    changed = set()
    for change in changes:
        parts = split_path(change.path) if change.path.count('"') % 2 == 0 else change.path.split(".")
        if parts[0] in SECTIONS and len(parts) > 1:
            changed.add((parts[0], parts[1]))
    items = [(s, n) for s in SECTIONS for n in (house_plain.get(s) or {})]
    words = {item: _procedure_words(house, item[1], house_plain[item[0]][item[1]])
             if house is not None and item[0] == "procedures" and item[1] in house.procedures
             else _rule_words(house_plain[item[0]][item[1]], item[0]) for item in items}
    affected = set(changed)
    grew = True
    while grew:
        grew = False
        names = {n for _, n in affected}
        statuses = {n for s, n in affected if s == "statuses"}
        for item in items:
            if item not in affected and item[0] in ("tables", "procedures") and \
                    (words[item][0] & names or words[item][1] & statuses):
                affected.add(item)
                grew = True
    order = {item: i for i, item in enumerate(items)}
    return sorted(affected, key=lambda item: order.get(item, len(order)))


# ------------------------------------------------------------------ odds


def table_odds(ruleset, name: str) -> dict | None:
    """The chance of each row of a table rolled on its own die (faces the table leaves
    unhandled are rolled again), labelled `key (first text cell)`."""
    table = ruleset.tables.get(name)
    if table is None or getattr(table, "roll_dist", None) is None:
        return None
    handled = 1 - table.unhandled_probability()
    result = {}
    for row in table.rows:
        p = table.key_probability(row)
        if p is None:
            return None
        label = row.key
        text = next((v for v in (row.cells or {}).values() if isinstance(v, str)), None) \
            if row.cells is not None else (row.value if isinstance(row.value, str) else None)
        if text is not None:
            label = f"{row.key} ({text})"
        result[label] = result.get(label, Fraction(0)) + p / handled
    return result


def procedure_odds(ruleset, name: str, inputs: dict, track: list[str] | None = None) -> dict:
    """{None: the result's distribution, field: that field's distribution at the end}."""
    result = ruleset.run_odds(name, inputs, list(track or []))
    dists = {None: result.outcomes, **result.tracked}
    return {key: {str(json_value(value)): Fraction(weight, dist.total) for value, weight in dist.items()}
            for key, dist in dists.items()}


class _OverBudget(Exception):
    pass


def _guarded(compute, budget: float | None = None):
    """(result, None) or (None, why not): a rule error, or more than `budget` seconds
    (measured with a timer signal, so only in the main thread of a Unix process).  The
    timer repeats every 50 ms once run out: a signal landing in a finaliser of the
    garbage collector is swallowed there, and a one-shot timer would never stop then."""
    timed = budget is not None and hasattr(signal, "setitimer") \
        and threading.current_thread() is threading.main_thread()
    running = [True]
    if timed:
        def _stop(signum, frame):
            if running[0]:
                raise _OverBudget()
        previous = signal.signal(signal.SIGALRM, _stop)
        signal.setitimer(signal.ITIMER_REAL, budget, 0.05)
    try:
        try:
            return compute(), None
        finally:
            running[0] = False
            if timed:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
    except RulecraftError as err:
        return None, err.message
    except RecursionError:
        return None, "the input nests too deeply to evaluate"
    except _OverBudget:
        return None, f"not computed: the exact odds take longer than {budget:g} s (raise --budget)"


def _cell_changes(change: Change) -> list[Change]:
    """A whole table row added, removed or replaced, as one change per cell (so that
    its formula cells are found); any other change as it is."""
    parts = split_path(change.path) if change.path.count('"') % 2 == 0 else change.path.split(".")
    row = change.after if change.op == "added" else change.before
    if len(parts) != 4 or parts[0] != "tables" or parts[2] != "rows" or not isinstance(row, dict):
        return [change]
    if change.op == "changed" and not isinstance(change.after, dict):
        return [change]
    return [Change(change.op, f"{change.path}.{_segment(column)}",
                   (change.before or {}).get(column) if change.op != "added" else None,
                   (change.after or {}).get(column) if change.op != "removed" else None)
            for column in row]


def _formula_diff(base, house, change: Change, inputs: dict, budget, odds: list, unchanged: list,
                  not_computed: list) -> None:
    """The distribution before and after of a changed formula (nothing for other pieces)."""
    parts = split_path(change.path) if change.path.count('"') % 2 == 0 else change.path.split(".")
    if formula_text(parts, change.before) is None and formula_text(parts, change.after) is None:
        return
    computed = parts[0] == "tables" and parts[2] == "computed"
    entry = OddsDiff("formula", change.path, {k: v for k, v in inputs.items() if computed
                                              and k in _over_names(base, house, parts[1])})
    sides = []
    for which, ruleset, value in (("before", base, change.before), ("after", house, change.after)):
        if value is None and change.op != "changed":
            sides.append((None, "not in the base" if which == "before" else "removed by the house rule"))
        elif formula_text(parts, value) is None:
            sides.append((None, "not a formula in the base" if which == "before" else
                          "not a formula in the house rule"))
        else:
            sides.append(_guarded(lambda: formula_odds(ruleset, parts, formula_text(parts, value), inputs),
                                  budget))
    (entry.before, entry.error_before), (entry.after, entry.error_after) = sides
    late = [e for e in (entry.error_before, entry.error_after)
            if e and (e.startswith("not computed") or e.startswith("depends on"))]
    if late:
        why = [e.removeprefix("not computed: ") for e in late]
        text = why[0] if len(set(why)) == 1 else f"before, {why[0]}; after, {why[1]}"
        not_computed.append(f"{entry.title}: {text}")
    elif entry.changed:
        odds.append(entry)
    else:
        unchanged.append(entry.title)


def _over_names(base, house, table: str) -> set[str]:
    names = set()
    for ruleset in (base, house):
        computed = getattr(ruleset.tables.get(table), "computed", None)
        names |= set((computed or {}).get("over", {}))
    return names


def diff_rulesets(base, house, inputs: dict | None = None, skip: set[str] | None = None,
                  budget: float | None = None, track: list[str] | None = None) -> RulesetDiff:
    """The changes from `base` to `house` (both `Rules`), with the odds of the affected
    tables and procedures for their declared defaults and, where a procedure takes an
    input named in `inputs` (`--with`), for those inputs too.  Procedures named in
    `skip` are left out; `budget` is the seconds each exact computation may take.  Each
    field in `track` (`target.destroyed`) gets its own distribution, for every affected
    procedure that has the parameter it starts with."""
    inputs = dict(inputs or {})
    track = list(track or [])
    base_plain, house_plain = base.document.to_plain(), house.document.to_plain()
    changes = document_changes(base_plain, house_plain)
    odds, unchanged, not_computed = [], [], []
    for change in (cell for change in changes for cell in _cell_changes(change)):
        _formula_diff(base, house, change, inputs, budget, odds, unchanged, not_computed)
    for section, name in affected_items(house_plain, changes, house):
        if section == "tables":
            before, after = table_odds(base, name), table_odds(house, name)
            if before is None and after is None:
                continue
            entry = OddsDiff("table", name, {}, before, after)
            (odds if entry.changed else unchanged).append(entry if entry.changed else f"table {name}")
        elif section == "procedures" and not (skip and name in skip):
            proc = house.procedures.get(name) or base.procedures.get(name)
            runs = [{}]
            given = {k: v for k, v in inputs.items() if k.split(".")[0] in proc.params}
            if given:
                runs.append(given)
            tracks = [t for t in track if t.split(".")[0] in proc.params]
            for run_inputs in runs:
                sides = {}
                for which, ruleset in (("before", base), ("after", house)):
                    if name in ruleset.procedures:
                        sides[which] = _guarded(lambda: procedure_odds(ruleset, name, run_inputs, tracks),
                                                budget)
                    else:
                        sides[which] = (None, "not in the base" if which == "before"
                                        else "removed by the house rule")
                for field_name in [None] + tracks:
                    entry = OddsDiff("procedure", name, run_inputs, tracked=field_name)
                    (before, entry.error_before), (after, entry.error_after) = sides["before"], sides["after"]
                    entry.before = before[field_name] if before is not None else None
                    entry.after = after[field_name] if after is not None else None
                    late = [e for e in (entry.error_before, entry.error_after)
                            if e and e.startswith("not computed")]
                    if late:
                        not_computed.append(f"{entry.title}: {late[0].removeprefix('not computed: ')}")
                    elif entry.changed:
                        odds.append(entry)
                    else:
                        unchanged.append(entry.title)
    play_changed = any(c.path.split(".")[0] in ("turn", "scenarios") for c in changes)
    return RulesetDiff(base.chain_name, house.chain_name, changes, odds, unchanged, play_changed,
                       not_computed)
