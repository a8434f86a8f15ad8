"""Values frozen for state keys: how exact odds tell two games apart.

Exact odds merge equal states, so every value a game holds has a hashable snapshot here:
`true` kept apart from 1 (`Truth`), records and lists as tuples, a unit by its id, hashed
once (`Hashed`) and shared between equal keys (`same`).  A unit's records are never changed
in place (a change replaces them with a changed copy), so a value's snapshot is remembered
by the value's identity (`frozen`, `frozen_fields`).  `fresh` is the other direction: a
copy no later change can reach.  Kept apart from state/world.py, which holds the game
these values live in.
"""
from __future__ import annotations

import copy
from fractions import Fraction

from ..expr.budget import METER as _METER
from ..limits import FORK_FROZEN_TICKS as _FROZEN_TICKS


class Truth:
    """`true` or `false` inside a state key.  Python holds True equal to 1 (and hashes
    them alike), but they are different values of the language (`text(x)` says "true"
    or "1"), so two states holding them must not merge; equal by value, so that a key
    survives a copy or a pickle."""

    __slots__ = ("value",)

    def __init__(self, value: bool):
        self.value = value

    def __eq__(self, other):
        return other.__class__ is Truth and other.value is self.value

    def __hash__(self):
        return 0x7472 + self.value

    def __repr__(self):
        return "true" if self.value else "false"


TRUTH = {True: Truth(True), False: Truth(False)}


def freeze(value):
    """A hashable snapshot of a DSL value (for merging equal states: true and 1 apart)."""
    return _frozen(value, True)


def frozen_outcome(value):
    """A DSL value as a hashable outcome of a distribution (a record as its sorted
    items, a list as a tuple), its bools left as they are: a distribution keeps true
    and 1 apart itself, and shows what it holds."""
    return _frozen(value, False)


def _frozen(value, truths: bool):
    if value.__class__ in KEPT:   # most values: frozen as they are
        return value
    if truths and value.__class__ is bool:
        return TRUTH[value]
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v, truths)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v, truths) for v in value)
    ref = getattr(value, "frozen_ref", None)   # a unit: by its id (state/world.Unit)
    return value if ref is None else ref


class Hashed:
    """A frozen value that hashes once: a state key holds whole units' records, and a
    tuple's hash is worked out again at every lookup (Python keeps none), so a world's
    key looked up in every merge would hash all it holds each time.  Equal to another
    Hashed of an equal value (the hashes are compared first)."""

    __slots__ = ("value", "hash")

    def __init__(self, value):
        self.value = value
        self.hash = hash(value)

    def __hash__(self):
        return self.hash

    def __eq__(self, other):
        return self is other or (other.__class__ is Hashed and self.hash == other.hash
                                 and self.value == other.value)

    def __repr__(self):
        return f"Hashed({self.value!r})"


# A unit's records and lists, frozen once while they live: a copied unit shares its
# fields' values (Unit.copy), and they are never changed in place, so the same object
# always freezes the same.  The memo holds the objects, so their ids stay theirs.
_FROZEN: dict = {}
FROZEN_VALUES = 65536   # values remembered at most before the memo starts again

# Equal frozen records and lists made one object (the first made), so that comparing two
# keys holding them compares identities where Python would go down both: a game's key is
# compared whole at every lookup that finds it (a merge, a remembered call), and equal
# games made apart hold equal records made apart.  Cleared when full: a value made after
# that is equal, not identical, to one made before, which costs time only.
_SAME: dict = {}


def same(done: "Hashed") -> "Hashed":
    """The one Hashed of `done`'s value (see _SAME)."""
    if len(_SAME) >= FROZEN_VALUES:
        _SAME.clear()
    return _SAME.setdefault(done, done)


def frozen(value):
    """`freeze(value)`, remembered for a record or list (see _FROZEN) and hashed once
    (`Hashed`)."""
    if value.__class__ not in (dict, list):
        return freeze(value)
    hit = _FROZEN.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    # the records and lists inside are shared between copies as the value is (a changed
    # copy of a record copies only the records on the way to the change), so they are
    # frozen once too: a changed field re-freezes what changed, not all it holds
    if value.__class__ is dict:
        done = Hashed(tuple(sorted((k, frozen(v)) for k, v in value.items())))
    else:
        done = Hashed(tuple(frozen(v) for v in value))
    if len(_FROZEN) >= FROZEN_VALUES:
        _FROZEN.clear()
    done = same(done)
    _FROZEN[id(value)] = (value, done)
    return done


# A unit's fields frozen, by the very values they hold: copies of a unit share their
# fields' values (Unit.copy), so most units of a copied world hold what the unit they were
# copied from held, and their frozen fields are found by the values' identities instead of
# freezing each field again.  The entry holds the values, so their ids stay theirs.
_FIELDS: dict = {}
KEPT = frozenset((int, str, float, type(None), Fraction))   # frozen as they are (a bool is not)


def frozen_fields(fields: dict):
    """The fields as a unit's snapshot holds them (sorted, each `frozen`), hashed once."""
    values = tuple(fields.values())
    key = (tuple(fields), tuple(map(id, values)))
    hit = _FIELDS.get(key)
    if hit is not None:
        return hit[1]
    done = same(Hashed(tuple((k, v if v.__class__ in KEPT else frozen(v))
                             for k in sorted(fields) for v in (fields[k],))))
    _METER[1] += _FROZEN_TICKS * len(fields)   # the exact-work budget's weight (limits.py)
    if len(_FIELDS) >= FROZEN_VALUES:
        _FIELDS.clear()
    _FIELDS[key] = (values, done)
    return done


# The map's terrain frozen, by the dicts that hold it: copies of a world share them and
# set_terrain() replaces them (World.copy), so a hex map is frozen once, not per state.
_TERRAIN: dict = {}


def terrain_key(terrain: dict, values: dict):
    """The terrain part of a world's snapshot (the entry holds the dicts: their ids stay
    theirs; their sizes are checked too, against a scenario still filling them in)."""
    key, sizes = (id(terrain), id(values)), (len(terrain), len(values))
    hit = _TERRAIN.get(key)
    if hit is not None and hit[0] is terrain and hit[1] is values and hit[2] == sizes:
        return hit[3]
    done = (tuple(sorted(terrain.items())),
            tuple(sorted((k, freeze(v)) for k, v in values.items())))
    if len(_TERRAIN) >= 256:
        _TERRAIN.clear()
    _TERRAIN[key] = (terrain, values, sizes, done)
    return done


_ATOMS = frozenset((int, bool, str, float, type(None), Fraction))


def fresh(value):
    """A copy of a value no later change can reach: what `copy.deepcopy` gives for the
    records, lists and plain values a unit's fields, a side's data and a parameter's
    default hold, without its per-object bookkeeping (a unit is made from its kind's stats
    once per unit per game, and exact odds copy a world per branch that changes it).
    Records, lists and tuples are copied all the way down; anything else is deep-copied.
    Sharing inside the value (a YAML anchor) is not kept, which no rule can see: a
    record is only ever changed by replacing it with a changed copy."""
    kind = value.__class__
    if kind in _ATOMS:
        return value
    if kind is dict:
        return {k: v if v.__class__ in _ATOMS else fresh(v) for k, v in value.items()}
    if kind is list:
        return [v if v.__class__ in _ATOMS else fresh(v) for v in value]
    if kind is tuple:
        return tuple(fresh(v) for v in value)
    return copy.deepcopy(value)
