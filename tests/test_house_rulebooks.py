"""The house rules for Jugger and the mech rules shipped in rules/house/, and what
`rulecraft diff` reports for each: the changes item by item, and the exact odds before
and after, derived by hand from the rulebook text and the house rule's ruling.

Jugger's default jug (kind `jug`) has SC 3, no equipment and no captain: 60 hits, no
Ram Roll bonus, no Evasion, no Damage Control.  The mech's heat tally takes the Warthog
card's eight heat sinks, none disabled, and the example shutdown chart.
"""
from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.game.diff import affected_items, diff_rulesets

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def jugger():
    return load_ruleset("jugger"), load_ruleset("rear-ram-full")


@pytest.fixture(scope="module")
def mech():
    return load_ruleset("mech-d20"), load_ruleset("double-heat-sinks")


def _only(diff, name, inputs, tracked=None) -> dict:
    """label -> (before, after) of one distribution of the diff (absent labels are 0)."""
    (entry,) = [o for o in diff.odds if o.name == name and o.inputs == inputs and o.tracked == tracked]
    return {label: (before, after) for label, before, after, _ in entry.rows()}


def _uniform(values) -> dict:
    return {str(v): F(1, 6) for v in values}


def test_rear_ram_full_changes_the_rear_damage_step_and_the_reference_table(jugger):
    base, house = jugger
    diff = diff_rulesets(base, house, skip=set(house.procedures) - {"ram"})
    assert {(c.op, c.path) for c in diff.changes} == {
        ("added", "rulings.house-rear-ram-full"),
        ("changed", "procedures.ram.steps.multiplier"),
        ("changed", "tables.ram_rear.title"), ("changed", "tables.ram_rear.description"),
        ("changed", "tables.ram_rear.computed.formula"),
        ("removed", "tables.ram_rear.computed.over.difference"),
        ("added", "tables.ram_rear.computed.over.velocity")}
    step = [c for c in diff.changes if c.path.endswith("multiplier")][0]
    assert "max(0, rammer.velocity - target.velocity)" in step.before
    assert step.after == "let multiplier = rammer.velocity"
    # the printed table's cells are the same numbers: (d6 + sc) x n for n 1..6 either way
    # affected: the table, ram, and drive (the policy that calls ram); not the weapon
    # tables whose notes mention "the main ram" in their text
    assert affected_items(house.document.to_plain(), diff.changes) == [
        ("tables", "ram_rear"), ("procedures", "ram"), ("procedures", "drive")]
    assert house.tables["ram_rear"].title.startswith("Ram damage to the rear arc (house rule)")


# rammer velocity, target velocity, rammer SC: the rear-ram damage before, (D6 + SC) x
# max(0, v - t), and after, (D6 + SC) x v; each of the six faces 1/6
REAR_RAMS = [
    (4, 2, 3, [8, 10, 12, 14, 16, 18], [16, 20, 24, 28, 32, 36]),
    (3, 3, 3, [0] * 6, [12, 15, 18, 21, 24, 27]),        # as fast: nothing before
    (2, 5, 3, [0] * 6, [8, 10, 12, 14, 16, 18]),         # the target is faster
]


@pytest.mark.parametrize("v, t, sc, before, after", REAR_RAMS)
def test_the_distribution_of_rear_ram_damage(jugger, v, t, sc, before, after):
    base, house = jugger
    inputs = {"arc": "rear", "rammer.velocity": str(v), "target.velocity": str(t), "rammer.sc": str(sc)}
    diff = diff_rulesets(base, house, inputs, skip=set(house.procedures) - {"ram"},
                         track=["target.damage_taken"])
    damage = _only(diff, "ram", inputs, "target.damage_taken")
    want_before, want_after = _uniform(before), _uniform(after)
    if before == [0] * 6:
        want_before = {"0": F(1)}
    for label, (b, a) in damage.items():
        assert (b, a) == (want_before.get(label, 0), want_after.get(label, 0)), label
    assert set(damage) == set(want_before) | set(want_after)


