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

from interpreter.game.api import check_ruleset, load_ruleset

ROOT = Path(__file__).resolve().parent.parent
PATH = ROOT / "rules" / "jugger" / "jugger.yaml"
GOLDEN = {"default": ROOT / "tests" / "golden" / "jugger_play_seed1.jsonl",
          "duel": ROOT / "tests" / "golden" / "jugger_duel_seed1.jsonl",
          "juggerball": ROOT / "tests" / "golden" / "jugger_juggerball_seed2.jsonl"}
SEEDS = {"default": 1, "duel": 1, "juggerball": 2}      # juggerball: a game won on three goals
JUGGERBALL_WON = ("east", {"west": 0, "east": 3})       # the golden Juggerball game's result


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
    ("oversize_examples", "'size 3 trebuchet'", "oversize"),
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
    assert "0 errors, 3 warnings" in done.stdout + done.stderr


def test_header_and_metadata(jugger):
    first = PATH.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=../../schema/ruleset.schema.json"
    assert jugger.id == "jugger" and jugger.title == "Jugger"
    assert jugger.source == "000_85e61d9932371556.txt"
    assert load_ruleset("jugger").path.resolve() == PATH.resolve()


def test_listed():
    """`rulecraft list` shows the bundled rulesets (interpreter.ruleset.bundled)."""
    from interpreter.model.build import bundled
    assert any(Path(entry["path"]).resolve() == PATH.resolve() for entry in bundled())


RULINGS = ["to-hit-die", "to-hit-bonus", "range-in-hexes", "arcs", "missing-weapon-rows",
           "wartime-d6-seven", "exotic-no-die", "oversize", "damage-roll-of-six", "attack-timing",
           "once-per-turn", "cauldron-cooldown", "damage-over-time", "topple", "winch-chain",
           "boarders", "crew-killed", "grab", "grab-holds", "ram-arc", "ram-push", "ram-rear",
           "ram-head-on", "drive-through", "collision", "terrain", "critical-per-20",
           "critical-choice", "shield-arm-hits", "spaces", "battlemaster-hits", "walker-catchers",
           "one-improvement", "warbuggy-weapon", "velocity", "turns-before-moving", "initiative",
           "segments", "end-phase", "wheel-spikes", "captain-abilities", "speed-is-speed-demon", "evasion",
           "damage-control", "mechanic", "luck", "wizard-spells", "haste", "restoration", "legs",
           "bounce-90", "ball-angles", "juggerball-goals", "juggerball-restart", "own-goal-area",
           "deployment", "improvement-weapon", "ball-bounce", "pushing-the-ball", "set-battle-victory", "army-size", "hex-map-only",
           "example-data", "catching", "head-on-pusher", "wreckage"]


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


BOUNCE = [(1, 180, False), (2, 90, False), (3, 90, False), (4, 120, False), (5, 120, False), (6, 0, True)]


@pytest.mark.parametrize("face, angle, stops", BOUNCE)
def test_bounce_table(jugger, face, angle, stops):
    """(text) 1 180 degrees back, 2/3 90 degrees right/left, 4/5 120 degrees right/left, 6 caught."""
    row = jugger.tables["bounce"].lookup(face)
    assert (row.get("angle"), row.get("stops")) == (angle, stops)
    assert row.get("side") == ("left" if face in (3, 5) else "right")


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
           ("wreckage", 1, False), ("obstacle", 0, True), ("wall", 0, True), ("stone wall", 0, True),
           ("west goal", 0, False), ("east goal", 0, False)]


@pytest.mark.parametrize("terrain, slows, blocks", TERRAIN)
def test_terrain_table(jugger, terrain, slows, blocks):
    row = jugger.tables["terrain"].lookup(terrain)
    assert (row.get("slows"), row.get("blocks")) == (slows, blocks)


@pytest.mark.parametrize("terrain", [t for t, *_ in TERRAIN if t != "clear"])
def test_map_terrain_agrees_with_the_table(jugger, terrain):
    """One meaning: the map's terrain kinds (space.terrain, what blocks a move) are the
    table's rows; a goal is open on its three forward sides only."""
    kind = jugger.space_rules["terrain"][terrain]
    assert bool(kind.get("blocks")) == jugger.tables["terrain"].lookup(terrain).get("blocks")
    goal = jugger.tables["terrain"].lookup(terrain).get("goal_of")
    assert kind.get("open_sides") == {"west": [0, 1, 2], "east": [3, 4, 5], "": None}[goal]


def test_stone_wall_hits_are_10d10(jugger):
    dist = odds(jugger, "wall_hits").outcomes
    assert (dist.min(), dist.max(), dist.mean()) == (10, 100, 55)


def test_army_sizes(jugger):
    assert jugger.tables["army_sizes"].lookup("medium") == 20


# ------------------------------------------------------------------- designs
#
# By hand from the trait rules: hits = 20 x SC + 20 per Armor + 10 per size of Shield Arm;
# spaces = sum of sizes (winch, wizard, sails, each armour, gear and reinforced ram: 1);
# rates 1 + gears/sails (acceleration), brakes/legs/sails (deceleration), steering/legs
# (turn rate); Ram Roll + 1 per Reinforced Ram ("Main Ram +2").

DESIGNS = [
    # design, race, SC, printed hits, rules hits, spaces, acc, dec, turn, ram bonus, legs
    ("Warbuggy", "All races", 1, 20, 20, 1, 1, 1, 1, 0, False),
    ("Boarder", "Meddians", 4, 80, 80, 4, 1, 1, 1, 0, False),
    ("Swordsman", "Meddians", 5, 120, 120, 5, 1, 2, 2, 0, True),
    ("Archer", "Meddians", 3, 60, 60, 3, 1, 1, 1, 0, False),
    ("Axer", "Meddians", 8, 160, 160, 8, 1, 2, 2, 0, True),
    ("Lobber", "Dwarves", 2, 40, 40, 2, 1, 1, 1, 0, False),
    ("Warmachine", "Dwarves", 5, 120, 120, 5, 1, 1, 1, 0, False),
    ("Landship", "Dwarves", 6, 160, 160, 6, 1, 1, 1, 0, False),
    ("Battlemaster", "Dwarves", 8, 220, 200, 8, 1, 1, 1, 2, False),   # ruling battlemaster-hits
    ("Warbah", "Orcs", 4, 80, 80, 4, 1, 1, 1, 0, False),
    ("Gorger", "Orcs", 6, 160, 160, 6, 3, 1, 1, 2, False),
    ("Cutter", "Orcs", 3, 60, 60, 3, 1, 2, 2, 0, True),
    ("Crusher", "Orcs", 10, 200, 200, 10, 1, 1, 1, 0, False),
    ("Backbiter", "Goblins", 3, 60, 60, 3, 1, 1, 1, 0, False),
    ("Sniper", "Goblins", 2, 40, 40, 2, 1, 1, 1, 0, False),
    ("Thrasher", "Goblins", 5, 120, 120, 5, 1, 1, 1, 0, False),
    ("Hydra", "Goblins", 8, 160, 160, 8, 1, 1, 1, 0, False),
    ("Lumberjack", "Gnome", 3, 60, 60, 3, 1, 1, 1, 0, False),
    ("Tug", "Gnome", 5, 100, 100, 5, 1, 1, 1, 0, False),
    ("Miner", "Gnome", 2, 40, 40, 2, 1, 1, 1, 0, False),
    ("Walker", "Gnome", 7, 140, 140, 7, 2, 2, 2, 0, True),
    ("Windrammer", "Elf", 5, 100, 100, 5, 3, 3, 1, 2, False),
    ("Mirror Ship", "Elf", 2, 40, 40, 2, 1, 1, 1, 0, False),
    ("Fire Avatar", "Elf", 5, 100, 100, 5, 1, 2, 2, 0, True),
    ("Tower of Death", "Elf", 7, 140, 140, 7, 1, 1, 1, 0, False),
    ("Horny Toad", "Voorlock", 4, 80, 80, 4, 1, 2, 2, 0, True),
    ("Demon Eye", "Voorlock", 5, 100, 100, 5, 1, 1, 1, 0, False),
    ("Dragon Face", "Voorlock", 8, 160, 160, 8, 1, 1, 1, 0, False),
    ("Gekko Spitter", "Voorlock", 2, 40, 40, 2, 1, 1, 1, 0, False),
    ("Desert Rat", "Kurdashi", 3, 60, 60, 3, 1, 2, 2, 0, True),
    ("Wild Ass", "Kurdashi", 5, 100, 100, 5, 1, 2, 2, 0, True),
    ("Yahoot", "Kurdashi", 7, 140, 140, 7, 1, 2, 2, 0, True),
]


def test_every_design_is_listed(jugger):
    assert sorted(r.key for r in jugger.tables["designs"].rows) == sorted(d[0] for d in DESIGNS)


@pytest.mark.parametrize("design, race, sc, printed, hits, spaces, acc, dec, turn, ram, legs",
                         DESIGNS, ids=[d[0] for d in DESIGNS])
def test_design_traits(jugger, design, race, sc, printed, hits, spaces, acc, dec, turn, ram, legs):
    row = jugger.tables["designs"].lookup(design)
    assert (row.get("race"), row.get("sc"), row.get("printed_hits")) == (race, sc, printed)
    got = jugger.run("traits", {"jug": f'designs["{design}"]'}, seed=1).result
    assert list(got) == [sc, spaces, hits, acc, dec, turn, ram, legs]


def test_every_design_item_is_defined(jugger):
    items = {r.key for r in jugger.tables["equipment_items"].rows}
    for row in jugger.tables["designs"].rows:
        for slot in row.get("equipment"):
            assert slot["item"] in items, (row.key, slot)


@pytest.mark.parametrize("row", ["Boarder", "Axer", "Battlemaster", "Crusher", "Hydra", "Tug"])
def test_slot_names_unique(jugger, row):
    """Ruling once-per-turn: each piece is its own slot."""
    slots = [s["slot"] for s in jugger.tables["designs"].lookup(row).get("equipment")]
    assert len(slots) == len(set(slots))


ALIASES = [("Sword Arm", "Mace Arm"), ("Axe Arm", "Mace Arm"), ("Dropper", "Flail"),
           ("Wrecking Ball", "Flail"), ("Scissor Arm", "Saw Arm"), ("Screw Ram", "Battering Ram"),
           ("Jaw Arm", "Claw Arm"), ("Tentacle", "Claw Arm"), ("Claw", "Claw Arm"),
           ("Catcher Arm", "Claw Arm"), ("Jaw", "Jaws"), ("Push Pole", "Lever"), ("Jack", "Lever"),
           ("Mirror", "Mirrors")]


@pytest.mark.parametrize("item, weapon", ALIASES)
def test_weapon_aliases(jugger, item, weapon):
    """Ruling missing-weapon-rows: the design's name is the row that lists it as 'Also'."""
    row = jugger.tables["equipment_items"].lookup(item)
    assert row.get("is_weapon") and row.get("weapon").get("weapon") == weapon


def test_walker_legs_and_catchers(jugger):
    """Ruling walker-catchers: the Walker's catchers are claw arms, not the improvement."""
    items = [s["item"] for s in jugger.tables["designs"].lookup("Walker").get("equipment")]
    assert "Legs" in items and "Catcher" not in items and items.count("Catcher Arm") == 2


