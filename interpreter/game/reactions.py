"""Reactions, interrupts and simultaneous resolution during play.

- Reaction points: `turn.reactions` declares steps offered at a named moment: `move`
  (every hex a unit enters, board.py) or any name a rule offers with
  `react("name", unit)`.  At each point the steps run once for every side allowed to
  react (`by: all`, the default, `others` or `mover`), in the scenario's order, with
  `side` the reacting side, `mover` the unit at the point and `point` its name; a
  side's policy acts through `choose` (`by: side`).  A reaction does not offer reaction
  points of its own (a move inside a reaction is not interrupted again).
- Batches: every phase collects `defer(...)` calls and runs them when it ends, in the
  order deferred; a `simultaneous: true` phase also holds `destroy()` until then, so
  that units destroyed in it still act in it.
"""
from __future__ import annotations

from ..errors import LimitError
from ..expr.sampled import Context
from ..limits import MAX_LOOP
from ..run.destruction import run_destroyed
from ..run.sampled import run_steps
from .lifecycle import trigger_frame


def reactor_for(ruleset):
    """The world's reaction-point hook for play, or None when the rules declare no
    reactions (then a reaction point costs nothing)."""
    reactions = ruleset.turn.reactions if ruleset.turn else []
    if not reactions:
        return None
    busy = [False]

    def react(world, point, unit, loc):
        if busy[0]:
            return
        busy[0] = True
        try:
            for reaction in reactions:
                if reaction.at != point:
                    continue
                for side in list(world.sides.values()):
                    if reaction.by == "others" and side.name == unit.side or \
                            reaction.by == "mover" and side.name != unit.side:
                        continue
                    frame = trigger_frame(ruleset, world, {"side": side, "mover": unit,
                                                           "point": point})
                    run_steps(reaction.steps, frame)
        finally:
            busy[0] = False
    return react


def begin_phase(world, phase) -> None:
    world.deferred = []
    world.doomed = [] if getattr(phase, "simultaneous", False) else None


def end_phase(ruleset, world) -> None:
    """Run the deferred calls (a call deferred by one of them runs after them), then
    destroy the units a simultaneous phase held."""
    doomed, world.doomed = world.doomed or [], None
    if not doomed and not world.deferred:   # most phases: nothing held (no context to make)
        world.deferred = None
        return
    ran = 0
    while world.deferred:
        calls, world.deferred = world.deferred, []
        for procedure, args, kwargs, loc in calls:
            ran += 1
            if ran > MAX_LOOP:
                raise LimitError(f"more than {MAX_LOOP} deferred calls in one phase", loc)
            procedure.dsl_call(args, kwargs, loc, Context(ruleset.globals, world.rng, None, world))
    world.deferred = None
    ctx = Context(ruleset.globals, world.rng, None, world)
    for unit in destroy_doomed(world, doomed):   # each one's `on: destroyed` hooks
        run_destroyed(world, unit, None, ctx)


def destroy_doomed(world, doomed) -> list:
    """The units a simultaneous phase held for its end are destroyed now: those it
    destroyed (whose `on: destroyed` hooks the caller runs)."""
    done = []
    for uid in doomed:
        unit = world.units.get(uid)
        if unit is not None and not unit.fields.get("destroyed", False):
            unit.changed = True
            unit.fields["destroyed"] = True
            world.log("destroyed", f"{unit.name} is destroyed", unit=unit.name)
            done.append(unit)
    return done


def place_objects(ruleset, world, scenario, make_unit, parse_position) -> None:
    """The scenario's objects (a ball): built from their kinds like units, on no side,
    placed on the map; they do not act in phases nor count for victory."""
    for name, spec in (getattr(scenario, "objects", None) or {}).items():
        thing = make_unit(ruleset, spec["kind"], name, "", dict(spec.get("stats") or {}),
                          uid=name, loc=scenario.location, rng=world.rng)
        world.objects[thing.uid] = thing
        if spec.get("at") is not None:
            world.positions[thing.uid] = parse_position(spec["at"], world.space, f"object {name}")
