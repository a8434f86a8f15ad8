"""Counting the states a step would make before it branches, so that a step past the
state limit (limits.MAX_BRANCHES) is refused in bounded time and memory: the world is
never copied, nor every branch's roll worked out, only to be thrown away (issue #12)."""
from __future__ import annotations

from ..expr.values import assign_value
from ..lang.ast import Call, Name, walk
from ..lang.steps import AssignStep
from ..limits import MAX_BRANCHES
from ..state.world import Unit
from .frames import Branch, Merged, canonical, spend_work, world_snapshot


# step -> whether its value reads no name (the walk of its expression, once per step)
_SAME: dict = {}


class EarlyCount:
    """A value bound to a local name that stays live makes at least one new state per
    outcome for each of the states before it (those equal but for the names dropped
    here): counted as each branch's distribution is worked out (`see`), and past the
    state limit refused before any branch is made, so that a refusal costs a state key
    per branch, not a world of copies (nor every branch's distribution)."""

    def __init__(self, step, name: str, op: str, branches, out: Merged):
        self.step, self.name, self.op, self.out = step, name, op, out
        dead = branches[0].run.dead_after.get(step) or frozenset() if branches else ()
        self.off = name in dead   # the value is dropped at once: states merge as they arrive
        self.drop = frozenset(dead) | {name}
        self.pending: list = []   # seen while the outcomes so far are within the limit
        self.outcomes = 0
        self.groups: dict = {}
        self.total = 0
        self.forks = 0            # the branches the step will make: the exact-work budget
        self.branches = len(branches)
        # a value that reads no name is the same roll in every state: its outcomes times
        # the states is the step's work, known from the first
        same = _SAME.get(step)
        if same is None:
            same = _SAME[step] = not any(isinstance(n, (Name, Call)) for n in walk(step.node))
        self.same = same

    def same_roll(self, branches, dist) -> None:
        """The same roll in every branch (`let hit = d6`): exactly (distinct states
        before) times (its outcomes) states after, counted once up front."""
        if self.off or len(branches) * len(dist) <= MAX_BRANCHES:
            self.off = True
            return
        before = len({key_without(b, self.drop) for b in branches})
        if before * len(dist) > MAX_BRANCHES:
            self.out.refuse(f"{before * len(dist):,} ({before:,} states times {len(dist):,} "
                            f"outcomes)")
        self.off = True

    def see(self, branch: Branch, dist):
        """`dist`, once the states and branches it adds are within their limits."""
        self._states(branch, dist)
        run = branch.run
        if self.same and not self.forks:
            spend_work(run, self.branches * len(dist), self.step.loc)
        self.forks += len(dist)
        if run.work + self.forks > run.work_limit:
            spend_work(run, self.forks, self.step.loc)
        return dist

    def _states(self, branch: Branch, dist):
        if self.off:
            return dist
        if self.outcomes <= MAX_BRANCHES:
            self.outcomes += len(dist)
            self.pending.append((branch, dist))
            if self.outcomes <= MAX_BRANCHES:
                return dist
            pending, self.pending = self.pending, []
            for b, d in pending:
                self._count(b, d)
            return dist
        self._count(branch, dist)
        return dist

    def _count(self, b: Branch, dist) -> None:
        key = key_without(b, self.drop)
        if self.op == "=":
            made = len(dist)
        else:
            old = b.locals.get(self.name)
            made = len({canonical(assign_value(self.op, old, v, self.step.loc))
                        for v, _ in dist.items()})
        have = self.groups.get(key, 0)
        if made > have:
            self.groups[key] = made
            self.total += made - have
            if self.total > MAX_BRANCHES:
                self.out.refuse(f"more than {MAX_BRANCHES:,}")


def expect_forks(branches, sizes, loc) -> None:
    """Before a step forks every branch in `branches` once per item of `sizes` (the
    number of outcomes each will branch into), refuse it if that passes the exact-work
    budget (frames.spend_work): nothing is forked, nor a product of values listed."""
    if branches:
        spend_work(branches[0].run, sum(sizes), loc)


def product_size(dists) -> int:
    """How many combinations `expr.exact.product` would list for these distributions."""
    size = 1
    for d in dists:
        size *= len(d)
    return size


def key_without(branch: Branch, names) -> tuple:
    """The branch's state key with the locals in `names` left out."""
    probe = Branch(branch.weight, branch)
    probe.locals = {k: v for k, v in branch.locals.items() if k not in names}
    return probe.key()


_BLANK = object()


def _blanked(value, path):
    """`value` with the item at `path` (a plain field inside records) set to _BLANK."""
    if not path:
        return _BLANK
    copy = dict(value)
    copy[path[0]] = _blanked(value[path[0]], path[1:])
    return copy


def count_field_states(step: AssignStep, values, out: Merged) -> None:
    """Before copying a world per outcome of `unit.field = ...` (or of a field inside
    it), count the states it would make at least, and refuse past the state limit so
    that the copies are never made: parents equal but for the value assigned form one
    class, and a class makes at least as many states as one member makes new values."""
    classes: dict = {}
    total = 0
    for b, dist in values:
        blank = _state_without(step, b)
        if blank is None:
            return   # a side's data, or an error the assignment itself reports
        key, old = blank
        made = len(dist) if step.op == "=" else \
            len({canonical(assign_value(step.op, old, v, step.loc)) for v, _ in dist.items()})
        have = classes.get(key, 0)
        if made > have:
            classes[key] = made
            total += made - have
            if total > MAX_BRANCHES:
                out.refuse(f"more than {MAX_BRANCHES:,}")


def _state_without(step: AssignStep, b: Branch):
    """(the branch's state with the assigned field blanked, the field's old value), or
    None when the path does not lead to a plain field of a unit.  Only the unit's own
    snapshot is taken again: the rest of the world's is the one cached for merging."""
    owner = b.scope().get(step.path[0])
    unit = b.world.unit(owner, step.loc) if hasattr(owner, "set_field") else None
    if unit is None:
        return None
    container = unit.fields
    for name in step.path[1:-1]:
        container = container.get(name) if isinstance(container, dict) else None
    leaf = step.path[-1]
    if not isinstance(container, dict) or leaf not in container:
        return None
    old = container[leaf]
    blanked = Unit(unit.uid, unit.name, unit.kind, unit.side, dict(unit.fields))
    blanked.statuses = unit.statuses   # the values are shared (Unit.copy): copied on the way
    blanked.fields[step.path[1]] = _blanked(unit.fields[step.path[1]], step.path[2:])
    mine = blanked.snapshot()
    whole = world_snapshot(b.world)
    units = tuple(mine if s[0] == unit.uid else s for s in whole[0])
    return (canonical(b.locals), units, whole[1:], b.returned, b.capped, b.script), old
