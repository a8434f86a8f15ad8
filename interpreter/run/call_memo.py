"""Remembering a called procedure's enumeration by what it read, not the whole game.

An enumerated call is a distribution over (result, the game after it).  When the callee
changed only units' fields, that distribution is kept as (result, the fields it changed
and their new values) under the key of what it read (expr/reads.py): its arguments, the
paths it read with their values in the game it was given, and the part of the game the
tracing does not narrow (which units there are, their sides and statuses, positions,
sides' data...; every unit's plain fields only where it read them unnamed).  A
later call with the same arguments in any game that agrees on those is answered by
applying the changes to that game.  Why that is exact: the callee sees only what it
reads; two games agreeing on all of it take the callee through the same steps, so it
writes the same values at the same paths (each written path is read too, so the value
it had is part of the key).

A call that changed anything else (a status, a position, a side's score), or read
something no path describes, is remembered under the whole game as before (`coarse`).
"""
from __future__ import annotations

from collections.abc import Mapping

from ..expr import reads
from ..limits import MAX_CALL_DEPTH
from ..state.freezing import Hashed, freeze, fresh, frozen
from ..state.world import Side, Unit
from .frames import canonical, derived_key, snapshot_rest, world_key

_CONTAINERS = (dict, list, tuple)
_ATOMS = ATOMS = frozenset({int, str, bool, float, type(None)})
MISSING = ("<no such field>",)


def remember(run, call_key, depth: int, world, trace: reads.Reads, ends) -> bool:
    """Store the call's ends by what it read; False (nothing stored) when they cannot
    be told as changes of fields of the game it was given.  The call was made at call
    depth `depth`; the ends answer at any depth (`_height`)."""
    if trace.all or world is None:
        return False
    base = _frame(world)
    told = []
    for weight, result, end_world, capped, script, pending in ends:
        if _has_nested_unit(result):
            return False
        if end_world is world:
            changes = ()
        else:
            if _frame(end_world) != base:
                return False
            changes = _changes(world, end_world)
            if not all(_covered(trace.paths, uid, path) for uid, path, _ in changes):
                return False
        told.append((weight, result, changes, capped, script, pending))
    paths = tuple(sorted(trace.paths, key=repr))
    by_paths = run.call_reads.setdefault((call_key, _coarse_key(world)), {})
    kept = by_paths.get(paths)
    if kept is None:
        stored = reads.Reads()
        stored.paths = set(paths)
        kept = by_paths[paths] = ({}, stored)
    kept[0][_values_at(world, paths)] = (told, trace.deepest - depth)
    return True


def recall(run, call_key, depth: int, world):
    """The remembered ends of this call in this game, as (weight, result, changes,
    capped, script, pending calls), or None; a hit adds its reads to the call around this one."""
    if world is None:
        return None
    unmade = world.__class__ is Unmade   # (its coarse key is its base's: fields apart)
    by_paths = run.call_reads.get((call_key, _coarse_key(world.base if unmade else world)))
    if not by_paths:
        return None
    for paths, (table, stored) in by_paths.items():
        found = table.get(world.values_at(paths) if unmade else _values_at(world, paths))
        if found is not None:
            told, height = found
            if not _height(depth, height):
                return None
            reads.seen(stored)
            reads.reach(depth + height)
            return told
    return None


def _height(depth: int, height: int) -> bool:
    """Whether a call remembered with calls `height` deeper than itself answers at
    call depth `depth`.  Its ends do not depend on the depth it is made at but through
    the depth limit, and an enumeration reaching the limit is refused whole (the limit
    is an error, never caught inside one): so the same ends come at every depth where
    the calls inside stay under the limit, and a deeper call enumerates, to refuse."""
    return depth + height < MAX_CALL_DEPTH


