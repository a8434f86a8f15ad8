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
from ..errors import EvalError, Location, NameError_
from ..expr.values import describe, json_value
from ..suggest import did_you_mean


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
                 "started", "serial")
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
        self.serial = 0                   # which application it is (one unit may hold several)

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
            status.started, status.serial = s.started, s.serial
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
        self.objects: dict[str, Unit] = {}   # things that are not units (a ball), by name
        self.sides: dict[str, Side] = {}
        self.default_distance: int | Fraction = 0
        self.distances: dict[frozenset, Any] = {}
        self.space = getattr(ruleset, "space", "abstract") if ruleset is not None else "abstract"
        self.positions: dict = {}   # uid -> space.Position (tabletop and hex models)
        self.terrain: dict = {}     # (x, y) -> terrain name (hex model)
        self.terrain_values: dict = {}   # (x, y) -> that hex's own values (a wall's hits)
        self.turn = 0
        self.phase = ""
        self.record = record
        self.events: list[dict] = []
        self.chooser = None  # engine.Chooser: resolves `choose` points by policy
        self.default_policy = "first"   # for choices no side makes (`run --policy`)
        self.unit_order: list | None = None   # per-unit initiative, when the rules roll it
        self.serial = 0        # the last status application's number (statuses.stack_onto)
        self.uses: dict = {}   # (uid, key, per) -> [period, uses] (once-per-turn abilities)
        self.moves: dict = {}  # uid -> what the unit's last move did (moves.last_move)
        self.reactor = None    # game/reactions: offers reaction points during play
        self.deferred: list | None = None   # calls held until the phase ends (defer())
        self.doomed: list | None = None     # units destroyed when a simultaneous phase ends
        self.depth = 0         # procedure call nesting while a transcript is written
        self.listener = None   # called with (event, depth) as each event is written
        self.before_log = None  # called once before the next event is written (run/sampled:
                                # a call statement's argument dice go before its first line)

    def next_serial(self) -> int:
        self.serial += 1
        return self.serial

    # ------------------------------------------------------------------ transcript
    def log(self, kind: str, text: str, **data) -> None:
        if self.record:
            if self.before_log is not None:
                first, self.before_log = self.before_log, None
                first()
            event = {"event": kind, "turn": self.turn, "phase": self.phase, "text": text}
            event.update({k: json_value(v) for k, v in data.items()})
            self.events.append(event)
            if self.listener is not None:
                self.listener(event, self.depth)

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
        clone.objects = {uid: u.copy() for uid, u in self.objects.items()}
        clone.sides = {}
        for name, side in self.sides.items():
            new_side = Side(name, side.policy, clone)
            new_side.data = copy.deepcopy(side.data)
            clone.sides[name] = new_side
        clone.distances = dict(self.distances)
        clone.positions = dict(self.positions)
        clone.uses = {k: list(v) for k, v in self.uses.items()}
        clone.moves = dict(self.moves)
        clone.terrain = dict(self.terrain)
        clone.terrain_values = {k: dict(v) for k, v in self.terrain_values.items()}
        clone.deferred = None if self.deferred is None else list(self.deferred)
        clone.doomed = None if self.doomed is None else list(self.doomed)
        clone.events = []
        clone.listener = None
        clone.before_log = None
        return clone

    def snapshot(self):
        return (tuple(u.snapshot() for u in self.units.values()),
                tuple(u.snapshot() for u in self.objects.values()),
                tuple(sorted((tuple(sorted(k)), v) for k, v in self.distances.items())),
                tuple(sorted(self.positions.items())),
                tuple((n, freeze(s.data)) for n, s in self.sides.items()),
                tuple(sorted((freeze(k), tuple(v)) for k, v in self.uses.items())),
                tuple(sorted((k, freeze(v)) for k, v in self.moves.items())),
                tuple(sorted(self.terrain.items())),
                tuple(sorted((k, freeze(v)) for k, v in self.terrain_values.items())))

    def unit(self, value, loc) -> Unit:
        """The unit a value names: the unit itself, or its name as text."""
        if isinstance(value, Unit):
            return self.units.get(value.uid) or self.objects.get(value.uid, value)
        if isinstance(value, str):
            for u in [*self.units.values(), *self.objects.values()]:
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
