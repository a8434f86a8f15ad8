"""Which unit fields the rest of an exact enumeration can still read: states that
differ only in fields no later step reads merge (issue #16).

Locals no later step reads are dropped before merging (exact.enumerate_liveness); this is
the same for the game's unit fields, where it is known.  A branch's `seen` is what the
steps after its procedure returns read of the game, as (unit id, field path) pairs (a
path's prefix: everything under it), or None for everything: at the top of a procedure's
odds it is what `--track` and `--given` read (game/odds.py); a procedure called from a
statement of its caller's own step list (not inside a block) gets what the caller's later
statements read, as written paths on units its names hold, and the caller's `seen`.
Anything the paths cannot say -- a procedure, action or table call, `units`, a choice, a
roll with its hooks, a name bound later -- makes it None.

It is used in one place, where the gain is large: the last pass of a `for` loop that no
statement of its procedure reads the game after (a weapon's damage dice: the last die's
states are merged on what the caller and the question read of them, not on the whole
game).  The ends of such a call depend on its `seen`, so a remembered call's key holds it
(run/exact_calls.py); calls left to the caller read the game too, so a branch holding one
is keyed whole."""
from __future__ import annotations

from fractions import Fraction

from ..expr.functions import FUNCTIONS
from ..lang.ast import Attr, Comprehension, Index, LetExpr, Name, Text, children_of
from ..lang.steps import ChooseStep, RollStep
from ..state.freezing import Hashed
from ..state.world import Unit
from .frames import WORLD_NAMES, locals_key, result_key, snapshot_rest
from . import call_memo

# a statement of a procedure's own step list -> what the statements after it read
# (frozenset of (name, path) written in them) or None (something no path says)
_AFTER: dict = {}
_STUDIED: dict = {}


def study(proc) -> None:
    """Note what the statements after each statement of `proc`'s step list read (once
    per procedure)."""
    steps = proc.steps
    if id(steps) in _STUDIED:
        return
    _STUDIED[id(steps)] = steps   # held, so that the id is not reused
    for i, step in enumerate(steps):
        _AFTER[step] = _reads(steps[i + 1:])


def after(step, branch):
    """What the game is read at after `step` (a statement of its procedure's own step
    list) in this branch and its callers, or None: everything."""
    seen = branch.seen
    chains = _AFTER.get(step)
    if seen is None or chains is None:
        return None
    paths = set(seen)
    for name, path in chains:
        if path is None:   # a function of values called: unless a name shadows it
            if _shadowed(name, branch.locals, branch.globals):
                return None
            continue
        value = branch.locals.get(name, _MISSING)
        if value is _MISSING:
            if name in WORLD_NAMES or name not in branch.globals:
                return None   # bound later, or the game's
            value = branch.globals[name]
        if value.__class__ is Unit:
            paths.add((value.uid, path))
        elif _holds_unit(value):
            return None
    return frozenset(paths)


def top(chains, locals_: dict, globals_) -> frozenset | None:
    """What the expressions read on the state a procedure's odds end in (`--track`,
    `--given`) say of the game, given their chains (`expression_reads`)."""
    if chains is None:
        return None
    paths = set()
    for name, path in chains:
        if name == "result":
            continue
        if path is None:
            if _shadowed(name, locals_, globals_):
                return None
            continue
        value = locals_.get(name, _MISSING)
        if value is _MISSING:
            if name in WORLD_NAMES or name not in globals_:
                return None
            value = globals_[name]
        if value.__class__ is Unit:
            paths.add((value.uid, path))
        elif _holds_unit(value):
            return None
    return frozenset(paths)


def keyed_on(paths: frozenset):
    """A merge key keeping of the game only the fields at `paths` and everything that
    is not a unit's field (its statuses, positions, sides...): `Merged.seen`."""
    ordered = tuple(sorted(paths, key=repr))

    def key(branch):
        world = branch.world
        if branch.pending or world is None or world.deferred or world.doomed:
            return branch.key()   # calls left to the caller or to the phase's end read it
        if world.__class__ is call_memo.Unmade:   # its fields read without making it
            frame, values = _frame(world.base), world.values_at(ordered)
        else:
            frame, values = _frame(world), call_memo._values_at(world, ordered)
        return ("seen", locals_key(branch.locals), frame, values, result_key(branch.result),
                branch.returned, branch.capped, branch.script)
    return key


