"""House-rule overlays by id path (interpreter/model/overlay.py): change, add, insert and
remove, one piece at a time; stacking; the chain of ids; errors located in the overlay
file with a "did you mean".

The odds are derived by hand from tests/rulesets/duel.yaml: the default fighter has
to_hit 7 and damage 0, so `attack` needs to_hit + cover + (damage - 1) = 6 on a d10
(a natural 1 always misses, a natural 10 always hits) and then kills on a d10 of 5 or
more: miss 5/10, kill 5/10 * 6/10 = 3/10, hit 5/10 * 4/10 = 1/5.
"""
from __future__ import annotations

import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest

from interpreter.game.api import check_ruleset, load_ruleset
from interpreter.model.overlay import split_path
from interpreter.model.ruleset import RulesetInvalid

HERE = Path(__file__).resolve().parent
DUEL = HERE / "rulesets" / "duel.yaml"
HOUSE = HERE / "rulesets" / "house"


def house_file(tmp_path: Path, body: str, base: Path = DUEL) -> Path:
    path = tmp_path / "house.yaml"
    path.write_text(f"ruleset: house\ntitle: A house rule\nextends: {base}\n{body}",
                    encoding="utf-8")
    return path


def attack_odds(ruleset) -> dict:
    dist = ruleset.run_odds("attack").outcomes
    return {value: dist.probability(value) for value in ("miss", "hit", "kill")}


def test_the_base_odds_derived_by_hand():
    assert attack_odds(load_ruleset(DUEL)) == {"miss": F(1, 2), "hit": F(1, 5), "kill": F(3, 10)}


# (what the overlay does, the overlay, the odds of attack by hand)
EDITS = [
    ("a stat's default changed: to_hit 9 needs 8",
     "change: {kinds.fighter.stats.to_hit: 9}",
     {"miss": F(7, 10), "hit": F(3, 10) * F(4, 10), "kill": F(3, 10) * F(6, 10)}),
    ("one cell of a modify step changed by the step's position: weapon +0 needs 7",
     "change: {procedures.attack.steps.1.add.weapon: attacker.damage}",
     {"miss": F(6, 10), "hit": F(4, 10) * F(4, 10), "kill": F(4, 10) * F(6, 10)}),
    ("a step changed by the name its let binds: damage on a d6 kills on 5+",
     "change: {procedures.attack.steps.dmg: 'let dmg = d6'}",
     {"miss": F(1, 2), "hit": F(1, 2) * F(4, 6), "kill": F(1, 2) * F(2, 6)}),
    ("the to-hit check removed by its position: never a miss",
     "remove: [procedures.attack.steps.3]",
     {"miss": F(0), "hit": F(2, 5), "kill": F(3, 5)}),
    ("a step inserted before the damage roll: every hit stops there",
     "insert: [{before: procedures.attack.steps.dmg, items: ['return \"hit\"']}]",
     {"miss": F(1, 2), "hit": F(1, 2), "kill": F(0)}),
    ("a parameter added and a formula changed to use it: need 8",
     "add: {parameters.extra: 2}\nchange: {procedures.attack.steps.1.add.weapon: attacker.damage - 1 + extra}",
     {"miss": F(7, 10), "hit": F(3, 10) * F(4, 10), "kill": F(3, 10) * F(6, 10)}),
    ("a step with an id inserted, then its id is gone: a natural 1 rerolled once",
     "change: {kinds.fighter.stats.to_hit: 5}\n"
     "insert: [{after: procedures.attack.steps.hit, items: [{id: lucky, if: hit.natural == 1, then: ['let hit = d10']}]}]",
     {"miss": F(2, 10) + F(1, 10) * F(3, 10), "hit": F(77, 100) * F(4, 10), "kill": F(77, 100) * F(6, 10)}),
    ("a statement step carrying an id ({id, step})",
     "insert: [{before: procedures.attack.steps.dmg, items: [{id: stop, step: 'return \"hit\"'}]}]",
     {"miss": F(1, 2), "hit": F(1, 2), "kill": F(0)}),
]


