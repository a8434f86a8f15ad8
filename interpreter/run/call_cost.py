"""The exact-work budget of a chain of calls, foreseen from its first returns (issue #20).

A procedure that calls itself (`q(n)`: `let t = q(n - 1)`, then `t += d20`) is a loop
written as calls: each level makes a little more work than the one below it, and the
budget (limits.MAX_FORKS), counting branches as they arrive, refuses it only once the
whole budget is spent: seconds of work thrown away.  As with a loop (run/loop_cost.py),
the work still to come is known early.  Enumeration goes down the chain first and does
its work on the way back up, so when a call returns, every call of the same procedure
still open around it has that work ahead of it: the part of its steps after its own call
of the procedure returned (its *tail*).  The tails of the calls that have returned are
the passes of this loop, and the calls still open are its passes left.

So each call of a procedure that itself called the procedure (a link of the chain, not
its end) adds its tail to the chain's record, and after FORESEE_AFTER of them the tails
ahead are foreseen by loop_cost's lower envelope: if every recent tail (the later half)
made at least as much work as the one before, each open call ahead makes at least the
last one's work plus the least growth seen for each call further out; if not, at least
the least recent tail, and no growth; over FORESEE_HORIZON times the tails seen, never
more than the calls still open.  A chain whose tails grow evenly is thus refused exactly
when its own tails would pass the budget, and one that fits never is.  Mutual recursion
is the same chain seen from each procedure in it: `a`'s tail holds the tail of the `b`
between two calls of `a`.  A tree of calls (`q(n - 1) + q(n - 1) + d6`) is a chain whose links each call the
procedure more than once: when every recent link returned (the later half of those seen
along the path) had made at least f >= 2 calls of it that did work (not answered from
the memo), each call still open is foreseen to make f in all too, each of those still
to come, like a link's calls after its first, at least as much work as the least of
those of the link just returned if the recent links' least later calls grew link by
link (a call one level further out does no less), else as the least of them: its
second call is the same call again (`q(n - 1)` twice), or a smaller one (`q(n - 2)`).  Other steps a call has
still to do before its own call returns are not counted: the forecast stays below the
work to come.

The record of a procedure lives as long as one of its calls is open in an enumeration,
and is kept in the enumeration (`run.pure`), shared with the enumerations that a
procedure called inside an expression makes (`procedures.py`), whose work counts in the
same budget.
"""
from __future__ import annotations

from contextlib import contextmanager

from ..errors import LimitError
from ..limits import BUDGETS, FORESEE_AFTER, FORESEE_HORIZON

__all__ = ["RUNNING", "begin", "called", "current", "left", "returned", "share"]

_CHAINS = object()   # run.pure's key for {procedure: _Chain}


class _Chain:
    """One procedure's calls open in an enumeration (innermost last: per call, the work
    count where its tail began, whether it has called the procedure itself, and whether
    it was answered from the memo), and the tails of the latest links returned at each
    depth of the chain (`tails[h]`: with h calls of the procedure open around it)."""

    __slots__ = ("open", "tails", "fans", "lates")

    def __init__(self):
        self.open: list = []
        self.tails: list = []
        self.fans: list = []    # fans[h]: the calls that did work made by that link
        self.lates: list = []   # lates[h]: the least work of one of its calls after its first


class Call:
    """One open call, as `called` yields it: `recalled` is set by a call answered from
    the memo (it made no work of its own, and the tails below it are its own, kept);
    `made` counts its own calls of the procedure that did work (the open one included),
    `start` is the work count when it began, `later` the least work of one of its calls
    of the procedure after its first."""

    __slots__ = ("began", "linked", "recalled", "made", "start", "later")

    def __init__(self, began: int):
        self.began, self.linked, self.recalled = began, False, False
        self.made, self.start, self.later = 0, began, None


def share(run, sub) -> None:
    """Let `sub`, an enumeration made for a procedure called inside an expression of
    `run`, count its work from `run`'s and see `run`'s open calls (see `current`)."""
    sub.pure[_CHAINS] = _chains(run)
    sub.work, sub.work_limit = run.work, run.work_limit


def _chains(run) -> dict:
    chains = run.pure.get(_CHAINS)
    if chains is None:
        chains = run.pure[_CHAINS] = {}
    return chains


@contextmanager
def called(run, proc, loc):
    """Around one call of `proc` enumerated in `run`, made at `loc`: when it returns,
    its tail is added to the chain and the open calls' work foreseen (a LimitError at
    `loc` once it would pass the budget).  (`begin` and `returned`/`left` without a
    generator, for the calls of exact_calls.py, made by the thousand.)"""
    chain, call = begin(run, proc)
    try:
        yield call
    except BaseException:
        left(run, proc, chain)
        raise
    returned(run, proc, loc, chain, call)


def begin(run, proc):
    """A call of `proc` opens in `run`: (its chain, the Call)."""
    chains = run.pure.get(_CHAINS)
    if chains is None:
        chains = _chains(run)
    chain = chains.get(proc)
    if chain is None:
        chain = chains[proc] = _Chain()
    call = Call(run.work)
    opened = chain.open
    if opened:
        opened[-1].made += 1
    opened.append(call)
    return chain, call


