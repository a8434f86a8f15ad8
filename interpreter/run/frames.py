"""What a run of steps runs in: the scope of names, a sampled run's frame, and a branch
of exact enumeration (with the merging of equal branches)."""
from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from ..errors import LimitError
from ..expr.sampled import Context
from ..limits import MAX_BRANCHES
from ..state.world import Unit, freeze


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


class Branch:
    """One branch of an exact enumeration: its probability, locals and world."""

    __slots__ = ("weight", "locals", "world", "globals", "result", "returned", "capped", "depth")

    def __init__(self, weight: Fraction, other: "Branch | None" = None, *, locals_=None,
                 world=None, globals_=None, depth: int = 0):
        self.weight = weight
        if other is not None:
            self.locals, self.world, self.globals = other.locals, other.world, other.globals
            self.result, self.returned, self.capped = other.result, other.returned, other.capped
            self.depth = other.depth
        else:
            self.locals, self.world, self.globals = locals_, world, globals_
            self.result, self.returned, self.capped = None, False, False
            self.depth = depth   # procedure call depth, bounded as in sampled runs

    def scope(self) -> Scope:
        return Scope(self.locals, self.globals, self.world)

    def fork(self, p: Fraction, copy_world: bool) -> "Branch":
        child = Branch(self.weight * p, self)
        child.locals = dict(self.locals)
        if copy_world and self.world is not None:
            child.world = self.world.copy()
            rebind_units(child.locals, child.world)
        return child

    def key(self):
        return (freeze(self.locals), self.world.snapshot() if self.world else None,
                self.result if hashable(self.result) else id(self.result), self.returned, self.capped)


def rebind_units(names: dict, world) -> None:
    """After a world is copied, names must see the copy's units, not the original's
    (or a change made in this branch would be invisible to the next step)."""
    units = world.units
    for key, value in names.items():
        if isinstance(value, Unit):
            names[key] = units.get(value.uid, value)
        elif isinstance(value, list) and any(isinstance(v, Unit) for v in value):
            names[key] = [units.get(v.uid, v) if isinstance(v, Unit) else v for v in value]


def hashable(value) -> bool:
    try:
        hash(value)
        return True
    except TypeError:
        return False


def merge(branches: list[Branch]) -> list[Branch]:
    """Merge branches that reached the same state: the heart of keeping enumeration small."""
    if len(branches) < 2:
        return branches
    merged: dict = {}
    for b in branches:
        k = b.key()
        if k in merged:
            merged[k].weight += b.weight
        else:
            merged[k] = b
    if len(merged) > MAX_BRANCHES:
        raise LimitError(f"exact enumeration passed {MAX_BRANCHES} distinct states",
                         hint="use `rulecraft simulate` (or `run` without --odds) for this")
    return list(merged.values())
