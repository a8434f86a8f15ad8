"""Exact work that builds up along a chain of calls (issue #20): a procedure that calls
itself (or another that calls it back), each level's work a little more than the one's
below it, is foreseen from its first returns and refused at the call once the calls
still open would pass the exact-work budget (run/call_cost.py), in well under a second
of CPU instead of the budget's whole work; a chain that fits is never refused by the
forecast, to the last branch; a sampled chain that explodes stops at the step budget."""
import re

import pytest

from interpreter.game import odds
from interpreter.limits import MAX_FORKS, MAX_FORKS_CEILING, MAX_STEPS
from interpreter.run.frames import Enumeration

HEAD = "ruleset: hostile\ntitle: hostile\n"
# CPU seconds a refusal may take: at idle these take 0.1-0.5 s in this process (the
# budget's whole work took 0.8-1.6 s), a loaded machine nearly triples it (the twice-
# calling chain, 0.5 s idle, took 1.85 s in a full run beside other sessions); the
# clock's seconds only guard against a hang
CPU_SECONDS = 3.0
WALL_SECONDS = 20.0


@pytest.fixture(autouse=True)
def warm(cli, write):
    """The grammar and the schema loaded once before a case is timed."""
    cli("run", write("warm.yaml", HEAD + "procedures:\n  p:\n    steps: ['return d6']\n"),
        "p", "--odds")


def chain(depth: int, *steps: str, extra: str = "") -> str:
    """`p` returns q(depth); q(0) is 0, and q(n) does `steps` (which call q(n - 1))."""
    return HEAD + extra + "procedures:\n  p:\n    steps:\n" + f"      - return q({depth})\n" \
        "  q:\n    params: {n: integer}\n    steps:\n      - if: n == 0\n" \
        "        then: ['return 0']\n" + "".join(f"      - {s}\n" for s in steps)


def mutual(depth: int, die: str, extra: str = "") -> str:
    """a(n) adds a roll to b(n - 1), which is a(n - 1): 2 x depth calls deep."""
    return HEAD + extra + f"procedures:\n  p:\n    steps: ['return a({depth})']\n" \
        "  a:\n    params: {n: integer}\n    steps:\n      - if: n == 0\n" \
        "        then: ['return 0']\n      - let t = b(n - 1)\n" \
        f"      - t += {die}\n      - return t\n" \
        "  b:\n    params: {n: integer}\n    steps:\n      - let t = a(n)\n      - return t\n"


LET = ("let t = q(n - 1)", "t += d20", "return t")

# name: (rule file, the line:column of the refusal, the procedure named)
REFUSED = {
    "49 levels of t += d20 (the call bound to a let)": (chain(49, *LET), "12:17", "q"),
    "49 levels of a d20 held in a let, added at the return": (
        chain(49, "let t = q(n - 1)", "let u = d20", "return t + u"), "12:17", "q"),
    "49 levels of q(n - 1) + d100 (the call inside an expression)": (
        chain(49, "return q(n - 1) + d100"), "12:16", "q"),
    "40 levels calling itself twice (the second call remembered)": (
        chain(40, "let a = q(n - 1)", "let b = q(n - 1)", "return a + b + d6"), "12:17", "q"),
    "a and b calling each other 24 times, adding d100": (mutual(24, "d100"), "17:17", "a"),
}


@pytest.mark.parametrize("name", REFUSED)
def test_chain_work_past_the_budget_is_foreseen_and_refused_at_once(cli, write, name):
    text, where, proc = REFUSED[name]
    got = cli("run", write("chain.yaml", text), "p", "--odds")
    assert got.code == 1, got.text
    said = re.search(
        rf"chain\.yaml:{where}: error: exact odds would work out more than {MAX_FORKS:,} "
        rf"branches \(the exact-work budget, `forks`\): `{proc}` calls itself and its work "
        rf"grows call by call: after ([\d,]+) branches so far, the next ([\d,]+) of its calls "
        rf"still open would make at least ([\d,]+) more as they return \([\d,]+ or more a "
        rf"call, each [\d,]+ more than the one before\), of the ([\d,]+) calls of `{proc}` "
        rf"open around this one\n", got.err)
    assert said, got.err
    done, horizon, ahead, left = (int(g.replace(",", "")) for g in said.groups())
    assert done < MAX_FORKS < done + ahead and horizon <= left
    assert "use `rulecraft simulate`" in got.err and "budgets: {forks: N}" in got.err
    assert f"(at most {MAX_FORKS_CEILING:,})" in got.err
    assert "Traceback" not in got.text
    assert got.seconds < CPU_SECONDS and got.wall < WALL_SECONDS, (got.seconds, got.wall)


