"""CPython's cyclic garbage collector while an exact enumeration runs.

An enumeration keeps what it has worked out (merged states, remembered calls and the
games they ended in) until it ends, so what it holds only grows while it runs.  Every
full collection goes over all of it again, and finds next to nothing to free: in the
mech volley of tests/rulesets/exact_scale.yaml, four full collections a run over
185,000-290,000 objects freed 250-530 objects each (the first also freed the run
before's games), and took a third of the run's time.  The young collections, which
free the game copies a branch drops (a world and its sides hold each other, so only a
collection frees them), go on as before; a full collection waits for a hundred times
as many of them while the outermost enumeration runs, and the thresholds the process
had are put back when it ends (whatever it ends with)."""
from __future__ import annotations

import gc

# young (generation 1) collections between two full ones while enumerating (CPython's
# default is 10): the garbage left for a full collection stays bounded, a hundred
# times what it is outside
FULL_AFTER = 1000


def quiet() -> tuple:
    """Space out the full collections; the thresholds to give back to `restore`."""
    before = gc.get_threshold()
    if before[2] < FULL_AFTER:
        gc.set_threshold(before[0], before[1], FULL_AFTER)
    return before


def restore(before: tuple) -> None:
    gc.set_threshold(*before)
