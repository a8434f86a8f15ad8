"""A hex map that blocks: occupancy, terrain with properties, and movement hex by hex.

The ruleset's `space:` declares the rules of the map (all optional):

    space:
      model: hex
      per_hex: 1           # at most one unit per hex (default: no limit)
      turn_cost: 1         # movement points per hex side turned by move_by()
      terrain:             # terrain kinds: blocks, cost to enter, and any other values
        wall: {blocks: true, values: {hits: 20}}
        rough: {cost: 2}
        goal: {open_sides: [1]}   # entered only across these sides of the hex (0-5)

A unit walking hex by hex stops in front of the first hex it may not enter: one holding
`per_hex` living units already, a terrain that `blocks`, or one entered across a side
not in its `open_sides`.  What stopped it is kept (`last_move`) so that a ram or a
collision can be resolved by the rules.  Objects (a ball) take up a hex like units:
a ball rolling into a jug, or a jug into the ball, is stopped, and `hit` says by what.
Every hex entered is a reaction point
(`world.reactor`, set by the turn engine).  Nothing here knows a game.
"""
from __future__ import annotations

from ..errors import EvalError
from ..suggest import did_you_mean
from . import space
from .world import Unit, World

CLEAR = "clear"


EDGE = "edge"          # what an off-map hex is: a terrain that blocks (the arena's edge)


