"""Numbers: none past MAX_DIGITS digits is ever made (it could not be printed, nor its
mean shown), and infinities and not-a-number never enter a rule.  Each is refused where
it is made or written, with its place, on every path."""
import pytest

from interpreter.limits import MAX_DIGITS

HEAD = "ruleset: numbers\ntitle: numbers\n"
BIG = "1" + "0" * 4000
GROWING = HEAD + """\
kinds:
  f: {stats: {x: 1}, state: {power: 2}}
procedures:
  grow:
    steps:
      - let x = 2
      - repeat:
          - let y = x * x
          - x = y
        until: false
        max: 100
      - return x
  double:
    steps:
      - let x = 2
      - repeat:
          - x = x + x
        until: false
        max: 1000
      - return x
  thirds:
    steps:
      - let x = 1
      - repeat:
          - x = x / 3
        until: false
        max: 1000
      - return x
turn:
  phases:
    - name: p
      each: unit
      steps: ['unit.power *= unit.power']
  max_turns: 100
scenarios:
  default:
    sides:
      a: {policy: first, units: [{kind: f, name: A}]}
      b: {policy: first, units: [{kind: f, name: B}]}
"""
TOO_MANY = f"this makes a number of more than {MAX_DIGITS} digits"


@pytest.mark.parametrize("value,message", [
    (BIG, f"has more than {MAX_DIGITS} digits"),
    ("-" + BIG, f"has more than {MAX_DIGITS} digits"),
    (".inf", "'.inf' is infinite; a rule's numbers are finite"),
    ("-.inf", "'-.inf' is infinite"),
    (".nan", "'.nan' is not a number"),
    (".NaN", "'.NaN' is not a number"),
])
def test_a_rule_file_number_that_no_output_can_show_is_refused_where_it_is_written(
        cli, write, value, message):
    path = write("n.yaml", HEAD + f"parameters:\n  x: {value}\nprocedures:\n  p:\n"
                                  "    steps: ['return floor(x)', ]\n")
    for command in (["validate", path], ["run", path, "p"], ["run", path, "p", "--odds"]):
        result = cli(*command)
        assert result.code == 1 and result.seconds < 5
        assert "n.yaml:4:6: error:" in result.text and message in result.text
        assert "internal error" not in result.text


@pytest.mark.parametrize("procedure,line", [("grow", 10), ("double", 19), ("thirds", 27)])
@pytest.mark.parametrize("how", ["transcript", "compiled", "odds"])
def test_a_value_that_keeps_growing_is_stopped_where_it_passes_the_limit(cli, write, procedure,
                                                                         line, how):
    path = write("n.yaml", GROWING)
    if how == "compiled":
        import random
        from interpreter.errors import LimitError
        from interpreter.game.api import load_ruleset
        with pytest.raises(LimitError) as caught:
            load_ruleset(path).sampler(procedure, {})(random.Random(1))
        assert caught.value.location.line == line and TOO_MANY in caught.value.message
        return
    result = cli("run", path, procedure, *(["--odds"] if how == "odds" else []))
    assert result.code == 1 and result.seconds < 10
    assert f"n.yaml:{line}:" in result.text and TOO_MANY in result.text


@pytest.mark.parametrize("argv", [["play", "--seed", "1"],
                                  ["simulate", "--runs", "3", "--track", "units[0].power"]])
def test_a_growing_unit_field_stops_play_and_simulate(cli, write, argv):
    path = write("n.yaml", GROWING)
    result = cli(argv[0], path, *argv[1:])
    assert result.code == 1 and result.seconds < 10
    assert "n.yaml:35:" in result.text and TOO_MANY in result.text


@pytest.mark.parametrize("command,expression,message", [
    ("roll", "d6 * 1" + "0" * 200, f"a number of more than {MAX_DIGITS} digits"),
    ("odds", "d6 * 1" + "0" * 200, f"a number of more than {MAX_DIGITS} digits"),
    ("roll", "d6 * 1" + "0" * 100 + " * 1" + "0" * 100, TOO_MANY),
    ("odds", "d6 * 1" + "0" * 100 + " * 1" + "0" * 100, TOO_MANY),
    ("roll", "pow(1" + "0" * 60 + ", 64)", f"more than {MAX_DIGITS} digits"),
])
def test_expressions_refuse_numbers_past_the_limit(cli, command, expression, message):
    result = cli(command, expression)
    assert result.code == 1 and message in result.text and "internal error" not in result.text


def test_a_large_number_within_the_limit_prints_everywhere(cli):
    expression = "d6 * 1" + "0" * 140
    for argv in (["roll", expression, "--seed", "1", "--json"], ["odds", expression, "--json"],
                 ["odds", expression], ["roll", expression, "--times", "50", "--seed", "1"]):
        result = cli(*argv)
        assert result.code == 0, result.text
