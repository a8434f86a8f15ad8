"""Formula defaults for stats (tests/rulesets/stat_formulas.yaml): `weapons:
'=cards[design].weapons'` under `stats:` is evaluated as each unit is made, as state
formulas are: after the plain stats and the values given (`--with mech.design=Boar`),
formula stats in the order they read each other, a stat that rolls rolled once and told,
a value given instead of a formula winning, and one set inside a formula's record kept.
Sampled runs, exact odds and whole games agree."""
from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest

from interpreter.errors import RulecraftError
from interpreter.game.api import load_ruleset
from interpreter.game.simulate import wilson

RULES = Path(__file__).parent / "rulesets" / "stat_formulas.yaml"


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(RULES)


# --with inputs, [design, reach, longest, weapons, armour.front, hits]
CARDS = [
    ({}, ["Warthog", 5, 4, 2, 6, 12]),                  # the default card
    ({"mech.design": '"Boar"'}, ["Boar", 10, 9, 1, 4, 8]),   # formulas read the given stat
    # a value given instead of a formula wins; the formulas reading it see it
    ({"mech.weapons": '[{name: "Gun", range: 2}]'}, ["Warthog", 3, 2, 1, 6, 12]),
    ({"mech.longest": "7"}, ["Warthog", 8, 7, 2, 6, 12]),
    # set inside a formula's record: the rest of the record is the card's
    ({"mech.armour.front": "1"}, ["Warthog", 5, 4, 2, 1, 2]),
    ({"mech.design": '"Boar"', "mech.armour.rear": "9"}, ["Boar", 10, 9, 1, 4, 8]),
]


@pytest.mark.parametrize("inputs,expected", CARDS)
def test_stat_formulas_give_the_card_sampled_and_exactly(rules, inputs, expected):
    ran = rules.run("card", inputs, 1).result
    dist = rules.run_odds("card", inputs).outcomes
    assert list(ran) == expected
    assert [list(v) for v, _ in dist.items()] == [expected]


def test_a_given_stat_inside_a_formula_record_keeps_the_rest(rules):
    odds = rules.run_odds("card", {"mech.armour.rear": "9"},
                          track=["mech.armour.front", "mech.armour.rear"])
    assert [odds.tracked[t].items() for t in ("mech.armour.front", "mech.armour.rear")] == \
        [[(6, 1)], [(9, 1)]]


def test_a_misspelt_field_inside_a_formula_record_is_refused(rules):
    with pytest.raises(RulecraftError) as err:
        rules.run("card", {"mech.armour.frnt": "1"}, 1)
    assert "did you mean 'front'" in str(err.value.hint)


def test_a_rolled_stat_has_exact_odds_over_its_faces(rules):
    """grit is the stat nerve (d6, rolled once) plus a d6: 2d6."""
    dist = rules.run_odds("grit", {}).outcomes
    assert {v: dist.probability(v) for v, _ in dist.items()} == \
        {t: F(6 - abs(t - 7), 36) for t in range(2, 13)}


@pytest.mark.parametrize("seed", range(1, 9))
def test_a_rolled_stat_is_rolled_once_and_told(rules, seed):
    run = rules.run("grit", {}, seed)
    start = [e for e in run.events if e["event"] == "start"]
    assert [e["field"] for e in start] == ["nerve"]
    assert 1 <= run.result - start[0]["value"] <= 6


def test_a_rolled_stat_given_with_with_is_not_rolled(rules):
    assert rules.run_odds("grit", {"mech.nerve": "4"}).outcomes.probability(5) == F(1, 6)


# a whole game: a unit whose nerve (d6) is 4 or more loses a hit; a side whose units all
# kept their hits wins, red checked first: red 1/2, else blue 1/2 x 1/2, else a draw
GAME = {"red": F(1, 2), "blue": F(1, 4), "no winner": F(1, 4)}


def test_a_rolled_stat_in_a_whole_game_exact_odds_by_hand(rules):
    winner = rules.odds_game().winner
    assert {v: winner.probability(v) for v, _ in winner.items()} == GAME


def test_a_rolled_stat_in_a_whole_game_sampled_agrees(rules):
    runs = 1000
    games = [rules.play(None, seed, record=False).winner or "no winner" for seed in range(runs)]
    for side, p in GAME.items():
        low, high = wilson(games.count(side), runs, 3.3)
        assert low <= float(p) <= high, (side, games.count(side))


@pytest.mark.parametrize("seed", range(1, 9))
def test_formula_stats_are_the_same_in_told_and_compiled_play(rules, seed):
    told, fast = rules.play(None, seed), rules.play(None, seed, record=False)
    assert told.winner == fast.winner
    assert {u.name: (u.fields["nerve"], u.fields["hits"]) for u in told.world.units.values()} == \
        {u.name: (u.fields["nerve"], u.fields["hits"]) for u in fast.world.units.values()}
