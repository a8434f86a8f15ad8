"""Changing a unit's side (tests/rulesets/capture.yaml): Jugger's boarders, "the target
jug comes under your control".  capture() moves the unit; its side's units, the enemies,
the turn order, victory and the end-of-game report follow, sampled, exactly and in
compiled play alike."""
from fractions import Fraction
from pathlib import Path

import pytest
from rich.console import Console

from interpreter.game.api import load_ruleset
from interpreter.game.simulate import simulate
from interpreter.render.story import game_report

HERE = Path(__file__).parent
RULES = load_ruleset(HERE / "rulesets" / "capture.yaml")


def report(result) -> list[str]:
    console = Console(width=200, no_color=True)
    with console.capture() as got:
        for line in game_report(result):
            console.print(line)
    return got.get().splitlines()


def test_a_captured_unit_is_on_the_attackers_side_and_no_longer_an_enemy():
    # same side, the attacker's enemies, the attacker's units
    assert list(RULES.run("taken", {}, 1).result) == [True, 0, 2]
    odds = RULES.run_odds("taken", {}).outcomes
    assert len(odds) == 1 and list(odds.items()[0][0]) == [True, 0, 2]


def test_boarding_captures_on_one_or_two_of_a_d6():
    odds = RULES.run_odds("boarding_side", {}).outcomes
    assert odds.probability(True) == Fraction(1, 3)


def test_whole_game_odds_of_a_capture_in_three_turns():
    # each turn: 1-2 captures (Blue has no unit left: Red wins), 3 misses (again next
    # turn), 4-6 kills the boarders (no more tries): 1/3 (1 + 1/6 + 1/36)
    odds = RULES.odds_game("default")
    assert odds.winner.probability("red") == Fraction(1, 3) * (1 + Fraction(1, 6) + Fraction(1, 36))
    assert odds.turns.probability(1) == Fraction(1, 3)


def test_simulated_captures_agree_with_the_exact_odds():
    summary = simulate(RULES, "default", 3000, seed=5)
    assert abs(summary.wins.get("red", 0) / 3000 - 43 / 108) < 0.04


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_a_told_and_a_compiled_game_capture_alike(seed):
    told, fast = RULES.play("two", seed), RULES.play("two", seed, record=False)
    assert (told.winner, told.turns, told.survivors, told.scores) == \
        (fast.winner, fast.turns, fast.survivors, fast.scores)
    assert {u.name: u.side for u in told.world.units.values()} == \
        {u.name: u.side for u in fast.world.units.values()}


def test_the_captured_jug_acts_and_scores_for_its_new_side():
    result = RULES.play("two", 3)   # Gunner taken in turn 1, Wreck never
    lines = [e["text"] for e in result.events]
    assert "Gunner comes under red's control (taken from blue)" in lines
    assert result.scores == {"red": 2, "blue": 3}   # Gunner: 1 for blue, then 2 for red
    assert report(result)[1:] == [
        "  red: lost none; 2 left (Boarder, Gunner: taken from blue); score 2",
        "  blue: lost none; 1 captured by red (Gunner); 1 left (Wreck); score 3"]


def test_a_side_whose_last_unit_is_captured_has_lost():
    result = RULES.play("default", 1)
    assert (result.winner, result.survivors) == ("red", {"red": 2, "blue": 0})
    assert report(result)[1:] == [
        "  red: lost none; 2 left (Boarder, Gunner: taken from blue)",
        "  blue: lost none; 1 captured by red (Gunner); 0 left"]


def test_a_sides_assignment_says_to_capture():
    with pytest.raises(Exception) as err:
        load_ruleset(HERE / "broken" / "semantic" / "side_assigned.yaml").run("board", {}, 1)
    assert "capture(" in str(err.value.message) + str(err.value.hint)