def test_designs_keep_the_equipment_restrictions(jugger):
    """(text) "Sails cannot be combined with legs"; "Legs, deflectors, and catchers can only
    get one improvement", deflectors and catchers not with legs (rulings one-improvement,
    walker-catchers): every design keeps them."""
    table = jugger.tables["designs"]
    assert len(table.rows) > 30
    for row in table.rows:
        design = row.key
        items = [s["item"] for s in table.lookup(design).get("equipment")]
        assert not ("Sails" in items and "Legs" in items), design
        assert all(items.count(i) <= 1 for i in ("Legs", "Deflector", "Catcher")), design
        assert not ("Legs" in items and ("Deflector" in items or "Catcher" in items)), design


def test_winches_name_their_ballista(jugger):
    for design in ("Archer", "Tug"):
        slots = jugger.tables["designs"].lookup(design).get("equipment")
        winch = [s for s in slots if s["item"] == "Winch"][0]
        assert any(s["slot"] == winch["on"] and s["item"] == "Ballista" for s in slots)


# ------------------------------------------------------------------- attacks: exact odds
#
# Ruling to-hit-die: one D6, a hit on To Hit or less, so P(hit) = To Hit / 6.  The default
# target is an SC-3 jug with 60 hits: no single weapon hit destroys it.

def _probabilities(result):
    return {v: result.outcomes.probability(v) for v, _ in result.outcomes.items()}


ATTACK_ODDS = [
    # case, inputs, {outcome: probability}
    ("catapult at its range 10: hit 2/6",
     {"weapon": "Catapult", "distance": "10"}, {"miss": F(2, 3), "damaged": F(1, 3)}),
    ("catapult at 11 hexes: out of range",
     {"weapon": "Catapult", "distance": "11"}, {"out of range": 1}),
    ("ballista at 5: hit 4/6",
     {"weapon": "Ballista", "distance": "5"}, {"miss": F(1, 3), "damaged": F(2, 3)}),
    ("flail: hit 2/6", {"weapon": "Flail"}, {"miss": F(2, 3), "damaged": F(1, 3)}),
    ("mace arm: hit 3/6", {"weapon": "Mace Arm"}, {"miss": F(1, 2), "damaged": F(1, 2)}),
    ("trebuchet at 15: hit 1/6",
     {"weapon": "Trebuchet", "distance": "15"}, {"miss": F(5, 6), "damaged": F(1, 6)}),
    ("jaws in the forward arc grab on a hit",
     {"weapon": "Jaws"}, {"miss": F(1, 2), "grabbed": F(1, 2)}),
    ("jaws: forward arc only", {"weapon": "Jaws", "arc": "side"}, {"not in arc": 1}),
    ("claw arm: all arcs, grab", {"weapon": "Claw Arm", "arc": "rear"},
     {"miss": F(1, 2), "grabbed": F(1, 2)}),
    ("wheel spikes hit adjacent side hexes",
     {"weapon": "Wheel Spikes", "arc": "side"}, {"miss": F(1, 3), "damaged": F(2, 3)}),
    ("wheel spikes cannot reach ahead", {"weapon": "Wheel Spikes", "arc": "front"}, {"not in arc": 1}),
    ("battering ram: forward arc", {"weapon": "Battering Ram", "arc": "side"}, {"not in arc": 1}),
    ("tongue reaches 2 hexes", {"weapon": "Tongue", "distance": "2"},
     {"miss": F(1, 2), "damaged": F(1, 2)}),
    ("tongue not 3", {"weapon": "Tongue", "distance": "3"}, {"out of range": 1}),
    # captains (ruling to-hit-bonus, luck)
    ("artillerist: catapult hits on 1-3",
     {"weapon": "Catapult", "distance": "6", "attacker.captain": '["Artillerist"]'},
     {"miss": F(1, 2), "damaged": F(1, 2)}),
    ("meleer does not help a missile",
     {"weapon": "Catapult", "distance": "6", "attacker.captain": '["Meleer"]'},
     {"miss": F(2, 3), "damaged": F(1, 3)}),
    ("meleer: mace arm hits on 1-4",
     {"weapon": "Mace Arm", "attacker.captain": '["Meleer"]'}, {"miss": F(1, 3), "damaged": F(2, 3)}),
    ("luck rerolls a miss: (2/3)^2",
     {"weapon": "Catapult", "distance": "6", "attacker.captain": '["Luck"]'},
     {"miss": F(4, 9), "damaged": F(5, 9)}),
    ("luck and artillerist: (1/2)^2",
     {"weapon": "Catapult", "distance": "6", "attacker.captain": '["Artillerist", "Luck"]'},
     {"miss": F(1, 4), "damaged": F(3, 4)}),
    ("a fate spell rerolls a miss",
     {"weapon": "Catapult", "distance": "6", "attacker.spells.fate": "1"},
     {"miss": F(4, 9), "damaged": F(5, 9)}),
    # the target's captain and spells (rulings evasion, wizard-spells)
    ("evasion dodges a hit on 1-2: 1/3 x 1/3",
     {"weapon": "Catapult", "distance": "6", "target.captain": '["Evasion"]'},
     {"miss": F(2, 3), "dodged": F(1, 9), "damaged": F(2, 9)}),
    ("a shield spell negates the hit",
     {"weapon": "Catapult", "distance": "6", "target.spells.shield": "1"},
     {"miss": F(2, 3), "negated by a shield spell": F(1, 3)}),
    # wartime weapons
    ("boarders: 1 captures, 4-6 kills the boarders",
     {"weapon": "Boarders"}, {"jug captured": F(1, 6), "miss": F(1, 3), "boarders killed": F(1, 2)}),
    ("boarders with a meleer: 1-2 captures",
     {"weapon": "Boarders", "attacker.captain": '["Meleer"]'},
     {"jug captured": F(1, 3), "miss": F(1, 6), "boarders killed": F(1, 2)}),
    ("boarders with luck: a miss or a 4-6 is rerolled once",
     {"weapon": "Boarders", "attacker.captain": '["Luck"]'},
     {"jug captured": F(11, 36), "miss": F(5, 18), "boarders killed": F(5, 12)}),
    ("fire pump sets the target burning", {"weapon": "Fire Pump"},
     {"miss": F(1, 2), "set burning": F(1, 2)}),
    ("cauldron", {"weapon": "Cauldron"}, {"miss": F(1, 3), "set burning": F(2, 3)}),
    ("scythe: a damage roll of 6 cuts the jug in half",
     {"weapon": "Scythe"}, {"miss": F(1, 2), "cut in half": F(1, 12), "damaged": F(5, 12)}),
    ("lever: toppled and destroyed", {"weapon": "Lever"},
     {"miss": F(5, 6), "toppled and destroyed": F(1, 6)}),
    ("lever against balance: avoids on 1-3", {"weapon": "Lever", "target.captain": '["Balance"]'},
     {"miss": F(5, 6), "toppled and destroyed": F(1, 12), "avoids the topple": F(1, 12)}),
    ("winch on the archer's ballista: 2/3 x (1 topple, 2-3 again, 4-6 snaps)",
     {"attacker": 'designs["Archer"]', "weapon": "Ballista", "size": "2", "slot": "Ballista",
      "distance": "3"},
     {"miss": F(1, 3), "toppled and destroyed": F(1, 9), "roll again next turn": F(2, 9),
      "rope snaps": F(1, 3)}),
    ("a ballista without a winch", {"attacker": 'designs["Archer"]', "weapon": "Ballista",
                                    "size": "2", "distance": "3"},
     {"miss": F(1, 3), "damaged": F(2, 3)}),
    # exotic weapons
    ("demon eye at 5: the crew is killed", {"weapon": "Demon Eye", "distance": "5"},
     {"miss": F(5, 6), "crew killed": F(1, 6)}),
    ("fang", {"weapon": "Fang"}, {"miss": F(5, 6), "crew killed": F(1, 6)}),
    ("fang: forward arc only", {"weapon": "Fang", "arc": "side"}, {"not in arc": 1}),
    ("acid spitter at 10", {"weapon": "Acid Spitter", "distance": "10"},
     {"miss": F(1, 2), "burnt by acid": F(1, 2)}),
    ("mirrors at 10", {"weapon": "Mirror", "distance": "10"},
     {"miss": F(1, 3), "set burning": F(2, 3)}),
    ("sling shot", {"weapon": "Sling Shot", "distance": "10"}, {"miss": F(1, 2), "damaged": F(1, 2)}),
    # not attacks
    ("a winch is not a weapon", {"weapon": "Winch"}, {"not a weapon": 1}),
    ("armour is not a weapon", {"weapon": "Armor"}, {"not a weapon": 1}),
    ("a crewless jug cannot attack", {"weapon": "Catapult", "attacker.crew_killed": "true"},
     {"cannot attack": 1}),
    # Luck and Fate on the opponent's roll (ruling luck): a hit is bad for the target
    ("the target's luck rerolls a hit: (1/3)^2",
     {"weapon": "Catapult", "distance": "6", "target.captain": '["Luck"]'},
     {"miss": F(8, 9), "damaged": F(1, 9)}),
    ("the target's fate spell rerolls a hit",
     {"weapon": "Catapult", "distance": "6", "target.spells.fate": "1"},
     {"miss": F(8, 9), "damaged": F(1, 9)}),
    # the attacker's Luck first (5/9 hit), then the target's Fate on a hit: 5/9 x 1/3
    ("the attacker's luck, then the target's fate",
     {"weapon": "Catapult", "distance": "6", "attacker.captain": '["Luck"]',
      "target.spells.fate": "1"},
     {"miss": F(22, 27), "damaged": F(5, 27)}),
]


@pytest.mark.parametrize("case, inputs, expected", ATTACK_ODDS, ids=[c[0] for c in ATTACK_ODDS])
def test_attack_exact_odds(jugger, case, inputs, expected):
    assert sum(expected.values()) == 1, "the hand computation must add up"
    assert _probabilities(odds(jugger, "attack", inputs)) == expected


# Luck on the other rolls between two jugs (ruling luck): the break-hold roll (the held
# jug hopes for 1-3) and the winch roll (the attacker hopes for the topple, 1)
REROLLED = [
    ("break_free", {"target.captain": '["Luck"]'}, {"broken free": F(3, 4), "still held": F(1, 4)}),
    ("break_free", {"grabber.captain": '["Luck"]'}, {"broken free": F(1, 4), "still held": F(3, 4)}),
    ("winch", {"target.captain": '["Luck"]'},
     {"toppled and destroyed": F(1, 36), "rope snaps": F(7, 12), "roll again next turn": F(7, 18)}),
]


@pytest.mark.parametrize("procedure, inputs, expected", REROLLED)
def test_luck_rerolls_the_other_jugs_rolls_too(jugger, procedure, inputs, expected):
    assert _probabilities(odds(jugger, procedure, inputs)) == expected


def test_boarders_capture_the_jug(jugger):
    """Ruling boarders: a hit (1 on the D6) puts the target under the attacker's side."""
    result = odds(jugger, "attack", {"weapon": "Boarders"}, track=["target.side == attacker.side"])
    assert result.tracked["target.side == attacker.side"].probability(True) == F(1, 6)


def test_a_captured_jug_fights_for_its_captors(jugger):
    """Rulings boarders, set-battle-victory: in the golden battle (seed 1) the
    Battlemaster's boarders take Gorger in turn 4; it then moves in men_and_dwarves'
    segments, the report says it was taken, and the Demon Eye leaves Landship crewless."""
    result = _played(jugger, "default", 1)
    taken = [e for e in result.events if e["event"] == "captured"]
    assert [(e["turn"], e["unit"], e["side"]) for e in taken] == [(4, "Gorger", "men_and_dwarves")]
    gorger = next(u for u in result.world.units.values() if u.name == "Gorger")
    assert gorger.side == "men_and_dwarves" and gorger.first_side == "orcs_and_goblins"
    later = [e for e in result.events if e["event"] == "call" and e["turn"] > 4
             and e["text"] == "drive(unit=Gorger)"]
    assert later, "Gorger goes on driving, for its new side"
    from rich.console import Console
    from interpreter.render.story import game_report
    console = Console(width=300, no_color=True)
    with console.capture() as got:
        for line in game_report(result):
            console.print(line)
    text = got.get()
    assert "1 captured by men_and_dwarves (Gorger)" in text
    assert "Gorger: taken from orcs_and_goblins" in text
    assert "Landship: crewless" in text or "lost" in text.split("Landship")[0]