@pytest.mark.parametrize("what, body, odds", EDITS, ids=[e[0] for e in EDITS])
def test_an_overlay_edit_gives_the_odds_derived_by_hand(tmp_path, what, body, odds):
    ruleset = load_ruleset(house_file(tmp_path, body))
    assert attack_odds(ruleset) == odds


# (what, the overlay, a check on the built model)
MODEL_EDITS = [
    ("a scenario's side made interactive, field by field",
     "change: {scenarios.default.sides.red.policy: ask}",
     lambda r: r.scenarios["default"].sides["red"]["policy"] == "ask"
     and len(r.scenarios["default"].sides["blue"]["units"]) == 1),
    ("a unit of a scenario named by its name",
     "change: {scenarios.default.sides.blue.units.Blue.stats.damage: 3}",
     lambda r: r.scenarios["default"].sides["blue"]["units"][0]["stats"] == {"damage": 3}),
    ("a status added",
     "add: {statuses.stunned: {description: may not move, modifies: {can_move: false}}}",
     lambda r: set(r.statuses) == {"shaken", "stunned"}),
    ("a status removed",
     "remove: [statuses.shaken]\nchange: {procedures.attack.steps.6: 'return \"hit\"'}",
     lambda r: r.statuses == {}),
    ("the turn's limit changed and a phase named by its name",
     "change: {turn.max_turns: 5, turn.phases.attack.each: side,\n"
     "         turn.phases.attack.steps: ['emit side.name']}",
     lambda r: r.turn.max_turns == 5 and r.turn.phases[0].each == "side"),
    ("a derived formula changed",
     "change: {kinds.fighter.derived.double: to_hit * 3}",
     lambda r: "3" in str(r.kinds["fighter"].derived["double"])),
    ("a whole procedure removed",
     "add: {procedures.rest: {steps: ['return 1']}}\nremove: [procedures.rest]",
     lambda r: set(r.procedures) == {"attack"}),
    ("a key with a dot is quoted",
     'add: {parameters.names: {"a.b": 1}}\nchange: {parameters.names."a.b": 2}',
     lambda r: r.parameters["names"] == {"a.b": 2}),
]


@pytest.mark.parametrize("what, body, check", MODEL_EDITS, ids=[e[0] for e in MODEL_EDITS])
def test_an_overlay_edit_changes_the_model(tmp_path, what, body, check):
    assert check(load_ruleset(house_file(tmp_path, body)))


def test_a_ruling_removed_by_its_id(tmp_path):
    ruleset = load_ruleset(house_file(tmp_path, "remove: [rulings.heavy-cover]",
                                      base=HOUSE / "duel_cover.yaml"))
    assert ruleset.rulings == []


def test_edits_do_not_reach_the_base(tmp_path):
    load_ruleset(house_file(tmp_path, "change: {kinds.fighter.stats.to_hit: 9}"))
    assert load_ruleset(DUEL).kinds["fighter"].stats["to_hit"] == 7


# (what, the overlay, the message, the hint, the line of the overlay file)
ERRORS = [
    ("a misspelt section entry", "change: {kinds.fightr.stats.to_hit: 9}",
     "kinds has no 'fightr'", "did you mean 'fighter'?", 4),
    ("a misspelt step name", "remove:\n  - procedures.attack.steps.dmgg",
     "procedures.attack.steps has no 'dmgg'", "did you mean 'dmg'?", 5),
    ("a position past the end", "remove: [procedures.attack.steps.9]",
     "procedures.attack.steps has no '9'", "by its position from 1 (this list has 7)", 4),
    ("adding what exists", "add: {kinds.fighter.stats.to_hit: 3}",
     "kinds.fighter.stats.to_hit already exists: use change", None, 4),
    ("insert after a whole procedure", "insert:\n  - {after: procedures.attack, items: []}",
     "insert after names an item of a list", None, 5),
    ("an empty segment", "remove: [kinds..fighter]", "has an empty segment", None, 4),
    ("a misspelt section", "change: {procedure.attack.description: x}",
     "the ruleset has no 'procedure'", "did you mean 'procedures'?", 4),
]


