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

from interpreter.game.api import check_ruleset, load_ruleset

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
#
# Each row's `effect` is the single source of what happens: `shoot` rolls the row and
# runs it (run(row.effect)).  The tests below run each row's effect in a game and look
# at the target afterwards.

GLANCING = [(1, "crew shaken"), (2, "crew shaken"), (3, "crew stunned"), (4, "immobilised"),
            (5, "weapon destroyed"), (6, "vehicle destroyed")]
PENETRATING = [(1, "crew stunned"), (2, "immobilised"), (3, "weapon destroyed"),
               (4, "vehicle destroyed"), (5, "vehicle destroyed, crew armour save"),
               (6, "vehicle destroyed, everyone killed")]


@pytest.mark.parametrize("face, result", GLANCING)
def test_glancing_table(tanks, face, result):
    assert tanks.tables["glancing"].lookup(face).get("result") == result


@pytest.mark.parametrize("face, result", PENETRATING)
def test_penetrating_table(tanks, face, result):
    assert tanks.tables["penetrating"].lookup(face).get("result") == result


def _world(tanks, seed=0):
    from interpreter.game.policies import Chooser
    from interpreter.game.play import build_world
    world = build_world(tanks, tanks.scenarios["default"], random.Random(seed), True)
    world.chooser = Chooser(world, {})
    return world


def _run_effect(tanks, world, table, face, shooter="Sherman 1", target="Panzer IV"):
    """Run one row's `effect` as `shoot` does: with its `shooter` and `target`."""
    from interpreter.run.steps import Frame
    from interpreter.run.cells import RUN
    row = tanks.tables[table].lookup(face)
    frame = Frame({"shooter": world.units[shooter], "target": world.units[target]},
                  tanks.globals, world, world.rng, True)
    RUN.dsl_call([row.get("effect")], {}, None, frame.ctx)
    return world.units[target]


# table, face -> statuses given, destroyed, crew, weapons left (the Panzer IV has
# 75mm KwK 40 and MG 34; the shooter, Sherman 1 of the allies, policy prefer, takes the
# strongest).  None for the crew: the armour save decides (test below).
EFFECTS = [
    ("glancing", 1, ["shaken"], False, "aboard", ["75mm KwK 40", "MG 34"]),
    ("glancing", 2, ["shaken"], False, "aboard", ["75mm KwK 40", "MG 34"]),
    ("glancing", 3, ["stunned"], False, "aboard", ["75mm KwK 40", "MG 34"]),
    ("glancing", 4, ["immobilised"], False, "aboard", ["75mm KwK 40", "MG 34"]),
    ("glancing", 5, [], False, "aboard", ["MG 34"]),
    ("glancing", 6, [], True, "bailed out", ["75mm KwK 40", "MG 34"]),
    ("penetrating", 1, ["stunned"], False, "aboard", ["75mm KwK 40", "MG 34"]),
    ("penetrating", 2, ["immobilised"], False, "aboard", ["75mm KwK 40", "MG 34"]),
    ("penetrating", 3, [], False, "aboard", ["MG 34"]),
    ("penetrating", 4, [], True, "bailed out", ["75mm KwK 40", "MG 34"]),
    ("penetrating", 5, [], True, None, ["75mm KwK 40", "MG 34"]),
    ("penetrating", 6, [], True, "killed", ["75mm KwK 40", "MG 34"]),
]


@pytest.mark.parametrize("table, face, statuses, destroyed, crew, weapons", EFFECTS,
                         ids=[f"{t}-{f}" for t, f, *_ in EFFECTS])
def test_damage_row_effect(tanks, table, face, statuses, destroyed, crew, weapons):
    world = _world(tanks)
    world.turn = 2
    tank = _run_effect(tanks, world, table, face)
    assert tank.dsl_attr("statuses") == statuses
    assert tank.dsl_attr("destroyed") is destroyed
    assert list(tank.dsl_attr("weapons")) == weapons
    if crew is None:       # the odds of the save: test_crew_armour_save_odds
        assert tank.dsl_attr("crew") in ("survived", "killed")
    else:
        assert tank.dsl_attr("crew") == crew
    # the shooter is never touched
    sherman = world.units["Sherman 1"]
    assert sherman.statuses == [] and sherman.dsl_attr("destroyed") is False


def test_weapon_destroyed_until_none_left(tanks):
    """Weapon destroyed three times: both weapons go (strongest first), then nothing."""
    world = _world(tanks)
    for left in (["MG 34"], [], []):
        tank = _run_effect(tanks, world, "penetrating", 3)
        assert list(tank.dsl_attr("weapons")) == left
    assert tank.dsl_attr("destroyed") is False


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
      "target.armour.side": "10", "target_arc": "side"},  # a bare word is text (not the built-in side())
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

def _next_turn(world):
    """The engine's turn boundary (as in `play`): statuses expire at the end of a turn,
    those given "from next turn" start at the start of the next."""
    from interpreter.game.play import _expire_statuses, _start_statuses
    _expire_statuses(world)
    world.turn += 1
    _start_statuses(world)