def test_a_goal_ends_the_round_at_once(jugger):
    """Ruling juggerball-restart: after each goal of the golden game the turn ends
    (end_turn): no other jug moves and the end phase is not played that turn."""
    result = _played(jugger, "juggerball", SEEDS["juggerball"])
    goals = [e["turn"] for e in result.events if e["event"] == "story" and e["text"].startswith("GOAL")]
    ended = [e["turn"] for e in result.events if e["event"] == "turn_ended"]
    assert ended == goals and len(goals) == 3
    for turn in goals:
        events = [e for e in result.events if e["turn"] == turn]
        at = next(i for i, e in enumerate(events) if e["event"] == "turn_ended")
        assert not [e for e in events[at:] if e["event"] == "call" and e["text"].startswith("drive(")]
        assert not [e for e in events[at:] if e["event"] == "phase"]


def test_oversize_trebuchet_damage(jugger):
    """Ruling oversize: a size 2 trebuchet does 2 x 3D6 (6..36, mean 21) on its 1/6 hit."""
    result = odds(jugger, "attack", {"weapon": "Trebuchet", "size": "2", "distance": "3",
                                     "target.sc": "5"}, track=["target.hits"])
    hits = result.tracked["target.hits"]
    assert hits.probability(100) == F(5, 6)
    assert hits.min() == 100 - 36 and hits.max() == 100
    assert hits.mean() == 100 - F(1, 6) * 21


@pytest.mark.parametrize("weapon, size, dice, sides", [("Trebuchet", 3, 3, 6), ("Trebuchet", 1, 3, 6),
                                                     ("Catapult", 2, 2, 6), ("Flail", 4, 3, 6)])
def test_oversize_multiplies_one_roll(jugger, weapon, size, dice, sides):
    """Ruling oversize: size x the damage roll: min size x dice, max size x dice x sides,
    in steps of the size (one roll, multiplied)."""
    result = odds(jugger, "attack", {"weapon": weapon, "size": str(size), "target.sc": "20",
                                     "distance": "1"}, track=["target.hits"])
    hits = result.tracked["target.hits"]
    lost = sorted(400 - v for v, _ in hits.items() if v != 400)
    assert lost[0] == size * dice and lost[-1] == size * dice * sides
    assert all(x % size == 0 for x in lost) and len(lost) == dice * sides - dice + 1


def test_size_four_fire_pump_burns_for_four(jugger):
    """(text) 'A size 4 Fire pump does 4 points of damage for 1D6 rounds.'"""
    world = _world(jugger, "duel")
    red, blue = world.units["Red Buggy"], world.units["Blue Buggy"]
    blue.fields["sc"] = 5
    blue.fields["hits"] = 100
    weapon = _call(jugger, world, "weapon_row", "Fire Pump")
    _call(jugger, world, "resolve_hit", red, weapon, 4, blue, "")
    assert [s.name for s in blue.statuses] == ["burning"] and not blue.has("burning")  # from next turn
    turns = next(s for s in blue.statuses if s.name == "burning").turns_left
    assert 1 <= turns <= 6
    burnt = 0
    for _ in range(9):
        before = blue.dsl_attr("hits")
        _end_of_turn(jugger, world)
        burnt += 1 if blue.dsl_attr("hits") < before else 0
        if blue.dsl_attr("hits") < before:
            assert before - blue.dsl_attr("hits") == 4
    assert burnt == turns and blue.statuses == []


def test_damage_control_puts_out_one_fire(jugger):
    """(text) "Damage Control: Put out 1 fire ... on a roll of 1-3 on D6" (ruling
    damage-control): of two fires on Blue, the first end phase's roll (2) puts out the
    oldest; the other still burns that end phase (1 point), and the next (a 5 fails)."""
    world = _world(jugger, "duel")
    red, blue = world.units["Red Buggy"], world.units["Blue Buggy"]
    blue.fields["captain"] = ["Damage Control"]
    weapon = _call(jugger, world, "weapon_row", "Fire Pump")
    world.rng = _FixedDice([6, 6])        # each fire burns for 6 turns
    _call(jugger, world, "resolve_hit", red, weapon, 1, blue, "")
    _call(jugger, world, "resolve_hit", red, weapon, 1, blue, "")
    _end_of_turn(jugger, world)           # the turn of the hits: no damage yet
    assert [s.name for s in blue.statuses] == ["burning", "burning"]
    hits = blue.dsl_attr("hits")
    world.rng = _FixedDice([2])           # Damage Control succeeds on the first fire
    _end_of_turn(jugger, world)
    assert [s.name for s in blue.statuses] == ["burning"]
    assert blue.dsl_attr("hits") == hits - 1
    world.rng = _FixedDice([5])           # next turn's try fails: the second fire burns on
    _end_of_turn(jugger, world)
    assert blue.dsl_attr("hits") == hits - 2


# ------------------------------------------------------------------- worlds for statuses

def _world(jugger, scenario="duel", seed=0):
    from interpreter.game.policies import Chooser
    from interpreter.game.play import build_world
    world = build_world(jugger, jugger.scenarios[scenario], random.Random(seed), True)
    world.chooser = Chooser(world, {})
    world.turn = 1
    return world


def _call(jugger, world, procedure, *args):
    from interpreter.run.frames import Frame
    frame = Frame({"turn": world.turn, "units": [u for u in world.units.values() if u.alive]},
                  jugger.globals, world, world.rng, True)
    return jugger.procedures[procedure].dsl_call(list(args), {}, None, frame.ctx)


def _end_of_turn(jugger, world):
    """The engine's end of a turn: end_of_turn triggers, statuses expire, the next turn."""
    from interpreter.game.lifecycle import expire_statuses as _expire_statuses
    from interpreter.game.lifecycle import start_statuses as _start_statuses
    from interpreter.game.lifecycle import status_triggers as _status_triggers
    _status_triggers(jugger, world, "end_of_turn")
    _expire_statuses(world)
    world.turn += 1
    _start_statuses(world)


COOLDOWN = [
    # turns the cauldron was used, turn asked, ready
    ([], 5, True), ([5], 5, False), ([5], 6, False), ([5], 7, False), ([5], 8, True),
    ([3], 5, False), ([2], 5, True),
]


def _used_in(world, jug, slot, turns, per):
    """The slot was used in these turns (the engine's cooldown count, as use() leaves it)."""
    from interpreter.state.freezing import freeze
    world.uses[(jug.uid, freeze(slot), per)] = list(turns)


@pytest.mark.parametrize("used, now, ready", COOLDOWN)
def test_cauldron_once_every_three_turns(jugger, used, now, ready):
    """Ruling cauldron-cooldown: used in turn T, next in T + 3 (uses per=3)."""
    world = _world(jugger)
    jug = world.units["Red Buggy"]
    _used_in(world, jug, "Cauldron", used, 3)
    world.turn = now
    assert _call(jugger, world, "slot_ready", jug, "Cauldron", "Cauldron") is ready


@pytest.mark.parametrize("used, now, ready", [([5], 5, False), ([5], 6, True), ([4], 5, True)])
def test_weapon_once_per_turn(jugger, used, now, ready):
    """(text) 'A weapon can only be used to attack once during a turn.'"""
    world = _world(jugger)
    jug = world.units["Red Buggy"]
    _used_in(world, jug, "Catapult", used, 1)
    world.turn = now
    assert _call(jugger, world, "slot_ready", jug, "Catapult", "Catapult") is ready


@pytest.mark.parametrize("item, per", [("Catapult", 1), ("Cauldron", 3), ("Wizard", 1)])
def test_slot_uses_count_over_the_weapons_turns(jugger, item, per):
    """Rulings once-per-turn, cauldron-cooldown: a slot's use is counted per=1, a cauldron's per=3."""
    assert jugger.run("slot_every", {"item": item}, seed=1).result == per


@pytest.mark.parametrize("used, ready_after", [([], [True, True, True, True]),
                                                ([1], [False, False, False, True])])
def test_attack_records_the_use(jugger, used, ready_after):
    """An attack counts its slot's use: a cauldron fired in turn 1 is ready again in turn 4."""
    world = _world(jugger)
    red, blue = world.units["Red Buggy"], world.units["Blue Buggy"]
    for turn in used:
        world.turn = turn
        _call(jugger, world, "attack", red, "Cauldron", blue, 1, 1, "front", "Cauldron 1")
    ready = []
    for turn in (1, 2, 3, 4):
        world.turn = turn
        ready.append(_call(jugger, world, "slot_ready", red, "Cauldron 1", "Cauldron"))
    assert ready == ready_after


def test_used_weapon_refused(jugger):
    world = _world(jugger)
    red, blue = world.units["Red Buggy"], world.units["Blue Buggy"]
    _used_in(world, red, "Catapult 1", [1], 1)
    assert _call(jugger, world, "attack", red, "Catapult", blue, 1, 3, "front", "Catapult 1") \
        == "already used"


# ------------------------------------------------------------------- damage and criticals

CRITICALS_DUE = [(0, 19, 0), (0, 20, 1), (19, 20, 1), (0, 45, 2), (20, 39, 0), (39, 41, 1),
                 (0, 100, 5), (55, 60, 1), (60, 79, 0)]


@pytest.mark.parametrize("before, after, rolls", CRITICALS_DUE)
def test_criticals_per_20_lost(jugger, before, after, rolls):
    """Ruling critical-per-20: one roll for each multiple of 20 passed."""
    got = jugger.run("criticals_due", {"before": str(before), "after": str(after)}, seed=1).result
    assert got == rolls


def _slots_left(result, path="target.equipment"):
    dist = result.tracked[path]
    out = {}
    for value, _ in dist.items():
        out[len(value)] = out.get(len(value), 0) + dist.probability(value)
    return out


@pytest.mark.parametrize("amount, lost", [
    (19, {5: 1}),
    (20, {5: F(2, 3), 4: F(1, 3)}),                        # one roll: 1-2 destroys a piece
    (45, {5: F(4, 9), 4: F(4, 9), 3: F(1, 9)}),             # two rolls
    (60, {5: F(8, 27), 4: F(12, 27), 3: F(6, 27), 2: F(1, 27)}),
])
def test_critical_rolls_destroy_equipment(jugger, amount, lost):
    """A Landship (160 hits; 5 slots: 2 armour, a size 2 battering ram, 2 catapults) takes `amount`:
    every critical roll destroys a piece on 1-2 (attacker's or defender's choice)."""
    result = odds(jugger, "take_damage", {"target": 'designs["Landship"]', "amount": str(amount)},
                  track=["target.equipment"])
    assert _slots_left(result) == lost


def test_attackers_choice_takes_the_biggest(jugger):
    """Critical 1: the attacker chooses (policy prefer: the piece of most spaces)."""
    world = _world(jugger, "default")
    landship, crusher = world.units["Landship"], world.units["Crusher"]
    world.rng = _FixedDice([1])   # the critical roll is a 1: attacker's choice
    _call(jugger, world, "critical", landship, crusher)
    assert [s["slot"] for s in landship.dsl_attr("equipment")] == [
        "Armor 1", "Armor 2", "Catapult 1", "Catapult 2"]     # the size 2 battering ram is gone