def told_end(world, changes, result, unmade: bool = False):
    """(result, the game after it) of a remembered end in `world` (a game or an
    `Unmade` one): made by `replay`, or, when the caller merges its states on a few
    fields alone (`unmade`: run/observed.py) and the result is plain, an `Unmade` game
    (the changes after those `world` holds; not for a game holding calls left to the
    phase's end, which such a merge keys whole)."""
    if unmade and result.__class__ in _ATOMS and not world.deferred and not world.doomed:
        if world.__class__ is Unmade:
            return result, Unmade(world.base, world.changes + tuple(changes)) if changes \
                else world
        return result, Unmade(world, tuple(changes)) if changes else world
    if world.__class__ is Unmade:
        world = world.made()
    return replay(world, changes, result)[::-1]


class Unmade:
    """A game not made yet: `base` with a remembered call's changes (unit id, path, new
    value).  A branch merged on a few fields (run/observed.keyed_on) needs of its game
    only those and what is not a unit's field (the same as `base`'s: a remembered call
    changes fields alone), so most such branches add their weight to a state met before
    and their game is never copied; the states kept are made (`made`) when the merge
    hands them on (frames.Merged.branches)."""

    __slots__ = ("base", "changes", "_fields", "_world")
    unmade = True

    def __init__(self, base, changes):
        self.base, self.changes, self._fields, self._world = base, changes, None, None

    @property
    def deferred(self):
        return self.base.deferred

    @property
    def doomed(self):
        return self.base.doomed

    def identity(self):
        """Equal for the same changes of the same game (merging the ends of one call
        in one game: frames.Merged.distinct)."""
        return id(self.base), tuple([(uid, path, canonical(value))
                                     for uid, path, value in self.changes])

    def made(self):
        """The game itself: a copy of `base` with the changes made (`replay`), once."""
        if self._world is None:
            self._world = replay(self.base, self.changes, None)[0]
        return self._world

    def values_at(self, paths) -> tuple:
        """`_values_at` of the game after the changes, without making it."""
        changed = self._fields
        if changed is None:
            changed = self._fields = {}
            base = self.base
            for uid, path, value in self.changes:
                unit = base.units.get(uid) or base.objects.get(uid)
                mine = changed.setdefault(uid, {})
                record = mine.get(path[0], unit.fields[path[0]])
                mine[path[0]] = _replaced_field(record, path[1:], value)
        if any(uid == reads.EVERY for uid, _ in paths):   # every unit's plain fields
            return _values_at(self.made(), paths)
        return tuple([_value_at(self.base, uid, path) if uid not in changed
                      else self._changed_at(changed[uid], uid, path) for uid, path in paths])

    def _changed_at(self, mine: dict, uid, path):
        if not path:   # the whole unit
            unit = self.base.units.get(uid) or self.base.objects.get(uid)
            return _value_in({**unit.fields, **mine}, path)
        if path[0] in mine:
            return _value_in(mine, path)
        return _value_at(self.base, uid, path)


def replay(world, changes, result):
    """The game after a remembered call (a copy of `world` with the changes made; the
    world itself when nothing changed) and its result with units of that game."""
    if not changes:
        return world, moved(result, world)
    base, world = world, world.copy(only={uid for uid, _, _ in changes})
    for uid, path, value in changes:
        unit = world.units.get(uid) or world.objects.get(uid)
        unit.changed = True
        unit.fields[path[0]] = _replaced_field(unit.fields[path[0]], path[1:], value)
    changed: dict = {}
    for uid, path, _ in changes:
        changed.setdefault(uid, set()).add(path[0])
    derived_key(world, base, changed)
    return world, moved(result, world)


# A field's record with one plain value replaced, by (the record's id, the path, the
# value): the same change made again to the same record (shared by the games copied
# from one) gives the same record, which `frozen` then knows, instead of a new equal one
# frozen again (the volley made 17,286 records a run of 985 distinct values).  Sharing
# it is safe as sharing a field's value between copies is (Unit.copy).  The entry holds
# the record, so that its id stays its own.
_REPLACED: dict = {}
REPLACED_VALUES = 65536   # changed records remembered at most before starting again


