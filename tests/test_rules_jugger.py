"""Jugger (rules/jugger/jugger.yaml + play.yaml): every table of the text, every design's
derived hits and spaces, exact odds of the attack, ram, grab, winch and improvement rules
derived by hand from the text, the statuses across turns, and golden transcripts of
`play jugger --seed 1 --json` (set battle) and of the duel.

Regenerate the golden transcripts (after checking the change is intended) with
    RULECRAFT_UPDATE_GOLDEN=1 python -m pytest tests/test_rules_jugger.py -k golden
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest

from interpreter.ruleset import check_ruleset, load_ruleset

ROOT = Path(__file__).resolve().parent.parent
PATH = ROOT / "rules" / "jugger" / "jugger.yaml"
GOLDEN = {"default": ROOT / "tests" / "golden" / "jugger_play_seed1.jsonl",
          "duel": ROOT / "tests" / "golden" / "jugger_duel_seed1.jsonl"}


@pytest.fixture(scope="module")
def jugger():
    return load_ruleset(PATH)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "interpreter", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def odds(jugger, procedure, inputs=None, track=None):
    result = jugger.run_odds(procedure, inputs or {}, track=track)
    assert result.capped == 0
    return result


# --------------------------------------------------------------------------- the file

# The text's own disagreements, each reported by `validate` as a warning with a ruling.
TEXT_DISAGREEMENTS = [
    ("wartime_weapons", "'7'", "wartime-d6-seven"),
    ("designs", "'Battlemaster'", "battlemaster-hits"),
]


def test_validate_reports_only_the_texts_disagreements():
    findings = check_ruleset(PATH)
    assert [f for f in findings if f.severity == "error"] == []
    warnings = [f.message for f in findings if f.severity == "warning"]
    assert len(warnings) == len(TEXT_DISAGREEMENTS)
    for table, row, _ in TEXT_DISAGREEMENTS:
        assert any(f"table {table!r} row {row}" in w for w in warnings), (table, warnings)


@pytest.mark.parametrize("table, row, ruling", TEXT_DISAGREEMENTS)
def test_each_disagreement_has_a_ruling(jugger, table, row, ruling):
    assert ruling in {r["id"] for r in jugger.rulings}


def test_validate_cli():
    done = cli("validate", "rules/jugger")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 errors, 2 warnings" in done.stdout + done.stderr


def test_header_and_metadata(jugger):
    first = PATH.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=../../schema/ruleset.schema.json"
    assert jugger.id == "jugger" and jugger.title == "Jugger"
    assert jugger.source == "000_85e61d9932371556.txt"
    assert load_ruleset("jugger").path.resolve() == PATH.resolve()


def test_listed():
    done = cli("list")
    assert done.returncode == 0 and "jugger" in done.stdout


RULINGS = ["to-hit-die", "to-hit-bonus", "range-in-hexes", "arcs", "missing-weapon-rows",
           "wartime-d6-seven", "exotic-no-die", "oversize", "damage-roll-of-six", "attack-timing",
           "once-per-turn", "cauldron-cooldown", "damage-over-time", "topple", "winch-chain",
           "boarders", "crew-killed", "grab", "grab-one-hold", "ram-arc", "ram-push", "ram-rear",
           "ram-head-on", "drive-through", "collision", "terrain", "critical-per-20",
           "critical-choice", "shield-arm-hits", "spaces", "battlemaster-hits", "walker-catchers",
           "one-improvement", "warbuggy-weapon", "velocity", "turns-before-moving", "initiative",
           "segments", "end-phase", "captain-abilities", "speed-is-speed-demon", "evasion",
           "damage-control", "mechanic", "luck", "wizard-spells", "haste", "restoration", "legs",
           "bounce-90", "ball-angles", "juggerball-goals", "juggerball-restart", "own-goal-area",
           "deployment", "improvement-weapon", "set-battle-victory", "army-size", "hex-map-only",
           "example-data"]


@pytest.mark.parametrize("ruling", RULINGS)
def test_rulings_recorded(jugger, ruling):
    by_id = {r["id"]: r for r in jugger.rulings}
    assert ruling in by_id
    for key in ("text", "ruling", "why"):
        assert by_id[ruling][key].strip()


def test_rulings_unique(jugger):
    ids = [r["id"] for r in jugger.rulings]
    assert len(ids) == len(set(ids))


# ------------------------------------------------------------------- weapon tables

STANDARD = [
    # face, weapon, range, to hit, damage (min, max), arcs, effect
    (1, "Catapult", 10, 2, (2, 12), "all", "none"),
    (2, "Ballista", 5, 4, (1, 6), "all", "none"),
    (3, "Jaws", 1, 3, (2, 12), "forward", "grab"),
    (4, "Wheel Spikes", 1, 4, (1, 6), "adjacent sides", "none"),
    (5, "Battering Ram", 1, 4, (2, 12), "forward", "none"),
    (6, "Claw Arm", 1, 3, (1, 6), "all", "grab"),
    (7, "Saw Arm", 1, 4, (1, 6), "all", "none"),
    (8, "Flail", 1, 2, (3, 18), "all", "none"),
    (9, "Mace Arm", 1, 3, (2, 12), "all", "none"),
    (10, "Shield Arm", 1, 3, (1, 6), "all", "shield"),
]

WARTIME = [
    (1, "Trebuchet", 15, 1, (3, 18), "all", "none"),
    (2, "Boarders", 1, 1, (0, 0), "all", "boarders"),
    (3, "Fire Pump", 1, 3, (1, 1), "all", "burn"),
    (4, "Cauldron", 1, 4, (1, 6), "all", "cauldron"),
    (5, "Scythe", 1, 3, (1, 6), "forward", "scythe"),
    (6, "Lever", 1, 1, (0, 0), "forward", "topple"),
    (7, "Winch", 0, 0, (0, 0), "all", "winch"),
]

EXOTIC = [
    ("Mirrors", 10, 4, (1, 1), "all", "burn", ["Elves"]),
    ("Sails", 0, 0, (0, 0), "all", "sails", ["Elves"]),
    ("Demon Eye", 5, 1, (0, 0), "forward", "death", ["Voorlock"]),
    ("Acid Spitter", 10, 3, (1, 1), "forward", "acid", ["Voorlock"]),
    ("Tongue", 2, 3, (1, 6), "forward", "none", ["Voorlock"]),
    ("Sling Shot", 10, 3, (1, 6), "all", "none", ["Goblin"]),
    ("Fang", 1, 1, (0, 0), "forward", "death", ["Goblin", "Voorlock"]),
]


def _damage_range(jugger, table, key):
    inputs = {"table": table}
    inputs.update({"name": key} if isinstance(key, str) else {"face": str(key)})
    dist = odds(jugger, "weapon_damage", inputs).outcomes
    return dist.min(), dist.max()


@pytest.mark.parametrize("face, weapon, rng, to_hit, damage, arcs, effect", STANDARD)
def test_standard_weapon_table(jugger, face, weapon, rng, to_hit, damage, arcs, effect):
    row = jugger.tables["standard_weapons"].lookup(face)
    assert (row.get("weapon"), row.get("range"), row.get("to_hit"), row.get("arcs"),
            row.get("effect")) == (weapon, rng, to_hit, arcs, effect)
    assert _damage_range(jugger, "standard", face) == damage


@pytest.mark.parametrize("number, weapon, rng, to_hit, damage, arcs, effect", WARTIME)
def test_wartime_weapon_table(jugger, number, weapon, rng, to_hit, damage, arcs, effect):
    row = jugger.tables["wartime_weapons"].lookup(number)
    assert (row.get("weapon"), row.get("range"), row.get("to_hit"), row.get("arcs"),
            row.get("effect")) == (weapon, rng, to_hit, arcs, effect)
    assert _damage_range(jugger, "wartime", number) == damage


@pytest.mark.parametrize("weapon, rng, to_hit, damage, arcs, effect, races", EXOTIC)
def test_exotic_weapon_table(jugger, weapon, rng, to_hit, damage, arcs, effect, races):
    row = jugger.tables["exotic_weapons"].lookup(weapon)
    assert (row.get("range"), row.get("to_hit"), row.get("arcs"), row.get("effect"),
            list(row.get("races"))) == (rng, to_hit, arcs, effect, races)
    assert _damage_range(jugger, "exotic", weapon) == damage


def test_wartime_roll_never_gives_the_winch(jugger):
    """Ruling wartime-d6-seven: a D6 on the seven-entry table, 1/6 each of entries 1-6."""
    dist = odds(jugger, "wartime_weapon_roll").outcomes
    assert {v: dist.probability(v) for v, _ in dist.items()} == {
        w: F(1, 6) for _, w, *_ in WARTIME[:6]}


SPELLS = [(1, "Fireball", 5, 5, (3, 18)), (2, "Lightning Bolt", 10, 4, (2, 12)),
          (3, "Shield", 0, 0, (0, 0)), (4, "Haste", 0, 0, (0, 0)),
          (5, "Restoration", 0, 0, (0, 0)), (6, "Fate", 0, 0, (0, 0))]


@pytest.mark.parametrize("face, spell, rng, to_hit, damage", SPELLS)
def test_wizard_spell_table(jugger, face, spell, rng, to_hit, damage):
    row = jugger.tables["wizard_spells"].lookup(face)
    assert (row.get("spell"), row.get("range"), row.get("to_hit")) == (spell, rng, to_hit)
    assert _damage_range(jugger, "spells", face) == damage


# ------------------------------------------------------------------- other tables

CRITICAL = [(1, "attacker"), (2, "defender"), (3, "none"), (4, "none"), (5, "none"), (6, "none")]


@pytest.mark.parametrize("face, chooser", CRITICAL)
def test_critical_damage_table(jugger, face, chooser):
    assert jugger.tables["critical_damage"].lookup(face).get("chooser") == chooser


IMPROVEMENTS = [(1, "Gears"), (2, "Brakes"), (3, "Steering"), (4, "Armor"), (5, "Reinforced Ram"),
                (6, "Legs"), (7, "Deflector"), (8, "Catcher")]


@pytest.mark.parametrize("face, item", IMPROVEMENTS)
def test_random_improvement_table(jugger, face, item):
    assert jugger.tables["random_improvements"].lookup(face).get("improvement") == item


CAPTAINS = [
    # face, ability, acceleration, deceleration, turn rate, initiative, missile, melee
    (1, "Speed Demon", 1, 0, 0, 0, 0, 0), (2, "Cornering", 0, 0, 1, 0, 0, 0),
    (3, "Balance", 0, 1, 0, 0, 0, 0), (4, "Tactics", 0, 0, 0, 1, 0, 0),
    (5, "Artillerist", 0, 0, 0, 0, 1, 0), (6, "Meleer", 0, 0, 0, 0, 0, 1),
    (7, "Evasion", 0, 0, 0, 0, 0, 0), (8, "Damage Control", 0, 0, 0, 0, 0, 0),
    (9, "Mechanic", 0, 0, 0, 0, 0, 0), (10, "Luck", 0, 0, 0, 0, 0, 0),
]


@pytest.mark.parametrize("face, ability, acc, dec, turn, ini, missile, melee", CAPTAINS)
def test_captain_abilities_table(jugger, face, ability, acc, dec, turn, ini, missile, melee):
    row = jugger.tables["captain_abilities"].lookup(face)
    assert (row.get("ability"), row.get("acceleration"), row.get("deceleration"),
            row.get("turn_rate"), row.get("initiative"), row.get("missile_to_hit"),
            row.get("melee_to_hit")) == (ability, acc, dec, turn, ini, missile, melee)


LEGENDARY = [("Morg Orgus", ["Speed Demon", "Meleer", "Damage Control", "Tactics", "Evasion"]),
             ("Ballard Trevon", ["Balance", "Luck", "Artillerist", "Tactics"]),
             ("Gavis Greybeard", ["Cornering", "Mechanic", "Evasion"])]


@pytest.mark.parametrize("name, abilities", LEGENDARY)
def test_legendary_captains(jugger, name, abilities):
    row = jugger.tables["legendary_captains"].lookup(name)
    assert list(row.get("abilities")) == abilities
    known = {jugger.tables["captain_abilities"].lookup(f).get("ability") for f in range(1, 11)}
    assert set(abilities) <= known and len(abilities) > 1   # "more than 1": legendary


BOUNCE = [(1, 3, False), (2, 1, False), (3, -1, False), (4, 2, False), (5, -2, False), (6, 0, True)]


@pytest.mark.parametrize("face, sides, stops", BOUNCE)
def test_bounce_table(jugger, face, sides, stops):
    row = jugger.tables["bounce"].lookup(face)
    assert (row.get("hex_sides"), row.get("stops")) == (sides, stops)


D6_TABLES = [
    ("break_hold", {1: "broken free", 2: "broken free", 3: "broken free", 4: "still held",
                    5: "still held", 6: "still held"}),
    ("winch_roll", {1: "topples", 2: "roll again next turn", 3: "roll again next turn",
                    4: "rope snaps", 5: "rope snaps", 6: "rope snaps"}),
    ("boarding_roll", {1: "jug captured", 2: "miss", 3: "miss", 4: "boarders killed",
                       5: "boarders killed", 6: "boarders killed"}),
    ("balance_roll", {1: "avoids the topple", 2: "avoids the topple", 3: "avoids the topple",
                      4: "topples", 5: "topples", 6: "topples"}),
    ("evasion_roll", {1: "dodged", 2: "dodged", 3: "not dodged", 4: "not dodged",
                      5: "not dodged", 6: "not dodged"}),
    ("damage_control_roll", {1: "succeeds", 2: "succeeds", 3: "succeeds", 4: "fails",
                             5: "fails", 6: "fails"}),
]


@pytest.mark.parametrize("table, faces", D6_TABLES, ids=[t for t, _ in D6_TABLES])
def test_d6_tables(jugger, table, faces):
    assert {f: jugger.tables[table].lookup(f) for f in range(1, 7)} == faces


TERRAIN = [("clear", 0, False), ("forest", 1, False), ("rubble", 1, False), ("house", 1, False),
           ("wreckage", 1, False), ("obstacle", 0, True), ("wall", 0, True), ("stone wall", 0, True)]


@pytest.mark.parametrize("terrain, slows, blocks", TERRAIN)
def test_terrain_table(jugger, terrain, slows, blocks):
    row = jugger.tables["terrain"].lookup(terrain)
    assert (row.get("slows"), row.get("blocks")) == (slows, blocks)


def test_stone_wall_hits_are_10d10(jugger):
    dist = odds(jugger, "wall_hits").outcomes
    assert (dist.min(), dist.max(), dist.mean()) == (10, 100, 55)


def test_army_sizes(jugger):
    assert jugger.tables["army_sizes"].lookup("medium") == 20
