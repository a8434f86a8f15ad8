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
    from interpreter.run.frames import Frame
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
    from interpreter.game.lifecycle import expire_statuses as _expire_statuses
    from interpreter.game.lifecycle import start_statuses as _start_statuses
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
    from interpreter.run.frames import Frame
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


# =========================================================================== the tabletop
#
# Scenarios tabletop and group_example place the models (space: tabletop, positions in
# inches).  Rulings base-corner-arcs, weapon-end, tabletop-measuring, tabletop-terrain,
# tabletop-groups, tabletop-policy, base-sizes; the abstract scenario (default) keeps the
# rolled arc (ruling arcs-and-turning).

TABLE_GOLDEN = ROOT / "tests" / "golden" / "tanks_tabletop_seed4.jsonl"

TABLETOP_RULINGS = ["group-bonuses", "base-corner-arcs", "weapon-end", "tabletop-measuring",
                    "tabletop-terrain", "tabletop-groups", "tabletop-policy", "base-sizes"]


@pytest.mark.parametrize("ruling", TABLETOP_RULINGS)
def test_tabletop_rulings_recorded(tanks, ruling):
    by_id = {r["id"]: r for r in tanks.rulings}
    assert ruling in by_id
    for key in ("text", "ruling", "why"):
        assert by_id[ruling][key].strip()


def test_group_bonuses_ruling_gives_none(tanks):
    """"Bonuses for being in groups will be explained later": they never are."""
    ruling = {r["id"]: r for r in tanks.rulings}["group-bonuses"]
    assert "explained later" in ruling["text"]
    assert "no bonus" in ruling["ruling"]


def test_scenarios(tanks):
    assert tanks.space == "tabletop"
    assert set(tanks.scenarios) == {"default", "tabletop", "group_example"}
    assert tanks.scenarios["default"].positions == {}          # abstract distances
    for name in ("tabletop", "group_example"):
        scenario = tanks.scenarios[name]
        units = [u for side in scenario.sides.values() for u in side["units"]]
        assert set(scenario.positions) == {u["name"] for u in units}
        assert all(u["stats"]["on_table"] is True for u in units)


def _table_world(tanks, scenario="tabletop", seed=0):
    from interpreter.game.policies import Chooser
    from interpreter.game.play import build_world
    world = build_world(tanks, tanks.scenarios[scenario], random.Random(seed), True)
    world.chooser = Chooser(world, {})
    world.turn = 1
    return world


def _frame(tanks, world):
    from interpreter.run.frames import Frame
    return Frame({"turn": world.turn}, tanks.globals, world, world.rng, False)


def _call(tanks, world, procedure, *args):
    return tanks.procedures[procedure].dsl_call(list(args), {}, None, _frame(tanks, world).ctx)


def _place(tanks, world, name, where):
    from interpreter.state.actions import ACTIONS
    ACTIONS["place"].dsl_call([world.units[name], list(where)], {}, None, _frame(tanks, world).ctx)


# ------------------------------------------------------ arcs and ranges, drawn by hand
#
# Sherman 1 shoots at Panzer IV; both bases are 3.5" long and 1.8" wide (half 1.75 x
# 0.9), so a corner line has slope 0.9 / 1.75: a point (ahead, across) from a base's
# centre is in its front (rear) arc if |across| x 1.75 <= |ahead| x 0.9.  Facing 0 is +x;
# the right-hand side of a vehicle facing 0 is +y.  The range runs from where the line
# between the centres leaves the shooter's base (half length 1.75 out of its front, half
# width 0.9 out of its side, further through a corner) to the target's centre.
# 1. nose to nose, 20" apart: front / front, 20 - 1.75 = 18.25.
# 2. the target faces away: its rear.       3, 4. it faces +y / -y: its right / left side.
# 5. the shooter faces +y: the target (to +x) is on its left; 20 - 0.9 = 19.1 from the side.
# 6. target at (10, 10) facing 180: the shooter is at (10, 10) ahead-and-right of it:
#    10 x 1.75 > 10 x 0.9, right side; the shooter's right too; the line (length 14.14)
#    leaves the shooter through its side at 0.9 x 1.414 = 1.27: 12.87.
# 7. (20, 4): 4 x 1.75 = 7 <= 18: front / front; sqrt(416) = 20.40 less 1.75 x 20.40 / 20 = 1.78: 18.61.
# 8. (20, 10): 17.5 <= 18, still front / front; 22.36 - 1.96 = 20.40.
# 9. (20, 11): 19.25 > 18: right / right; through the side: 22.83 - 0.9 x 22.83 / 11 = 20.96.
# 10. the shooter at (30, 0) facing 180, the target at (20, 0) facing 180 (away from it): the
#    shooter's front, the target's rear, 10 - 1.75 = 8.25.
LINE_OF_FIRE = [
    # shooter [x, y, facing], target [x, y, facing], firing arc, target arc, armour, range
    ((0, 0, 0), (20, 0, 180), "front", "front", "front", Fraction(1825, 100)),
    ((0, 0, 0), (20, 0, 0), "front", "rear", "rear", Fraction(1825, 100)),
    ((0, 0, 0), (20, 0, 90), "front", "right", "side", Fraction(1825, 100)),
    ((0, 0, 0), (20, 0, 270), "front", "left", "side", Fraction(1825, 100)),
    ((0, 0, 90), (20, 0, 180), "left", "front", "front", Fraction(191, 10)),
    ((0, 0, 0), (10, 10, 180), "right", "right", "side", Fraction(1287, 100)),
    ((0, 0, 0), (20, 4, 180), "front", "front", "front", Fraction(1861, 100)),
    ((0, 0, 0), (20, 10, 180), "front", "front", "front", Fraction(2040, 100)),
    ((0, 0, 0), (20, 11, 180), "right", "right", "side", Fraction(2096, 100)),
    ((30, 0, 180), (20, 0, 180), "front", "rear", "rear", Fraction(825, 100)),
]


