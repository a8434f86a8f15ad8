"""What the code generator knows about steps before writing them (see `codegen`):
which dice may be plain ints, which calls change no unit, which steps it writes itself.
These facts only ever make the generated code take a shorter path where it cannot change
a result; the lead's resolver (lang/resolve.py) is to answer the name questions here."""
from __future__ import annotations

from fractions import Fraction

from ..expr.functions import FUNCTIONS
from ..lang.ast import (Attr, Binary, Bool, Call, Dice, IfExpr, Index, ListExpr, Name, Node,
                        Num, Text, Unary, walk)
from ..lang.steps import (AssignStep, CallStep, ChooseStep, EmitStep, ForStep, IfStep,
                          LetStep, ModifyStep, RepeatStep, ReturnStep, Step, all_steps)
from ..state.actions import Action
from ..tables import BrokenCell, Formula, Table
from ..tables.rows import NOT_LITERAL
from .frames import WORLD_NAMES

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
ARITHMETIC = ("+", "-", "*", "/")
# node types the writer compiles itself (anything else is left to a closure)
WRITTEN = (Num, Text, Bool, Dice, Name, Attr, Index, ListExpr, Unary, Binary, IfExpr, Call)


def changes_nothing(target, seen: set) -> bool:
    """Whether calling `target` surely changes no unit: an action that only reads the
    game, or a procedure whose steps call nothing else (calls it is already being asked
    about count as harmless: a cycle of harmless calls is harmless)."""
    if type(target) is Action:
        return not target.mutates
    if not getattr(target, "dsl_procedure", False):
        return False
    if id(target) in seen:
        return True
    seen.add(id(target))
    constants = target.ruleset.fixed_globals()
    own = target.resolution().locals
    for step in all_steps(target.steps):
        if not written_by_us(step):
            return False
        for tree in step.expressions():
            for node in walk(tree):
                if isinstance(node, Call) and not (node.func in FUNCTIONS and not node.kwargs) \
                        and (node.func in own
                             or not changes_nothing(constants.get(node.func), seen)):
                    return False
    return True


def inline_die(node: Dice) -> str | None:
    """Python source rolling one plain die exactly as its sampler does (one draw,
    `int(random() * sides)` picks the face), or None for any other term.  `FACES`
    stands for the faces tuple when they are not consecutive."""
    spec = node.spec
    if spec.count != 1 or spec.reroll or spec.explode or spec.keep is not None \
            or spec.success is not None:
        return None
    faces, sides = spec.faces, len(spec.faces)
    if faces == tuple(range(faces[0], faces[0] + sides)):
        return f"(int(rng.random() * {sides}) + {faces[0]})"
    return f"FACES[int(rng.random() * {sides})]"


# ------------------------------------------------------------------ analysis


def compiled_steps(steps):
    """The steps the writer compiles itself with their nested blocks, not descending into
    a step it hands over (a `repeat`'s body runs in the sampled runner, whose lookups
    give rows, not ConstantRows)."""
    for step in steps:
        yield step
        if type(step) in (IfStep, ForStep):
            for block in step.blocks():
                yield from compiled_steps(block)


def written_by_us(step: Step) -> bool:
    """Whether the writer compiles the step itself (surely: an assignment to a bare
    name is compiled only when the name is a local, so it counts as handed over)."""
    if type(step) is AssignStep:
        return len(step.path) > 1
    return type(step) in (ModifyStep, LetStep, ReturnStep, CallStep, IfStep, ForStep, EmitStep,
                          RepeatStep)