NEXT_TURN = [
    ("glancing", 1, "shaken", {"can_shoot": False, "can_move": True, "can_embark": True}),
    ("glancing", 3, "stunned", {"can_shoot": False, "can_move": False, "can_embark": False}),
    ("penetrating", 1, "stunned", {"can_shoot": False, "can_move": False, "can_embark": False}),
]
UNAFFECTED = {"can_shoot": True, "can_move": True, "can_embark": True}


def _fields(tank, names):
    return {name: tank.dsl_attr(name) for name in names}


@pytest.mark.parametrize("table, face, status, fields", NEXT_TURN,
                         ids=[f"{t}-{f}" for t, f, *_ in NEXT_TURN])
def test_next_turn_statuses(tanks, table, face, status, fields):
    """Ruling next-turn: hit in turn 3, the effect holds during turn 4 only."""
    world = _world(tanks)
    world.turn = 3
    tank = _run_effect(tanks, world, table, face)
    assert _fields(tank, fields) == UNAFFECTED        # the rest of this turn: unaffected
    assert not tank.has(status)
    _next_turn(world)
    assert _fields(tank, fields) == fields            # next turn: the full effect
    assert tank.has(status)
    _next_turn(world)
    assert not tank.has(status) and tank.statuses == []   # gone after the next turn
    assert _fields(tank, fields) == UNAFFECTED


@pytest.mark.parametrize("table, face, status, fields", NEXT_TURN,
                         ids=[f"{t}-{f}" for t, f, *_ in NEXT_TURN])
def test_hit_again_while_under_the_status(tanks, table, face, status, fields):
    """Ruling next-turn: hit in turn 3, hit again the same way in turn 4: still under it
    for the rest of turn 4, and for the whole of turn 5; gone after turn 5."""
    world = _world(tanks)
    world.turn = 3
    tank = _run_effect(tanks, world, table, face)
    _next_turn(world)
    _run_effect(tanks, world, table, face)
    assert _fields(tank, fields) == fields            # the rest of turn 4: still affected
    _next_turn(world)
    assert _fields(tank, fields) == fields            # turn 5: affected
    _next_turn(world)
    assert tank.statuses == [] and _fields(tank, fields) == UNAFFECTED


@pytest.mark.parametrize("table, face, status, fields", NEXT_TURN,
                         ids=[f"{t}-{f}" for t, f, *_ in NEXT_TURN])
def test_hit_twice_in_one_turn(tanks, table, face, status, fields):
    """Two such hits in turn 3: unaffected in turn 3, affected in turn 4 only."""
    world = _world(tanks)
    world.turn = 3
    _run_effect(tanks, world, table, face)
    tank = _run_effect(tanks, world, table, face)
    assert _fields(tank, fields) == UNAFFECTED
    _next_turn(world)
    assert _fields(tank, fields) == fields
    _next_turn(world)
    assert tank.statuses == [] and _fields(tank, fields) == UNAFFECTED


def test_shaken_then_stunned(tanks):
    """Different results do not cancel each other: shaken in turn 3, stunned in turn 4
    (while shaken): shaken in turn 4, stunned in turn 5."""
    world = _world(tanks)
    world.turn = 3
    tank = _run_effect(tanks, world, "glancing", 1)
    _next_turn(world)
    _run_effect(tanks, world, "penetrating", 1)
    assert _fields(tank, UNAFFECTED) == {"can_shoot": False, "can_move": True, "can_embark": True}
    _next_turn(world)
    assert not tank.has("shaken") and tank.has("stunned")
    assert _fields(tank, UNAFFECTED) == {"can_shoot": False, "can_move": False, "can_embark": False}
    _next_turn(world)
    assert tank.statuses == []


@pytest.mark.parametrize("table, face", [("glancing", 4), ("penetrating", 2)])
def test_immobilised_for_the_game(tanks, table, face):
    world = _world(tanks)
    world.turn = 1
    tank = _run_effect(tanks, world, table, face)
    for _ in range(12):
        assert tank.has("immobilised") and tank.dsl_attr("can_move") is False
        assert tank.dsl_attr("can_shoot") is True and tank.dsl_attr("can_embark") is True
        _next_turn(world)
    assert tank.has("immobilised")


@pytest.mark.parametrize("seed", range(1, 21))
def test_next_turn_bans_hold_in_play(tanks, seed):
    """In whole games: a vehicle shaken or stunned "from next turn" in turn T fires no
    shot in turn T + 1, and, stunned, does not move then (rulings next-turn,
    one-shot-per-weapon)."""
    events = tanks.play(seed=seed).events
    shots = {(e["turn"], e["text"].split("shooter=")[1].split(",")[0]) for e in events
             if e["event"] == "call" and e["text"].startswith("shoot(")}
    moves = {(e["turn"], e["field"].rsplit(".", 1)[0]) for e in events
             if e["event"] == "set" and e.get("field", "").endswith(".moved") and e["value"] > 0}
    for e in events:
        if e["event"] == "status" and e.get("starting") == "next turn":
            assert (e["turn"] + 1, e["unit"]) not in shots, e
            if e["status"] == "stunned":
                assert (e["turn"] + 1, e["unit"]) not in moves, e


# --------------------------------------------------------------------------- playing

def test_group_allowance_in_play(tanks):
    """The default scenario's group A: two Shermans (10", one in rubble: 5") and a
    Stuart (14"): all three move 5"; the Germans move alone."""
    world = _world(tanks)
    from interpreter.run.steps import Frame
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
