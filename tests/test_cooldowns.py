"""Cooldowns (issue #13): "only once every 3 turns" is a use counted `per=3` (this turn
and the 2 before) with `limit=1`, the number read from the rules' data (a weapon table's
column); reset by the turn structure like every use count (tests/rulesets/cooldowns.yaml)."""
import random
from pathlib import Path

import pytest

from interpreter.errors import RulecraftError
from interpreter.expr.values import json_value
from interpreter.game.api import check_ruleset, load_ruleset

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(HERE / "rulesets" / "cooldowns.yaml")


@pytest.fixture(scope="module")
def game(rules):
    return [(e["turn"], e["text"]) for e in rules.play(None, 1).events if e["event"] == "emit"]


@pytest.mark.parametrize("unit", ["Brute", "Target"])
def test_once_every_3_turns_is_usable_in_turns_1_4_and_7(game, unit):
    poured = [turn for turn, text in game if text == f"{unit} poured"]
    waited = [turn for turn, text in game if text == f"{unit} not ready"]
    assert poured == [1, 4, 7]
    assert waited == [2, 3, 5, 6]


def test_a_cooldown_of_1_turn_is_once_per_turn(rules):
    assert rules.run("pour", {"weapon": "Ballista"}, 1).result == "poured"


@pytest.mark.parametrize("procedure,outcomes", [
    ("pour_twice", {("poured", "not ready", 16): 1}),
    # per=d3 counts in the slot of the rolled number: per=2 sees it only when d3 shows 2
    ("rolled_cooldown", {0: 2, 1: 1}),
])
def test_sampled_exact_and_compiled_count_the_same(rules, procedure, outcomes):
    def key(value):
        value = json_value(value)
        return tuple(value) if isinstance(value, list) else value
    odds = rules.run_odds(procedure, {}).outcomes
    assert {key(v): w for v, w in odds.items()} == outcomes
    assert key(rules.run(procedure, {}, 2).result) in outcomes
    fast = rules.sampler(procedure, {})
    assert {key(fast(random.Random(s))) for s in range(20)} <= set(outcomes)


def test_a_use_past_the_limit_of_a_cooldown_is_a_located_error(rules):
    with pytest.raises(RulecraftError) as caught:
        rules.run("forced", {}, 1)
    assert caught.value.message == "jug has used Cauldron 1 time in the last 3 turns already (limit 1)"
    assert caught.value.location.line == 46


def test_a_cooldown_of_no_turns_is_found_by_validate():
    first = check_ruleset(HERE / "broken" / "semantic" / "cooldown_period.yaml")[0]
    assert (first.code, first.location.line, first.location.column) == ("type", 9, 34)
    assert "whole number of turns" in first.message


@pytest.mark.parametrize("seed", [1, 3])
def test_the_compiled_game_ends_in_the_world_the_recorded_game_ends_in(seed):
    from interpreter.game.play import play
    rules = load_ruleset(HERE / "rulesets" / "cooldowns.yaml")
    assert play(rules, None, seed, record=False).world.snapshot() == \
        play(rules, None, seed, record=True).world.snapshot()
