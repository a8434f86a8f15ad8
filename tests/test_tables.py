"""Tables: key parsing, coverage findings, lookups, cells, odds and computed tables.

Every table is built from YAML text through `interpreter.load.load_text`, so locations
in findings are real file positions.
"""
from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from interpreter.dice.distribution import Distribution
from interpreter.lang.parse import parse_expression
from interpreter.errors import EvalError, RulecraftError
from interpreter.expr.sampled import Context, compile_sampler
from interpreter.expr.exact import exact
from interpreter.source.load import load_text
from interpreter.tables import (RolledRow, Row, StepsCell, Table, TableRecord,
                                build_table, format_values, parse_key, resolve)


# ---------------------------------------------------------------------------- helpers


def build(yaml_text: str, params: dict | None = None) -> tuple[dict[str, Table], list]:
    """Build every table under `tables:` and bind them to each other (as a ruleset
    would): returns the tables and all findings."""
    doc = load_text(yaml_text, "rules.yaml")
    tables, findings = {}, []
    for name, node in doc["tables"].items():
        table, found = build_table(name, node, params or {})
        tables[name] = table
        findings.extend(found)
    env = {**(params or {}), **tables}
    for table in tables.values():
        table.bind(env)
    return tables, findings


def one(yaml_body: str, params: dict | None = None) -> tuple[Table, list]:
    tables, findings = build("tables:\n" + _indent(yaml_body), params)
    (table,) = tables.values()
    return table, findings


def _indent(text: str) -> str:
    return "".join("  " + line if line.strip() else line
                   for line in text.strip("\n").splitlines(True)) + "\n"


def codes(findings) -> list[str]:
    return [f.code for f in findings]


def sample(expr: str, env: dict, seed: int = 1, record: list | None = None):
    ctx = Context(env, random.Random(seed), record)
    return compile_sampler(parse_expression(expr))(ctx)


def odds(expr: str, env: dict) -> Distribution:
    return exact(parse_expression(expr), env)


# The fixture ruleset: one table of each kind.
RULES = """\
tables:
  glancing:
    description: Glancing hits (1D6).
    roll: d6
    columns:
      result: {type: text}
      effect: {type: steps}
    rows:
      "1-2": {result: crew shaken, effect: ['apply(target, "shaken", turns=1)']}
      "3": {result: crew stunned, effect: ['apply(target, "stunned", turns=1)']}
      "4-5": {result: immobilised, effect: ["target.speed = 0"]}
      "6": {result: destroyed, effect: ["destroy(target)"]}
  to_hit:
    description: Score needed to hit, by Ballistic Skill.
    key: bs
    domain: [1, 10]
    rows:
      "1": 6
      "2": 5
      "3-4": 4
      "5 or more": 3
  distance:
    key: range
    rows:
      "1-3 hexes": short
      "4-6 hexes": medium
      7+ hexes: long
  melee_weapons:
    key: name
    columns: {damage: {type: integer}, to_hit: {type: integer}, points: {type: integer}}
    rows:
      Sword: {damage: 3, to_hit: -1, points: 20}
      Halberd: {damage: 4, to_hit: -2, points: 30}
      Club: {damage: 2, to_hit: 0, points: "=(damage - to_hit) * 5"}
    checks:
      - column: points
        formula: (damage - to_hit) * 5
  standard_weapons:
    roll: d10
    rows:
      "1-4": {weapon: Catapult, damage: "=2d6"}
      "5-8": {weapon: Ballista, damage: "=d6 + 2"}
      "9-10": {weapon: Flamer, damage: "=3 * bonus"}
  armoury:
    roll: d10
    rows:
      "1-8": {weapon: Claw, damage: 4}
      "9-10": {weapon: "=standard_weapons[d10].weapon", damage: 0}
  layout:
    roll: 1d20
    unhandled: [17, 18]
    rows:
      "1-6": {feature: hill}
      "7-12": {feature: wood}
      "13-16": {feature: river}
      "19-20": {feature: town}
  ambush:
    roll: d{0..9}
    rows:
      "0": none
      "1-4": small
      "5-9": large
  penetration:
    key: armour
    column_key: strength
    rows:
      "10": {"1-5": none, "6-8": glancing, "9+": penetrating}
      "11-12": {"1-5": none, "6-9": glancing, "10+": penetrating}
  ram_damage:
    description: Ram damage by SC and velocity.
    computed:
      formula: (d6 + sc) * velocity
      over: {sc: [1, 3], velocity: [1, 2]}
"""

