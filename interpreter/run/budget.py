"""The step budget: how many steps one call tree may execute (limits.MAX_STEPS, raised by
a ruleset's `budgets: {steps: N}` up to its ceiling).

The call depth limit alone does not bound work: a procedure calling itself twice per
level for 40 levels, or three nested `repeat`s of 10,000, stay shallow and run for ever.
So every block of steps that is entered (a procedure's body, a branch of an `if`, each
pass of a loop) spends as many steps as it holds, in the sampled runner and in compiled
code alike, and the same rule therefore stops at the same place on both paths.

A call tree starts at a root: a `run`, one game segment (a phase's steps for one unit or
side, a status trigger, the start and end of a turn), or a procedure called from an
expression outside any tree (`rulecraft roll "attack()"`).  Roots call `begin` and `end`;
the count is one process-wide pair (steps left, whether a tree is running), which is all
compiled code needs to read (`WORK`).
"""
from __future__ import annotations

from ..errors import LimitError
from ..limits import MAX_STEPS, MAX_STEPS_CEILING

WORK = [MAX_STEPS, False, MAX_STEPS]   # steps left, a tree is running, the tree's budget


def begin(limit: int | None = None):
    """Start a call tree with `limit` steps (MAX_STEPS by default); returns what `end`
    puts back (roots may nest: a game's segment inside an API call, say)."""
    before = tuple(WORK)
    limit = limit or MAX_STEPS
    WORK[0], WORK[1], WORK[2] = limit, True, limit
    return before


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
    """Spend `len(steps)` steps; past the budget, the LimitError at `loc`."""
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
