"""Tanks: Crucial Warfare (rules/tanks/tanks.yaml): every worked example and table of the
text, case by case; exact odds of `shoot` derived by hand from the text; a golden
transcript of `play tanks --seed 1 --json`.

Regenerate the golden transcript (after checking the change is intended) with
    RULECRAFT_UPDATE_GOLDEN=1 python -m pytest tests/test_rules_tanks.py -k golden
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.ruleset import check_ruleset, load_ruleset

ROOT = Path(__file__).resolve().parent.parent
PATH = ROOT / "rules" / "tanks" / "tanks.yaml"
GOLDEN = ROOT / "tests" / "golden" / "tanks_play_seed1.jsonl"


@pytest.fixture(scope="module")
def tanks():
    return load_ruleset(PATH)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "interpreter", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


# --------------------------------------------------------------------------- the file


def test_validates_clean():
    findings = check_ruleset(PATH)
    assert [f for f in findings if f.severity == "error"] == []
    assert [f for f in findings if f.severity == "warning"] == []


def test_validate_cli_clean():
    done = cli("validate", str(PATH))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 errors, 0 warnings" in done.stdout + done.stderr


def test_header_and_metadata(tanks):
    first = PATH.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=../../schema/ruleset.schema.json"
    assert tanks.id == "tanks"
    assert tanks.title == "Tanks: Crucial Warfare"
    assert tanks.source == "003_73c6751d54e998b5.txt"
    assert load_ruleset("tanks").path.resolve() == PATH.resolve()


RULINGS = ["measurement-unit", "turn-sequence", "priority-choice", "next-turn",
           "stunned-embarking", "full-range", "out-of-range", "arcs-and-turning",
           "one-shot-per-weapon", "crew-armour-save", "crew-fate", "weapon-destroyed-choice",
           "immobilised-groups", "terrain-rounding", "amphibious", "group-terrain",
           "break-allowance", "embark-after-move", "embark-unit-movement", "infantry-absent",
           "transport-capacity", "example-vehicles", "victory", "abstract-table"]


@pytest.mark.parametrize("ruling", RULINGS)
def test_rulings_recorded(tanks, ruling):
    by_id = {r["id"]: r for r in tanks.rulings}
    assert ruling in by_id
    for key in ("text", "ruling", "why"):
        assert by_id[ruling][key].strip()


def test_rulings_unique(tanks):
    ids = [r["id"] for r in tanks.rulings]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("table", ["weapons", "vehicles", "arc_struck"])
def test_example_data_is_labelled(tanks, table):
    t = tanks.tables[table]
    assert "EXAMPLE" in (t.title or "") and "not from the text" in (t.title or "").lower()
    assert "NOT FROM THE TEXT" in t.description


# ----------------------------------------------------------------- to hit (BS table)

TO_HIT = [(1, 6), (2, 5), (3, 4), (4, 3), (5, 2), (6, 2), (10, 2)]


@pytest.mark.parametrize("bs, needed", TO_HIT)
def test_to_hit_table(tanks, bs, needed):
    """BS 1 2 3 4 5+ / 6+ 5+ 4+ 3+ 2+ (text)."""
    assert tanks.tables["to_hit"].lookup(bs) == needed


@pytest.mark.parametrize("bs, needed", TO_HIT[:6])
def test_to_hit_probability_in_shoot(tanks, bs, needed):
    """P(miss) of a shot in range is P(d6 < needed) = (needed - 1)/6."""
    odds = tanks.run_odds("shoot", {"shooter.bs": str(bs)})
    assert odds.outcomes.probability("miss") == Fraction(needed - 1, 6)


# ------------------------------------------------------------------------ range bands

RANGE_BAND = [
    # distance, range, band, strength modifier
    (5, 36, "below half range", 1),
    (17, 36, "below half range", 1),
    (18, 36, "average range", 0),     # exactly half range: average (ruling full-range)
    (35, 36, "average range", 0),
    (36, 36, "full range", -1),       # the weapon's maximum range
    (37, 36, "out of range", 0),
    (9, 18, "average range", 0),
    (8, 18, "below half range", 1),
    (14, 28, "average range", 0),
    (13, 27, "below half range", 1),  # 13 < 13.5
    (14, 27, "average range", 0),
]


@pytest.mark.parametrize("distance, weapon_range, band, modifier", RANGE_BAND)
def test_range_band(tanks, distance, weapon_range, band, modifier):
    result = tanks.run("range_band", {"distance": str(distance), "range": str(weapon_range)}, seed=1)
    assert result.result == band
    assert tanks.tables["range_modifier"].lookup(band).get("modifier") == modifier


def test_out_of_range_shot_has_gone_too_far(tanks):
    odds = tanks.run_odds("shoot", {"distance": "40", "weapon.range": "36"})
    assert odds.outcomes.probability("out of range") == 1


# ----------------------------------------------------------------- terrain (movement)

TERRAIN = [
    # speed, terrain, amphibious, inches
    (12, "easy", False, 12),
    (12, "moderate", False, 6),
    (12, "hard", False, 3),
    (12, "impossible", False, 0),
    (12, "impossible", True, 12),   # ruling amphibious
    (6, "hard", False, 1),          # 1.5 rounded down (ruling terrain-rounding)
    (10, "hard", False, 2),         # 2.5 rounded down
    (7, "moderate", False, 3),      # 3.5 rounded down
    (14, "moderate", False, 7),
    (10, "moderate", True, 5),      # amphibious changes nothing on land
]


@pytest.mark.parametrize("speed, terrain, amphibious, inches", TERRAIN)
def test_terrain_speed(tanks, speed, terrain, amphibious, inches):
    result = tanks.run("terrain_speed", {"speed": str(speed), "terrain": terrain,
                                         "amphibious": str(amphibious).lower()}, seed=1)
    assert result.result == inches


@pytest.mark.parametrize("terrain, fraction", [("easy", 1), ("moderate", Fraction(1, 2)),
                                               ("hard", Fraction(1, 4)), ("impossible", 0)])
def test_terrain_table(tanks, terrain, fraction):
    assert tanks.tables["terrain_types"].lookup(terrain).get("fraction") == fraction


# ------------------------------------------------------------ group movement (worked examples)

GROUP_MOVE = [
    # speeds, terrain, amphibious, group allowance
    ("[12, 12, 6]", "easy", False, 6),       # the text's example: moves only 6"
    ("[12, 12, 6]", "moderate", False, 3),   # "which includes over difficult terrain"
    ("[12, 12, 6]", "hard", False, 1),
    ("[12, 10]", "easy", False, 10),
    ("[10, 10]", "impossible", False, 0),
    ("[10, 10]", "impossible", True, 10),
]


@pytest.mark.parametrize("speeds, terrain, amphibious, allowance", GROUP_MOVE)
def test_group_move(tanks, speeds, terrain, amphibious, allowance):
    result = tanks.run("group_move", {"speeds": speeds, "terrain": terrain,
                                      "amphibious": str(amphibious).lower()}, seed=1)
    assert result.result == allowance


BREAK_GROUP = [
    # speeds, moved, terrain, inches left to each member
    ("[12, 12, 6]", "3", "easy", [9, 9, 3]),      # the text's worked example
    ("[12, 12, 6]", "6", "easy", [6, 6, 0]),      # moved its full group distance
    ("[12, 12, 6]", "0", "easy", [12, 12, 6]),
    ("[12, 12, 6]", "1", "moderate", [5, 5, 2]),
]


@pytest.mark.parametrize("speeds, moved, terrain, left", BREAK_GROUP)
def test_break_group(tanks, speeds, moved, terrain, left):
    result = tanks.run("break_group", {"speeds": speeds, "moved": moved, "terrain": terrain}, seed=1)
    assert list(result.result) == left


def test_break_group_refuses_moving_past_the_slowest(tanks):
    result = tanks.run("break_group", {"speeds": "[12, 12, 6]", "moved": "7"}, seed=1)
    assert "may not move further" in result.result


def test_group_examples_through_cli():
    done = cli("run", str(PATH), "break_group", "--with", "speeds=[12, 12, 6]",
               "--with", "moved=3", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == [9, 9, 3]
    done = cli("run", str(PATH), "group_move", "--with", "speeds=[12, 12, 6]", "--json")
    assert json.loads(done.stdout)["result"] == 6


# ------------------------------------------------------- embarking and disembarking (cases)

EMBARK_MOVE = [
    # action, vehicle speed, vehicle moved, unit speed, unit moved -> [vehicle left, unit left]
    # "If the crew embark before the vehicle moves then the vehicle may move up to its full distance"
    ("embark", 12, 0, 6, 0, [12, 0]),
    # "a unit of panzergrenadiers moves their full distance to come into base contact with an
    #  armoured car ... the armoured car may move its full distance"
    ("embark", 16, 0, 6, 6, [16, 0]),
    # "if they disembark before it moves then both the unit and vehicle may move up to their full distance"
    ("disembark", 12, 0, 6, 0, [12, 6]),
    # "... an armoured car which has moved its full distance that turn, when they embark the
    #  armoured car cannot move"
    ("embark", 16, 16, 6, 6, [0, 0]),
    # "If the car only moved a little it may move the rest of its allowed distance after
    #  embarking" (ruling embark-after-move)
    ("embark", 16, 4, 6, 6, [12, 0]),
    # "If the crew disembark after the vehicle has moved, neither the vehicle nor the unit may
    #  make further moves."
    ("disembark", 12, 4, 6, 0, [0, 0]),
    ("disembark", 12, 12, 6, 0, [0, 0]),
]


@pytest.mark.parametrize("action, v_speed, v_moved, u_speed, u_moved, left", EMBARK_MOVE)
def test_embark_move(tanks, action, v_speed, v_moved, u_speed, u_moved, left):
    result = tanks.run("embark_move", {"action": action, "vehicle_speed": str(v_speed),
                                       "vehicle_moved": str(v_moved), "unit_speed": str(u_speed),
                                       "unit_moved": str(u_moved)}, seed=1)
    assert list(result.result) == left


def test_no_embarking_when_stunned(tanks):
    result = tanks.run("embark_move", {"vehicle_can_embark": "false"}, seed=1)
    assert "stunned" in result.result


@pytest.mark.parametrize("case, vehicle, unit", [
    ("embark before the vehicle moves", "full", "none"),
    ("disembark before the vehicle moves", "full", "full"),
    ("embark after the vehicle has moved", "rest", "none"),
    ("disembark after the vehicle has moved", "none", "none"),
])
def test_embarking_table(tanks, case, vehicle, unit):
    row = tanks.tables["embarking"].lookup(case)
    assert (row.get("vehicle"), row.get("unit")) == (vehicle, unit)


# --------------------------------------------------------------------- damage tables

GLANCING = [(1, "crew shaken", "shaken"), (2, "crew shaken", "shaken"), (3, "crew stunned", "stunned"),
            (4, "immobilised", "immobilised"), (5, "weapon destroyed", ""), (6, "vehicle destroyed", "")]
PENETRATING = [(1, "crew stunned", "stunned"), (2, "immobilised", "immobilised"),
               (3, "weapon destroyed", ""), (4, "vehicle destroyed", ""),
               (5, "vehicle destroyed, crew armour save", ""),
               (6, "vehicle destroyed, everyone killed", "")]


@pytest.mark.parametrize("face, result, status", GLANCING)
def test_glancing_table(tanks, face, result, status):
    row = tanks.tables["glancing"].lookup(face)
    assert row.get("result") == result
    assert row.get("status") == status
    assert row.get("destroyed") is (face == 6)
    assert row.get("weapon_destroyed") is (face == 5)


@pytest.mark.parametrize("face, result, status", PENETRATING)
def test_penetrating_table(tanks, face, result, status):
    row = tanks.tables["penetrating"].lookup(face)
    assert row.get("result") == result
    assert row.get("status") == status
    assert row.get("destroyed") is (face >= 4)
    assert row.get("weapon_destroyed") is (face == 3)
    assert row.get("crew") == {4: "fine", 5: "armour save", 6: "killed"}.get(face, "")


@pytest.mark.parametrize("table", ["glancing", "penetrating"])
def test_damage_effect_statements_agree_with_columns(tanks, table):
    """Each row's `effect` statements say what damage_effect does from its columns."""
    for row in tanks.tables[table].rows:
        effect = " ".join(row.get("effect").statements)
        status, lasts = row.get("status"), row.get("lasts")
        if status:
            assert f'apply(target, "{status}"' in effect
            assert ("turns=1" in effect) == (lasts == "next turn")
        else:
            assert "apply(" not in effect
        assert ("destroy(target)" in effect) == row.get("destroyed")
        assert ("destroy_weapon(" in effect) == row.get("weapon_destroyed")
        crew = row.get("crew")
        assert ("crew_save(" in effect) == (crew == "armour save")


