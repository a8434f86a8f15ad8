"""The whole-game exact driver's savings change no answer (game/odds_game.py): the
initiative rankings remembered across states (by the rolls' distributions), the victory
verdicts remembered by world, turn and phase, and the order of a turn forgotten at its
end when the next turn rolls initiative again.  Every odds-game scenario of the test
rulesets, worked out with the savings and without them, gives the same exact
distributions, and the savings never hold more states."""
from pathlib import Path

import pytest

from interpreter.game import odds_game
from interpreter.game.api import load_ruleset

HERE = Path(__file__).parent / "rulesets"

SCENARIOS = [
    ("capture.yaml", "default"),
    ("end_turn.yaml", "default"),
    ("end_turn.yaml", "one"),
    ("exact_scale.yaml", "winch"),
    ("initiative.yaml", "default"),
    ("initiative.yaml", "per_unit"),
    ("initiative.yaml", "winner_goes_last"),
    ("initiative.yaml", "winner_tosses"),
    ("initiative.yaml", "one_reroll"),
    ("initiative.yaml", "three"),
    ("interrupts.yaml", "exchange"),
    ("interrupts.yaml", "volley"),
    ("interrupts.yaml", "run_past"),
    ("reactions.yaml", "default"),
    ("reactions.yaml", "duel"),
    ("reactions.yaml", "volley"),
    ("rerolls.yaml", "default"),
    ("stat_formulas.yaml", "default"),
]


def without_savings(monkeypatch):
    """The driver as it was: every state's initiative and victory worked out afresh,
    the order of each turn kept to the end."""
    real = odds_game.initiative_odds
    monkeypatch.setattr(odds_game, "initiative_odds", lambda rules, b, known=None: real(rules, b))
    monkeypatch.setattr(odds_game.ExactGame, "_verdicts", lambda self, b: self._check(b, 0, 0))
    monkeypatch.setattr(odds_game.ExactGame, "_forget_order", lambda self, states: states)


def exact_of(odds):
    return (odds.winner.items(), odds.turns.items(),
            {k: d.items() for k, d in odds.survivors.items()},
            {k: d.items() for k, d in odds.tracked.items()})


@pytest.mark.parametrize("ruleset,scenario", SCENARIOS)
def test_the_drivers_savings_give_the_same_exact_odds(ruleset, scenario, monkeypatch):
    rules = load_ruleset(HERE / ruleset)
    track = ["count(units)"]
    saved = rules.odds_game(scenario, track=track)
    with monkeypatch.context() as m:
        without_savings(m)
        plain = rules.odds_game(scenario, track=track)
    assert exact_of(saved) == exact_of(plain)
    assert saved.largest <= plain.largest


ROLLED_EVERY_TURN = """
ruleset: order-each-turn
title: the order rolled every turn, read by nothing after the turn
kinds:
  pilot:
    state: {acted: 0}
turn:
  initiative: {roll: d4, per: side, order: highest_first, ties: reroll, when: turn}
  phases:
    - name: act
      each: unit
      steps: ['unit.acted += 1']
  victory:
    - when: count([u for u in side.units if u.acted >= 9]) > 0
      winner: side
  max_turns: 3
scenarios:
  default:
    sides:
      red: {policy: first, units: [{kind: pilot, name: Ace}]}
      blue: {policy: first, units: [{kind: pilot, name: Bo}]}
"""


def test_a_turns_order_is_forgotten_when_the_next_turn_rolls_again(tmp_path, monkeypatch):
    """Each turn ends in the same state whoever went first: one state held, not two
    (one per order), and the same certain draw after 3 turns."""
    path = tmp_path / "order.yaml"
    path.write_text(ROLLED_EVERY_TURN)
    rules = load_ruleset(path)
    saved = rules.odds_game()
    with monkeypatch.context() as m:
        without_savings(m)
        plain = rules.odds_game()
    assert exact_of(saved) == exact_of(plain) == ([("no winner", 1)], [(3, 1)], {"red": [(1, 1)], "blue": [(1, 1)]}, {})
    assert (saved.largest, plain.largest) == (1, 2)
