"""The built-in actions of a hex map that blocks (see board.py): moving by orders with
movement points, what the last move hit, paths, terrain and occupants of a hex,
objects that are not units, and deflection by an angle."""
from __future__ import annotations

from fractions import Fraction

from ..errors import EvalError, NameError_
from ..expr.values import decimal_text, describe
from ..suggest import did_you_mean
from . import board, space
from .actions import Action
from .world import Unit, World


def _hex_space(world: World, loc, what: str):
    if world.space != "hex":
        raise EvalError(f"{what}() works on a hex map; this ruleset's space is {world.space!r}", loc)


def _at(world: World, where, loc) -> tuple:
    """A hex from a unit, an object, a position record or [q, r]."""
    if isinstance(where, Unit) or isinstance(where, str):
        pos = world.position(world.unit(where, loc), loc)
        return (pos.x, pos.y)
    if isinstance(where, dict) and "q" in where and "r" in where:
        return (where["q"], where["r"])
    if isinstance(where, (list, tuple)) and len(where) >= 2:
        return (where[0], where[1])
    raise EvalError(f"expected a unit or a hex ({{q, r}} or [q, r]), got {describe(where)}", loc)


def _log_move(world: World, unit: Unit, done: dict, what: str) -> None:
    if not world.record:
        return
    pos = world.positions[unit.uid]
    text = (f"{unit.name} {what} to ({decimal_text(pos.x)}, {decimal_text(pos.y)}) facing "
            f"{decimal_text(pos.facing)}: {done['hexes']} hex{'es' if done['hexes'] != 1 else ''}, "
            f"{decimal_text(done['spent'])} spent")
    if done["stopped"] == "blocked":
        text += f", stopped by {board.describe_hit(done['hit'])}"
    elif done["stopped"] == "out of movement points":
        text += ", out of movement points"
    world.log("move", text, unit=unit.name, position=pos.as_record("hex"),
              hexes=done["hexes"], spent=done["spent"], stopped=done["stopped"])


def _move(world: World, ctx, loc, unit, orders, mp=None):
    _hex_space(world, loc, "move_by")
    unit = world.unit(unit, loc)
    world.position(unit, loc)
    done = board.program(world, unit, orders, mp, loc)
    world.moves[unit.uid] = done
    _log_move(world, unit, done, "moves")
    return done


def _last_move(world: World, ctx, loc, unit):
    unit = world.unit(unit, loc)
    return world.moves.get(unit.uid) or board.report(0, 0, "none", None)


def _path(world: World, ctx, loc, a, b):
    """The hexes from a towards b, b included, up to and including the first one a may
    not enter (the last hex then says what is in the way)."""
    _hex_space(world, loc, "path")
    mover = world.unit(a, loc)
    start = world.position(mover, loc)
    goal = _at(world, b, loc)
    end = space.Position(goal[0], goal[1])
    hexes, here = [], (start.x, start.y)
    for to in board.line(start, end, space.hex_distance(start, end)):
        hexes.append(board.hex_record(world, *to))
        if to != goal and board.blocker(world, mover, here, to) is not None:
            break
        here = to
    return hexes


def _terrain(world: World, ctx, loc, where):
    _hex_space(world, loc, "terrain_of")
    return board.terrain_record(world, *_at(world, where, loc))


