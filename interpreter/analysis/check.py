"""Semantic checks after the schema passes: every name resolves, calls fit their
procedures, fields of typed unit parameters exist.  Findings, never exceptions."""
from __future__ import annotations

from collections.abc import Mapping

from ..lang.ast import (Attr, Binary, Call, Dice, Group, Index, Name, Node, Num, Text, Unary,
                        VariableDice, walk)
from ..errors import Finding, RulecraftError
from ..expr.exact import exact
from ..lang.notation import computed_spec, group_target
from ..expr.functions import FUNCTIONS
from ..expr.values import describe
from ..lang.resolve import OPTION, free_names, resolve, scoped_nodes
from ..lang.steps import Step, statements_of
from ..run.destruction import DESTROYED
from ..run.rerolls import ROLL_EVENTS
from ..suggest import did_you_mean
from .durations import check_duration
from ..tables.rows import Formula
from .records import check_assignments, check_record_fields
from .recursion import check_recursion

# Names the engine binds while a game runs (phase steps, triggers, choices, victory).
CONTEXT_NAMES = {
    "phase": {"unit", "side", "turn", "sides", "units"},
    "status": {"holder", "status", "turn", "sides", "units"},
    "roll_hook": {"holder", "roll", "bad", "turn", "sides", "units"},   # + status on a status
    "destroyed_hook": {"holder", "turn", "sides", "units"},             # + status on a status
    "victory": {"side", "turn", "sides", "units"},
    "reaction": {"side", "mover", "point", "turn", "sides", "units"},
    "procedure": {"turn", "sides", "units"},
}


def segment_names(given: tuple) -> set:
    """The names a phase's steps see: the world's, and those its segments are handed
    (`Phase.given`; none at the turn's start and end) -- a `unit` no segment hands is an
    unknown name when the game runs, so here too."""
    return (CONTEXT_NAMES["phase"] - {"unit", "side"}) | set(given)


def _segment_hints(found: list, where: str) -> None:
    """A segment name read where no segment hands it: say why, not a name it is like."""
    for finding in found:
        for name in ("unit", "side"):
            if finding.message == f"unknown name {name!r}":
                finding.hint = (f"{where}: it has no {name!r} (a phase of `each: unit` has "
                                f"`unit` and `side`, of `each: side` its `side`)")


def _finding(code, message, loc, hint=None, severity="error") -> Finding:
    return Finding(severity, code, message, loc, hint)


def _check_expression(node: Node, known: set[str], ruleset, unit_kinds: dict, out: list) -> None:
    unknown = free_names(node) - known - {OPTION}
    for n in walk(node):
        if isinstance(n, Name) and n.id in unknown:
            out.append(_finding("unknown-name", f"unknown name {n.id!r}", n.loc,
                                did_you_mean(n.id, known)))
        elif isinstance(n, Call):
            _check_call(n, known, ruleset, out)
        elif isinstance(n, (Dice, VariableDice, Group)):
            _check_dice(n, out)
        elif isinstance(n, Index) and isinstance(n.obj, Name) and n.obj.id in ruleset.tables:
            _check_lookup(n, ruleset.tables[n.obj.id], out)
        if isinstance(n, Attr) and isinstance(n.obj, Index) and isinstance(n.obj.obj, Name) \
                and n.obj.obj.id in ruleset.tables and n.obj.obj.id not in known - set(ruleset.globals):
            _check_column(n, ruleset.tables[n.obj.obj.id], out)
        elif isinstance(n, Attr) and isinstance(n.obj, Name) and n.obj.id in unit_kinds:
            kind = ruleset.kinds.get(unit_kinds[n.obj.id])
            if kind is None:
                continue
            fields = kind.fields() | {m for s in ruleset.statuses.values() for m in s.modifies}
            if n.name not in fields:
                out.append(_finding("unknown-field",
                                    f"kind {kind.name!r} has no field {n.name!r}", n.loc,
                                    did_you_mean(n.name, fields)))


