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
from .freezing import KEPT, Hashed, freeze, fresh, frozen, frozen_fields, same, terrain_key
from .roster import SIDES_SET, living, living_enemies, roster
from ..errors import EvalError, Location, NameError_
from ..expr import reads
from ..expr.budget import METER as _METER
from ..limits import FORK_FROZEN_TICKS as _FROZEN_TICKS
from ..limits import FORK_UNIT_TICKS as _UNIT_TICKS
from ..limits import FORK_WORLD_TICKS as _WORLD_TICKS
from ..expr.values import describe, json_value
from ..suggest import did_you_mean


MEASURED_PAIRS = 4096   # distances between positions remembered at most (World._measure)
PAIR_KEYS_KEPT = 4096   # units' ids whose pairs' keys are kept at most (`pair_key`)

# id -> {other id: the pair's key}: see `pair_key`
PAIR_KEYS: dict = {}
_NO_PAIRS: dict = {}


def pair_key(a, b) -> frozenset:
    """The key of two units' abstract distance in `World.distances`, the frozenset of
    their ids -- made once per pair of ids (either way round) and kept: reading a
    distance made a new set and hashed it at each of a few hundred reads a game, and
    the dict then compared it with its key by value; the kept key is found by
    identity.  The same key by value, so the same distances."""
    key = PAIR_KEYS.get(b, _NO_PAIRS).get(a)   # made the other way round
    if key is None:
        key = frozenset((a, b))
    inner = PAIR_KEYS.get(a)
    if inner is None:
        if len(PAIR_KEYS) >= PAIR_KEYS_KEPT:
            PAIR_KEYS.clear()
        inner = PAIR_KEYS[a] = {}
    elif len(inner) >= PAIR_KEYS_KEPT:
        inner.clear()
    inner[b] = key
    return key


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



# the bonuses of equipment lists whose entries are records or plain values, by the list's
# identity: (the list, {stat: bonus}); the list is held so that its id stays its own
_BONUSES: dict = {}
_PLAIN_ITEMS = frozenset((str, int, float, bool, type(None), Fraction))