def _set_terrain(world: World, ctx, loc, where, name, **values):
    """A hex's terrain changes (a wreck becomes an obstacle, a wall falls: "clear"); its
    keywords are the hex's own values over its kind's (a stone wall's hits left)."""
    _hex_space(world, loc, "set_terrain")
    kinds = board.rules(world).get("terrain") or {}
    if name != board.CLEAR and name not in kinds:
        raise NameError_(f"unknown terrain {name!r}", loc,
                         hint=did_you_mean(str(name), kinds) or "terrain kinds are declared in space.terrain")
    known = board.declared_values(kinds)
    for key in values:
        if key not in known:
            raise NameError_(f"set_terrain() gives the hex {key!r}, which no terrain kind declares",
                             loc, hint=did_you_mean(key, known) or
                             "terrain values are declared in space.terrain")
    q, r = _at(world, where, loc)
    # changed copies, not in place: copies of a world share its terrain (World.copy)
    world.terrain, world.terrain_values = dict(world.terrain), dict(world.terrain_values)
    if name == board.CLEAR:
        world.terrain.pop((q, r), None)
    else:
        world.terrain[(q, r)] = name
    world.terrain_values.pop((q, r), None)
    values = {k: v.total if hasattr(v, "natural") else v for k, v in values.items()}
    if values:
        world.terrain_values[(q, r)] = dict(values)
    if world.record:
        shown = "".join(f", {k} {decimal_text(v) if isinstance(v, (int, Fraction)) else v}"
                        for k, v in values.items())
        world.log("terrain", f"({q}, {r}) is {name}{shown}", hex={"q": q, "r": r}, terrain=name)
    return name


def _units_at(world: World, ctx, loc, where):
    _hex_space(world, loc, "units_at")
    return board.occupants(world, *_at(world, where, loc))


def _object(world: World, ctx, loc, name):
    for thing in world.objects.values():
        if thing.name == name:
            return thing
    raise NameError_(f"no object named {name!r}", loc,
                     hint=did_you_mean(str(name), [o.name for o in world.objects.values()])
                     or "objects are given by a scenario's `objects:`")


def _deflect(world: World, ctx, loc, unit, degrees, direction):
    """Turn a unit or object by an angle to its left or right: on a hex map in steps of
    30° (half a hex side: 90° right of a hex side is half way between two others)."""
    unit = world.unit(unit, loc)
    if direction not in ("left", "right"):
        raise EvalError(f"deflect() turns \"left\" or \"right\", not {describe(direction)}", loc)
    sign = 1 if direction == "right" else -1
    pos = world.position(unit, loc)
    if world.space == "hex":
        if not isinstance(degrees, (int, Fraction)) or isinstance(degrees, bool) or degrees % 30:
            shown = f"{decimal_text(degrees)}°" if isinstance(degrees, (int, Fraction)) \
                else describe(degrees)
            raise EvalError(f"on a hex map a facing turns by 30° steps (a hex side is 60°); "
                            f"{shown} is not a multiple of 30°", loc)
        new = space.turned(pos, sign * Fraction(degrees, 60), "hex")
    else:
        new = space.turned(pos, sign * degrees, world.space)
    world.positions[unit.uid] = new
    if world.record:
        world.log("move", f"{unit.name} is deflected {decimal_text(degrees)}° {direction}: facing "
                  f"{decimal_text(new.facing)}", unit=unit.name, position=new.as_record(world.space))
    return new.as_record(world.space)


def _react(world: World, ctx, loc, point, unit):
    """Offer a reaction point by name (the rules' own "declared moment")."""
    if not isinstance(point, str):
        raise EvalError(f"react() takes the reaction point's name first, got {describe(point)}", loc)
    board.offer_reaction(world, world.unit(unit, loc), loc, point)
    return True


MOVES: dict[str, Action] = {a.name: a for a in [
    Action("move_by", _move, True, "move a unit by orders (\"forward\", \"back\", \"left\", \"right\") "
           "with mp= movement points: move_by(unit, orders, mp=N)"),
    Action("last_move", _last_move, False, "what a unit's last move did: hexes, spent, stopped, hit"),
    Action("path", _path, False, "the hexes from a unit to a hex or unit, up to the first it may not enter"),
    Action("terrain_of", _terrain, False, "the terrain of a hex (or a unit's hex) with its properties"),
    Action("set_terrain", _set_terrain, True, "change a hex's terrain: set_terrain([q, r], \"wall\", hits=55)"),
    Action("units_at", _units_at, False, "the living units standing on a hex"),
    Action("object", _object, False, "an object of the scenario (not a unit) by name"),
    Action("react", _react, True, "offer a reaction point: react(\"name\", unit) (see turn.reactions)"),
    Action("deflect", _deflect, True, "turn a unit or object by an angle left or right: "
           "deflect(ball, 60, \"left\")"),
]}