def plain_dice(steps: list[Step], binders_count: dict, cell_names=None) -> set[str]:
    """Names that can hold a single die's face as a plain int (see the module doc).
    `cell_names`: every name the ruleset's table `steps` cells mention (they run on the
    caller's names), or None when they are not known."""
    everything = list(all_steps(steps))
    if not all(written_by_us(s) for s in everything):
        return set()
    candidates = {s.name for s in everything
                  if type(s) is LetStep and isinstance(s.node, Dice) and inline_die(s.node)
                  and binders_count.get(s.name) == 1}
    for step in everything:
        # a modify runs as its whole value (`node`) here: its parts are only the
        # transcript's breakdown, which compiled code never writes
        for tree in ((step.node,) if type(step) is ModifyStep else step.expressions()):
            for node in walk(tree):
                if not isinstance(node, WRITTEN):
                    return set()
                if isinstance(node, Call) and node.func == "run" and cell_names is None:
                    return set()
                for child, safe in children(node):
                    if isinstance(child, Name) and child.id in candidates and not safe:
                        candidates.discard(child.id)
            if isinstance(tree, Name) and tree.id in candidates:
                candidates.discard(tree.id)   # a whole value: returned, passed on ...
        if type(step) is AssignStep:
            candidates.discard(step.path[0])   # its owner: a roll is not one
    return candidates - (cell_names or set())


def children(node: Node):
    """(child, whether a plain int there behaves exactly as a bound roll)."""
    if isinstance(node, Binary):
        safe = node.op in COMPARISONS + ARITHMETIC
        return [(node.left, safe), (node.right, safe)]
    if isinstance(node, Attr):
        return [(node.obj, node.name in ("natural", "total"))]
    if isinstance(node, Index):
        return [(node.obj, False), (node.key, True)]
    if isinstance(node, Unary):
        return [(node.operand, node.op == "-")]
    if isinstance(node, IfExpr):
        return [(node.cond, False), (node.then, False), (node.other, False)]
    if isinstance(node, ListExpr):
        return [(i, False) for i in node.items]
    if isinstance(node, Call):
        return [(a, False) for a in node.args] + [(v, False) for _, v in node.kwargs]
    return []


# ------------------------------------------------------------------ remembered calls

PLAIN_VALUES = (int, str, bool, Fraction, type(None))
_REMEMBERED_PARAMS = ("integer", "number", "boolean", "text")
_REMEMBERED_STEPS = (LetStep, IfStep, ReturnStep)
_REMEMBERED_NODES = (Num, Text, Bool, Name, Attr, Index, Unary, Binary, IfExpr, Call)


def remembered(procedure) -> bool:
    """Whether a compiled call of `procedure` may be answered from what an earlier call
    with the same arguments gave (`gen_runtime.recall`): its result can depend on
    nothing but its arguments.  So: plain parameters (numbers, text, booleans); steps
    the writer compiles itself that roll nothing, call nothing but the pure built-in
    functions, change nothing and read no name but its own, the ruleset's plain
    constants and tables whose every lookup gives the same value (no dice, no formula
    that is not a literal, no face rolled again).  Such a call draws nothing from the
    random stream and touches no world, so only its step budget and its call depth can
    tell a remembered answer from a real one, and the caller settles both as the call
    would (see `ExpressionWriter._remembered_call`).  Worked out once per procedure."""
    known = procedure.__dict__.get("_remembered")
    if known is None:
        known = procedure._remembered = _remembered(procedure)
    return known


def _remembered(procedure) -> bool:
    if not getattr(procedure, "dsl_procedure", False) or not procedure.params:
        return False
    if any(p.type not in _REMEMBERED_PARAMS for p in procedure.params.values()):
        return False
    rules = procedure.ruleset
    constants = rules.fixed_globals()
    bound = procedure.resolution().binders
    own = set(procedure.params) | {n for n in bound if n not in rules.globals
                                   and n not in WORLD_NAMES}
    for step in all_steps(procedure.steps):
        if type(step) not in _REMEMBERED_STEPS:
            return False
        for tree in step.expressions():
            for node in walk(tree):
                if not isinstance(node, _REMEMBERED_NODES):
                    return False
                if isinstance(node, Call) and (node.func not in FUNCTIONS or node.kwargs
                                               or node.func in own or node.func in bound):
                    return False
                if isinstance(node, Name) and node.id not in own and (
                        node.id in bound or not _steady(constants.get(node.id, _MISSING))):
                    return False
    return True


_MISSING = object()


