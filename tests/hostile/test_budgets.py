"""Budgets for work: steps per call tree (loops and self-calling procedures), turns per
game, units per scenario, workers per simulation.  Each exceeded budget is a located
error naming the budget and how to raise it, well within its time bound."""
import json

import pytest

from interpreter.limits import MAX_STEPS, MAX_TURNS, MAX_UNITS

HEAD = "ruleset: work\ntitle: work\n"

TWICE_PER_LEVEL = HEAD + """\
procedures:
  boom:
    params: {n: integer}
    steps:
      - if: n > 0
        then:
          - boom(n - 1)
          - boom(n - 1)
      - return "done"
"""

NESTED_REPEATS = HEAD + """\
procedures:
  spin:
    steps:
      - let t = 0
      - repeat:
          - repeat:
              - repeat:
                  - t += 1
                until: false
                max: 10000
            until: false
            max: 10000
        until: false
        max: 10000
      - return t
"""

NESTED_FORS = HEAD + """\
parameters:
  many: "=[0] * 10000"
procedures:
  spin:
    steps:
      - let t = 0
      - for: a
        in: many
        do:
          - for: b
            in: many
            do: ["t += 1"]
      - return t
"""

NESTED_COMPREHENSIONS = HEAD + """\
parameters:
  many: "=[0] * 10000"
procedures:
  spin:
    steps:
      - let t = sum([sum([1 for x in many]) for y in many])
      - return t
"""

BUDGET_HINT = "raise the budget with `budgets: {steps: N}`"


@pytest.mark.parametrize("rule,argv,line", [
    (TWICE_PER_LEVEL, ["boom", "--with", "n=40"], 7),
    (NESTED_REPEATS, ["spin"], 10),
    (NESTED_FORS, ["spin"], 14),
    (NESTED_COMPREHENSIONS, ["spin"], 8),
])
@pytest.mark.parametrize("compiled", [False, True], ids=["transcript", "compiled"])
def test_the_step_budget_stops_work_that_the_call_depth_limit_does_not(cli, write, rule, argv,
                                                                      line, compiled):
    path = write("work.yaml", rule)
    extra = ["--json"] if compiled else []
    result = cli("run", path, *argv, *extra) if not compiled else _bulk(path, argv)
    assert result.seconds < 15
    assert result.code == 1
    assert f"work.yaml:{line}:" in result.text
    assert f"more than {MAX_STEPS:,} steps (the step budget)" in result.text
    assert BUDGET_HINT in result.text


def _bulk(path, argv):
    """The compiled path: the procedure's body run without a transcript."""
    import time
    from dataclasses import dataclass

    from interpreter.errors import LimitError, format_error
    from interpreter.game.api import load_ruleset

    @dataclass
    class Out:
        code: int
        text: str
        seconds: float

    inputs = {"n": 40} if "--with" in argv else {}
    sampler = load_ruleset(path).sampler(argv[0], inputs)
    import random
    start = time.process_time()
    try:
        sampler(random.Random(1))
    except LimitError as err:
        return Out(1, format_error(err), time.process_time() - start)
    return Out(0, "", time.process_time() - start)


@pytest.mark.parametrize("argv", [["spin", "--odds"], ["spin"]], ids=["exact", "sampled"])
def test_exact_comprehensions_spend_the_step_budget_and_stop_where_sampled_ones_do(cli, write,
                                                                                  argv):
    result = cli("run", write("work.yaml", NESTED_COMPREHENSIONS), *argv)
    assert result.seconds < 15
    assert result.code == 1 and "work.yaml:8:38:" in result.text
    assert f"more than {MAX_STEPS:,} steps (the step budget)" in result.text


def test_an_exact_comprehension_outside_a_run_is_a_call_tree_of_its_own(cli):
    nested = "sum([sum([1 for x in range(1, 10000)]) for y in range(1, 10000)])"
    result = cli("odds", nested)
    assert result.code == 1 and "<expr>:1:22:" in result.text and "(the step budget)" in result.text
    many = cli("odds", "sum([x for x in range(1, 100)])")   # each evaluation starts afresh
    assert many.code == 0 and "5050" in many.text
    again = cli("odds", "sum([x for x in range(1, 100)])")
    assert again.code == 0 and "5050" in again.text


