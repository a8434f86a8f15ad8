"""A told game runs its quiet calls compiled (run/quiet.py, `Procedure.dsl_call`): the
story, the result alone and the game itself must be what the Step objects give with
every call written out -- for every scenario of every bundled ruleset, house rule and
test ruleset with a turn -- and the lines left out must be exactly the quiet calls' own.
Then which procedures are quiet, rule by rule."""
from __future__ import annotations

import io

import pytest
from games_with_turns import ROOT, scenarios_to_play
from rich.console import Console

from interpreter.errors import RulecraftError
from interpreter.game.api import load_ruleset
from interpreter.render.story import KINDS, StoryTeller
from interpreter.run import codegen, procedures
from interpreter.run.procedures import Procedure
from interpreter.run.quiet import quiet_procedures, runs_quietly

SLOW = ("jugger", "rear-ram")   # a told Jugger game takes a second or more


class Listening(StoryTeller):
    """The story, with every line it is handed kept beside its depth."""

    def __init__(self, console, mode):
        super().__init__(console, mode)
        self.heard: list = []

    def event(self, event, depth):
        self.heard.append((event, depth))
        super().event(event, depth)


def told(rules, scenario, seed, mode):
    """(the printed story, in colour; the game's end, units and dice; the lines heard)."""
    out = io.StringIO()
    teller = Listening(Console(file=out, force_terminal=True, color_system="truecolor",
                               width=100), mode)
    try:
        result = rules.play(scenario, seed, observer=teller)
    except RulecraftError as err:
        return ("error", str(err)), None, teller.heard
    teller.finish(result)
    world = result.world
    end = (result.winner, result.turns, result.reason, result.survivors, result.scores,
           [(u.uid, u.fields, [(s.name, s.turns_left) for s in u.statuses])
            for u in world.units.values()], world.rng.getstate())
    return out.getvalue(), end, teller.heard


def both_ways(monkeypatch, rules, scenario, seed, mode):
    """`told` with every quiet call compiled (the threshold 0), then with none."""
    with monkeypatch.context() as patch:
        patch.setattr(procedures, "QUIET_AFTER", 0)
        quietly = told(rules, scenario, seed, mode)
    with monkeypatch.context() as patch:
        patch.setattr(Procedure, "_runs_quietly", lambda self, world: False)
        every = told(rules, scenario, seed, mode)
    return quietly, every


def placed(heard) -> list:
    """The lines heard, with the depth of those the story places by it."""
    return [(e, d if e["event"] in ("call", "story") else None) for e, d in heard]


@pytest.mark.parametrize("mode", ["story", "quiet"])
@pytest.mark.parametrize("path,scenario", list(scenarios_to_play()))
def test_a_told_game_with_quiet_calls_compiled_is_the_same_story(path, scenario, mode,
                                                                  monkeypatch):
    rules = load_ruleset(ROOT / path)
    quiet = quiet_procedures(rules, chooses=True)   # (no person is asked here)
    slow = any(s in path for s in SLOW)
    for seed in (2,) if slow else (1, 2):
        if scenario == "juggerball" and (mode == "quiet" or "house" in path):
            continue   # (the Jugger's story holds it: a told juggerball takes seconds)
        (text, end, heard), (every_text, every_end, every_heard) = \
            both_ways(monkeypatch, rules, scenario, seed, mode)
        assert text == every_text, (path, scenario, seed)
        assert end == every_end, (path, scenario, seed)
        # what is left out: the `call` lines of quiet procedures, made inside another
        # call where the story reads calls (anywhere where it does not)
        kinds = KINDS[mode]

        def left_out(event, depth):
            return event["event"] == "call" and event.get("procedure") in quiet and \
                (depth >= 1 or "call" not in kinds)
        # (an action's line is written where the compiled call made it, so at the
        # caller's depth: the story places only sentences and calls by their depth)
        assert placed(heard) == placed([(e, d) for e, d in every_heard if not left_out(e, d)]), \
            (path, scenario, seed)


def test_the_trace_and_json_run_no_call_compiled():
    """Every line is read there: nothing may be left out."""
    assert not runs_quietly(None)
    assert runs_quietly(KINDS["story"]) and runs_quietly(KINDS["quiet"])
    assert not runs_quietly(frozenset(("call", "let")))


@pytest.mark.skipif(not codegen.ENABLED, reason="RULECRAFT_NO_CODEGEN is set: a quiet call "
                    "runs its Step objects, whose calls are calls through the story again")
