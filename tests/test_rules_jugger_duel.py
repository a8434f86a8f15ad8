"""Jugger's duel (scenarios.duel): two unarmed Warbuggies, 4 hexes apart, fighting by
ramming, a draw after 4 turns -- small enough for the exact whole-game odds of
`odds-game` (issues #12 and #14), which agree with `simulate`.  The suite runs its first
three turns (the whole game's exact odds take about 20 s of CPU).

By hand over the first three turns (a house rule cuts the game there): the buggies close
in turns 1 and 2, and by the end of turn 3 every game has seen two rams at velocity 1,
each (D6 + SC 1) x 1 (ruling ram formulas; an SC-1 jug, no Ram Roll bonus), neither
enough to wreck a 20-hit jug: the hits left on the field are 40 - 2 - 2D6, exactly."""
from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.game.simulate import simulate, wilson

JUGGER = Path(__file__).resolve().parent.parent / "rules" / "jugger"
HITS_LEFT = "sum([u.hits for u in units])"


@pytest.fixture(scope="module")
def three_turns(tmp_path_factory):
    house = tmp_path_factory.mktemp("duel") / "duel3.yaml"
    house.write_text(f"ruleset: duel3\ntitle: the duel over three turns\nextends: {JUGGER}\n"
                     "change:\n  scenarios.duel.max_turns: 3\n")
    return load_ruleset(house)


def two_d6_below(total: int) -> dict:
    """{total - 2d6: probability}."""
    return {total - k: F(6 - abs(k - 7), 36) for k in range(2, 13)}


def test_three_turns_of_the_duel_leave_40_minus_two_rams_exactly(three_turns):
    odds = three_turns.odds_game("duel", track=[HITS_LEFT])
    hits = odds.tracked[HITS_LEFT]
    assert {v: hits.probability(v) for v in hits.values()} == two_d6_below(38)
    assert {w: odds.winner.probability(w) for w in odds.winner.values()} == {"no winner": 1}


def test_three_turns_of_the_duel_sampled_agree_with_the_exact_odds(three_turns,
                                                                   agrees_with_simulate):
    """Sampled games end as the exact odds say: the winner (a draw, every time, so
    soon) and the hits left, each total inside its 99.9% interval.  The whole 4-turn
    duel is checked against 20,000 games in benchmarks/README.md (its exact odds take
    about 20 s, too long for the suite)."""
    agrees_with_simulate(three_turns, "duel", 100, seed=4)
    runs = 300
    exact = two_d6_below(38)
    summary = simulate(three_turns, "duel", runs, seed=5, track=[HITS_LEFT])
    seen = summary.tracked[HITS_LEFT]
    assert set(seen) <= set(exact)
    for total, p in exact.items():
        low, high = wilson(seen.get(total, 0), runs, z=3.29)
        assert low <= float(p) <= high, total
