"""Legowars (medieval): the bundled ruleset `rules/legowars/legowars.yaml` against its
rulebook (shared/seeds/002_865ce0ad620ad362.txt), case by case.

- validate: clean except the documented cross-check warnings (the book's printed values
  that disagree with its own formulas);
- every points row against its formula (the tables resolve to the printed value, and the
  formula value is what the tests below compute by hand);
- the worked examples (150-point vehicle, wagon speeds, buildings) through the procedures;
- exact odds of melee and ranged attacks, derived by hand from the text in comments;
- play on an open tabletop: measured moves, melee within 5 cm, ranged by measured
  distance, a riderless horse fleeing on its next move;
- a golden transcript of `play legowars --seed 1` (the events of `--json`).
"""
from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.cli.main import main
from interpreter.game.api import check_ruleset, load_ruleset

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def rs():
    return load_ruleset("legowars")


def run(rs, procedure, **inputs):
    """A procedure run through the API with --with style text inputs."""
    return rs.run(procedure, {k.replace("__", "."): v for k, v in inputs.items()}, 1).result


def odds(rs, procedure, inputs):
    return rs.run_odds(procedure, inputs).outcomes


# ------------------------------------------------------------------------- validate

_CHECK = re.compile(r"table '(.+?)' row '(.+?)': (\w+) is (\S+) but .* gives (\S+)$")

# (table, row, column, printed, formula) — each is a ruling in the YAML.
EXPECTED_WARNINGS = {
    # ruling lance-points: (2 - 1) x 5 = 5, printed 25
    ("melee_weapons", "Lance (on foot)", "points", "25", "5"),
    # ruling missing-animals: 12.5 / 4 = 3.125, printed "about 4"
    ("wagon_speed_examples", "2 one horse killed", "printed_speed", "4", "3.125"),
    ("wagon_speed_examples", "4 one horse and three soldiers", "printed_speed", "4", "3.125"),
    # ruling baseplate-3000: 30 x 50 = 1500
    ("baseplate_areas", "30x50 baseplate", "printed_dots", "3000", "1500"),
    # ruling building-example-7200: 5760 + 500 + 500 + 5 x 288 = 8200
    ("building_examples", "576 dots, same features", "printed_cost", "7200", "8200"),
}


def test_validate_reports_exactly_the_documented_disagreements():
    findings = check_ruleset("legowars")
    assert [f for f in findings if f.severity == "error"] == []
    found = set()
    for f in findings:
        assert f.code == "table-check", f.message
        match = _CHECK.search(f.message)
        assert match, f.message
        found.add(match.groups())
    assert found == EXPECTED_WARNINGS


def test_validate_cli_exit_code_is_zero():
    assert main(["validate", "rules/legowars/legowars.yaml"]) == 0


def test_header_and_metadata(rs):
    path = Path(rs.path)
    assert path.read_text(encoding="utf-8").splitlines()[0] == \
        "# yaml-language-server: $schema=../../schema/ruleset.schema.json"
    assert rs.id == "legowars"
    assert rs.source == "002_865ce0ad620ad362.txt"


RULINGS = ["movement-15-vs-10", "unarmed-damage", "lance-points", "long-range-three-times-short",
           "catapult-units", "heavy-weapon-points", "missing-animals", "building-armour-over",
           "building-structure-over", "baseplate-3000", "building-example-7200", "odd-wheels",
           "men-as-horses", "initiative-ties", "natural-one-beats-modifiers", "bow-in-melee",
           "spear-two-tables", "minimum-cost", "four-stats", "open-tabletop", "play-policy",
           "riderless-horse", "melee-reach", "range-bands"]


@pytest.mark.parametrize("ruling", RULINGS)
def test_rulings_recorded(rs, ruling):
    entry = next(r for r in rs.rulings if r["id"] == ruling)
    assert entry["text"] and entry["ruling"] and entry["why"]


# ------------------------------------------------------------- tables and formulas

def cell(rs, table, row, column):
    return rs.tables[table].row(row).get(column)


# Chapter 1 / Chapter 6 stats tables
@pytest.mark.parametrize("row, armour, cost, damage, movement, to_hit", [
    ("Man", 5, 10, 0, 10, 7),       # ruling movement-15-vs-10, unarmed-damage
    ("Horse", 7, 25, 0, 25, 9),
])
def test_creature_stats(rs, row, armour, cost, damage, movement, to_hit):
    assert [cell(rs, "creatures", row, c) for c in ("armour", "cost", "damage", "movement", "to_hit")] \
        == [armour, cost, damage, movement, to_hit]