def _check_dice(node: Node, out: list) -> None:
    """Dice another widespread convention reads differently get a warning (the notes of
    lang/notation.py: a bare '>' is inclusive, 'cs' only marks criticals ...); dice whose
    count or sides are computed from numbers alone are rolled as the rule is read."""
    notes = node.spec.notes if isinstance(node, Dice) else node.notes
    for note in notes:
        out.append(_finding("dice-convention", note, node.loc,
                            "the README's dice notation table lists each reading",
                            severity="warning"))
    if isinstance(node, VariableDice):
        try:
            count = _constant(node.count) if node.count is not None else node.number
            sides = _constant(node.sides) if node.sides is not None else None
            if count is not _UNKNOWN:
                computed_spec(count, None, "d6", node.loc)
            if sides is not _UNKNOWN and sides is not None:
                computed_spec(1, sides, "", node.loc)
            target = _constant(node.target) if node.target is not None else None
            if target is not _UNKNOWN and target is not None:
                computed_spec(1, None, "d6>=", node.loc, target)
            if _UNKNOWN not in (count, sides, target):
                computed_spec(count, sides, node.tail, node.loc, target,
                              node.after).validate(node.loc)
        except RulecraftError as err:
            out.append(_finding("dice-value", err.message, err.location or node.loc, err.hint))
    if isinstance(node, Group) and node.target is not None:
        target = _constant(node.target)
        try:
            if target is not _UNKNOWN:
                group_target(node.success[0], target, node.failure, node.loc)
        except RulecraftError as err:
            out.append(_finding("dice-value", err.message, err.location or node.loc, err.hint))


_UNKNOWN = object()


def _constant(node: Node):
    """The value of an expression of numbers alone (`4 - 2`), else _UNKNOWN."""
    if not all(isinstance(n, (Num, Binary, Unary)) for n in walk(node)):
        return _UNKNOWN
    values = exact(node, {}).values()
    return values[0] if len(values) == 1 else _UNKNOWN


def _check_lookup(index: Index, table, out: list) -> None:
    """A lookup whose key can be seen to be of the wrong type: text into a table keyed by
    numbers, a number into a table keyed by name."""
    mode = getattr(table, "mode", None)
    key = index.key
    if mode in ("die", "band") and isinstance(key, Text):
        out.append(_finding("type", f"table {table.name!r} is keyed by numbers, not by the text "
                            f"{key.value!r}", key.loc))
    elif mode == "name" and isinstance(key, Num):
        out.append(_finding("type", f"table {table.name!r} is keyed by name, not by the number "
                            f"{key.value}", key.loc,
                            "names are text in quotes, e.g. weapons[\"Sword\"]"))


def _check_column(attr: Attr, table, out: list) -> None:
    """`weapons["Sword"].damage`: the column must exist in the table."""
    if getattr(table, "mode", None) not in ("die", "band", "name") or getattr(table, "column_key", None):
        return
    rows = getattr(table, "rows", [])
    if not rows or all(getattr(r, "single", False) for r in rows):
        return
    columns = set(getattr(table, "columns", {})) | {"key"}
    for row in rows:
        columns |= set(getattr(row, "cells", {}) or {})
    if attr.name not in columns:
        out.append(_finding("unknown-name", f"table {table.name!r} has no column {attr.name!r}",
                            attr.loc, did_you_mean(attr.name, columns)))


_STATUS_ACTIONS = ("apply", "remove", "has", "statuses_of", "status_count")


def _check_status_name(call: Call, ruleset, out: list) -> None:
    if len(call.args) >= 2 and isinstance(call.args[1], Text) and call.args[1].value not in ruleset.statuses:
        out.append(_finding("unknown-name", f"unknown status {call.args[1].value!r}", call.args[1].loc,
                            did_you_mean(call.args[1].value, ruleset.statuses)))


def _check_side_name(call: Call, ruleset, out: list) -> None:
    """`capture(unit, "rde")`: a side written by name is a side of some scenario."""
    sides = {name for scenario in ruleset.scenarios.values() for name in scenario.sides}
    if len(call.args) >= 2 and isinstance(call.args[1], Text) and sides \
            and call.args[1].value not in sides:
        out.append(_finding("unknown-name", f"capture(): no scenario has a side "
                            f"{call.args[1].value!r}", call.args[1].loc,
                            did_you_mean(call.args[1].value, sorted(sides))))


