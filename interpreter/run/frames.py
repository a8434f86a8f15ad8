"""What a run of steps runs in: the scope of names, a sampled run's frame, and a branch
of exact enumeration (with the merging of equal branches)."""
from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from ..errors import LimitError
from ..expr import budget, reads
from ..expr.sampled import Context
from ..expr.values import json_value
from ..limits import (BUDGETS, FORK_DERIVED_TICKS, FORK_FIELDS, FORK_KEY_TICKS, FORK_KEY_UNIT_TICKS,
                      FORK_NODE_TICKS, MAX_BRANCHES, MAX_WEIGHT_BITS)
from ..state.freezing import TRUTH, Hashed, same
from ..state.world import Side, Status, Unit


class Scope(Mapping):
    """Local names first, then the globals (parameters, tables, procedures, actions)."""

    __slots__ = ("locals", "globals", "world")

    def __init__(self, local_names: dict, global_names: Mapping, world=None):
        self.locals = local_names
        self.globals = global_names
        self.world = world   # the branch's world, for procedures called inside expressions

    def __getitem__(self, key):
        try:
            return self.locals[key]
        except KeyError:
            pass
        try:
            return self.globals[key]
        except KeyError:
            if self.world is not None and key in WORLD_NAMES:
                if key != "turn":   # (the turn is in every remembered call's key)
                    reads.every_unit()
                return WORLD_NAMES[key](self.world)
            raise

    def __iter__(self):
        yield from self.locals
        yield from (k for k in self.globals if k not in self.locals)

    def __len__(self):
        return len(self.locals) + len(self.globals)

    def __contains__(self, key):
        return key in self.locals or key in self.globals


# Names every rule can read while a game (or a run) is in progress.
WORLD_NAMES = {
    "turn": lambda world: world.turn,
    "sides": lambda world: list(world.sides.values()),
    "units": lambda world: [u for u in world.units.values() if u.alive],
}


class Frame:
    """One running procedure (or phase step list): its scope, its world, its result."""

    __slots__ = ("ctx", "locals", "returned", "result", "world")

    def __init__(self, locals_: dict, globals_: Mapping, world, rng, record: bool, depth: int = 0):
        self.locals = locals_
        self.world = world
        self.ctx = Context(Scope(locals_, globals_, world), rng, [] if record else None, world, depth)
        self.returned = False
        self.result = None


class Enumeration:
    """What one exact enumeration shares across all its branches: the memo of procedure
    calls (a call with the same arguments in the same state is enumerated once), the
    policies that decided each choice point, the scripts of `script` sides, and which
    local names each step leaves dead (so that states differing only in them merge), and
    how a choice of an `ask` side is made when no one can be asked (`asked`: a callable
    given the choice step that returns the policy to use instead, or raises; None takes
    the first option), and the exact work done so far against its budget (`work`, the
    branches that have arrived at a step, each weighed by the work it took, and
    `work_limit`, limits.MAX_FORKS or the ruleset's `budgets: {forks: N}`: see
    `spend_work`; `metered`, the work meter as last charged; `where`, the last step
    that multiplied the states, where a refusal outside any step is said to be)."""

    __slots__ = ("memo", "call_reads", "choices", "scripts", "dead_after", "pure", "asked", "work",
                 "work_limit", "metered", "where")

    def __init__(self, scripts: dict | None = None, asked=None):
        self.asked = asked
        self.work = 0
        self.work_limit = budget.FORKS[0]
        self.metered = [*budget.METER, 0]   # the meter as last charged, and ticks left over
        self.where = None
        self.memo: dict = {}        # (call, whole game) -> ends (run/exact_calls.explore_procedure)
        self.call_reads: dict = {}  # (call, game but records) -> by what it read (run/call_memo)
        self.choices: dict = {}     # choice step -> {policy: probability it decided}
        self.scripts = {k: tuple(v) for k, v in (scripts or {}).items()}
        self.dead_after: dict = {}  # step -> local names no later step reads
        self.pure: dict = {}        # let step -> the distribution it binds, if it reads no name

    def note_choice(self, step, policy: str, weight: Fraction) -> None:
        seen = self.choices.setdefault(step, {})
        seen[policy] = seen.get(policy, 0) + weight