@pytest.mark.parametrize("v, t, sc, destroyed_before, destroyed_after", [
    # SC 7 at 6 into a target at 4: before (D6 + 7) x 2 <= 26, after (D6 + 7) x 6 is
    # 48, 54, 60, 66, 72, 78: at least 60 (the target's hits) on 3-6
    (6, 4, 7, F(0), F(2, 3)),
    (6, 5, 10, F(0), F(1)),          # (D6 + 10) x 6 >= 66 always
    # a standing target: the same ram either way, (D6 + 10) x 4 = 44 ... 64, at least 60 on 5, 6
    (4, 0, 10, F(1, 3), F(1, 3)),
])
def test_the_chance_a_rear_ram_destroys_the_target(jugger, v, t, sc, destroyed_before, destroyed_after):
    base, house = jugger
    inputs = {"arc": "rear", "rammer.velocity": str(v), "target.velocity": str(t), "rammer.sc": str(sc)}
    diff = diff_rulesets(base, house, inputs, skip=set(house.procedures) - {"ram"},
                         track=["target.destroyed"])
    entries = [o for o in diff.odds if o.name == "ram" and o.inputs == inputs]
    if destroyed_before == destroyed_after:
        assert entries == []                     # the same odds: listed as unchanged
        assert any(u.startswith("procedure ram with") for u in diff.unchanged)
        for ruleset in jugger:
            assert ruleset.run_odds("ram", inputs).outcomes.probability("destroyed") == destroyed_before
        return
    outcome = _only(diff, "ram", inputs)
    assert outcome["destroyed"] == (destroyed_before, destroyed_after)
    assert _only(diff, "ram", inputs, "target.destroyed")["True"] == (destroyed_before, destroyed_after)


WARTHOG_SINKS = {"mech.heat_sinks": 'mechs["Warthog"].heat_sinks'}


def test_double_heat_sinks_changes_the_tally_and_the_policy_projection(mech):
    base, house = mech
    diff = diff_rulesets(base, house, skip=set(house.procedures) - {"heat_phase"})
    assert [(c.op, c.path) for c in diff.changes] == [
        ("added", "rulings.house-double-heat-sinks"), ("added", "parameters.heat_per_sink"),
        ("changed", "procedures.heat_phase.steps.2"),
        ("changed", "procedures.fire_mech.steps.6.do.projected")]
    assert house.parameters["heat_per_sink"] == 2 and "heat_per_sink" not in base.parameters
    assert diff.odds == []         # the bare card of the defaults has no heat sinks at all


# carried heat, heat generated, sinks disabled: P(shut down) before and after, the new
# heat before and after.  New heat = max(0, carried + generated - k x working sinks), k
# 1 before and 2 after; from 14 a 2D20 below the chart's number shuts down: the chart
# gives 10 at 14 (36 of the 400 pairs sum to 9 or less), 14 at 15 (78), 18 at 16 (136),
# 40 at 22 (all but 20 + 20).  Below 14 there is no check ("no check").
HEAT_TALLIES = [
    (10, 12, [], F(9, 100), None, 14, 6),
    (10, 20, [], F(399, 400), F(9, 100), 22, 14),
    (8, 16, [], F(136, 400), None, 16, 8),
    (10, 12, ["HS 1 (CT)"], F(78, 400), None, 15, 8),      # a disabled sink takes away nothing
]


@pytest.mark.parametrize("heat, generated, disabled, before, after, heat_before, heat_after", HEAT_TALLIES)
def test_the_chance_a_mech_shuts_down_with_double_heat_sinks(mech, heat, generated, disabled, before, after,
                                                             heat_before, heat_after):
    base, house = mech
    inputs = {**WARTHOG_SINKS, "mech.heat": str(heat), "mech.heat_generated": str(generated)}
    if disabled:
        inputs["mech.disabled"] = repr(disabled).replace("'", '"')
    diff = diff_rulesets(base, house, inputs, skip=set(house.procedures) - {"heat_phase"},
                         track=["mech.heat"])
    outcome = _only(diff, "heat_phase", inputs)
    assert outcome["shut down"] == (before, after or 0)
    assert outcome["stays up"] == (1 - before, 1 - after if after else 0)
    assert outcome.get("no check", (0, 0)) == (0, 0 if after else 1)
    assert _only(diff, "heat_phase", inputs, "mech.heat") == {
        str(heat_before): (1, 0), str(heat_after): (0, 1)}


def test_a_cool_mech_is_the_same_under_both(mech):
    base, house = mech
    inputs = {**WARTHOG_SINKS, "mech.heat": "0", "mech.heat_generated": "5"}
    diff = diff_rulesets(base, house, inputs, skip=set(house.procedures) - {"heat_phase"},
                         track=["mech.heat"])
    assert [o for o in diff.odds if o.inputs] == []      # heat 0 either way, no check
    assert "procedure heat_phase, mech.heat at the end with " + ", ".join(
        f"{k}={v}" for k, v in inputs.items()) in diff.unchanged


def test_the_reference_table_of_rear_rams_before_and_after(jugger):
    # the printed table's formula at SC 3, rammer velocity 4, a difference of 2 (before):
    # (D6 + 3) x 2 before, (D6 + 3) x 4 after
    base, house = jugger
    diff = diff_rulesets(base, house, {"sc": "3", "velocity": "4", "difference": "2"},
                         skip=set(house.procedures))
    (entry,) = [o for o in diff.odds if o.name == "tables.ram_rear.computed.formula"]
    assert entry.before == _uniform([8, 10, 12, 14, 16, 18])
    assert entry.after == _uniform([16, 20, 24, 28, 32, 36])
