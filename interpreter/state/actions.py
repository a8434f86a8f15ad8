"""The built-in actions the DSL can call on the game: statuses, destruction, distances,
movement in space, sides and scores.  Each is one small function and a line in ACTIONS.

`fn(world, ctx, loc, *args, **kwargs)`; an action's `mutates` says whether it changes the
world (exact enumeration copies the world before running such an action).
"""
from __future__ import annotations

from ..dice.distribution import Distribution
from ..errors import EvalError, NameError_
from ..expr.sampled import Context
from ..expr.values import decimal_text, describe, outcome
from . import board, space
from ..suggest import did_you_mean
from .statuses import remove_status, renew_status, stack_onto, status_count, statuses_of
from .roster import SIDES_SET, living, living_enemies
from .usage import use, uses
from .world import PAIR_KEYS, Side, Status, Unit, World, pair_key


# The exact-odds modules' entry points, bound by `_load_exact` where an enumeration
# first needs them (a sampled game never loads those modules; a function-level import
# would cost about a microsecond on every call of these hot paths).
exact = product = None


def _load_exact() -> None:
    global exact, product
    from ..expr.exact import exact, product


class Action:
    """A built-in the DSL can call: `apply(unit, "shaken", turns=1)` and friends.

    `fn(world, ctx, loc, *args, **kwargs)`; `mutates` says whether it changes the world
    (exact enumeration copies the world before running such an action)."""

    def __init__(self, name: str, fn, mutates: bool, doc: str, positional=None):
        self.name, self.fn, self.mutates, self.doc = name, fn, mutates, doc
        self.dsl_label = f"the built-in {name}()"
        # for compiled steps: (fn(world, loc, *values, extra), parameter names, defaults)
        # when fn's keywords beyond those names are gathered in one dict `extra`
        self.positional = positional

    def dsl_exact_call(self, node, env):
        """In exact mode, an action that only reads the game (`has`, `distance`, ...)
        is evaluated in the branch's world for every combination of its arguments."""
        world = getattr(env, "world", None)
        if self.mutates or world is None:
            raise EvalError(f"{self.name}() changes the game; use it as a step, not inside an "
                            f"expression" if self.mutates else
                            f"{self.name}() needs a game in progress", node.loc)
        if exact is None:   # the exact-odds modules, loaded at first use
            _load_exact()
        args = [exact(a, env) for a in node.args]
        kwargs = [(k, exact(v, env)) for k, v in node.kwargs]
        ctx = Context(env, None, None, world)
        branches = []
        for weight, values in product(args + [d for _, d in kwargs]):
            pos = list(values[:len(args)])
            kw = {k: v for (k, _), v in zip(kwargs, values[len(args):])}
            try:
                result = self.fn(world, ctx, node.loc, *pos, **kw)
            except TypeError as err:
                raise EvalError(f"{self.name}(): {err}", node.loc) from None
            branches.append((weight, Distribution.constant(outcome(result))))
        return Distribution.mix(branches)

    def dsl_call(self, args, kwargs, loc, ctx: Context):
        world = ctx.world
        if world is None:
            raise EvalError(f"{self.name}() needs a game in progress (use `rulecraft run` or `play`)", loc)
        try:
            return self.fn(world, ctx, loc, *args, **kwargs)
        except TypeError as err:
            raise EvalError(f"{self.name}(): {err}", loc) from None


_new_status = Status.__new__


def _apply(world: World, ctx, loc, unit, status, turns=None, starting="now", **data):
    return _give_status(world, loc, unit, status, turns, starting, data)


