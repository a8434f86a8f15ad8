"""Careless rules that used to pass silently: a negative duration taken from state, a
formula cell that fails (`=1/0`) printed as its text."""
import pytest

HEAD = "ruleset: careless\ntitle: careless\n"


@pytest.mark.parametrize("turns,message", [
    ("unit.delay", "a number of turns cannot be negative, got -3"),
    ("-1", "a number of turns cannot be negative, got -1"),
    ("5/2", "a number of turns must be a whole number"),
])
def test_a_duration_must_be_a_whole_number_of_turns_not_below_zero(cli, write, turns, message):
    rule = HEAD + f"""\
kinds:
  f: {{stats: {{x: 1}}, state: {{delay: -3}}}}
statuses:
  shaken: {{description: may not move}}
procedures:
  p:
    params: {{unit: {{type: unit, kind: f}}}}
    steps:
      - apply(unit, "shaken", turns={turns})
      - return "done"
"""
    result = cli("run", write("c.yaml", rule), "p", "--seed", "1")
    assert result.code == 1 and message in result.text
    assert "c.yaml:11:" in result.text


def test_a_status_renewed_for_negative_turns_from_state_is_refused(cli, write):
    rule = HEAD + """\
kinds:
  f: {stats: {x: 1}, state: {delay: -3}}
statuses:
  shaken:
    on:
      end_of_turn: ["renew(holder, status, turns=holder.delay)"]
turn:
  max_turns: 2
  phases:
    - name: rattle
      each: unit
      steps: ['apply(unit, "shaken", turns=1)']
scenarios:
  default:
    sides:
      a: {units: [{kind: f, name: A}]}
"""
    result = cli("play", write("c.yaml", rule), "--seed", "1")
    assert result.code == 1 and "a number of turns cannot be negative, got -3" in result.text
    assert "c.yaml:8:" in result.text


def test_zero_turns_is_accepted(cli, write):
    rule = HEAD + """\
kinds:
  f: {stats: {x: 1}}
statuses:
  shaken: {description: may not move}
procedures:
  p:
    params: {unit: {type: unit, kind: f}}
    steps: ['apply(unit, "shaken", turns=0)', 'return "done"']
"""
    assert cli("run", write("c.yaml", rule), "p", "--seed", "1").code == 0


@pytest.mark.parametrize("cell,message", [
    ("=1/0", "division by zero"),
    ("=1 - [2]", "cannot apply '-'"),
])
@pytest.mark.parametrize("fmt", ["rich", "md", "json"])
def test_a_formula_cell_that_fails_is_an_error_not_its_text(cli, write, cell, message, fmt):
    rule = HEAD + f"""\
tables:
  t:
    roll: d6
    columns: {{v: number}}
    rows:
      "1-6": {{v: "{cell}"}}
"""
    result = cli("tables", write("c.yaml", rule), "--format", fmt)
    assert result.code == 1 and message in result.text
    assert "c.yaml:8:" in result.text