class _FixedDice:
    """An RNG that rolls the given faces of a die of `sides` (the engine draws one
    random() per die and takes face int(random() * sides) + 1)."""

    def __init__(self, faces, sides=6):
        self.faces, self.sides = list(faces), sides

    def random(self):
        return (self.faces.pop(0) - 0.5) / self.sides


def test_zero_hits_destroys(jugger):
    result = odds(jugger, "take_damage", {"amount": "60"}, track=["target.destroyed"])
    assert _probabilities(result) == {"destroyed": 1}


@pytest.mark.parametrize("amount, halved", [(20, 10), (9, None), (31, 15)])
def test_damage_control_halves_one_attack(jugger, amount, halved):
    """Ruling damage-control: 1-3 on a D6 halves (rounded down) an attack of 10 or more."""
    result = odds(jugger, "take_damage", {"amount": str(amount), "target.sc": "10",
                                          "target.captain": '["Damage Control"]'},
                  track=["target.hits"])
    hits = result.tracked["target.hits"]
    if halved is None:
        assert hits.probability(200 - amount) == 1
    else:
        assert hits.probability(200 - halved) == F(1, 2)
        assert hits.probability(200 - amount) == F(1, 2)


# ------------------------------------------------------------------- ramming: exact odds

def _hits(result, path="target.hits"):
    dist = result.tracked[path]
    return {v: dist.probability(v) for v, _ in dist.items()}


RAMS = [
    # case, inputs, tracked path, {value: probability}
    ("side: (D6 + 3) x 2 into an SC-3 jug",
     {"rammer.sc": "3", "rammer.velocity": "2", "arc": "side"}, "target.hits",
     {60 - 2 * (r + 3): F(1, 6) for r in range(1, 7)}),
    ("side: SC 1 at velocity 5",
     {"rammer.sc": "1", "rammer.velocity": "5", "target.sc": "5", "arc": "side"}, "target.hits",
     {100 - 5 * (r + 1): F(1, 6) for r in range(1, 7)}),
    ("side: a Gorger (SC 6, Main Ram +2) at velocity 3",
     {"rammer": 'designs["Gorger"]', "rammer.velocity": "3", "target.sc": "10", "arc": "side"},
     "target.hits", {200 - 3 * (r + 8): F(1, 6) for r in range(1, 7)}),
    ("side: the rammer stops", {"rammer.velocity": "4", "arc": "side"}, "rammer.velocity", {0: 1}),
    ("side: the target stops", {"rammer.velocity": "4", "target.velocity": "3", "arc": "side"},
     "target.velocity", {0: 1}),
    ("rear: (D6 + 4) x (3 - 1)",
     {"rammer.sc": "4", "rammer.velocity": "3", "target.velocity": "1", "arc": "rear"},
     "target.hits", {60 - 2 * (r + 4): F(1, 6) for r in range(1, 7)}),
    ("rear: not faster, no damage",
     {"rammer.velocity": "2", "target.velocity": "2", "arc": "rear"}, "target.hits", {60: 1}),
    ("rear: the rammer slows to the hexes it moved",
     {"rammer.velocity": "5", "target.velocity": "1", "moved": "3", "arc": "rear"},
     "rammer.velocity", {3: 1}),
    ("rear: the target keeps its velocity",
     {"rammer.velocity": "5", "target.velocity": "1", "moved": "3", "arc": "rear"},
     "target.velocity", {1: 1}),
    ("head on, both rams: the target takes (D6 + 3) x 2",
     {"rammer.velocity": "2", "target.velocity": "1", "arc": "front"}, "target.hits",
     {60 - 2 * (r + 3): F(1, 6) for r in range(1, 7)}),
    ("head on, both rams: the rammer takes (D6 + 3) x 1",
     {"rammer.velocity": "2", "target.velocity": "1", "arc": "front"}, "rammer.hits",
     {60 - (r + 3): F(1, 6) for r in range(1, 7)}),
    ("head on, both stop",
     {"rammer.velocity": "2", "target.velocity": "1", "arc": "front"}, "rammer.velocity", {0: 1}),
    ("head on against legs (no ram): a side ram, the rammer is unhurt",
     {"target": 'designs["Cutter"]', "rammer.velocity": "2", "target.velocity": "3", "arc": "front"},
     "rammer.hits", {60: 1}),
    ("head on against legs: the target takes (D6 + 3) x 2",
     {"target": 'designs["Cutter"]', "rammer.velocity": "2", "target.velocity": "3", "arc": "front"},
     "target.hits", {60 - 2 * (r + 3): F(1, 6) for r in range(1, 7)}),
    ("head on: a Crusher at 5 destroys a Warbuggy and drives through at 4",
     {"rammer": 'designs["Crusher"]', "rammer.velocity": "5", "target": 'designs["Warbuggy"]',
      "target.velocity": "1", "arc": "front"}, "rammer.velocity", {4: 1}),
    ("head on: the Crusher takes (D6 + 1) x 1 from the Warbuggy",
     {"rammer": 'designs["Crusher"]', "rammer.velocity": "5", "target": 'designs["Warbuggy"]',
      "target.velocity": "1", "arc": "front"}, "rammer.hits", {200 - (r + 1): F(1, 6) for r in range(1, 7)}),
]


@pytest.mark.parametrize("case, inputs, path, expected", RAMS, ids=[c[0] for c in RAMS])
def test_ram_exact_odds(jugger, case, inputs, path, expected):
    assert sum(expected.values()) == 1
    result = odds(jugger, "ram", inputs, track=[path])
    assert _hits(result, path) == expected


def test_ram_odds_cli_json():
    """`rulecraft run jugger ram --odds`: a side ram by an SC-3 jug at velocity 2 leaves a
    fresh SC-3 target damaged, never destroyed ((D6 + 3) x 2 <= 18 < 60)."""
    done = cli("run", "jugger", "ram", "--odds", "--json", "--with", "rammer.sc=3",
               "--with", "rammer.velocity=2", "--with", "arc=side")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [(o["value"], o["probability"]) for o in data["outcomes"]] == [("damaged", "1")]


def test_bad_input_is_a_located_error():
    done = cli("run", "jugger", "attack", "--with", "weapon=Foo")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "no row 'Foo' in table 'equipment_items'" in done.stdout + done.stderr


def test_legged_jug_cannot_ram(jugger):
    result = odds(jugger, "ram", {"rammer": 'designs["Cutter"]', "rammer.velocity": "3"})
    assert _probabilities(result) == {"cannot ram": 1}


def test_evasion_dodges_a_ram(jugger):
    result = odds(jugger, "ram", {"rammer.velocity": "2", "target.captain": '["Evasion"]'})
    assert result.outcomes.probability("dodged") == F(1, 3)


@pytest.mark.parametrize("remaining, sc, push", [(5, 3, 2), (2, 3, 0), (3, 3, 0), (6, 1, 5), (0, 1, 0)])
def test_ram_push(jugger, remaining, sc, push):
    """(text) push = the remainder of its move - the target's SC (ruling ram-push)."""
    got = jugger.run("ram_push", {"remaining": str(remaining), "target_sc": str(sc)}, seed=1).result
    assert got == push


def _duel_on(jugger, red_at, blue_at, walls=(), seed=0):
    """The duel's two buggies placed for a test of the map; `walls` are hexes of wall."""
    from interpreter.state.space import Position
    world = _world(jugger, "duel", seed)
    red, blue = world.units["Red Buggy"], world.units["Blue Buggy"]
    world.positions[red.uid] = Position(*red_at)
    world.positions[blue.uid] = Position(*blue_at)
    for hex_ in walls:
        world.terrain[hex_] = "wall"
    return world, red, blue


def _at(world, unit):
    p = world.positions[unit.uid]
    return (p.x, p.y, p.facing)


@pytest.mark.parametrize("walls, blue_end, red_end", [
    ((), (3, 0, 0), (2, 0, 1)),            # pushed 5 - 3 = 2 hexes east; the rammer follows
    (((3, 0),), (2, 0, 0), (1, 0, 1)),     # a wall two hexes on: pushed 1, stops in front of it
    (((2, 0),), (1, 0, 0), (0, 0, 1)),     # a wall right behind: no push at all
])
def test_side_ram_pushes_on_the_map(jugger, walls, blue_end, red_end):
    """(text) the rammer pushes the rammed jug the remainder of its move - the target's SC
    (ruling ram-push): east, keeping the target's facing, stopping in front of a wall."""
    world, red, blue = _duel_on(jugger, (0, 0, 1), (1, 0, 0), walls)
    blue.fields["sc"], blue.fields["hits"] = 3, 60
    red.fields["velocity"] = 1
    _call(jugger, world, "ram", red, blue, "side", 5, 1, True)
    assert (_at(world, blue), _at(world, red)) == (blue_end, red_end)
    assert red.dsl_attr("velocity") == blue.dsl_attr("velocity") == 0


@pytest.mark.parametrize("bounce, blocker, end", [(1, None, 1), (3, None, 3), (3, (3, 0), 1)])
def test_rear_ram_bounces_forward(jugger, bounce, blocker, end):
    """(text) The rammed jug will be bounced forward 1D3 hexes: along its own facing, stopping
    in front of what is in the way (here a wall at `blocker`). Dice: Evasion none; the Ram
    Roll 4, then the 1D3 (a d6 face f reads as ceil(f / 2))."""
    world, red, blue = _duel_on(jugger, (0, 0, 1), (1, 0, 1), [blocker] if blocker else [])
    red.fields["velocity"] = 3
    world.rng = _FixedDice([4, 2 * bounce])
    _call(jugger, world, "ram", red, blue, "rear", 0, 2, True)
    assert _at(world, blue) == (1 + end, 0, 1)
    assert red.dsl_attr("velocity") == 2                        # the hexes it moved
    assert blue.dsl_attr("hits") == 20 - (4 + 1) * 3             # (Ram Roll + SC) x (3 - 0)


@pytest.mark.parametrize("free, end", [(True, (1, 1, 0)), (False, (2, -1, 0))])
def test_evasion_steps_aside_on_the_map(jugger, free, end):
    """(text) Evasion: 'If this is a ram attack move the jug 1 hex out of the way': to the
    rammer's right (south-east of a rammer facing east), else to its left."""
    world, red, blue = _duel_on(jugger, (0, 0, 1), (1, 0, 0), [] if free else [(1, 1)])
    blue.fields["captain"] = ["Evasion"]
    red.fields["velocity"] = 2
    world.rng = _FixedDice([1])                                  # 1-2 on D6: dodged
    assert _call(jugger, world, "ram", red, blue, "side", 3, 1, True) == "dodged"
    assert _at(world, blue) == end and blue.dsl_attr("hits") == 20


def test_collision_with_a_wall(jugger):
    """(text) An obstacle or wall: damage as if hit by a side ram, (D6 + SC) x velocity."""
    result = odds(jugger, "collision", {"jug.sc": "3", "jug.velocity": "2"}, track=["jug.velocity"])
    assert _probabilities(result) == {2 * (r + 3): F(1, 6) for r in range(1, 7)}
    assert _hits(result, "jug.velocity") == {0: 1}