# Chains that compute within the default budget, and the largest value of each.
COMPUTES = {
    "49 levels of t += d6 (60,620 branches)": (chain(49, "let t = q(n - 1)", "t += d6",
                                                     "return t"), 294),
    "40 levels of q(n - 1) + d20 (33,607 branches)": (chain(40, "return q(n - 1) + d20"), 800),
    "a and b calling each other 23 times, adding d20 (137,660 of the 150,000)": (
        mutual(23, "d20"), 460),
    "a chain whose total is held at 30": (
        chain(49, "let t = q(n - 1)", "t = min(t + d6, 30)", "return t"), 30),
}


@pytest.mark.parametrize("name", COMPUTES)
def test_a_chain_that_fits_the_budget_computes(cli, write, name):
    text, top = COMPUTES[name]
    got = cli("run", write("chain.yaml", text), "p", "--odds", "--json")
    assert got.code == 0, got.err
    assert f'"value": {top}' in got.out and f'"value": {top + 1}' not in got.out


@pytest.fixture
def work_of(cli, write, monkeypatch):
    """`work_of(text)`: the exact work the odds of `p` make, read off the enumeration."""
    made = []

    class Watched(Enumeration):
        __slots__ = ()

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(odds, "Enumeration", Watched)

    def work(text: str) -> int:
        got = cli("run", write("chain.yaml", text), "p", "--odds", "--json")
        assert got.code == 0, got.err
        return made[-1].work
    return work


@pytest.mark.parametrize("name", ["49 levels of t += d6 (60,620 branches)",
                                  "40 levels of q(n - 1) + d20 (33,607 branches)"])
def test_the_forecast_never_refuses_a_chain_that_fits_to_the_last_branch(cli, write, work_of,
                                                                          name):
    """The forecast is a lower envelope of the work still to come: a chain given exactly
    the budget it needs computes, and one branch less is refused (at the end)."""
    text, top = COMPUTES[name]
    need = work_of(text.replace(HEAD, HEAD + "budgets: {forks: 20000000}\n"))
    fits = cli("run", write("chain.yaml", text.replace(HEAD, HEAD + f"budgets: {{forks: {need}}}\n")),
               "p", "--odds", "--json")
    assert fits.code == 0, fits.err
    assert f'"value": {top}' in fits.out
    short = cli("run", write("chain.yaml", text.replace(HEAD, HEAD + f"budgets: {{forks: {need - 1}}}\n")),
                "p", "--odds")
    assert short.code == 1
    assert f"more than {need - 1:,} branches (the exact-work budget, `forks`)" in short.err


def test_a_raised_budget_lets_the_refused_chain_compute(cli, write):
    """The refusal is the budget's, not a limit of the engine: 20 levels of t += d20 take
    89,067 branches, so a budget of 90,000 computes them and one of 50,000 refuses them
    by the forecast, after 13,461."""
    for budget, code in ((90_000, 0), (50_000, 1)):
        text = chain(20, *LET, extra=f"budgets: {{forks: {budget}}}\n")
        got = cli("run", write("chain.yaml", text), "p", "--odds", "--json")
        assert got.code == code, got.text
        if code:
            assert "`q` calls itself and its work grows call by call" in got.err
        else:
            assert '"value": 400' in got.out


@pytest.mark.parametrize("steps", [
    ("let a = q(n - 1)", "let b = q(n - 1)", "return a + b + d6"),
    ("return q(n - 1) + q(n - 1) + d6",),
], ids=["bound to lets", "inside an expression"])
def test_a_sampled_chain_that_explodes_stops_at_the_step_budget(cli, write, steps):
    """Twice per level for 40 levels is 2^40 calls: the sampled run stops at its step
    budget, at the first step past it."""
    got = cli("run", write("chain.yaml", chain(40, *steps)), "p")
    assert got.code == 1, got.text
    assert re.search(rf"chain\.yaml:\d+:\d+: error: this run executed more than {MAX_STEPS:,} "
                     rf"steps \(the step budget\)", got.err), got.err
    assert "budgets: {steps: N}" in got.err
    assert got.seconds < CPU_SECONDS and got.wall < WALL_SECONDS, (got.seconds, got.wall)


