"""Which procedure calls an enumerated procedure may leave to its caller (deferred calls).

A called procedure is remembered by what it reads (run/call_memo.py), and the calls it
makes read on its behalf: a damage procedure that transfers what is left to the next
location reads that location too, so it is enumerated again for every state of the
next location although its own steps read only the first.  When nothing after a call
statement touches the game -- the steps left read only locals holding plain values,
make no other call than such statements, and return a value of those locals -- the
call can just as well run after the procedure has returned: the game it meets is the
same (no step in between changes it), and so are the caller's result and every later
step.  So such a call is noted in the branch (`frames.Pending`) instead of being
enumerated, the procedure is remembered by its own reads alone, and its caller makes
the noted calls, in their order, in the game each end left (run/exact.py,
`explore_procedure`), each remembered by its own reads in turn.  A later call agreeing
on the procedure's own reads reuses its enumeration, and only the calls whose reads
differ are enumerated again: the remembered call is a tree whose nodes are calls.

(Not the `defer` built-in of state/batches.py, which holds a call to the end of a phase
in sampled and exact runs alike: this is only the order an enumeration makes calls in.)

Here is the static half: for every call statement of a procedure, whether the steps
after it (to the procedure's end, a loop's body again included) are of that kind, and
which names they read.  The names' values are checked when the call is reached
(`deferrable`): a unit read by a field, a side, or a global name (a table, the
turn) is the game.
"""
from __future__ import annotations

from ..records import record
from fractions import Fraction

from ..lang.ast import Call, Name, walk
from ..lang.resolve import free_names
from ..lang.steps import AssignStep, CallStep, ForStep, IfStep, LetStep, ModifyStep, RepeatStep, \
    ReturnStep
from ..state.world import Side, Unit
from .frames import WORLD_NAMES


@record(frozen=True)
class After:
    """What the steps after a call statement read: `reads` by value (they must hold
    plain values), `passed` only as bare arguments of later calls (units may be passed
    on: the call that receives one reads it when it runs), `binds` the names they bind
    themselves (read after binding, plain by construction)."""

    reads: frozenset
    passed: frozenset
    binds: frozenset


# call step -> After, or None when what follows it may touch the game
_AFTER: dict = {}
_STUDIED: dict = {}


def after_call(step):
    """The `After` of a call statement studied with its procedure, or None (not
    deferrable, or not a step of a studied procedure: a table's cell, a phase)."""
    return _AFTER.get(step)


def deferrable(step, b) -> bool:
    """Whether this call statement can be left to the caller of the procedure being
    enumerated (see above): inside a called procedure, with nothing after it
    reading the game -- the names the steps after it read hold plain values (or units
    only passed on to later calls), and none of them is a global."""
    if b.pending is None:
        return False
    after = after_call(step)
    if after is None:
        return False
    names, known = b.locals, b.globals
    for name in after.reads:
        if name in names:
            if not _detached(names[name]):
                return False
        elif name not in after.binds or name in known or name in WORLD_NAMES:
            return False
    for name in after.passed:
        if name in names:
            value = names[name]
            if not (_detached(value) or isinstance(value, (Unit, Side))):
                return False
        elif name not in after.binds or name in known or name in WORLD_NAMES:
            return False
    return True


def _detached(value) -> bool:
    """A value no part of the game can be reached from: plain values, and records and
    lists of them."""
    kind = value.__class__
    if kind in _DETACHED:
        return True
    if kind is dict:
        return all(_detached(v) for v in value.values())
    if kind is list or kind is tuple:
        return all(_detached(v) for v in value)
    return isinstance(value, (int, str, float, Fraction)) and not isinstance(value, (Unit, Side))


_DETACHED = frozenset({int, bool, str, float, Fraction, type(None)})


def study(proc) -> None:
    """Note the `After` of every call statement of `proc` (once per procedure)."""
    if id(proc.steps) in _STUDIED:
        return
    _STUDIED[id(proc.steps)] = proc.steps   # held, so that the id is not reused
    facts = proc.resolution()
    procedures = {name for name, value in proc.ruleset.globals.items()
                  if hasattr(value, "explore_call") and name not in facts.locals}
    _walk(proc.steps, [], procedures)


def leaves_none(proc) -> bool:
    """Whether `proc` leaves no call to its caller (no call statement of its own may be
    left): its ends never hold calls to be made after it."""
    study(proc)
    found = _LEAVES.get(id(proc.steps))
    if found is None:
        found = _LEAVES[id(proc.steps)] = not any(
            _AFTER.get(step) is not None for step in _calls(proc.steps))
    return found


_LEAVES: dict = {}   # id(a studied procedure's steps) -> leaves_none (held in _STUDIED)


def _calls(block):
    for step in block:
        if isinstance(step, CallStep):
            yield step
        elif isinstance(step, IfStep):
            yield from _calls(step.then)
            yield from _calls(step.other)
        elif isinstance(step, (ForStep, RepeatStep)):
            yield from _calls(step.body)


def _walk(block, rest: list, procedures) -> None:
    """`rest`: the steps that run after `block` ends, innermost first, as (steps) lists
    (a loop's body and its condition are there again: they may run once more)."""
    for i, step in enumerate(block):
        after = [block[i + 1:]] + rest
        if isinstance(step, CallStep):
            _AFTER[step] = _after([[step]] + after, procedures)
        if isinstance(step, IfStep):
            _walk(step.then, after, procedures)
            _walk(step.other, after, procedures)
        elif isinstance(step, (ForStep, RepeatStep)):
            _walk(step.body, [[step]] + after, procedures)


def _after(blocks, procedures):
    reads, passed, binds = set(), set(), set()
    for steps in blocks:
        for step in steps:
            if not _plain_step(step, reads, passed, binds, procedures):
                return None
    return After(frozenset(reads), frozenset(passed - reads), frozenset(binds))


def _plain_step(step, reads, passed, binds, procedures) -> bool:
    """Whether `step` touches the game only by calls that can be deferred (adding the
    names it reads and binds)."""
    if isinstance(step, (LetStep, ModifyStep)):
        binds.add(step.name)
        return _plain_expr(step.node, reads)
    if isinstance(step, AssignStep):
        if len(step.path) != 1:
            return False
        binds.add(step.path[0])
        reads.add(step.path[0])
        return _plain_expr(step.node, reads)
    if isinstance(step, ReturnStep):
        return _plain_expr(step.node, reads)
    if isinstance(step, IfStep):
        return _plain_expr(step.cond, reads) and all(
            _plain_step(s, reads, passed, binds, procedures) for s in (*step.then, *step.other))
    if isinstance(step, ForStep):
        binds.add(step.var)
        return _plain_expr(step.items, reads) and all(
            _plain_step(s, reads, passed, binds, procedures) for s in step.body)
    if isinstance(step, RepeatStep):
        return _plain_expr(step.until, reads) and all(
            _plain_step(s, reads, passed, binds, procedures) for s in step.body)
    if isinstance(step, CallStep):
        call = step.call
        if call.func not in procedures:
            return False
        for arg in [*call.args, *(v for _, v in call.kwargs)]:
            if isinstance(arg, Name):
                passed.add(arg.id)
            elif not _plain_expr(arg, reads):
                return False
        return True
    return False   # choose, roll, emit, anything else: not studied, so not deferred


def _plain_expr(node, reads) -> bool:
    """No call inside (a built-in may read the game); the names it reads noted."""
    if any(isinstance(n, Call) for n in walk(node)):
        return False
    reads |= free_names(node)
    return True