@pytest.mark.parametrize("own_hits, wall_dice, left", [
    (None, [6] * 10, 60 - 21), (None, [1] * 10, 0),
    # a hex given hits of its own by the scenario ({terrain: stone wall, hits: 40}): no 10D10
    (40, [], 40 - 21), (15, [], 0),
])
def test_stone_wall_worn_down_on_the_map(jugger, own_hits, wall_dice, left):
    """(text) Stone walls have 10D10 hits and can be destroyed (ruling collision): a buggy
    (SC 1) at velocity 3 drives into one: Ram Roll 6, (6 + 1) x 3 = 21 to the buggy and
    the wall. The wall's 10D10 rolled when first struck (here all 6s: 60, or all 1s: 10,
    which falls to rubble), unless the hex has hits of its own."""
    world, red, blue = _duel_on(jugger, (0, 0, 1), (5, 5, 0))
    world.terrain[(1, 0)] = "stone wall"
    if own_hits is not None:
        world.terrain_values[(1, 0)] = {"hits": own_hits}
    red.fields["velocity"] = 3
    world.rng = _FixedDice([6] + [(f - 0.5) * 6 / 10 + 0.5 for f in wall_dice])
    _call(jugger, world, "collision", red, "stone wall", [1, 0])
    assert red.dsl_attr("hits") == 0 and red.dsl_attr("velocity") == 0
    from interpreter.state.board import terrain_record
    wall = terrain_record(world, 1, 0)
    assert (wall["name"], wall.get("hits")) == (("stone wall", left) if left else ("rubble", None))


def test_a_scenario_wall_hex_with_hits_of_its_own(jugger):
    """Per-hex values: a scenario's `{terrain: stone wall, hits: 40}` is read by the map."""
    from interpreter.game.play import build_world
    from interpreter.state.board import terrain_record
    from dataclasses import replace
    scenario = replace(jugger.scenarios["duel"], terrain={
        "1,0": {"terrain": "stone wall", "hits": 40}, "2,0": "stone wall"})
    world = build_world(jugger, scenario, random.Random(0), True)
    assert [terrain_record(world, q, 0).get("hits") for q in (1, 2)] == [40, 0]


def test_a_jug_never_enters_a_goal(jugger):
    """Ruling collision: a goal hex is for the ball; a jug that must drive into one (here at
    velocity 3, slowing by its deceleration 1 to 2) stops in front of it and collides."""
    world, red, blue = _duel_on(jugger, (0, 0, 1), (5, 0, 4))
    world.terrain[(2, 0)] = "east goal"
    red.fields["velocity"] = 3
    _call(jugger, world, "drive", red)
    assert _at(world, red) == (1, 0, 1) and red.dsl_attr("velocity") == 0
    assert red.dsl_attr("hits") < 20


def test_kick(jugger):
    """(text) A legged jug kicks for 1D10 + SC (ruling legs)."""
    result = odds(jugger, "kick", {"kicker": 'designs["Cutter"]'}, track=["target.hits"])
    assert _hits(result) == {60 - (r + 3): F(1, 10) for r in range(1, 11)}


def test_only_legs_kick(jugger):
    assert _probabilities(odds(jugger, "kick", {})) == {"only a legged jug kicks": 1}


@pytest.mark.parametrize("ground, velocity, after", [("forest", 3, 2), ("rubble", 1, 0),
                                                     ("clear", 3, 3), ("wreckage", 2, 1)])
def test_terrain_slows(jugger, ground, velocity, after):
    got = jugger.run("enter_terrain", {"jug.velocity": str(velocity), "ground": ground}, seed=1).result
    assert got == after


def test_a_destroyed_jug_leaves_wreckage(jugger):
    """(text) "Some hexes may contain ... wreckage" (ruling wreckage): the hex of a jug
    destroyed on the map becomes wreckage, once; a jug entering it is slowed by 1."""
    world, red, blue = _duel_on(jugger, (0, 0, 1), (2, 0, 4))
    assert (2, 0) not in world.terrain
    assert _call(jugger, world, "take_damage", blue, 100, red) == "destroyed"
    assert world.terrain[(2, 0)] == "wreckage"   # the jug kind's `on: destroyed`
    red.fields["velocity"] = 3
    _call(jugger, world, "push", red, 1, 2)
    assert _at(world, red)[:2] == (2, 0)
    assert _call(jugger, world, "enter_terrain", red, "wreckage") == 2


@pytest.mark.parametrize("odds", [False, True])
def test_a_jug_destroyed_off_the_map_leaves_no_wreck(jugger, odds):
    """Ruling wreckage: `rulecraft run` and exact odds have no map; the jug kind's `on:
    destroyed` hook asks `has_position` first, so destroying a jug there is no error."""
    inputs = {"target.hits": "5", "amount": "12"}
    if odds:
        assert _probabilities(jugger.run_odds("take_damage", inputs)) == {"destroyed": 1}
    else:
        assert jugger.run("take_damage", inputs, seed=1).result == "destroyed"


@pytest.mark.parametrize("again, after", [(False, 3), (True, 2)])
def test_driving_through_a_jug_destroyed_head_on(jugger, again, after):
    """(text) "unless one is destroyed, then the other drives through it at -1 velocity"
    (rulings drive-through, wreckage): Red at 4 destroys Blue head on, goes on at 3 and
    enters Blue's wreck without slowing again; a second wreck entered later slows it."""
    world, red, blue = _duel_on(jugger, (0, 0, 1), (1, 0, 4))
    red.fields["velocity"], blue.fields["hits"] = 4, 1
    world.rng = _FixedDice([3, 3])
    _call(jugger, world, "ram", red, blue, "front", 3, 1, True)
    assert blue.fields["destroyed"] and red.dsl_attr("velocity") == 3
    assert world.terrain[(1, 0)] == "wreckage"
    _call(jugger, world, "push", red, 1, 1)
    assert _at(world, red)[:2] == (1, 0) and world.terrain[(1, 0)] == "wreckage"
    assert _call(jugger, world, "enter_terrain", red, "wreckage") == 3
    if again:
        assert _call(jugger, world, "enter_terrain", red, "wreckage") == after


# ------------------------------------------------------------------- grab and winch chains
#
# Grab: each later turn the held jug breaks free on 1-3 (1/2).  Held jug moving first:
# k turns of automatic damage in n turns with P = (1/2)^(k+1) for k < n, (1/2)^n for k = n.
# Grabber moving first: the damage comes before the break roll: k >= 1.

GRAB_CHAIN = [
    (1, False, {0: F(1, 2), 1: F(1, 2)}),
    (3, False, {0: F(1, 2), 1: F(1, 4), 2: F(1, 8), 3: F(1, 8)}),
    (3, True, {1: F(1, 2), 2: F(1, 4), 3: F(1, 4)}),
    (5, False, {0: F(1, 2), 1: F(1, 4), 2: F(1, 8), 3: F(1, 16), 4: F(1, 32), 5: F(1, 32)}),
]


# Two holds on one jug (ruling grab-holds): each is rolled for on its own (1/2 each), and
# the damage turns add.  Held jug first, one turn: 0, 1 or 2 holds left, 1/4, 1/2, 1/4.
# Two turns: one hold's turns are 0, 1, 2 with 1/2, 1/4, 1/4; two such holds add up to
# 0: 1/4, 1: 2 (1/2)(1/4) = 1/4, 2: 2 (1/2)(1/4) + 1/16 = 5/16, 3: 2 (1/4)(1/4) = 1/8, 4: 1/16.
# Grabbers first: both do their damage before the first roll (2), then those left (0, 1, 2).
TWO_HOLDS = [
    (1, False, {0: F(1, 4), 1: F(1, 2), 2: F(1, 4)}),
    (2, False, {0: F(1, 4), 1: F(1, 4), 2: F(5, 16), 3: F(1, 8), 4: F(1, 16)}),
    (1, True, {2: F(1)}),
    (2, True, {2: F(1, 4), 3: F(1, 2), 4: F(1, 4)}),
]


@pytest.mark.parametrize("turns, grabber_first, expected", GRAB_CHAIN)
def test_grab_chain_odds(jugger, turns, grabber_first, expected):
    result = odds(jugger, "grab_chain", {"turns": str(turns),
                                         "grabber_first": str(grabber_first).lower()})
    assert _probabilities(result) == expected


@pytest.mark.parametrize("turns, grabber_first, expected", TWO_HOLDS)
def test_two_holds_on_one_jug_odds(jugger, turns, grabber_first, expected):
    assert sum(expected.values()) == 1, "the hand computation must add up"
    result = odds(jugger, "grab_chain", {"turns": str(turns), "holds": "2",
                                         "grabber_first": str(grabber_first).lower()})
    assert _probabilities(result) == expected


def test_two_holds_in_play(jugger):
    """Ruling grab-holds: two claw arms of Red hold Blue, each a hold of its own; Blue
    rolls for each at the start of its move (3 breaks the first, 5 keeps the second);
    the hold left does its damage at the start of Red's move, and Blue destroyed ends
    it; every release ends its own pair of statuses only."""
    from interpreter.game.lifecycle import status_triggers
    world = _world(jugger, "duel")
    red, blue = world.units["Red Buggy"], world.units["Blue Buggy"]
    claw = _call(jugger, world, "weapon_row", "Claw Arm")
    world.rng = _FixedDice([1, 1])        # damage 1, twice
    assert _call(jugger, world, "resolve_hit", red, claw, 1, blue, "Claw") == "grabbed"
    assert _call(jugger, world, "resolve_hit", red, claw, 1, blue, "Claw 2") == "grabbed"
    world.rng = _FixedDice([1])           # a third hit with a claw already holding: no new hold
    assert _call(jugger, world, "resolve_hit", red, claw, 1, blue, "Claw") == "damaged"
    assert [h.data["slot"] for h in blue.statuses] == ["Claw", "Claw 2"]
    assert [u.name for u in _call(jugger, world, "attached", red)] == ["Blue Buggy"]
    world.turn += 1
    world.rng = _FixedDice([3, 5])        # the first hold breaks, the second holds
    status_triggers(jugger, world, "start_of_movement", [blue])
    assert [h.data["slot"] for h in red.statuses] == ["Claw 2"]
    assert [h.data["slot"] for h in blue.statuses] == ["Claw 2"]
    hits = blue.dsl_attr("hits")
    world.rng = _FixedDice([4])           # the Claw Arm's damage die
    status_triggers(jugger, world, "start_of_movement", [red])
    assert blue.dsl_attr("hits") == hits - 4
    _call(jugger, world, "release", "Red Buggy", "Blue Buggy", "Claw 2")
    assert not red.has("grabbing") and not blue.has("grabbed")
    assert red.dsl_attr("max_velocity") == 99


# Winch: each roll 1 topples (1/6), 4-6 snaps (1/2), 2-3 again (1/3).  Within n rolls:
# P(topples) = 1/6 (1 + 1/3 + ... + (1/3)^(n-1)), P(snaps) = 3 P(topples), P(hooked) = (1/3)^n.

def _winch(n):
    geometric = sum(F(1, 3) ** i for i in range(n))
    return {"topples": F(1, 6) * geometric, "rope snaps": F(1, 2) * geometric,
            "still hooked": F(1, 3) ** n}


@pytest.mark.parametrize("turns", [1, 2, 3, 6])
def test_winch_chain_odds(jugger, turns):
    assert _probabilities(odds(jugger, "winch_chain", {"turns": str(turns)})) == _winch(turns)


def test_winch_in_play_rolls_again_next_turn(jugger):
    """A 2-3 leaves the target winched; the next end phase rolls again (ruling winch-chain)."""
    world = _world(jugger, "duel")
    red, blue = world.units["Red Buggy"], world.units["Blue Buggy"]
    red.fields["equipment"] = [{"slot": "Ballista", "item": "Ballista", "size": 1},
                               {"slot": "Winch", "item": "Winch", "size": 1, "on": "Ballista"}]
    world.rng = _FixedDice([2])           # winch roll 2: roll again next turn
    assert _call(jugger, world, "winch", red, blue, "Winch") == "roll again next turn"
    assert blue.has("winched")
    world.rng = _FixedDice([5])           # end of this turn: no roll (rolled this turn)
    _end_of_turn(jugger, world)
    assert blue.has("winched") and world.rng.faces == [5]
    _end_of_turn(jugger, world)           # next turn's end phase: 5, the rope snaps
    assert not blue.has("winched")
    assert [s["slot"] for s in red.dsl_attr("equipment")] == ["Ballista"]


