"""The lifecycle of statuses during play, one rule per function (docs/rule-format.md,
"Status lifecycle", says the same in the rulebook author's words):

1. A status given "now" has effect at once; one given `starting="next turn"` has no
   effect and fires nothing until the start of the next turn (`start_statuses`, before
   that turn's `start_of_turn` triggers).
2. A trigger fires at every event of its kind that comes after the status was given,
   while it is active.  The statuses that fire at an event are the ones the holders had
   when the event began: a status given by a trigger (or by the steps) of an event does
   not fire at that same event.
3. Triggers never fire on a destroyed holder; its statuses stay on it (still readable)
   and keep counting down.
4. `turns_left` goes down by one at the end of every turn after the one in which the
   status was given (after the `end_of_turn` triggers); at 0 the status ends.  So
   `turns=1` given in turn 3 lasts to the end of turn 4, and reads 1 all through turn 4.
5. A trigger ends its own status with `remove(holder, status)` (that instance only) and
   renews it with `renew(holder, status, turns=N)`; the rest of its steps still run, and
   a removed status fires no more.
6. Every trigger writes a line naming the status, its holder and the event before its
   steps run.
"""
from __future__ import annotations

from ..expr import budget
from ..run.frames import Frame
from ..run.sampled import run_steps


def trigger_frame(ruleset, world, names: dict) -> Frame:
    base = {"turn": world.turn, "sides": list(world.sides.values()),
            "units": [u for u in world.units.values() if u.alive]}
    base.update(names)
    return Frame(base, ruleset.globals, world, world.rng, world.record)


def status_triggers(ruleset, world, event: str, holders=None) -> None:
    """Run the `on: {event: ...}` steps of every active status of living `holders` (or
    of every unit), as rules 2, 3, 5 and 6 say (the turn loop, game/turns.triggers, runs
    the same through its driver; this is it on one world, for a rule's tests)."""
    units = list(world.units.values()) if holders is None else list(holders)
    firing = [(unit, status) for unit in units if unit.statuses for status in list(unit.statuses)
              if status.definition is not None and status.definition.on.get(event)]
    for unit, status in firing:
        names = trigger_names(world, event, unit.uid, status.name, status.serial, status)
        if names is None:
            continue
        frame = trigger_frame(ruleset, world, names)
        budget.as_root(ruleset.budget("steps"), run_steps, status.definition.on[event], frame)


def trigger_names(world, event: str, uid: str, name: str, serial: int, first):
    """The names a trigger's steps see in this world (`holder`, `status`, `side`), or None
    when it does not fire: its holder fell, or the status (that application: the same
    object, or in a copied world the same serial) is gone or not yet active (rules 2, 3
    and 5).  The transcript line of rule 6 is written here, before the steps."""
    unit = world.units[uid]
    if not unit.alive:
        return None
    status = next((s for s in unit.statuses
                   if s is first or (s.serial == serial and s.name == name)), None)
    if status is None or not status.active:
        return None
    if world.record:
        left = "for the game" if status.turns_left is None else \
            f"{status.turns_left} turn{'s' if status.turns_left != 1 else ''} left"
        world.log("trigger", f"{unit.name}'s {status.name} ({left}) fires at {event}",
                  unit=unit.name, status=status.name, at=event)
    return {"holder": unit, "status": status, "side": world.sides.get(unit.side)}


def start_statuses(world) -> None:
    """Rule 1: statuses given "from next turn" take effect when their turn starts."""
    for unit in world.units.values():
        for status in unit.statuses:
            if not status.started and status.active_from <= world.turn:
                status.started = True


def expire_statuses(world) -> None:
    """Rule 4: the end-of-turn countdown."""
    for unit in world.units.values():
        kept = []
        for status in unit.statuses:
            if status.turns_left is not None and status.applied_turn < world.turn:
                status.turns_left -= 1
            if status.turns_left is not None and status.turns_left <= 0:
                world.log("status", f"{unit.name} is no longer {status.name}", unit=unit.name,
                          status=status.name, ended=True)
                continue
            kept.append(status)
        unit.statuses = kept