def _give_status(world: World, loc, unit, status, turns, starting, data: dict):
    """apply(): `data` holds the status's own values (the call's other keywords)."""
    if type(unit) is not Unit or world.units.get(unit.uid) is not unit:
        unit = world.unit(unit, loc)
    definition = world.ruleset.statuses.get(status)
    if definition is None:
        raise NameError_(f"unknown status {status!r}", loc,
                         hint=did_you_mean(str(status), world.ruleset.statuses))
    if turns is not None and (turns.__class__ is not int or turns < 0):
        if type(turns) is not int:
            turns = _plain_int(turns, loc)
        if turns < 0:   # as `turns=5/2` is refused, so is "-3 turns"
            raise EvalError(f"a number of turns cannot be negative, got {turns}", loc)
    turn = world.turn
    if starting == "now":
        active_from = turn
    elif starting == "next turn":
        active_from = turn + 1
    else:
        raise EvalError(f"starting= is \"now\" or \"next turn\", not {starting!r}", loc)
    given = _new_status(Status)   # Status(...) without a call to __init__: apply() is hot
    given.name = status
    given.definition = definition
    given.turns_left = turns
    given.applied_turn = turn
    given.data = data
    given.active_from = active_from
    given.started = False
    if not unit.statuses:
        world.serial += 1   # world.next_serial(), written out
        given.serial = world.serial
        unit.statuses = [given]
        done = "given"
    else:
        done = stack_onto(world, unit, given, definition.stack)
    if world.record:
        how_long = "for the game" if turns is None else f"for {turns} turn{'s' if turns != 1 else ''}"
        when = " from next turn" if starting == "next turn" else ""
        text = f"{unit.name} is {status}{when} {how_long}"
        if done != "given":
            held = [s for s in unit.statuses if s.name == status][-1]
            left = "for the game" if held.turns_left is None else f"{held.turns_left} turns left"
            text += f" (stacks: {definition.stack}, {left})"
        world.log("status", text, unit=unit.name, status=status, turns=turns, starting=starting)
    return True


def _plain_int(value, loc):
    total = getattr(value, "total", value)
    if type(total) is not int:
        raise EvalError(f"a number of turns must be a whole number, got {describe(total)}", loc)
    return total


def _remove(world: World, ctx, loc, unit, status):
    return remove_status(world, loc, unit, status)


def _has(world: World, ctx, loc, unit, status):
    if unit.__class__ is not Unit or world.units.get(unit.uid) is not unit:
        unit = world.unit(unit, loc)
    return bool(unit.statuses) and unit.has(status)   # no status: nothing to look through


def _destroy(world: World, ctx, loc, unit):
    if type(unit) is not Unit or world.units.get(unit.uid) is not unit:
        unit = world.unit(unit, loc)
    fields = unit.fields
    if world.doomed is not None and not fields.get("destroyed", False):
        # a simultaneous phase: destroyed when the phase ends (batches.py)
        if unit.uid not in world.doomed:
            world.doomed.append(unit.uid)
            if world.record:
                world.log("destroyed", f"{unit.name} is destroyed (at the end of the phase: "
                          f"it still acts in this one)", unit=unit.name, held=True)
        return True
    if not fields.get("destroyed", False):
        unit.changed = True
        fields["destroyed"] = True
        if world.record:
            world.log("destroyed", f"{unit.name} is destroyed", unit=unit.name)
    return True


def _distance(world: World, ctx, loc, a, b):
    if a.__class__ is Unit and b.__class__ is Unit and not world.positions:
        # an abstract space reads the pair's ids alone, and `world.unit` of a unit is the
        # unit of its id (or the unit itself): written out, for the hot case, with the
        # pair's kept key (`pair_key`, its lookup written out)
        inner = PAIR_KEYS.get(a.uid)
        key = inner.get(b.uid) if inner is not None else None
        if key is None:
            key = pair_key(a.uid, b.uid)
        return world.distances.get(key, world.default_distance)
    units = world.units
    if a.__class__ is not Unit or units.get(a.uid) is not a:
        a = world.unit(a, loc)
    if b.__class__ is not Unit or units.get(b.uid) is not b:
        b = world.unit(b, loc)
    if not world.positions:   # World.distance of an abstract space, written out (hot)
        return world.distances.get(pair_key(a.uid, b.uid), world.default_distance)
    return world.distance(a, b)