class Branch:
    """One branch of an exact enumeration: its probability, locals and world.

    Worlds are shared between branches until one of them changes its world: every step
    that changes the game forks with `copy_world=True` first, so a world reachable from
    a merged state is never changed in place (what makes the sharing safe)."""

    __slots__ = ("weight", "locals", "world", "globals", "result", "returned", "capped", "depth",
                 "run", "script", "keep_at_end", "pending", "seen", "after", "unmade")

    def __init__(self, weight: Fraction, other: "Branch | None" = None, *, locals_=None,
                 world=None, globals_=None, depth: int = 0, run: Enumeration | None = None,
                 keep_at_end: frozenset = frozenset()):
        self.weight = weight
        if other is not None:
            self.locals, self.world, self.globals = other.locals, other.world, other.globals
            self.result, self.returned, self.capped = other.result, other.returned, other.capped
            self.depth, self.run, self.script = other.depth, other.run, other.script
            self.keep_at_end = other.keep_at_end
            self.pending, self.seen = other.pending, other.seen
        else:
            self.locals, self.world, self.globals = locals_, world, globals_
            self.result, self.returned, self.capped = None, False, False
            self.depth = depth   # procedure call depth, bounded as in sampled runs
            self.run = run if run is not None else Enumeration()
            self.script = ()     # (side, answers used) of `script` sides, sorted
            self.keep_at_end = keep_at_end   # locals still read once the steps end
            # calls left to the caller (run/deferred.py), in order; None: none may be
            # (not inside a procedure called from an enumeration)
            self.pending = None
            # what of the game is read after the procedure returns (run/observed.py);
            # None: all of it
            self.seen = None
        # `after` (not copied: set for the call a statement is making) is what of the
        # game the statements after it read, for the procedure it calls; None until then
        # (set here: a missing slot read through getattr raises inside, at every call)
        self.after = None
        # `unmade` (not copied either): the call a statement is making may hand back its
        # ends with games not made yet (call_memo.Unmade): its merge keys a few fields
        self.unmade = False

    def scope(self) -> Scope:
        return Scope(self.locals, self.globals, self.world)

    def fork(self, p: Fraction | None, copy_world: bool) -> "Branch":
        """A child branch taken with probability `p` (None: certain, the same weight)."""
        child = Branch(self.weight if p is None else self.weight * p, self)
        child.locals = dict(self.locals)
        if copy_world and self.world is not None:
            child.world = self.world.copy()
            rebind_units(child.locals, child.world)
        return child

    def key(self):
        """The branch's state, for merging.  Locals holding plain values only (most
        branches of a dice sequence) are frozen as they are, the check and the freezing
        both done in C (`issuperset` over the values' types); any other value by what it
        is (`canonical`)."""
        return (locals_key(self.locals), world_key(self.world), result_key(self.result),
                self.returned, self.capped, self.script, self.pending)


def locals_key(local: dict):
    """A branch's locals in its merge key (see `Branch.key`)."""
    if _UNTAGGED.issuperset(map(type, local.values())):
        return frozenset(local.items())
    plain = _UNTAGGED
    return frozenset([(k, v if v.__class__ in plain else canonical(v)) for k, v in local.items()])


def result_key(result):
    """A branch's result in its merge key: true and 1 apart, an unhashable value by
    its identity."""
    cls = result.__class__
    if cls is bool:
        return TRUTH[result]
    if cls is tuple:   # a list made in the rules: true and 1 apart inside it too
        held = canonical(result)
        return held if hashable(held) else id(result)
    if cls not in _PLAIN and not hashable(result):
        return id(result)
    return result


class Pending:
    """A procedure call left to the caller of the procedure enumerating it (see
    run/deferred.py): the procedure, its argument values (units as the game they were
    taken in had them: the caller takes the same units of the game it makes the call
    in), and where it was written.  Equal by the procedure and the arguments' values."""

    __slots__ = ("proc", "args", "kwargs", "loc", "key")

    def __init__(self, proc, args: list, kwargs: dict, loc):
        self.proc, self.args, self.kwargs, self.loc = proc, args, kwargs, loc
        self.key = (id(proc), tuple(canonical(a) for a in args),
                    tuple(sorted((k, canonical(v)) for k, v in kwargs.items())))

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return other.__class__ is Pending and self.key == other.key and self.proc is other.proc


# A world's snapshot is kept on the world while it lives (`World.state_key`).  Sound
# because a world is never changed once a branch holding it has been merged: every
# change forks a fresh copy first (see `Branch`), and a copy starts with no key.


