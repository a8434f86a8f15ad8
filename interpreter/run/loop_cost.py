"""The exact-work budget of a loop, foreseen from its first passes (issue #20).

The budget (limits.MAX_FORKS) counts branches as they arrive, so a loop whose passes
each make a little more work than the last (`repeat 10000: t += d6`) is refused only
once it has spent the whole budget: seconds of work, every branch of it thrown away.
But such a loop's count of passes is known before it starts (a `for` over its list, a
`repeat` up to its `max`), and its passes grow steadily: after k passes, the next ones
are foreseen from the recent ones, and the loop is refused as soon as they would pass
the budget.

The forecast is a lower envelope of what was seen, not a trend fitted to it.  After
FORESEE_AFTER passes, each pass is followed by a forecast of as many passes again as it
has made (FORESEE_HORIZON times), never past the loop's end, nor, for a `repeat`, past
the pass where its chances would need too many bits and it stops: if every recent pass
(the later half of those made) made at least as much work as the one before, each pass ahead makes
at least the last one's work plus the least growth seen for each pass further on; if
not (branches returning, leaving at `until`, merging, held at a cap), at least the least
work of a recent pass, and no growth.  A loop inside a `for` loop's body is one long loop
of its body: its passes left count as many again for each pass the outer loop has left.
For a loop that grows evenly the forecast is exact, so such a loop is refused exactly
when its own passes would pass the budget, and one that fits never is.  A loop refused
here would have spent the budget unless its work fell suddenly after growing steadily
for as long again as it has run: a rule that means that raises the budget (`budgets:
{forks: N}`), as for any other refusal.
"""
from __future__ import annotations

import weakref
from collections import deque

from ..errors import LimitError
from ..limits import BUDGETS, FORESEE_AFTER, FORESEE_HORIZON

__all__ = ["LoopCost"]


class _LeastSince:
    """The least of the values added since a start that only moves forward (a sliding
    window's minimum, in constant time per value)."""

    __slots__ = ("items", "count")

    def __init__(self):
        self.items: deque = deque()   # (index, value), values increasing
        self.count = 0

    def add(self, value) -> None:
        items = self.items
        while items and items[-1][1] >= value:
            items.pop()
        items.append((self.count, value))
        self.count += 1

    def least(self, start: int):
        items = self.items
        while items[0][0] < start:
            items.popleft()
        return items[0][1]


