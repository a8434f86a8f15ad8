"""`turns_left` assigned on a status value (issue #13): a trigger's `status`, one of
`statuses_of(...)`, in procedures, phases and triggers alike; sampled runs and exact
odds agree, and what cannot be written is a located error
(tests/rulesets/status_counters.yaml)."""
import random
from pathlib import Path

import pytest

from interpreter.errors import RulecraftError
from interpreter.expr.values import json_value
from interpreter.game.api import load_ruleset

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(HERE / "rulesets" / "status_counters.yaml")


@pytest.fixture(scope="module")
def game(rules):
    return [(e["turn"], e["text"]) for e in rules.play(None, 1).events if "Pump" in e["text"]]


@pytest.mark.parametrize("procedure,outcomes", [
    ("doused", [[1, 4]]),                                     # only the first fire changed
    ("stoked", [[[1 + d, 2]] for d in range(1, 7)]),          # += d6: six branches, exactly
])
def test_assigned_turns_left_is_the_counter_read_back(rules, procedure, outcomes):
    odds = rules.run_odds(procedure, {}).outcomes
    assert sorted(json_value(v) for v, _ in odds.items()) == outcomes
    assert {w for _, w in odds.items()} == {1}
    assert json_value(rules.run(procedure, {}, 3).result) in outcomes
    assert json_value(rules.sampler(procedure, {})(random.Random(3))) in outcomes   # compiled


@pytest.mark.parametrize("procedure,message,line", [
    ("forever_plus", "lasts for the game: it has no turns left to change with '+='", 46),
    ("below_zero", "turns_left must be a whole number of at least 0, got the number -1", 53),
    ("renamed", "a status's name cannot be changed", 60),
    ("misspelt", "has no field 'sise'", 67),
])
def test_what_a_status_cannot_hold_is_a_located_error(rules, procedure, message, line):
    for run in (lambda: rules.run(procedure, {}, 1), lambda: rules.run_odds(procedure, {})):
        with pytest.raises(RulecraftError) as caught:
            run()
        assert message in caught.value.message
        assert (caught.value.location.line, caught.value.location.column) == (line, 9)


def test_a_phase_shortens_a_fire_and_it_ends_at_that_turns_end(game):
    # burning for 4 turns from turn 1; set to 1 in turn 2: it burns at the end of 2, then ends
    assert (2, "Pump's burning.turns_left: 4 → 1") in game
    assert (2, "Pump is no longer burning") in game
    assert not any(t.startswith("Pump's burning") for turn, t in game if turn > 2)


def test_a_trigger_sets_its_own_statuss_counter(game):
    # smouldering is for the game; its start_of_turn trigger gives it 2 turns every turn,
    # and the countdown takes one at each end of turn: it reads 1 at every later trigger
    assert (2, "Pump's smouldering (for the game) fires at start_of_turn") in game
    assert [t for turn, t in game if turn == 4 and "smouldering" in t] == [
        "Pump's smouldering (1 turn left) fires at start_of_turn",
        "Pump's smouldering.turns_left: 1 → 2"]


@pytest.mark.parametrize("seed", [1, 3])
def test_the_compiled_game_ends_in_the_world_the_recorded_game_ends_in(seed):
    from interpreter.game.play import play
    rules = load_ruleset(HERE / "rulesets" / "status_counters.yaml")
    assert play(rules, None, seed, record=False).world.snapshot() == \
        play(rules, None, seed, record=True).world.snapshot()
