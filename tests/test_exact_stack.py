"""An exact enumeration's room on Python's stack (run/stack.py): `in_room` runs the work
and hands back its result or its error, and calls made in the room go up and down across
what would be a stack chunk's end without the interpreter mapping a chunk each time
(counted as the process's minor page faults: one at least for each chunk mapped).  Without
the room, on a CPython that gives a chunk back as soon as the call that began it returns
(3.11 and 3.12), the same calls at some depth do."""
import resource
import sys

import pytest

from interpreter.errors import LimitError
from interpreter.run.stack import in_room

CALLS = 3000      # calls of the leaf at each depth
DEPTHS = 240      # depths tried: more than one chunk's worth of frames (16 KiB)


def _leaf():
    return 1


# the leaf's frame is larger than a step down (64 slots of evaluation stack, unused), so
# that at some depth the chunk in use has room for the step and not for the leaf
_leaf.__code__ = _leaf.__code__.replace(co_stacksize=64)


def _swing(depth: int) -> int:
    """Go `depth` frames down, then call a leaf CALLS times there."""
    if depth:
        return _swing(depth - 1)
    return sum(_leaf() for _ in range(CALLS))


def _faults_at_every_depth() -> int:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for depth in range(DEPTHS):
        assert _swing(depth) == CALLS
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_the_room_hands_back_the_result_and_the_error():
    assert in_room(lambda a, b: a + b, 2, 3) == 5
    with pytest.raises(LimitError):
        in_room(_refused)
    assert in_room(_swing, 50) == CALLS   # calls as deep as the enumeration's


def _refused():
    raise LimitError("refused", None)


def test_calls_in_the_room_map_no_chunk_at_any_depth():
    in_room(_faults_at_every_depth)   # (the pages its frames touch, faulted in once)
    assert in_room(_faults_at_every_depth) < CALLS


@pytest.mark.skipif(not (3, 11) <= sys.version_info[:2] <= (3, 12),
                    reason="the chunk given back at once is CPython 3.11's and 3.12's")
def test_without_the_room_some_depth_maps_a_chunk_at_every_call():
    assert _faults_at_every_depth() >= CALLS
