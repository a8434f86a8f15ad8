"""simulate --workers: the same summary whatever the number of workers and however the
worker processes start (forked from the ruleset already loaded, or started fresh)."""
import threading

import pytest

from interpreter.game.api import load_ruleset
from interpreter.game.simulate import simulate


def summary(workers, **kw):
    rules = load_ruleset("tanks")
    return simulate(rules, None, 24, seed=11, workers=workers, track=["turn"]).as_json()


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_workers_give_the_summary_one_process_gives(start, monkeypatch):
    if start == "spawn":   # a running thread (a progress bar) rules forking out
        monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert summary(2) == summary(1)