@pytest.mark.parametrize("shooter, target, firing, struck, armour, measured", LINE_OF_FIRE)
def test_line_of_fire_from_positions(tanks, shooter, target, firing, struck, armour, measured):
    world = _table_world(tanks)
    _place(tanks, world, "Sherman 1", shooter)
    _place(tanks, world, "Panzer IV", target)
    result = _call(tanks, world, "line_of_fire", world.units["Sherman 1"], world.units["Panzer IV"])
    assert list(result) == [firing, struck, armour, measured]


def test_line_of_fire_through_run_inputs(tanks):
    """The same, as `rulecraft run tanks line_of_fire --with shooter.position=...`."""
    result = tanks.run("line_of_fire", {"shooter.position": "[0, 0, 0]", "target.position": "[20, 11, 180]",
                                        "shooter": 'vehicles["M4 Sherman"]',
                                        "target": 'vehicles["Panzer IV H"]'}, seed=1)
    assert list(result.result) == ["right", "right", "side", Fraction(2096, 100)]


@pytest.mark.parametrize("measured, weapon_range, band", [
    (Fraction(1799, 100), 36, "below half range"), (18, 36, "average range"),
    (Fraction(3501, 100), 36, "full range"), (Fraction(3601, 100), 36, "out of range"),
])
def test_range_bands_of_measured_distances(tanks, measured, weapon_range, band):
    """Ruling tabletop-measuring: the bands apply to distances measured to 1/100 inch."""
    result = tanks.run("range_band", {"distance": str(measured), "range": str(weapon_range)}, seed=1)
    assert result.result == band


# -------------------------------------------------------------- terrain on the table
#
# tabletop_terrain: ruined farm (moderate) x 18-26, y 20-30; Hill 112 wood (hard) x 44-52,
# y 16-24; wet meadow (hard) x 14-22, y 36-46; mill pond (impossible) x 30-36, y 4-12.

@pytest.mark.parametrize("x, y, terrain", [
    (19, 25, "moderate"), (18, 20, "moderate"), ("1799/100", 25, "easy"), (45, 20, "hard"),
    (15, 40, "hard"), (30, 4, "impossible"), (0, 0, "easy"), (40, 30, "easy"),
])
def test_terrain_at_point(tanks, x, y, terrain):
    assert tanks.run("terrain_at_point", {"x": str(x), "y": str(y)}, seed=1).result == terrain


@pytest.mark.parametrize("terrain, amphibious, cost", [
    ("easy", False, 1), ("moderate", False, 2), ("hard", False, 4), ("impossible", False, 0),
    ("impossible", True, 1),
])
def test_inch_cost(tanks, terrain, amphibious, cost):
    result = tanks.run("inch_cost", {"terrain": terrain, "amphibious": str(amphibious).lower()}, seed=1)
    assert result.result == cost