# ----------------------------------------------------------- exact odds of shoot, by hand
#
# Case A: BS 3 shooter (hits on 4+: P(hit) = 1/2), strength 6 weapon of range 36 at 20"
# (average range: modifier 0) against front armour 10.  Damage = 6 + d6 = 7..12:
#   less than 10 (d6 1-3): no effect   3/6;  equal (d6 4): glancing 1/6;  more (5-6): penetrating 2/6.
# So P(miss) = 1/2, P(no effect) = 1/2 * 1/2 = 1/4, P(glancing) = 1/12, P(penetrating) = 1/6.
# Glancing d6: 1-2 shaken (2/6), 3 stunned, 4 immobilised, 5 weapon, 6 destroyed (1/6 each).
# Penetrating d6: 1 stunned, 2 immobilised, 3 weapon, 4 destroyed, 5 crew save, 6 killed (1/6 each).
#   crew shaken      = 1/12 * 2/6            = 1/36
#   crew stunned     = 1/12 * 1/6 + 1/6 * 1/6 = 1/72 + 2/72 = 1/24
#   immobilised      = 1/24,  weapon destroyed = 1/24,  vehicle destroyed = 1/24
#   destroyed, crew armour save = 1/6 * 1/6 = 1/36;  destroyed, everyone killed = 1/36
#   total: 1/2 + 1/4 + 1/36 + 4/24 + 2/36 = 1.
#
# Case B: the same at 12" (below half range: +1) → damage 7 + d6 = 8..13 vs 10:
#   less (d6 1-2: 8, 9): 2/6;  equal (d6 3): 1/6;  more (d6 4-6): 3/6.
#   no effect = 1/2 * 1/3 = 1/6; glancing = 1/12; penetrating = 1/4.
#   crew shaken 1/12 * 1/3 = 1/36; crew stunned 1/72 + 1/24 = 1/18; immobilised 1/18;
#   weapon 1/18; vehicle destroyed 1/18; crew armour save 1/24; everyone killed 1/24.
#   total: 36/72 + 12/72 + 2/72 + 4 * 4/72 + 2 * 3/72 = 1.
#
# Case C: BS 1 (6+: 1/6), strength 6 at 36" (full range: -1) vs side armour 10: damage
#   5 + d6 = 6..11: equal on 5 (1/6), more on 6 (1/6), less 4/6.
#   miss 5/6; no effect 1/6 * 4/6 = 1/9; glancing 1/36, penetrating 1/36.
#   crew shaken 1/36 * 1/3 = 1/108; crew stunned 1/216 + 1/216 = 1/108; ...
#
# Case D: BS 5 (2+: 5/6), strength 3 (a machine gun) at 5" (+1) vs rear armour 10:
#   damage 4 + d6 = 5..10: equal only on 6. miss 1/6, no effect 5/6 * 5/6 = 25/36,
#   glancing 5/36, never penetrating: crew shaken 5/36 * 1/3 = 5/108.