def _replaced_field(container, path, value):
    """`_replaced`, remembered where the new value is plain (see _REPLACED)."""
    cls = value.__class__
    if cls not in _ATOMS or not path:
        return _replaced(container, path, value)
    key = (id(container), path, cls, value)
    hit = _REPLACED.get(key)
    if hit is not None and hit[0] is container:
        return hit[1]
    done = _replaced(container, path, value)
    if len(_REPLACED) >= REPLACED_VALUES:
        _REPLACED.clear()
    _REPLACED[key] = (container, done)
    return done


def _replaced(container, path, value):
    """`container` with the item at `path` replaced, the records on the way copied
    (the copied world shares its fields' values with others: Unit.copy)."""
    if not path:
        return fresh(value)
    changed = dict(container)
    changed[path[0]] = _replaced(container[path[0]], path[1:], value)
    return changed


# ------------------------------------------------------- calls in the same game again


# remembered made calls per enumeration at most (then the rest are worked out each time)
MAX_MADE = 65536
_MADE = ("made",)   # the key of the made calls in an enumeration's `memo`


def made_ends(run, call_key, depth: int, world):
    """The ends of this call, the calls it left to its caller made (exact._made), if it
    was made before in an equal game; its reads (the call's and theirs) are added to
    the call around this one.  A procedure leaving its transfer to the next location
    to its caller is answered by what it read, but the calls it left are made again in
    every game it ends in, and different games often end the same: met again in the same
    game, the whole made call is answered at once."""
    kept = run.memo.get(_MADE)
    if kept is None or world is None or world.__class__ is Unmade:
        return None
    found = kept.get((call_key, _game_key(world)))
    if found is None:
        return None
    made, trace, at, height = found
    if (at is not None and at != depth) or not _height(depth, height):
        return None
    reads.seen(trace)
    reads.reach(depth + height)
    return made


def keep_made(run, call_key, depth: int, world, made, trace: reads.Reads) -> None:
    """Remember a made call under the whole game it was made in (see `made_ends`).
    Exact for the reason merging is: two games with equal keys are the same state.
    A call that read what the tracing cannot follow (an action, whose own calls go
    by the depth it is given) answers at its own depth only."""
    if world is None or world.__class__ is Unmade:
        return
    kept = run.memo.get(_MADE)
    if kept is None:
        kept = run.memo[_MADE] = {}
    if len(kept) < MAX_MADE:
        kept[(call_key, _game_key(world))] = (made, _unheight(trace),
                                               depth if trace.all else None,
                                               trace.deepest - depth)


def _unheight(trace: reads.Reads) -> reads.Reads:
    """The reads without their depth (given again at each answer, as a height)."""
    bare = reads.Reads()
    bare.paths, bare.all = trace.paths, trace.all
    return bare


def _game_key(world):
    """The game as merging tells games apart, and what a snapshot leaves out but a
    call may read or carry on: the turn, the phase, the status serial, the order."""
    order = world.unit_order
    return (world_key(world), world.turn, world.phase, world.serial,
            None if order is None else tuple(order))


# ---------------------------------------------------------------- keys and changes


def _coarse_key(world):
    """The game but for units' fields: which units there are, their sides and statuses,
    and the rest of the snapshot (positions, sides' data, ...).  A field is in the key
    only where the call read it (its path), or every unit's plain fields where it read
    them in a way no path names (reads.EVERY).  Kept on the world while it lives
    (`World.coarse_key`), sound as its whole key is: a merged world is never changed."""
    seen = world.coarse_key
    if seen is None:
        seen = world.coarse_key = Hashed((_units(world.units), _units(world.objects),
                                          snapshot_rest(world), world.turn, world.phase))
    return seen


def _units(units: dict) -> tuple:
    return tuple((uid, u.side, tuple(s.snapshot() for s in u.statuses))
                 for uid, u in units.items())