def test_a_roll_is_a_call_tree_of_its_own(cli):
    nested = "sum([sum([1 for x in range(1, 10000)]) for y in range(1, 10000)])"
    result = cli("roll", nested)
    assert result.code == 1 and "(the step budget)" in result.text
    assert cli("roll", "sum([x for x in range(1, 100)])", "--times", "3000").code == 0


def test_a_ruleset_may_raise_the_step_budget(cli, write):
    rule = NESTED_FORS.replace("[0] * 10000", "[0] * 400") + "budgets: {steps: 200000}\n"
    result = cli("run", write("work.yaml", rule), "spin", "--json")
    assert result.code == 0, result.text
    assert json.loads(result.out)["result"] == 160000


def test_the_step_budget_has_a_hard_ceiling(cli, write):
    result = cli("validate", write("work.yaml", NESTED_FORS + "budgets: {steps: 1000000000}\n"))
    assert result.code == 1
    assert "'steps' in budgets must be at most 100000000" in result.text


def test_the_step_budget_holds_in_play_and_simulate(cli, write):
    rule = NESTED_REPEATS + game(steps="spin()")[len(HEAD):]
    path = write("work.yaml", rule)
    for argv in (["play", path, "--seed", "1"], ["simulate", path, "--runs", "2"]):
        result = cli(*argv)
        assert result.code == 1 and result.seconds < 15, result.text
        assert "(the step budget)" in result.text and "work.yaml:10:" in result.text


GAME = """\
kinds:
  f: {stats: {x: 1}}
turn:
  phases:
    - name: p
      each: unit
      steps: ['STEPS']
  max_turns: TURNS
scenarios:
  default:
    sides:
      a: {policy: first, units: [{kind: f, name: A, count: COUNT}]}
      b: {policy: first, units: [{kind: f, name: B}]}
"""


def game(steps='emit "x"', turns=3, count=1, budgets=""):
    return (HEAD + GAME.replace("STEPS", steps).replace("TURNS", str(turns))
            .replace("COUNT", str(count)) + budgets)


@pytest.mark.parametrize("command", ["validate", "play", "simulate"])
@pytest.mark.parametrize("rule,message,code", [
    (game(turns=1_000_000_000),
     f"max_turns: 1,000,000,000 is more than a game may last (the turns budget, {MAX_TURNS:,})",
     "budgets: {turns: N}"),
    (game(count=100_000_000),
     f"scenario 'default' has more than {MAX_UNITS:,} units (the units budget)",
     "budgets: {units: N}"),
])
def test_turns_and_units_are_budgeted_before_the_game_starts(cli, write, command, rule, message,
                                                             code):
    path = write("work.yaml", rule)
    argv = {"validate": [], "play": ["--seed", "1"], "simulate": ["--runs", "2"]}[command]
    result = cli(command, path, *argv)
    assert result.code == 1 and result.seconds < 10
    assert message in result.text and code in result.text


def test_a_ruleset_may_raise_the_turn_budget_within_its_ceiling(cli, write):
    ok = cli("validate", write("ok.yaml", game(turns=20_000, budgets="budgets: {turns: 20000}\n")))
    assert ok.code == 0, ok.text
    over = cli("validate", write("over.yaml", game(turns=5, budgets="budgets: {turns: 2000000}\n")))
    assert over.code == 1 and "'turns' in budgets must be at most 1000000" in over.text


def scenario_budgets(rule: str, budgets: str) -> str:
    """`rule` (one of `game`'s) with `budgets` as its default scenario's own."""
    return rule.replace("  default:\n    sides:", f"  default:\n    budgets: {budgets}\n    sides:")


