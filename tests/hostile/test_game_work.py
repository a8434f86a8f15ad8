"""Exact work in a turn of `odds-game` (issue #20): one state's steps of a phase for one
unit or side may work what one procedure's odds may (`forks`), the whole turn
FORKS_PER_TURN times that, and a part of the turn played in many states is foreseen
from its first states (game/odds_game.py).  The Jugger duel, the largest bundled game
worked out exactly, computes unchanged: its fourth turn weighs 378,085 in segments of
1,814 at most (benchmarks/README.md, calib)."""
import json
from fractions import Fraction

import pytest

from interpreter.errors import LimitError
from interpreter.game.odds_game import ExactGame
from interpreter.limits import FORKS_PER_TURN, MAX_FORKS
from interpreter.run.frames import Branch, Enumeration

# CPU seconds a refusal may take: about 0.3 s in this process at idle (the turn's whole
# budget was 12 s at load 8); a loaded machine nearly triples it
CPU_SECONDS = 3.0

ONE_SEGMENT = """ruleset: hostile-game
title: one unit's phase whose work passes the budget
kinds:
  pilot:
    state: {t: 0}
turn:
  phases:
    - name: act
      each: unit
      steps:
""" + "".join("        - unit.t += d100\n" for _ in range(30)) + """  victory:
    - when: count([u for u in side.units if u.t >= 99999]) > 0
      winner: side
  max_turns: 3
scenarios:
  default:
    sides:
      red: {policy: first, units: [{kind: pilot, name: Ace}]}
      blue: {policy: first, units: [{kind: pilot, name: Bo}]}
"""


def test_one_units_phase_past_the_budget_is_refused_at_the_procedure_budget(cli, write):
    """Thirty `unit.t += d100` in one unit's phase: refused once they pass `forks`
    (150,000), not the turn's FORKS_PER_TURN times that."""
    path = write("game.yaml", HEAD_WARM)
    cli("odds-game", path)   # the grammar and the schema loaded
    got = cli("odds-game", write("game.yaml", ONE_SEGMENT))
    assert got.code == 1, got.text
    assert "game.yaml:13:11: error: odds-game stopped in turn 1 (act): exact odds would " \
           f"work out more than {MAX_FORKS:,} branches (the exact-work budget, `forks`)" \
        in got.err, got.err
    assert "Traceback" not in got.text
    assert got.seconds < CPU_SECONDS, got.seconds


HEAD_WARM = ONE_SEGMENT.replace("".join("        - unit.t += d100\n" for _ in range(30)),
                                "        - unit.t += d2\n")


def driver(works):
    """An ExactGame as far as its turn's budget goes, whose `in_state` does `works[i]`
    units of work in the i-th state."""
    game = ExactGame.__new__(ExactGame)
    game.run = Enumeration({})
    game.turn_budget = game.run.work_limit * FORKS_PER_TURN
    game.turn_work, game.loc = 0, None
    states = [Branch(Fraction(1), run=game.run) for _ in works]
    seen = []

    def in_state(b):
        seen.append(b)
        game.run.work += works[len(seen) - 1]
        return []
    return game, states, in_state, seen


def test_a_part_of_the_turn_played_in_many_states_is_foreseen_from_its_first():
    """100 states each working 50,000 (5,000,000 against the turn's budget): refused
    after FORESEE_AFTER states, with what the rest would work."""
    game, states, in_state, seen = driver([50_000] * 100)
    with pytest.raises(LimitError) as err:
        game.each(states, in_state)
    assert len(seen) == 4
    assert f"more than {MAX_FORKS * FORKS_PER_TURN:,} branches" in err.value.message
    assert "after 200,000 in this turn, the 96 states still to play this part of it would " \
           "work at least 4,800,000 more (50,000 or more each, as the last 2 did)" \
        in err.value.message


TURN = MAX_FORKS * FORKS_PER_TURN   # the turn's budget
NINTH = TURN // 9


@pytest.mark.parametrize("works", [
    [TURN // 900] * 800 + [0] * 10,          # 8/9 of the turn's budget in all
    [10] * 4 + [NINTH] * 8,                  # the heavy states last: 8/9 and 40
    [NINTH] * 2 + [1] * 4 + [NINTH] * 6,     # a light stretch between
], ids=["even", "heavy last", "light between"])
def test_a_turn_within_its_budget_is_not_refused_by_the_forecast(works):
    game, states, in_state, seen = driver(works)
    game.each(states, in_state)
    assert len(seen) == len(works)


def test_the_forecast_is_a_lower_envelope_of_recent_states_only():
    """Its limit, as the loop forecast's: heavy states followed by light ones (8/9 of
    the turn's budget and 92 in all) are refused when the recent ones say the rest would
    pass the budget; a game that means it raises `forks`."""
    game, states, in_state, seen = driver([NINTH] * 8 + [1] * 92)
    with pytest.raises(LimitError):
        game.each(states, in_state)
    assert len(seen) == 4


SCENARIO_FORKS = """ruleset: scenario-forks
title: a scenario whose turns mean more exact work than the ruleset's
budgets: {forks: 2000}
kinds:
  pilot:
    state: {t: 0}
turn:
  phases:
    - name: act
      each: unit
      steps:
        - unit.t += d20
  victory:
    - when: count([u for u in side.units if u.t >= 99999]) > 0
      winner: side
  max_turns: 1
scenarios:
  default:
    sides: &sides
      red: {policy: first, units: [{kind: pilot, name: Ace}]}
      blue: {policy: first, units: [{kind: pilot, name: Bo}]}
  big:
    budgets: {forks: 20000}
    sides: *sides
"""


def test_a_scenario_may_raise_the_budget_of_its_turns(cli, write):
    """Each segment fits the ruleset's `forks` (2,000), the turn does not: the default
    scenario is refused, the scenario that says `budgets: {forks: 20000}` computes."""
    path = write("game.yaml", SCENARIO_FORKS)
    refused = cli("odds-game", path)
    assert refused.code == 1, refused.text
    assert "game.yaml:12:11: error: odds-game stopped in turn 1 (act): exact odds of one turn " \
           "would work out more than 2,000 branches" in refused.err, refused.err
    # the hint names both places, the scenario by its name
    assert "raise the budget with `budgets: {forks: N}` in the ruleset, or for this scenario " \
           "alone in `scenarios: {default: {budgets: {forks: N}}}` (at most 20,000,000)" \
        in refused.err, refused.err
    big = cli("odds-game", path, "--scenario", "big", "--json")
    assert big.code == 0, big.text
    assert json.loads(big.out)["winner"] == [
        {"value": "no winner", "probability": "1", "percent": 100.0}]
    # and what it says works: the default scenario's own budget
    raised = SCENARIO_FORKS.replace("  default:\n    sides:", "  default:\n    budgets: {forks: "
                                    "20000}\n    sides:")
    own = cli("odds-game", write("own.yaml", raised), "--json")
    assert own.code == 0, own.text
    assert json.loads(own.out)["winner"] == json.loads(big.out)["winner"]