def _plain_fields(world) -> tuple:
    """Every unit's plain fields (not its records and lists), as reads.EVERY keys them."""
    return tuple((uid, tuple((k, _typed(v)) for k, v in u.fields.items()
                             if not isinstance(v, _CONTAINERS)))
                 for units in (world.units, world.objects) for uid, u in units.items())


def _typed(value):
    """A plain value in a key: `true` and 1 are equal in Python, not in a rule."""
    return ("bool", value) if value.__class__ is bool else value


def _frame(world):
    """Everything of a world but its units' fields: a remembered call must leave it as
    it was (its changes are told as fields only)."""
    rest = snapshot_rest(world)   # (not the units' fields: a key of them is not needed)
    units = tuple((uid, tuple(s.snapshot() for s in u.statuses), tuple(u.fields))
                  for uid, u in world.units.items())
    objects = tuple((uid, tuple(s.snapshot() for s in u.statuses), tuple(u.fields))
                    for uid, u in world.objects.items())
    return (units, objects, rest, world.turn, world.phase, world.serial,
            world.deferred, world.doomed, world.unit_order)


def _values_at(world, paths) -> tuple:
    return tuple([_value_at(world, uid, path) for uid, path in paths])   # (a list: faster)


def _value_at(world, uid, path):
    if uid == reads.EVERY:
        return _plain_fields(world)
    unit = world.units.get(uid) or world.objects.get(uid)
    if unit is None:
        return MISSING
    return _value_in(unit.fields, path)


def _value_in(value, path):
    """The value at `path` in a unit's fields (or in one of them, `path` given past it),
    as a key holds it."""
    for key in path:   # (a record is a dict: the abstract class's check is slow)
        if (value.__class__ is not dict and not isinstance(value, Mapping)) or key not in value:
            return MISSING
        value = value[key]
    cls = value.__class__
    if cls is bool:
        return ("bool", value)
    return (cls, value) if cls in _ATOMS else (cls, frozen(value))


def _covered(paths, uid, path) -> bool:
    """Whether the changed field is read (so its old value is in the key)."""
    if (uid, reads.WHOLE) in paths:
        return True
    return any((uid, path[:n]) in paths for n in range(1, len(path) + 1))


def _changes(before, after) -> list:
    """(unit id, path, new value) of every field that differs, as deep as records go."""
    out: list = []
    for uid, unit in [*after.units.items(), *after.objects.items()]:
        old = before.units.get(uid) or before.objects.get(uid)
        _diff(old.fields, unit.fields, uid, (), out)
    return out


def _diff(old, new, uid, path, out) -> None:
    if old is new:
        return
    if type(old) is type(new) and isinstance(old, dict) and old.keys() == new.keys():
        for key, value in new.items():
            was = old[key]
            if was is not value:   # (most fields are the very value they were: shared)
                _diff(was, value, uid, path + (key,), out)
        return
    if path and not _same(old, new):
        out.append((uid, path, new))


def _same(a, b) -> bool:
    return type(a) is type(b) and freeze(a) == freeze(b)


def _has_nested_unit(value) -> bool:
    """A result holding units inside a record cannot be moved to another game here."""
    if isinstance(value, dict):
        return any(isinstance(v, (Unit, Side)) or _has_nested_unit(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_nested_unit(v) for v in value if not isinstance(v, (Unit, Side)))
    return False


def moved(value, world):
    """A value's units (and sides) as the given world's (a remembered call's result, a
    deferred call's arguments)."""
    if value.__class__ in _ATOMS:
        return value
    if isinstance(value, Unit):
        return world.units.get(value.uid) or world.objects.get(value.uid, value)
    if isinstance(value, Side):
        return world.sides.get(value.name, value)
    if isinstance(value, (list, tuple)) and any(isinstance(v, (Unit, Side, list, tuple))
                                                 for v in value):
        return type(value)(moved(v, world) for v in value)
    return value