# creature formula: 2 + (ARMOR + DAMAGE + MOVEMENT - TO-HIT)
@pytest.mark.parametrize("row, printed, formula", [
    ("Man", 10, 2 + (5 + 0 + 10 - 7)),       # = 10 (with 15 cm and -2 damage it would be 13)
    ("Horse", 25, 2 + (7 + 0 + 25 - 9)),     # = 25
])
def test_creature_points_formula(rs, row, printed, formula):
    assert cell(rs, "creatures", row, "cost") == printed == formula


# melee: max(5, (Damage - To-Hit) x 5)
@pytest.mark.parametrize("row, damage, to_hit, printed, formula", [
    ("Club", 1, 0, 5, 5),
    ("Halberd", 4, -2, 30, 30),
    ("Hammer", 2, 0, 10, 10),
    ("Lance (on foot)", 2, 1, 25, 5),        # disagrees: ruling lance-points
    ("Lance (mounted)", 4, -1, 25, 25),
    ("Pitchfork", 1, -1, 10, 10),
    ("Spear", 2, -1, 15, 15),
    ("Sword", 3, -1, 20, 20),
])
def test_melee_weapon_points_formula(rs, row, damage, to_hit, printed, formula):
    assert cell(rs, "melee_weapons", row, "damage") == damage
    assert cell(rs, "melee_weapons", row, "to_hit") == to_hit
    assert cell(rs, "melee_weapons", row, "points") == printed
    assert max(5, (damage - to_hit) * 5) == formula


