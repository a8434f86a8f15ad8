"""A bulk run writes its procedure's statements into the run itself and settles two of
its step-budget spends there (run/codegen.py `_root_lines`): the first block's steps
come off the starting budget, and a block that returns a literal only checks that its
steps are left.  Every budget from 1 up past the procedure's work must stop the bulk
run where a recorded run stops, with the same error at the same place, or give the
same result."""
from __future__ import annotations

import random

import pytest

from interpreter import load

from outcomes import outcome

RULES = """\
ruleset: root-budget
title: budgets around a bulk run's first and last steps
budgets: {{steps: {steps}}}
procedures:
  helper:
    params: {{n: {{type: integer}}}}
    steps:
      - if: n > 3
        then: ['return n']
      - return 0
  p:
    steps:
      - let a = d6
      - let b = d6
      - if: a > 3
        then:
          - return "high"
      - let c = helper(a + b)
      - if: c == 0
        then:
          - let d = d6
          - return "none"
      - return c
"""


@pytest.mark.parametrize("steps", range(1, 14))
def test_a_bulk_run_stops_where_a_recorded_run_stops(tmp_path, steps):
    path = tmp_path / "root.yaml"
    path.write_text(RULES.format(steps=steps))
    rules = load(path)
    fast = rules.sampler("p", {})
    for seed in range(12):
        recorded = outcome(lambda: rules.run("p", {}, seed).result)
        assert outcome(lambda: fast(random.Random(seed))) == recorded, (steps, seed)


def test_the_budgets_tried_reach_every_stop(tmp_path):
    """The cases above are not vacuous: between them they stop at the first block,
    inside the leaf that returns a literal, in the called procedure, and finish."""
    seen = set()
    for steps in range(1, 14):
        path = tmp_path / f"root{steps}.yaml"
        path.write_text(RULES.format(steps=steps))
        rules = load(path)
        for seed in range(12):
            result = outcome(lambda: rules.run("p", {}, seed).result)
            seen.add(result[2] if result[0] == "error" else "done")
    assert "done" in seen and len(seen) >= 4, seen
