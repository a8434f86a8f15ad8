"""A compiled call of a procedure whose result depends on its arguments alone is answered
from what an earlier call with the same arguments gave (run/gen_facts.py `remembered`,
run/gen_runtime.py `recall`).  It must not show: the same results, the same errors at
the same places, a budget that stops at the same step and a call depth refused at the
same depth as real calls, seed by seed against recorded runs (which call for real)."""
from __future__ import annotations

import random

import pytest

from interpreter import load
from interpreter.run.gen_facts import remembered

from outcomes import outcome

RULES = """\
ruleset: remembered-calls
title: calls answered from memory
budgets: {{steps: {steps}}}
parameters:
  edge: 1
tables:
  bands:
    key: name
    columns:
      share: {{type: number}}
    rows:
      near: {{share: "=1/2"}}
      far: {{share: 2}}
procedures:
  band:
    params:
      d: {{type: number}}
      r: {{type: integer, default: 6}}
    steps:
      - if: d > r
        then: ['return "out"']
      - if: d > r - edge
        then: ['return "edge"']
      - return "in"
  scaled:
    params:
      n: {{type: integer}}
      which: {{type: text, default: near}}
    steps:
      - let s = n * bands[which].share
      - return floor(s)
  shown:
    params:
      x: {{type: boolean}}
    steps:
      - return text(x)
  down:
    params:
      n: {{type: integer}}
    steps:
      - if: n == 0
        then: ['return band(3, 4)']
      - return down(n - 1)
  p:
    params:
      deep: {{type: integer, default: 0}}
    steps:
      - let a = d6
      - let b = d6
      - let out = band(a, b)
      - let c = band(a + b, 9)
      - let k = scaled(a, if b > 3 then "near" else "far")
      - let t = shown(if a > 3 then 1 else true)
      - if: b == 6
        then: ['let k = scaled(a, "nowhere")']
      - let w = band(3, 4)
      - let z = if deep > 0 then down(deep) else w
      - return [out, c, k, t, z]
"""


def rules_with(tmp_path, steps=100_000):
    path = tmp_path / f"remembered{steps}.yaml"
    path.write_text(RULES.format(steps=steps))
    return load(path)


def test_what_may_be_remembered(tmp_path):
    rules = rules_with(tmp_path)
    procs = rules.procedures
    assert remembered(procs["band"]) and remembered(procs["scaled"]) and remembered(procs["shown"])
    assert not remembered(procs["down"])   # it calls a procedure
    assert not remembered(procs["p"])      # it rolls


def test_remembered_calls_give_what_real_calls_give(tmp_path):
    """Results, the table's miss (`nowhere`, not remembered: it fails every time), and
    `1` against `true` (equal keys to Python, not to the rules)."""
    rules = rules_with(tmp_path)
    fast = rules.sampler("p", {})
    seen = set()
    for seed in range(60):
        recorded = outcome(lambda: rules.run("p", {}, seed).result)
        assert outcome(lambda: fast(random.Random(seed))) == recorded, seed
        seen.add(recorded[0])
    assert seen == {"value", "error"}
    assert rules.procedures["band"]._recall, "nothing was remembered"


@pytest.mark.parametrize("steps", [1, 4, 6, 8, 10, 12, 14, 16, 18, 20])
def test_a_remembered_call_stops_where_a_real_call_stops(tmp_path, steps):
    rules = rules_with(tmp_path, steps)
    fast = rules.sampler("p", {})
    for seed in range(40):
        recorded = outcome(lambda: rules.run("p", {}, seed).result)
        assert outcome(lambda: fast(random.Random(seed))) == recorded, (steps, seed)


def test_the_budgets_tried_stop_inside_remembered_calls(tmp_path):
    """Not vacuous: some budgets above stop on a line of a remembered procedure."""
    lines = set()
    for steps in [1, 4, 6, 8, 10, 12, 14, 16, 18, 20]:
        rules = rules_with(tmp_path, steps)
        for seed in range(40):
            result = outcome(lambda: rules.run("p", {}, seed).result)
            if result[0] == "error":
                lines.add(result[2])
    assert lines & set(range(25, 34)), lines   # band's and scaled's steps


@pytest.mark.parametrize("deep", [46, 47, 48, 49, 50])
def test_a_remembered_call_is_refused_at_the_depth_a_real_one_is(tmp_path, deep):
    rules = rules_with(tmp_path)
    fast = rules.sampler("p", {"deep": deep})
    outcome(lambda: fast(random.Random(0)))   # band(3, 4) is remembered at depth 1, and asked at depth deep + 1
    for seed in range(3):
        recorded = outcome(lambda: rules.run("p", {"deep": deep}, seed).result)
        assert outcome(lambda: fast(random.Random(seed))) == recorded, (deep, seed)
