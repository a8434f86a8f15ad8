"""Statuses that stack by their declared rule, and the status lifecycle, one test per
sentence of "Status lifecycle" in docs/rule-format.md (tests/rulesets/statuses.yaml)."""
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.errors import RulecraftError
from interpreter.expr.values import json_value
from interpreter.game.api import load_ruleset

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(HERE / "rulesets" / "statuses.yaml")


@pytest.fixture(scope="module")
def game(rules):
    """Seed 3: the winch rolls 2 (roll again) in turn 2 and 4 (the rope snaps) in turn 3."""
    return rules.play(None, 3)


def lines(game, turn=None):
    return [(e["turn"], e["text"]) for e in game.events if turn is None or e["turn"] == turn]


def texts(game, turn):
    return [t for _, t in lines(game, turn)]


# ---------------------------------------------------------------- stacking rules

# a status given for 3 turns, then for 1 turn: (instances, their turns left)
@pytest.mark.parametrize("which,expected", [
    ("stunned", [1, [1]]),      # replace: the new one replaces the old
    ("pinned", [1, [3]]),       # keep_longest: the 3 turns stay
    ("slowed", [1, [4]]),       # add: 3 + 1
    ("burning", [2, [3, 1]]),   # separate: two instances, each with its own counter
])
def test_stacking_rule_decides_what_a_second_application_does(rules, which, expected):
    assert rules.run("stacked", {"which": which}, 1).result == expected
    odds = rules.run_odds("stacked", {"which": which}).outcomes
    assert [json_value(v) for v, _ in odds.items()] == [expected]


def test_two_fire_pumps_burn_as_two_fires_with_their_own_counters(rules):
    assert rules.run("fire_pumps", {}, 1).result == [2, [4, 1]]


def test_keep_longest_counts_for_the_game_as_longest(rules):
    assert rules.run("longest_for_the_game", {}, 1).result == -1


def test_removing_one_instance_leaves_the_other_burning(rules):
    run = rules.run("put_out_one", {}, 1)
    assert run.result == [1]
    assert "one burning on target ends (1 more)" in [e["text"] for e in run.events]


def test_two_fires_for_1d6_turns_each_burn_2d6_turns_in_all(rules):
    odds = rules.run_odds("fire_for_d6", {}).outcomes
    two_d6 = {s: Fraction(6 - abs(s - 7), 36) for s in range(2, 13)}
    assert {v: Fraction(w, odds.total) for v, w in odds.items()} == two_d6


# ---------------------------------------------------------------- use counts

def test_use_counts_are_kept_per_weapon(rules):
    assert rules.run("fire_pump_shots", {}, 1).result == [3, 1, 0]


def test_a_once_per_turn_ability_used_twice_is_an_error(rules):
    with pytest.raises(RulecraftError, match="has used ram 1 time this turn already"):
        rules.run("ram_twice", {}, 1)


# ---------------------------------------------------------------- the lifecycle

def test_a_status_given_now_has_effect_at_once(rules):
    # fire_pumps reads both fires back in the same step list that gave them
    assert rules.run("fire_pumps", {}, 1).result[0] == 2


def test_a_status_from_next_turn_has_no_effect_until_that_turn_starts(game):
    assert "shaken now? false" in texts(game, 1)
    assert "shaken now? true" in texts(game, 2)


def test_a_trigger_first_fires_at_the_first_event_after_the_status_was_given(game):
    # burning, given during turn 1's action phase, fires at the end of turn 1
    assert "Pump's burning (2 turns left) fires at end_of_turn" in texts(game, 1)


def test_a_status_given_by_a_trigger_does_not_fire_at_that_same_event(game):
    # spark (start_of_turn) gives glow (start_of_turn) in turn 2: glow fires from turn 3
    two, three = texts(game, 2), texts(game, 3)
    assert "Pump is glow for 2 turns" in two
    assert not any(t.startswith("glow on Pump") for t in two)
    assert "glow on Pump: 2 left" in three


def test_triggers_never_fire_on_a_destroyed_holder(game):
    assert not any(t.startswith("Wreck's") for _, t in lines(game))


def test_a_destroyed_holders_status_still_counts_down(game):
    # burning for 3 turns given in turn 1: it ends at the end of turn 4
    assert "Wreck is no longer burning" in texts(game, 4)


@pytest.mark.parametrize("turn,expected", [
    (1, "Pump's burning (2 turns left) fires at end_of_turn"),   # not counted in its own turn
    (2, "Pump's burning (2 turns left) fires at end_of_turn"),   # counted after the trigger
    (3, "Pump's burning (1 turn left) fires at end_of_turn"),
])
def test_turns_left_goes_down_at_the_end_of_every_later_turn(game, turn, expected):
    assert expected in texts(game, turn)


def test_turns_1_lasts_to_the_end_of_the_next_turn(game):
    # burning for 1 turn (size 3) given in turn 1 burns at the end of turns 1 and 2
    burns = [turn for turn, t in lines(game) if t == "Pump's burning (1 turn left) fires at end_of_turn"]
    assert burns[:2] == [1, 2]
    assert "Pump.hits: 9 → 6 (-= 3)" in texts(game, 1) and "Pump.hits: 5 → 2 (-= 3)" in texts(game, 2)


def test_a_trigger_renews_its_own_status(game):
    # flare is for the game; its trigger renews it for 1 turn while hits > 5
    assert "Pump stays flare for 1 turn" in texts(game, 1)
    assert "Pump's flare (1 turn left) fires at end_of_turn" in texts(game, 2)


def test_a_trigger_ends_its_own_status_and_its_other_steps_still_run(game):
    three = texts(game, 3)
    assert three.index("Winched is no longer winch") < three.index("the rope snaps")
    assert not any(t.startswith("Winched's winch") for t in texts(game, 4))


def test_a_winch_rolling_2_or_3_rolls_again_next_turn(game):
    assert "roll again next turn" in texts(game, 2)
    assert "Winched's winch (for the game) fires at start_of_turn" in texts(game, 3)


def test_every_trigger_line_names_the_status_the_holder_and_the_event(game):
    triggers = [e for e in game.events if e["event"] == "trigger"]
    assert triggers and all({"unit", "status", "at"} <= set(e) for e in triggers)
