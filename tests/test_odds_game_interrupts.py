"""Exact whole-game odds of reactions, deferred calls and simultaneous phases
(tests/rulesets/interrupts.yaml), each worked out by hand, and agreeing with `simulate`.

By hand (a shot hits on 4-6, 1/2; a snap shot on 5-6, 1/3; mechs of one hit; two turns):
- exchange (damage deferred to the end of the phase) and volley (damage at once, the
  destruction held by the simultaneous phase): both mechs always fire, so each turn
  ends with both down 1/4 (a draw), red alone standing 1/4, blue alone 1/4, both up
  1/4 (the next turn).  Red: 1/4 + 1/4 * 1/4 = 5/16, blue the same, draw 3/8
  (5/16 both down + 1/16 turn limit); the game lasts one turn 3/4.
- in turn (the combat phase not simultaneous, damage at once): red fires first, and a
  hit ends it before blue fires: red 1/2 a turn, blue 1/2 * 1/2; red 1/2 + 1/4 * 1/2
  = 5/8, blue 1/4 + 1/4 * 1/4 = 5/16, the turn limit 1/16.
- run_past: the runner's move enters two hexes next to the sentry, each a reaction
  point where it is shot at (1/3), the move stopping where it falls: it survives
  (2/3)^2 = 4/9; the guards win 5/9, all in turn 1 (turn 2 passes no one).
"""
from fractions import Fraction as F
from pathlib import Path

import pytest

from interpreter.errors import RulecraftError
from interpreter.game.api import load_ruleset

HERE = Path(__file__).parent
RULES_PATH = HERE / "rulesets" / "interrupts.yaml"
RULES = load_ruleset(RULES_PATH)


def in_turn(tmp_path):
    house = tmp_path / "in-turn.yaml"
    house.write_text(f"ruleset: in-turn\ntitle: attacks in turn\nextends: {RULES_PATH}\n"
                     "change:\n  turn.phases.combat.simultaneous: false\n")
    return load_ruleset(house)


@pytest.mark.parametrize("scenario,winner,turns", [
    ("exchange", {"red": F(5, 16), "blue": F(5, 16), "no winner": F(3, 8)}, {1: F(3, 4), 2: F(1, 4)}),
    ("volley", {"red": F(5, 16), "blue": F(5, 16), "no winner": F(3, 8)}, {1: F(3, 4), 2: F(1, 4)}),
    ("run_past", {"guards": F(5, 9), "no winner": F(4, 9)}, {1: F(5, 9), 2: F(4, 9)}),
])
def test_exact_odds_of_reactions_deferred_calls_and_simultaneous_fire(scenario, winner, turns):
    odds = RULES.odds_game(scenario)
    assert {w: odds.winner.probability(w) for w in odds.winner.values()} == winner
    assert {t: odds.turns.probability(t) for t in odds.turns.values()} == turns


def test_without_a_simultaneous_phase_the_first_to_fire_wins_in_exact_odds(tmp_path):
    odds = in_turn(tmp_path).odds_game("volley")
    assert {w: odds.winner.probability(w) for w in odds.winner.values()} == \
        {"red": F(5, 8), "blue": F(5, 16), "no winner": F(1, 16)}


def test_tracked_expressions_see_the_world_the_reactions_left():
    """Tracked at the end: the sentry always stands; the runner with 4/9."""
    dist = RULES.odds_game("run_past", track=["count(units)"]).tracked["count(units)"]
    assert {v: dist.probability(v) for v in dist.values()} == {1: F(5, 9), 2: F(4, 9)}


@pytest.mark.parametrize("scenario", ["exchange", "volley", "run_past"])
def test_odds_game_with_interrupts_agrees_with_simulate(scenario, agrees_with_simulate):
    """2,000 games, a 99.9% interval (z = 3.29) so that a flaky failure stays rare."""
    agrees_with_simulate(RULES, scenario, 2000, seed=5)


@pytest.mark.parametrize("mode", ["run", "run --odds"])
def test_defer_in_a_procedure_run_alone_is_the_same_error_sampled_and_exact(mode):
    with pytest.raises(RulecraftError, match="works only in a phase of play"):
        if mode == "run":
            RULES.run("held", {}, 1)
        else:
            RULES.run_odds("held", {})


def test_a_procedure_changing_the_game_inside_an_expression_is_refused_in_exact_odds():
    """Sampled, `1 + hurt_once(target)` runs the call (0 hits left, so 1); exact odds
    cannot keep the call's change inside an expression, and say where."""
    assert RULES.run("hurt_in_expression", {}, 1).result == 1
    with pytest.raises(RulecraftError, match=r"hurt_once\(\) changes the game") as err:
        RULES.run_odds("hurt_in_expression", {})
    assert (err.value.location.line, err.value.location.column) == (53, 20)