def hex_key(text) -> tuple[int, int] | None:
    """A scenario's hex key `"q,r"` (`"3,-1"`) as numbers, or None if it is not one."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2:
        return None
    try:
        return int(parts[0]), int(parts[1])
    except ValueError:
        return None


def map_extent(spec) -> tuple | None:
    """A scenario's `map: {q: [lo, hi], r: [lo, hi]}` as ((q_lo, q_hi), (r_lo, r_hi)),
    or None: a map without an extent has no edge."""
    try:
        extent = tuple(tuple(sorted(spec[axis])) for axis in ("q", "r"))
    except (TypeError, KeyError):    # not a map the schema allows: it says so
        return None
    if any(len(pair) != 2 or any(type(v) is not int for v in pair) for pair in extent):
        return None
    return extent


def on_map(extent, q, r) -> bool:
    if extent is None:
        return True
    (q_lo, q_hi), (r_lo, r_hi) = extent
    return q_lo <= q <= q_hi and r_lo <= r <= r_hi


def nearest_on_map(extent, q, r) -> tuple[int, int]:
    """The hex of the map nearest a hex off it, coordinate by coordinate (for "did you mean")."""
    (q_lo, q_hi), (r_lo, r_hi) = extent
    return min(max(int(q), q_lo), q_hi), min(max(int(r), r_lo), r_hi)


def hex_terrain(value) -> tuple[str, dict]:
    """A scenario hex's terrain as written: a name (`forest`), or a record giving the hex
    values of its own (`{terrain: stone_wall, hits: 40}`, `{cover: 2}` on a clear hex)."""
    if isinstance(value, dict):
        values = {k: v for k, v in value.items() if k != "terrain"}
        return str(value.get("terrain", CLEAR)), values
    return str(value), {}


def rules(world: World) -> dict:
    got = getattr(world.ruleset, "space_rules", None) if world.ruleset is not None else None
    return got or {}


def declared_values(kinds) -> set:
    """What a hex may be given values of (by a scenario or `set_terrain`): the terrain
    properties and every value some terrain kind declares (a value only hexes carry is
    declared on `clear`)."""
    known = {"blocks", "cost", "open_sides"}
    for kind in (kinds or {}).values():
        if isinstance(kind, dict):
            known |= {k for k in kind if k != "values"} | set(kind.get("values") or {})
    return known


def terrain_record(world: World, q: int, r: int) -> dict:
    """The terrain of a hex as a record: its name and the properties its kind declares
    (`blocks` and `cost` always there, false and 1 unless declared, then its `values`,
    then the hex's own values given by the scenario or `set_terrain`).  A hex off the
    scenario's map (`map:`) is the edge, which blocks."""
    if not on_map(world.extent, q, r):
        return {"name": EDGE, "blocks": True, "cost": 1}
    name = world.terrain.get((q, r), CLEAR)
    kind = (rules(world).get("terrain") or {}).get(name) or {}
    record = {"name": name, "blocks": False, "cost": 1}
    record.update({k: v for k, v in kind.items() if k != "values"})
    record.update(kind.get("values") or {})
    record.update(world.terrain_values.get((q, r)) or {})
    return record


def occupants(world: World, q: int, r: int, besides: Unit | None = None,
              objects: bool = False) -> list[Unit]:
    """The living units standing on a hex (and its objects, if asked)."""
    found = []
    for uid, pos in world.positions.items():
        if pos.x == q and pos.y == r and (besides is None or uid != besides.uid):
            unit = world.units.get(uid) or (world.objects.get(uid) if objects else None)
            if unit is not None and unit.alive:
                found.append(unit)
    return found


def hex_record(world: World, q: int, r: int) -> dict:
    """One hex of a path: where it is, its terrain's name and who stands on it."""
    here = occupants(world, q, r)
    return {"q": q, "r": r, "terrain": terrain_record(world, q, r)["name"],
            "unit": here[0] if here else None}


def blocker(world: World, mover: Unit, frm: tuple, to: tuple):
    """What keeps `mover` from stepping from hex `frm` into the next hex `to`: a unit,
    a terrain record, or None."""
    terrain = terrain_record(world, *to)
    if terrain.get("blocks"):
        return terrain
    sides = terrain.get("open_sides")
    if sides is not None:
        crossed = _side_towards(to, frm)
        if crossed not in sides:
            return terrain
    limit = rules(world).get("per_hex")
    if limit is not None:
        here = occupants(world, *to, besides=mover, objects=True)
        if len(here) >= limit:
            return here[0]
    return None


def _side_towards(at: tuple, other: tuple) -> int | None:
    """Which side (0-5) of hex `at` faces the neighbouring hex `other`."""
    d = (other[0] - at[0], other[1] - at[1])
    return space.HEX_DIRECTIONS.index(d) if d in space.HEX_DIRECTIONS else None


def line(a: space.Position, b: space.Position, steps: int, away: bool = False) -> list[tuple]:
    """The hexes from `a` towards `b` (or away), one per hex moved, `steps` of them:
    each the hex `move_towards` would end on after that many hexes."""
    total = space.hex_distance(a, b)
    if total == 0:
        return []
    out = []
    for i in range(1, steps + 1):
        t = (-i if away else i) / total
        q = a.x + (b.x - a.x) * t + 1e-6
        r = a.y + (b.y - a.y) * t + 1e-6
        out.append(space.hex_round(q, r))
    return out


def ahead(pos: space.Position, n: int) -> list[tuple]:
    """The `n` hexes straight ahead of `pos` (behind it for a negative `n`)."""
    out, q, r = [], pos.x, pos.y
    for dq, dr in space.hex_steps(pos.facing, n):
        q, r = q + dq, r + dr
        out.append((q, r))
    return out


def describe_hit(hit) -> str:
    """What stopped a move, for the transcript."""
    if isinstance(hit, Unit):
        return hit.name
    if isinstance(hit, dict):
        return str(hit.get("name", "terrain"))
    return "nothing"


def report(hexes: int, spent, stop: str, hit) -> dict:
    """What a move did, as the rules read it with `last_move(unit)`."""
    return {"hexes": hexes, "spent": spent, "stopped": stop, "hit": hit}


def walk(world: World, unit: Unit, hexes: list[tuple], loc, offer=True) -> dict:
    """Move `unit` into `hexes` one after the other, stopping in front of the first it
    may not enter; a reaction point is offered after every hex entered."""
    pos = world.positions[unit.uid]
    done, spent = 0, 0
    for to in hexes:
        if (to[0], to[1]) == (pos.x, pos.y):
            continue
        if (to[0] - pos.x, to[1] - pos.y) not in space.HEX_DIRECTIONS:
            raise EvalError(f"{unit.name} cannot step from ({pos.x}, {pos.y}) to {to}: not a "
                            f"neighbouring hex", loc)
        hit = blocker(world, unit, (pos.x, pos.y), to)
        if hit is not None:
            return report(done, spent, "blocked", hit)
        spent += terrain_record(world, *to).get("cost", 1)
        pos = space.Position(to[0], to[1], pos.facing)
        world.positions[unit.uid] = pos
        done += 1
        if offer:
            offer_reaction(world, unit, loc)
        if not unit.alive:
            return report(done, spent, "destroyed", None)
    return report(done, spent, "done", None)


def offer_reaction(world: World, unit: Unit, loc, point: str = "move") -> None:
    """A reaction point: any side's policy may act (game/reactions.py decides how).
    When the rules declare reactions, each hex entered gets its own transcript line,
    so that what happens at the point reads in its place."""
    if world.reactor is None:
        return
    if point == "move" and world.record:
        pos = world.positions[unit.uid]
        world.log("step", f"{unit.name} enters ({pos.x}, {pos.y})", unit=unit.name,
                  position=pos.as_record("hex"))
    world.reactor(world, point, unit, loc)


ORDERS = {"forward": 0, "back": 3, "left": -1, "right": 1}


def program(world: World, unit: Unit, orders, mp, loc) -> dict:
    """move_by(unit, orders, mp): "forward" / "back" enter the next hex ahead or behind
    (its terrain's `cost`), "left" / "right" turn one hex side (`turn_cost`, default 1);
    the move stops at an order it cannot pay for, or in front of a hex it may not
    enter."""
    if isinstance(orders, str):
        orders = [orders]
    if not isinstance(orders, (list, tuple)):
        raise EvalError("move_by() takes a list of orders: \"forward\", \"back\", \"left\", \"right\"", loc)
    turn_cost = rules(world).get("turn_cost", 1)
    spent, hexes = 0, 0
    for order in orders:
        if order not in ORDERS:
            raise EvalError(f"unknown movement order {order!r}", loc,
                            hint=did_you_mean(str(order), ORDERS))
        pos = world.positions[unit.uid]
        if order in ("left", "right"):
            if mp is not None and spent + turn_cost > mp:
                return report(hexes, spent, "out of movement points", None)
            spent += turn_cost
            world.positions[unit.uid] = space.turned(pos, ORDERS[order], "hex")
            continue
        # the hexes-th step of a straight run (a facing between sides alternates)
        dq, dr = space.hex_steps(pos.facing, hexes + 1 if order == "forward" else -(hexes + 1))[-1]
        to = (pos.x + dq, pos.y + dr)
        cost = terrain_record(world, *to).get("cost", 1)
        if mp is not None and spent + cost > mp:
            return report(hexes, spent, "out of movement points", None)
        hit = blocker(world, unit, (pos.x, pos.y), to)
        if hit is not None:
            return report(hexes, spent, "blocked", hit)
        spent += cost
        hexes += 1
        world.positions[unit.uid] = space.Position(to[0], to[1], pos.facing)
        offer_reaction(world, unit, loc)
        if not unit.alive:
            return report(hexes, spent, "destroyed", None)
    return report(hexes, spent, "done", None)
