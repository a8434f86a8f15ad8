"""Rules that need themselves (issue #20): derived stats and state formulas defined by
each other, and procedures that call themselves on every path, are found by `validate`
with their place (and refused the same way by every command that loads the file); a
procedure whose base case comes too late reaches the call-depth limit under --odds as
it does when sampled, whether its call is a statement or inside an expression."""
import pytest

HEAD = "ruleset: cycles\ntitle: cycles\n"
DERIVED = HEAD + """\
kinds:
  f:
    stats: {x: 1}
    derived: {a: b + 1, b: a + 1}
procedures:
  p:
    params: {u: {type: unit, kind: f}}
    steps: ['return u.a']
"""
STATE = HEAD + """\
kinds:
  f:
    stats: {sc: 2}
    state: {hits: =hits + sc * 20}
procedures:
  p:
    params: {u: {type: unit, kind: f}}
    steps: ['return u.hits']
"""
NO_END = HEAD + """\
procedures:
  p:
    params: {n: integer}
    steps:
      - if: n > 0
        then: ["let r = q(n - 1)"]
        else: ["let r = q(n)"]
      - return r
  q:
    params: {n: integer}
    steps: ['return p(n)']
"""
# name: (rule file, the place and message of the first error)
CASES = {
    "derived stats defined by each other": (
        DERIVED, "c.yaml:6:15: error: kind 'f': the formula of 'a' needs its own value"),
    "a state formula that needs itself": (
        STATE, "c.yaml:6:13: error: kind 'f': the formula of 'hits' needs its own value"),
    "procedures that call each other on every path": (
        NO_END, "c.yaml:4:3: error: procedure 'p' calls itself on every path (p → q → p), "
                "so it can never finish"),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("argv", [["validate"], ["run", "p", "--with", "n=3"],
                                  ["run", "p", "--with", "n=3", "--odds"]],
                         ids=["validate", "run", "odds"])
def test_a_rule_that_needs_itself_is_found_before_it_runs(cli, write, name, argv):
    text, said = CASES[name]
    path = write("c.yaml", text)
    got = cli(argv[0], path, *argv[1:])
    assert got.code == 1, got.text
    assert said in got.text, got.text
    assert "nests too deeply" not in got.text and "Traceback" not in got.text
    assert got.seconds < 5, got.seconds


LATE = HEAD + """\
procedures:
  p:
    params: {n: integer}
    steps:
      - if: n > 1000
        then: ['return 0']
      - STEP
"""


@pytest.mark.parametrize("step,where", [
    ("return p(n + 1) + 1", "9:16"),
    ("let t = p(n + 1)\n      - return t", "9:17"),
], ids=["inside an expression", "bound to a let"])
@pytest.mark.parametrize("odds", [False, True], ids=["sampled", "odds"])
def test_a_base_case_out_of_reach_stops_at_the_call_depth_limit(cli, write, step, where, odds):
    path = write("c.yaml", LATE.replace("STEP", step))
    got = cli("run", path, "p", "--with", "n=0", *(["--odds"] if odds else []))
    assert got.code == 1, got.text
    assert f"c.yaml:{where}: error: procedures call each other more than 50 deep" in got.err
    assert got.seconds < 5, got.seconds