# start [x, y], direction, budget, limit, amphibious -> inches, movement points spent
PATH_REACH = [
    ((0, 0), (1, 0), 12, 1000, False, 12, 12),      # open ground: the whole speed
    ((19, 25), (1, 0), 12, 1000, False, 6, 12),     # in rubble: half (6 of 12)
    ((45, 20), (1, 0), 12, 1000, False, 3, 12),     # in the wood: a quarter
    ((45, 20), (1, 0), 6, 1000, False, 1, 4),       # 6" in hard terrain: 1" (terrain-rounding)
    ((45, 20), (1, 0), 10, 1000, False, 2, 8),      # 10" in hard terrain: 2"
    ((14, 25), (1, 0), 12, 1000, False, 7, 11),     # 3" of open ground (3), then 4" of rubble (8)
    ((20, 14), (0, 1), 10, 1000, False, 7, 9),      # south: 5" open (5), then 2" of rubble (4)
    ((25, 8), (1, 0), 12, 1000, False, 4, 4),       # stops at the mill pond's edge (x 30)
    ((25, 8), (1, 0), 12, 1000, True, 12, 12),      # ... unless amphibious
    ((0, 0), (1, 0), 12, 5, False, 5, 5),           # no further than asked
    ((0, 0), (1, 0), 12, 0, False, 0, 0),
]


@pytest.mark.parametrize("start, direction, budget, limit, amphibious, inches, spent", PATH_REACH)
def test_path_reach_over_terrain(tanks, start, direction, budget, limit, amphibious, inches, spent):
    result = tanks.run("path_reach", {"unit.position": f"[{start[0]}, {start[1]}, 0]",
                                      "unit.amphibious": str(amphibious).lower(),
                                      "dx": str(direction[0]), "dy": str(direction[1]),
                                      "budget": str(budget), "limit": str(limit)}, seed=1)
    costs = list(result.result)
    assert len(costs) == inches
    assert (costs[-1] if costs else 0) == spent


def test_group_moves_at_the_pace_of_its_slowest_over_its_own_terrain(tanks):
    """Ruling group-terrain on the table: Sherman 1 (10") drives east over open ground,
    the Stuart (14") beside it runs into the ruined farm after 3": 3 + 11 / 2 = 8 inches
    (5 in rubble); the Sherman could go 10.  Both move 8, by the same vector."""
    world = _table_world(tanks)
    for name, where in [("Sherman 1", (14, 18, 0)), ("Stuart", (14, 25, 0)),
                        ("Panzer IV", (70, 18, 180)), ("Panzer III", (70, 40, 180)),
                        ("Scout car", (70, 46, 180))]:
        _place(tanks, world, name, where)
    sherman, stuart = world.units["Sherman 1"], world.units["Stuart"]
    assert _call(tanks, world, "group_leg", [sherman, stuart], 1000) == 8
    assert (world.positions[sherman.uid].x, world.positions[sherman.uid].y) == (22, 18)
    assert (world.positions[stuart.uid].x, world.positions[stuart.uid].y) == (22, 25)
    assert (sherman.dsl_attr("spent"), stuart.dsl_attr("spent")) == (8, 13)
    assert (sherman.dsl_attr("moved"), stuart.dsl_attr("moved")) == (8, 8)


def _placements(events, name):
    """Where a unit was placed, in order, as exact {x, y, facing} (the JSON writes
    fractions as text)."""
    return [{k: Fraction(str(v)) for k, v in e["position"].items()} for e in events
            if e["event"] == "move" and e["unit"] == name and "is placed" in e["text"]]


def _leg_returns(events):
    """The inches of each group_leg, in order (its `let inches`)."""
    return [e["value"] for e in events if e["event"] == "let" and e["name"] == "inches"]


def test_the_texts_group_example_on_the_tabletop(tanks):
    """"the group of two 12” movement tanks and one 6” movement decides to move 3” then
    break. The 12” tanks moved 3, so now can move 9” on their own ... The 6” tank may only
    move 3”": scenario group_example, turn 1."""
    result = tanks.play("group_example", 1)
    events = result.events
    assert "group A breaks after 3 inches" in [e["text"] for e in events]
    assert _leg_returns(events) == [3, 9, 9, 3]
    starts = {"Fast tank 1": (0, 0), "Fast tank 2": (0, 2), "Slow tank": (0, Fraction(39, 10))}
    for name, (x, y) in starts.items():
        first, second = _placements(events, name)
        # together: every member 3" along the same line (the target is straight ahead)
        assert (first["x"], first["y"]) == (x + 3, y)
        # alone: 9, 9 and 3 inches more (to 1/100 inch: positions are kept so)
        alone = float((second["x"] - first["x"]) ** 2 + (second["y"] - first["y"]) ** 2) ** 0.5
        assert alone == pytest.approx({"Fast tank 1": 9, "Fast tank 2": 9, "Slow tank": 3}[name], abs=0.01)
    moved = {e["field"]: e["value"] for e in events if e["event"] == "set" and e["field"].endswith(".moved")}
    assert moved == {"Fast tank 1.moved": 12, "Fast tank 2.moved": 12, "Slow tank.moved": 6,
                     "Panzer IV.moved": 0}
    assert not [e for e in events if e["event"] == "move" and e["unit"] == "Panzer IV"
                and "is placed" in e["text"]]     # can_move: false