PARAMS = {"bonus": 2}


@pytest.fixture(scope="module")
def rules():
    tables, findings = build(RULES, PARAMS)
    assert findings == [], [f.message for f in findings]
    return {**PARAMS, **tables}


# ------------------------------------------------------------------------ key parsing


@pytest.mark.parametrize("raw, lo, hi", [
    ("3", 3, 3), (3, 3, 3), ("1-2", 1, 2), ("19-20", 19, 20), ("0", 0, 0), (0, 0, 0),
    ("-1", -1, -1), ("-3--1", -3, -1), ("-3 to -1", -3, -1), ("1–2", 1, 2),
    ("5+", 5, None), ("5 +", 5, None), ("1-3", 1, 3), ("10 or more", 10, None),
    ("10 or higher", 10, None), ("2 or less", None, 2), ("-1 or less", None, -1),
    ("3-4 hexes", 3, 4), ("7+ hexes", 7, None), ('12"', 12, 12), ("2 hexes or less", None, 2),
    ("10 or more inches", 10, None),
])
def test_key_parsing_reads_faces_ranges_and_bands(raw, lo, hi):
    key = parse_key(raw)
    assert not key.is_name
    assert (key.lo, key.hi) == (lo, hi)
    assert key.text == str(raw)


@pytest.mark.parametrize("raw, faces", [
    ("6,7", [6, 7]), ("19,20", [19, 20]), ("19, 20", [19, 20]), ("9-10", [9, 10]),
    ("0", [0]), ("1,3,5", [1, 3, 5]), ("1-2,5", [1, 2, 5]), ("5,1-2", [1, 2, 5]),
])
def test_key_parsing_reads_faces_listed_as_printed(raw, faces):
    key = parse_key(raw)
    assert not key.is_name and key.span() == faces
    assert [f for f in range(-1, 22) if key.contains(f)] == faces


def test_listed_faces_cover_a_die_exactly():
    table, findings = one("""
t:
  roll: d6
  rows:
    "1,3,5": odd
    "2,4": even
""")
    assert [f.message for f in findings] == ["table 't' (d6): no row for 6"]
    assert table.lookup(5, None) == "odd" and table.lookup(4, None) == "even"


def test_listed_faces_with_gaps_belong_to_die_tables_only():
    table, findings = one("""
t:
  key: range
  rows:
    "1,3": near
    "2": far
""")
    assert codes(findings) == ["table-band-listed"]


@pytest.mark.parametrize("raw", ["Catapult", "Sword and shield", "6-1", "d6", "2nd rank",
                                 "one", "5++", "Sword, shield"])
def test_key_parsing_falls_back_to_names(raw):
    key = parse_key(raw)
    assert key.is_name and key.name == raw


def test_key_parsing_int_keys_from_yaml_work_like_strings():
    table, findings = one("""
t:
  roll: d6
  rows:
    1: a
    2-3: b
    4: c
    5-6: d
""")
    assert findings == []
    assert [r.key for r in table.rows] == ["1", "2-3", "4", "5-6"]
    assert table.lookup(1) == "a" and table.lookup("1") == "a" and table.lookup(3) == "b"


@pytest.mark.parametrize("values, text", [
    ([16, 17, 18], "16, 17, 18"),
    ([3], "3"),
    (list(range(1, 41)) + [45], "1-40, 45"),
])
def test_format_values_names_faces(values, text):
    assert format_values(values) == text


# ------------------------------------------------------------------ die-table findings


