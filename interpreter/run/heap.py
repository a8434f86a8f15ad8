"""The cycle collector kept to what an exact enumeration makes, and rarely in full.

Exact odds make hundreds of thousands of short-lived objects (fractions, keys, branches)
and keep many (merged states, remembered calls).  Python's cycle collector makes a full
pass each time ten younger passes have run and the objects kept have grown by a quarter,
and that pass walks every object the process holds: the loaded ruleset, the parser, the
schema, and everything the enumeration keeps.  Measured (benchmarks/README.md, calib):
on the mech `hit_with` of an LRM 10 with a natural 20 the collector took a quarter to a
half of the time, and half of jugger `prepare_spells`' refusal.  That time does not
follow the work the exact-work budget weighs, so it could not be charged.

So while an enumeration runs:
- what the process held before it began is frozen (`gc.freeze`: left out of every
  collection, still alive), so a full pass walks only what the enumeration made;
- a full pass waits for a hundred younger passes instead of ten.  The young passes
  still collect the cycles that die young (a world copied for a branch and dropped:
  a world and its sides refer to each other), so memory stays where it was.
Once the outermost enumeration ends, the frozen objects go back to the collector's
oldest generation (`gc.unfreeze`) and its thresholds are put back.  Nothing is kept or
freed differently, but garbage from before the enumeration waits until it is over.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager

FULL_AFTER = 100   # younger passes before a full one, while an enumeration runs (Python: 10)
_DEPTH = [0]       # enumerations running inside each other (a prompt's odds inside a game)


@contextmanager
def held():
    """Run an exact enumeration with the heap before it frozen (see the module)."""
    _DEPTH[0] += 1
    if _DEPTH[0] == 1:
        gc.freeze()
        before = gc.get_threshold()
        gc.set_threshold(before[0], before[1], max(before[2], FULL_AFTER))
    try:
        yield
    finally:
        _DEPTH[0] -= 1
        if _DEPTH[0] == 0:
            gc.unfreeze()
            gc.set_threshold(*before)