def test_a_quiet_procedure_runs_compiled_once_called_often(monkeypatch):
    """With the threshold as shipped (`QUIET_AFTER`): a quiet procedure's first calls are
    written out, the rest run compiled -- in a Jugger game, the hex helpers -- and the
    story is the same."""
    rules = load_ruleset("jugger")
    quiet = quiet_procedures(rules, chooses=True)
    for procedure in rules.procedures.values():
        monkeypatch.setattr(procedure, "_told_calls", 0)
    text, _, heard = told(rules, None, 1, "story")
    with monkeypatch.context() as patch:
        patch.setattr(Procedure, "_runs_quietly", lambda self, world: False)
        every_text, _, every_heard = told(rules, None, 1, "story")
    assert text == every_text

    def calls(lines):
        counted: dict = {}
        for e, depth in lines:
            if e["event"] == "call" and depth >= 1:
                counted[e["procedure"]] = counted.get(e["procedure"], 0) + 1
        return counted
    written, every = calls(heard), calls(every_heard)
    # at most the first QUIET_AFTER calls of a quiet procedure are written out (calls
    # made by a compiled caller are not calls through the story at all); every call of
    # another is; and in this game most calls are the quiet helpers'
    assert all(n <= procedures.QUIET_AFTER for p, n in written.items() if p in quiet)
    assert all(written.get(p) == n for p, n in every.items() if p not in quiet)
    assert any(every[p] > procedures.QUIET_AFTER for p in quiet if p in every)
    assert sum(written.values()) < sum(every.values()) / 2


QUIET_RULES = """
ruleset: quiet
title: quiet procedures
source: none
kinds:
  piece:
    stats: {hits: 3}
    state: {moved: 0, wrecks: 0}
HOOK
statuses:
  dazed: {modifies: {hits: 1}}
tables:
  bonus:
    key: n
    rows: {"1": 1, "2+": 2}
  extra:
    key: n
    rows: {"1": "=FORMULA", "2+": 0}
procedures:
  gap:
    params: {a: {type: integer}, b: {type: integer}}
    steps: ["return abs(a - b)"]
  nearest:
    params: {unit: {type: unit, kind: piece}}
    steps:
      - let ds = [distance(unit, e) for e in enemies(unit)]
      - return min(ds + [gap(1, 2)])
  counted:
    params: {unit: {type: unit, kind: piece}}
    steps:
      - let n = 0
      - for: e
        in: enemies(unit)
        do: ["n += bonus[2]"]
      - unit.moved = n
      - return n
  repeats:
    params: {}
    steps:
      - let n = 0
      - repeat: ["n += 1"]
        until: n >= 3
        max: 5
      - return n
  told:
    params: {a: {type: integer}}
    steps: ["return a"]
    narrate: {otherwise: "told {a}"}
  calls_told:
    params: {a: {type: integer}}
    steps: ["return told(a)"]
  emits:
    params: {}
    steps: ["emit 1"]
  chooses:
    params: {unit: {type: unit, kind: piece}}
    steps:
      - choose: e
        from: enemies(unit)
        by: unit
      - return e
  rolls:
    params: {unit: {type: unit, kind: piece}}
    steps:
      - roll: hit
        dice: d6
        by: unit
        against: unit
        wanted: hit >= 4
      - return hit
  hurts:
    params: {unit: {type: unit, kind: piece}}
    steps: ['apply(unit, "dazed", turns=1)']
  calls_hurts:
    params: {unit: {type: unit, kind: piece}}
    steps: ["hurts(unit)"]
  destroys:
    params: {unit: {type: unit, kind: piece}}
    steps: ["destroy(unit)"]
"""
DESTROYED_HOOK = "    on: {destroyed: ['holder.wrecks += 1']}"


@pytest.mark.parametrize("procedure,quiet,where_no_one_is_asked", [
    ("gap", True, True),             # arithmetic and a built-in function
    ("nearest", True, True),         # actions that read the game, a quiet procedure
    ("counted", True, True),         # a loop, a table, a field set
    ("repeats", True, True),         # a repeat with its max (its limit line is the
    #                                  compiled code's too)
    ("hurts", True, True),           # a status: the action writes its line itself
    ("calls_hurts", True, True),
    ("destroys", True, True),        # ... and so does destroy(), with no hook to run
    ("told", False, False),          # a narrate: sentence is the Step's to tell
    ("calls_told", False, False),    # ... and so is a call of one
    ("emits", True, True),           # an emit line: the compiled code writes it too
    ("chooses", False, True),        # a choice, unless a person may be asked it
    ("rolls", False, False),         # a roll: step, whose hooks write their lines
])
def test_which_procedures_are_quiet(tmp_path, procedure, quiet, where_no_one_is_asked):
    path = tmp_path / "quiet.yaml"
    path.write_text(QUIET_RULES.replace("FORMULA", "1").replace("HOOK", ""))
    rules = load_ruleset(path)
    assert (procedure in quiet_procedures(rules)) is quiet
    assert (procedure in quiet_procedures(rules, chooses=True)) is where_no_one_is_asked


def test_destroy_with_a_hook_to_run_is_not_quiet(tmp_path):
    path = tmp_path / "quiet.yaml"
    path.write_text(QUIET_RULES.replace("FORMULA", "1").replace("HOOK", DESTROYED_HOOK))
    quiet = quiet_procedures(load_ruleset(path))
    assert "destroys" not in quiet and "hurts" in quiet


