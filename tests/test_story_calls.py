"""A `narrate:` template may call a procedure that words a value (`{need(weapon)}`), so
the story reads numbers from the rule's tables instead of repeating them. The call is part
of the sentence, not of the game: it writes no transcript event of its own, and a
procedure that would change the game is a located error, never a silent change."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

RULESET = """\
ruleset: story_calls
title: a story that words a number through a procedure
source: none
tables:
  weapons:
    key: weapon
    columns:
      first: {type: integer}
    rows:
      rifle: {first: 5}
procedures:
  need:
    params:
      weapon: {type: text, default: rifle}
    steps:
      - let first = weapons[weapon].first
      - return if first == 6 then "a 6" else text(first) + "-6"
  mark:
    params:
      who: {type: unit}
    steps:
      - who.marks += 1
      - return "marked"
  shoot:
    params:
      who: {type: unit}
    steps:
      - return 2
    narrate: '{who.name} fires, {HOLE} hits: {result}'
kinds:
  man:
    state: {marks: 0}
turn:
  phases:
    - name: fire
      each: unit
      steps: ["shoot(unit)"]
  max_turns: 1
scenarios:
  default:
    sides:
      a: {policy: first, units: [{kind: man, name: A}]}
      b: {policy: first, units: [{kind: man, name: B}]}
"""


def play(path, *args):
    return subprocess.run([sys.executable, "-m", "interpreter", "play", str(path), "--seed", "1",
                           *args], capture_output=True, text=True, timeout=60)


@pytest.fixture
def ruleset(tmp_path):
    def write(hole):
        path = tmp_path / "story_calls.yaml"
        path.write_text(RULESET.replace("HOLE", hole))
        return path
    return write


def test_a_called_procedure_words_the_story_and_logs_nothing(ruleset):
    out = play(ruleset('need("rifle")'), "--json")
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    said = [e["text"] for e in events if e["event"] == "story"]
    assert said == ["A fires, 5-6 hits: 2", "B fires, 5-6 hits: 2"]
    called = [e["procedure"] for e in events if e["event"] == "call"]
    assert called == ["shoot", "shoot"]                 # need() is not an event of the game


def test_a_template_may_not_change_the_game_through_a_call(ruleset):
    path = ruleset("mark(who)")
    out = play(path)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "internal error" not in out.stderr
    assert "a procedure called here changed the game" in out.stderr
    assert f"{path}:" in out.stderr


def _shoot_template(path):
    from interpreter.game.api import load_ruleset
    rules = load_ruleset(str(path))
    ruleset = getattr(rules, "ruleset", rules)
    return ruleset.procedures["shoot"].narrate.templates()[0], ruleset


@pytest.mark.parametrize("hole,reads", [
    ("weapons[\"rifle\"].first", True),          # a lookup and a field: reads only
    ("max(1, weapons[\"rifle\"].first)", True),  # a built-in function
    ("sum([n * 2 for n in [1, weapons[\"rifle\"].first]])", True),   # a comprehension
    ("let n = weapons[\"rifle\"].first in n + 1", True),             # a let ... in
    ("sum([need(w) for w in [\"rifle\"]])", False),   # ... of a call: the snapshots
    ('need("rifle")', False),                    # a procedure: the snapshots are taken
    ("mark(who)", False)])
def test_a_template_that_only_reads_needs_no_snapshot(ruleset, hole, reads):
    from interpreter.run.narration import _reads_only
    template, rules = _shoot_template(ruleset(hole))
    assert _reads_only(template, rules) is reads


def test_a_formula_cell_that_calls_keeps_the_snapshots(tmp_path):
    """A hole's field read can evaluate a table's formula cell; one that calls anything
    makes every template of the ruleset checked as before."""
    from interpreter.run.narration import _reads_only
    path = tmp_path / "story_calls.yaml"
    path.write_text(RULESET.replace("HOLE", 'weapons["rifle"].first').replace(
        "rifle: {first: 5}", "rifle: {first: 5}\n      pistol: {first: \"=need()\"}"))
    template, rules = _shoot_template(path)
    assert _reads_only(template, rules) is False
    out = play(path)
    assert out.returncode == 0, out.stderr