def world_snapshot(world):
    """The world's snapshot, canonical (sides and statuses by their values), computed
    once per world object."""
    if world is None:
        return None
    return world_key(world).value


def world_key(world):
    """The world's snapshot as a key (state/freezing.Hashed): hashed once per world object,
    not at every merge that looks it up, and one object for equal games (`same`), so that
    a lookup finding it compares identities."""
    if world is None:
        return None
    seen = world.state_key
    if seen is None:
        seen = _derived(world)
        if seen is None:
            seen = Hashed(world.snapshot())
            # weighed against the exact-work budget (limits.py): the key's own work
            _METER[1] += FORK_KEY_TICKS + \
                FORK_KEY_UNIT_TICKS * (len(world.units) + len(world.objects))
        else:
            _METER[1] += FORK_DERIVED_TICKS
        seen = world.state_key = same(seen)
    return seen


# A copy of a world whose units' fields alone were changed (a remembered call's changes
# made again) notes which (`World.derived`: the world it was copied from; {unit id: the
# fields changed}).  Its key is made from that world's, only when it is asked for: most
# such copies are passed on, changed again, and never looked up.  The world it came from
# is held, not weakly referred to: a world lives in a cycle with its sides, so a weak
# reference would die whenever the collector happened to run, and the key's weight
# (FORK_DERIVED_TICKS against a whole snapshot's) would then follow the collector's
# timing - the same rule refused at another step from one process to the next.  A copy
# holds at most one such world (a copy of a copy holds the first), and lets go of it once
# its own key is made.


def derived_key(world, base, changed: dict) -> None:
    """Note that `world` is `base` but for the fields `changed` ({unit id: field
    names}); when `base` is itself such a copy with no key yet, of the world it came from."""
    if base.state_key is None:
        earlier = base.derived
        if earlier is not None:
            merged = {uid: set(names) for uid, names in earlier[1].items()}
            for uid, names in changed.items():
                merged.setdefault(uid, set()).update(names)
            base, changed = earlier[0], merged
    world.derived = (base, changed)


def snapshot_rest(world) -> tuple:
    """The world's snapshot but for its units and objects (`World.snapshot_rest`), taken
    from a snapshot already made where there is one: its own, or that of the world a
    remembered call's copy was made from (only units' fields differ between them)."""
    seen = world.state_key
    if seen is not None:
        return seen.value[2:]
    entry = world.derived
    if entry is not None:
        return world_key(entry[0]).value[2:]
    return world.snapshot_rest()


def _derived(world):
    """The key of a copy noted by `derived_key`, from the world it came from (only its
    changed fields frozen again), or None."""
    entry = world.derived
    if entry is None:
        return None
    world.derived = None
    base, changed = entry
    old = world_key(base).value
    units = tuple(before if u.uid not in changed else u.snapshot_after(before, changed[u.uid])
                  for u, before in zip(world.units.values(), old[0]))
    objects = tuple(before if u.uid not in changed else u.snapshot_after(before, changed[u.uid])
                    for u, before in zip(world.objects.values(), old[1]))
    return Hashed((units, objects) + old[2:])


_PLAIN = frozenset({int, str, bool, float, Fraction, type(None)})
# the plain values a key holds as they are: a bool is held as a Truth (true and 1 apart)
_UNTAGGED = frozenset({int, str, float, Fraction, type(None)})