@pytest.mark.parametrize("formula,quiet", [
    ("2", True),                 # a plain value
    ("max(1, n)", True),         # a formula of built-in functions
    ("told(1)", False),          # a formula calling a narrating procedure: no call is,
])                               # since a field or a row read by a step may call it
def test_a_formula_that_tells_makes_no_call_quiet(tmp_path, formula, quiet):
    path = tmp_path / "quiet.yaml"
    path.write_text(QUIET_RULES.replace("FORMULA", formula).replace("HOOK", ""))
    assert ("gap" in quiet_procedures(load_ruleset(path))) is quiet


def test_an_action_that_changes_nothing_writes_no_line_and_runs_no_steps():
    """A told game lets a quiet procedure call any action that does not change the
    game (run/quiet.py): a new one that wrote a line or ran rule steps would be told
    out of its place.  (A tripwire on their source: no log, no call, no reactor.)"""
    import inspect

    from interpreter.state.builtins import ACTIONS
    for name, action in ACTIONS.items():
        if action.mutates:
            continue
        source = inspect.getsource(action.fn)
        assert ".log(" not in source and "dsl_call" not in source \
            and "reactor" not in source and "run_steps" not in source, name


TWO_MEN = """
scenarios:
  default:
    sides:
      a: {units: [{kind: man, name: A}]}
      b: {units: [{kind: man, name: B}]}
"""
FAILING = """
ruleset: failing_quietly
title: quiet helpers that fail inside a told game
source: none
budgets: {steps: 2000}
kinds:
  man:
    stats: {armour: 5}
    state: {hits: 0}
procedures:
  deeper:
    params: {n: {type: integer}}
    steps:
      - if: n < 0
        then: ["return 0"]
      - return deeper(n + 1)
  spend:
    params: {n: {type: integer}}
    steps:
      - let t = 0
      - repeat: ["t += d6"]
        until: t < 0
        max: 10000
      - return t
  divide:
    params: {by: {type: integer}}
    steps: ["return 10 / by"]
  act:
    params: {unit: {type: unit, kind: man}}
    steps:
      - unit.hits += 1
      - if: unit.hits >= 2
        then: ["return HELPER"]
      - return 0
    narrate: {otherwise: "{unit.name} acts"}
turn:
  phases:
    - name: acting
      each: unit
      steps: ["act(unit)"]
  max_turns: 3
""" + TWO_MEN


@pytest.mark.parametrize("helper", ["deeper(1)", "spend(1)", "divide(0)"])
def test_a_quiet_call_that_fails_fails_as_the_steps_do(tmp_path, monkeypatch, helper):
    """Past the call-depth limit, out of steps, a division by zero: the compiled quiet
    call stops the told game with the error, the place and the story so far of the
    Step objects."""
    path = tmp_path / "failing.yaml"
    path.write_text(FAILING.replace("HELPER", helper))
    rules = load_ruleset(path)
    assert {"deeper", "spend", "divide"} <= quiet_procedures(rules, chooses=True)
    quietly, every = both_ways(monkeypatch, rules, None, 1, "story")
    assert quietly[0][0] == "error" and quietly[0] == every[0]
    assert placed(quietly[2]) == placed([(e, d) for e, d in every[2]
                                         if not (e["event"] == "call" and d >= 1)])


WRITING = """
ruleset: writing_quietly
title: quiet helpers whose lines the story tells
source: none
kinds:
  man:
    stats: {armour: 5}
    state: {hits: 0}
statuses:
  dazed: {description: hit on the head}
procedures:
  shout:
    params: {unit: {type: unit, kind: man}, n: {type: integer}}
    steps:
      - 'emit unit.name + " shouts " + text(n)'
      - if: n > 1
        then: ['apply(unit, "dazed", turns=1)', "score(side(unit), n)"]
      - return n
  act:
    params: {unit: {type: unit, kind: man}}
    steps:
      - unit.hits += 1
      - let n = shout(unit, d3)
      - return n
    narrate: {otherwise: "{unit.name} acts ({result})"}
  wander:
    params: {unit: {type: unit, kind: man}}
    steps: ["shout(unit, 1)"]
turn:
  phases:
    - name: acting
      each: unit
      steps: ["act(unit)", "wander(unit)"]
  max_turns: 3
""" + TWO_MEN


def test_a_quiet_calls_own_story_lines_are_told_in_their_place(tmp_path, monkeypatch):
    """A quiet helper that emits, gives a status and scores, inside a narrated call and
    inside an unnarrated one: compiled, it writes those lines where the Steps would."""
    path = tmp_path / "writing.yaml"
    path.write_text(WRITING)
    rules = load_ruleset(path)
    assert "shout" in quiet_procedures(rules, chooses=True)
    for seed in range(1, 6):
        (text, end, heard), (every_text, every_end, every_heard) = \
            both_ways(monkeypatch, rules, None, seed, "story")
        assert (text, end) == (every_text, every_end), seed
        assert "shouts" in text and placed(heard) == placed(
            [(e, d) for e, d in every_heard if not (e["event"] == "call" and d >= 1)])
