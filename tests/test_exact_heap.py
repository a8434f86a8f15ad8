"""The cycle collector while exact odds run (run/heap.py): the heap from before the
enumeration is frozen and full and young passes are rarer, and both are put back once the
outermost enumeration ends, even when it fails; what the enumeration made is collected
as before (a world copied for a branch and its sides refer to each other)."""
import gc

import pytest

from interpreter.errors import LimitError
from interpreter.run import heap


class Cycle:
    def __init__(self):
        self.me = self


def test_the_collector_is_put_back_after_nested_enumerations():
    before = gc.get_threshold()
    frozen_before = gc.get_freeze_count()
    with heap.held():
        assert gc.get_freeze_count() > frozen_before   # what the process held: frozen
        assert gc.get_threshold()[2] == max(before[2], heap.FULL_AFTER)
        assert gc.get_threshold()[0] == max(before[0], heap.YOUNG_AFTER)   # young passes rarer
        with heap.held():   # a prompt's odds inside a game's: nothing more is frozen
            assert gc.get_threshold()[2] == max(before[2], heap.FULL_AFTER)
        assert gc.get_freeze_count() > frozen_before   # still frozen: the outer one runs
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == frozen_before


def test_the_collector_is_put_back_when_the_enumeration_is_refused():
    before, frozen_before = gc.get_threshold(), gc.get_freeze_count()
    with pytest.raises(LimitError):
        with heap.held():
            raise LimitError("refused", None)
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen_before


def test_cycles_made_while_held_are_still_collected():
    with heap.held():
        for _ in range(10):
            Cycle()
        assert gc.collect() >= 10