@pytest.mark.parametrize("name, body, code, message", [
    ("gap", """
layout:
  roll: 1d20
  rows:
    "1-15": a
    "19-20": b
""", "table-gap", "table 'layout' (1d20): no row for 16, 17, 18"),
    ("overlap", """
hits:
  roll: d6
  rows:
    "1-3": a
    "3-4": b
    "5-6": c
""", "table-overlap", "table 'hits' (d6): rows '1-3' and '3-4' both cover 3"),
    ("outside", """
hits:
  roll: d6
  rows:
    "1-3": a
    "4-7": b
""", "table-key-outside",
     "table 'hits' (d6): row '4-7' covers 7, which d6 cannot roll (faces 1-6)"),
    ("outside a d10 read 0-9", """
ambush:
  roll: d{0..9}
  rows:
    "0-4": a
    "5-10": b
""", "table-key-outside",
     "table 'ambush' (d{0..9}): row '5-10' covers 10, which d{0..9} cannot roll (faces 0-9)"),
    ("compound roll gap", """
reaction:
  roll: 2d6
  rows:
    "2-6": bad
    "8-12": good
""", "table-gap", "table 'reaction' (2d6): no row for 7"),
    ("unparseable key", """
hits:
  roll: d6
  rows:
    "1-3": a
    "four to six": b
""", "table-key", None),
    ("unhandled face covered", """
hits:
  roll: d6
  unhandled: [6]
  rows:
    "1-3": a
    "4-6": b
""", "table-unhandled", "table 'hits' (d6): 6 declared unhandled but covered by a row"),
    ("unhandled face off the die", """
hits:
  roll: d6
  unhandled: [7]
  rows:
    "1-6": a
""", "table-unhandled", None),
])
def test_die_tables_must_cover_the_die_exactly(name, body, code, message):
    table, findings = one(body)
    assert code in codes(findings), [f.message for f in findings]
    found = next(f for f in findings if f.code == code)
    if message is not None:
        assert found.message == message
    assert found.severity == "error"
    assert found.location is not None and found.location.file == "rules.yaml"


def test_die_table_gap_points_at_the_rows_and_overlap_at_the_later_key():
    table, findings = one("""
hits:
  roll: d6
  rows:
    "1-3": a
    "3-5": b
""")
    by_code = {f.code: f for f in findings}
    assert by_code["table-gap"].message == "table 'hits' (d6): no row for 6"
    assert by_code["table-gap"].location.line == 5        # the rows: mapping
    assert by_code["table-overlap"].location.line == 6    # the key "3-5"
    assert by_code["table-overlap"].location.column == 7  # "tables:" + 2-space indent


def test_die_table_gap_declared_unhandled_is_no_finding(rules):
    layout = rules["layout"]
    assert layout.unhandled == frozenset({17, 18})


def test_open_band_on_a_die_is_clipped_to_its_faces():
    table, findings = one("""
save:
  roll: d6
  rows:
    "1-4": fail
    "5+": pass
""")
    assert findings == []
    assert table.lookup(6) == "pass"
    assert [p for _, p in table.row_distribution()] == [Fraction(2, 3), Fraction(1, 3)]


# ------------------------------------------------------------------ band-table findings


@pytest.mark.parametrize("name, body, code, message", [
    ("gap between bands", """
to_hit:
  key: bs
  rows:
    "1-2": 6
    "5+": 3
""", "table-band-gap", "table 'to_hit': no row for 3, 4"),
    ("gap in the domain", """
to_hit:
  key: bs
  domain: [1, 10]
  rows:
    "1": 6
    "2-8": 3
""", "table-band-gap", "table 'to_hit': no row for 9, 10"),
    ("gap at the start of the domain", """
to_hit:
  key: bs
  domain: [0, 5]
  rows:
    "1-2": 6
    "3 or more": 3
""", "table-band-gap", "table 'to_hit': no row for 0"),
    ("out of order", """
to_hit:
  key: bs
  rows:
    "1": 6
    "3-4": 4
    "2": 5
    "5+": 3
""", "table-band-order",
     "table 'to_hit': row '2' is out of order after '3-4' (bands run up from '1')"),
    ("overlap", """
to_hit:
  key: bs
  rows:
    "1-3": 6
    "3-4": 4
    "5+": 3
""", "table-overlap", "table 'to_hit': rows '1-3' and '3-4' both cover 3"),
    ("two open ends overlap", """
range:
  key: distance
  rows:
    "1-5": short
    "6 or more": long
    "10+": extreme
""", "table-overlap", "table 'range': rows '6 or more' and '10+' both cover 10 or more"),
    ("outside the domain", """
to_hit:
  key: bs
  domain: [1, 3]
  rows:
    "1-3": 6
    "5-6": 4
""", "table-key-outside", "table 'to_hit': row '5-6' lies outside the domain 1-3"),
    ("mixed keys", """
to_hit:
  key: bs
  rows:
    "1-3": 6
    lots: 4
""", "table-key", None),
])
def test_band_tables_are_ordered_gap_free_and_disjoint(name, body, code, message):
    table, findings = one(body)
    assert code in codes(findings), [f.message for f in findings]
    if message is not None:
        assert next(f for f in findings if f.code == code).message == message