def test_a_scenario_may_raise_its_own_turn_and_unit_budgets(cli, write):
    """A scenario's `budgets:` are its games' (its `max_turns`, its units), over the
    ruleset's; each within the same ceiling, and `steps` stays the ruleset's."""
    ok = cli("validate", write("ok.yaml", scenario_budgets(game(count=10_001), "{units: 20000}")))
    assert ok.code == 0, ok.text
    turns = game(turns=5).replace("  default:\n", "  default:\n    max_turns: 20000\n")
    ok = cli("validate", write("turns.yaml", turns.replace(
        "    max_turns: 20000\n", "    max_turns: 20000\n    budgets: {turns: 20000}\n")))
    assert ok.code == 0, ok.text
    over = cli("validate", write("over.yaml", turns))
    assert over.code == 1 and "max_turns: 20,000 is more than a game may last (the turns " \
        f"budget, {MAX_TURNS:,})" in over.text, over.text
    assert "or for this scenario alone in `scenarios: {default: {budgets: {turns: N}}}`" \
        in " ".join(over.text.split()), over.text
    units = cli("validate", write("units.yaml", game(count=100_000_000)))
    assert "or for this scenario alone in `scenarios: {default: {budgets: {units: N}}}`" \
        in " ".join(units.text.split()), units.text
    ceiling = cli("validate", write("c.yaml", scenario_budgets(game(), "{forks: 30000000}")))
    assert ceiling.code == 1 and "'forks' in scenario 'default' at budgets must be at most " \
        "20000000, not 30000000" in ceiling.text, ceiling.text
    steps = cli("validate", write("s.yaml", scenario_budgets(game(), "{steps: 200000}")))
    assert steps.code == 1 and "unknown key 'steps' in scenario 'default' at budgets" \
        in steps.text, steps.text


def test_workers_are_capped_at_the_cores(cli, write, monkeypatch):
    import multiprocessing
    started = []
    real = multiprocessing.get_context("fork").Pool

    class Counting:
        def __init__(self, ctx):
            self.ctx = ctx

        def Pool(self, n, *a, **k):
            started.append(n)
            return real(n, *a, **k)

    monkeypatch.setattr(multiprocessing, "get_context", lambda name: Counting(name))
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    result = cli("simulate", write("g.yaml", game()), "--runs", "4", "--workers", "1000",
                 "--seed", "1", "--json")
    assert result.code == 0, result.text
    assert started == [2]


def test_the_compiled_path_stops_at_the_same_step_as_the_transcript():
    """One meaning: the step budget is spent block by block on both paths, so both
    refuse at the same statement (tests/rulesets/compiled.yaml, over_budget)."""
    import random
    from pathlib import Path

    from interpreter.errors import LimitError
    from interpreter.game.api import load_ruleset
    rules = load_ruleset(Path(__file__).parent.parent / "rulesets" / "compiled.yaml")
    places = set()
    for run in (lambda: rules.sampler("over_budget", {})(random.Random(3)),
                lambda: rules.run("over_budget", {}, 3)):
        with pytest.raises(LimitError, match="the step budget") as caught:
            run()
        places.add((caught.value.location.line, caught.value.location.column))
    assert len(places) == 1


SQUARES = HEAD + """\
procedures:
  squares:
    steps:
      - return sum([sum([j for j in range(1, 400)]) for i in range(1, 400)])
"""
SQUARES_SUM = "sum([sum([j for j in range(1, 400)]) for i in range(1, 400)])"


@pytest.mark.parametrize("argv", [
    ["run", "{rule}", "squares", "--odds"],     # a comprehension in an enumerated step
    ["run", "{rule}", "squares"],               # its sampled run
    ["odds", "--ruleset", "{rule}", "squares()"],
    ["odds", "--ruleset", "{rule}", SQUARES_SUM],   # outside any call tree
    ["roll", "--ruleset", "{rule}", SQUARES_SUM],
], ids=["run-odds", "run", "odds-call", "odds-expression", "roll"])
def test_a_raised_step_budget_holds_for_exact_comprehensions_too(cli, write, argv):
    """160,400 steps (400 inner lists of 400 and the outer one): past the default
    budget, within a raised one, on every path that evaluates them."""
    low = write("low.yaml", SQUARES)
    high = write("high.yaml", SQUARES + "budgets: {steps: 200000}\n")
    refused = cli(*[str(low) if a == "{rule}" else a for a in argv])
    assert refused.code == 1 and f"more than {MAX_STEPS:,} steps" in refused.text
    passed = cli(*[str(high) if a == "{rule}" else a for a in argv])
    assert passed.code == 0, passed.text
    assert "32080000" in passed.text   # 400 * (400 * 401 / 2): range(1, 400) holds 400
    assert refused.seconds + passed.seconds < 20
