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
- a full pass waits for a hundred younger passes instead of ten;
- a young pass waits for 50,000 objects more instead of 700.  Most objects an
  enumeration makes die young by their count of references (fractions, keys, branches
  merged away), and those it keeps (merged states, remembered calls) were walked by a
  young pass and by the next generation's before they settled: 460 passes in the
  mech-d20 refusal, 40 ms of its 0.6 s, now 5 passes and 27 ms (refuse4).  The young
  passes still collect the cycles that die young (a world copied for a branch and
  dropped: a world and its sides refer to each other), 50,000 objects later at most
  (the refusal's peak memory did not grow: 74 MB before, 72 MB now).
Once the outermost enumeration ends, the frozen objects go back to the collector's
oldest generation (`gc.unfreeze`) and its thresholds are put back.  Nothing is kept or
freed differently, but garbage from before the enumeration waits until it is over.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager

FULL_AFTER = 100   # younger passes before a full one, while an enumeration runs (Python: 10)
YOUNG_AFTER = 50_000   # objects made (net of those freed) before a young pass (Python: 700)
_DEPTH = [0]       # enumerations running inside each other (a prompt's odds inside a game)


@contextmanager
def held():
    """Run an exact enumeration with the heap before it frozen (see the module)."""
    _DEPTH[0] += 1
    if _DEPTH[0] == 1:
        gc.freeze()
        before = gc.get_threshold()
        gc.set_threshold(max(before[0], YOUNG_AFTER), before[1], max(before[2], FULL_AFTER))
    try:
        yield
    finally:
        _DEPTH[0] -= 1
        if _DEPTH[0] == 0:
            gc.unfreeze()
            gc.set_threshold(*before)
