"""Ending the turn at once (tests/rulesets/end_turn.yaml): Juggerball's "if a goal was
scored start the round over".  end_turn() skips the rest of the turn's segments and
phases; the call under way finishes, the end of the turn happens as usual; play,
compiled play and whole-game odds agree."""
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.game.simulate import simulate, wilson

HERE = Path(__file__).parent
RULES = load_ruleset(HERE / "rulesets" / "end_turn.yaml")

# one turn, by hand: East kicks first (a 6 is a goal, 1/6); only if East misses does West
# kick (5/6) and score (5/6 * 1/6); the tally phase runs only if nobody scored (25/36)
ONE_TURN = [
    ("east.score", {0: Fraction(5, 6), 1: Fraction(1, 6)}),
    ("west.score", {0: Fraction(31, 36), 1: Fraction(5, 36)}),
    ("units[1].after", {0: Fraction(5, 6), 1: Fraction(1, 6)}),      # the steps after it run
    ("units[2].kicks", {0: Fraction(1, 6), 1: Fraction(5, 6)}),      # West's segment skipped
    ("units[2].marks", {0: Fraction(1, 6), 1: Fraction(5, 6)}),      # ... and its start trigger
    ("units[1].tallies", {0: Fraction(11, 36), 1: Fraction(25, 36)}),   # the later phase too
    ("units[1].turns_seen", {1: Fraction(1)}),                      # end_of_turn still fires
    ("units[2].turns_seen", {1: Fraction(1)}),
]


@pytest.mark.parametrize("expression,expected", ONE_TURN)
def test_the_odds_of_one_turn_that_a_goal_may_end(expression, expected):
    odds = RULES.odds_game("one", track=[expression])
    dist = odds.tracked[expression]
    assert {v: dist.probability(v) for v in expected} == expected


def test_a_goal_ends_the_turn_in_the_transcript():
    lines = [e["text"] for e in RULES.play("default", 2).events]
    at = lines.index("the turn ends here: the rest of its phases are skipped")
    # the kick goes on to its end, then straight to the end of the turn: no West kick,
    # no tally phase, the end_of_turn triggers, the next turn
    assert lines[at + 1:at + 7] == [
        "East.after: 0 → 1 (+= 1)", "→ goal",
        "East's marked (for the game) fires at end_of_turn", "East.turns_seen: 0 → 1 (+= 1)",
        "West's marked (for the game) fires at end_of_turn", "West.turns_seen: 0 → 1 (+= 1)"]
    assert lines[at + 7] == "turn 2"


def test_the_next_turn_plays_in_full():
    result = RULES.play("default", 4)   # one goal in the game
    texts = [e["text"] for e in result.events]
    assert texts.count("the turn ends here: the rest of its phases are skipped") == 1
    assert texts.count("tally") == result.turns - 1


@pytest.mark.parametrize("seed", range(1, 9))
def test_a_told_and_a_compiled_game_end_turns_alike(seed):
    told, fast = RULES.play("default", seed), RULES.play("default", seed, record=False)
    assert (told.winner, told.turns, told.scores) == (fast.winner, fast.turns, fast.scores)
    assert [u.fields for u in told.world.units.values()] == \
        [u.fields for u in fast.world.units.values()]


def test_simulated_games_agree_with_the_whole_game_odds():
    odds = RULES.odds_game("default")
    runs = 2000
    summary = simulate(RULES, "default", runs, seed=3)
    for side in ("east", "west"):
        low, high = wilson(summary.wins.get(side, 0), runs, z=3.29)
        assert low <= float(odds.winner.probability(side)) <= high, side


def test_end_turn_in_a_procedure_run_alone_changes_nothing_else():
    run = RULES.run("goal_alone", {}, 1)
    assert run.result == 1
    assert [e["text"] for e in run.events].count(
        "the turn ends here: the rest of its phases are skipped") == 1   # said once
    assert RULES.run_odds("goal_alone", {}).outcomes.probability(1) == 1
