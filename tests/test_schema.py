"""The ruleset JSON Schema and the located findings `check_schema` makes of its errors.

Every error family has a small broken file in tests/broken/schema/ and its expected
(code, line, column) of the first finding in BROKEN_FILES below, so a change in wording
never hides a change in *where* an error points.  Line 1 of each file is the
yaml-language-server modeline, as in the bundled rulesets.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from interpreter.source import schema as schema_module
from interpreter.source.load import load_ruleset_document, load_text
from interpreter.source.schema import check_schema, load_schema, schema_path

BROKEN = Path(__file__).parent / "broken" / "schema"

MINIMAL = "ruleset: demo\ntitle: Demo\n"

# Every example of docs/rule-format.md, put together: the contract must pass the schema.
DOCUMENTED = """\
# yaml-language-server: $schema=../../schema/ruleset.schema.json
ruleset: tanks
title: "Tanks: Crucial Warfare"
source: 003_73c6751d54e998b5.txt
description: One paragraph.
extends: tanks
include: [weapons.yaml]
rulings:
  - id: full-range
    topic: Shooting
    text: "Weapons firing at full range suffer a -1 strength penalty"
    ruling: "Full range means a distance over 3/4 of the weapon's range."
    why: "The text gives no width for 'full range'; ..."
parameters:
  base_to_hit: 7
  ground_scale_cm: 4
  name_of_game: Tanks
  hard_mode: false
  arcs: [front, side, rear]
  armour_default: {front: 10, side: 8}
  scatter: "=2d6"
kinds:
  vehicle:
    description: A tank or armoured car.
    stats:
      bs: 3
      speed: 12
      armour: {front: 12, side: 10, rear: 10}
      weapons: []
      amphibious: false
    derived:
      half_speed: floor(speed / 2)
    state:
      destroyed: false
      moved: 0
      hits: "=speed - 10"
tables:
  glancing:
    description: Glancing hits (1D6).
    roll: d6
    columns:
      result: {type: text}
      effect: {type: steps, description: statements run when the row is rolled}
    rows:
      "1-2": {result: crew shaken, effect: ['apply(target, "shaken", turns=1)']}
      "3": {result: crew stunned, effect: ['apply(target, "stunned", turns=d6)']}
      "4-6": {result: no effect, effect: []}
  d20_hits:
    roll: d20
    unhandled: [17, 18]
    rows:
      "1-16": hit
      "19-20": miss
  to_hit:
    description: Score needed to hit, by Ballistic Skill.
    key: bs
    domain: [1, 10]
    rows:
      1: 6
      "2": 5
      "3-4": 3
      "5+": 2
  melee_weapons:
    key: name
    title: Melee weapons
    columns: {damage: integer, to_hit: {type: integer, default: 0}, points: {type: integer}}
    rows:
      Sword: {damage: 3, to_hit: -1, points: 20}
      Axe: {damage: 4, to_hit: -2, points: "=(damage - to_hit) * 5"}
      Spear: {damage: 2, to_hit: 0, points: 10, special: "=standard_weapons[d10]"}
    checks:
      - column: points
        formula: max(5, (damage - to_hit) * 5)
        severity: warning
  wounds:
    key: strength
    column_key: toughness
    rows:
      "1": {"1": 4, "2": 5, "3+": 6}
      "2+": {"1": 3, "2": 4, "3+": 5}
  ram_damage:
    computed:
      formula: (d6 + sc) * velocity
      over: {sc: [1, 10], velocity: "1-6", arc: [front, side, rear], extra: 2}
statuses:
  shaken:
    description: May not shoot next turn.
    modifies: {can_shoot: false}
    on:
      start_of_turn: []
      end_of_turn: ['emit "steadied"']