@pytest.mark.parametrize("body", [
    """
to_hit:
  key: bs
  domain: [1, 10]
  rows:
    "2 or less": 6
    "3-4": 5
    "5+": 3
""",
    """
descending:
  key: bs
  rows:
    "10 or more": 2
    "7-9": 3
    "4-6": 4
    "3 or less": 5
""",
])
def test_band_tables_may_run_up_or_down(body):
    table, findings = one(body)
    assert findings == []


# ------------------------------------------------------------ type and column findings


@pytest.mark.parametrize("cell, kind, ok", [
    ("3", "integer", True), ("three", "integer", False), ("2.5", "integer", False),
    ("2.5", "number", True), ("true", "boolean", True), ("1", "boolean", False),
    ("hello", "text", True), ("4", "text", False), ("[1, 2]", "list", True),
    ("{a: 1}", "record", True), ("[1]", "record", False), ('"=1 + 2"', "integer", True),
])
def test_cells_must_match_their_column_type(cell, kind, ok):
    table, findings = one(f"""
t:
  key: name
  columns: {{c: {{type: {kind}}}}}
  rows:
    A: {{c: {cell}}}
""")
    assert ("table-type" not in codes(findings)) == ok, [f.message for f in findings]
    if not ok:
        finding = findings[0]
        assert finding.message.startswith("table 't' row 'A': c should be ")
        assert finding.location.line == 6


def test_undeclared_column_is_reported_with_a_suggestion():
    table, findings = one("""
w:
  key: name
  columns: {damage: {type: integer}}
  rows:
    Sword: {damge: 3}
""")
    assert codes(findings) == ["table-column"]
    assert findings[0].hint == "did you mean 'damage'?"


def test_formula_syntax_errors_point_into_the_yaml_string():
    table, findings = one("""
w:
  key: name
  rows:
    Sword: {damage: "=2d6 + * 3"}
""")
    (finding,) = findings
    assert finding.code == "syntax"
    assert finding.location.file == "rules.yaml"
    assert finding.location.line == 5
    # the '*' is the 7th character after the '=' in the string starting at column 22
    line = finding.location.source
    assert line[finding.location.column - 1] == "*"


def test_findings_are_returned_never_raised():
    table, findings = one("""
broken:
  roll: d6 +
  rows:
    "1-6": "=("
""")
    assert {"syntax"} <= set(codes(findings))
    assert isinstance(table, Table)


# -------------------------------------------------------------------- cross-checks


def test_cross_checks_report_both_values_at_the_printed_cell():
    table, findings = one("""
melee_weapons:
  key: name
  columns: {damage: {type: integer}, to_hit: {type: integer}, points: {type: integer}}
  rows:
    Sword: {damage: 3, to_hit: -1, points: 20}
    Halberd: {damage: 4, to_hit: -2, points: 25}
    Dagger: {damage: 1, to_hit: 1, points: 5}
  checks:
    - column: points
      formula: max(5, (damage - to_hit) * 5)
""")
    (finding,) = findings
    assert finding.code == "table-check"
    assert finding.severity == "warning"
    assert finding.message == ("table 'melee_weapons' row 'Halberd': points is 25 but "
                               "max(5, (damage - to_hit) * 5) gives 30")
    loc = finding.location
    assert loc.line == 7 and loc.source[loc.column - 1:loc.column + 1] == "25"


@pytest.mark.parametrize("severity, expected", [("error", "error"), ("warning", "warning"),
                                                 (None, "warning")])
def test_cross_check_severity_is_warning_unless_error(severity, expected):
    line = f"\n      severity: {severity}" if severity else ""
    table, findings = one(f"""
w:
  key: name
  rows:
    Sword: {{damage: 3, points: 10}}
  checks:
    - column: points
      formula: damage * 5{line}
""")
    assert [(f.code, f.severity) for f in findings] == [("table-check", expected)]


def test_cross_checks_see_parameters_and_formula_cells():
    table, findings = one("""
w:
  key: name
  rows:
    Sword: {damage: 3, points: "=damage * factor"}
  checks:
    - column: points
      formula: damage * factor
""", {"factor": 5})
    assert findings == []