def returned(run, proc, loc, chain: _Chain, call: Call) -> None:
    """The call `begin` opened returned normally: its tail added, the open calls'
    work foreseen."""
    opened = chain.open
    opened.pop()
    if opened:
        _returned(chain, call, run, proc, loc)
    else:
        del run.pure[_CHAINS][proc]   # the chain has ended


def left(run, proc, chain: _Chain) -> None:
    """The call `begin` opened was left by an error."""
    chain.open.pop()
    if not chain.open:
        del run.pure[_CHAINS][proc]


def _returned(chain: _Chain, call: Call, run, proc, loc) -> None:
    """A call of a chain returned normally, with calls of the same procedure open."""
    now = run.work
    outer = chain.open[-1]
    outer.began, outer.linked = now, True   # the tail of the call around it begins here
    tails, fans, lates, height = chain.tails, chain.fans, chain.lates, len(chain.open)
    if call.recalled:
        outer.made -= 1   # it did no work: not a branch of the tree
        return
    if outer.made >= 2 and now >= call.start:   # a call after its caller's first
        whole = now - call.start
        outer.later = whole if outer.later is None else min(outer.later, whole)
    if not call.linked or now < call.began:   # the chain's end; or the count began again
        del tails[height:], fans[height:], lates[height:]
        return
    while len(tails) <= height:
        tails.append(None)
        fans.append(0)
        lates.append(None)
    tails[height], fans[height], lates[height] = now - call.began, call.made, call.later
    seen, fanned, later = [], [], []   # of this path's links, deepest first
    for made, fan, late in zip(reversed(tails[height:]), reversed(fans[height:]),
                               reversed(lates[height:])):
        if made is None:
            seen, fanned, later = [], [], []
        else:
            seen, fanned, later = seen + [made], fanned + [fan], later + [late]
    if len(seen) < FORESEE_AFTER:
        return
    ahead, horizon, least, more = _foreseen(seen, height)
    calls, each, fan = _branches_ahead(chain, fanned, later) if more >= 0 else (0, 0, 0)
    if now + ahead + calls * each > run.work_limit:
        _refuse(run, proc, loc, now, ahead, horizon, least, more, height, calls, each, fan)


def _branches_ahead(chain: _Chain, fanned: list, later: list):
    """(the calls the calls still open have yet to make, the least work of each, the
    calls each makes) when the recent links (the later half) each made two or more
    calls that did work, else (0, 0, 0): see the module's docstring."""
    start = len(fanned) // 2
    fan = min(fanned[start:])
    recent = later[start:]
    if fan < 2 or None in recent:
        return 0, 0, 0
    grew = all(recent[i + 1] >= recent[i] for i in range(len(recent) - 1))
    each = recent[-1] if grew else min(recent)
    return sum(max(0, fan - c.made) for c in chain.open), each, fan




def _foreseen(seen: list, left: int):
    """(the least work of the tails ahead, how many they are, the least work of a tail,
    the least growth per call) by loop_cost's envelope, over the `left` calls open."""
    done = len(seen)
    start = done // 2
    more = min(seen[i + 1] - seen[i] for i in range(start, done - 1))
    least = seen[-1] if more >= 0 else min(seen[start:])
    more = max(0, more)
    horizon = min(left, FORESEE_HORIZON * done)
    return horizon * least + more * horizon * (horizon + 1) // 2, horizon, least, more


def _refuse(run, proc, loc, now, ahead, horizon, least, more, left, calls=0, each=0, fan=0):
    limit = run.work_limit
    run.work = 0   # the error's own handling (a re-run step) is not refused
    name = "forks"
    grows = "its work grows call by call" if more else "its calls go on working"
    growing = f", each {more:,} more than the one before" if more else ""
    raise LimitError(
        f"exact odds would work out more than {limit:,} branches (the exact-work budget, "
        f"`{name}`): `{proc.name}` calls itself and {grows}: after {now:,} branches so far, "
        f"the next {horizon:,} of its calls still open would make at least {ahead:,} more "
        f"as they return ({least:,} or more a call{growing}), of the {left:,} calls of "
        f"`{proc.name}` open around this one" + _tree_text(proc, calls, each, fan),
        loc, code=f"limit-{name}",
        hint=f"use `rulecraft simulate` (or `run` without --odds) for this; if the exact "
             f"odds are meant, raise the budget with `budgets: {{{name}: N}}` in the "
             f"ruleset (at most {BUDGETS[name][1]:,})")


def _tree_text(proc, calls: int, each: int, fan: int) -> str:
    if not calls:
        return ""
    return f"; and as each call of `{proc.name}` makes {fan} of them (as those returned did), " \
           f"those open have {calls:,} more to make, each at least {each:,} (as a call after " \
           f"the first of those returned made), {calls * each:,} in all"


# The enumerations exploring steps now, innermost last (exact.explore_steps pushes and
# pops its own), so that a procedure called inside an expression finds the one whose
# budget it spends.
RUNNING: list = []


def current():
    """The innermost enumeration exploring steps, or None."""
    return RUNNING[-1] if RUNNING else None
