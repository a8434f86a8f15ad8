"""Which parts of the game an exact enumeration of a called procedure reads.

A procedure called from an enumerated procedure is a distribution over (result, what it
changed).  That distribution depends on the arguments and on the parts of the game the
callee reads, not on the whole game: a damage procedure hitting an arm reads the arm's
armour, not the torso's.  So while a call is enumerated the expressions note the unit
fields they read, as paths (`("m1", ("locations", "arm", "armour"))`), and the call is
remembered under the values at those paths (run/call_memo.py).

Only the paths are noted, never the values: the values are taken from the game the call
started in, once the call is done, so that a read after the callee's own write still
keys on the game it was given (more in the key is safe; less would not be).  A read the
tracing cannot narrow (a unit passed to a built-in, a derived field, a unit with
statuses) is noted as the whole unit; what reads units the tracing cannot name (a
side's units, the game's `units`, an action given names) notes every unit's plain fields
(`every_unit`), and `everything()` gives up on narrowing.
"""
from __future__ import annotations

WHOLE = ()   # the path of a read of all of a unit's fields
# the "unit" of a read of every unit's plain fields at once: whether each is destroyed,
# read by a side's units, by the `units` of the game, by an action (never a unit's id,
# which is text)
EVERY = ("every unit",)


class Reads:
    """The paths read by one call being enumerated (and by the calls inside it)."""

    __slots__ = ("paths", "all", "deepest")

    def __init__(self, depth: int = -1):
        self.paths: set = set()   # (uid, path tuple); path WHOLE: every field
        self.all = False          # something was read that no path describes
        self.deepest = depth      # the deepest call depth checked while it ran

    def merge(self, other: "Reads", shift: int = 0) -> None:
        self.paths |= other.paths
        self.all = self.all or other.all
        if other.deepest >= 0 and other.deepest + shift > self.deepest:
            self.deepest = other.deepest + shift


# the calls being enumerated, innermost last (only the innermost notes a read: a call's
# reads are added to its caller's when it ends, or when its memo answers)
_OPEN: list = []


def tracing() -> bool:
    return bool(_OPEN)


def begin(depth: int = -1) -> Reads:
    """A call made at call depth `depth` begins to be enumerated: what it reads, and
    how deep the calls inside it go (a call remembered at one depth answers at another
    only where those calls stay under the depth limit: call_memo.py)."""
    reads = Reads(depth)
    _OPEN.append(reads)
    return reads


def end(reads: Reads) -> None:
    """Close `reads` (the innermost) and add what it read to its caller's."""
    top = _OPEN.pop()
    assert top is reads, "reads closed out of order"
    if _OPEN:
        _OPEN[-1].merge(reads)


def seen(reads: Reads, shift: int = 0) -> None:
    """A remembered call's reads, added to the call being enumerated around it (its
    depths `shift` deeper: it was remembered that much higher up)."""
    if _OPEN:
        _OPEN[-1].merge(reads, shift)


def reach(depth: int) -> None:
    """A call at this depth is made inside the call being enumerated."""
    if _OPEN and depth > _OPEN[-1].deepest:
        _OPEN[-1].deepest = depth


def note(uid, path: tuple) -> None:
    if _OPEN:
        _OPEN[-1].paths.add((uid, path))


def note_units(value) -> None:
    """Every unit in `value` (a unit, or a list of them) read as a whole: it is handed
    to code that reads its fields directly (a built-in, an action)."""
    if not _OPEN:
        return
    if is_unit(value):
        _OPEN[-1].paths.add((value.uid, WHOLE))
    elif isinstance(value, (list, tuple)):
        for item in value:
            note_units(item)


def every_unit() -> None:
    """Something read units' plain fields the tracing cannot name one by one (which
    units are still in the game, and on which side): all of them are in the key."""
    if _OPEN:
        _OPEN[-1].paths.add((EVERY, WHOLE))


def everything() -> None:
    if _OPEN:
        _OPEN[-1].all = True


def is_unit(value) -> bool:
    """A unit of the game (state/world.Unit, which this stage cannot import)."""
    return hasattr(value, "uid") and hasattr(value, "fields") and hasattr(value, "statuses")


def field_path(unit, name: str):
    """The path `unit.name` reads when it is the unit's own stored field, read as
    stored (so that a path inside it can be followed); None when the value is made
    (a derived field, a status's modifier, an equipment bonus): then the whole unit
    is noted, since what is made reads fields the tracing cannot see."""
    if unit.statuses or name not in unit.fields:
        if name not in ("name", "side", "kind"):
            note(unit.uid, WHOLE)
        return None
    if "equipment" in unit.fields and type(unit.fields[name]) is int:
        note(unit.uid, ("equipment",))
    return (name,)