@pytest.fixture(scope="module")
def table_game(tanks):
    """The events of scenario tabletop, seed 4 (the golden transcript's game: three
    turns, group B breaking, rubble and wood slowing both sides, a hit on a side arc)."""
    return tanks.play("tabletop", 4).events


def test_groups_keep_their_formation_on_the_tabletop(tanks, table_game):
    """Scenario tabletop (seed 4), turn 1: group A moves as one (every member by the same vector,
    so they stay base edge to base edge); group B moves 4" together, then breaks."""
    events = table_game
    start = tanks.scenarios["tabletop"].positions
    turn1 = [e for e in events if e["turn"] == 1]
    shifts = set()
    for name in ("Sherman 1", "Sherman 2", "Stuart"):
        first = _placements(turn1, name)[0]
        shifts.add((first["x"] - Fraction(str(start[name][0])), first["y"] - Fraction(str(start[name][1]))))
    assert len(shifts) == 1
    texts = [e["text"] for e in turn1]
    assert "group B breaks after 4 inches" in texts
    assert len(_placements(turn1, "Panzer IV")) == 2 and len(_placements(turn1, "Panzer III")) == 2


def test_the_rolled_arc_is_only_in_the_abstract_scenario(tanks, table_game):
    """Ruling arcs-and-turning: the tabletop never rolls on arc_struck; the default does."""
    def arc_rolls(events):
        return [r for e in events for r in (e.get("rolls") or [])
                if isinstance(r, dict) and r.get("table") == "arc_struck"]
    table = table_game
    assert [e for e in table if e["event"] == "call" and e["procedure"] == "shoot"]
    assert arc_rolls(table) == []
    assert arc_rolls(tanks.play(None, 1).events)


def test_tabletop_shots_are_in_measured_range(tanks, table_game):
    """Every shot on the table is at a measured range within the weapon's range."""
    weapons = tanks.tables["weapons"]
    shots, arcs = 0, set()
    for e in table_game:
        if e["event"] == "call" and e["procedure"] == "shoot":
            shots += 1
            weapon = e["text"].split("weapon=row '")[1].split("'")[0]
            distance = Fraction(e["text"].split("distance=")[1].split(",")[0])
            assert distance <= weapons.lookup(weapon).get("range")
            arcs.add(e["text"].split("target_arc=")[1].split(",")[0])
    assert shots > 5
    assert arcs == {"front", "side"}


def test_golden_transcript_tabletop_seed4():
    done = cli("play", "tanks", "--scenario", "tabletop", "--seed", "4", "--json")
    assert done.returncode == 0, done.stderr
    if os.environ.get("RULECRAFT_UPDATE_GOLDEN"):
        TABLE_GOLDEN.write_text(done.stdout, encoding="utf-8")
    expected = TABLE_GOLDEN.read_text(encoding="utf-8")
    assert done.stdout == expected
    last = json.loads(expected.splitlines()[-1])
    assert last["event"] == "result" and last["scenario"] == "tabletop" and last["seed"] == 4


def test_a_vehicle_that_cannot_move_leaves_its_group_on_the_tabletop(tanks):
    """Ruling immobilised-groups on the table: Sherman 2 is immobilised; when group A
    moves, it leaves the group for good and stays put; Sherman 1 and the Stuart move on
    together, at the Sherman's 10"."""
    from interpreter.state.actions import ACTIONS
    world = _table_world(tanks)
    ACTIONS["apply"].dsl_call([world.units["Sherman 2"], "immobilised"], {}, None,
                              _frame(tanks, world).ctx)
    before = dict(world.positions)
    assert _call(tanks, world, "table_advance", world.units["Sherman 1"]) == 10
    sherman2 = world.units["Sherman 2"]
    assert sherman2.dsl_attr("group") == "" and world.positions[sherman2.uid] == before[sherman2.uid]
    assert [world.units[n].dsl_attr("moved") for n in ("Sherman 1", "Stuart")] == [10, 10]
    assert world.units["Stuart"].dsl_attr("group") == "A"
    # the Stuart is done for this turn: it moved with its group
    assert _call(tanks, world, "table_advance", world.units["Stuart"]) == 0


def test_tabletop_games_end(tanks):
    from interpreter.game.simulate import simulate
    summary = simulate(tanks, "tabletop", 20, seed=3)
    assert sum(summary.wins.values()) == 20