class LoopCost:
    """Watches one loop's passes (`passed` after each) over branches of one enumeration,
    and refuses it at the loop's step once its foreseen work passes the budget."""

    __slots__ = ("run", "step", "passes", "done", "mark", "last", "work", "growth", "cut_bits",
                 "bits", "bits_rise", "outer", "__weakref__")

    def __init__(self, step, branches, passes: int, cut_bits: int | None = None):
        """`passes`: how many the loop makes at most; `cut_bits`: for a `repeat`, the bits
        of a chance's denominator at which it stops early (exact.py's cut)."""
        self.run = branches[0].run if branches else None
        self.step, self.passes, self.cut_bits = step, passes, cut_bits
        self.done = 0
        self.mark = self.run.work if self.run is not None else 0
        self.last = None                # the work of the pass before
        self.work = _LeastSince()       # each pass's work
        self.growth = _LeastSince()     # each pass's work less the one before's
        self.bits = 0                   # the largest denominator's bits now (a repeat's)
        self.bits_rise = 1              # ... and the most they rose in one pass
        self.outer = _enclosing(self)   # the loop running this one once a pass, if any
        _OPEN.append(weakref.ref(self))

    def passed(self, current) -> None:
        """One more pass done; `current`: the branches still looping."""
        run = self.run
        if run is None:
            return
        now = run.work
        if now < self.mark:   # the count began again (a refusal handled): watch afresh
            self.mark = now
            return
        made, self.mark = now - self.mark, now
        self.work.add(made)
        if self.last is not None:
            self.growth.add(made - self.last)
        self.last = made
        self.done += 1
        left = self._passes_left(current)
        if self.done < FORESEE_AFTER or left <= 0:
            return
        ahead, horizon, least, more = self._foreseen(left)
        if now + ahead > run.work_limit:
            self._refuse(now, ahead, horizon, least, more)

    def _passes_left(self, current) -> int:
        """The passes the loop may still make: inside a loop that runs it once a pass,
        as many again for each pass that one has left (a nested loop is one long loop of
        its body); a `repeat` stops too where its chances pass cut_bits, foreseen at the
        fastest rise of their bits in one pass so far."""
        left = self.passes - self.done
        if self.outer is not None:
            left += self.outer.flat_left() * self.passes
        if self.cut_bits is None:
            return left
        bits = _bits(current)
        if self.done > 1:
            self.bits_rise = max(self.bits_rise, bits - self.bits)
        self.bits = bits
        return min(left, (self.cut_bits - bits) // self.bits_rise + 1)

    def flat_left(self) -> int:
        """The passes this loop has left once its current one ends, its enclosing loops'
        counted as in `_passes_left`: none for a `repeat`, whose `until` may end it at
        any pass (a loop inside one is foreseen within its own passes)."""
        if self.cut_bits is not None:
            return 0
        left = self.passes - self.done - 1
        if self.outer is not None:
            left += self.outer.flat_left() * self.passes
        return max(0, left)

    def _foreseen(self, left: int):
        """(the least work of the passes ahead, how many they are, the least work of a
        pass, the least growth per pass) over a horizon of FORESEE_HORIZON times the passes seen: after the
        recent passes (the later half of those seen) grew at every pass, each pass ahead
        makes at least the last one's work and the least growth seen more; else at least
        the least work of a recent pass."""
        done = self.done
        start = done // 2
        more = self.growth.least(start)
        least = self.last if more >= 0 else self.work.least(start)
        more = max(0, more)
        horizon = min(left, FORESEE_HORIZON * done)
        return horizon * least + more * horizon * (horizon + 1) // 2, horizon, least, more

    def _refuse(self, now: int, ahead: int, horizon: int, least: int, more: int):
        run = self.run
        limit = run.work_limit
        run.work = 0   # the error's own handling (a re-run step) is not refused
        left = f"{self.passes - self.done:,} passes it has left"
        if self.outer is not None:
            left += f", and {self.outer.flat_left() * self.passes:,} as the loop around it " \
                    f"runs it again"
        growing = f", each {more:,} more than the one before" if more else ""
        grows = "work grows pass by pass" if more else "passes go on working"
        name = "forks"
        raise LimitError(
            f"exact odds would work out more than {limit:,} branches (the exact-work budget, "
            f"`{name}`): this loop's {grows}, and after {now:,} branches so "
            f"far its next {horizon:,} passes would make at least {ahead:,} more ({least:,} or "
            f"more a pass{growing}), of the {left}", self.step.loc, code=f"limit-{name}",
            hint=f"use `rulecraft simulate` (or `run` without --odds) for this; if the exact "
                 f"odds are meant, raise the budget with `budgets: {{{name}: N}}` in the "
                 f"ruleset (at most {BUDGETS[name][1]:,})")


# The loops being explored, innermost last: a loop's own frame holds its LoopCost, so
# one that has ended (or was left by an error) is gone from here as its frame is.
_OPEN: list = []


def _enclosing(cost: LoopCost):
    """The innermost loop being explored in the same enumeration that has `cost`'s step
    among the steps of its body (so it runs the loop again at each of its passes)."""
    _OPEN[:] = [ref for ref in _OPEN if ref() is not None]
    for ref in reversed(_OPEN):
        outer = ref()
        if outer.run is cost.run and any(s is cost.step for s in outer.step.body):
            return outer
    return None


def _bits(branches) -> int:
    return max((b.weight.denominator.bit_length() for b in branches), default=0)
