"""`rulecraft validate`: every kind of finding, located exactly; house rules; the CLI."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from interpreter.errors import DSLSyntaxError
from interpreter.game.api import check_ruleset, load_ruleset
from interpreter.lang.step_errors import StepErrors
from interpreter.lang.steps import ChooseStep, IfStep, LetStep, ReturnStep, all_steps, compile_steps
from interpreter.source.load import load_text

HERE = Path(__file__).parent
SEMANTIC = HERE / "broken" / "semantic"

# file, code, line, column, severity
SEMANTIC_CASES = [
    ("unknown_name.yaml", "unknown-name", 8, 25, "error"),
    ("narrate_unknown_name.yaml", "unknown-name", 10, 44, "error"),
    ("narrate_unknown_outcome.yaml", "unknown-outcome", 12, 12, "error"),
    ("narrate_dice.yaml", "syntax", 7, 23, "error"),
    ("unknown_table_column.yaml", "table-column", 8, 26, "error"),
    ("table_gap.yaml", "table-gap", 7, 7, "error"),
    ("table_overlap.yaml", "table-overlap", 8, 7, "error"),
    ("band_gap.yaml", "table-band-gap", 8, 7, "error"),
    ("check_warning.yaml", "table-check", 7, 48, "warning"),
    ("dsl_syntax.yaml", "syntax", 9, 26, "error"),
    ("call_missing.yaml", "call-missing", 11, 20, "error"),
    ("unknown_field.yaml", "unknown-field", 11, 24, "error"),
    ("unknown_kind.yaml", "unknown-name", 11, 13, "error"),
    ("step_bad_key.yaml", "schema-unknown-key", 8, 9, "error"),
    ("lookup_type.yaml", "type", 12, 23, "error"),
    ("status_event.yaml", "unknown-name", 6, 7, "error"),
    ("unknown_status.yaml", "unknown-name", 13, 23, "error"),
    ("unknown_column.yaml", "unknown-name", 11, 33, "error"),
    # found by validate, not when the branch that reaches them runs
    ("steps_cell_syntax.yaml", "syntax", 11, 41, "error"),
    ("steps_cell_name.yaml", "unknown-name", 11, 40, "error"),
    ("check_default.yaml", "table-check", 9, 46, "warning"),   # the column default counts
    ("scenario_kind.yaml", "unknown-name", 8, 21, "error"),
    ("state_cycle.yaml", "formula-cycle", 7, 7, "error"),
    ("derived_cycle.yaml", "formula-cycle", 7, 7, "error"),
    ("stat_cycle.yaml", "formula-cycle", 7, 7, "error"),          # weapons <-> mounts
    ("stat_formula_name.yaml", "unknown-name", 12, 18, "error"),  # mech, not mechs
    ("recursion_without_end.yaml", "recursion-without-end", 4, 3, "error"),
    ("builtin_field.yaml", "reserved-name", 6, 13, "error"),
    ("record_assign.yaml", "assign-value", 9, 9, "error"),
    # fields and keys inside records whose fields are declared (a kind's stats, a literal)
    ("record_field_assign.yaml", "unknown-field", 13, 30, "error"),
    ("record_key.yaml", "unknown-key", 13, 20, "error"),
    ("dice_text_cell.yaml", "table-dice-text", 8, 23, "warning"),
    ("dice_count.yaml", "dice-value", 8, 28, "error"),       # (2 - 3)d6, seen unrolled
    ("dice_target.yaml", "dice-value", 8, 16, "error"),      # (shots)d6>=(7 / 2)
    ("group_target.yaml", "dice-value", 8, 16, "error"),     # {2d6, 3d6}>=(15 / 2)
    ("dice_convention.yaml", "dice-convention", 7, 16, "warning"),   # 5d10>8 is inclusive
    # the resolver's definite-binding pass
    ("read_unbound.yaml", "unbound", 8, 20, "error"),
    ("bound_in_one_branch.yaml", "maybe-unbound", 10, 16, "warning"),
    ("scenario_terrain.yaml", "unknown-name", 11, 22, "error"),   # not in space.terrain
    ("hex_off_map.yaml", "off-map", 12, 15, "error"),             # map: q 0..6, r 0..2
    ("hex_value_key.yaml", "unknown-field", 11, 38, "error"),     # hist: no kind declares it
    ("set_terrain_value.yaml", "unknown-field", 11, 42, "error"),  # set_terrain(..., hist=40)
    ("reaction_point.yaml", "unknown-name", 8, 11, "error"),      # no react() offers it
    ("status_counter.yaml", "assign-value", 9, 11, "error"),      # a status's name stays
    ("object_kind.yaml", "unknown-name", 11, 20, "error"),        # a scenario object's kind
    ("use_period.yaml", "unknown-name", 9, 29, "error"),          # per= turn | phase | game
    ("cooldown_period.yaml", "type", 9, 34, "error"),             # per=N: N turns, N >= 1
    ("narrate_rolls.yaml", "narrate-rolls", 18, 30, "error"),     # rifles: "=d6" in a story
    ("turns_negative.yaml", "turns-value", 12, 39, "error"),      # apply(..., turns=-1)
    ("turns_fraction.yaml", "turns-value", 9, 46, "error"),       # renew(holder, status, 5 / 2)
    # initiative: what the roll and the winner's preference may read
    ("initiative_unit_per_side.yaml", "unknown-name", 7, 28, "error"),   # unit, per: side
    ("initiative_field.yaml", "unknown-field", 7, 33, "error"),         # unit.pilotng
    ("initiative_prefer_name.yaml", "unknown-name", 11, 17, "error"),   # opton
    ("scenario_initiative_name.yaml", "unknown-name", 11, 51, "error"),  # bonnus
    ("scenario_initiative_roll.yaml", "initiative-roll", 10, 17, "error"),   # nothing to roll
    ("capture_side_name.yaml", "unknown-name", 11, 25, "error"),  # capture(t, "rde"): red?
    ("side_assigned.yaml", "assign-side", 12, 9, "error"),        # target.side = ...: capture()
    ("roll_hook_event.yaml", "schema-unknown-key", 7, 7, "error"),   # rolled_agianst: against?
    ("roll_hook_name.yaml", "unknown-name", 8, 15, "error"),       # bda: a hook's `bad`?
    ("destroyed_assigned.yaml", "assign-destroyed", 13, 9, "warning"),   # destroy(target)
    # names a phase is not handed, and fields of globals that have none (both stopped
    # the game when it reached them)
    ("segment_unit_none.yaml", "unknown-name", 9, 21, "error"),    # each: none has no unit
    ("global_without_fields.yaml", "no-fields", 8, 32, "error"),   # bonus: 2, bonus.value
    ("builtin_side_fields.yaml", "no-fields", 9, 58, "error"),     # side(), not a side
    # every broken step of a list is reported (EVERY_BROKEN_STEP below lists them all)
    ("two_errors_one_list.yaml", "syntax", 8, 23, "error"),
    ("three_errors_nested.yaml", "syntax", 12, 27, "error"),
    ("broken_let_read.yaml", "syntax", 8, 27, "error"),
    ("broken_if_header.yaml", "syntax", 6, 16, "error"),
    ("steps_cell_two_errors.yaml", "syntax", 11, 41, "error"),
]


@pytest.mark.parametrize("name,code,line,column,severity", SEMANTIC_CASES)
def test_semantic_finding_is_located(name, code, line, column, severity):
    findings = check_ruleset(SEMANTIC / name)
    first = findings[0]
    assert (first.code, first.location.line, first.location.column, first.severity) == \
        (code, line, column, severity)


# file, every finding (code, line, column) in order: a broken step does not hide the next
# one, the steps that compiled are still name-checked, and a name a broken step meant to
# bind (`let roll = d6 +`, `lett bonus = 1`) is not then called unknown
EVERY_BROKEN_STEP = [
    ("two_errors_one_list.yaml", [("syntax", 8, 23), ("syntax", 9, 9),
                                  ("unknown-name", 12, 20)]),           # return rsult
    ("three_errors_nested.yaml", [("syntax", 12, 27), ("syntax", 15, 25),   # in for, in if
                                  ("syntax", 18, 27),                   # in then
                                  ("unknown-name", 20, 20)]),           # return hist, in else
    ("broken_let_read.yaml", [("syntax", 8, 27), ("syntax", 9, 9)]),    # reach, bonus bound
    # a broken condition leaves its if out, the steps inside are still compiled
    ("broken_if_header.yaml", [("syntax", 6, 16), ("syntax", 8, 13)]),
    # a table's steps cell reports each broken step too
    ("steps_cell_two_errors.yaml", [("syntax", 11, 41), ("syntax", 11, 56)]),
]


@pytest.mark.parametrize("name,expected", EVERY_BROKEN_STEP)
def test_validate_reports_every_broken_step(name, expected):
    found = [(f.code, f.location.line, f.location.column) for f in check_ruleset(SEMANTIC / name)]
    assert found == expected


@pytest.mark.parametrize("name", [name for name, _ in EVERY_BROKEN_STEP])
def test_a_ruleset_with_broken_steps_never_runs(name):
    done = rulecraft("run", str(SEMANTIC / name), name_of_first_procedure(SEMANTIC / name))
    assert done.returncode == 1 and "Traceback" not in done.stderr


def name_of_first_procedure(path):
    return next(iter(yaml.safe_load(path.read_text())["procedures"]))


STEP_LISTS = [
    # yaml step list, errors found, names meant to be bound, steps kept
    ('- let a = d6 +\n- retrun a\n- return a', 2, {"a"}, 1),
    ('- if: d6 >\n  then: [let b = 1, "return b *"]\n- return 1', 2, {"b"}, 1),
    ('- if: d6 > 3\n  then: ["return *", return 2]\n- return 1', 1, set(), 2),
    ('- choose: c\n  from: "[1, 2"\n- return c', 1, {"c"}, 1),
    ('- repeat: ["let n = n +"]\n  until: d6 >\n- return 1', 2, {"n"}, 1),
]


@pytest.mark.parametrize("text,errors,bound,kept", STEP_LISTS)
def test_compile_steps_goes_on_past_errors(text, errors, bound, kept):
    node = load_text("steps:\n" + text)["steps"]
    found = StepErrors()
    steps = compile_steps(node, "steps", found)
    assert (len(found.errors), found.bound, len(steps)) == (errors, bound, kept)
    # only real steps are kept: no walker meets a placeholder
    assert all(isinstance(s, (ChooseStep, IfStep, ReturnStep, LetStep)) for s in all_steps(steps))
    if errors:   # without a collector the first error still raises, as the runners expect
        with pytest.raises(DSLSyntaxError):
            compile_steps(node)


def test_every_broken_file_is_in_the_table():
    assert {p.name for p in SEMANTIC.glob("*.yaml")} == {c[0] for c in SEMANTIC_CASES}


def test_unknown_name_suggests_the_closest():
    first = check_ruleset(SEMANTIC / "unknown_name.yaml")[0]
    assert first.hint == "did you mean 'strength'?"


def test_check_warning_names_both_values():
    first = check_ruleset(SEMANTIC / "check_warning.yaml")[0]
    assert "points is 25" in first.message and "gives 30" in first.message


def rulecraft(*args):
    return subprocess.run([sys.executable, "-m", "interpreter", *args], capture_output=True,
                          text=True, cwd=HERE.parent)


@pytest.mark.parametrize("args,exit_code", [
    (["validate", str(SEMANTIC / "table_gap.yaml")], 1),
    (["validate", str(SEMANTIC / "check_warning.yaml")], 0),
    (["validate", "--strict", str(SEMANTIC / "check_warning.yaml")], 1),
    (["validate", str(HERE / "rulesets" / "duel.yaml")], 0),
    (["validate", "--format", "yaml", str(HERE / "rulesets" / "duel.yaml")], 2),
    (["validate", str(HERE / "no_such_file.yaml")], 1),
])
def test_validate_exit_codes(args, exit_code):
    assert rulecraft(*args).returncode == exit_code


def test_validate_text_is_a_compiler_message_with_a_caret():
    out = rulecraft("validate", str(SEMANTIC / "dsl_syntax.yaml")).stdout
    lines = out.splitlines()
    assert lines[0].endswith("dsl_syntax.yaml:9:26: error: unexpected 'x'; expected ')', '*', '/' "
                             "or '%', '**', '+' or '-', ',', '.', ...")
    assert lines[1] == "          - return (D6 + sc) x velocity"
    assert lines[2] == "                             ^"


def test_validate_json_has_the_documented_keys():
    out = json.loads(rulecraft("validate", "--format", "json", str(SEMANTIC / "table_gap.yaml")).stdout)
    assert set(out[0]) == {"file", "line", "column", "severity", "code", "message"}


def test_house_rule_extends_its_base():
    house = load_ruleset(HERE / "rulesets" / "house" / "duel_cover.yaml")
    assert house.id == "duel-heavy-cover"
    assert "fighter" in house.kinds                      # inherited
    assert [r["id"] for r in house.rulings] == ["heavy-cover"]
    odds = house.run_odds("attack", {"cover": "true"}).outcomes
    # need 12 with cover 5: only a natural 10 hits
    assert odds.probability("hit") == pytest.approx(0.1)


def test_house_rule_positions_stay_in_their_own_file():
    house = load_ruleset(HERE / "rulesets" / "house" / "duel_cover.yaml")
    assert house.procedures["attack"].location.file.endswith("duel_cover.yaml")
    assert house.kinds["fighter"].name == "fighter"


def test_schema_command_prints_the_path_and_the_content():
    path = rulecraft("schema").stdout.strip()
    assert path.endswith("ruleset.schema.json")
    assert json.loads(rulecraft("schema", "--print").stdout)["$schema"].endswith("2020-12/schema")


def test_list_json_has_id_and_title_for_every_bundled_ruleset():
    out = rulecraft("list", "--json")
    assert out.returncode == 0
    rows = json.loads(out.stdout)
    assert all({"id", "title", "tables", "procedures"} <= set(r) for r in rows)


@pytest.mark.parametrize("steps", [
    "['emit [side.name for side in sides]']",             # a comprehension's own side
    "['let side = sides[1]', 'emit side.name']",          # bound first
    "['emit (let side = sides[1] in side.name)']",       # bound in the expression
])
def test_a_global_hidden_by_a_bound_name_is_not_the_global(tmp_path, steps):
    """`no-fields` is only for a name that can be nothing but the global there."""
    path = tmp_path / "hidden.yaml"
    path.write_text(f"""
ruleset: hidden
title: names that hide the built-in side()
kinds:
  fighter: {{stats: {{hits: 0}}}}
turn:
  phases:
    - name: look
      each: none
      steps: {steps}
scenarios:
  default:
    sides:
      red: {{units: [{{kind: fighter, name: Red}}]}}
""")
    assert [f.code for f in check_ruleset(path)] == []