def test_grab_in_play(jugger):
    """A claw arm hit attaches both jugs (2 hexes a turn); 1-3 at the start of the held
    jug's move breaks it (ruling grab)."""
    world = _world(jugger, "duel")
    red, blue = world.units["Red Buggy"], world.units["Blue Buggy"]
    claw = _call(jugger, world, "weapon_row", "Claw Arm")
    world.rng = _FixedDice([1])           # damage 1
    assert _call(jugger, world, "resolve_hit", red, claw, 1, blue, "Claw") == "grabbed"
    assert red.has("grabbing") and blue.has("grabbed")
    assert red.dsl_attr("max_velocity") == 2 and blue.dsl_attr("max_velocity") == 2
    assert [(h.data["target"], h.data["slot"]) for h in red.statuses] == [("Blue Buggy", "Claw")]
    assert [(h.data["by"], h.data["slot"]) for h in blue.statuses] == [("Red Buggy", "Claw")]
    world.rng = _FixedDice([3])           # break free on 3
    assert _call(jugger, world, "break_free", blue, red) == "broken free"
    assert not red.has("grabbing") and not blue.has("grabbed")
    assert red.dsl_attr("max_velocity") == 99


# ------------------------------------------------------------------- improvements, spells, captains

def test_random_improvement_single_roll(jugger):
    """1-8: 1/10 each; 9-10 roll the standard weapon table: each weapon 2/10 x 1/10."""
    got = _probabilities(odds(jugger, "random_improvement"))
    expected = {item: F(1, 10) for _, item in IMPROVEMENTS}
    expected.update({w: F(1, 50) for _, w, *_ in STANDARD})
    assert got == expected


# A reroll has no end in the text; the procedure stops after 20 tries, and the engine
# reports the mass it cut: (forbidden faces / 10)^20.  Every allowed result then has its
# share of the rest.

def test_random_improvement_after_legs(jugger):
    """Ruling one-improvement: with Legs, Legs, Deflector and Catcher are rerolled: the 7
    faces left are equally likely."""
    result = jugger.run_odds("random_improvement", {"have": '["Legs"]'})
    cut = F(3, 10) ** 20
    assert result.capped == cut
    got = _probabilities(result)
    expected = {item: F(1, 7) * (1 - cut) for _, item in IMPROVEMENTS
                if item not in ("Legs", "Deflector", "Catcher")}
    expected.update({w: F(1, 35) * (1 - cut) for _, w, *_ in STANDARD})
    assert {k: v for k, v in got.items() if k in expected} == expected
    assert sum(v for k, v in got.items() if k not in expected) == cut


def test_random_improvement_after_deflector(jugger):
    result = jugger.run_odds("random_improvement", {"have": '["Deflector"]'})
    cut = F(2, 10) ** 20
    assert result.capped == cut
    got = _probabilities(result)
    assert got["Catcher"] == F(1, 8) * (1 - cut) and got["Gears"] == F(1, 8) * (1 - cut)


@pytest.mark.parametrize("seed", range(1, 13))
def test_juggerball_improvements_respect_restrictions(jugger, seed):
    """Three rolls for an SC-3 jug, never breaking a restriction (ruling one-improvement);
    the exact odds of each roll are the tests above."""
    items = list(jugger.run("juggerball_improvements", {}, seed=seed).result)
    assert len(items) == 3
    assert items.count("Legs") <= 1 and items.count("Deflector") <= 1 and items.count("Catcher") <= 1
    assert not ("Legs" in items and ("Deflector" in items or "Catcher" in items))


@pytest.mark.parametrize("seed", range(1, 9))
def test_prepare_spells(jugger, seed):
    """(text) 2D6 spells prepared, each a roll on the spell table."""
    run = jugger.run("prepare_spells", {}, seed=seed)
    spells = [e for e in run.events if e.get("event") == "set" and ".spells." in e.get("field", "")]
    assert 2 <= run.result <= 12 and len(spells) == run.result


PREPARED = [
    # 2D6 faces, then the spell table's D6 for each spell prepared: the counts by spell
    ([1, 1], [1, 6], {"fireball": 1, "fate": 1}),
    ([2, 1], [4, 4, 5], {"haste": 2, "restoration": 1}),
    ([1, 2], [2, 3, 2], {"lightning_bolt": 2, "shield": 1}),
]


@pytest.mark.parametrize("two_d6, faces, counts", PREPARED)
def test_prepare_spells_counts_each_roll_by_its_key(jugger, two_d6, faces, counts):
    """(text) 2D6 spells, each a roll on the spell table: each roll adds 1 to the jug's
    count of that spell, through the key the table row names (`jug.spells[key] += 1`)."""
    world = _world(jugger, "duel")
    red = world.units["Red Buggy"]
    world.rng = _FixedDice(two_d6 + faces)
    assert _call(jugger, world, "prepare_spells", red) == sum(two_d6) == len(faces)
    expected = {k: 0 for k in red.dsl_attr("spells")} | counts
    assert dict(red.dsl_attr("spells")) == expected


def test_once_per_turn_abilities_are_use_counts(jugger):
    """Ruling captain-abilities: a once-per-turn ability used this turn is not ready again
    until the next turn (the engine's use count, per turn); a captain without it never is."""
    world = _world(jugger, "duel")
    red, blue = world.units["Red Buggy"], world.units["Blue Buggy"]
    red.fields["captain"] = ["Evasion", "Luck"]
    assert _call(jugger, world, "ability_ready", red, "Evasion")
    _call(jugger, world, "use_ability", red, "Evasion")
    assert not _call(jugger, world, "ability_ready", red, "Evasion")
    assert _call(jugger, world, "ability_ready", red, "Luck")
    assert not _call(jugger, world, "ability_ready", blue, "Evasion")
    world.turn = 2
    assert _call(jugger, world, "ability_ready", red, "Evasion")


def test_ordinary_captain(jugger):
    got = _probabilities(odds(jugger, "ordinary_captain"))
    assert got == {c[1]: F(1, 10) for c in CAPTAINS}


def test_deployment_order(jugger):
    """(text) D10 each, ties rerolled (20 times at most: the cut mass is (1/10)^20)."""
    result = jugger.run_odds("deployment_order", {})
    cut = F(1, 10) ** 20
    assert result.capped == cut
    assert _probabilities(result) == {"first player deploys first": (1 - cut) / 2,
                                      "second player deploys first": (1 - cut) / 2,
                                      "still tied": cut}


@pytest.mark.parametrize("jug, captain, rates", [
    ("Warbuggy", '["Speed Demon"]', [2, 1, 1]),
    ("Warbuggy", '["Cornering"]', [1, 1, 2]),
    ("Warbuggy", '["Balance"]', [1, 2, 1]),
    ("Gorger", '["Speed Demon", "Cornering"]', [4, 1, 2]),
    ("Windrammer", '["Speed Demon", "Meleer", "Damage Control", "Tactics", "Evasion"]', [4, 3, 1]),
])
def test_captain_rates(jugger, jug, captain, rates):
    got = jugger.run("traits", {"jug": f'designs["{jug}"]', "jug.captain": captain}, seed=1).result
    assert list(got)[3:6] == rates


def test_haste_adds_one_to_the_rates(jugger):
    world = _world(jugger, "duel")
    red = world.units["Red Buggy"]
    red.fields["spells"] = dict(red.dsl_attr("spells"), haste=1)
    assert _call(jugger, world, "cast_haste", red) == "hasted"
    assert [red.dsl_attr(n) for n in ("acceleration", "deceleration", "turn_rate")] == [2, 2, 2]
    assert red.dsl_attr("spells")["haste"] == 0


@pytest.mark.parametrize("lost, gained_max", [(0, 0), (2, 2), (30, 3)])
def test_mechanic_repairs_1d3(jugger, lost, gained_max):
    result = odds(jugger, "mechanic", {"jug.captain": '["Mechanic"]', "jug.hits": str(60 - lost)})
    assert result.outcomes.max() == gained_max
    if lost >= 3:
        assert _probabilities(result) == {1: F(1, 3), 2: F(1, 3), 3: F(1, 3)}


def test_restoration_repairs_3d10(jugger):
    result = odds(jugger, "cast_restoration", {"jug.spells": "{}"} if False else
                  {"jug.spells.restoration": "1", "jug.hits": "0", "jug.sc": "10"})
    assert (result.outcomes.min(), result.outcomes.max(), result.outcomes.mean()) == (3, 30, F(33, 2))


@pytest.mark.parametrize("army, sc", [("Men and Dwarves", 20), ("Orcs and Goblins", 20)])
def test_example_armies_are_medium(jugger, army, sc):
    row = jugger.tables["armies"].lookup(army)
    got = jugger.run("army_sc", {"army": json.dumps(list(row.get("jugs")))}, seed=1).result
    assert got == sc == jugger.globals["medium_battle_sc"]


# ------------------------------------------------------------------- playing

STORY = {"turn", "initiative", "emit", "story", "move", "status", "destroyed", "score", "result"}


def _story(transcript: str) -> str:
    """The golden form of a long transcript: its sha256 and size (the whole transcript,
    byte for byte), then the events that tell the story (turns, initiative, moves, the
    attack lines, statuses, destructions, every change of hits, the result)."""
    import hashlib
    lines = transcript.splitlines()
    kept = [line for line in lines if json.loads(line)["event"] in STORY
            or json.loads(line).get("field", "").endswith(".hits")]
    head = json.dumps({"sha256": hashlib.sha256(transcript.encode()).hexdigest(),
                       "lines": len(lines)})
    return "\n".join([head] + kept) + "\n"


_PLAYED: dict = {}


def _played(jugger, scenario="default", seed=1):
    """One play per (scenario, seed) for the whole module."""
    if (scenario, seed) not in _PLAYED:
        _PLAYED[(scenario, seed)] = jugger.play(scenario, seed)
    return _PLAYED[(scenario, seed)]


def _transcript(jugger, scenario, seed=1) -> str:
    """What `rulecraft play jugger --scenario S --seed N --json` prints (cmd_play)."""
    result = _played(jugger, scenario, seed)
    return "".join(json.dumps(e) + "\n" for e in result.events) + json.dumps(result.as_json()) + "\n"


def _check_golden(scenario, got):
    if os.environ.get("RULECRAFT_UPDATE_GOLDEN"):
        GOLDEN[scenario].write_text(got, encoding="utf-8")
    assert got == GOLDEN[scenario].read_text(encoding="utf-8")
    last = json.loads(got.splitlines()[-1])
    assert last["event"] == "result" and last["seed"] == SEEDS[scenario]
    return last


def test_golden_duel_through_the_cli():
    done = cli("play", "jugger", "--scenario", "duel", "--seed", "1", "--json")
    assert done.returncode == 0, done.stderr
    last = _check_golden("duel", done.stdout)
    assert last["winner"] in ("red", "blue", None)


@pytest.mark.parametrize("scenario", ["default", "juggerball"])
def test_golden_story(jugger, scenario):
    last = _check_golden(scenario, _story(_transcript(jugger, scenario, SEEDS[scenario])))
    assert last["winner"] in ("men_and_dwarves", "orcs_and_goblins", "west", "east", None)


