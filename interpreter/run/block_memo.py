"""A block of steps worked out once per state it can tell apart (issue #12).

A loop's body or an `if`'s arm that only reads and writes local names (no unit, no
world, no call but the pure built-ins) is a function of the values of the names it
reads: a state with `killed = 1, current = 0` goes through the body of a volley's attack
the same way in the third pass as in the twelfth.  So the block is enumerated once per
distinct (values of the names it reads or may bind, the names the branch holds) and its
ends are kept as (probability, the names it may bind and their values, the names left);
every other branch agreeing on those is answered by copying the ends, its own
probability times theirs.  What the block reads and binds is the resolver's
(lang/resolve.py).  This is the dynamic programme a hand-written mathhammer calculator
is: one transition table per step of the loop, worked out on demand.

Exactness: the ends of a block depend only on what it reads (its own steps' expressions
are pure there), on which names the branch holds (the merging drops dead names by name)
and on the branch's flags, all of which are in the key; a name it may bind is keyed as
well, since on a path that does not bind it the name keeps the value it came in with;
any other name is never touched, so it is the branch's own.  The probability is linear,
so a branch's ends are the representative's scaled by the branch's own chance.
"""
from __future__ import annotations

from fractions import Fraction

from ..expr.functions import FUNCTIONS
from ..expr.values import RolledDice
from ..lang.ast import (Attr, Binary, Bool, Call, Comprehension, Dice, Group, IfExpr, Index,
                        LetExpr, ListExpr, Name, Num, RecordExpr, Text, Unary, VariableDice,
                        walk)
from ..lang.resolve import free_names, resolve
from ..lang.steps import AssignStep, ForStep, IfStep, LetStep, ReturnStep, all_steps
from .frames import WORLD_NAMES, Branch, Merged

# step list (by identity) -> the names its steps read (sorted), or None: not pure
_PURE: dict = {}
_HELD: list = []          # the step lists of _PURE, held so that their ids are not reused
_MEMO = object()          # the key of the ends kept in an enumeration's `pure` cache

# a block's ends kept per enumeration at most this many times (then it is enumerated
# as any other block: memory stays bounded in an enumeration of many distinct states)
MAX_KEPT = 4096
# more states than this new to a block at once are enumerated together, as before: each
# is then unlikely to come again, and a step that multiplies them all is counted whole
MAX_FRESH = 64

_PURE_NODES = (Num, Text, Bool, Dice, Name, Binary, Unary, IfExpr, LetExpr, Comprehension,
               ListExpr, RecordExpr, Attr, Index, Group, VariableDice)
_PURE_STEPS = (LetStep, IfStep, ForStep, ReturnStep)
_PLAIN_VALUES = frozenset({int, str, bool, float, Fraction, type(None), RolledDice})


def pure_reads(steps):
    """(the names a block reads or binds, the names it binds), if every step of it only
    binds or assigns local names through pure expressions; None otherwise.  Once per
    block."""
    key = id(steps)
    if key in _PURE:
        return _PURE[key]
    found = _judge(steps)
    _PURE[key] = found
    _HELD.append(steps)
    return found


def _judge(steps):
    for step in all_steps(steps):
        if type(step) is AssignStep:
            if len(step.path) != 1:
                return None   # a unit's field, a side's data: the world
        elif type(step) not in _PURE_STEPS:
            return None       # a call, a choice, a roll others may change, a repeat, ...
        if not all(pure_tree(tree) for tree in step.expressions()):
            return None
    return keyed_names(steps)


def keyed_names(steps) -> tuple:
    """(the names a block is answered by, sorted; the names it writes).  A name the block
    may bind is keyed too: where it is not bound, it keeps the value it came in with,
    which must then be the same for every branch answered alike."""
    facts = resolve(steps)
    names: set = set()
    writes: set = set()
    for step in steps:
        names |= facts.reads(step)
        writes |= facts.writes(step)
    return tuple(sorted(names | writes)), frozenset(writes)


def pure_tree(tree) -> bool:
    """An expression of rolls, arithmetic and the pure built-ins only."""
    for node in walk(tree):
        if isinstance(node, Call):
            if node.func not in FUNCTIONS or node.kwargs:
                return False
        elif not isinstance(node, _PURE_NODES):
            return False
    return True


# expression (by identity) -> the names it reads (sorted), or None: not pure
_PURE_EXPR: dict = {}


def pure_value(node, b: Branch, evaluate):
    """`evaluate(node, b.scope())`, worked out once per enumeration for each set of
    values of the names it reads when it is pure (a step whose outcome does not depend
    on the branch but through those values: `let lost = count([d6 < 5 for p in
    range(dmg)])` is the same three distributions in every state)."""
    names = _PURE_EXPR.get(id(node), _ABSENT)
    if names is _ABSENT:
        names = _PURE_EXPR[id(node)] = tuple(sorted(free_names(node))) \
            if pure_tree(node) else None
        _HELD.append(node)
    if names is None:
        return evaluate(node, b.scope())
    key = _values(names, b)
    if key is None:
        return evaluate(node, b.scope())
    kept = b.run.pure.get(_MEMO)
    if kept is None:
        kept = b.run.pure[_MEMO] = {}
    key = (id(node), evaluate, key)
    dist = kept.get(key)
    if dist is None:
        dist = evaluate(node, b.scope())
        if len(kept) < MAX_KEPT:
            kept[key] = dist
    return dist