procedures:
  shoot:
    description: One shot, resolved.
    params:
      shooter: {type: unit, kind: vehicle}
      weapon: {type: record, default: {range: 24, strength: 6}}
      target: {type: unit}
      arc: {type: text, default: front, one_of: [front, side, rear]}
      distance: {type: integer, default: 12, description: in inches}
      note: text
      bonus: {type: integer, optional: true}
    steps:
      - let hit = d6
      - if: hit < to_hit[shooter.bs]
        then:
          - return "miss"
        else:
          - emit "a hit"
      - for: unit
        in: side.units
        do: ["destroy(unit)"]
      - repeat:
          - let r = d6
        until: r >= 4
        max: 20
      - choose: weapon
        from: target.weapons
        by: shooter
        prefer: option.damage
      - target.hits -= 1
    outcomes: [miss, out of range, no effect]
turn:
  initiative:
    roll: d6
    per: side
    order: highest_first
    ties: reroll
    when: game
  phases:
    - name: movement
      each: side
      steps: ["move(unit)"]
    - name: shooting
      each: unit
      steps: ["shoot(unit, unit, unit)"]
  start_of_turn: []
  end_of_turn: []
  victory:
    - when: count_alive(enemy) == 0
      winner: side
  max_turns: 12
scenarios:
  default:
    description: Two small tank forces.
    sides:
      allies:
        policy: first
        units:
          - {kind: vehicle, name: Sherman, design: sherman}
          - {kind: vehicle, name: Stuart, stats: {speed: 16}}
      axis:
        policy: script
        script: [Sherman, 2]
        units:
          - {kind: vehicle, name: Panzer IV, count: 2, state: {moved: 0}}
    distance: 24
    distances: {Sherman-Panzer IV: 12}
    positions: {Sherman: [0, 0], Stuart: {q: 1, r: 2, facing: 3}}
    max_turns: 8