def _check_call(call: Call, known: set[str], ruleset, out: list) -> None:
    if call.func in FUNCTIONS:
        return
    if call.func in _STATUS_ACTIONS and call.func not in ruleset.procedures:
        _check_status_name(call, ruleset, out)
    check_duration(call, ruleset, out)
    if call.func == "capture" and call.func not in ruleset.procedures:
        _check_side_name(call, ruleset, out)
    target = ruleset.globals.get(call.func)
    if target is None:
        if call.func not in known:
            out.append(_finding("unknown-name", f"unknown procedure or function {call.func!r}",
                                call.loc, did_you_mean(call.func, list(FUNCTIONS) + list(ruleset.globals))))
        return
    params = getattr(target, "params", None)
    if params is None:
        return
    names = list(params)
    given = set(names[:len(call.args)]) | {k for k, _ in call.kwargs}
    if len(call.args) > len(names):
        out.append(_finding("call-arity", f"{call.func}() takes {len(names)} arguments, got "
                            f"{len(call.args)}", call.loc))
    for key, _ in call.kwargs:
        if key not in params:
            out.append(_finding("unknown-name", f"{call.func}() has no parameter {key!r}",
                                call.loc, did_you_mean(key, names)))
    missing = [p.name for p in params.values() if p.required and p.name not in given]
    if missing:
        out.append(_finding("call-missing", f"{call.func}() is called without "
                            f"{', '.join(repr(m) for m in missing)}", call.loc))


def _check_steps(steps, known, ruleset, unit_kinds, out, params=None, values=None) -> None:
    """Names in steps resolve; with `params` (a procedure's), no local is read on a path
    where nothing has bound it yet; with `values` (the names the engine or the caller
    binds there), no field is read of a ruleset global that has none."""
    resolution = resolve(steps, params or ())
    known = known | resolution.locals
    fieldless = set() if values is None else \
        _fieldless_globals(ruleset, set(values) | resolution.locals)
    for node in statements_of(steps):
        _check_expression(node, known, ruleset, unit_kinds, out)
        if fieldless:
            _check_fields_of_globals(node, fieldless, ruleset, out)
    if params is not None:
        _check_unbound_reads(resolution, known - resolution.binders, out)


def _fieldless_globals(ruleset, bound: set) -> set:
    """The ruleset's globals whose value has no fields at all (an action, a procedure, a
    number or a list parameter), among the names nothing binds there: not `bound`, not
    bound by a table's steps cell (`run()` hands a cell its caller's names), not bound by
    a rule the model did not parse."""
    hidden = bound | ruleset.cell_names() | ruleset.unparsed_binds
    return {name for name, value in ruleset.globals.items()
            if name not in hidden and getattr(value, "dsl_attr", None) is None
            and not isinstance(value, Mapping)}


def _check_fields_of_globals(node: Node, fieldless: set, ruleset, out: list) -> None:
    """`side.name` where `side` can only be the built-in side(): the error the read
    gives when the game reaches it (`get_attr`), found here.  A name bound inside the
    expression (a comprehension's variable, `let ... in`) is not the global."""
    for current, scope in scoped_nodes(node):
        if isinstance(current, Attr) and isinstance(current.obj, Name) \
                and current.obj.id in fieldless and current.obj.id not in scope:
            value = ruleset.globals[current.obj.id]
            out.append(_finding("no-fields", f"{describe(value)} has no fields (asked for "
                                f".{current.name})", current.loc,
                                f"nothing binds {current.obj.id!r} here, so it is "
                                f"{describe(value)}"))


def _check_unbound_reads(resolution, outside: set, out: list) -> None:
    for unbound in resolution.unbound_reads(outside):
        loc = _read_location(unbound.step, unbound.name)
        if unbound.surely:
            out.append(_finding("unbound", f"{unbound.name!r} is read before any step binds it",
                                loc, "bind it with let before this step"))
        else:
            out.append(_finding("maybe-unbound", f"{unbound.name!r} may be read before it is "
                                f"bound: a path reaches here without binding it", loc,
                                "bind it on every path, e.g. give it a default with let first",
                                severity="warning"))


def _read_location(step: Step, name: str):
    for tree in step.expressions():
        for n in walk(tree):
            if isinstance(n, Name) and n.id == name:
                return n.loc
    return step.loc


# Fields every unit has without declaring them; `destroyed` may be declared (as state).
UNIT_BUILTINS = ("name", "kind", "side", "statuses", "position")


