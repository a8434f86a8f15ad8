"""A unit's destruction and the steps it sets off: the `on: destroyed` hooks of its kind
and of its statuses (Jugger: "a destroyed jug leaves wreckage").

`destroy(unit)` marks the unit destroyed (state/actions.py) and then, if that destroyed
it now, runs its hooks in this order: its kind's `on: destroyed`, then the `on:
destroyed` of each status it holds, oldest first.  A hook's steps see `holder` (the
unit just destroyed: its fields and position are still there to read) and, for a
status's hook, `status`.  A status that a hook before it ended is passed over.  A unit
already destroyed sets nothing off; in a simultaneous phase the destruction, and so
its hooks, come when the phase ends (game/reactions.py, game/exact_interrupts.py call
`run_destroyed` and `explore_destroyed` for the units it held).

Every hook is a procedure (model/build.py makes them), so its steps run, compile and
enumerate as any procedure's do: `Destroy` is the built-in as the three paths call it
(`dsl_call` for sampled and compiled steps, `explore_call` for exact odds, which branches
over the rolls of a hook).  Why not an Action: an action is Python run at once, which
cannot hand the enumeration a hook's rolls to branch over.
"""
from __future__ import annotations

from fractions import Fraction

from ..errors import EvalError
from ..expr import reads
from ..expr.sampled import Context
from ..state.builtins import ACTIONS
from ..state.world import Unit
from .frames import Merged

DESTROYED = "destroyed"


def _hooks(unit) -> list:
    """(procedure, status key or None) of the unit's `destroyed` hooks, in their order."""
    found = []
    kind = unit.kind
    proc = kind.hooks.get(DESTROYED) if kind is not None and getattr(kind, "hooks", None) else None
    if proc is not None:
        found.append((proc, None))
    for status in unit.statuses:
        definition = status.definition
        if definition is not None and status.active and DESTROYED in definition.hooks:
            found.append((definition.hooks[DESTROYED], (status.name, status.serial)))
    return found


def _arguments(world, uid, key):
    """The hook's arguments in this world, or None if its status has ended meanwhile."""
    unit = world.units.get(uid) or world.objects.get(uid)
    if unit is None:
        return None
    if key is None:
        return {"holder": unit}
    status = next((s for s in unit.statuses if (s.name, s.serial) == key and s.active), None)
    return None if status is None else {"holder": unit, "status": status}


def run_destroyed(world, unit, loc, ctx: Context) -> None:
    """The hooks of a unit just destroyed, run with the world's dice (sampled, compiled)."""
    for proc, key in _hooks(unit):
        kwargs = _arguments(world, unit.uid, key)
        if kwargs is not None:
            proc.dsl_call([], kwargs, loc, ctx)


def explore_destroyed(branches: list, uid, loc) -> list:
    """The hooks of the unit `uid`, just destroyed in each branch's world, enumerated:
    the branches they end in (each hook's rolls branched, equal ends merged)."""
    out = Merged(loc=loc)
    for b in branches:
        unit = b.world.units.get(uid) or b.world.objects.get(uid)
        current = [b]
        for proc, key in (_hooks(unit) if unit is not None else []):
            merged = Merged(loc=loc)
            for c in current:
                kwargs = _arguments(c.world, uid, key)
                if kwargs is None:
                    merged.add(c)
                    continue
                merged.extend(back for back, _ in proc.explore_call([], kwargs, loc, c, Fraction(1)))
            current = merged.branches()
        out.extend(current)
    return out.branches()


class Destroy:
    """The built-in `destroy(unit)` with its `on: destroyed` hooks (see the module)."""

    name = "destroy"
    mutates = True
    positional = None
    dsl_label = "the built-in destroy()"

    def __init__(self, action):
        self.action = action
        self.destroy_now = action.fn
        self.doc = action.doc + "; runs the unit's `on: destroyed` hooks"

    def _destroy(self, args, kwargs, loc, ctx):
        """Destroy, as the action does: the unit if it was destroyed by this call."""
        world = ctx.world
        if world is None:
            raise EvalError("destroy() needs a game in progress (use `rulecraft run` or `play`)", loc)
        if len(args) != 1 or kwargs:
            raise EvalError("destroy() takes one unit: destroy(unit)", loc)
        unit = world.unit(args[0], loc)
        before = unit.fields.get(DESTROYED, False)
        self.action.dsl_call([unit], {}, loc, ctx)
        return unit if not before and unit.fields.get(DESTROYED, False) else None

    def dsl_call(self, args, kwargs, loc, ctx: Context):
        unit = self._destroy(args, kwargs, loc, ctx)
        if unit is not None:
            run_destroyed(ctx.world, unit, loc, ctx)
        return True

    def call_fast(self, args, kwargs, world, rng, depth, loc):
        """Called from compiled steps (run/gen_expressions.py), which hold no context: one
        is made only for the hooks, so that a rule destroying units keeps its names in
        Python variables."""
        if len(args) == 1 and not kwargs:
            return self.call_one(args[0], world, rng, depth, loc)
        ctx = Context({}, rng, None, world, depth)
        unit = self._destroy(args, kwargs or {}, loc, ctx)
        if unit is not None:
            run_destroyed(world, unit, loc, ctx)
        return True

    def call_one(self, unit, world, rng, depth, loc):
        """`destroy(unit)` from compiled steps.  A unit of this world with no hook to run
        (its kind has no `on: destroyed` and it holds no status) is destroyed by the
        action at once: a kill is the commonest end of a procedure, and this is all of
        its work."""
        if unit.__class__ is Unit and world is not None and world.units.get(unit.uid) is unit \
                and not unit.statuses and DESTROYED not in getattr(unit.kind, "hooks", ()):
            self.destroy_now(world, None, loc, unit)
            return True
        ctx = Context({}, rng, None, world, depth)
        found = self._destroy([unit], {}, loc, ctx)
        if found is not None:
            run_destroyed(world, found, loc, ctx)
        return True

    def dsl_exact_call(self, node, env):
        raise EvalError("destroy() changes the game; use it as a step, not inside an expression",
                        node.loc)

    def explore_call(self, args, kwargs, loc, branch, weight):
        """(the caller's branch after the call, True) pairs: the unit destroyed in a copy
        of the world, then its hooks enumerated there."""
        if reads.tracing():   # it changes the game as it likes
            reads.everything()
        child = branch.fork(weight, True)
        ctx = Context(child.scope(), None, None, child.world, child.depth)
        unit = self._destroy(args, kwargs, loc, ctx)
        ends = [child] if unit is None else explore_destroyed([child], unit.uid, loc)
        return [(end, True) for end in ends]


DESTROY = Destroy(ACTIONS["destroy"])