def _set_distance(world: World, ctx, loc, a, b, value):
    if a.__class__ is Unit and b.__class__ is Unit:   # (World.set_distance reads the ids)
        inner = PAIR_KEYS.get(a.uid)   # the pair's kept key, as `_distance` finds it
        key = inner.get(b.uid) if inner is not None else None
        world.distances[key if key is not None else pair_key(a.uid, b.uid)] = value
        return value
    units = world.units   # `world.unit` of a unit of this world, written out (as `_distance`)
    if a.__class__ is not Unit or units.get(a.uid) is not a:
        a = world.unit(a, loc)
    if b.__class__ is not Unit or units.get(b.uid) is not b:
        b = world.unit(b, loc)
    world.set_distance(a, b, value)
    return value


def _position(world: World, ctx, loc, unit):
    unit = world.unit(unit, loc)
    return world.position(unit, loc).as_record(world.space)


def _has_position(world: World, ctx, loc, unit):
    """Whether the unit stands somewhere: a procedure that also runs off the map (`run`,
    exact odds of one call) asks before it reads `position(unit)`, which is an error
    there."""
    return world.unit(unit, loc).uid in world.positions


def _moved(world: World, unit, new, loc, what: str):
    world.positions[unit.uid] = new
    shown = new.as_record(world.space)
    if world.record:
        world.log("move", f"{unit.name} {what} to {_where(shown, world.space)}", unit=unit.name,
                  position=shown)
    return shown


def _where(record: dict, model: str) -> str:
    a, b = ("q", "r") if model == "hex" else ("x", "y")
    return (f"({decimal_text(record[a])}, {decimal_text(record[b])}) facing "
            f"{decimal_text(record['facing'])}")


def _move_towards(world: World, ctx, loc, unit, target, amount, away=False):
    unit, target = world.unit(unit, loc), world.unit(target, loc)
    if unit.uid not in world.positions or target.uid not in world.positions:
        # abstract space: the pair's distance shrinks (or grows)
        now = world.distance(unit, target)
        new = now + amount if away else max(0, now - amount)
        world.set_distance(unit, target, new)
        if world.record:
            world.log("move", f"{unit.name} moves {'away from' if away else 'towards'} {target.name}: "
                      f"distance {decimal_text(new)}", unit=unit.name, distance=new)
        return new
    what = "moves " + ("away" if away else "towards " + target.name)
    if world.space == "hex":
        start, goal = world.positions[unit.uid], world.positions[target.uid]
        steps = int(amount) if away else min(int(amount), space.hex_distance(start, goal))
        _walked(world, unit, board.line(start, goal, steps, away), loc, what)
        return world.distance(unit, target)
    new = space.move_towards(world.positions[unit.uid], world.positions[target.uid], amount,
                             world.space, away)
    _moved(world, unit, new, loc, what)
    return world.distance(unit, target)


def _walked(world: World, unit, hexes, loc, what: str):
    """A hex move, hex by hex (board.walk): it stops in front of what blocks it, and
    `last_move(unit)` tells what that was."""
    done = board.walk(world, unit, hexes, loc)
    world.moves[unit.uid] = done
    shown = world.positions[unit.uid].as_record(world.space)
    if world.record:
        text = f"{unit.name} {what} to {_where(shown, world.space)}"
        if done["stopped"] == "blocked":
            text += f", stopped by {board.describe_hit(done['hit'])}"
        world.log("move", text, unit=unit.name, position=shown)
    return shown


def _move_away(world: World, ctx, loc, unit, target, amount):
    return _move_towards(world, ctx, loc, unit, target, amount, away=True)


def _step_forward(world: World, ctx, loc, unit, amount):
    unit = world.unit(unit, loc)
    if world.space == "hex":
        return _walked(world, unit, board.ahead(world.position(unit, loc), int(amount)), loc,
                       "moves ahead")
    return _moved(world, unit, space.step_forward(world.position(unit, loc), amount, world.space),
                  loc, "moves ahead")


def _rotate(world: World, ctx, loc, unit, by):
    unit = world.unit(unit, loc)
    return _moved(world, unit, space.turned(world.position(unit, loc), by, world.space), loc, "turns")


