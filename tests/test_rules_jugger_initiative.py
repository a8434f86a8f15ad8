"""Jugger's initiative (ruling initiative): "All players roll 1D10. Reroll all ties" with
a captain's Tactics ("Player gets +1 to initiative rolls"), and "if it is a small battle
each jugger may roll for initiative" (scenario duel, per jug).  Exact odds by hand from
the engine's initiative (game/initiative.py), the same rule play rolls."""
from __future__ import annotations

import random
from fractions import Fraction as F
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.game.initiative import initiative_odds
from interpreter.game.play import build_world, scenario_of
from interpreter.run.frames import Branch, Enumeration

PATH = Path(__file__).resolve().parent.parent / "rules" / "jugger" / "jugger.yaml"


@pytest.fixture(scope="module")
def jugger():
    return load_ruleset(PATH)


def first_odds(rules, scenario, captains: dict) -> dict:
    """{side acting first: probability} with these captains given to jugs."""
    world = build_world(rules, scenario_of(rules, scenario), random.Random(0), False)
    for name, captain in captains.items():
        world.units[name].fields["captain"] = captain
    start = Branch(F(1), locals_={}, world=world, globals_=rules.globals, run=Enumeration({}))
    odds: dict = {}
    for child, order, _units in initiative_odds(rules, start):
        odds[order[0]] = odds.get(order[0], 0) + child.weight
    return odds


def ahead(p_win, p_tie, tie_left_to_it: bool, rerolls: int = 99):
    """P(ranking first of two): wins a round with p_win, a tie rolled again (at most
    `rerolls` times, then the declared order, red before blue)."""
    return sum(p_win * p_tie ** k for k in range(rerolls + 1)) + \
        (p_tie ** (rerolls + 1) if tie_left_to_it else 0)


# d10 against d10: of 100 pairs 45 higher, 10 tied; d10 + 1 against d10: 55 higher, 9 tied
EVEN, TACTICS, AGAINST = (F(45, 100), F(10, 100)), (F(55, 100), F(9, 100)), (F(36, 100), F(9, 100))

CASES = [
    # the duel rolls per jug, each with its own captain
    ("duel", {}, ahead(*EVEN, True)),
    ("duel", {"Red Buggy": ["Tactics"]}, ahead(*TACTICS, True)),
    ("duel", {"Blue Buggy": ["Tactics"]}, ahead(*AGAINST, True)),
    ("duel", {"Red Buggy": ["Tactics"], "Blue Buggy": ["Tactics", "Luck"]}, ahead(*EVEN, True)),
    ("duel", {"Red Buggy": ["Luck"]}, ahead(*EVEN, True)),   # only Tactics counts
]


@pytest.mark.parametrize("scenario,captains,p_red", CASES)
def test_initiative_tactics_adds_one_exact(jugger, scenario, captains, p_red):
    odds = first_odds(jugger, scenario, captains)
    assert odds["red"] == p_red and sum(odds.values()) == 1


def test_set_battle_tactics_once_per_side(jugger):
    """Per side: both armies have a Tactics captain (Landship and Swordsman; Crusher): each
    side's d10 + 1 once, however many such captains; so even odds, as without any."""
    odds = first_odds(jugger, "default", {})
    sides = sorted(odds)
    assert odds[sides[0]] == ahead(*EVEN, True)
    crusher_lost = first_odds(jugger, "default", {"Crusher": []})   # orcs lose their Tactics
    assert crusher_lost["men_and_dwarves"] == ahead(*TACTICS, True)


@pytest.mark.parametrize("seed", range(1, 6))
def test_the_duel_rolls_per_jug_in_play(jugger, seed):
    result = jugger.play("duel", seed)
    rolls = next(e for e in result.events if e["event"] == "initiative" and "rolls" in e)
    assert set(rolls["rolls"]) == {"Red Buggy", "Blue Buggy"}
