"""A loop's body that reads and changes units' fields, worked out once per state it reads.

block_memo.py remembers a loop's body over plain locals.  A body that walks a unit's
records -- a damage transfer passing what is left from location to location, `let part
= target.locations[at]` then `target.locations[at].armour -= to_armour` -- reads and
changes the game as well, so it is remembered as a called procedure is (call_memo.py):
its key is the values of the locals it reads or binds (a unit by its id), the names the
branch holds and its flags, and the unit fields it read while it was enumerated
(expr/reads.py, with their values in the game it was given); its ends are kept as
(probability, the locals it bound, the names left, the fields it changed).  A branch
agreeing on all of that -- the same transfer reaching the same location with the same
damage left, in another call or another pass -- is answered by making those changes
in its own game.

Exactness is call_memo's: the body sees only the locals it reads and the fields it
reads; two branches agreeing on them take it through the same steps, binding the same
values and writing the same values at the same paths (each written path is read too).
A name it does not bind keeps the branch's own value.  A body that changed anything
but fields, or read what no path names, is not remembered (its ends are used for that
branch alone).  Only bodies of let, if, for, return and assignments over pure
expressions qualify (no call, no action, no choice, no roll step with hooks).
"""
from __future__ import annotations

from fractions import Fraction

from ..expr import reads
from ..lang.steps import AssignStep, ForStep, IfStep, LetStep, ReturnStep, all_steps
from ..state.world import Unit
from . import call_memo
from .block_memo import keyed_names, pure_tree
from .frames import WORLD_NAMES, Branch, Merged, rebind_units

# step list (by identity) -> (the names it reads or binds, the names it binds), or None
_FACTS: dict = {}
_HELD: list = []   # the step lists of _FACTS, held so that their ids are not reused

# more branches than this entering the body at once go through it together, as
# before: each is then unlikely to come again, and merging among them does the work
MAX_AT_ONCE = 64

_STEPS = (LetStep, IfStep, ForStep, ReturnStep, AssignStep)
_PLAIN = frozenset({int, str, bool, float, Fraction, type(None)})
_TAG = ("field block",)   # the first part of a body's key among the calls' keys


def field_reads(steps):
    """(the names the body reads or binds, the names it binds), if every step of it is
    a let, if, for, return or assignment of pure expressions; None otherwise."""
    key = id(steps)
    if key not in _FACTS:
        _FACTS[key] = _judge(steps)
        _HELD.append(steps)
    return _FACTS[key]


def _judge(steps):
    for step in all_steps(steps):
        if type(step) not in _STEPS:
            return None
        if not all(pure_tree(tree) for tree in step.expressions()):
            return None
    return keyed_names(steps)


def explore_fields(steps, branches: list[Branch], explore_steps, loc) -> list[Branch] | None:
    """`explore_steps(steps, branches)` with each branch's body answered by what it
    reads (see above), or None when the body does not qualify (the caller goes the
    ordinary way).  The ends are merged as they arrive."""
    facts = field_reads(steps) if steps and branches else None
    if facts is None or branches[0].world is None or len(branches) > MAX_AT_ONCE:
        return None
    names, writes = facts
    dropped = branches[0].run.dead_after.get(steps[0]) or frozenset()
    out = Merged(loc=steps[-1].loc or loc)   # the ends arrive as at the body's last step
    rest = []
    for b in branches:
        if b.returned:
            out.add(b)
            continue
        key = _key(steps, names, b, dropped)
        if key is None:
            rest.append(b)
            continue
        told = call_memo.recall(b.run, key, b.depth, b.world)
        ends = _replayed(b, told) if told is not None else \
            _fresh(steps, b, key, explore_steps, writes)
        for end in ends:
            out.add(end)
    if rest:
        out.extend(explore_steps(steps, rest))
    return out.branches()


def _key(steps, names, b: Branch, dropped):
    """The body's key in branch `b` (the game apart), or None when a name it reads
    holds a value that cannot be keyed here or is a name of the game (`units`).  The
    branch's script and calls left to its caller are its own: the body makes no choice
    and no call."""
    local = b.locals
    values = []
    for name in names:
        if name in local:
            value = _keyed(local[name])
            if value is None:
                return None
        elif name in WORLD_NAMES:
            return None
        else:
            value = _ABSENT if name not in b.globals else ("global", name)
        values.append(value)
    held = frozenset(k for k in local if k not in dropped)
    return (_TAG, id(steps), tuple(values), held, b.capped, b.keep_at_end)


_ABSENT = ("absent",)


def _keyed(value):
    """A local's value in a key: plain values with their types (1, 1.0 and true apart),
    units by id, lists of those; None for anything else (a record, a status, a roll
    kept pending)."""
    cls = value.__class__
    if cls in _PLAIN:
        return (cls, value)
    if cls is Unit:
        return ("unit", value.uid)
    if cls is list or cls is tuple:
        items = tuple(_keyed(v) for v in value)
        return None if None in items else (cls, items)
    return None


def _fresh(steps, b: Branch, key, explore_steps, writes) -> list[Branch]:
    """The body enumerated from `b` (taken as certain, then scaled by its chance), and
    remembered by what it read when its ends can be told as changes of fields."""
    start = Branch(Fraction(1), b)
    start.locals = dict(b.locals)
    before = b.locals
    trace = reads.begin(b.depth)
    try:
        ends = explore_steps(steps, [start])
    finally:
        reads.end(trace)
    told = []
    for end in ends:
        bound = tuple((k, v) for k, v in end.locals.items() if k in writes or k not in before)
        held = tuple(k for k in end.locals if k in before and k not in writes)
        told.append((end.weight, (bound, held, end.returned, end.result), end.world,
                     end.capped, end.script, ()))
    call_memo.remember(b.run, key, b.depth, b.world, trace, told)
    for end in ends:
        end.weight = b.weight if end.weight == 1 else b.weight * end.weight
    return ends


def _replayed(b: Branch, told) -> list[Branch]:
    """The remembered ends made in branch `b`'s game, as its own branches."""
    out = []
    for p, (bound, held, returned, result), changes, capped, _, _ in told:
        world, _ = call_memo.replay(b.world, changes, None)
        end = Branch(b.weight if p == 1 else b.weight * p, b)
        names = {k: b.locals[k] for k in held}
        if world is not b.world:
            rebind_units(names, world)
        # (the units a remembered end bound are of the game it was found in)
        names.update((k, call_memo.moved(v, world)) for k, v in bound)
        result = call_memo.moved(result, world)
        end.locals, end.world = names, world
        end.returned, end.result, end.capped = returned, result, capped
        out.append(end)
    return out
