"""Who is on which side: a world's roster, kept as an index.

`enemies(unit)`, `count_alive(side)`, a side's `units` and every segment of the turn loop
ask which units are on a side; going through every unit of the world and comparing its
side each time was a tenth of a tanks game.  The roster (side name -> its units, side
name -> the units not on it, each in the order of `world.units`) is built once and again
only when a unit joined or left the world (their count) or some unit's side was set
anywhere (`SIDES_SET`, counted by `Unit.side`'s setter: capture(), a bulk run putting a
unit back, `World.become`), so no writer of a side needs to know of it.  Who is destroyed
is still read from the fields at every call: any step may write `destroyed`.
A copied or pickled world starts without one (`World.copy`, `World.__getstate__`).
"""
from __future__ import annotations

SIDES_SET = [0]   # how often any unit's side was set, in this process


def roster(world):
    """(side name -> its units, side name -> the units not on it), destroyed or not.
    Kept with the key and the world's layout: each unit's id and side, in the order of
    `world.units` (what a victory check's memo key needs besides who stands)."""
    key = (len(world.units), SIDES_SET[0])
    built = world._roster
    if built is not None and built[0] == key:
        return built[1]
    units = list(world.units.values())
    names = dict.fromkeys(world.sides)
    names.update(dict.fromkeys(u.side for u in units))
    own = {n: [u for u in units if u.side == n] for n in names}
    others = {n: [u for u in units if u.side != n] for n in names}
    placed = tuple([(uid, u._side) for uid, u in world.units.items()])
    world._roster = (key, (own, others), placed)
    return own, others


def layout(world) -> tuple:
    """Each unit's id and side, in the order of `world.units` (kept with the roster)."""
    roster(world)
    return world._roster[2]


def living(world, side: str) -> list:
    """The side's units not destroyed, in the order of `world.units`."""
    built = world._roster   # `roster(world)`, written out: every segment asks
    if built is None or built[0] != (len(world.units), SIDES_SET[0]):
        roster(world)
        built = world._roster
    return standing(built[1][0].get(side, ()))


def living_enemies(world, side: str) -> list:
    """The units not on the side and not destroyed, in the order of `world.units`."""
    built = world._roster   # `roster(world)`, written out: `enemies()` is hot
    if built is None or built[0] != (len(world.units), SIDES_SET[0]):
        roster(world)
        built = world._roster
    others = built[1][1].get(side)
    if others is None:   # a side no unit is on: every unit is its enemy
        others = list(world.units.values())
    return standing(others)


def standing(units) -> list:
    """The units not destroyed, read from their fields now (any step may write
    `destroyed`), in their order.  A loop rather than a comprehension: the roster's
    lists are a few units long, and a comprehension's own frame cost more than its
    loop (`enemies()` and every side's segments ask, hundreds of times a game)."""
    found = []
    for u in units:
        if not u.fields.get("destroyed", False):
            found.append(u)
    return found
