"""Initiative rolled with the roller bound (tests/rulesets/initiative.yaml): a side's
modifier (Jugger's Tactics, +1 to initiative rolls), a unit's own (the mech rules' D20 +
piloting), a scenario's own rule (Jugger's small battle: per jug), the winner choosing to
go first or last by its side's policy, a bound on rerolled ties.  Exact whole-game odds
derived by hand, the same in sampled and compiled play, and told in the transcript."""
from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.game.simulate import wilson

RULES = Path(__file__).parent / "rulesets" / "initiative.yaml"


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(RULES)


def ahead(p_win, p_tie, rerolls, tie_left_to_winner: bool):
    """P(a contender ranks first of two): it wins a round with p_win; a tie is rolled
    again at most `rerolls` times, then the declared order decides."""
    rounds = sum(p_win * p_tie ** k for k in range(rerolls + 1))
    return rounds + (p_tie ** (rerolls + 1) if tie_left_to_winner else 0)


# d4 + 1 against d4: of 16 pairs, 10 higher, 3 tied, 3 lower
WIN, TIE = F(10, 16), F(3, 16)

# scenario, side, P(that side acts first, so wins), derived by hand
CASES = [
    # per side, red's tactician adds 1; a tie left after 99 rerolls keeps red first
    ("default", "red", ahead(WIN, TIE, 99, True)),
    # per unit, Bo's skill 1; a tie left keeps Ace (declared first) ahead
    ("per_unit", "blue", ahead(WIN, TIE, 99, False)),
    # the winner prefers to go last: red acts first exactly when Bo ranks first
    ("winner_goes_last", "red", ahead(WIN, TIE, 99, False)),
    # the winner's side tosses: first or last, one half each whoever wins
    ("winner_tosses", "red", F(1, 2)),
    # one reroll at most: 10/16 + 3/16 x 10/16 = 95/128
    ("one_reroll", "blue", F(95, 128)),
]


@pytest.mark.parametrize("scenario,side,expected", CASES)
def test_initiative_exact_whole_game_odds_derived_by_hand(rules, scenario, side, expected):
    odds = rules.odds_game(scenario)
    assert odds.winner.probability(side) == expected


@pytest.mark.parametrize("scenario,side,expected", CASES + [("three", "red", None)])
def test_initiative_sampled_play_agrees_with_exact_odds(rules, scenario, side, expected):
    exact = float(rules.odds_game(scenario).winner.probability(side))
    runs = 1000
    wins = sum(rules.play(scenario, seed, record=False).winner == side for seed in range(runs))
    low, high = wilson(wins, runs, 3.3)
    assert low <= exact <= high, (wins, exact)


@pytest.mark.parametrize("scenario", [c[0] for c in CASES] + ["three"])
@pytest.mark.parametrize("seed", range(1, 9))
def test_initiative_told_and_compiled_play_are_one_game(rules, scenario, seed):
    told = rules.play(scenario, seed)
    fast = rules.play(scenario, seed, record=False)
    assert (told.winner, told.world.unit_order) == (fast.winner, fast.world.unit_order)


def _rolls(result):
    return next(e for e in result.events if e["event"] == "initiative"
                and e["text"].startswith("rolls: "))


@pytest.mark.parametrize("seed", range(1, 13))
def test_initiative_per_unit_adds_each_units_own_modifier(rules, seed):
    """per_unit: Ace rolls d4 + 0, Bo d4 + 1, and the transcript shows the die."""
    result = rules.play("per_unit", seed)
    event = _rolls(result)
    shown = dict(part.split(" ", 1) for part in event["text"][len("rolls: "):].split(", "))
    for name, skill in (("Ace", 0), ("Bo", 1)):
        value, dice = shown[name].split(" ", 1)
        face = int(dice.strip("()").split("[")[1].rstrip("]"))
        assert int(value) == face + skill == event["rolls"][name]


@pytest.mark.parametrize("seed", range(1, 13))
def test_initiative_side_modifier_reads_the_side(rules, seed):
    """default (per side): red's roll is its d4 + 1 for the tactician, blue's a bare d4."""
    event = _rolls(rules.play("default", seed))
    assert 2 <= event["rolls"]["red"] <= 5 and 1 <= event["rolls"]["blue"] <= 4


@pytest.mark.parametrize("seed", range(1, 13))
def test_initiative_winner_chooses_last_and_the_rest_go_lowest_first(rules, seed):
    """three: the highest goes last (its side prefers it), the others lowest to highest."""
    result = rules.play("three", seed)
    rolls = _rolls(result)["rolls"]
    ranked = [name for name, _ in sorted(rolls.items(), key=lambda kv: -kv[1])]
    winner, rest = ranked[0], ranked[1:]
    assert result.world.unit_order == list(reversed(rest)) + [winner]
    said = [e["text"] for e in result.events if e["event"] == "initiative"]
    assert said[-1] == f"{winner} chooses to go last"


@pytest.mark.parametrize("answer,first", [("first", "blue"), ("last", "red")])
def test_initiative_choice_is_asked_of_a_person(rules, answer, first):
    """A side a person plays (--ask) is asked to go first or last when it wins."""
    asked = []

    def prompt(step, options, side, frame):
        asked.append((step.what, list(options), side.name))
        return answer
    for seed in range(1, 40):
        asked.clear()
        result = rules.play("winner_goes_last", seed, prompt=prompt, ask=["blue"])
        if asked:
            assert asked == [("to go first or last", ["first", "last"], "blue")]
            assert result.winner == first
            return
    pytest.fail("blue never won the initiative in 39 seeds")