def test_cross_check_with_an_unknown_name_is_reported_once():
    table, findings = one("""
w:
  key: name
  rows:
    Sword: {damage: 3, points: 15}
    Axe: {damage: 4, points: 20}
  checks:
    - column: points
      formula: damage * facter
""", {"factor": 5})
    assert codes(findings) == ["table-check"]
    assert "unknown name 'facter'" in findings[0].message


# ------------------------------------------------------------------------- lookups


@pytest.mark.parametrize("expr, value", [
    ('glancing[1].result', "crew shaken"),
    ('glancing[2].result', "crew shaken"),
    ('glancing[6].result', "destroyed"),
    ('to_hit[1]', 6), ('to_hit[4]', 4), ('to_hit[5]', 3), ('to_hit[12]', 3),
    ('distance[2]', "short"), ('distance[6]', "medium"), ('distance[40]', "long"),
    ('melee_weapons["Sword"].damage', 3),
    ('melee_weapons["sword"].damage', 3),
    ('melee_weapons["HALBERD"].to_hit', -2),
    ('melee_weapons["Club"].points', 10),
    ('melee_weapons["sword"].name', "Sword"),
    ('ambush[0]', "none"), ('ambush[9]', "large"),
    ('penetration[10][7]', "glancing"), ('penetration[12][9]', "glancing"),
    ('penetration[11][15]', "penetrating"), ('penetration[10]["1-5"]', "none"),
    ('standard_weapons[4].weapon', "Catapult"),
])
def test_lookups_by_face_band_and_name(rules, expr, value):
    assert sample(expr, rules) == value
    assert odds(expr, rules) == Distribution.constant(value)


@pytest.mark.parametrize("expr, message, hint", [
    ('melee_weapons["Swrod"]', "no row 'Swrod' in table 'melee_weapons'",
     "did you mean 'Sword'?"),
    ('glancing[7]', "no row for 7 in table 'glancing'", None),
    ('to_hit[0]', "no row for 0 in table 'to_hit'", None),
    ('to_hit[5/2]', "no row for 5/2 in table 'to_hit': its keys are whole numbers",
     "round the value first: floor(x), ceil(x) or round(x)"),
    ('penetration[9][3]', "no row for 9 in table 'penetration'", None),
])
def test_lookup_misses_are_located_errors(rules, expr, message, hint):
    with pytest.raises(EvalError) as info:
        sample(expr, rules)
    assert info.value.message == message
    assert info.value.location is not None and info.value.location.source == expr
    if hint is not None:
        assert info.value.hint == hint


def test_rows_are_hashable_and_labelled(rules):
    row = rules["melee_weapons"].row("sword")
    assert isinstance(row, Row)
    assert row.dsl_label == "row 'Sword' of 'melee_weapons'"
    assert {row: 1}[rules["melee_weapons"].row("Sword")] == 1
    assert row.dsl_names()[:3] == ["damage", "to_hit", "points"]
    rolled = sample('melee_weapons["sword"]', rules)
    assert isinstance(rolled, RolledRow) and rolled == row and hash(rolled) == hash(row)
    # a reached row reads its row's attributes as the row does -- by properties, not a
    # `__getattr__`, with which Python reads no attribute of the class the fast way
    # (the generated code's `row.values` of a ConstantRow, at every cell it reads)
    for name in ("table", "key", "parsed", "cells", "value", "node", "location",
                 "key_location", "single"):
        assert getattr(rolled, name) is getattr(row, name), name
    assert rolled.attr("damage") == row.attr("damage") and rolled.get("points") == row.get("points")
    assert str(rolled) == row.key and not hasattr(rolled, "no_such_attribute")
    assert not any("__getattr__" in vars(c) for c in type(rolled).__mro__)
    # and every public name of a row, so that one added to Row is not missed here
    assert {n for n in dir(Row) if not n.startswith("_")} <= set(dir(type(rolled)))


def test_steps_columns_keep_their_statements_raw(rules):
    row = rules["glancing"].row(1)
    effect = row.get("effect")
    assert isinstance(effect, StepsCell)
    assert effect.statements == ['apply(target, "shaken", turns=1)']
    assert effect.node.location.line == 9


# ---------------------------------------------------------------- rolling on tables


