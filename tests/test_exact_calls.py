"""A called procedure remembered by what it read (run/call_memo.py, expr/reads.py):
exact results against brute force written out here and against the enumeration that
remembers a call only under the whole game (the old way, kept as the fallback)."""
from __future__ import annotations

import functools
import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.errors import RulecraftError
from interpreter.game.api import load_ruleset
from interpreter.run import call_memo

HERE = Path(__file__).parent
RULES = load_ruleset(HERE / "rulesets" / "exact_calls.yaml")
SCALE = load_ruleset(HERE / "rulesets" / "exact_scale.yaml")


def as_dict(dist) -> dict:
    return {v: dist.probability(v) for v in dist.values()}


@functools.lru_cache(maxsize=None)
def volley_by_hand() -> dict:
    """The volley of exact_calls.yaml, every roll of every shot walked: (d2 part, d3
    damage, d6 mark) three times."""
    counts: dict = {}
    shot = list(itertools.product((1, 2), (1, 2, 3), range(1, 7)))
    for rolls in itertools.product(shot, shot, shot):
        hp, hit, marks = {"a": 3, "b": 3}, {"a": False, "b": False}, 0
        for part, amount, mark in rolls:
            at = "a" if part == 1 else "b"
            while True:   # hurt(): what the part cannot take passes to the other one
                other = "b" if at == "a" else "a"
                left = hp[at] - amount
                if left >= 0:
                    hp[at] = left
                    break
                hp[at] = 0
                if hp[other] <= 0:
                    break
                at, amount = other, -left
            if mark == 6:
                hit["a" if part == 1 else "b"] = True
                marks += 1
        key = (hp["a"], hp["b"], hit["a"], hit["b"], marks)
        counts[key] = counts.get(key, 0) + 1
    total = sum(counts.values())
    return {k: Fraction(n, total) for k, n in counts.items()}


@pytest.fixture
def whole_game_only(monkeypatch):
    """The enumeration as it was: a call remembered only under the whole game."""
    monkeypatch.setattr(call_memo, "remember", lambda *args: False)


def test_volley_with_calls_remembered_by_reads_is_brute_force():
    got = {tuple(v): p for v, p in as_dict(RULES.run_odds("volley").outcomes).items()}
    assert got == volley_by_hand()


@pytest.mark.parametrize("rules, procedure, inputs", [
    (RULES, "volley", {}),          # transfer between parts, a flag written with = unread
    (RULES, "dazed_volley", {}),    # a status given inside a call: remembered whole
    (SCALE, "ammo_after", {"amount": "7"}),
])
def test_remembered_by_reads_equals_remembered_by_whole_game(rules, procedure, inputs,
                                                             monkeypatch):
    by_reads = rules.run_odds(procedure, inputs)
    monkeypatch.setattr(call_memo, "remember", lambda *args: False)
    whole = rules.run_odds(procedure, inputs)
    assert as_dict(by_reads.outcomes) == as_dict(whole.outcomes)
    assert by_reads.capped == whole.capped


@pytest.mark.parametrize("procedure, remembered_by_reads", [
    ("volley", True),         # hurt() and mark() change fields only
    ("dazed_volley", False),  # daze() gives a status: every call of it under the whole game
])
def test_which_calls_are_remembered_by_reads(procedure, remembered_by_reads, monkeypatch):
    kinds = []
    real = call_memo.remember

    def spy(*args):
        kept = real(*args)
        kinds.append(kept)
        return kept
    monkeypatch.setattr(call_memo, "remember", spy)
    RULES.run_odds(procedure)
    assert kinds
    assert all(kinds) if remembered_by_reads else not all(kinds)


def test_a_flag_written_unread_is_part_of_the_key():
    """mark() writes parts[at].hit = true without reading it.  Its second call meets a
    game where a's flag is set (a marked first) and one where it is not (b first): the
    first game's changes (none to a's flag) must not answer the second (the written
    path is read too, so its old value is in the key)."""
    odds = RULES.run_odds("marks_twice")
    assert as_dict(odds.outcomes) == {(True, False, 2): Fraction(1, 2),
                                      (True, True, 2): Fraction(1, 2)}


@pytest.mark.parametrize("k, refused", [(43, False), (44, True)])
def test_a_call_remembered_high_up_keeps_the_depth_limit_deeper_down(k, refused):
    """Calls are remembered apart from the depth they are made at: climb(target, 5)
    made from the top answers again from k calls deep only where its own five calls
    stay under the limit (descend(44) reaches depth 50), as a sampled run refuses."""
    inputs = {"k": str(k)}
    if refused:
        with pytest.raises(RulecraftError, match="deep"):
            RULES.run_odds("near_the_limit", inputs)
        with pytest.raises(RulecraftError, match="deep"):
            RULES.run("near_the_limit", inputs, seed=1)
        return
    assert as_dict(RULES.run_odds("near_the_limit", inputs).outcomes) == {2: 1}
    assert RULES.run("near_the_limit", inputs, seed=1).result == 2


def test_a_call_reading_which_units_are_left_is_keyed_by_every_unit():
    """in_game() reads the game's `units` and foes() an action, `enemies`: neither names
    the other box's field, yet both read whether it was destroyed.  Remembered from the
    first calls, they must not answer the second ones in the game where it was
    (reads.every_unit: every unit's plain fields are then in the key)."""
    odds = RULES.run_odds("counted_twice")
    assert as_dict(odds.outcomes) == {((2, 1), (2, 1)): Fraction(1, 2),
                                      ((2, 1), (1, 0)): Fraction(1, 2)}


def test_a_remembered_calls_changes_copy_only_the_units_they_touch():
    """replay() copies the units a remembered call changed and shares the others with
    the game it was given (weighed against `forks` by those alone); the given game is
    left as it was, and a later change of the copy (a fork: every unit copied) does not
    reach the units it shares."""
    import random

    from interpreter.expr import budget
    from interpreter.game.play import scenario_of, start_world
    from interpreter.limits import FORK_UNIT_TICKS, FORK_WORLD_TICKS
    mech = load_ruleset(HERE.parent / "rules" / "mech-d20" / "mech-d20.yaml")
    world = start_world(mech, scenario_of(mech, None), random.Random(1))
    first, second = list(world.units)
    armour = world.units[first].fields["locations"]["head"]["armour"]
    before = budget.METER[1]
    copy, _ = call_memo.replay(world, [(first, ("locations", "head", "armour"), 0)], None)
    assert budget.METER[1] - before == FORK_WORLD_TICKS + FORK_UNIT_TICKS + \
        len(world.units[first].fields)   # the world, one unit and its fields
    assert copy.units[first] is not world.units[first]
    assert copy.units[second] is world.units[second]
    assert copy.units[first].fields["locations"]["head"]["armour"] == 0
    assert world.units[first].fields["locations"]["head"]["armour"] == armour
    again = copy.copy()
    again.units[second].fields["heat"] = 99
    assert world.units[second].fields["heat"] != 99