@pytest.mark.parametrize("what, body, message, hint, line", ERRORS, ids=[e[0] for e in ERRORS])
def test_an_overlay_naming_nothing_is_an_error_in_the_overlay_file(tmp_path, what, body,
                                                                      message, hint, line):
    path = house_file(tmp_path, body)
    with pytest.raises(RulesetInvalid) as caught:
        load_ruleset(path)
    finding = caught.value.findings[0]
    assert message in finding.message
    assert finding.location.file.endswith("house.yaml")
    assert finding.location.line == line
    if hint:
        assert hint in (finding.hint or "")


def test_edits_without_a_base_are_an_error(tmp_path):
    path = tmp_path / "alone.yaml"
    path.write_text("ruleset: alone\ntitle: Alone\nremove: [kinds.x]\n", encoding="utf-8")
    (finding,) = check_ruleset(path)
    assert "names none" in finding.message and finding.location.line == 3


def test_a_schema_error_in_an_edit_is_located_in_the_overlay(tmp_path):
    path = house_file(tmp_path, "change:\n  turn.max_turns: many\n")
    findings = [f for f in check_ruleset(path) if f.severity == "error"]
    assert findings and all(f.location.file.endswith("house.yaml") for f in findings)


def test_overlays_stack_and_name_their_chain():
    veteran = load_ruleset(HOUSE / "duel_veteran.yaml")
    plain = load_ruleset(HOUSE / "duel_veteran_plain.yaml")
    assert veteran.chain == ["duel", "duel-veteran"]
    assert plain.chain_name == "duel + duel-veteran + duel-veteran-plain"
    # veteran: need 4, a natural 1 rerolled: miss 2/10 + 1/10 * 3/10
    assert attack_odds(veteran)["miss"] == F(23, 100)
    # the stacked rule removes the reroll by its id: miss 3/10, and red plays `first`
    assert attack_odds(plain) == {"miss": F(3, 10), "hit": F(7, 25), "kill": F(21, 50)}
    assert plain.scenarios["default"].sides["red"]["policy"] == "first"
    assert [r["id"] for r in plain.rulings] == ["veteran-duel"]


@pytest.mark.parametrize("text, parts", [
    ("tables.to_hit.rows.1", ["tables", "to_hit", "rows", "1"]),
    ('tables.vehicles.rows."Sd.Kfz. 222".speed', ["tables", "vehicles", "rows", "Sd.Kfz. 222", "speed"]),
    ("tables.melee_weapons.rows.Lance (on foot)", ["tables", "melee_weapons", "rows", "Lance (on foot)"]),
])
def test_an_id_path_splits_on_dots_outside_quotes(text, parts):
    assert split_path(text) == parts


def test_the_command_line_names_the_chain_and_errors_have_no_traceback(tmp_path):
    run = lambda *a: subprocess.run([sys.executable, "-m", "interpreter.cli.main", *a],
                                    capture_output=True, text=True, timeout=60)
    allow = ("--allow-outside", str(DUEL.parent))   # the house rules extend ../duel.yaml
    out = run("run", str(HOUSE / "duel_veteran_plain.yaml"), "attack", "--seed", "1", *allow)
    assert out.returncode == 0 and "rules: duel + duel-veteran + duel-veteran-plain" in out.stdout
    bad = run("validate", str(house_file(tmp_path, "remove: [procedures.atack]")), *allow)
    assert bad.returncode == 1
    assert "house.yaml:4:" in bad.stdout and "did you mean 'attack'?" in bad.stdout
    assert "Traceback" not in bad.stdout + bad.stderr
