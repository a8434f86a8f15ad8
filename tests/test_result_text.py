"""A result reads as the DSL writes it, the same in the transcript, on the `result:` line
of `run` and in the odds table: true/false (not Python's True), decimals for a run's
measured value, lists item by item (an exact result's tuple reads as a list)."""
from __future__ import annotations

import subprocess
import sys

import pytest

RULES = """\
ruleset: result_text
title: results as the DSL writes them
procedures:
  hit:
    steps: ['return d6 >= 4']
  half:
    steps: ['return 7 / 2']
  pair:
    steps:
      - let hit = d6 >= 4
      - return [hit, 2, "x"]
  pick:
    params:
      a: {type: unit, kind: man}
    steps:
      - return a
  chosen:
    params:
      a: {type: unit, kind: man}
    steps:
      - let who = pick(a)
      - return [who, 1]
kinds:
  man: {stats: {hits: 3}}
"""


def rulecraft(*args):
    return subprocess.run([sys.executable, "-m", "interpreter", *args],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = tmp_path_factory.mktemp("rules") / "result_text.yaml"
    p.write_text(RULES)
    return p


@pytest.mark.parametrize("procedure,line", [
    ("hit", "result: false"),          # seed 1 rolls a 1
    ("half", "result: 3.5"),
    ("pair", "result: [false, 2, x]"),
    ("chosen", "result: [a, 1]"),       # a unit by its name
])
def test_the_result_line_writes_values_as_the_dsl_does(path, procedure, line):
    out = rulecraft("run", str(path), procedure, "--seed", "1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == line


def test_an_odds_table_writes_a_list_result_item_by_item(path):
    out = rulecraft("run", str(path), "pair", "--odds")
    assert out.returncode == 0, out.stderr
    assert "[false, 2, x]" in out.stdout and "[true, 2, x]" in out.stdout
    assert "True" not in out.stdout and "'x'" not in out.stdout


@pytest.mark.parametrize("procedure,row", [("pick", " a "), ("chosen", "[a, 1]")])
def test_an_odds_table_names_a_unit_result_as_the_run_does(path, procedure, row):
    """A unit returned (through a call, too) is its name, not the world's internal id."""
    out = rulecraft("run", str(path), procedure, "--odds")
    assert out.returncode == 0, out.stderr
    assert row in out.stdout and "unit" not in out.stdout.split("━")[-1]