def test_juggerball_is_won_on_three_goals(jugger):
    """(text) The winner is the first team to score 3 goals: the golden game is won on
    goals, each goal told and followed by the restart and a fresh jug for each team that
    has a worn one (ruling juggerball-restart)."""
    result = _played(jugger, "juggerball", SEEDS["juggerball"])
    winner, scores = JUGGERBALL_WON
    assert result.winner == winner and result.scores == scores
    assert "first team to score 3 goals" in result.reason
    goals = [e["text"] for e in result.events if e["event"] == "story" and e["text"].startswith("GOAL")]
    assert len(goals) == sum(scores.values())
    assert [g.split(" (")[0] for g in goals].count(f"GOAL for {winner}") == 3
    fresh = [e for e in result.events if e["event"] == "story" and "with a fresh, undamaged jug" in e["text"]]
    assert 1 <= len(fresh) <= 2 * len(goals)


def test_play_is_reproducible(jugger):
    first = jugger.play("duel", seed=5)
    second = jugger.play("duel", seed=5)
    assert first.events == second.events and first.winner == second.winner


ARMIES = {"men_and_dwarves": ["Battlemaster", "Landship", "Swordsman", "Dwarf Warbuggy"],
          "orcs_and_goblins": ["Crusher", "Gorger", "Backbiter", "Goblin Warbuggy"]}


@pytest.mark.parametrize("seed", [1, 2])
def test_set_battle_ends_in_destruction_or_rout(jugger, seed):
    """Ruling set-battle-victory: every jug of the loser is destroyed, crewless or captured
    (taken by the winner: event captured)."""
    result = _played(jugger, "default", seed)
    assert result.turns <= 30 and result.winner in ARMIES
    loser = next(side for side in ARMIES if side != result.winner)
    out = {e["unit"] for e in result.events if e["event"] in ("destroyed", "captured")}
    out |= {e["unit"] for e in result.events if e["event"] == "status"
            and e.get("status") == "crewless"}
    assert set(ARMIES[loser]) <= out
    assert not set(ARMIES[result.winner]) <= out


def test_no_weapon_fires_twice_in_a_turn(jugger):
    """Ruling once-per-turn, in a whole game: every attack roll told ("X's slot at Y: needs
    ...") names a slot used at most once a turn."""
    events = _played(jugger).events
    seen = set()
    for e in events:
        if e["event"] == "story" and ": needs " in e["text"] and " or less on D6" in e["text"]:
            who = (e["turn"], e["text"].split(" at ")[0])
            assert who not in seen, e
            seen.add(who)
    assert len(seen) > 20


def test_budget_of_the_default_scenario(jugger):
    """20 SC a side, the designs of the table armies (checked by validate)."""
    rows = {r.get("side"): list(r.get("jugs")) for r in jugger.tables["armies"].rows}
    world = _world(jugger, "default")
    for side, jugs in rows.items():
        designs = sorted(u.dsl_attr("design") for u in world.units.values() if u.side == side)
        assert designs == sorted(jugs)
        assert sum(u.dsl_attr("sc") for u in world.units.values() if u.side == side) == 20


# ------------------------------------------------------------------- Juggerball

def test_juggerball_teams(jugger):
    """(text) 7 jugs a side, SC 3, each to be equipped from the random improvement table
    at the start of the game (equip_by_roll); the ball is an object of the map, on no side."""
    world = _world(jugger, "juggerball")
    assert sorted(world.sides) == ["east", "west"]
    for side in ("west", "east"):
        jugs = [u for u in world.units.values() if u.side == side]
        assert len(jugs) == jugger.globals["juggerball_team_size"] == 7
        for jug in jugs:
            assert jug.dsl_attr("sc") == 3 and jug.dsl_attr("equip_by_roll") and jug.dsl_attr("equipment") == []
            assert list(jug.dsl_attr("home")) == [world.positions[jug.uid].x, world.positions[jug.uid].y,
                                                 world.positions[jug.uid].facing]
            assert len(jug.dsl_attr("captain")) == 1
    assert [o.kind.name for o in world.objects.values()] == ["ball"]


@pytest.mark.parametrize("seed", range(1, 7))
def test_juggerball_jugs_equipped_at_the_start(jugger, seed):
    """(text) "Roll on the random improvement table for jugs on juggerball teams": every
    jug gets three improvements at the start of the game (standard weapons only: no
    wartime or exotic weapons in regulation Juggerball), within the restrictions (ruling
    one-improvement), as slots with names of their own; its hits are the new maximum."""
    world = _world(jugger, "juggerball", seed)
    allowed = {i for _, i in IMPROVEMENTS} | {w for _, w, *_ in STANDARD}
    for jug in world.units.values():
        _call(jugger, world, "equip_by_roll", jug)
        items = [e["item"] for e in jug.dsl_attr("equipment")]
        slots = [e["slot"] for e in jug.dsl_attr("equipment")]
        assert len(items) == 3 and set(items) <= allowed and len(set(slots)) == 3
        assert jug.dsl_attr("spaces") == 3
        assert items.count("Legs") <= 1 and items.count("Deflector") <= 1 and items.count("Catcher") <= 1
        assert not ("Legs" in items and ("Deflector" in items or "Catcher" in items))
        assert jug.dsl_attr("hits") == jug.dsl_attr("max_hits") == 60 + 20 * items.count("Armor") \
            + 10 * items.count("Shield Arm")


def test_equip_by_roll_names_a_second_slot(jugger):
    """Two Brakes rolled (faces 2, 2) and a 9 on the improvement table with a 9 on the
    standard weapon table: Brakes, Brakes 2 and a Mace Arm (the nested roll)."""
    world = _world(jugger, "juggerball")
    jug = world.units["Red Anvil"]
    world.rng = _FixedDice([2, 2, 9, 9], sides=10)
    assert list(_call(jugger, world, "equip_by_roll", jug)) == ["Brakes", "Brakes", "Mace Arm"]
    assert [e["slot"] for e in jug.dsl_attr("equipment")] == ["Brakes", "Brakes 2", "Mace Arm"]
    assert jug.dsl_attr("deceleration") == 3


# The fittings of a few jugs for the tests of the field (the game rolls its own).
FITTED = {"Blue Shark": ["Brakes", "Mace Arm", "Armor"], "Red Fox": ["Mace Arm", "Catcher", "Steering"],
          "Red Anvil": ["Brakes", "Deflector", "Steering"]}


def _fit(jug, items):
    jug.fields["equipment"] = [{"slot": i, "item": i, "size": 1} for i in items]
    jug.fields["hits"] = jug.dsl_attr("max_hits")


def _ball_world(jugger):
    """The Juggerball field with every jug moved off it (far away, out of reach)."""
    from interpreter.state.space import Position
    world = _world(jugger, "juggerball")
    for i, u in enumerate(world.units.values()):
        world.positions[u.uid] = Position(40 + 2 * i, 40, 0)
        _fit(u, FITTED.get(u.name, []))
    ball = next(iter(world.objects.values()))
    return world, ball


@pytest.mark.parametrize("start, heading, goal", [
    ((-8, 0), 4, True),      # from the east hex, heading west: a goal for east
    ((-8, -1), 3, True),     # from the north-east hex, heading south-west
    ((-9, 1), 5, True),      # from the south-east hex, heading north-west
    ((-1, 0), 1, False),     # from behind, into a west goal set in mid-field at (0, 0): it bounces
])
def test_juggerball_goal_only_through_the_forward_arcs(jugger, start, heading, goal):
    """Ruling juggerball-goals: the west goal at (-9, 0) faces east; the ball scores only
    entering through its NE, E or SE sides (the goal terrain's open sides 0, 1, 2);
    otherwise it bounces (here a 6: caught). A goal sends every jug and the ball home."""
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    if not goal:
        world.terrain[(0, 0)] = "west goal"
    world.positions[ball.uid] = Position(start[0], start[1], heading)
    world.rng = _FixedDice([6])
    result = _call(jugger, world, "roll_ball", ball, heading, 2)
    assert (result == "goal") is goal
    assert world.sides["east"].data["score"] == (1 if goal else 0)
    assert world.sides["west"].data["score"] == 0
    hammer = world.units["Red Hammer"]
    at_home = (world.positions[ball.uid].x, world.positions[ball.uid].y) == (0, 0) \
        and _at(world, hammer) == (-5, -3, 1)
    assert at_home is goal


def test_goals_are_walled_behind(jugger):
    """The example field: each goal is set into its end wall, its three back hexes walls, so
    a ball that enters a goal stops in it (and the three forward hexes are open field)."""
    terrain = jugger.scenarios["juggerball"].terrain
    for goal, back, front in [("-9,0", ["-10,1", "-10,0", "-9,-1"], ["-8,-1", "-8,0", "-9,1"]),
                              ("9,0", ["10,-1", "10,0", "9,1"], ["8,1", "8,0", "9,-1"])]:
        assert terrain[goal].endswith("goal")
        assert [terrain.get(h) for h in back] == ["wall"] * 3
        assert [terrain.get(h) for h in front] == [None] * 3


def test_fresh_jug_after_a_goal(jugger):
    """(text) After a goal ... 1 jug may be replaced with a fresh undamaged jug (ruling
    juggerball-restart): each team's worst jug, here a wrecked Blue Shark (its Mace Arm
    lost) and a scratched Red Fox, come back whole; the others keep their damage."""
    world, ball = _ball_world(jugger)
    world.turn = 2
    _call(jugger, world, "end_phase")                   # nothing to do; a real end phase
    shark, fox, anvil = world.units["Blue Shark"], world.units["Red Fox"], world.units["Red Anvil"]
    for u in world.units.values():
        u.fields["fitted"] = list(u.dsl_attr("equipment"))
    shark.fields.update(destroyed=True, hits=0, equipment=[e for e in shark.dsl_attr("equipment")
                                                           if e["item"] != "Mace Arm"])
    fox.fields["hits"] = 20
    anvil.fields["hits"] = 50
    assert _call(jugger, world, "goal_scored", "west") == "east"
    assert shark.alive and shark.dsl_attr("hits") == 80 and len(shark.dsl_attr("equipment")) == 3
    assert fox.dsl_attr("hits") == 60 and anvil.dsl_attr("hits") == 50
    assert world.sides["east"].data["score"] == 1


BOUNCES = [(1, 4, (1, -1)), (2, F(5, 2), (2, 0)), (3, F(11, 2), (2, -2)), (4, 3, (1, 0)), (5, 5, (2, -2))]


@pytest.mark.parametrize("face, facing, end", BOUNCES)
def test_ball_bounces_off_an_obstacle(jugger, face, facing, end):
    """(text) The ball heading east (1) into the obstacle at (3, -1) bounces by the bounce
    table and rolls on to finish its move (ruling ball-bounce): 1 back (facing 4), 2 90
    degrees right (5/2: along the edge between SE and SW, SE first), 3 90 left (11/2,
    NW first), 4 120 right (3), 5 120 left (5) (ruling bounce-90)."""
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    world.positions[ball.uid] = Position(2, -1, 1)
    world.rng = _FixedDice([face])
    assert _call(jugger, world, "roll_ball", ball, 1, 1) == "stops"
    assert _at(world, ball) == (end[0], end[1], facing)


def test_ball_caught_stops(jugger):
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    world.positions[ball.uid] = Position(2, -1, 1)
    world.rng = _FixedDice([6])
    assert _call(jugger, world, "roll_ball", ball, 1, 4) == "stops"
    assert _at(world, ball)[:2] == (2, -1)