def _field_location(kind, name: str):
    """Where a kind's field is declared, for findings about it."""
    node = kind.ruleset.document.get("kinds")
    node = node.get(kind.name) if node is not None else None
    for section in ("stats", "derived", "state"):
        part = node.get(section) if node is not None and hasattr(node, "get") else None
        if part is not None and hasattr(part, "key_location") and name in part.keys():
            return part.key_location(name)
    return None


def _check_kind_names(kind, ruleset, out: list) -> None:
    """A field may not take a name every unit already answers to: `unit.position` and
    `--with unit.position=` are the space's, `unit.name` the unit's own name."""
    for name in UNIT_BUILTINS:
        if name in kind.stats or name in kind.derived or name in kind.state:
            out.append(_finding("reserved-name", f"kind {kind.name!r}: {name!r} is a built-in "
                                f"of every unit and cannot be a field", _field_location(kind, name),
                                "rename the field (e.g. 'rank' or 'place')"))


def _check_formula_cycles(kind, out: list) -> None:
    """Derived and state formulas that need themselves, directly or through each other,
    could never be computed."""
    formulas = {**{k: v for k, v in kind.stats.items() if isinstance(v, Node)},
                **{k: v for k, v in kind.state.items() if isinstance(v, Node)}, **kind.derived}
    uses = {name: {n.id for n in walk(f) if isinstance(n, Name) and n.id in formulas}
            for name, f in formulas.items()}
    for start in formulas:
        seen, stack = set(), list(uses[start])
        while stack:
            name = stack.pop()
            if name == start:
                out.append(_finding("formula-cycle", f"kind {kind.name!r}: the formula of "
                                    f"{start!r} needs its own value",
                                    _field_location(kind, start) or formulas[start].loc,
                                    "a stat or state formula gives a unit's starting value; "
                                    "it may read other fields and parameters, not itself"))
                break
            if name not in seen:
                seen.add(name)
                stack.extend(uses[name])


def _check_initiative(rule, where: str, ruleset, globals_: set, out: list) -> None:
    """The initiative roll and the winner's `prefer` read the game's names, `side`, and
    with `per: unit` the rolling `unit`, whose fields must be some kind's; a scenario
    that changes the initiative needs a roll to change."""
    if rule is None:
        return
    if rule.roll is None:
        if where != "turn.initiative":
            out.append(_finding("initiative-roll", f"{where} changes how initiative is rolled, "
                                "but no roll is declared, here or in turn.initiative", rule.loc,
                                "give it a roll, e.g. roll: d10"))
        return
    per_unit = rule.per == "unit"
    known = globals_ | CONTEXT_NAMES["victory"] | ({"unit"} if per_unit else set())
    fields = {f for kind in ruleset.kinds.values() for f in kind.fields()} \
        | {m for s in ruleset.statuses.values() for m in s.modifies}
    for node in (rule.roll, rule.prefer):
        if node is None:
            continue
        reads_unit = [n for n in walk(node) if isinstance(n, Name) and n.id == "unit"]
        if reads_unit and not per_unit:
            out.append(_finding("unknown-name", f"{where} reads 'unit', but it is rolled once "
                                f"per side (per: {rule.per}): only 'side' is bound",
                                reads_unit[0].loc, "roll per unit (per: unit), or read the "
                                "side's units, e.g. side.units"))
        _check_expression(node, known | {"unit"} | ({OPTION} if node is rule.prefer else set()),
                          ruleset, {}, out)
        for n in walk(node):
            if per_unit and isinstance(n, Attr) and isinstance(n.obj, Name) \
                    and n.obj.id == "unit" and n.name not in fields:
                out.append(_finding("unknown-field", f"{where}: no kind has a field {n.name!r}",
                                    n.loc, did_you_mean(n.name, fields)))


def _check_cells(ruleset, globals_: set, out: list) -> None:
    """A table's `steps` cell runs on the names of the procedure that calls `run()`, so
    its names may be any procedure's parameters or names, as well as the globals."""
    if not ruleset.cell_steps:
        return
    callers: set = set(CONTEXT_NAMES["procedure"]) | set(CONTEXT_NAMES["phase"])
    for proc in ruleset.procedures.values():
        callers |= resolve(proc.steps, proc.params).locals
    for *_, steps in ruleset.cell_steps:
        callers |= resolve(steps).binders
    for *_, steps in ruleset.cell_steps:
        _check_steps(steps, globals_ | callers, ruleset, {}, out)