def canonical(value):
    """A hashable form of a local's value by what it is, not which object holds it: a
    unit by its id, a side by its name, a status by its counters (so that two branches
    holding equal values in different copies of the world merge); true and 1 apart."""
    cls = value.__class__
    if cls in _UNTAGGED:
        return value
    if cls is bool:
        return TRUTH[value]
    if cls is Unit:   # (the usual argument of a call: before the isinstance checks)
        return ("unit", value.uid)
    if isinstance(value, dict):
        return ("record", frozenset((k, canonical(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(canonical(v) for v in value)
    if isinstance(value, Unit):
        return ("unit", value.uid)
    if isinstance(value, Side):
        return ("side", value.name)
    if isinstance(value, Status):
        return ("status", value.snapshot())
    return value


def option_text(option) -> str:
    """How a choice's option is named (for scripts and prompts)."""
    if isinstance(option, Unit):
        return option.name
    key = getattr(option, "key", None)
    if key is not None:
        return str(key)
    return str(json_value(option))


def rebind_units(names: dict, world) -> None:
    """After a world is copied, names must see the copy's units, sides and statuses, not
    the original's (or a change made in this branch would be invisible to the next
    step), also inside the lists and records they hold (`let pair = [a, b]`, then
    `pair[1].hits -= 2`: `pair[1]` is the copy's unit)."""
    for key, value in names.items():
        cls = value.__class__
        if cls in _PLAIN_VALUES:
            continue
        found = _rebound(value, world)
        if found is not value:
            names[key] = found


_PLAIN_VALUES = frozenset({int, str, bool, float, Fraction, type(None)})


def _rebound(value, world):
    """`value` with every unit, side and status in it taken from `world` (the value
    itself when nothing in it changes)."""
    cls = value.__class__
    if cls is Unit or isinstance(value, Unit):
        return world.units.get(value.uid) or world.objects.get(value.uid, value)
    if cls is Side or isinstance(value, Side):
        return world.sides.get(value.name, value)
    if cls is Status:
        for unit in [*world.units.values(), *world.objects.values()]:
            for s in unit.statuses:
                if s is value or (s.serial == value.serial and s.name == value.name):
                    return s
        return value
    if cls is list or cls is tuple:
        items = [_rebound(v, world) if v.__class__ not in _PLAIN_VALUES else v for v in value]
        if any(a is not b for a, b in zip(items, value)):
            return cls(items)
        return value
    if cls is dict:
        items = {k: _rebound(v, world) if v.__class__ not in _PLAIN_VALUES else v
                 for k, v in value.items()}
        if any(items[k] is not value[k] for k in value):
            return items
        return value
    return value


def hashable(value) -> bool:
    try:
        hash(value)
        return True
    except TypeError:
        return False


class Merged:
    """Branches merged as they arrive: equal states add their probabilities.  The state
    limit is checked at every new state, so a step that would multiply states past it is
    refused while it branches (in bounded time and memory), naming that step.

    A branch's key (its locals and its whole game) is worked out only once a second
    branch arrives: a step that keeps one branch (most steps of a procedure that rolls
    nothing there, a transfer walked location by location) has nothing to merge."""

    __slots__ = ("states", "loc", "step", "run", "dead", "first", "seen", "unmade", "distinct")

    def __init__(self, step=None, loc=None):
        self.states: dict = {}
        self.seen = None   # a key keeping only what is read later (run/observed.py)
        self.unmade = False   # branches with games not made yet may arrive (call_memo.Unmade)
        # the branches arriving are the ends of one call in one game, their locals and
        # result the same: counted as any, merged by their game's identity (the same
        # game, or the same changes of it not made yet), not by a snapshot of it
        self.distinct = False
        self.first = None   # the only branch so far, not keyed yet
        self.step = step
        self.loc = loc if loc is not None else getattr(step, "loc", None)
        self.run = self.dead = None   # the names dead after the step, in the last run seen

    def add(self, branch: Branch) -> None:
        run = branch.run
        run.work += 1
        metered, meter = run.metered, _METER
        # the branch's own count covers one expression node worked out for it (its roll;
        # a cheap branch's unused cover is kept: the work stays at least half what is done)
        metered[0] += 1
        if meter[0] > metered[0] or meter[1] - metered[1] >= FORK_FIELDS:
            charge(run)
        if run.work > run.work_limit:
            spend_work(run, 0, self.loc)
        if branch.returned:
            keep = branch.keep_at_end
            if not keep.issuperset(branch.locals):
                branch.locals = {k: v for k, v in branch.locals.items() if k in keep}
        elif self.step is not None:
            if run is not self.run or self.dead is None:   # (a step not told yet: asked again)
                self.run, self.dead = run, run.dead_after.get(self.step)
            dead = self.dead
            if dead and not dead.isdisjoint(branch.locals):
                branch.locals = {k: v for k, v in branch.locals.items() if k not in dead}
        states = self.states
        if self.distinct:   # keyed by the game's identity alone (no snapshot of it)
            world = branch.world
            key = (world.identity() if getattr(world, "unmade", False) else id(world),
                   branch.capped, branch.script)
            have = states.get(key)
            if have is not None:
                have.weight += branch.weight
                return
            states[key] = branch
            self._check(branch)
            return
        if not states:
            first = self.first
            if first is None:
                self.first = branch
                self._check(branch)
                return
            self.first = None
            states[first.key() if self.seen is None else self.seen(first)] = first
        key = branch.key() if self.seen is None else self.seen(branch)
        have = states.get(key)
        if have is not None:
            have.weight += branch.weight
            return
        states[key] = branch
        if len(states) > MAX_BRANCHES:
            self.refuse(f"more than {MAX_BRANCHES:,}", run)
        self._check(branch)

    def _check(self, branch: Branch) -> None:
        run = branch.run
        if branch.weight.denominator.bit_length() > MAX_WEIGHT_BITS:
            raise LimitError(f"exact odds here need fractions of more than {MAX_WEIGHT_BITS:,} "
                             f"bits (a chance smaller than 1 in 2^{MAX_WEIGHT_BITS:,})",
                             _located(self.loc, run),
                             hint="use `rulecraft simulate`, or give the loop a smaller max:")

    def refuse(self, how_many: str, run: Enumeration | None = None):
        raise LimitError(f"exact odds would hold {how_many} distinct states after this step "
                         f"(the limit is {MAX_BRANCHES:,}; a state is one set of values that can "
                         f"still change the result)", _located(self.loc, run),
                         hint="use `rulecraft simulate` (or `run` without --odds) for this")

    def extend(self, branches) -> None:
        for b in branches:
            self.add(b)

    def branches(self) -> list[Branch]:
        kept = [self.first] if self.first is not None else list(self.states.values())
        if self.unmade:
            for b in kept:
                if getattr(b.world, "unmade", False):   # made now: the state is kept
                    b.world = b.world.made()
                    rebind_units(b.locals, b.world)
        return kept

    def __len__(self) -> int:
        return 1 if self.first is not None else len(self.states)


def spend_work(run: Enumeration, more: int, loc) -> None:
    """The exact-work budget (issue #20): states alone do not bound the work, since a
    step can make a hundred million branches that merge back into a few thousand
    states (a second `t += d10000`).  Every branch arriving at a step counts one
    (`Merged.add`), and a step that knows how many it is about to make (`more`: the
    outcomes of its roll in every state, before any is forked) is refused before it
    begins, so that a refusal costs no more than the budget's own work.  A branch weighs
    by the work it took, charged as it arrives (`Merged.add`, `charge`).  A refusal
    outside any step (where a procedure's ends merge) is said to be at the last step
    that multiplied the states."""
    limit = run.work_limit
    if run.work + more <= limit:
        return
    loc = _located(loc, run)
    done, run.work = run.work, 0   # the error's own handling (a re-run step) is not refused
    name = "forks"
    what = (f"this step would make {more:,} branches, after {done:,}" if more else
            "this step is where they passed it")
    raise LimitError(f"exact odds would work out more than {limit:,} branches (the exact-work "
                     f"budget, `{name}`): {what}", loc, code=f"limit-{name}",
                     hint=f"use `rulecraft simulate` (or `run` without --odds) for this; if "
                          f"the exact odds are meant, raise the budget with `budgets: "
                          f"{{{name}: N}}` in the ruleset (at most {BUDGETS[name][1]:,}); a "
                          f"branch counts more where it copies a large game or works out long "
                          f"expressions")


_METER = budget.METER


def charge(run: Enumeration) -> None:
    """Add to the enumeration's work what the work meter (expr/budget.METER) moved since
    it was last charged (issue #20; counted, not timed, so that a refusal is the same
    on every machine): FORK_NODE_TICKS for every expression node worked out beyond the
    one each branch's own count covers (`Merged.add`), and the game work's ticks (world
    copies and keys, fields, calls: limits.py), FORK_FIELDS ticks a unit of work.  What
    is left of a unit carries over to the next charge (`metered[2]`)."""
    metered, meter = run.metered, _METER
    nodes = meter[0] - metered[0]
    ticks = metered[2] + meter[1] - metered[1]
    if nodes > 0:
        ticks += nodes * FORK_NODE_TICKS
        metered[0] = meter[0]
    metered[1] = meter[1]
    run.work += ticks // FORK_FIELDS
    metered[2] = ticks % FORK_FIELDS


def _located(loc, run: Enumeration | None):
    """`loc`, or where the states last multiplied when a merge is outside any step."""
    return loc if loc is not None or run is None else run.where


def merge(branches: list[Branch], step=None) -> list[Branch]:
    """Merge branches that reached the same state: the heart of keeping enumeration small."""
    if len(branches) < 2 and step is None:
        return branches
    merged = Merged(step)
    merged.extend(branches)
    return merged.branches()
