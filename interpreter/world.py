"""The state of a game: units, sides, statuses, distances, and the built-in actions.

A `World` is what procedures change.  Units are built from kinds (stats, derived
formulas, mutable state); statuses attach to units with durations and triggers; distances
between units are abstract numbers set by the scenario.  The DSL reaches all of this only
through `dsl_attr` / `dsl_call`, never through Python attributes.
"""
from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

from . import space
from .codegen import NO_RETURN as _NO_RETURN
from .errors import EvalError, Location, NameError_
from .evaluate import Context, describe
from .suggest import did_you_mean


def freeze(value):
    """A hashable snapshot of a DSL value (for merging equal states)."""
    if isinstance(value, dict):
        return tuple(sorted((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, Unit):
        return ("unit", value.uid)
    return value


class Status:
    """A status effect on a unit: which one, how long it has left, and its own values."""

    __slots__ = ("name", "definition", "turns_left", "applied_turn", "data", "active_from",
                 "started")
    dsl_label = "a status"

    def __init__(self, name: str, definition, turns_left: int | None, applied_turn: int,
                 data: dict | None = None, active_from: int = 0):
        self.name = name
        self.definition = definition      # ruleset.StatusDef
        self.turns_left = turns_left      # None = for the rest of the game
        self.applied_turn = applied_turn
        self.data = data if data is not None else {}
        self.active_from = active_from    # the turn from which it has effect ("next turn")
        self.started = False

    def dsl_attr(self, name: str):
        if name == "name":
            return self.name
        if name == "turns_left":
            return self.turns_left if self.turns_left is not None else -1
        if name in self.data:
            return self.data[name]
        raise KeyError(name)

    def dsl_names(self):
        return ["name", "turns_left", *self.data]

    @property
    def active(self) -> bool:
        """Whether it has effect now: a status applied "from next turn" waits until the
        engine's start-of-turn bookkeeping reaches it (engine._start_statuses)."""
        return self.active_from <= self.applied_turn or self.started

    def __repr__(self):
        return f"<status {self.name} ({self.turns_left} turns)>"

    def snapshot(self):
        return (self.name, self.turns_left, self.applied_turn, self.active_from, self.started,
                freeze(self.data))


_new_status = Status.__new__


def equipment_bonus(equipment, stat: str) -> int:
    """The sum of `modifiers: {stat: n}` over a unit's equipment entries ("Gears:
    acceleration +1").  Entries are records or table rows; others are ignored."""
    bonus = 0
    if not isinstance(equipment, (list, tuple)):
        return 0
    for item in equipment:
        if isinstance(item, dict):
            mods = item.get("modifiers")
        else:
            try:
                mods = item.dsl_attr("modifiers") if hasattr(item, "dsl_attr") else None
            except KeyError:
                mods = None
        if isinstance(mods, dict) and type(mods.get(stat)) is int:
            bonus += mods[stat]
    return bonus


class Unit:
    """One unit (a tank, a figure, a jug): kind, side, fields and statuses."""

    def __init__(self, uid: str, name: str, kind, side: str, fields: dict):
        self.uid = uid
        self.name = name
        self.kind = kind
        self.side = side
        self.fields = fields
        self.statuses: list[Status] = []
        self.changed = False   # whether a rule has set a field (bulk runs reset only then)

    @property
    def dsl_label(self) -> str:
        return f"unit {self.name!r}"

    def __repr__(self):
        return f"<{self.name}>"

    def dsl_names(self):
        names = ["name", "kind", "side", "statuses", *self.fields]
        if self.kind is not None:
            names += list(self.kind.derived)
        return names

    def dsl_attr(self, name: str):
        if self.statuses:
            for status in reversed(self.statuses):
                if not status.active:
                    continue
                modifies = status.definition.modifies if status.definition else {}
                if name in modifies:
                    return status.definition.modifier_value(name, self, status)
        fields = self.fields
        if name in fields:
            value = fields[name]
            if type(value) is int and "equipment" in fields and name != "equipment":
                value += equipment_bonus(fields["equipment"], name)
            return value
        if name == "name":
            return self.name
        if name == "side":
            return self.side
        if name == "kind":
            return self.kind.name if self.kind is not None else None
        if name == "statuses":
            return [s.name for s in self.statuses]
        if self.kind is not None and name in self.kind.derived:
            return self.kind.derived_value(name, self)
        raise KeyError(name)

    def set_field(self, path: list[str], value, loc: Location | None):
        """Assign `unit.a.b = value` (state and stats alike; records are copied on
        write so that branches never share them)."""
        self.changed = True
        if path[0] not in self.fields:
            if self.kind is not None and path[0] in self.kind.derived:
                raise EvalError(f"{path[0]!r} is derived from a formula and cannot be set", loc)
            raise NameError_(f"{self.dsl_label} has no field {path[0]!r}", loc,
                             hint=did_you_mean(path[0], self.fields))
        if len(path) == 1:
            self.fields[path[0]] = value
            return
        record = self.fields[path[0]] = copy.deepcopy(self.fields[path[0]])
        for step in path[1:-1]:
            if not isinstance(record, dict) or step not in record:
                raise NameError_(f"no field {step!r} in {'.'.join(path)}", loc)
            record = record[step]
        if not isinstance(record, dict) or path[-1] not in record:
            raise NameError_(f"no field {path[-1]!r} in {'.'.join(path)}", loc)
        record[path[-1]] = value

    def has(self, status: str) -> bool:
        return any(s.name == status and s.active for s in self.statuses)

    @property
    def alive(self) -> bool:
        return not self.fields.get("destroyed", False)

    def snapshot(self):
        return (self.uid, freeze(self.fields), tuple(s.snapshot() for s in self.statuses))

    def copy(self) -> "Unit":
        clone = Unit(self.uid, self.name, self.kind, self.side, copy.deepcopy(self.fields))
        clone.statuses = []
        for s in self.statuses:
            status = Status(s.name, s.definition, s.turns_left, s.applied_turn,
                            copy.deepcopy(s.data), s.active_from)
            status.started = s.started
            clone.statuses.append(status)
        return clone


class Side:
    """A side (player) of a scenario: its units and the policy making its choices."""

    dsl_label = "a side"

    def __init__(self, name: str, policy: str, world: "World"):
        self.name = name
        self.policy = policy
        self.world = world
        self.data: dict = {"score": 0}

    def units(self) -> list[Unit]:
        return [u for u in self.world.units.values() if u.side == self.name]

    def dsl_attr(self, name: str):
        if name == "name":
            return self.name
        if name == "units":
            return [u for u in self.units() if u.alive]
        if name == "all_units":
            return self.units()
        if name == "enemies":
            return [u for u in self.world.units.values() if u.side != self.name and u.alive]
        if name in self.data:
            return self.data[name]
        raise KeyError(name)

    def dsl_names(self):
        return ["name", "units", "all_units", "enemies", *self.data]

    def __repr__(self):
        return f"<side {self.name}>"


class World:
    """Everything a game changes, plus the transcript of what happened."""

    def __init__(self, ruleset, rng, record: bool = True):
        self.ruleset = ruleset
        self.rng = rng
        self.units: dict[str, Unit] = {}
        self.sides: dict[str, Side] = {}
        self.default_distance: int | Fraction = 0
        self.distances: dict[frozenset, Any] = {}
        self.space = getattr(ruleset, "space", "abstract") if ruleset is not None else "abstract"
        self.positions: dict = {}   # uid -> space.Position (tabletop and hex models)
        self.terrain: dict = {}     # (x, y) -> terrain name (hex model)
        self.turn = 0
        self.phase = ""
        self.record = record
        self.events: list[dict] = []
        self.chooser = None  # engine.Chooser: resolves `choose` points by policy
        self.unit_order: list | None = None   # per-unit initiative, when the rules roll it

    # ------------------------------------------------------------------ transcript
    def log(self, kind: str, text: str, **data) -> None:
        if self.record:
            from .rolling import json_value
            event = {"event": kind, "turn": self.turn, "phase": self.phase, "text": text}
            event.update({k: json_value(v) for k, v in data.items()})
            self.events.append(event)

    # ------------------------------------------------------------------ distances
    def distance(self, a: Unit, b: Unit):
        pa, pb = self.positions.get(a.uid), self.positions.get(b.uid)
        if pa is not None and pb is not None:
            return space.distance(pa, pb, self.space)
        return self.distances.get(frozenset((a.uid, b.uid)), self.default_distance)

    def position(self, unit: Unit, loc):
        pos = self.positions.get(unit.uid)
        if pos is None:
            raise EvalError(f"{unit.name} has no position (the scenario gives none, or the "
                            f"ruleset's space is {self.space!r})", loc)
        return pos

    def set_distance(self, a: Unit, b: Unit, value) -> None:
        self.distances[frozenset((a.uid, b.uid))] = value

    # ------------------------------------------------------------------ branching
    def copy(self) -> "World":
        """An independent copy for one branch of an exact enumeration."""
        clone = World.__new__(World)
        clone.__dict__.update(self.__dict__)
        clone.units = {uid: u.copy() for uid, u in self.units.items()}
        clone.sides = {}
        for name, side in self.sides.items():
            new_side = Side(name, side.policy, clone)
            new_side.data = copy.deepcopy(side.data)
            clone.sides[name] = new_side
        clone.distances = dict(self.distances)
        clone.positions = dict(self.positions)
        clone.events = []
        return clone

    def snapshot(self):
        return (tuple(u.snapshot() for u in self.units.values()),
                tuple(sorted((tuple(sorted(k)), v) for k, v in self.distances.items())),
                tuple(sorted(self.positions.items())),
                tuple((n, freeze(s.data)) for n, s in self.sides.items()))

    def unit(self, value, loc) -> Unit:
        """The unit a value names: the unit itself, or its name as text."""
        if isinstance(value, Unit):
            return self.units.get(value.uid, value)
        if isinstance(value, str):
            for u in self.units.values():
                if u.name == value or u.uid == value:
                    return u
            raise NameError_(f"no unit named {value!r}", loc,
                             hint=did_you_mean(value, [u.name for u in self.units.values()]))
        raise EvalError(f"expected a unit, got {describe(value)}", loc)

    def side_of(self, value, loc) -> Side:
        if isinstance(value, Side):
            return self.sides[value.name]
        if isinstance(value, Unit):
            return self.sides[value.side]
        if isinstance(value, str) and value in self.sides:
            return self.sides[value]
        raise EvalError(f"expected a side, got {describe(value)}", loc)


# ----------------------------------------------------------------- built-in actions


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
        from .distribution import Distribution
        from .evaluate import exact, outcome
        from .steps import _product
        world = getattr(env, "world", None)
        if self.mutates or world is None:
            raise EvalError(f"{self.name}() changes the game; use it as a step, not inside an "
                            f"expression" if self.mutates else
                            f"{self.name}() needs a game in progress", node.loc)
        args = [exact(a, env) for a in node.args]
        kwargs = [(k, exact(v, env)) for k, v in node.kwargs]
        ctx = Context(env, None, None, world)
        branches = []
        for weight, values in _product(args + [d for _, d in kwargs]):
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
    if turns is not None and type(turns) is not int:
        turns = _plain_int(turns, loc)
    turn = world.turn
    if starting == "now":
        active_from = turn
    elif starting == "next turn":
        active_from = turn + 1
    else:
        raise EvalError(f"starting= is \"now\" or \"next turn\", not {starting!r}", loc)
    given = _new_status(Status)   # Status(...) without a call to __init__: apply() is hot
    given.name, given.definition, given.turns_left, given.applied_turn = status, definition, turns, turn
    given.data, given.active_from, given.started = data, active_from, False
    if unit.statuses:
        unit.statuses = [s for s in unit.statuses if s.name != status]
        unit.statuses.append(given)
    else:
        unit.statuses = [given]
    if world.record:
        how_long = "for the game" if turns is None else f"for {turns} turn{'s' if turns != 1 else ''}"
        when = " from next turn" if starting == "next turn" else ""
        world.log("status", f"{unit.name} is {status}{when} {how_long}", unit=unit.name,
                  status=status, turns=turns, starting=starting)
    return True


def _plain_int(value, loc):
    total = getattr(value, "total", value)
    if type(total) is not int:
        raise EvalError(f"a number of turns must be a whole number, got {describe(total)}", loc)
    return total


def _remove(world: World, ctx, loc, unit, status):
    unit = world.unit(unit, loc)
    had = unit.has(status)
    unit.statuses = [s for s in unit.statuses if s.name != status]
    if had:
        if world.record:
            world.log("status", f"{unit.name} is no longer {status}", unit=unit.name,
                      status=status, ended=True)
    return had


def _has(world: World, ctx, loc, unit, status):
    return world.unit(unit, loc).has(status)


def _destroy(world: World, ctx, loc, unit):
    if type(unit) is not Unit or world.units.get(unit.uid) is not unit:
        unit = world.unit(unit, loc)
    fields = unit.fields
    if not fields.get("destroyed", False):
        unit.changed = True
        fields["destroyed"] = True
        if world.record:
            world.log("destroyed", f"{unit.name} is destroyed", unit=unit.name)
    return True


def _distance(world: World, ctx, loc, a, b):
    return world.distance(world.unit(a, loc), world.unit(b, loc))


def _set_distance(world: World, ctx, loc, a, b, value):
    world.set_distance(world.unit(a, loc), world.unit(b, loc), value)
    return value


def _position(world: World, ctx, loc, unit):
    unit = world.unit(unit, loc)
    return world.position(unit, loc).as_record(world.space)


def _moved(world: World, unit, new, loc, what: str):
    world.positions[unit.uid] = new
    shown = new.as_record(world.space)
    if world.record:
        world.log("move", f"{unit.name} {what} to {_where(shown, world.space)}", unit=unit.name,
                  position=shown)
    return shown


def _where(record: dict, model: str) -> str:
    from .rolling import decimal_text
    a, b = ("q", "r") if model == "hex" else ("x", "y")
    return (f"({decimal_text(record[a])}, {decimal_text(record[b])}) facing "
            f"{decimal_text(record['facing'])}")


def _move_towards(world: World, ctx, loc, unit, target, amount, away=False):
    from . import space
    unit, target = world.unit(unit, loc), world.unit(target, loc)
    if unit.uid not in world.positions or target.uid not in world.positions:
        # abstract space: the pair's distance shrinks (or grows)
        now = world.distance(unit, target)
        new = now + amount if away else max(0, now - amount)
        world.set_distance(unit, target, new)
        from .rolling import decimal_text
        if world.record:
            world.log("move", f"{unit.name} moves {'away from' if away else 'towards'} {target.name}: "
                      f"distance {decimal_text(new)}", unit=unit.name, distance=new)
        return new
    new = space.move_towards(world.positions[unit.uid], world.positions[target.uid], amount,
                             world.space, away)
    _moved(world, unit, new, loc, "moves " + ("away" if away else "towards " + target.name))
    return world.distance(unit, target)


def _move_away(world: World, ctx, loc, unit, target, amount):
    return _move_towards(world, ctx, loc, unit, target, amount, away=True)


def _step_forward(world: World, ctx, loc, unit, amount):
    from . import space
    unit = world.unit(unit, loc)
    return _moved(world, unit, space.step_forward(world.position(unit, loc), amount, world.space),
                  loc, "moves ahead")


def _rotate(world: World, ctx, loc, unit, by):
    from . import space
    unit = world.unit(unit, loc)
    return _moved(world, unit, space.turned(world.position(unit, loc), by, world.space), loc, "turns")


def _face(world: World, ctx, loc, unit, target):
    from . import space
    unit, target = world.unit(unit, loc), world.unit(target, loc)
    return _moved(world, unit, space.facing_towards(world.position(unit, loc),
                                                    world.position(target, loc), world.space),
                  loc, f"faces {target.name}")


def _place(world: World, ctx, loc, unit, where):
    from . import space
    unit = world.unit(unit, loc)
    return _moved(world, unit, space.parse_position(where, world.space, "place()"), loc, "is placed")


def _arc(world: World, ctx, loc, unit, target):
    from . import space
    unit, target = world.unit(unit, loc), world.unit(target, loc)
    return space.arc(world.position(unit, loc), world.position(target, loc), world.space)


def _tabletop_pair(world: World, loc, unit, other, what: str):
    if world.space != "tabletop":
        raise EvalError(f"{what}() measures a rectangular base on a tabletop; this ruleset's "
                        f"space is {world.space!r}", loc)
    unit, other = world.unit(unit, loc), world.unit(other, loc)
    return world.position(unit, loc), world.position(other, loc)


def _base_arc(world: World, ctx, loc, unit, other, length, width):
    from . import space
    a, b = _tabletop_pair(world, loc, unit, other, "base_arc")
    try:
        return space.base_arc(a, b, length, width)
    except EvalError as err:
        raise EvalError(f"base_arc(): {err.message}", loc) from None


def _distance_from_edge(world: World, ctx, loc, unit, other, length, width):
    from . import space
    a, b = _tabletop_pair(world, loc, unit, other, "distance_from_edge")
    try:
        return space.distance_from_edge(a, b, length, width)
    except EvalError as err:
        raise EvalError(f"distance_from_edge(): {err.message}", loc) from None


def _terrain_at(world: World, ctx, loc, unit):
    pos = world.positions.get(world.unit(unit, loc).uid)
    if pos is None:
        return "clear"
    return world.terrain.get((pos.x, pos.y), "clear")


def _alive(world: World, ctx, loc, units):
    if isinstance(units, (Side, str)):
        units = world.side_of(units, loc).units()
    return [u for u in units if isinstance(u, Unit) and u.alive]


def _count_alive(world: World, ctx, loc, units):
    return len(_alive(world, ctx, loc, units))


def _side(world: World, ctx, loc, name):
    return world.side_of(name, loc)


def _enemies(world: World, ctx, loc, of):
    side = world.side_of(of, loc).name
    return [u for u in world.units.values() if u.side != side and u.alive]


def _score(world: World, ctx, loc, side, points):
    side = world.side_of(side, loc)
    side.data["score"] = side.data.get("score", 0) + points
    if world.record:
        world.log("score", f"{side.name} scores {points}", side=side.name, points=points)
    return side.data["score"]


ACTIONS: dict[str, Action] = {a.name: a for a in [
    Action("apply", _apply, True, "give a unit a status: apply(unit, \"name\", turns=N, key=value...)",
           (_give_status, ("unit", "status", "turns", "starting"), {"turns": None, "starting": "now"})),
    Action("remove", _remove, True, "end a status: remove(unit, \"name\")"),
    Action("has", _has, False, "whether a unit has a status: has(unit, \"name\")"),
    Action("destroy", _destroy, True, "destroy a unit: destroy(unit)"),
    Action("distance", _distance, False, "distance between two units"),
    Action("set_distance", _set_distance, True, "set the distance between two units"),
    Action("alive", _alive, False, "the units of a list or side that are not destroyed"),
    Action("position", _position, False, "a unit's position as a record (x, y or q, r, and facing)"),
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
    Action("score", _score, True, "add points to a side's score: score(side, points)"),
]}


class RunSteps(Action):
    """`run(row.effect)`: the statements of a table row's `steps` cell, run as if they
    were written at this point of the procedure (they see and set its names)."""

    def __init__(self):
        super().__init__("run", None, True, "run the steps of a table cell: run(row.effect)")
        self._compiled: dict = {}
        self._fast: dict = {}
        self._by_cell: dict = {}   # id(cell) -> (cell, constants, body), for run_fast

    def steps_of(self, cell, loc):
        from .steps import compile_steps
        node = getattr(cell, "node", None)
        if node is None or not hasattr(cell, "statements"):
            raise EvalError(f"run() needs the steps of a table cell, got {describe(cell)}", loc)
        key = id(node)
        if key not in self._compiled:
            self._compiled[key] = (node, compile_steps(node, "table steps"))
        return self._compiled[key][1]

    def dsl_call(self, args, kwargs, loc, ctx: Context):
        from .steps import Frame, Scope, run_steps
        if len(args) != 1 or kwargs:
            raise EvalError("run() takes one argument: the steps cell of a row", loc)
        steps = self.steps_of(args[0], loc)
        recording = ctx.world.record if ctx.world else False
        env = ctx.env
        while not isinstance(env, Scope) and hasattr(env, "parent"):
            env = env.parent
        local_names = env.locals if isinstance(env, Scope) else {}
        globals_ = env.globals if isinstance(env, Scope) else ctx.env
        frame = Frame(local_names, globals_, ctx.world, ctx.rng, recording, ctx.depth + 1)
        if recording:
            run_steps(steps, frame)
        else:
            self.fast_of(steps, globals_)(frame)
        return frame.result

    def run_fast(self, cell, L, G, W, rng, depth, loc, constants=None):
        """`run(cell)` from compiled steps (no transcript): the cell's body on the
        caller's names, one call deeper.  `constants` are the caller's: the globals
        none of its names (which the cell sees) can hide."""
        entry = self._by_cell.get(id(cell))
        if entry is None or entry[0] is not cell or entry[1] is not constants:
            body = self.body_of(self.steps_of(cell, loc), G, constants)
            entry = self._by_cell[id(cell)] = (cell, constants, body)
        result = entry[2](L, W, rng, depth + 1, G)
        return None if result is _NO_RETURN else result

    def body_of(self, steps, globals_, constants=None):
        """The compiled body of a cell's steps (its names are the caller's: every name it
        does not bind is read through the caller's scope, or is one of the constants)."""
        key = (id(steps), id(constants))
        entry = self._fast.get(key)
        if entry is None:
            from .codegen import compile_body, frame_runner
            body = compile_body(steps, global_names=set(globals_), constants=constants)
            entry = self._fast[key] = (steps, constants, body, frame_runner(body))
        return entry[2]

    def fast_of(self, steps, globals_):
        self.body_of(steps, globals_)
        return self._fast[(id(steps), id(None))][3]

    def explore_inline(self, cell, branch, loc):
        from .steps import explore_steps
        return explore_steps(self.steps_of(cell, loc), [branch])


ACTIONS["run"] = RunSteps()
