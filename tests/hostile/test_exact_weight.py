"""The exact-work budget weighs a branch by the work it takes (issue #20): one for the
branch, and the ticks of the further work it made (expression nodes worked out exactly,
worlds, units and fields copied, worlds keyed: limits.py), FORK_FIELDS ticks a unit.  150,000 cheap branches take well
under a second, 150,000 that copy a world of long records took six; weighed, both are
refused within about a second, the same on every machine (counted, not timed).

The bundled procedures that were the slow cases (`benchmarks/odds_every_procedure.py`
lists every bundled procedure's time) are refused at a step of their own rule file;
a refusal where a procedure's ends merge names the step where the states multiplied."""
import pytest

from interpreter.limits import MAX_FORKS

# CPU seconds a refusal may take: idle runs take about one (loading the ruleset
# included); a machine loaded 13 deep on 2 cores took up to 4.5 (main took 3.8-6.1 idle)
SECONDS = 6.0
BUDGET = f"exact odds would work out more than {MAX_FORKS:,} branches (the exact-work budget, `forks`)"

BUNDLED = {   # procedure: (ruleset, the rule file and line where it is refused)
    "native_ambush": ("jungle-warfare", "jungle-warfare.yaml:"),
    "juggerball_improvements": ("jugger", "parts/jug.yaml:"),
    "prepare_spells": ("jugger", "parts/jug.yaml:70"),
}


@pytest.mark.parametrize("procedure", BUNDLED)
def test_the_slow_bundled_exact_requests_are_refused_within_a_second(cli, procedure):
    ruleset, where = BUNDLED[procedure]
    got = cli("run", ruleset, procedure, "--odds")
    assert got.code == 1, got.text
    assert where in got.err and BUDGET in got.err, got.err
    assert "budgets: {forks: N}" in got.err and "Traceback" not in got.text
    assert got.seconds < SECONDS, got.seconds


def world(stats: int) -> str:
    """A unit of `stats` stats whose hit points lose d60 three times: 60 + 60 * 60 +
    119 * 60 = 10,800 branches, each copying the world (its unit's fields)."""
    fields = ", ".join(f"s{i}: {i}" for i in range(stats))
    return f"""ruleset: weight
title: weight
kinds:
  f: {{stats: {{{fields}}}, state: {{hp: 1000}}}}
procedures:
  p:
    params: {{u: {{type: unit, kind: f}}}}
    steps:
      - for: i
        in: range(3)
        do:
          - u.hp -= d60
      - return u.hp
scenarios:
  default:
    sides:
      a: {{policy: first, units: [{{kind: f, name: A}}]}}
"""


def test_a_branch_copying_a_large_world_weighs_more(cli, write):
    """The same loop computes with a unit of one stat and is refused with one of 300 (it
    took 2.9 s and 450 MB before branches were weighed), at the step that copies the
    world, with the same message every time."""
    small = cli("run", write("small.yaml", world(1)), "p", "--odds", "--json")
    assert small.code == 0, small.err
    assert '"value": 820' in small.out   # 1000 - 3 * 60 at worst
    big = write("big.yaml", world(300))
    first, again = cli("run", big, "p", "--odds"), cli("run", big, "p", "--odds")
    assert first.code == 1 and "big.yaml:12:13:" in first.err and BUDGET in first.err, first.err
    assert first.err == again.err   # counted, not timed: the same refusal at the same step
    assert first.seconds < SECONDS, first.seconds


def test_a_refusal_where_the_ends_merge_names_the_step_that_multiplied_them(cli, write):
    """Passing the budget only as the procedure's ends merge (outside any step) is said
    at the step that made the states (40,000 pairs), not without a location."""
    text = ("ruleset: ends\ntitle: ends\nprocedures:\n  p:\n    steps:\n"
            "      - let a = d200\n      - let b = d200\n      - return [a, b]\n")
    got = cli("run", write("ends.yaml", text), "p", "--odds")
    assert got.code == 1, got.text
    assert "ends.yaml:7:9: error: " + BUDGET in got.err, got.err
    assert "let b = d200" in got.err
    assert got.seconds < SECONDS, got.seconds


def test_a_ruleset_may_raise_the_budget_for_heavy_branches(cli, write):
    """Weighed work is raised as any: `budgets: {forks: N}` lets a world of 30 stats,
    refused by the default, compute."""
    assert cli("run", write("default.yaml", world(30)), "p", "--odds").code == 1
    text = world(30).replace("procedures:", "budgets: {forks: 1000000}\nprocedures:")
    got = cli("run", write("raised.yaml", text), "p", "--odds", "--json")
    assert got.code == 0, got.err
    assert '"value": 820' in got.out


COLLECTOR_AT = """\
import sys
from interpreter.run import heap
heap.YOUNG_AFTER = int(sys.argv[1])   # objects before a young pass of the collector
from interpreter.cli.main import main
sys.exit(main(["odds-game", "mech-d20"]))
"""


def test_the_weight_does_not_follow_the_collector(tmp_path):
    """A refusal is the same step of the same rule whenever the cycle collector runs:
    no weighed work may depend on which worlds it has freed yet (a copy's key is weighed
    as derived from the world it came from, which it therefore holds).  mech-d20's
    default game is refused inside one segment after remembered calls made thousands of
    such copies; before, a young pass every 700 objects moved its refusal to another
    line than one every 50,000."""
    import subprocess
    import sys
    script = tmp_path / "collector_at.py"
    script.write_text(COLLECTOR_AT)
    errors = {young: subprocess.run([sys.executable, str(script), str(young)],
                                    capture_output=True, text=True, timeout=120)
              for young in (700, 1_000_000_000)}
    assert {e.returncode for e in errors.values()} == {1}
    assert errors[700].stderr == errors[1_000_000_000].stderr
    assert BUDGET in errors[700].stderr, errors[700].stderr
