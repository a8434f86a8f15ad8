"""Reactions, interrupts and simultaneous resolution (tests/rulesets/reactions.yaml):
reaction points at every hex of a move and at moments the rules name, once-per-turn
fire, calls deferred to the end of the phase, and simultaneous phases in which
destroyed units still act."""
from pathlib import Path

import pytest

from interpreter.errors import RulecraftError
from interpreter.game.api import load_ruleset

HERE = Path(__file__).parent
RULES = HERE / "rulesets" / "reactions.yaml"


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(RULES)


def texts(result):
    return [e["text"] for e in result.events]


def test_a_sentry_fires_at_the_hex_where_the_runner_passes_it(rules):
    lines = texts(rules.play("default", 1))
    # the reaction comes at the first hex next to the sentry, inside the move
    at = lines.index("Runner enters (1, 0)")
    assert lines[at + 1:at + 5] == ["fire = true (first)", "Sentry uses gun (1 this turn)",
                                    "Sentry fires at Runner", "apply_damage(target=Runner, damage=1)"]
    assert lines.index("Sentry fires at Runner") < lines.index("Runner enters (2, 0)")
    assert lines.index("Runner enters (4, 0)") < lines.index("Runner moves ahead to (4, 0) facing 1")


def test_fire_once_per_turn_though_the_runner_passes_two_hexes_next_to_it(rules):
    # (1, 0) and (2, 0) are both next to the sentry at (2, -1)
    assert texts(rules.play("default", 1)).count("Sentry fires at Runner") == 1


@pytest.mark.parametrize("line,present", [
    ("runners hears the challenge of Runner", True),    # by: mover, at a point react() offers
    ("guards hears the challenge of Runner", False),
])
def test_a_reaction_point_named_by_the_rules_reaches_the_sides_it_declares(rules, line, present):
    assert (line in texts(rules.play("default", 1))) == present


def test_the_moving_side_does_not_react_to_its_own_move_when_by_others(rules):
    assert "Runner fires at Runner" not in texts(rules.play("default", 1))


def test_damage_waits_for_all_attack_rolls_and_both_mechs_fall(rules):
    game = rules.play("duel", 1)
    lines = texts(game)
    rolls = [i for i, t in enumerate(lines) if t.startswith("roll = ")]
    damage = [i for i, t in enumerate(lines) if t.startswith("apply_damage(target=")]
    assert len(rolls) == 2 and len(damage) == 2 and max(rolls) < min(damage)
    assert game.survivors == {"red": 0, "blue": 0} and game.winner is None


def test_in_a_simultaneous_phase_a_destroyed_mech_still_fires(rules):
    game = rules.play("volley", 1)
    lines = texts(game)
    assert "Hunter is destroyed (at the end of the phase: it still acts in this one)" in lines
    assert "attack(shooter=Hunter, target=Atlas)" in lines
    assert game.survivors == {"red": 0, "blue": 0}


def test_without_simultaneous_the_first_to_fire_wins(tmp_path):
    house = tmp_path / "in-turn.yaml"
    house.write_text(f"ruleset: in-turn\ntitle: attacks in turn\nextends: {RULES}\n"
                     "change:\n  turn.phases.combat.simultaneous: false\n")
    game = load_ruleset(house).play("volley", 1)
    assert "attack(shooter=Hunter, target=Atlas)" not in texts(game)
    assert game.survivors == {"red": 1, "blue": 0} and game.winner == "red"


def test_an_attack_run_alone_applies_its_damage_at_once(rules):
    dist = rules.run_odds("attack_now", {}).outcomes
    assert {tuple(v): w / dist.total for v, w in dist.items()} == \
        {(False, 3, False): 0.5, (True, 1, False): 0.5}


def test_defer_outside_a_phase_of_play_is_an_error(rules):
    with pytest.raises(RulecraftError, match="works only in a phase of play"):
        rules.run("alone", {}, 1)