def test_rolling_on_a_table_records_the_dice_then_the_row(rules):
    record: list = []
    result = sample("glancing[d6]", rules, seed=3, record=record)
    dice, table = record
    assert dice.text == "d6"
    assert isinstance(table, TableRecord)
    assert table.as_json() == {"kind": "table", "table": "glancing", "key": dice.total,
                               "row": result.key}
    assert result.parsed.contains(dice.total)


def test_rolling_on_a_table_exactly_gives_the_row_distribution(rules):
    dist = odds("glancing[d6]", rules)
    table = rules["glancing"]
    expected = {table.row(k): Fraction(n, 6) for k, n in [(1, 2), (3, 1), (4, 2), (6, 1)]}
    assert {row: dist.probability(row) for row in dist.values()} == expected
    assert dict(table.row_distribution()) == expected


def test_rolling_a_column_exactly(rules):
    dist = odds("glancing[d6].result", rules)
    assert dist.probability("crew shaken") == Fraction(1, 3)
    assert dist.probability("destroyed") == Fraction(1, 6)


def test_compound_roll_keys_have_the_probability_of_their_range():
    table, findings = one("""
reaction:
  roll: 2d6
  rows:
    "2-6": hostile
    "7": wary
    "8-12": friendly
""")
    assert findings == []
    assert [p for _, p in table.row_distribution()] == [Fraction(15, 36), Fraction(6, 36),
                                                       Fraction(15, 36)]


def test_roll_row_uses_the_tables_own_die(rules):
    ctx = Context(rules, random.Random(5), [])
    counts = Counter(rules["ambush"].roll_row(ctx) for _ in range(2000))
    assert set(counts) == {"none", "small", "large"}
    assert 100 < counts["none"] < 320  # 1 in 10


@pytest.mark.parametrize("seed", range(20))
def test_unhandled_faces_roll_again_when_sampled(rules, seed):
    record: list = []
    ctx = Context(rules, random.Random(seed), record)
    row = rules["layout"].dsl_index(17, None, ctx)
    assert row.key in {"1-6", "7-12", "13-16", "19-20"}
    assert record[0] == TableRecord("layout", 17, None)
    assert record[-1].row_key == row.key


def test_unhandled_faces_are_conditioned_away_exactly(rules):
    layout = rules["layout"]
    probs = {row.key: p for row, p in layout.row_distribution()}
    assert probs == {"1-6": Fraction(6, 18), "7-12": Fraction(6, 18),
                     "13-16": Fraction(4, 18), "19-20": Fraction(2, 18)}
    again = layout.dsl_index(18, None, None)
    assert isinstance(again, Distribution)
    assert {r.key: again.probability(r) for r in again.values()} == probs


def test_a_roll_that_only_hits_unhandled_faces_is_refused_in_the_end():
    table, findings = one("""
stuck:
  roll: d6
  unhandled: [1, 2, 3, 4, 5, 6]
  rows:
    "7": never
""")
    with pytest.raises(RulecraftError):
        table.dsl_index(3, None, Context({}, random.Random(1), None))


# ---------------------------------------------------------------------- cells


def test_pure_formula_cells_evaluate_with_the_rows_columns(rules):
    assert rules["melee_weapons"].row("Club").get("points") == 10


def test_formula_cells_see_parameters(rules):
    assert sample('standard_weapons[9].damage', rules) == 6


@pytest.mark.parametrize("seed", range(10))
def test_dice_cells_roll_on_every_read(rules, seed):
    record: list = []
    value = sample('standard_weapons[1].damage', rules, seed=seed, record=record)
    assert 2 <= value <= 12
    assert [getattr(r, "text", None) for r in record][-1] == "2d6"


def test_dice_cells_exactly_are_their_distribution(rules):
    row = rules["standard_weapons"].row(1)
    assert row.get("damage") == exact(parse_expression("2d6"))
    assert rules["standard_weapons"].row(5).get("damage") == exact(parse_expression("d6 + 2"))


@pytest.mark.parametrize("seed", range(10))
def test_nested_rolls_follow_to_the_end(rules, seed):
    record: list = []
    weapon = sample('armoury[10].weapon', rules, seed=seed, record=record)
    assert weapon in {"Catapult", "Ballista", "Flamer"}
    tables = [r.table for r in record if isinstance(r, TableRecord)]
    assert tables == ["armoury", "standard_weapons"]


