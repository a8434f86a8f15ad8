"""Simultaneous resolution: calls held until the phase ends, and destruction held in a
simultaneous phase.

"All attacks happen simultaneously: damage is applied after all attack rolls, and
destroyed units still fire that phase."  During play every phase collects the calls
given to `defer(procedure, args...)` and runs them, in the order deferred, when the
phase ends (game/reactions.py); in a phase declared `simultaneous: true`, `destroy()`
too only marks the unit, which keeps acting until the phase ends."""
from __future__ import annotations

from ..errors import EvalError
from ..expr.values import describe
from .actions import Action
from .world import World


def defer(world: World, ctx, loc, procedure, *args, **kwargs):
    if world.deferred is None:
        raise EvalError("defer() holds a call until the end of the phase, so it works only "
                        "in a phase of play (not in a procedure run alone)", loc)
    if not getattr(procedure, "dsl_procedure", False):
        raise EvalError(f"defer() takes a procedure first, got {describe(procedure)}", loc)
    world.deferred.append((procedure, list(args), dict(kwargs), loc))
    if world.record:
        world.log("defer", f"{procedure.name}(...) waits for the end of the phase",
                  procedure=procedure.name)
    return True


BATCHES: dict[str, Action] = {a.name: a for a in [
    Action("defer", defer, True, "run a procedure call when the phase ends: "
           "defer(apply_damage, target=target, damage=damage)"),
]}
