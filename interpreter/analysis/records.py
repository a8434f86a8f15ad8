"""Checks of what a procedure does to records and rows: assigning a field of something
that is not game state (a table row, a literal record) is a finding, and so is reading
or writing a field a record of known shape does not have.  Found by `validate`, not when
a branch reaches it; the shapes come from the kinds' declared stats and state and from
record literals bound with `let`."""
from __future__ import annotations

from ..errors import Finding
from ..lang.ast import Attr, Bool, Index, Name, Node, RecordExpr, Text, to_text, walk
from ..lang.resolve import resolve
from ..lang.steps import AssignStep, ChooseStep, ForStep, LetStep, Step, all_steps, statements_of
from ..suggest import did_you_mean


def _finding(code, message, loc, hint=None, severity="error") -> Finding:
    return Finding(severity, code, message, loc, hint)


def _record_names(steps: list[Step], ruleset) -> set[str]:
    """Names every binding of which is surely a table row, never a unit or a record:
    `let row = table[...]`.  (A record bound with let is the procedure's own value, and
    changing one of its fields changes that value: `let a = base` then `a.armour -= 1`.)"""
    kinds: dict[str, set] = {}
    for step in all_steps(steps):
        if isinstance(step, LetStep):
            kinds.setdefault(step.name, set()).add(_static_kind(step.node, ruleset))
        elif isinstance(step, (ForStep, ChooseStep)):
            kinds.setdefault(step.var, set()).add(None)
    return {name for name, found in kinds.items() if found and None not in found}


def _static_kind(node: Node, ruleset):
    """'row' when an expression surely gives a table row, else None."""
    if isinstance(node, Index) and isinstance(node.obj, Name) and node.obj.id in ruleset.tables:
        return "row"
    return None


def check_assignments(steps: list[Step], params: dict, ruleset, out: list) -> None:
    """`a.structure -= 1` changes game state only if `a` is a unit or a side: a record
    or a table row is a value, and changing one would be lost."""
    records = _record_names(steps, ruleset) - set(params)
    bound = resolve(steps).binders
    for step in all_steps(steps):
        path = getattr(step, "path", None)
        if not isinstance(step, AssignStep) or not path or len(path) < 2:
            continue
        head = path[0]
        param = params.get(head)
        if len(path) == 2 and path[1] == "side" and getattr(param, "type", None) == "unit":
            out.append(_finding("assign-side", f"cannot assign {to_text(step.target)}: a unit "
                                f"changes sides with capture()", step.loc,
                                f"capture({head}, side(...)), e.g. capture(target, side(attacker))"))
            continue
        if len(path) == 2 and path[1] == "destroyed" and _has_destroyed_hooks(ruleset) and \
                not (isinstance(step.node, Bool) and step.node.value is False):
            out.append(_finding("assign-destroyed", f"{to_text(step.target)} {step.op} "
                                f"{to_text(step.node)} skips the `on: destroyed` hooks of the "
                                f"unit's kind and statuses", step.loc,
                                f"destroy({head}) destroys it and runs them", severity="warning"))
            continue
        what = ("table row" if head in records else "parameter of the ruleset"
                if head not in params and head not in bound
                and isinstance(ruleset.parameters.get(head), dict) else None)
        if what is not None:
            out.append(_finding("assign-value", f"cannot change {to_text(step.target)}: "
                                f"{head!r} is a {what}, not a unit or a side", step.loc,
                                "only units' fields, sides' data and names bound with let "
                                "(or their items) can be changed"))


def _has_destroyed_hooks(ruleset) -> bool:
    """Whether some kind or status runs steps when a unit is destroyed (`on: destroyed`)."""
    return any("destroyed" in k.on for k in ruleset.kinds.values()) or \
        any("destroyed" in s.on for s in ruleset.statuses.values())


# ------------------------------------------------ fields and keys inside records


def _shapes(steps, params: dict, ruleset) -> dict:
    """What each name surely holds, as far as its fields can be seen: a unit parameter
    of a declared kind (its stats and state, as declared), a name bound once to a record
    literal, a record parameter of the ruleset.  Names bound otherwise are left out."""
    counts = resolve(steps).counts
    shapes: dict = {}
    for name, value in ruleset.parameters.items():
        if isinstance(value, dict) and name not in params and name not in counts:
            shapes[name] = value
    for p in params.values():
        kind = ruleset.kinds.get(p.kind) if p.type == "unit" and p.kind else None
        if kind is not None and p.name not in counts:
            shapes[p.name] = _Fields(kind)
    for step in all_steps(steps):
        if isinstance(step, LetStep) and counts.get(step.name) == 1 and step.name not in params \
                and isinstance(step.node, RecordExpr):
            shapes[step.name] = _literal_shape(step.node)
    return shapes


class _Fields:
    """A kind's declared fields with their declared values (a formula's is unknown)."""

    def __init__(self, kind):
        self.values = {**kind.stats, **kind.state}

    def field(self, name):
        value = self.values.get(name)
        return None if isinstance(value, Node) else value


def _literal_shape(node):
    if isinstance(node, RecordExpr):
        return {key: _literal_shape(value) for key, value in node.fields}
    return None   # a value whose fields are not known here


def _chain(node: Node):
    """`a.b[k].c` as its root name and its steps, or None if it is not rooted at a name."""
    parts = []
    while isinstance(node, (Attr, Index)):
        parts.append((False, node.name, node) if isinstance(node, Attr) else (True, node.key, node))
        node = node.obj
    return (node.id, parts[::-1]) if isinstance(node, Name) else None


def _check_chain(node: Node, shapes: dict, out: list) -> None:
    """Each step of the chain into records whose fields are known must name a field
    they have: `.armor` where every possible record has only `armour`, or a key
    written as text (`spells["firebal"]`).  A computed key reads any of the items."""
    found = _chain(node)
    if found is None or found[0] not in shapes or not found[1]:
        return
    root, parts = found
    shape = shapes[root]
    if isinstance(shape, _Fields):
        is_index, name, _ = parts[0]
        if is_index:
            return
        candidates, parts = [shape.field(name)], parts[1:]
    else:
        candidates = [shape]
    for is_index, key, at in parts:
        if any(not isinstance(c, (dict, list, tuple)) or not c for c in candidates):
            return   # unknown, a value without fields, or empty (filled during play)
        if is_index and not isinstance(key, Text):
            candidates = [v for c in candidates
                          for v in (c.values() if isinstance(c, dict) else c)]
            continue
        if any(not isinstance(c, dict) for c in candidates):
            return
        name = key.value if is_index else key
        have = [c[name] for c in candidates if name in c]
        if not have:
            fields = sorted({str(k) for c in candidates for k in c})
            shown = f"[{to_text(key)}]" if is_index else f".{name}"
            code = "unknown-key" if is_index else "unknown-field"
            what = to_text(at.obj)
            out.append(_finding(code, f"{what} has no field {name!r} (asked for {shown})",
                                key.loc if is_index else at.loc, did_you_mean(name, fields)))
            return
        candidates = have


def check_record_fields(steps, params: dict, ruleset, out: list) -> None:
    shapes = _shapes(steps, params, ruleset)
    if not shapes:
        return
    for tree in statements_of(steps):
        for node in walk(tree):
            if isinstance(node, (Attr, Index)):
                _check_chain(node, shapes, out)