# ranged and heavy: max(5, ((Damage - To-Hit) x Long) / 2); the ram (no range): melee formula
@pytest.mark.parametrize("table, row, damage, to_hit, short_max, long_max, printed, formula", [
    ("ranged_weapons", "Bow", 1, -1, 20, 60, 60, 60),            # (1+1) x 60 / 2
    ("ranged_weapons", "Spear", 1, 0, 10, 30, 15, 15),           # 1 x 30 / 2
    ("heavy_weapons", "Ballista", 8, 5, 50, 150, 225, 225),      # 3 x 150 / 2
    ("heavy_weapons", "Battering ram", 20, 8, 0, 0, 60, 60),     # (20-8) x 5 (ruling heavy-weapon-points)
    ("heavy_weapons", "Catapult", 15, 8, 30, 90, 315, 315),      # 7 x 90 / 2 (ruling catapult-units)
])
def test_ranged_weapon_points_formula(rs, table, row, damage, to_hit, short_max, long_max, printed, formula):
    got = [cell(rs, table, row, c) for c in ("damage", "to_hit", "short_max", "long_max", "points")]
    assert got == [damage, to_hit, short_max, long_max, printed]
    computed = max(5, (damage - to_hit) * 5) if long_max == 0 else max(5, (damage - to_hit) * long_max // 2)
    assert computed == formula == printed
    assert long_max == 3 * short_max            # "Long range is three times Short range"


@pytest.mark.parametrize("row, bonus, points", [
    ("Body armor", 2, 10), ("Helmet", 1, 5), ("Leather armor", 1, 5),
    ("No armor", 0, 0), ("Plate armor", 4, 20), ("Shield", 1, 5),
])
def test_armour_table(rs, row, bonus, points):
    assert (cell(rs, "armour_table", row, "bonus"), cell(rs, "armour_table", row, "points")) == (bonus, points)


@pytest.mark.parametrize("row, points", [
    ("Arrow quiver", 10), ("Horse cloth", 5), ("Saddle", 5), ("Torch", 5),
])
def test_other_items(rs, row, points):
    assert cell(rs, "other_items", row, "points") == points


@pytest.mark.parametrize("item, points", [
    ("Sword", 20), ("Lance", 25), ("Bow", 60), ("Spear", 15), ("Horse", 25), ("Saddle", 5),
    ("Plate armor", 20), ("Catapult", 315),
])
def test_price_list_reads_the_tables(rs, item, points):
    assert cell(rs, "price_list", item, "points") == points


@pytest.mark.parametrize("name, modifier", [("cover", 3), ("building", -5), ("dead", -5), ("vehicle", -2)])
def test_to_hit_modifiers(rs, name, modifier):
    assert cell(rs, "to_hit_modifiers", name, "modifier") == modifier


# ------------------------------------------------------------------ worked examples

# Chapter 7: 75 + 5x3 + 10x4 + 10x2 = 150
@pytest.mark.parametrize("inputs, cost", [
    ({"wheels": "4", "seats": "3"}, 150),
    ({"wheels": "2", "seats": "1"}, 75 + 5 + 20 + 10),
    ({"wheels": "4", "seats": "0", "armour": "12", "structure": "3"}, 75 + 40 + 20 + 10 + 50),
    ({"wheels": "3", "seats": "0"}, 75 + 30 + 20),                # ruling odd-wheels: 2 horses
])
def test_vehicle_cost_worked_example(rs, inputs, cost):
    assert run(rs, "vehicle_cost", **inputs) == cost


# Chapter 7 wagon example: 12.5 cm, "about 4" (rule: 3.125), 5 cm, back to "about 4" (3.125)
@pytest.mark.parametrize("inputs, speed", [
    ({"wheels": "4", "horses": "2"}, Fraction(25, 2)),
    ({"wheels": "4", "horses": "1"}, Fraction(25, 8)),             # ruling missing-animals
    ({"wheels": "4", "horses": "1", "men": "4"}, 5),               # lowest MOVEMENT: men's 10 / 2
    ({"wheels": "4", "horses": "1", "men": "3"}, Fraction(25, 8)), # three men count as none
    ({"wheels": "4", "horses": "0", "men": "16"}, 5),              # "16 men to pull/push it"
    ({"wheels": "4", "horses": "0", "men": "3"}, 0),               # nobody pulls
    ({"wheels": "4", "horses": "0", "men": "4"}, Fraction(5, 4)),  # one team, one missing
])
def test_wagon_speed_worked_example(rs, inputs, speed):
    assert run(rs, "wagon_speed", **inputs) == speed


# Chapter 8: 15000 -> 16000 -> 19750; 5760 -> 8200 by formula (text: 7200)
@pytest.mark.parametrize("inputs, cost", [
    ({"area": "1500", "levels": "2"}, 15000),
    ({"area": "1500", "levels": "2", "firing_ports": "10", "extra_doors": "1"}, 16000),
    ({"area": "1500", "levels": "2", "firing_ports": "10", "extra_doors": "1", "armour": "20"}, 19750),
    # the table's literal "over 10": 16000 + 10 x 750 (ruling building-armour-over)
    ({"area": "1500", "levels": "2", "firing_ports": "10", "extra_doors": "1", "armour": "20",
      "armour_upgrade_over": "10"}, 23500),
    ({"area": "576", "levels": "2"}, 5760),
    ({"area": "576", "levels": "2", "firing_ports": "10", "extra_doors": "1", "armour": "20"}, 8200),
    # structure over 20 at 1% each: 15000 + 10 x 150
    ({"area": "1500", "levels": "2", "structure": "30"}, 16500),
    # rounding: 576 x 1 x 5 = 2880, +1% = 28.8 -> 2908.8 -> 2909
    ({"area": "576", "levels": "1", "structure": "21"}, 2909),
])
def test_building_cost_worked_examples(rs, inputs, cost):
    assert run(rs, "building_cost", **inputs) == cost


# ------------------------------------------------------------------------ points

@pytest.mark.parametrize("army, cost", [
    ('[["Body armor", "Helmet", "Shield", "Sword"]]', 50),
    ('[["Leather armor", "Bow", "Arrow quiver"]]', 85),
    ('[["Plate armor", "Helmet", "Halberd"]]', 65),
    ('[["Body armor", "Helmet", "Spear", "Spear"]]', 55),
    ('[["Leather armor", "Helmet", "Pitchfork"]]', 30),
    ('[["Plate armor", "Helmet", "Shield", "Lance", "Horse", "Saddle"]]', 95),
    ('[]', 0),
    ('[["Shield", "Sword", "Torch"]]', "illegal: more than two things in hand"),   # ruling hands
])
def test_army_cost(rs, army, cost):
    assert run(rs, "army_cost", army=army) == cost


def test_default_scenario_is_points_balanced(rs):
    good = ('[["Body armor", "Helmet", "Shield", "Sword"], ["Body armor", "Helmet", "Shield", "Sword"],'
            ' ["Leather armor", "Bow", "Arrow quiver"], ["Leather armor", "Bow", "Arrow quiver"]]')
    evil = ('[["Plate armor", "Helmet", "Halberd"], ["Plate armor", "Helmet", "Halberd"],'
            ' ["Body armor", "Helmet", "Spear", "Spear"], ["Body armor", "Helmet", "Spear", "Spear"],'
            ' ["Leather armor", "Helmet", "Pitchfork"]]')
    assert run(rs, "army_cost", army=good) == run(rs, "army_cost", army=evil) == 270
    # and the figures' own derived points in the scenario agree
    import random
    from interpreter.game.play import build_world
    world = build_world(rs, rs.scenarios["default"], random.Random(0), False)
    totals, gear = {}, {}
    for unit in world.units.values():
        totals[unit.side] = totals.get(unit.side, 0) + unit.dsl_attr("points")
        gear.setdefault(unit.side, []).append(list(unit.dsl_attr("gear")))
    assert totals == {"good": 270, "evil": 270}
    # army_cost prices the figures' own gear lists the same
    for side in ("good", "evil"):
        assert run(rs, "army_cost", army=json.dumps(gear[side])) == 270


# ------------------------------------------------------------------------ movement

@pytest.mark.parametrize("height, left, result", [
    ("0", "10", 10),
    ("1", "10", 5),
    ("2", "5", 0),
    ("2", "4", "not enough movement left: try again next turn"),
    ("3", "10", "impassable: go around or use a ladder"),
    ("7", "10", "impassable: go around or use a ladder"),
])
def test_obstacles(rs, height, left, result):
    assert run(rs, "climb_obstacle", height=height, movement_left=left) == result


# falling: 1D10 >= ARMOR -> dead; no natural rules
@pytest.mark.parametrize("body, p_dead", [
    ("No armor", Fraction(6, 10)),       # 5..10
    ("Body armor", Fraction(4, 10)),     # armour 7: 7..10
    ("Plate armor", Fraction(2, 10)),    # armour 9: 9, 10
])
def test_fall(rs, body, p_dead):
    dist = odds(rs, "fall", {"figure.body": body})
    assert dist.probability("killed by the fall") == p_dead


# ------------------------------------------------------------------------- combat
#
# Melee (Chapter 4): TO-HIT = 7 + weapon to_hit + cover 3 / building -5 / dead -5 /
# vehicle -2; hit on d10 >= TO-HIT, natural 1 misses, natural 10 hits.  Damage: d10 +
# DAMAGE >= ARMOR kills; natural 10 kills; natural 1 does not kill and breaks the weapon.
#
# 1. Sword (3, -1) vs plate armour (5 + 4 = 9): TO-HIT 6 -> faces 6..10, P(hit) = 1/2.
#    Damage d10 + 3 >= 9 -> faces 6..10 (natural 10 among them) = 5/10; natural 1 breaks.
#    P(kill) = 1/2 x 1/2 = 1/4; P(broken) = 1/2 x 1/10 = 1/20; P(hit only) = 1/2 x 4/10 = 1/5.
# 2. Unarmed vs plate 9: TO-HIT 7 -> 4/10; d10 >= 9 -> 2/10: kill 8/100; a natural 1 breaks
#    nothing (ruling natural-one-beats-modifiers): hit only = 4/10 x 8/10 = 32/100.
# 3. Sword vs plate in cover: TO-HIT 9 -> 2/10; kill 2/10 x 5/10 = 1/10; broken 2/100.
# 4. Lance on foot (2, +1) vs plate in cover: TO-HIT 11 -> only a natural 10 hits: 1/10;
#    d10 + 2 >= 9 -> 7..10 = 4/10: kill 4/100; broken 1/100.
# 5. Lance mounted (4, -1) vs plate: TO-HIT 6 -> 1/2; d10 + 4 >= 9 -> 5..10 = 6/10: kill 3/10.
# 6. Unarmed vs plate + helmet + shield (11): only a natural 10 kills: 4/10 x 1/10 = 1/25.
# 7. Sword vs a building (ARMOR 15, STRUCTURE 20): TO-HIT 7 - 1 - 5 = 1, but a natural 1
#    misses: 9/10; d10 + 3 >= 15 only on a natural 10: 9/100 structure damaged, 9/100 broken.
# 8. Battering ram (20, +8) vs building: TO-HIT 7 + 8 - 5 = 10 -> 1/10; 20 + d10 >= 15
#    always, except that a natural 1 breaks the ram: damaged 9/100, broken 1/100.
# 9. Sword vs a man (5) on a ladder: hit 1/2; d10 + 3 >= 5 -> 2..10 = 9/10: kill 9/20; a
#    natural 1 (1/20) breaks the sword and he falls: d10 >= 5 (6/10) kills: 3/100, 2/100 not.
MELEE = [
    ({"attacker.weapon": "Sword", "target.body": "Plate armor"},
     {"miss": "1/2", "hit": "1/5", "kill": "1/4", "weapon broken": "1/20"}),
    ({"target.body": "Plate armor"},
     {"miss": "3/5", "hit": "8/25", "kill": "2/25"}),
    ({"attacker.weapon": "Sword", "target.body": "Plate armor", "cover": "true"},
     {"miss": "4/5", "hit": "2/25", "kill": "1/10", "weapon broken": "1/50"}),
    ({"attacker.weapon": "Lance", "target.body": "Plate armor", "cover": "true"},
     {"miss": "9/10", "hit": "1/20", "kill": "1/25", "weapon broken": "1/100"}),
    ({"attacker.weapon": "Lance", "attacker.mounted": "true", "target.body": "Plate armor"},
     {"miss": "1/2", "hit": "3/20", "kill": "3/10", "weapon broken": "1/20"}),
    ({"target.body": "Plate armor", "target.helmet": "true", "target.shield": "true"},
     {"miss": "3/5", "hit": "9/25", "kill": "1/25"}),
    ({"attacker.weapon": "Sword", "target.type": "building", "target.armour": "15", "target.structure": "20"},
     {"miss": "1/10", "hit": "18/25", "structure damaged": "9/100", "weapon broken": "9/100"}),
    ({"attacker.heavy": "Battering ram", "target.type": "building", "target.armour": "15", "target.structure": "20"},
     {"miss": "9/10", "structure damaged": "9/100", "weapon broken": "1/100"}),
    ({"attacker.weapon": "Sword", "target.on_ladder": "true"},
     {"miss": "1/2", "kill": "9/20", "weapon broken; killed by the fall": "3/100",
      "weapon broken; fell": "1/50"}),
    ({"attacker.weapon": "Sword", "distance": "6"}, {"out of range": "1"}),
    ({"attacker.weapon": "Sword", "distance": "5"},
     {"miss": "1/2", "kill": "9/20", "weapon broken": "1/20"}),     # 5 cm is still melee
]


@pytest.mark.parametrize("inputs, expected", MELEE)
def test_melee_attack_exact_odds(rs, inputs, expected):
    dist = odds(rs, "melee_attack", inputs)
    assert {k: str(dist.probability(k)) for k in dist.values()} == expected


def test_melee_sword_vs_plate_kill_probability(rs):
    dist = rs.run_odds("melee_attack", {"attacker.weapon": "Sword", "target.body": "Plate armor"}).outcomes
    assert dist.probability("kill") == Fraction(1, 4)


# Ranged (Chapter 4): base TO-HIT 5 at Short, 8 at Long, then as melee.
# 1. Bow (1, -1) at 15 cm (Short) vs an unarmoured man (5): TO-HIT 4 -> 4..10 = 7/10;
#    d10 + 1 >= 5 -> 4..10 = 7/10: kill 49/100; broken 7/100; hit only 7/10 x 2/10 = 7/50.
# 2. Bow at 40 cm (Long): TO-HIT 7 -> 4/10: kill 4/10 x 7/10 = 7/25; broken 1/25.
# 3. Bow at 20.5 cm: Long (ruling range-bands), as 2.
# 4. Bow at 61 cm: beyond Long range, no roll.
# 5. Thrown spear (1, 0) at 20 cm (Long: 11-30) vs body armour (7): TO-HIT 8 -> 3/10;
#    d10 + 1 >= 7 -> 6..10 = 5/10: kill 3/20; broken 3/100.
# 6. Ballista (8, +5) at 100 cm (Long) vs a vehicle (ARMOR 10, STRUCTURE 2): TO-HIT
#    8 + 5 - 2 = 11: natural 10 only, 1/10; d10 + 8 >= 10 -> 2..10 = 9/10: damaged 9/100.
# 7. Catapult (15, +8) at 20 cm (Short) vs a building in cover: 5 + 8 - 5 + 3 = 11 -> 1/10;
#    15 + d10 >= 15 always except natural 1: damaged 9/100, broken 1/100.
RANGED = [
    ({"attacker.bow": "true", "distance": "15"},
     {"miss": "3/10", "hit": "7/50", "kill": "49/100", "weapon broken": "7/100"}),
    ({"attacker.bow": "true", "distance": "40"},
     {"miss": "3/5", "hit": "2/25", "kill": "7/25", "weapon broken": "1/25"}),
    ({"attacker.bow": "true", "distance": "20.5"},
     {"miss": "3/5", "hit": "2/25", "kill": "7/25", "weapon broken": "1/25"}),
    ({"attacker.bow": "true", "distance": "61"}, {"out of range": "1"}),
    ({"attacker.spears": "1", "weapon": "Spear", "distance": "20", "target.body": "Body armor"},
     {"miss": "7/10", "hit": "3/25", "kill": "3/20", "weapon broken": "3/100"}),
    ({"weapon": "Spear", "distance": "20"}, {"no weapon to shoot": "1"}),
    ({"attacker.heavy": "Ballista", "weapon": "Ballista", "distance": "100", "target.type": "vehicle",
      "target.armour": "10", "target.structure": "2"},
     {"miss": "9/10", "structure damaged": "9/100", "weapon broken": "1/100"}),
    ({"attacker.heavy": "Catapult", "weapon": "Catapult", "distance": "20", "cover": "true",
      "target.type": "building", "target.armour": "15", "target.structure": "20"},
     {"miss": "9/10", "structure damaged": "9/100", "weapon broken": "1/100"}),
]


@pytest.mark.parametrize("inputs, expected", RANGED)
def test_ranged_attack_exact_odds(rs, inputs, expected):
    dist = odds(rs, "ranged_attack", inputs)
    assert {k: str(dist.probability(k)) for k in dist.values()} == expected


# number of shots: a lone bow fires once, a quiver gives unlimited shots (unless the bow
# breaks on a natural 1 damage roll: 7/10 x 1/10 = 7/100), spears are thrown
@pytest.mark.parametrize("inputs, field, value, p", [
    ({"attacker.bow": "true", "distance": "15"}, "bow_ready", False, Fraction(1)),
    ({"attacker.bow": "true", "attacker.quiver": "true", "distance": "15"}, "bow_ready", True, Fraction(93, 100)),
    ({"attacker.spears": "2", "weapon": "Spear", "distance": "5"}, "spears", 1, Fraction(1)),
])
def test_number_of_shots(rs, inputs, field, value, p):
    result = rs.run_odds("ranged_attack", inputs, track=[f"attacker.{field}"])
    dist = result.tracked[f"attacker.{field}"]
    assert dist.probability(value) == p


# picking up or dropping instead of attacking
@pytest.mark.parametrize("procedure, inputs", [
    ("melee_attack", {"attacker.acted": "true"}),
    ("melee_attack", {"attacker.on_ladder": "true"}),
    ("ranged_attack", {"attacker.bow": "true", "attacker.acted": "true"}),
])
def test_no_attack_after_acting(rs, procedure, inputs):
    assert odds(rs, procedure, inputs).probability("cannot attack") == 1


def test_pick_up_uses_the_attack(rs):
    result = rs.run_odds("pick_up", {"item": "Spear"}, track=["figure.acted", "figure.spears"])
    assert result.tracked["figure.acted"].probability(True) == 1
    assert result.tracked["figure.spears"].probability(1) == 1


# ------------------------------------------------------------------------- play

def _json_default(value):
    """Exact non-integers as "a/b", as the engine writes every other value."""
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    raise TypeError(f"not JSON: {value!r}")


def play_json_lines(rs, scenario, seed):
    """The lines of `rulecraft play legowars --seed N --json`."""
    import subprocess
    import sys
    args = [sys.executable, "-m", "interpreter", "play", "legowars", "--seed", str(seed), "--json"]
    if scenario:
        args += ["--scenario", scenario]
    out = subprocess.run(args, capture_output=True, text=True, cwd=Path(__file__).parent.parent)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_golden_transcript_seed_1(rs):
    # Every event, roll, value, choice and its `text` must match.  Regenerate with
    #   python -c "from tests.test_rules_legowars import regenerate; regenerate()"
    lines = play_json_lines(rs, None, 1)
    golden = (GOLDEN / "legowars_play_seed1.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(golden)
    assert [json.loads(l) for l in lines] == [json.loads(g) for g in golden]
    result = json.loads(lines[-1])
    assert result["reason"] == "only one side is left (step 4)"
    assert result["winner"] in ("good", "evil")
    assert 0 in result["survivors"].values()


def regenerate():
    lines = play_json_lines(load_ruleset("legowars"), None, 1)
    (GOLDEN / "legowars_play_seed1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------- tabletop play

def _fraction(value):
    return Fraction(str(value))


@pytest.fixture(scope="module")
def games(rs):
    """Events of a few default games, by seed."""
    return {seed: rs.play(None, seed).events for seed in (1, 2, 3, 4, 5)}


def test_default_scenario_is_on_a_tabletop(rs):
    import random
    from interpreter.game.play import build_world
    assert rs.space == "tabletop"
    world = build_world(rs, rs.scenarios["default"], random.Random(0), False)
    assert len(world.positions) == 9
    units = {u.name: u for u in world.units.values()}
    # the lines are 50 cm apart: Swordsman 2 (10, 0) to Halberdier 2 (20, 50) is
    # sqrt(2600) = 50.99 (exact to 1/100); the archers (-30, 0) and (30, 0) are 60 apart
    assert world.distance(units["Swordsman 2"], units["Halberdier 2"]) == Fraction(5099, 100)
    assert world.distance(units["Archer 1"], units["Archer 2"]) == 60


def test_moves_are_measured_and_at_most_movement(games):
    for events in games.values():
        moves = [e for e in events if e["event"] == "let" and e["name"] == "step"]
        assert moves
        assert all(0 <= _fraction(e["value"]) <= 10 for e in moves)   # MOVEMENT 10
        positions = [e for e in events if e["event"] == "move"]
        assert positions and all(set(e["position"]) == {"x", "y", "facing"} for e in positions)


def test_melee_only_within_5_cm_and_shots_within_long_range(games):
    attacks = 0
    for events in games.values():
        for i, e in enumerate(events):
            if e["event"] != "call" or e["procedure"] not in ("melee_attack", "ranged_attack"):
                continue
            d = _fraction(re.search(r"distance=([^,)]+)", e["text"]).group(1))
            attacks += 1
            if e["procedure"] == "melee_attack":
                assert d <= 5
            else:
                weapon = re.search(r"weapon=(\w+)", e["text"]).group(1)
                assert d > 5 and d <= {"Bow": 60, "Spear": 30}[weapon]
    assert attacks > 20


def test_figures_stop_at_their_standoff_distance(games):
    # ruling play-policy: a loaded bow stops at 20 cm, a spare spear at 10 cm, everyone
    # else just inside melee reach (4.99 cm); nobody overshoots
    keeps = set()
    for events in games.values():
        keep = None
        for e in events:
            if e["event"] == "let" and e["name"] == "keep":
                keep = _fraction(e["value"])
                keeps.add(keep)
            if e["event"] == "emit" and " moves " in e["text"]:
                assert int(re.search(r"now about (\d+) cm", e["text"]).group(1)) >= round(keep)
    assert keeps == {20, 10, Fraction(499, 100)}


def test_riderless_horse_flees_on_its_next_move(rs):
    # ruling riderless-horse: every attack on the horse (hit or miss) makes it run its
    # MOVEMENT (25 cm) straight away from the attacker at the start of the next movement
    fled = 0
    for seed in range(1, 9):
        events = rs.play("riderless_horse", seed).events
        attacked = {e["turn"] for e in events
                    if e["event"] == "call" and e["procedure"] == "strike" and "target=Horse" in e["text"]}
        killed = min([e["turn"] for e in events if e["event"] == "destroyed" and e["unit"] == "Horse"],
                     default=None)
        flees = [e for e in events if e["event"] == "move" and e["unit"] == "Horse"]
        assert {e["turn"] for e in flees} == {t + 1 for t in attacked
                                              if (killed is None or t < killed) and
                                              t + 1 <= events[-1]["turn"]}
        for e in flees:
            assert e["phase"] == "movement" and e["text"].startswith("Horse moves away")
        fled += len(flees)
        statuses = [e for e in events if e["event"] == "status" and e["unit"] == "Horse"]
        assert all(s["turns"] == 1 for s in statuses if not s.get("ended"))
    assert fled > 0


def test_simulate_every_game_ends_with_one_side_left(rs):
    from interpreter.game.simulate import simulate
    summary = simulate(rs, None, 50, seed=3)
    assert "no winner" not in summary.wins
    assert sum(summary.wins.values()) == 50


def test_tables_command_prints_every_table(capsys):
    assert main(["tables", "legowars", "--format", "md"]) == 0
    out = capsys.readouterr().out
    for title in ("ARMOR TABLE", "MELEE WEAPONS TABLE", "RANGED WEAPONS TABLE", "OTHER ITEMS TABLE",
                  "HEAVY WEAPONS TABLE", "TO-HIT modifiers table", "Price list"):
        assert title in out


# ------------------------------------------------------- a ridden horse's own attack
#
# Ruling ridden-horse-attack: "Horses don't attack by themselves, they only do so if
# someone is riding them".  The horse's attack is a melee attack with the horse's TO-HIT 9
# and DAMAGE 0 (Chapter 6), the target's TO-HIT modifiers and the natural 1 / 10 rules.
# 1. vs a man without armour (5): hit on 9, 10 = 2/10; d10 + 0 >= 5 -> 5..10 = 6/10:
#    kill 12/100 = 3/25; hit only 2/10 x 4/10 = 2/25; miss 8/10.
# 2. vs plate armour (9): d10 >= 9 -> 2/10: kill 4/100 = 1/25, hit only 2/10 x 8/10 = 4/25.
# 3. vs a man without armour in cover: TO-HIT 12, only a natural 10 hits: 1/10; kill
#    1/10 x 6/10 = 3/50, hit only 1/10 x 4/10 = 1/25.
# 4. vs a vehicle (ARMOR 10, STRUCTURE 1): TO-HIT 9 - 2 = 7 -> 7..10 = 4/10; d10 >= 10
#    only on a natural 10: destroyed 4/100 = 1/25, hit only 4/10 x 9/10 = 9/25.
# 5. vs plate + helmet + shield (11): only a natural 10 on the damage roll: 2/100 = 1/50.
# A natural 1 on the damage roll breaks nothing (the horse has no weapon): "hit".
HORSE_ATTACK = [
    ({"rider.mounted": "true"}, {"miss": "4/5", "hit": "2/25", "kill": "3/25"}),
    ({"rider.mounted": "true", "target.body": "Plate armor"},
     {"miss": "4/5", "hit": "4/25", "kill": "1/25"}),
    ({"rider.mounted": "true", "cover": "true"}, {"miss": "9/10", "hit": "1/25", "kill": "3/50"}),
    ({"rider.mounted": "true", "target.type": "vehicle", "target.armour": "10"},
     {"miss": "3/5", "hit": "9/25", "destroyed": "1/25"}),
    ({"rider.mounted": "true", "target.body": "Plate armor", "target.helmet": "true",
      "target.shield": "true"}, {"miss": "4/5", "hit": "9/50", "kill": "1/50"}),
    # the rider's own weapon plays no part in the horse's attack
    ({"rider.mounted": "true", "rider.weapon": "Lance"}, {"miss": "4/5", "hit": "2/25", "kill": "3/25"}),
    ({"rider.mounted": "true", "distance": "5"}, {"miss": "4/5", "hit": "2/25", "kill": "3/25"}),
    ({"rider.mounted": "true", "distance": "6"}, {"out of range": "1"}),
    ({"rider.mounted": "true", "rider.on_ladder": "true"}, {"cannot attack": "1"}),
    # "Horses don't attack by themselves": no horse under the figure, no horse attack
    ({}, {"no horse": "1"}),
    # picking something up stops the man's attack, not his horse's
    ({"rider.mounted": "true", "rider.acted": "true"}, {"miss": "4/5", "hit": "2/25", "kill": "3/25"}),
]


@pytest.mark.parametrize("inputs, expected", HORSE_ATTACK)
def test_ridden_horse_attack_exact_odds(rs, inputs, expected):
    dist = odds(rs, "horse_attack", inputs)
    assert {k: str(dist.probability(k)) for k in dist.values()} == expected


def test_ridden_horse_attack_uses_the_horse_stats(rs):
    horse = rs.tables["creatures"].lookup("Horse")
    assert (horse.get("to_hit"), horse.get("damage")) == (9, 0)


def test_ridden_horse_natural_one_breaks_nothing(rs):
    """The rider's sword survives any damage roll of his horse's attack."""
    result = rs.run_odds("horse_attack", {"rider.mounted": "true", "rider.weapon": "Sword"},
                         track=["rider.weapon"])
    assert result.tracked["rider.weapon"].probability("Sword") == 1


def test_ridden_horse_ruling_recorded(rs):
    by_id = {r["id"]: r for r in rs.rulings}
    for key in ("text", "ruling", "why"):
        assert by_id["ridden-horse-attack"][key].strip()


def test_mounted_knight_horse_attacks_in_play(rs):
    """Scenario mounted_knight: the knight's horse attacks in the attack phase, within
    melee reach, after its rider's own attack, at most once a turn; nobody else's does."""
    horse_attacks = 0
    for seed in range(1, 11):
        events = rs.play("mounted_knight", seed).events
        calls = [(i, e) for i, e in enumerate(events)
                 if e["event"] == "call" and e["procedure"] in ("fight", "horse_attack")]
        per_turn: dict = {}
        for i, e in calls:
            if e["procedure"] != "horse_attack":
                continue
            horse_attacks += 1
            assert e["phase"] == "attack" and "rider=Knight" in e["text"]
            d = Fraction(re.search(r"distance=([\d/]+)", e["text"]).group(1))
            assert d <= 5
            per_turn[e["turn"]] = per_turn.get(e["turn"], 0) + 1
            knight_fights = [j for j, f in calls if f["procedure"] == "fight" and f["turn"] == e["turn"]
                             and "attacker=Knight" in f["text"]]
            assert all(j < i for j in knight_fights)
        assert all(n == 1 for n in per_turn.values())
    assert horse_attacks > 3