def _frame(world):
    """Everything of a game but its units' field values: which units and objects there
    are with their sides, statuses and field names, and the rest of the snapshot.  Kept
    on the world while it lives (`World.seen_frame`), sound as its key is: a merged world
    is never changed."""
    seen = world.seen_frame
    if seen is None:
        seen = world.seen_frame = Hashed(_framed(world))
    return seen


def _framed(world):
    return (tuple((uid, u.side, tuple(s.snapshot() for s in u.statuses), tuple(u.fields))
                  for units in (world.units, world.objects) for uid, u in units.items()),
            snapshot_rest(world), world.turn, world.phase, world.serial,
            None if world.unit_order is None else tuple(world.unit_order))


def expression_reads(nodes) -> frozenset | None:
    """The (name, path) chains the expressions read, or None; (function, None) for a
    function of values they call."""
    out: set = set()
    for node in nodes:
        if not _chains(node, out, frozenset()):
            return None
    return frozenset(out)


_MISSING = object()


def _shadowed(function: str, locals_, globals_) -> bool:
    """Whether a local or a rule's name holds something else under a function's name (a
    call statement calls that)."""
    return function in locals_ or (function in globals_ and globals_[function] is not
                                   FUNCTIONS[function])
_PLAIN = frozenset({int, str, bool, float, Fraction, type(None)})


def _holds_unit(value) -> bool:
    if value.__class__ in _PLAIN:
        return False
    if isinstance(value, Unit):
        return True
    if isinstance(value, dict):
        return any(_holds_unit(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_unit(v) for v in value)
    return False


def _reads(steps) -> frozenset | None:
    """The (name, path) chains every expression of `steps` (and of their blocks) reads,
    a field assigned counted as read; None when one of them reads what no chain says."""
    out: set = set()
    todo = list(steps)
    while todo:
        step = todo.pop()
        if isinstance(step, (ChooseStep, RollStep)):
            return None   # a choice's policy, a roll's hooks: procedures
        for node in step.expressions():
            if node is not None and not _chains(node, out, frozenset()):
                return None
        for block in step.blocks():
            todo.extend(block)
    return frozenset(out)


def _chains(node, out: set, bound: frozenset) -> bool:
    """Add the chains `node` reads to `out` (names in `bound` are the expression's own);
    False when it calls anything but a function of values."""
    cls = node.__class__
    if cls is Name:
        if node.id not in bound:
            out.add((node.id, ()))
        return True
    if cls is Attr or cls is Index:
        path, current = [], node
        while current.__class__ is Attr or current.__class__ is Index:
            if current.__class__ is Attr:
                path.append(current.name)
            elif current.key.__class__ is Text:
                path.append(current.key.value)   # a record's field (call_memo._value_at)
            else:
                if not _chains(current.key, out, bound):
                    return False
                path = []   # a computed key or a list's index: all under the part before it
            current = current.obj
        if current.__class__ is not Name:
            return _chains(current, out, bound)
        if current.id not in bound:
            out.add((current.id, tuple(reversed(path))))
        return True
    if cls is Comprehension:
        inner = bound | {node.var}
        return (_chains(node.source, out, bound) and _chains(node.item, out, inner)
                and (node.cond is None or _chains(node.cond, out, inner)))
    if cls is LetExpr:
        return _chains(node.value, out, bound) and _chains(node.body, out, bound | {node.name})
    func = getattr(node, "func", None)
    if func is not None:
        if func not in FUNCTIONS or func in bound:
            return False   # a procedure, an action, a table or a local holding one
        out.add((func, None))   # a function of values, unless a name shadows it (`after`)
    return all(_chains(child, out, bound) for child in children_of(node))
