"""Deep nesting on the compiled path (issue #20): 19 nested `for` loops ended in an
internal SyntaxError in `simulate` (Python refuses more than 20 nested blocks) while
`play` worked.  A step list the compiler cannot write falls back to the sampled runner,
so every command gives the same result at any depth the rule file allows."""
import json
import random

import pytest

from interpreter.game.api import load_ruleset

HEAD = "ruleset: deep\ntitle: deep\n"


def nested(depth: int) -> str:
    """`p` counts the passes of `depth` nested loops, the innermost of three: 3."""
    lines = []
    for i in range(depth):
        pad = "      " + "    " * i
        lines.append(f"{pad}- for: v{i}\n{pad}  in: range({3 if i == depth - 1 else 1})\n"
                     f"{pad}  do:\n")
    inner = "      " + "    " * depth + "- t += 1\n"
    return HEAD + """\
kinds:
  f: {stats: {x: 1}, state: {count: 0}}
procedures:
  p:
    steps:
      - let t = 0
""" + "".join(lines) + inner + """\
      - return t
turn:
  phases:
    - name: count
      each: unit
      steps: ['unit.count = p()']
  max_turns: 2
scenarios:
  default:
    sides:
      a: {policy: first, units: [{kind: f, name: A}]}
      b: {policy: first, units: [{kind: f, name: B}]}
"""


@pytest.mark.parametrize("depth", [19, 30])
def test_deep_loops_give_one_result_on_every_path(cli, write, depth):
    path = write("deep.yaml", nested(depth))
    ran = cli("run", path, "p", "--seed", "1", "--json")
    assert ran.code == 0, ran.err
    assert json.loads(ran.out.splitlines()[-1])["result"] == 3
    assert load_ruleset(path).sampler("p", {})(random.Random(1)) == 3   # compiled
    odds = cli("run", path, "p", "--odds", "--json")
    assert odds.code == 0 and '"value": 3' in odds.out, odds.err
    for argv in (["play", path, "--seed", "1"],
                 ["simulate", path, "--runs", "3", "--seed", "1", "--track", "units[1].count",
                  "--json"]):
        got = cli(*argv)
        assert got.code == 0, got.err
        assert "internal error" not in got.text and "Traceback" not in got.text
        assert got.seconds < 10, got.seconds
    assert '"mean": 3' in got.out or '"mean": 3.0' in got.out, got.out
