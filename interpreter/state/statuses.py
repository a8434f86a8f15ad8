"""How a status given to a unit meets the ones it already has (`stack:`), and the
built-ins that read, end and renew one instance of a status.

The lifecycle itself (when a status starts, fires, counts down and ends) is the turn
engine's (`game/lifecycle.py`); this module only knows one unit's list of statuses.

Stacking rules, declared per status (`stack:` in the ruleset):
- `replace` (the default): the new application replaces the old one, values and counter;
- `keep_longest`: the one with more turns left stays ("for the game" is the longest; on
  a tie the one already there stays);
- `add`: the new turns are added to the one already there (for the game if either is),
  and the new values are written over its values;
- `separate`: every application is its own instance, with its own values and counter
  ("two fire pumps burning for 4 and 1 turns").
"""
from __future__ import annotations

from ..errors import EvalError, NameError_
from ..expr.values import assign_value, describe
from ..suggest import did_you_mean
from .world import Status, Unit, World

STACKING = ("replace", "keep_longest", "add", "separate")


def _longer(new: int | None, old: int | None) -> bool:
    if old is None:
        return False
    return new is None or new > old


def stack_onto(world: World, unit: Unit, given: Status, stack: str) -> str:
    """Put `given` on `unit` by the stacking rule; says what happened (for the
    transcript): "given", "kept" (the old one stays), "added" (turns added to it)."""
    same = [s for s in unit.statuses if s.name == given.name]
    given.serial = world.next_serial()
    if not same or stack == "separate":
        unit.statuses = [*unit.statuses, given]
        return "given"
    old = same[-1]
    if stack == "keep_longest" and not _longer(given.turns_left, old.turns_left):
        return "kept"
    if stack == "add":
        old.turns_left = None if old.turns_left is None or given.turns_left is None \
            else old.turns_left + given.turns_left
        old.data = {**old.data, **given.data}
        return "added"
    unit.statuses = [s for s in unit.statuses if s.name != given.name] + [given]
    return "given"


def _holder(world: World, value, loc) -> Unit:
    if type(value) is not Unit or world.units.get(value.uid) is not value:
        return world.unit(value, loc)
    return value


def _instance(unit: Unit, status: Status, loc) -> Status | None:
    """The instance on `unit` that `status` is (the same serial: a branch of exact odds
    holds a copy of it)."""
    for s in unit.statuses:
        if s is status or (s.serial == status.serial and s.name == status.name):
            return s
    return None


def remove_status(world: World, loc, unit, status) -> bool:
    """remove(unit, "name") ends every instance of the status; remove(holder, status)
    with a status value (a trigger's own `status`) ends only that instance."""
    unit = _holder(world, unit, loc)
    if isinstance(status, Status):
        found = _instance(unit, status, loc)
        if found is None:
            return False
        unit.statuses = [s for s in unit.statuses if s is not found]
        name, had = found.name, found.active
    elif isinstance(status, str):
        name, had = status, unit.has(status)
        unit.statuses = [s for s in unit.statuses if s.name != status]
    else:
        raise EvalError(f"remove() takes a status's name or a status, got {describe(status)}", loc)
    if had and world.record:
        left = sum(1 for s in unit.statuses if s.name == name and s.active)
        text = f"{unit.name} is no longer {name}" if not left else \
            f"one {name} on {unit.name} ends ({left} more)"
        world.log("status", text, unit=unit.name, status=name, ended=True)
    return had


def renew_status(world: World, ctx, loc, unit, status, turns=None):
    """renew(holder, status, turns=N): the instance lasts N more turns from now (to the
    end of the holder's N-th next turn), as if given again, keeping its values; without
    `turns` it lasts for the game."""
    unit = _holder(world, unit, loc)
    if not isinstance(status, Status):
        raise EvalError(f"renew() takes a status (a trigger's `status`, or one of "
                        f"statuses_of(unit, \"name\")), got {describe(status)}", loc)
    found = _instance(unit, status, loc)
    if found is None:
        raise EvalError(f"{unit.name} no longer has this {status.name} to renew", loc)
    if turns is not None:
        turns = getattr(turns, "total", turns)
        if type(turns) is not int:
            raise EvalError(f"a number of turns must be a whole number, got {describe(turns)}", loc)
        if turns < 0:   # as apply() refuses it
            raise EvalError(f"a number of turns cannot be negative, got {turns}", loc)
    found.turns_left, found.applied_turn = turns, world.turn
    if world.record:
        how_long = "for the game" if turns is None else f"for {turns} turn{'s' if turns != 1 else ''}"
        world.log("status", f"{unit.name} stays {found.name} {how_long}", unit=unit.name,
                  status=found.name, turns=turns, renewed=True)
    return True


def statuses_of(world: World, ctx, loc, unit, name):
    """The active instances of one status on a unit, oldest first."""
    unit = _holder(world, unit, loc)
    if name not in world.ruleset.statuses:
        raise NameError_(f"unknown status {name!r}", loc,
                         hint=did_you_mean(str(name), world.ruleset.statuses))
    return [s for s in unit.statuses if s.name == name and s.active]


def status_count(world: World, ctx, loc, unit, name) -> int:
    return len(statuses_of(world, ctx, loc, unit, name))


def _instance_in(world: World, status: Status) -> tuple[Unit, Status] | None:
    """The holder and the instance of `status` in this world (a branch of exact odds
    holds copies: the same serial names the same application)."""
    for unit in [*world.units.values(), *world.objects.values()]:
        found = _instance(unit, status, None)
        if found is not None:
            return unit, found
    return None


def assign_status_field(world: World, status: Status, field: str, op: str, value, loc):
    """`s.turns_left = N` (or `+=`, `-=`, `*=`) on any status value: a trigger's own
    `status` or one of `statuses_of(unit, "name")`.  It sets the counter that
    `turns_left` reads and the end-of-turn countdown lowers (rule 4 of the lifecycle):
    the status ends at the end of the turn in which the counter reaches 0 (set to 0, at
    the end of this turn).  Its own
    values (`with=` of `apply`) are changed like a record's fields; its `name` cannot
    be changed.  Returns the text of what changed and the new value."""
    from_world = _instance_in(world, status)
    if from_world is None:
        raise EvalError(f"this {status.name} has ended: its {field} cannot be changed", loc)
    unit, found = from_world
    if field == "name":
        raise EvalError("a status's name cannot be changed: remove() it and apply() another",
                        loc)
    if field != "turns_left":
        if field not in found.data:
            raise NameError_(f"a status has no field {field!r}", loc,
                             hint=did_you_mean(field, ["turns_left", *found.data]))
        found.data = {**found.data, field: assign_value(op, found.data[field], value, loc)}
        return f"{unit.name}'s {found.name}.{field}", found.data[field]
    if found.turns_left is None and op != "=":
        raise EvalError(f"the {found.name} on {unit.name} lasts for the game: it has no turns "
                        f"left to change with {op!r}", loc,
                        hint="set them with status.turns_left = N")
    new = assign_value(op, found.turns_left, getattr(value, "total", value), loc)
    if type(new) is not int or new < 0:
        raise EvalError(f"turns_left must be a whole number of at least 0, got {describe(new)}",
                        loc, hint="remove(holder, status) ends a status now; "
                        "renew(holder, status) makes it last for the game")
    found.turns_left = new
    return f"{unit.name}'s {found.name}.turns_left", new