F = Fraction

SHOOT_ODDS = [
    ("A: BS3 S6 average range vs 10",
     {"shooter.bs": "3", "weapon.strength": "6", "weapon.range": "36", "distance": "20",
      "target.armour.front": "10", "target_arc": "front"},
     {"miss": F(1, 2), "no effect": F(1, 4), "crew shaken": F(1, 36), "crew stunned": F(1, 24),
      "immobilised": F(1, 24), "weapon destroyed": F(1, 24), "vehicle destroyed": F(1, 24),
      "vehicle destroyed, crew armour save": F(1, 36),
      "vehicle destroyed, everyone killed": F(1, 36)}),
    ("B: BS3 S6 below half range vs 10",
     {"shooter.bs": "3", "weapon.strength": "6", "weapon.range": "36", "distance": "12",
      "target.armour.front": "10"},
     {"miss": F(1, 2), "no effect": F(1, 6), "crew shaken": F(1, 36), "crew stunned": F(1, 18),
      "immobilised": F(1, 18), "weapon destroyed": F(1, 18), "vehicle destroyed": F(1, 18),
      "vehicle destroyed, crew armour save": F(1, 24),
      "vehicle destroyed, everyone killed": F(1, 24)}),
    ("C: BS1 S6 full range vs side 10",
     {"shooter.bs": "1", "weapon.strength": "6", "weapon.range": "36", "distance": "36",
      "target.armour.side": "10", "target_arc": "\"side\""},  # quoted: a bare side is the built-in side()
     {"miss": F(5, 6), "no effect": F(1, 9), "crew shaken": F(1, 108), "crew stunned": F(1, 108),
      "immobilised": F(1, 108), "weapon destroyed": F(1, 108), "vehicle destroyed": F(1, 108),
      "vehicle destroyed, crew armour save": F(1, 216),
      "vehicle destroyed, everyone killed": F(1, 216)}),
    ("D: BS5 S3 machine gun below half range vs rear 10",
     {"shooter.bs": "5", "weapon.strength": "3", "weapon.range": "18", "distance": "5",
      "target.armour.rear": "10", "target_arc": "rear"},
     {"miss": F(1, 6), "no effect": F(25, 36), "crew shaken": F(5, 108),
      "crew stunned": F(5, 216), "immobilised": F(5, 216), "weapon destroyed": F(5, 216),
      "vehicle destroyed": F(5, 216)}),
]