TREE = "return q(n - 1) + q(n - 1) + d6"


def test_a_tree_of_calls_inside_an_expression_is_foreseen_by_its_branching(cli, write):
    """`q(n - 1) + q(n - 1) + d6`: each call inside the expression was an enumeration of
    its own, with a budget of its own, so the tree's 2^49 calls were bounded only by the
    sum of the results growing too large (5 s, and no place given); they spend the
    budget of the enumeration whose expression calls them, and as every call returned
    made two, each call still open along the path is foreseen to make its second too,
    at least as much work as a second call of the last one returned: refused at the
    first call once those would pass the budget (after 9,539 branches of the 150,000;
    the path's tails alone waited for 102,609)."""
    got = cli("run", write("chain.yaml", chain(49, TREE)), "p", "--odds")
    assert got.code == 1, got.text
    said = re.search(
        r"chain\.yaml:12:16: error: exact odds would work out more than 150,000 branches "
        r"\(the exact-work budget, `forks`\): `q` calls itself .*; and as each call of `q` "
        r"makes 2 of them \(as those returned did\), those open have ([\d,]+) more to make, "
        r"each at least ([\d,]+) \(as a call after the first of those returned made\), "
        r"([\d,]+) in all\n",
        got.err)
    assert said, got.err
    calls, whole, total = (int(g.replace(",", "")) for g in said.groups())
    assert calls * whole == total and 40 <= calls <= 49
    assert got.seconds < CPU_SECONDS and got.wall < WALL_SECONDS, (got.seconds, got.wall)


# Trees of calls that fit, the largest value of each, and whether a third of the
# budget they need is refused by the tree forecast
TREES = {
    "7 levels of q(n - 1) + q(n - 1) + d6": (chain(7, TREE), 762, True),
    "q(n - 1) + q(n - 2) + d6 from 10 (the second call smaller)": (
        chain(10, "return q(n - 1) + q(n - 2) + d6").replace("n == 0", "n <= 1"), 528, False),
}


@pytest.mark.parametrize("name", TREES)
def test_the_tree_forecast_never_refuses_a_tree_that_fits_to_the_last_branch(cli, write,
                                                                             work_of, name):
    """A call after a link's first is foreseen at no more than such a call of the last
    link returned, the same call again or a smaller one (`q(n - 2)`), so the forecast
    is a lower bound: a tree given exactly the budget it needs computes, one branch
    less is refused (at the end); as each level of the doubling tree does about twice
    the work of the one below, a third of its budget is refused by the tree forecast."""
    text, top, early = TREES[name]
    need = work_of(text.replace(HEAD, HEAD + "budgets: {forks: 20000000}\n"))
    for budget, code in ((need, 0), (need - 1, 1)) + (((need // 3, 1),) if early else ()):
        got = cli("run", write("chain.yaml", text.replace(HEAD, HEAD + f"budgets: {{forks: {budget}}}\n")),
                  "p", "--odds", "--json")
        assert got.code == code, (budget, got.text)
        if code == 0:
            assert f'"value": {top}' in got.out and f'"value": {top + 1}' not in got.out
        elif budget == need - 1:
            assert f"more than {need - 1:,} branches (the exact-work budget, `forks`)" in got.err
            assert "those open have" not in got.err
        else:
            assert "makes 2 of them (as those returned did)" in got.err, got.err


def test_the_issues_tree_of_calls_is_answered_at_once_under_odds(cli, write):
    """The issue's case, `boom(n)` calling itself twice per level for 40 levels and
    rolling nothing, under --odds: its calls are left to their callers (deferred.py), and
    a call made again in the same game is answered from what the first one made
    (call_memo.made_ends), so the 2^40 calls are 40 enumerations, answered exactly at once
    (a sampled run makes every call and is stopped by the `steps` budget:
    tests/hostile/test_budgets.py)."""
    text = HEAD + "procedures:\n  boom:\n    params: {n: integer}\n    steps:\n" \
        "      - if: n > 0\n        then:\n          - boom(n - 1)\n          - boom(n - 1)\n" \
        "      - return \"done\"\n"
    got = cli("run", write("boom.yaml", text), "boom", "--with", "n=40", "--odds", "--json")
    assert got.code == 0, got.text
    assert '"done"' in got.out and got.err == "", got.text
    assert got.seconds < 4 and got.wall < WALL_SECONDS, (got.seconds, got.wall)
