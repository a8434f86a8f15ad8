"""The exact-work budget (limits.MAX_FORKS, `budgets: {forks: N}`): states alone do not
bound exact enumeration, since a step can make a hundred million branches that merge
back into a few thousand states.  Each case is refused within a second of CPU (the
budget's work, or at once where a step knows how many it would make), at the step
where the work multiplied, naming the budget and how to raise it and suggesting
`simulate`; what computes fast today still computes.  Work that builds up over a loop's
passes is foreseen from its first passes: test_loop_work.py."""
import pytest

from interpreter.limits import MAX_FORKS, MAX_FORKS_CEILING

HEAD = "ruleset: hostile\ntitle: hostile\n"
# CPU seconds a refusal may take: the budget's own work is about a second on an idle
# machine (a branch costs 5-10 microseconds); a busy one doubles it
SECONDS = 4.0


def procedure(*steps: str, extra: str = "") -> str:
    return HEAD + extra + "procedures:\n  p:\n    steps:\n" + \
        "".join(f"      - {s}\n" for s in steps)


LOOP = "for: i\n        in: range({n})\n        do:\n          - {step}"

# name: (rule file, the line of the refusal, what the message says after the budget)
CASES = {
    "a procedure called with two huge rolls": (
        HEAD + "procedures:\n  q:\n    params: {a: integer, b: integer}\n    steps: ['return a + b']\n"
        "  p:\n    steps:\n      - let r = q(d10000, d10000)\n      - return r\n", 9,
        "this step would make 100,000,000 branches"),
}


@pytest.mark.parametrize("name", CASES)
def test_exact_work_past_the_budget_is_refused_at_once_where_it_multiplies(cli, write, name):
    text, line, what = CASES[name]
    path = write("work.yaml", text)
    got = cli("run", path, "p", "--odds")
    assert got.code == 1, got.text
    assert f"work.yaml:{line}:" in got.err, got.err
    assert f"exact odds would work out more than {MAX_FORKS:,} branches (the exact-work " \
           f"budget, `forks`): {what}" in got.err
    assert "use `rulecraft simulate`" in got.err and "budgets: {forks: N}" in got.err
    assert f"(at most {MAX_FORKS_CEILING:,})" in got.err
    assert "Traceback" not in got.text
    assert got.seconds < SECONDS, got.seconds


def test_a_ruleset_may_raise_the_exact_work_budget(cli, write):
    step = LOOP.format(n=2, step="t += d400")
    low = cli("run", write("low.yaml", procedure("let t = 0", step, "return t")), "p", "--odds")
    assert low.code == 1 and "the exact-work budget" in low.err
    raised = procedure("let t = 0", step, "return t", extra="budgets: {forks: 1000000}\n")
    high = cli("run", write("high.yaml", raised), "p", "--odds", "--json")
    assert high.code == 0, high.err
    assert '"value": 800' in high.out


def test_the_exact_work_budget_has_a_hard_ceiling(cli, write):
    path = write("ceiling.yaml", procedure("return d6", extra="budgets: {forks: 30000000}\n"))
    got = cli("validate", path)
    assert got.code == 1 and "20000000" in got.text


@pytest.mark.parametrize("steps,value", [
    (("let t = 0", LOOP.format(n=2, step="t += d300"), "return t"), 600),   # 90,300 branches
    (("let t = 0", LOOP.format(n=30, step="t += d6"), "return t"), 180),
    (("let a = d100", "let b = d100", "return a + b"), 200),
])
def test_work_within_the_budget_computes(cli, write, steps, value):
    got = cli("run", write("fine.yaml", procedure(*steps)), "p", "--odds", "--json")
    assert got.code == 0, got.err
    assert f'"value": {value}' in got.out
