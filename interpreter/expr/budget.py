"""The step budget: how many steps one call tree may execute (limits.MAX_STEPS, raised by
a ruleset's `budgets: {steps: N}` up to its ceiling).

The call depth limit alone does not bound work: a procedure calling itself twice per
level for 40 levels, or three nested `repeat`s of 10,000, stay shallow and run for ever.
So every block of steps that is entered (a procedure's body, a branch of an `if`, each
pass of a loop) spends as many steps as it holds, in the sampled runner and in compiled
code alike, and the same rule therefore stops at the same place on both paths.

A comprehension (`[x * 2 for x in xs]`) spends one step per item of its list, on both
paths too, so nested comprehensions over long lists are bounded like nested loops.

A call tree starts at a root: a `run`, one roll of an expression, one game segment (a phase's steps for one unit or
side, a status trigger, the start and end of a turn), or a procedure called from an
expression outside any tree (`rulecraft roll "attack()"`).  Roots call `begin` and `end`;
the count is one process-wide pair (steps left, whether a tree is running), which is all
compiled code needs to read (`WORK`).
"""
from __future__ import annotations

from contextlib import contextmanager

from ..errors import LimitError
from ..limits import MAX_FORKS, MAX_STEPS, MAX_STEPS_CEILING

WORK = [MAX_STEPS, False, MAX_STEPS]   # steps left, a tree is running, the tree's budget
DEFAULT = [MAX_STEPS]   # the budget of a root that names none: the ruleset's, while in use
FORKS = [MAX_FORKS]     # the exact-work budget of an enumeration begun now (run/frames.py)
# The work meter of exact enumeration: [expression nodes worked out exactly (expr/exact.py),
# fields of units copied with a game (state/world.py)], counted since the process began;
# an enumeration charges its budget with what the meter moved while it ran (run/frames.py).
METER = [0, 0]


def begin(limit: int | None = None):
    """Start a call tree with `limit` steps (by default the ruleset's in use, see
    `ruleset_budget`, else MAX_STEPS); returns what `end` puts back (roots may nest: a
    game's segment inside an API call, say)."""
    before = tuple(WORK)
    limit = limit or DEFAULT[0]
    WORK[0], WORK[1], WORK[2] = limit, True, limit
    return before


@contextmanager
def ruleset_budget(limit: int | None, forks: int | None = None):
    """While a ruleset is in use (its odds, a roll of an expression with its names), the
    roots that do not know the ruleset (an exact comprehension, one roll, a table's
    steps run from an expression) take its raised `budgets: {steps: N}` as their own,
    and every exact enumeration begun meanwhile its `budgets: {forks: N}`."""
    before = DEFAULT[0], FORKS[0]
    DEFAULT[0] = limit or MAX_STEPS
    FORKS[0] = forks or MAX_FORKS
    try:
        yield
    finally:
        DEFAULT[0], FORKS[0] = before


def end(before) -> None:
    WORK[0], WORK[1], WORK[2] = before


def as_root(limit, run, *args) -> None:
    """`run(*args)` as a call tree of its own, with `limit` steps (one game segment)."""
    before = begin(limit)
    try:
        run(*args)
    finally:
        end(before)


def running() -> bool:
    return WORK[1]


def spend(steps, loc) -> None:
    """Spend `len(steps)` steps (items of a comprehension's list); past the budget, the
    LimitError at `loc`."""
    WORK[0] -= len(steps)
    if WORK[0] < 0:
        exhausted(loc)


def exhausted(loc) -> None:
    limit = WORK[2]
    WORK[0] = limit   # so that the error's own handling (a re-run Step) is not refused too
    raise LimitError(f"this run executed more than {limit:,} steps (the step budget)", loc,
                     code="limit-steps",
                     hint=f"a loop or a procedure calling itself does more work than a game "
                          f"needs; if it is meant, raise the budget with `budgets: {{steps: "
                          f"N}}` in the ruleset (at most {MAX_STEPS_CEILING:,})")