def equipment_bonuses(equipment) -> dict | None:
    """`{stat: equipment_bonus(equipment, stat)}` for every stat some entry modifies,
    kept by the list's identity; None when an entry is neither a record nor a plain
    value (a row or a unit, whose `modifiers` is read afresh each time).  A rule never
    changes a list or record in place (an assignment makes a new one: `set_field`,
    `changed_item`), so a list seen before has the same bonuses."""
    kept = _BONUSES.get(id(equipment))
    if kept is not None and kept[0] is equipment:
        return kept[1]
    if equipment.__class__ is not list:
        return None
    bonuses: dict = {}
    for item in equipment:
        if item.__class__ is dict:
            mods = item.get("modifiers")
            if isinstance(mods, dict):
                for stat, value in mods.items():
                    if type(value) is int:
                        bonuses[stat] = bonuses.get(stat, 0) + value
        elif item.__class__ not in _PLAIN_ITEMS:
            return None
    if len(_BONUSES) >= 4096:
        _BONUSES.clear()
    _BONUSES[id(equipment)] = (equipment, bonuses)
    return bonuses


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
        self._side = side   # a new unit: the roster of a world it joins sees it by count
        self.first_side = side   # the side it began on (capture() moves it: game_report)
        self.fields = fields
        self.statuses: list[Status] = []
        self.changed = False   # whether a rule has set a field (bulk runs reset only then)

    @property
    def side(self) -> str:
        return self._side

    @side.setter
    def side(self, name: str) -> None:
        """Every change of side goes through here, so that rosters see it
        (roster.SIDES_SET)."""
        self._side = name
        SIDES_SET[0] += 1

    @property
    def frozen_ref(self) -> tuple:
        """How a unit held in a value is frozen into a state key (state/freezing.py):
        by its id, its fields being keyed with the unit itself."""
        return ("unit", self.uid)

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
                # whether it modifies the field first (most reads are of fields no
                # status modifies), then `status.active`, written out: every read of
                # a unit that has a status
                definition = status.definition
                if definition and name in definition.modifies and \
                        (status.active_from <= status.applied_turn or status.started):
                    return definition.modifier_value(name, self, status)
        fields = self.fields
        if name in fields:
            value = fields[name]
            if type(value) is int and "equipment" in fields and name != "equipment":
                bonuses = equipment_bonuses(fields["equipment"])
                value += (equipment_bonus(fields["equipment"], name) if bonuses is None
                          else bonuses.get(name, 0))
            return value
        if name == "name":
            return self.name
        if name == "side":
            return self._side
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
            if path[0] == "side":
                raise EvalError(f"a unit's side is not assigned: it changes hands with "
                                f"capture({self.name}, side)", loc,
                                hint="capture(target, side(attacker))")
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
        return (self.uid, self._side, frozen_fields(self.fields),
                tuple(s.snapshot() for s in self.statuses))

    def snapshot_after(self, before, names) -> tuple:
        """`snapshot()`, given the snapshot of the unit this one was copied from and the
        names of the fields changed since (nothing else changed): only those are
        frozen again."""
        fields = self.fields
        # weighed by the unit's fields: the tuple of them all is made and hashed again
        _METER[1] += _FROZEN_TICKS * len(fields)
        items = []
        for item in before[2].value:
            k = item[0]
            if k in names:
                v = fields[k]
                item = (k, v if v.__class__ in KEPT else frozen(v))
            items.append(item)
        frozen_now = same(Hashed(tuple(items)))
        return (before[0], before[1], frozen_now, before[3])

    def copy(self) -> "Unit":
        """A copy for another branch.  Its fields' values are shared, not copied: a
        field's record or list is never changed in place, only replaced by a changed
        copy (`set_field`, `run.sampled.changed_item`), so sharing is safe and a copy
        costs one dict however large the unit's records (and `frozen` knows them)."""
        clone = Unit(self.uid, self.name, self.kind, self._side, dict(self.fields))
        clone.first_side = self.first_side
        clone.statuses = []
        for s in self.statuses:
            status = Status(s.name, s.definition, s.turns_left, s.applied_turn,
                            fresh(s.data), s.active_from)
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
        reads.every_unit()   # which units are on it: their sides, and who is destroyed
        return list(roster(self.world)[0].get(self.name, ()))

    def dsl_attr(self, name: str):
        if name == "name":
            return self.name
        if name in ("units", "all_units", "enemies"):
            reads.every_unit()
        if name == "units":
            return living(self.world, self.name)
        if name == "all_units":
            return self.units()
        if name == "enemies":
            return living_enemies(self.world, self.name)
        if name in self.data:
            return self.data[name]
        raise KeyError(name)

    def dsl_names(self):
        return ["name", "units", "all_units", "enemies", *self.data]

    def __repr__(self):
        return f"<side {self.name}>"