def _steady(value) -> bool:
    """A constant whose every read gives the same value: a plain value, or a table of
    faces, bands or names whose cells are values or literal formulas."""
    if value.__class__ in PLAIN_VALUES:
        return True
    if not isinstance(value, Table):
        return False
    if getattr(value, "constant", False):
        return True
    if value.mode not in ("die", "band", "name") or value.index is None or value.unhandled:
        return False
    return all(_literal(row.value) and _literal(row.cells) for row in value.rows)


def _literal(cell) -> bool:
    if isinstance(cell, Formula):
        return cell.literal() is not NOT_LITERAL
    if isinstance(cell, BrokenCell):
        return False
    if isinstance(cell, dict):
        return all(_literal(c) for c in cell.values())
    if isinstance(cell, list):
        return all(_literal(c) for c in cell)
    return True


# ------------------------------------------------------------------ what a run leaves alone

# the actions that change the game but never a use count, a last move, a position or
# a distance
_STILL_CHANGES = frozenset(("apply", "remove", "renew", "score", "end_turn", "capture"))
_STILL_STEPS = (ModifyStep, LetStep, ReturnStep, CallStep, IfStep, ForStep, AssignStep,
                ChooseStep, RepeatStep, EmitStep)


def leaves_places(steps, constants: dict, ruleset) -> bool:
    """Whether running `steps` (a procedure's, with `constants` the globals its names do
    not hide) surely changes none of the world's use counts, last moves, positions and
    distances:
    every call in them and in what they call is a pure function, an action that reads
    the game or changes only fields and statuses (`_STILL_CHANGES`), a procedure (its
    steps asked the same), `run()` (every table cell's steps asked), or `destroy()`
    (every `on:` hook of the ruleset asked); no step rolls against a unit (its roll
    hooks), and no constant table has a formula cell beyond a literal.  A bulk run of
    such a procedure need not put those back (codegen.repeated_run).  Anything unsure
    is a no."""
    try:
        return _quiet(steps, constants, frozenset(), ruleset, set())
    except RecursionError:
        return False


def _quiet(steps, constants: dict, own, ruleset, seen: set) -> bool:
    for step in all_steps(steps):
        if type(step) not in _STILL_STEPS:
            return False
        for tree in step.expressions():
            for node in walk(tree):
                if isinstance(node, Name) and isinstance(constants.get(node.id), Table) \
                        and not _literal_table(constants[node.id]):
                    return False
                if isinstance(node, Call) and not _quiet_call(node, constants, own, ruleset,
                                                              seen):
                    return False
    return True


def _quiet_call(node: Call, constants: dict, own, ruleset, seen: set) -> bool:
    if node.func in FUNCTIONS and not node.kwargs:
        return True   # (the writer calls the function whatever else the name is)
    target = None if node.func in own else constants.get(node.func)
    if type(target) is Action:
        return not target.mutates or target.name in _STILL_CHANGES
    if target is None or id(target) in seen:
        return target is not None   # a cycle of quiet calls is quiet
    seen.add(id(target))
    if getattr(target, "runs_cells", False):   # the cells run on the caller's names
        return all(_quiet(cell, constants, own, ruleset, seen)
                   for *_, cell in getattr(ruleset, "cell_steps", ()))
    if getattr(target, "call_one", None) is not None and getattr(target, "name", "") == "destroy":
        hooks = [h for owner in [*ruleset.kinds.values(), *ruleset.statuses.values()]
                 for h in getattr(owner, "hooks", {}).values()]
        return all(_quiet_procedure(h, ruleset, seen) for h in hooks)
    if getattr(target, "dsl_procedure", False):
        return _quiet_procedure(target, ruleset, seen)
    return False


def _quiet_procedure(procedure, ruleset, seen: set) -> bool:
    seen.add(id(procedure))
    if procedure.ruleset is not ruleset:
        return False
    return _quiet(procedure.steps, ruleset.fixed_globals(), procedure.resolution().locals,
                  ruleset, seen)


def _literal_table(table: Table) -> bool:
    return all(_literal(row.value) and _literal(row.cells) for row in getattr(table, "rows", ()))