@pytest.mark.parametrize("case, inputs, expected", SHOOT_ODDS, ids=[c[0][:1] for c in SHOOT_ODDS])
def test_shoot_exact_odds(tanks, case, inputs, expected):
    odds = tanks.run_odds("shoot", inputs)
    assert sum(expected.values()) == 1, "the hand computation must add up"
    for outcome, p in expected.items():
        assert odds.outcomes.probability(outcome) == p, outcome
    assert odds.capped == 0


def test_shoot_odds_cli_json():
    done = cli("run", str(PATH), "shoot", "--odds", "--json", "--with", "shooter.bs=3",
               "--with", "distance=20", "--with", "target.armour.front=10")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    got = {o["value"]: o["probability"] for o in data["outcomes"]}
    assert got["miss"] == "1/2" and got["no effect"] == "1/4" and got["crew shaken"] == "1/36"


def test_shoot_with_a_weapon_row(tanks):
    """A weapon from the example table: 75mm KwK 40 (S7, range 40) at 30" vs armour 12:
    average range, damage 7 + d6 = 8..13: equal on 5, more on 6."""
    odds = tanks.run_odds("shoot", {"weapon": 'weapons["75mm KwK 40"]', "distance": "30",
                                    "shooter.bs": "4", "target.armour.front": "12"})
    assert odds.outcomes.probability("miss") == F(1, 3)
    assert odds.outcomes.probability("no effect") == F(2, 3) * F(4, 6)


def test_crew_armour_save_odds(tanks):
    """Penetrating 5: crew saves on crew_armour_save (4+) = 1/2 (ruling crew-armour-save)."""
    odds = tanks.run_odds("shoot", {"shooter.bs": "5", "weapon.strength": "20",
                                    "target.armour.front": "10"}, track=["target.crew"])
    crew = odds.tracked["target.crew"]
    # hit 5/6, always penetrating: 1/6 d6=4 bailed out, 1/6 d6=5 save 1/2, 1/6 d6=6 killed
    assert crew.probability("bailed out") == F(5, 6) * F(1, 6)
    assert crew.probability("survived") == F(5, 6) * F(1, 12)
    assert crew.probability("killed") == F(5, 6) * (F(1, 12) + F(1, 6))


def test_weapon_destroyed_is_the_shooters_choice(tanks):
    """Penetrating 3: the shooter picks one of the target's weapons; it is gone for good."""
    odds = tanks.run_odds("shoot", {"shooter.bs": "5", "weapon.strength": "20",
                                    "target.weapons": '["75mm M3", "30 cal MG"]'},
                          track=["target.weapons"])
    weapons = odds.tracked["target.weapons"]
    # policy `first` of a procedure run: the first weapon goes
    assert weapons.probability(("30 cal MG",)) == F(5, 6) * F(1, 6)


def test_shaken_or_stunned_shooter_may_not_shoot(tanks):
    odds = tanks.run_odds("shoot", {"shooter.can_shoot": "false"})
    assert odds.outcomes.probability("may not shoot") == 1


# ------------------------------------------------------------ statuses: "next turn"

def _world(tanks):
    from interpreter.engine import build_world
    return build_world(tanks, tanks.scenarios["default"], random.Random(0), True)


@pytest.mark.parametrize("status, fields", [
    ("shaken", {"can_shoot": False, "can_move": True, "can_embark": True}),
    ("stunned", {"can_shoot": False, "can_move": False, "can_embark": False}),
])
def test_next_turn_statuses(tanks, status, fields):
    """Ruling next-turn: hit in turn 3, the effect holds during turn 4 only."""
    from interpreter.engine import _expire_statuses
    from interpreter.world import ACTIONS
    world = _world(tanks)
    tank = world.units["Panzer IV"]
    world.turn = 3
    tank.fields["clock"] = 3
    ACTIONS["apply"].fn(world, None, None, tank, status, turns=1, from_turn=4)
    for name in fields:               # the rest of this turn: unaffected
        assert tank.dsl_attr(name) is True
    _expire_statuses(world)
    world.turn = 4
    tank.fields["clock"] = 4
    for name, value in fields.items():  # next turn: affected
        assert tank.dsl_attr(name) is value
    _expire_statuses(world)
    assert not tank.has(status)        # gone after the next turn
    world.turn = 5
    tank.fields["clock"] = 5
    assert tank.dsl_attr("can_shoot") is True


def test_immobilised_for_the_game(tanks):
    from interpreter.engine import _expire_statuses
    from interpreter.world import ACTIONS
    world = _world(tanks)
    tank = world.units["Panzer IV"]
    world.turn = 1
    ACTIONS["apply"].fn(world, None, None, tank, "immobilised")
    for turn in range(1, 13):
        world.turn = turn
        _expire_statuses(world)
    assert tank.has("immobilised") and tank.dsl_attr("can_move") is False
    assert tank.dsl_attr("can_shoot") is True


# --------------------------------------------------------------------------- playing

def test_group_allowance_in_play(tanks):
    """The default scenario's group A: two Shermans (10", one in rubble: 5") and a
    Stuart (14"): all three move 5"; the Germans move alone."""
    world = _world(tanks)
    from interpreter.steps import Frame
    for name, expected in [("Sherman 1", 5), ("Sherman 2", 5), ("Stuart", 5),
                           ("Panzer IV", 10), ("Panzer III", 2), ("Scout car", 16)]:
        proc = tanks.procedures["allowance"]
        value = proc.dsl_call([world.units[name]], {}, None,
                              Frame({}, tanks.globals, world, world.rng, False).ctx)
        assert value == expected, name


def test_play_runs_to_a_result(tanks):
    result = tanks.play(seed=1)
    assert result.turns <= 12
    assert result.winner in ("allies", "axis", None)
    assert result.reason


def test_play_is_reproducible():
    first = cli("play", "tanks", "--seed", "1", "--json")
    second = cli("play", "tanks", "--seed", "1", "--json")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout


def test_simulate_runs():
    done = cli("simulate", "tanks", "--runs", "200", "--seed", "7", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["runs"] == 200
    assert sum(r["wins"] for r in data["results"].values()) == 200


def test_tables_prints_every_table(tanks):
    done = cli("tables", "tanks", "--format", "json")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    for name, table in tanks.tables.items():
        assert (table.title or name) in text, name


def test_golden_transcript_seed1():
    done = cli("play", "tanks", "--seed", "1", "--json")
    assert done.returncode == 0, done.stderr
    if os.environ.get("RULECRAFT_UPDATE_GOLDEN"):
        GOLDEN.write_text(done.stdout, encoding="utf-8")
    expected = GOLDEN.read_text(encoding="utf-8")
    assert done.stdout == expected
    last = json.loads(expected.splitlines()[-1])
    assert last["event"] == "result" and last["seed"] == 1