def _check_narration(proc, known: set[str], ruleset, unit_kinds: dict, out: list) -> None:
    """`narrate:` holes name what the procedure knows (its parameters, the names its steps
    bind, `result`); an outcome it narrates is one it declares (when it declares any)."""
    narration = getattr(proc, "narrate", None)
    if narration is None:
        return
    for template in narration.templates():
        for node in template.expressions():
            _check_expression(node, known, ruleset, unit_kinds, out)
            _check_hole_rolls(node, ruleset, out)
    if proc.outcomes:
        declared = [str(o) for o in proc.outcomes]
        for outcome, template in narration.by_outcome:
            if outcome not in declared:
                out.append(_finding("unknown-outcome", f"procedure {proc.name!r} narrates the "
                                    f"outcome {outcome!r}, which it does not declare",
                                    template.loc, did_you_mean(outcome, declared)))


def _check_hole_rolls(node, ruleset, out: list) -> None:
    """A hole that reads a table column (`{forces[f].rifles}`) one of whose cells is a
    formula that rolls: telling the story would roll dice and change the game."""
    for sub in walk(node):
        if not (isinstance(sub, Attr) and isinstance(sub.obj, Index)
                and isinstance(sub.obj.obj, Name) and sub.obj.obj.id in ruleset.tables):
            continue
        table = ruleset.tables[sub.obj.obj.id]
        cells = [(row.cells or {}).get(sub.name) for row in table.rows]
        if any(isinstance(cell, Formula)
               and any(isinstance(n, (Dice, Group, VariableDice)) for n in walk(cell.node))
               for cell in cells):
            out.append(_finding("narrate-rolls", f"this hole reads column {sub.name!r} of table "
                                f"{table.name!r}, whose formula rolls dice; a story may not roll "
                                f"(it would change the game)", sub.loc,
                                "bind the value with let in the steps and name it here"))


def _what(value) -> str:
    label = getattr(value, "dsl_label", None)
    return label.split(" ")[0] if isinstance(label, str) else "parameter"


def _names_a_unit(name: str, counts: dict) -> bool:
    """A scenario position names a unit spec (`Rifle`) or one of its numbered units
    (`Rifle 3` for a spec of count 3 or more), without listing every unit."""
    if name in counts:
        return True
    base, _, number = name.rpartition(" ")
    return base in counts and number.isdigit() and 1 <= int(number) <= counts[base]