"""

# file, code, line, column of the first finding
BROKEN_FILES = [
    ("unknown_top_level_key.yaml", "schema-unknown-key", 4, 1),
    ("unknown_table_key.yaml", "schema-unknown-key", 8, 5),
    ("two_unknown_keys.yaml", "schema-unknown-key", 6, 5),
    ("victory_unknown_key.yaml", "schema-unknown-key", 7, 7),
    ("scenario_unit_unknown_key.yaml", "schema-unknown-key", 11, 43),
    ("deep_repeat_typo.yaml", "schema-unknown-key", 13, 13),
    ("status_event_typo.yaml", "schema-unknown-key", 8, 7),
    ("missing_title.yaml", "schema-missing", 2, 1),
    ("table_without_rows.yaml", "schema-missing", 5, 3),
    ("if_without_then.yaml", "schema-missing", 8, 9),
    ("step_without_keyword.yaml", "schema-missing", 7, 9),
    ("step_unquoted_colon.yaml", "schema-unquoted-step", 7, 9),
    ("scenario_unit_without_kind.yaml", "schema-missing", 9, 13),
    ("param_without_type.yaml", "schema-missing", 8, 7),
    ("ruling_missing_why.yaml", "schema-missing", 5, 5),
    ("max_turns_text.yaml", "schema-type", 9, 14),
    ("step_is_number.yaml", "schema-type", 8, 9),
    ("parameter_empty_value.yaml", "schema-type", 5, 15),
    ("kind_stats_list.yaml", "schema-type", 6, 5),
    ("status_trigger_not_list.yaml", "schema-type", 8, 22),
    ("phases_mapping.yaml", "schema-type", 5, 3),
    ("computed_range_text.yaml", "schema-type", 10, 9),
    ("initiative_order_enum.yaml", "schema-enum", 8, 12),
    ("scenario_initiative_per_enum.yaml", "schema-enum", 11, 23),   # per: unitt
    ("column_type_enum.yaml", "schema-enum", 8, 22),
    ("check_severity_enum.yaml", "schema-enum", 12, 19),
    ("side_policy_enum.yaml", "schema-enum", 7, 24),
    ("param_shorthand_enum.yaml", "schema-enum", 8, 15),
    ("ruleset_id_pattern.yaml", "schema-pattern", 2, 10),
    ("parameter_bad_name.yaml", "schema-pattern", 6, 3),
    ("for_variable_bad_name.yaml", "schema-pattern", 7, 14),
    ("max_turns_zero.yaml", "schema-invalid", 5, 14),
    ("title_empty.yaml", "schema-invalid", 3, 8),
    ("table_domain_one_item.yaml", "schema-invalid", 7, 5),
    ("outcomes_duplicate.yaml", "schema-invalid", 7, 5),
    ("step_both_if_and_for.yaml", "schema-invalid", 9, 9),
]


def _check_file(name: str):
    return check_schema(load_ruleset_document(BROKEN / name))


def _check_text(text: str):
    return check_schema(load_text(text, "rules.yaml"))


# --------------------------------------------------------------------------- the schema

def test_schema_is_a_valid_2020_12_schema():
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["title"]


def test_schema_path_points_at_the_file():
    assert schema_path().name == "ruleset.schema.json"
    assert schema_path().is_file()


def test_load_schema_returns_a_fresh_copy():
    first = load_schema()
    first["title"] = "changed"
    assert load_schema()["title"] != "changed"


def _undescribed(node, where=""):
    """Places of properties (and $defs) without a description, anywhere in the schema."""
    missing = []
    if isinstance(node, dict):
        for group in ("properties", "$defs"):
            for name, sub in node.get(group, {}).items():
                if not (isinstance(sub, dict) and sub.get("description")):
                    missing.append(f"{where}/{group}/{name}")
        for key, value in node.items():
            missing.extend(_undescribed(value, f"{where}/{key}"))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            missing.extend(_undescribed(value, f"{where}/{index}"))
    return missing


def test_every_property_has_a_description():
    schema = load_schema()
    assert schema.get("description")
    assert _undescribed(schema) == []


def _closed_objects(node, where=""):
    """Object schemas with named properties but no `additionalProperties: false`."""
    open_ = []
    if isinstance(node, dict):
        if "properties" in node and node.get("additionalProperties") is not False:
            open_.append(where)
        for key, value in node.items():
            open_.extend(_closed_objects(value, f"{where}/{key}"))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            open_.extend(_closed_objects(value, f"{where}/{index}"))
    return open_


def test_every_object_with_named_properties_refuses_unknown_keys():
    assert _closed_objects(load_schema()) == []


# --------------------------------------------------------------------------- valid files

def test_minimal_ruleset_has_no_findings():
    assert _check_text(MINIMAL) == []


def test_documented_examples_have_no_findings():
    assert _check_text(DOCUMENTED) == []


def test_numeric_row_keys_are_strings():
    text = MINIMAL + "tables:\n  t:\n    roll: d6\n    rows: {1: a, 2-6: b, 0.5: c}\n"
    assert _check_text(text) == []


# --------------------------------------------------------------------------- broken files

@pytest.mark.parametrize("name, code, line, column", BROKEN_FILES,
                         ids=[case[0] for case in BROKEN_FILES])
def test_broken_file_is_reported_at_its_place(name, code, line, column):
    findings = _check_file(name)
    assert findings, f"{name} passed the schema"
    first = findings[0]
    assert (first.code, first.location.line, first.location.column) == (code, line, column)
    assert first.severity == "error"
    assert first.location.file == str(BROKEN / name)


def test_every_broken_file_is_in_the_table():
    listed = {case[0] for case in BROKEN_FILES}
    assert {path.name for path in BROKEN.glob("*.yaml")} == listed


def test_unknown_key_names_the_table_and_suggests_the_closest_key():
    first = _check_file("unknown_table_key.yaml")[0]
    assert first.message == "unknown key 'rols' in table 'to_hit'"
    assert first.hint == "did you mean 'rows' or 'roll'?"
    assert first.location.length == len("rols")


def test_misspelled_required_key_is_one_finding():
    # `rols:` both is unknown and leaves `rows` missing: one mistake, one finding.
    assert len(_check_file("unknown_table_key.yaml")) == 1


def test_unknown_key_without_close_match_lists_the_allowed_keys():
    first = _check_text(MINIMAL + "turn:\n  segments: []\n")[0]
    assert first.message == "unknown key 'segments' in turn"
    assert first.hint.startswith("allowed keys: description, initiative, phases")


def test_missing_property_is_named():
    first = _check_file("missing_title.yaml")[0]
    assert first.message == "missing 'title' at the top level"


def test_wrong_type_of_a_block_mapping_points_at_its_key():
    first = _check_file("phases_mapping.yaml")[0]
    assert first.message == "'phases' in turn should be a list, not a mapping"
    assert first.location.length == len("phases")


def test_type_error_says_the_expected_type_in_words():
    first = _check_file("max_turns_text.yaml")[0]
    assert first.message == "'max_turns' in turn should be a whole number, not text 'twelve'"


def test_enum_error_lists_the_choices_and_suggests_one():
    first = _check_file("initiative_order_enum.yaml")[0]
    assert "'highest_first', 'lowest_first', 'winner_chooses' or 'winner_chooses_rest_lowest'" in first.message
    assert first.hint == "did you mean 'highest_first'?"


def test_pattern_error_explains_the_id_rule():
    first = _check_file("ruleset_id_pattern.yaml")[0]
    assert first.message == "'Tanks 2nd Edition' is not a valid ruleset id"
    assert "lower-case" in first.hint


def test_step_without_control_keyword_suggests_one():
    first = _check_file("step_without_keyword.yaml")[0]
    assert "needs one of 'if', 'for', 'repeat', 'choose', 'modify' or 'roll'" in first.message


def test_unquoted_step_with_a_colon_says_yaml_read_a_mapping_and_shows_the_quoting():
    first = _check_file("step_unquoted_colon.yaml")[0]
    assert "YAML read it as a mapping" in first.message
    assert first.hint == """quote the whole step: - 'emit "Note": the ball left the field'"""


def test_two_control_keywords_are_one_finding():
    findings = _check_file("step_both_if_and_for.yaml")
    assert len(findings) == 1
    assert "'for' and 'if' together" in findings[0].message


def test_each_unknown_key_is_its_own_finding():
    findings = _check_file("two_unknown_keys.yaml")
    assert [(f.code, f.location.line) for f in findings] == [
        ("schema-unknown-key", 6), ("schema-unknown-key", 7)]


def test_one_finding_per_place():
    findings = _check_text(MINIMAL + "turn:\n  max_turns: -1.5\n")
    assert len(findings) == 1  # not an integer *and* below the minimum: reported once


def test_shallow_errors_come_before_deep_ones():
    text = MINIMAL + ("procedures:\n  p:\n    steps:\n      - if: x\n        thne: []\n"
                      "tabls: {}\n")
    findings = _check_text(text)
    assert [(f.code, f.location.line) for f in findings] == [
        ("schema-unknown-key", 8), ("schema-unknown-key", 7)]


def test_include_is_checked_when_loaded_without_resolving():
    assert _check_text(MINIMAL + "include: [a.yaml, b.yaml]\n") == []
    first = _check_text(MINIMAL + "include: 5\n")[0]
    assert (first.code, first.location.line) == ("schema-type", 3)


# --------------------------------------------------------------------------- anyOf / oneOf

def test_anyof_failure_reports_the_branch_that_fitted(monkeypatch):
    toy = Draft202012Validator({
        "type": "object",
        "properties": {"weapon": {"anyOf": [
            {"type": "string"},
            {"type": "object", "additionalProperties": False,
             "properties": {"range": {"type": "integer"}, "damage": {"type": "integer"}}},
        ]}},
    })
    monkeypatch.setattr(schema_module, "_validator", lambda: toy)
    findings = _check_text("weapon:\n  range: 24\n  damag: 3\n")
    assert [(f.code, f.location.line, f.location.column) for f in findings] == [
        ("schema-unknown-key", 3, 3)]
    assert findings[0].hint == "did you mean 'damage'?"


# --------------------------------------------------------------------------- properties

_TOP_LEVEL = set(load_schema()["properties"])


@settings(max_examples=50, deadline=None)
@given(st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True).filter(
    lambda key: key not in _TOP_LEVEL))
def test_any_unknown_top_level_key_is_reported_at_the_key(key):
    findings = _check_text(MINIMAL + f"{key}: 1\n")
    assert [(f.code, f.location.line, f.location.column) for f in findings] == [
        ("schema-unknown-key", 3, 1)]