class World:
    """Everything a game changes, plus the transcript of what happened."""

    # Kept for exact enumeration (run/frames.py, run/call_memo.py) while the world lives,
    # on the world itself rather than in weak dictionaries: a world is dropped by the
    # thousand in an enumeration, and a weak dictionary's clean-up at every drop cost
    # more than its lookups.  A copy, a pickle and `become` start without them.
    state_key = None     # the world's snapshot as a key (frames.world_key)
    derived = None       # (the world it was copied from, weakly; {unit id: fields changed})
    coarse_key = None    # the game but for units' fields (call_memo._coarse_key)
    seen_frame = None    # the game but for units' field values (observed.keyed_on)
    # The kinds of event the transcript keeps (None: every kind).  `play` sets it from its
    # observer's `kinds` (render/story.py): the story shows a few kinds of line, and the
    # values and text of a line nobody reads need not be made.  Only the transcript's
    # lines are left out: the game is the same (what a line says never changes it).
    told = None

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
        self.measured: dict = {}    # distances between Positions (World._measure)
        self.terrain: dict = {}     # (x, y) -> terrain name (hex model)
        self.terrain_values: dict = {}   # (x, y) -> that hex's own values (a wall's hits)
        self.extent = None          # ((q_lo, q_hi), (r_lo, r_hi)): the scenario's map, if given
        self.turn = 0
        self.phase = ""
        self.turn_ended = False   # end_turn(): the rest of this turn's phases are skipped
        self.record = record
        self.events: list[dict] = []
        self.chooser = None  # engine.Chooser: resolves `choose` points by policy
        self.default_policy = "first"   # for choices no side makes (`run --policy`)
        self.unit_order: list | None = None   # per-unit initiative, when the rules roll it
        self.initiative = None   # the scenario's own initiative rule (model Initiative), if it has one
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
        self._roster = None     # (its key, who is on which side): state/roster.py

    def __getstate__(self):
        """A pickled world leaves its roster behind (roster.SIDES_SET counts per
        process)."""
        state = dict(self.__dict__)
        state["_roster"] = None
        for name in ("state_key", "derived", "coarse_key", "seen_frame"):   # this process's
            state.pop(name, None)
        return state

    def next_serial(self) -> int:
        self.serial += 1
        return self.serial

    # ------------------------------------------------------------------ transcript
    def log(self, kind: str, text: str, **data) -> None:
        if self.record:
            if self.before_log is not None:
                first, self.before_log = self.before_log, None
                first()
            if self.told is not None and kind not in self.told:
                return
            event = {"event": kind, "turn": self.turn, "phase": self.phase, "text": text}
            event.update({k: json_value(v) for k, v in data.items()})
            self.events.append(event)
            if self.listener is not None:
                self.listener(event, self.depth)

    def skips(self, kind: str) -> bool:
        """True when a line of `kind` would be left out of the transcript and writing it
        would do nothing else (no line waits to be written first, `before_log`): its
        text and values need not be made."""
        told = self.told
        return told is not None and kind not in told and self.before_log is None

    # ------------------------------------------------------------------ distances
    def distance(self, a: Unit, b: Unit):
        positions = self.positions
        if positions:   # an abstract space has none: straight to the pair's distance
            pa, pb = positions.get(a.uid), positions.get(b.uid)
            if pa is not None and pb is not None:
                return self._measure(pa, pb)
        return self.distances.get(pair_key(a.uid, b.uid), self.default_distance)

    def _measure(self, pa, pb):
        """The distance between two positions, remembered while both stand where they
        are: a Position never changes (a move makes a new one), so the same pair of
        objects always measures the same, and units are measured many times between
        moves.  The memo holds the positions themselves, so their ids stay theirs."""
        if self.space == "hex":   # counting hexes costs less than remembering them
            return space.distance(pa, pb, "hex")
        key = (id(pa), id(pb))
        hit = self.measured.get(key)
        if hit is not None and hit[0] is pa and hit[1] is pb:
            return hit[2]
        value = space.distance(pa, pb, self.space)
        if len(self.measured) >= MEASURED_PAIRS:
            self.measured.clear()
        self.measured[key] = (pa, pb, value)
        return value

    def position(self, unit: Unit, loc):
        pos = self.positions.get(unit.uid)
        if pos is None:
            raise EvalError(f"{unit.name} has no position (the scenario gives none, or the "
                            f"ruleset's space is {self.space!r})", loc)
        return pos

    def set_distance(self, a: Unit, b: Unit, value) -> None:
        self.distances[pair_key(a.uid, b.uid)] = value

    # ------------------------------------------------------------------ branching
    def copy(self, only=None) -> "World":
        """An independent copy for one branch of an exact enumeration: its units' fields
        counted on the work meter (expr/budget.METER, the exact-work budget's weight).
        `only` (unit ids): copy those units alone and share the others with this world,
        for a copy whose changes are known to touch only them (a remembered call's
        changes made again, run/call_memo.replay).  Sharing is safe for the same reason
        sharing a world is: a world held by a branch is never changed in place, every
        step that changes the game copies it first (run/frames.Branch.fork), and that
        copy copies every unit."""
        if only is None:
            _METER[1] += _WORLD_TICKS + _UNIT_TICKS * (len(self.units) + len(self.objects)) + \
                sum([len(u.fields) for u in self.units.values()]) + \
                sum([len(u.fields) for u in self.objects.values()])
        clone = World.__new__(World)
        clone.__dict__.update(self.__dict__)
        if only is None:
            clone.units = {uid: u.copy() for uid, u in self.units.items()}
            clone.objects = {uid: u.copy() for uid, u in self.objects.items()}
        else:
            clone.units = {uid: u.copy() if uid in only else u for uid, u in self.units.items()}
            clone.objects = {uid: u.copy() if uid in only else u
                             for uid, u in self.objects.items()}
            _METER[1] += _WORLD_TICKS + _UNIT_TICKS * len(only) + \
                sum([len(u.fields) for uid, u in self.units.items() if uid in only]) + \
                sum([len(u.fields) for uid, u in self.objects.items() if uid in only])
        clone.sides = {}
        for name, side in self.sides.items():
            new_side = Side(name, side.policy, clone)
            new_side.data = fresh(side.data)
            clone.sides[name] = new_side
        clone.distances = dict(self.distances)
        clone.positions = dict(self.positions)
        clone.uses = {k: list(v) for k, v in self.uses.items()}
        clone.moves = dict(self.moves)
        # the map's terrain is shared: set_terrain() replaces these dicts, never changes
        # them in place (state/moves.py), and a hex's values are replaced whole
        clone.deferred = None if self.deferred is None else list(self.deferred)
        clone.doomed = None if self.doomed is None else list(self.doomed)
        clone.events = []
        clone.listener = None
        clone.before_log = None
        clone.told = None   # (a copy's transcript is nobody's story)
        clone._roster = None   # the copy's units are its own
        clone.state_key = clone.derived = clone.coarse_key = clone.seen_frame = None
        return clone

    def become(self, other: "World") -> None:
        """Take `other`'s state in place, keeping this world's unit, object and side
        objects (exact odds continue a built-in action -- a move -- in the world a
        reaction left, game/branching.py, while the action holds this world's units)."""
        state = other.copy()
        for mine, theirs in ((self.units, state.units), (self.objects, state.objects)):
            for uid, unit in theirs.items():
                have = mine.get(uid)
                if have is None:
                    mine[uid] = unit
                else:
                    have.fields, have.statuses, have.changed = unit.fields, unit.statuses, True
                    have.side = unit.side
            for uid in [uid for uid in mine if uid not in theirs]:
                del mine[uid]
        for name, side in state.sides.items():
            self.sides[name].data, self.sides[name].policy = side.data, side.policy
        for name in ("distances", "positions", "uses", "moves", "terrain", "terrain_values",
                     "deferred", "doomed", "serial"):
            setattr(self, name, getattr(state, name))
        self.measured = {}
        self._roster = None
        self.state_key = self.derived = self.coarse_key = self.seen_frame = None

    def held(self):
        """The calls deferred to the end of the phase and the units it will destroy
        (state/batches.py), by value: part of the state while a phase runs."""
        calls = None if self.deferred is None else tuple(
            (getattr(proc, "name", id(proc)), freeze(args), freeze(kwargs))
            for proc, args, kwargs, _ in self.deferred)
        return calls, None if self.doomed is None else tuple(self.doomed)

    def snapshot(self):
        return (tuple(u.snapshot() for u in self.units.values()),
                tuple(u.snapshot() for u in self.objects.values())) + self.snapshot_rest()

    def snapshot_rest(self) -> tuple:
        """The snapshot but for the units and objects (run/observed.py keys a game by a
        few of their fields and all of this)."""
        return (tuple(sorted((tuple(sorted(k)), v) for k, v in self.distances.items())),
                tuple(sorted(self.positions.items())),
                tuple((n, freeze(s.data)) for n, s in self.sides.items()),
                tuple(sorted((freeze(k), tuple(v)) for k, v in self.uses.items())),
                tuple(sorted((k, freeze(v)) for k, v in self.moves.items())),
                terrain_key(self.terrain, self.terrain_values),
                self.held(), self.turn_ended)

    def unit(self, value, loc) -> Unit:
        """The unit a value names: the unit itself, or its name as text."""
        if value.__class__ is Unit or isinstance(value, Unit):
            found = self.units.get(value.uid)
            return found if found is not None else self.objects.get(value.uid, value)
        if isinstance(value, str):
            for u in [*self.units.values(), *self.objects.values()]:
                if u.name == value or u.uid == value:
                    return u
            raise NameError_(f"no unit named {value!r}", loc,
                             hint=did_you_mean(value, [u.name for u in self.units.values()]))
        raise EvalError(f"expected a unit, got {describe(value)}", loc)

    def side_of(self, value, loc) -> Side:
        kind = value.__class__
        if kind is Unit:
            return self.sides[value.side]
        if kind is Side or isinstance(value, Side):
            return self.sides[value.name]
        if isinstance(value, Unit):
            return self.sides[value.side]
        if isinstance(value, str) and value in self.sides:
            return self.sides[value]
        raise EvalError(f"expected a side, got {describe(value)}", loc)


# ----------------------------------------------------------------- built-in actions