def check_names(ruleset) -> list[Finding]:
    """Every name in every rule resolves; calls match their procedures."""
    out: list[Finding] = []
    globals_ = set(ruleset.globals) | set(FUNCTIONS) | ruleset.unparsed_binds
    for proc in ruleset.procedures.values():
        for pname in proc.params:
            # hiding a built-in action (`distance`) is fine; hiding the ruleset's own
            # table, procedure or parameter is almost always a mistake
            if pname in ruleset.globals and (pname in ruleset.tables or pname in ruleset.procedures
                                             or pname in ruleset.parameters):
                out.append(_finding("shadow", f"parameter {pname!r} of procedure {proc.name!r} hides "
                                    f"the {_what(ruleset.globals[pname])} of that name inside it",
                                    proc.location, "rename one of them", severity="warning"))
        known = globals_ | set(proc.params) | CONTEXT_NAMES["procedure"]
        unit_kinds = {p.name: p.kind for p in proc.params.values() if p.type == "unit" and p.kind}
        _check_steps(proc.steps, known, ruleset, unit_kinds, out, params=proc.params,
                     values=set(proc.params) | CONTEXT_NAMES["procedure"])
        check_assignments(proc.steps, proc.params, ruleset, out)
        _check_narration(proc, known | resolve(proc.steps, proc.params).locals | {"result"},
                         ruleset, unit_kinds, out)
        check_record_fields(proc.steps, proc.params, ruleset, out)
    _check_cells(ruleset, globals_, out)
    phases = [p.name for p in ruleset.turn.phases] if ruleset.turn else []
    events = {"start_of_turn", "end_of_turn", *ROLL_EVENTS, DESTROYED} | \
        {f"{w}_of_{p}" for p in phases for w in ("start", "end")}
    for status in ruleset.statuses.values():
        for event in status.on:
            if event not in events:
                out.append(_finding("unknown-name", f"status {status.name!r}: no turn event "
                                    f"{event!r} (events: start_of_turn, end_of_turn, "
                                    f"start_of_/end_of_ a phase, rolled_by, rolled_against, "
                                    f"destroyed)",
                                    status.event_locations.get(event), did_you_mean(event, events)))
        for event, steps in status.on.items():
            names = CONTEXT_NAMES["roll_hook"] | {"status"} if event in ROLL_EVENTS \
                else CONTEXT_NAMES["destroyed_hook"] | {"status"} if event == DESTROYED \
                else CONTEXT_NAMES["status"]
            _check_steps(steps, globals_ | names, ruleset, {}, out)
        for value in status.modifies.values():
            if isinstance(value, Node):
                _check_expression(value, globals_ | CONTEXT_NAMES["status"], ruleset, {}, out)
    for kind in ruleset.kinds.values():
        for event, steps in kind.on.items():
            if event not in (*ROLL_EVENTS, DESTROYED):
                out.append(_finding("unknown-name", f"kind {kind.name!r}: no event {event!r} "
                                    f"(a kind's hooks: rolled_by, rolled_against, destroyed; "
                                    f"turn events are a status's)", kind.event_locations.get(event),
                                    did_you_mean(event, (*ROLL_EVENTS, DESTROYED))))
            if event == DESTROYED:   # the holder is a unit of this kind: its fields are checked
                _check_steps(steps, globals_ | CONTEXT_NAMES["destroyed_hook"], ruleset,
                             {"holder": kind.name}, out)
            else:
                _check_steps(steps, globals_ | CONTEXT_NAMES["roll_hook"], ruleset, {}, out)
        fields = kind.fields()
        for formula in kind.derived.values():
            _check_expression(formula, globals_ | fields, ruleset, {}, out)
        for formula in [*kind.stats.values(), *kind.state.values()]:
            if isinstance(formula, Node):   # starting values: the unit's fields and `self`
                _check_expression(formula, globals_ | fields | {"self"}, ruleset, {}, out)
        _check_kind_names(kind, ruleset, out)
        _check_formula_cycles(kind, out)
    if ruleset.turn is not None:
        turn = ruleset.turn
        for phase in turn.phases:
            first = len(out)
            names = segment_names(phase.given)
            _check_steps(phase.steps, globals_ | names, ruleset, {}, out, values=names)
            _segment_hints(out[first:], f"phase {phase.name!r} is `each: {phase.each}`")
        for steps, where in ((turn.start_of_turn, "start_of_turn"),
                             (turn.end_of_turn, "end_of_turn")):   # no one's segment
            first = len(out)
            names = segment_names(())
            _check_steps(steps, globals_ | names, ruleset, {}, out, values=names)
            _segment_hints(out[first:], f"{where} is no one's segment")
        for reaction in turn.reactions:
            _check_steps(reaction.steps, globals_ | CONTEXT_NAMES["reaction"], ruleset, {}, out)
        for v in turn.victory:
            _check_expression(v.when, globals_ | CONTEXT_NAMES["victory"], ruleset, {}, out)
            if v.winner is not None:
                _check_expression(v.winner, globals_ | CONTEXT_NAMES["victory"], ruleset, {}, out)
    _check_initiative(ruleset.turn.initiative if ruleset.turn else None, "turn.initiative",
                      ruleset, globals_, out)
    for scenario in ruleset.scenarios.values():
        _check_initiative(scenario.initiative, f"the initiative of scenario {scenario.name!r}",
                          ruleset, globals_, out)
        counts: dict = {}
        for side in scenario.sides.values():
            for spec in side["units"]:
                name = spec.get("name", spec.get("kind"))
                counts[name] = max(counts.get(name, 0), spec.get("count", 1) or 1)
        for name in scenario.positions:
            if not _names_a_unit(name, counts):
                names = set(counts) | {f"{n} {i + 1}" for n, c in counts.items() for i in range(min(c, 50))}
                out.append(_finding("unknown-name", f"scenario {scenario.name!r}: a position for "
                                    f"{name!r}, which is no unit of the scenario", scenario.location,
                                    did_you_mean(name, names)))
    out.extend(check_recursion(ruleset))
    seen = set()
    unique = []
    for f in out:
        key = (f.code, f.message, f.location.line if f.location else 0,
               f.location.column if f.location else 0)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique
