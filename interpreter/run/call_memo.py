"""Remembering a called procedure's enumeration by what it read, not the whole game.

An enumerated call is a distribution over (result, the game after it).  When the callee
changed only units' fields, that distribution is kept as (result, the fields it changed
and their new values) under the key of what it read (expr/reads.py): its arguments, the
paths it read with their values in the game it was given, and the part of the game the
tracing does not narrow (every unit's plain fields, statuses, positions, sides...).  A
later call with the same arguments in any game that agrees on those is answered by
applying the changes to that game.  Why that is exact: the callee sees only what it
reads; two games agreeing on all of it take the callee through the same steps, so it
writes the same values at the same paths (each written path is read too, so the value
it had is part of the key).

A call that changed anything else (a status, a position, a side's score), or read
something no path describes, is remembered under the whole game as before (`coarse`).
"""
from __future__ import annotations

import weakref
from collections.abc import Mapping

from ..expr import reads
from ..state.world import Hashed, Side, Unit, freeze, fresh, frozen
from .frames import world_snapshot

_CONTAINERS = (dict, list, tuple)
MISSING = ("<no such field>",)


def remember(run, call_key, world, trace: reads.Reads, ends) -> bool:
    """Store the call's ends by what it read; False (nothing stored) when they cannot
    be told as changes of fields of the game it was given."""
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
    kept[0][_values_at(world, paths)] = told
    return True


def recall(run, call_key, world):
    """The remembered ends of this call in this game, as (weight, result, changes,
    capped, script, pending calls), or None; a hit adds its reads to the call around this one."""
    if world is None:
        return None
    by_paths = run.call_reads.get((call_key, _coarse_key(world)))
    if not by_paths:
        return None
    for paths, (table, stored) in by_paths.items():
        told = table.get(_values_at(world, paths))
        if told is not None:
            reads.seen(stored)
            return told
    return None


def replay(world, changes, result):
    """The game after a remembered call (a copy of `world` with the changes made; the
    world itself when nothing changed) and its result with units of that game."""
    if not changes:
        return world, moved(result, world)
    world = world.copy()
    for uid, path, value in changes:
        unit = world.units.get(uid) or world.objects.get(uid)
        unit.changed = True
        unit.fields[path[0]] = _replaced(unit.fields[path[0]], path[1:], value)
    return world, moved(result, world)


def _replaced(container, path, value):
    """`container` with the item at `path` replaced, the records on the way copied
    (the copied world shares its fields' values with others: Unit.copy)."""
    if not path:
        return fresh(value)
    changed = dict(container)
    changed[path[0]] = _replaced(container[path[0]], path[1:], value)
    return changed


# ---------------------------------------------------------------- keys and changes


# the key part of a world that reads are not narrowed in, kept while the world lives
# (sound for the same reason as frames._SNAPSHOTS: a merged world is never changed)
_COARSE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _coarse_key(world):
    """The game but for the records and lists in units' fields: plain fields (read
    directly by built-ins such as `alive`), statuses, and the rest of the snapshot."""
    seen = _COARSE.get(world)
    if seen is None:
        whole = world_snapshot(world)
        seen = _COARSE[world] = Hashed((_atoms(world.units), _atoms(world.objects), whole[2:],
                                        world.turn, world.phase))
    return seen


def _atoms(units: dict) -> tuple:
    return tuple((uid, tuple((k, _typed(v)) for k, v in u.fields.items()
                             if not isinstance(v, _CONTAINERS)),
                  tuple(s.snapshot() for s in u.statuses))
                 for uid, u in units.items())


def _typed(value):
    """A plain value in a key: `true` and 1 are equal in Python, not in a rule."""
    return ("bool", value) if value.__class__ is bool else value


def _frame(world):
    """Everything of a world but its units' fields: a remembered call must leave it as
    it was (its changes are told as fields only)."""
    whole = world_snapshot(world)
    units = tuple((uid, tuple(s.snapshot() for s in u.statuses), tuple(u.fields))
                  for uid, u in world.units.items())
    objects = tuple((uid, tuple(s.snapshot() for s in u.statuses), tuple(u.fields))
                    for uid, u in world.objects.items())
    return (units, objects, whole[2:], world.turn, world.phase, world.serial,
            world.deferred, world.doomed, world.unit_order)


def _values_at(world, paths) -> tuple:
    return tuple(_value_at(world, uid, path) for uid, path in paths)


def _value_at(world, uid, path):
    unit = world.units.get(uid) or world.objects.get(uid)
    if unit is None:
        return MISSING
    value = unit.fields
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return MISSING
        value = value[key]
    return _typed(value) if value.__class__ is bool else (value.__class__, frozen(value))


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
        for key in new:
            _diff(old[key], new[key], uid, path + (key,), out)
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
    if isinstance(value, Unit):
        return world.units.get(value.uid) or world.objects.get(value.uid, value)
    if isinstance(value, Side):
        return world.sides.get(value.name, value)
    if isinstance(value, (list, tuple)) and any(isinstance(v, (Unit, Side, list, tuple))
                                                 for v in value):
        return type(value)(moved(v, world) for v in value)
    return value