def _face(world: World, ctx, loc, unit, target):
    unit, target = world.unit(unit, loc), world.unit(target, loc)
    return _moved(world, unit, space.facing_towards(world.position(unit, loc),
                                                    world.position(target, loc), world.space),
                  loc, f"faces {target.name}")


def _place(world: World, ctx, loc, unit, where):
    unit = world.unit(unit, loc)
    return _moved(world, unit, space.parse_position(where, world.space, "place()"), loc, "is placed")


def _arc(world: World, ctx, loc, unit, target):
    unit, target = world.unit(unit, loc), world.unit(target, loc)
    return space.arc(world.position(unit, loc), world.position(target, loc), world.space)


def _tabletop_pair(world: World, loc, unit, other, what: str):
    if world.space != "tabletop":
        raise EvalError(f"{what}() measures a rectangular base on a tabletop; this ruleset's "
                        f"space is {world.space!r}", loc)
    unit, other = world.unit(unit, loc), world.unit(other, loc)
    return world.position(unit, loc), world.position(other, loc)


def _base_measure(name: str):
    """A built-in measuring from a unit's rectangular base (`space.<name>`)."""
    measure = getattr(space, name)

    def action(world: World, ctx, loc, unit, other, length, width):
        a, b = _tabletop_pair(world, loc, unit, other, name)
        try:
            return measure(a, b, length, width)
        except EvalError as err:
            raise EvalError(f"{name}(): {err.message}", loc) from None
    return action


_base_arc = _base_measure("base_arc")
_distance_from_edge = _base_measure("distance_from_edge")


def _terrain_at(world: World, ctx, loc, unit):
    pos = world.positions.get(world.unit(unit, loc).uid)
    if pos is None:
        return "clear"
    return world.terrain.get((pos.x, pos.y), "clear")


def _alive(world: World, ctx, loc, units):
    if isinstance(units, (Side, str)):
        units = world.side_of(units, loc).units()
    return [u for u in units if isinstance(u, Unit) and not u.fields.get("destroyed", False)]


def _count_alive(world: World, ctx, loc, units):
    if units.__class__ is Side or isinstance(units, (Side, str)):
        return len(living(world, world.side_of(units, loc).name))
    return len(_alive(world, ctx, loc, units))


def _side(world: World, ctx, loc, name):
    return world.side_of(name, loc)


def _enemies(world: World, ctx, loc, of):
    # a unit's side as World.side_of finds it, without the call, and `living_enemies`
    # written out when the roster is built and the side has units (hot: a few hundred
    # calls a game)
    side = world.sides[of._side].name if of.__class__ is Unit else world.side_of(of, loc).name
    built = world._roster
    if built is not None and built[0] == (len(world.units), SIDES_SET[0]):
        others = built[1][1].get(side)
        if others is not None:   # `standing(others)`, written out
            found = []
            for u in others:
                if not u.fields.get("destroyed", False):
                    found.append(u)
            return found
    return living_enemies(world, side)


def _capture(world: World, ctx, loc, unit, side):
    """capture(unit, side): the unit comes under that side's control ("the target jug
    comes under your control").  Everything that asks for a side's units asks again, so
    the unit acts in its new side's segments from the next one, is among the other
    sides' `enemies`, counts for its new side's victory, and the end-of-game report says
    it was taken.  Its fields and statuses stay as they are.  Returns whether it changed
    hands (false if it was that side's already)."""
    if type(unit) is not Unit or world.units.get(unit.uid) is not unit:
        unit = world.unit(unit, loc)
    if unit.uid not in world.units:
        raise EvalError(f"{unit.name} is not a unit of a side and cannot be captured", loc)
    new = world.side_of(side, loc)
    if unit.side == new.name:
        return False
    old, unit.side, unit.changed = unit.side, new.name, True
    if world.record:
        world.log("captured", f"{unit.name} comes under {new.name}'s control (taken from {old})",
                  unit=unit.name, side=new.name, taken_from=old)
    return True