def test_ball_hemmed_in_stops(jugger):
    """Ruling ball-bounce: a ball that gains no hex in 3 bounces in a row stops (here walled
    in on every side but caught never rolled)."""
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    world.positions[ball.uid] = Position(0, 0, 1)
    for d in [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)]:
        world.terrain[d] = "wall"
    world.rng = _FixedDice([1, 2, 4])
    assert _call(jugger, world, "roll_ball", ball, 1, 5) == "stops"
    assert _at(world, ball)[:2] == (0, 0)


def test_pushing_the_ball_into_the_goal(jugger):
    """(text) A jug at 0 velocity last turn with the ball in front pushes it, the ball kept
    in the hex in front (ruling pushing-the-ball): Blue Shark pushes it west at 1, then at
    2 into the west goal: a goal for east."""
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    shark = world.units["Blue Shark"]
    for u in world.units.values():      # Shark alone in its team: it plays the ball (no defender)
        if u.side == "east" and u is not shark:
            u.fields["destroyed"] = True
    world.positions[shark.uid] = Position(-6, 0, 4)
    world.positions[ball.uid] = Position(-7, 0, 0)
    _call(jugger, world, "drive", shark)
    assert _at(world, shark)[:2] == (-7, 0) and _at(world, ball)[:2] == (-8, 0)
    assert shark.dsl_attr("pushing_ball") and shark.dsl_attr("velocity") == 1
    world.turn = 2
    _call(jugger, world, "drive", shark)
    assert world.sides["east"].data["score"] == 1 and _at(world, ball)[:2] == (0, 0)


CATCHES = [
    # the jug at (2, 0), its build, its facing; the ball from (-1, 0) rolling east 5 hexes
    ("Red Fox", 4, "caught", (1, 0), True),      # a Catcher facing the ball: caught in its facing hex
    ("Red Fox", 1, "stops", (1, 0), False),      # its back to the ball: the ball bounces (6: dead stop)
    ("Red Anvil", 4, "stops", (1, 0), False),    # no Catcher, no Legs: it bounces
]


@pytest.mark.parametrize("jug, facing, result, end, pushing", CATCHES)
def test_catching_a_rolling_ball(jugger, jug, facing, result, end, pushing):
    """(text) "The jug can catch the ball in its facing hex and push it" (ruling catching):
    the ball stops in front of the catcher, which pushes it from then on; a jug without a
    Catcher or Legs, or one the ball meets from behind, makes it bounce."""
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    catcher = world.units[jug]
    world.positions[catcher.uid] = Position(2, 0, facing)
    world.positions[ball.uid] = Position(-1, 0, 1)
    world.rng = _FixedDice([6])
    assert _call(jugger, world, "roll_ball", ball, 1, 5) == result
    assert _at(world, ball)[:2] == end
    assert catcher.dsl_attr("pushing_ball") is pushing


@pytest.mark.parametrize("placed, pushing, found", [
    ({"Blue Shark": (2, 0), "Blue Pike": (0, 1)}, None, "Blue Pike"),   # the nearest of two near it
    ({"Blue Shark": (2, 0), "Blue Pike": (0, 1)}, "Blue Shark", "Blue Shark"),   # the pusher first
    ({"Blue Shark": (3, 0)}, None, ""),                                 # 3 hexes off: none
])
def test_the_enemy_on_the_ball_is_a_jug_or_none(jugger, placed, pushing, found):
    """EXAMPLE POLICY (enemy_on_ball): the enemy playing the ball, returned as the jug
    itself (its name in the transcript), "" when no enemy plays it."""
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    world.positions[ball.uid] = Position(0, 0, 0)
    for name, (q, r) in placed.items():
        world.positions[world.units[name].uid] = Position(q, r, 4)
    if pushing:
        world.units[pushing].fields["pushing_ball"] = True
    got = _call(jugger, world, "enemy_on_ball", world.units["Red Fox"], ball)
    assert (got.name if found else got) == found


@pytest.mark.parametrize("jug, ball_at, caught", [("Red Fox", (3, 0), True), ("Red Fox", (2, 1), False),
                                                  ("Red Anvil", (3, 0), False)])
def test_catching_the_ball_driven_into(jugger, jug, ball_at, caught):
    """Ruling catching: a catcher driving into the ball in its facing hex catches and pushes it."""
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    catcher = world.units[jug]
    world.positions[catcher.uid] = Position(2, 0, 1)
    world.positions[ball.uid] = Position(*ball_at, 0)
    assert _call(jugger, world, "catch_ball", catcher, ball) is caught
    assert catcher.dsl_attr("pushing_ball") is caught


@pytest.mark.parametrize("side_face, end", [(1, (3, -2)), (4, (1, 2))])
def test_head_on_with_a_ball_pusher(jugger, side_face, end):
    """(text) "If a jug does a head on with a jug pushing the ball the ball will bounce out
    of a random side arc" (ruling head-on-pusher): Blue Shark pushes west from (3, 0), the
    ball at (2, 0); Red Anvil at (1, 0) comes east at velocity 2. On 1-3 the ball goes out
    of Shark's right side arc, 90 degrees right of west (north: along the NW/NE edge, NW
    first), on 4-6 its left (south: SE first), 2 hexes; the push ends."""
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    shark, anvil = world.units["Blue Shark"], world.units["Red Anvil"]
    world.positions[shark.uid] = Position(3, 0, 4)
    world.positions[ball.uid] = Position(2, 0, 4)
    world.positions[anvil.uid] = Position(1, 0, 1)
    shark.fields["pushing_ball"] = True
    anvil.fields["velocity"] = 2
    world.rng = _FixedDice([side_face])
    assert _call(jugger, world, "head_on_pusher", anvil, ball) == "Blue Shark"
    assert _at(world, ball)[:2] == end
    assert not shark.dsl_attr("pushing_ball")


def test_no_head_on_from_the_side(jugger):
    """Ruling head-on-pusher: a jug meeting the pushed ball from the pusher's side is not
    head on: nothing happens (the ball is hit as usual by the caller)."""
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    shark, anvil = world.units["Blue Shark"], world.units["Red Anvil"]
    world.positions[shark.uid] = Position(3, 0, 4)
    world.positions[ball.uid] = Position(2, 0, 4)
    world.positions[anvil.uid] = Position(2, -1, 2)
    shark.fields["pushing_ball"] = True
    assert _call(jugger, world, "head_on_pusher", anvil, ball) == ""
    assert shark.dsl_attr("pushing_ball") and _at(world, ball)[:2] == (2, 0)


PUSH_SPOTS = [
    # jug, its hex, the ball's hex: the hex to push from and the ball's side it is on
    ("Red Anvil", (-3, 0), (0, 0), [-1, 0, 4]),     # west pushes east: from the west side
    ("Blue Shark", (3, 0), (0, 0), [1, 0, 1]),      # east pushes west: from the east side
    # the obstacle at (3, -1) east of the ball: push it south-east, to (2, 0), 7 from the
    # goal (north-east, to (3, -2), is 8), from its north-west side
    ("Red Anvil", (-3, 0), (2, -1), [2, -2, 5]),
]


@pytest.mark.parametrize("jug, at, ball_at, spot", PUSH_SPOTS)
def test_the_policy_pushes_from_behind_the_ball(jugger, jug, at, ball_at, spot):
    """EXAMPLE POLICY (push_spot): the jug that plays the ball makes for the hex behind it,
    from which a push takes the ball nearest the other goal, never into an obstacle."""
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    unit = world.units[jug]
    world.positions[unit.uid] = Position(*at, 1)
    world.positions[ball.uid] = Position(*ball_at, 0)
    assert list(_call(jugger, world, "push_spot", unit, ball)) == spot


def test_the_policy_roles(jugger):
    """EXAMPLE POLICY (juggerball_role): with the ball at the centre and Blue Shark pushing
    it, west's jug nearest its own goal defends, its nearest other jug to the ball plays it
    (it makes for the side of the ball facing Shark: a head on), the nearest of the rest to
    Shark, 4 hexes off (juggerball_block_reach), blocks (rams it); Shark plays the ball.
    Once nobody pushes, there is nobody to block."""
    from interpreter.state.space import Position
    world, ball = _ball_world(jugger)
    places = {"Red Hammer": (-6, 0), "Red Anvil": (-2, 0), "Red Fox": (-3, 3), "Blue Shark": (1, 0)}
    for name, (q, r) in places.items():
        world.positions[world.units[name].uid] = Position(q, r, 1)
    world.positions[ball.uid] = Position(0, 0, 4)
    world.units["Blue Shark"].fields["pushing_ball"] = True
    west = [world.units[n] for n in ("Red Hammer", "Red Anvil", "Red Fox")]
    roles = {u.name: _call(jugger, world, "juggerball_role", u, west, ball) for u in west}
    assert roles == {"Red Hammer": "defend", "Red Anvil": "ball", "Red Fox": "block"}
    world.units["Blue Shark"].fields["pushing_ball"] = False
    roles = {u.name: _call(jugger, world, "juggerball_role", u, west, ball) for u in west}
    assert roles == {"Red Hammer": "defend", "Red Anvil": "ball", "Red Fox": "wait"}
    east = [world.units["Blue Shark"]]
    assert _call(jugger, world, "juggerball_role", east[0], east, ball) == "ball"


@pytest.mark.parametrize("heading, sides, turned", [(0, 3, 3), (5, 1, 0), (0, -1, 5), (4, 2, 0), (1, -2, 5)])
def test_heading_turned(jugger, heading, sides, turned):
    assert jugger.run("heading_turned", {"heading": str(heading), "sides": str(sides)}, seed=1).result == turned


# ------------------------------------------------------------------- the story

STORY_LINES = [
    ("default", 1, r"^(Battlemaster|Crusher|Gorger|Landship|Swordsman|Backbiter|\w+ Warbuggy) (speeds up to|slows to|keeps velocity) \d"),
    ("default", 1, r"^\w[\w ]*'s [\w ]+ at [\w ]+: needs \d or less on D6, rolls \d — (hit|miss|boarders killed)$"),
    ("default", 1, r"^\w[\w ]* takes \d+ damage \(\d+ of \d+ hits left\)$"),
    ("default", 1, r"^\w[\w ]* rams \w[\w ]* (in the side|in the rear|head on): \(Ram Roll \d"),
    ("default", 1, r"^the wreck of [\w ]+ lies at \(-?\d+, -?\d+\)$"),
    ("juggerball", SEEDS["juggerball"], r"^(Red|Blue) \w+ (hits|kicks) the ball at velocity \d+"),
    ("juggerball", SEEDS["juggerball"], r"^the ball rolls \d+ hex(es)?(, bouncing .*)? (into the goal|and stops at \(-?\d+, -?\d+\))$"),
    ("juggerball", SEEDS["juggerball"], r"^(Red|Blue) \w+ (speeds up to|keeps velocity) \d.*, pushing the ball$"),
    ("juggerball", SEEDS["juggerball"], r"^GOAL for (east|west) \(\d\): every jug and the ball go back to their starting hexes$"),
    ("juggerball", SEEDS["juggerball"], r"^(Red|Blue) \w+ is fitted with [\w ]+, [\w ]+ and [\w ]+ \(random improvement table\)$"),
    ("juggerball", SEEDS["juggerball"], r"^(Red|Blue) \w+ catches the ball in front of it and pushes it$"),
]


@pytest.mark.parametrize("scenario, seed, pattern", STORY_LINES)
def test_the_story_reads_as_the_rulebook_writes(jugger, scenario, seed, pattern):
    """`play` tells one sentence per action in the rulebook's words (narrate templates):
    each of these kinds of sentence is told at least once in the golden games."""
    import re
    told = [e["text"] for e in _played(jugger, scenario, seed).events if e["event"] in ("story", "emit")]
    assert any(re.search(pattern, line) for line in told), pattern
