"""Rerolling a die that affects a unit (tests/rulesets/rerolls.yaml): Jugger's Luck ("may
reroll any 1 die roll affecting jug this turn") and Fate ("cause any dieroll to be
rerolled").  A `roll:` step is offered to the roller's `rolled_by` hooks, then to the
target's `rolled_against` hooks; exact odds enumerate every reroll, and sampled runs,
compiled play and whole-game odds agree."""
from fractions import Fraction as F
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.game.simulate import simulate, wilson

HERE = Path(__file__).parent
RULES = load_ruleset(HERE / "rulesets" / "rerolls.yaml")

# a D6 needing 3 or less (1/2); a lucky unit rerolls a roll that is bad for it, once a turn
ODDS = [
    ("nobody lucky", "shoot", {}, {True: F(1, 2)}),
    ("the roller rerolls its miss", "shoot", {"attacker.luck": "true"}, {True: F(3, 4)}),
    ("the target rerolls the hit", "shoot", {"target.luck": "true"}, {True: F(1, 4)}),
    # the roller first (a miss rerolled: 3/4 hit), then the target rerolls a hit: 3/4 * 1/2
    ("both lucky: roller first", "shoot", {"attacker.luck": "true", "target.luck": "true"},
     {True: F(3, 8)}),
    # [hit, the Fate spell still there]: spent only on a hit (1/2), which it rerolls
    ("a fate spell on the target", "fated_shot", {},
     {(True, False): F(1, 4), (False, False): F(1, 4), (False, True): F(1, 2)}),
    # Luck (the kind's hook) first, then Fate (the status's) on what Luck left: 1/8 hit
    ("luck then fate", "fated_shot", {"target.luck": "true"},
     {(True, False): F(1, 8), (False, False): F(1, 8), (False, True): F(3, 4)}),
    # Luck once a turn: used on the first shot only if that was a hit (1/2)
    ("two shots, luck once", "volley", {}, {0: F(1, 2), 1: F(3, 8), 2: F(1, 8)}),
]


def _as_key(value):
    return tuple(value) if isinstance(value, list) else value


@pytest.mark.parametrize("case,procedure,inputs,expected", ODDS, ids=[c[0] for c in ODDS])
def test_exact_odds_of_rerolls_by_hand(case, procedure, inputs, expected):
    dist = RULES.run_odds(procedure, inputs).outcomes
    got = {_as_key(v): dist.probability(v) for v, _ in dist.items()}
    assert {k: got.get(k, 0) for k in expected} == expected


# the captain's Luck is its side's policy's to use: prefer rerolls a bad roll only,
# first always takes the first option (reroll), random rerolls half the time, any roll
@pytest.mark.parametrize("policy,hit", [("prefer", F(1, 4)), ("first", F(1, 2)),
                                        ("random", F(1, 2))])
def test_the_side_policy_decides_the_captains_luck(policy, hit):
    odds = RULES.run_odds("at_captain", {}, policies={"target": policy})
    assert odds.outcomes.probability(True) == hit


@pytest.mark.parametrize("seed", range(1, 7))
def test_a_rerolled_shot_is_told(seed):
    run = RULES.run("shoot", {"target.luck": "true"}, seed)
    lines = [e["text"] for e in run.events]
    rolls = [t for t in lines if t.startswith("hit = ")]
    if "target's jug hook has hit" in " ".join(lines):   # a hit, bad for the target
        assert len(rolls) == 2 and int(rolls[0].split()[2]) <= 3
        assert "target uses Luck (1 this turn)" in lines
    else:
        assert len(rolls) == 1 and int(rolls[0].split()[2]) > 3
        assert not any("hook at" in t for t in lines)   # a hook doing nothing says nothing


def test_whole_game_odds_follow_the_rerolls():
    # a turn: Lucky shoots first, 3/4 with its Luck, and wins; on a miss its Luck is
    # spent, Plain hits 1/2 and wins; else the next turn (1/8): over 3 turns
    odds = RULES.odds_game("default")
    go_on = 1 + F(1, 8) + F(1, 64)
    assert odds.winner.probability("red") == F(3, 4) * go_on
    assert odds.winner.probability("blue") == F(1, 8) * go_on


def test_simulated_games_agree_with_the_whole_game_odds():
    odds = RULES.odds_game("default")
    runs = 2000
    summary = simulate(RULES, "default", runs, seed=9)
    low, high = wilson(summary.wins.get("red", 0), runs, z=3.29)
    assert low <= float(odds.winner.probability("red")) <= high


@pytest.mark.parametrize("seed", range(1, 9))
def test_a_told_and_a_compiled_game_reroll_alike(seed):
    told, fast = RULES.play("default", seed), RULES.play("default", seed, record=False)
    assert (told.winner, told.turns) == (fast.winner, fast.turns)
    assert [u.fields for u in told.world.units.values()] == \
        [u.fields for u in fast.world.units.values()]