def _end_turn(world: World, ctx, loc):
    """end_turn(): the turn ends at once ("if a goal was scored start the round over").
    The steps of the call under way still run (write `return` after it to stop them),
    as do the end triggers of the segment under way and the phase's deferred calls; the
    other segments of this phase and the later phases are skipped; the end of the turn
    (its steps, `end_of_turn` triggers, the status countdown, victory) happens as usual
    (game/play.py).  A procedure run alone has no turn: nothing follows."""
    if not world.turn_ended:
        world.turn_ended = True
        if world.record:
            world.log("turn_ended", "the turn ends here: the rest of its phases are skipped")
    return True


def _score(world: World, ctx, loc, side, points):
    side = world.side_of(side, loc)
    side.data["score"] = side.data.get("score", 0) + points
    if world.record:
        world.log("score", f"{side.name} scores {points}", side=side.name, points=points)
    return side.data["score"]


ACTIONS: dict[str, Action] = {a.name: a for a in [
    Action("apply", _apply, True, "give a unit a status: apply(unit, \"name\", turns=N, key=value...)",
           (_give_status, ("unit", "status", "turns", "starting"), {"turns": None, "starting": "now"})),
    Action("remove", _remove, True, "end a status: remove(unit, \"name\") (every instance), "
           "or remove(holder, status) (that one)"),
    Action("renew", renew_status, True, "make a status last N more turns: renew(holder, status, turns=N)"),
    Action("statuses_of", statuses_of, False, "the active instances of a status on a unit, oldest first"),
    Action("status_count", status_count, False, "how many instances of a status a unit has"),
    Action("use", use, True, "count one use: use(unit, key, per=\"turn\", limit=N); per=3: a "
           "cooldown of 3 turns"),
    Action("uses", uses, False, "how often a unit used key this turn (per=\"phase\", \"game\", "
           "or per=N: this turn and the N - 1 before)"),
    Action("has", _has, False, "whether a unit has a status: has(unit, \"name\")"),
    Action("destroy", _destroy, True, "destroy a unit: destroy(unit)"),
    Action("distance", _distance, False, "distance between two units"),
    Action("set_distance", _set_distance, True, "set the distance between two units"),
    Action("alive", _alive, False, "the units of a list or side that are not destroyed"),
    Action("position", _position, False, "a unit's position as a record (x, y or q, r, and facing)"),
    Action("has_position", _has_position, False, "whether a unit has a position (it stands on "
           "the map or table): has_position(unit)"),
    Action("move_towards", _move_towards, True, "move a unit towards another by an amount (never past it)"),
    Action("move_away", _move_away, True, "move a unit away from another by an amount"),
    Action("step_forward", _step_forward, True, "move a unit straight ahead along its facing"),
    Action("rotate", _rotate, True, "turn a unit by hex sides (hex) or degrees (tabletop), clockwise"),
    Action("face", _face, True, "turn a unit to face another"),
    Action("place", _place, True, "put a unit at a position: place(unit, [x, y, facing])"),
    Action("arc", _arc, False, "the arc of the first unit the second is in: front, side or rear"),
    Action("base_arc", _base_arc, False, "the arc of the first unit's base, length x width, divided "
           "by the lines through its corners, the second is in: front, right, rear or left"),
    Action("distance_from_edge", _distance_from_edge, False, "distance from the edge of the first "
           "unit's base, length x width, on the line to the second unit, to the second's centre"),
    Action("terrain_at", _terrain_at, False, "the terrain of the hex a unit stands on (\"clear\" if none)"),
    Action("count_alive", _count_alive, False, "how many units of a list or side are not destroyed"),
    Action("side", _side, False, "a side by name, or the side of a unit"),
    Action("enemies", _enemies, False, "the living units not on the side of a unit or side"),
    Action("capture", _capture, True, "put a unit under another side's control: "
           "capture(unit, side(attacker))"),
    Action("end_turn", _end_turn, True, "end the turn at once: the rest of its segments and "
           "phases are skipped, the end of the turn happens as usual"),
    Action("score", _score, True, "add points to a side's score: score(side, points)"),
]}