def explore_block(steps, branches: list[Branch], explore_steps, loc) -> list[Branch]:
    """`explore_steps(steps, branches)`, each distinct state enumerated once (see the
    module docstring); a block that is not pure, branches it cannot key, and states
    met for the first time by more than MAX_FRESH at once go the ordinary way, together
    (so that a step multiplying them is still counted, and refused, before it branches).
    The ends are merged (as `explore_steps` merges them)."""
    facts = pure_reads(steps) if branches and steps else None
    if facts is None:
        return explore_steps(steps, branches)
    names, writes = facts
    run = branches[0].run
    kept = run.pure.get(_MEMO)
    if kept is None:
        kept = run.pure[_MEMO] = {}
    dropped = run.dead_after.get(steps[0]) or frozenset()
    out = Merged(loc=steps[-1].loc or loc)   # the ends arrive as at the block's last step
    rest, known, fresh = [], [], {}
    for b in branches:
        if b.returned:
            out.add(b)
            continue
        key = _key(steps, names, b, dropped)
        if key is None:
            rest.append(b)
        elif key in kept:
            known.append((b, kept[key]))
        else:
            fresh.setdefault(key, []).append(b)
    if len(fresh) > MAX_FRESH or len(kept) + len(fresh) > MAX_KEPT:
        rest.extend(b for group in fresh.values() for b in group)
    else:
        for key, group in fresh.items():
            ends = kept[key] = _fresh_ends(steps, group[0], explore_steps, writes)
            known.extend((b, ends) for b in group)
    if run.work + sum(len(ends) for _, ends in known) > run.work_limit:
        # past the exact-work budget: the ordinary way, which names the step and the
        # branches it would make (the work counted so far is never more than it counts)
        rest.extend(b for b, _ in known)
        known = []
    for b, ends in known:
        for end in _replayed(b, ends):
            out.add(end)
    if rest:
        out.extend(explore_steps(steps, rest))
    return out.branches()


def _key(steps, names, b: Branch, dropped):
    """What the block's ends depend on in branch `b`, or None when a name it reads holds
    anything but a plain value (a unit, a list: not keyed).  The names the branch holds
    count, but those `dropped` after the block's first step whatever their values (dead
    there: the loop's own variable, a count read once before the loop)."""
    values = _values(names, b)
    if values is None:
        return None
    held = frozenset(k for k in b.locals if k not in dropped)
    return (id(steps), values, held, b.capped, b.keep_at_end)   # no call: any depth


def _values(names, b: Branch):
    """The values of `names` in branch `b` with their types (1, 1.0 and true apart), or
    None when one is not a plain value or is a name of the world (`turn`)."""
    local = b.locals
    values = []
    for name in names:
        if name in local:
            value = local[name]
        elif name in WORLD_NAMES:
            return None
        else:
            value = b.globals.get(name, _ABSENT) if hasattr(b.globals, "get") else _ABSENT
            if value is _ABSENT:
                values.append(_ABSENT)
                continue
        if value.__class__ not in _PLAIN_VALUES:
            return None
        values.append((value.__class__, value))
    return tuple(values)


_ABSENT = ("absent",)


def _fresh_ends(steps, b: Branch, explore_steps, writes) -> list:
    """`_ends`, the work of finding them not counted against the exact-work budget: each
    end is counted as it arrives when replayed, as it would arrive at the block's last
    step the ordinary way (checked all the same, against the work done so far)."""
    run = b.run
    before = run.work
    ends = _ends(steps, b, explore_steps, writes)
    run.work = before   # (a refusal inside propagates with the budget's own count)
    return ends


def _ends(steps, b: Branch, explore_steps, writes) -> list:
    """The block enumerated from `b` taken as certain: (probability, names bound by the
    block with their values, the names held at the end, returned, result, capped).  A
    name the block binds (`writes`, the resolver's) or did not hold before is bound; any
    other name it holds at the end is the entering branch's own."""
    start = Branch(Fraction(1), b)
    start.locals = dict(b.locals)
    before = b.locals
    ends = []
    for end in explore_steps(steps, [start]):
        held = end.locals
        bound = {k: v for k, v in held.items() if k in writes or k not in before}
        ends.append((end.weight, bound, tuple(k for k in held if k not in bound),
                     end.returned, end.result, end.capped))
    return ends


def _replayed(b: Branch, ends):
    """The ends of a kept block as branch `b`'s own."""
    weight, local = b.weight, b.locals
    for p, bound, held, returned, result, capped in ends:
        end = Branch(weight if p == 1 else weight * p, b)
        names = {k: local[k] for k in held}
        names.update(bound)
        end.locals = names
        end.returned, end.result, end.capped = returned, result, capped
        yield end