def test_nested_rolls_exactly(rules):
    dist = rules["armoury"].row(9).get("weapon")
    assert dist == Distribution.from_weights({"Catapult": 4, "Ballista": 4, "Flamer": 2})


def test_formula_cells_that_refer_to_each_other_in_a_circle_are_refused():
    table, _ = one("""
w:
  key: name
  rows:
    A: {x: "=y + 1", y: "=x + 1"}
""")
    with pytest.raises(EvalError, match="in a circle"):
        table.row("A").get("x")


# ---------------------------------------------------------------- computed tables


def test_computed_tables_tabulate_mean_min_and_max(rules):
    cells = rules["ram_damage"].computed_cells()
    assert [c.inputs for c in cells][:3] == [{"sc": 1, "velocity": 1},
                                             {"sc": 1, "velocity": 2},
                                             {"sc": 2, "velocity": 1}]
    by = {(c.inputs["sc"], c.inputs["velocity"]): c for c in cells}
    assert (by[1, 1].mean, by[1, 1].min, by[1, 1].max) == (Fraction(9, 2), 2, 7)
    assert (by[3, 2].mean, by[3, 2].min, by[3, 2].max) == (13, 8, 18)
    assert by[2, 2].distribution == exact(parse_expression("(d6 + 2) * 2"))


def test_computed_tables_can_be_looked_up(rules):
    assert odds("ram_damage[2][2]", rules) == exact(parse_expression("(d6 + 2) * 2"))
    assert 6 <= sample("ram_damage[2][2]", rules) <= 16


@pytest.mark.parametrize("over, code", [
    ("{sc: [1, 100000], v: [1, 100]}", "table-computed"),
    ("{sc: nonsense}", "table-computed"),
])
def test_computed_table_ranges_are_checked(over, code):
    table, findings = one(f"""
c:
  computed:
    formula: d6 + sc
    over: {over}
""")
    assert codes(findings) == [code]


# ----------------------------------------------------------------------- resolve


def test_resolve_evaluates_formulas_and_shows_dice_and_nested_rolls(rules):
    resolved = resolve(rules["standard_weapons"])
    assert resolved.columns == ["d10", "weapon", "damage"]
    assert resolved.rows == [["1-4", "Catapult", "2d6 (2-12, avg 7)"],
                             ["5-8", "Ballista", "d6 + 2 (3-8, avg 5.5)"],
                             ["9-10", "Flamer", "6"]]
    armoury = resolve(rules["armoury"])
    assert armoury.rows[1] == ["9-10", "roll on standard_weapons", "0"]


def test_resolve_takes_with_inputs_and_reports_missing_ones():
    table, findings = one("""
w:
  key: name
  rows:
    Ram: {damage: "=(2 + sc) * velocity"}
""")
    assert resolve(table).rows == [["Ram", "=(2 + sc) * velocity"]]
    assert resolve(table).needs == ["sc"]
    done = resolve(table, {"sc": 3, "velocity": 2})
    assert done.rows == [["Ram", "10"]] and done.needs == []


def test_resolve_odds_are_exact_fractions(rules):
    resolved = resolve(rules["layout"], odds=True)
    assert resolved.columns == ["1d20", "feature", "chance", "%"]
    assert [r[0] for r in resolved.rows] == ["1-6", "7-12", "13-16", "17-18", "19-20"]
    assert resolved.rows[3][1] == "roll again"
    assert [Fraction(o["probability"]) for o in resolved.odds] == [
        Fraction(6, 20), Fraction(6, 20), Fraction(4, 20), Fraction(2, 20), Fraction(2, 20)]
    assert sum(Fraction(o["probability"]) for o in resolved.odds) == 1


def test_a_table_that_rolls_on_itself_is_refused_exactly_not_crashed():
    table, findings = one("""
loop:
  roll: d6
  rows:
    "1-5": {damage: 1}
    "6": {damage: "=loop[d6].damage + 1"}
""")
    assert findings == []
    with pytest.raises(RulecraftError, match="nest deeper"):
        table.row(6).get("damage")
    # sampled, it ends as soon as a 1-5 comes up
    tables = {"loop": table}
    assert sample("loop[6].damage", tables, seed=2) >= 2


@pytest.mark.parametrize("expr", ["glancing", "layout"])
def test_tables_describe_themselves(rules, expr):
    assert rules[expr].dsl_label == f"table {expr!r}"
