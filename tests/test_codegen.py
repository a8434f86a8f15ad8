"""The compiled (no-transcript) form of steps agrees with the reference closures."""
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.run import codegen
from interpreter.errors import RulecraftError
from interpreter.game.api import load_ruleset
from interpreter.model.ruleset import RulesetInvalid

ROOT = Path(__file__).parent.parent


def simulate_json(ruleset, codegen: bool) -> dict:
    env = {**os.environ}
    if not codegen:
        env["RULECRAFT_NO_CODEGEN"] = "1"
    out = subprocess.run([sys.executable, "-m", "interpreter", "simulate", ruleset, "--runs", "25",
                          "--seed", "9", "--json"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("ruleset", ["tanks", "legowars", "tests/rulesets/duel.yaml",
                                     "tests/rulesets/hexes.yaml", "tests/rulesets/world_names.yaml"])
def test_simulation_is_the_same_compiled_or_not(ruleset):
    assert simulate_json(ruleset, True) == simulate_json(ruleset, False)


@pytest.mark.parametrize("path,procedure", [("tests/rulesets/duel.yaml", "attack"),
                                            ("rules/tanks/tanks.yaml", "shoot"),
                                            ("tests/rulesets/effects.yaml", "hit")])
def test_fast_runs_match_recorded_runs_seed_by_seed(path, procedure):
    rules = load_ruleset(ROOT / path)
    fast = rules.sampler(procedure, {})
    for seed in range(30):
        assert fast(random.Random(seed)) == rules.run(procedure, {}, seed).result


def test_compiled_steps_still_raise_located_errors():
    rules = load_ruleset(ROOT / "tests" / "rulesets" / "errors.yaml")
    with pytest.raises(RulecraftError) as info:
        rules.sampler("divide", {})(random.Random(1))
    assert "division by zero" in info.value.message
    assert info.value.location.line == 11


COMPILED = ROOT / "tests" / "rulesets" / "compiled.yaml"


def outcome_of(call):
    """What a run gives, as something comparable: its result (with a roll's natural
    face), or its error's message and place."""
    try:
        result = call()
    except RulecraftError as err:
        return ("error", err.message, err.location.line, err.location.column)
    return ("result", result, getattr(result, "natural", None))


@pytest.mark.parametrize("procedure", [
    "passes_roll_on",            # a bound die handed to a procedure keeps its natural face
    "returns_roll",              # ... and when returned whole
    "binds_globals",             # names bound before every read that are also globals
    "loop_binds_a_global",       # ... and one a loop's first pass reads before binding
    "fails_after_roll",          # a failing statement after a plain die: the Step's error
    "unbound_in_one_branch",     # a name bound in one branch only: located, not a KeyError
    "deep",                      # the call-depth limit
    "cell_binds_a_global",       # a table cell's `let` hides a ruleset parameter
    "view_after_status",         # a unit read again after a status changed its armour
    "status_in_the_condition",   # ... and within the same condition
    "apply_keywords",            # apply() keywords out of order, and a status's own values
    "formula_cells_roll_again",  # a table with formula cells is never remembered
    "list_cells_are_fresh",
    "shadowing_param",           # a parameter named like a table
    "loop_with_calls",           # unit reads in a loop whose body changes the unit
    "through_helpers",           # procedures that change units and procedures that do not
    "shadowed_action",           # a harmless name bound to an action that changes units
    "through_sneaky",            # ... inside a procedure it calls
    "reassign",                  # names assigned again
    "assign_to_a_roll",          # a roll is not something to change
    "row_fields",                # rows of constant tables: cells, and the key
    "row_parameter",             # a row handed to a procedure: its plain cells, a formula's
    "row_parameter_missing",     # ... and a column it does not have: the located error
    "other_kind",                # a unit of another kind than the parameter declares
    "other_kind_derived_field",  # ... deriving a field the declared kind stores
    "record_fields",             # a record's field, and one it does not have
    "row_after_repeat",          # a constant table's row looked up in a repeat, read after
    "comprehension_map_filter",  # [item for x in list if cond]: dice drawn in the same order
    "comprehension_shadows",     # its variable hides a local, a parameter and a world name
    "comprehension_shadows_unit",  # ... a unit parameter (its view), a row, a loop's name
    "comprehension_nested",
    "comprehension_not_a_list",  # the closure's own located error
    "comprehension_python_error",  # a missing field inside: the Step's error
    "comprehension_units",       # units read inside, after a status, through a procedure
    "counts",                    # count() of lists of units and of others; a choose from a list
    "comprehension_runs_cells",  # run() inside: the cell does not see the variable
    "comprehension_tables",      # constant tables and formula cells inside
    "nested_loops",              # deeper than Python compiles: falls back to the Steps
    "write_fields",              # unit.field = value: a plain unit, one with a status
    "default_arguments",         # parameters left out: plain defaults, a list's
    "literal_cells",             # "=1/2" cells read at once; "=1/0" still the located error
    "first_statuses",            # apply() of a first status written out, then stacked ones
    "destroyed_twice",           # destroy() written out, again, and of a unit with a status
    "used_through_a_cell",       # use() through a cell and a helper: put back for each run
    "boolean_parameters",        # booleans a bulk run holds as constants, one bound again
    "choose_then_count",         # a choose's options taken again at once, not after a change
    "min_max_of_lists",          # min/max of lists made there: whole, a fraction, empty
    "farther_each_run",          # set_distance(): each bulk run starts from its distances
    "repeat_until_six",          # repeat as generated code: body, until, the names after it
    "repeat_returns_inside",     # ... a return inside its body
    "repeat_stops_at_its_max",   # ... its max reached: play goes on
    "repeat_until_not_boolean",  # ... until not a boolean: the closures' error
    "repeat_changes_units",      # ... a unit read in until after its body changed it
    "emit_rolls",                # emit without a transcript: its dice are drawn all the same
    "emit_fails",                # ... and its error is the game's
    "let_in_values",             # let ... in: shadowing, a roll made plain, in a comprehension
    "derived_fields",            # a kind's derived fields, generated, before and after a status
    "plain_column_of_a_table_with_formulas",  # its plain column remembered; a miss still the error
    "rows_named_by_formula_cells",  # `=arms["sword"]` cells: the row, its dice; a miss, a hidden name
    "derived_fields_of_items",   # derived fields of units (one with a status), a record's
    "own_names_of_items",        # u.kind, u.name, u.side of units (one with a status), records
    "own_name_missing",          # ... of a record without the field: the located error
    "rows_of_tables_with_formulas",  # a row found again by its key, its dice rolled each read
    "row_with_a_broken_formula",  # ... a failing cell: the located error
    "contains_of_every_kind",    # contains(): Python's `in` for plain values in lists, else the function
    "contains_of_a_number",      # ... of a number: the located error
    "list_items",                # xs[i] of a list at once: whole numbers, fractions, dice
    "list_item_outside",         # ... outside 1..len: the located error
    "list_item_not_whole",       # ... by a fraction: the located error (a whole one passes)
    "list_item_by_true",         # ... by true: the located error
])
def test_compiled_procedures_agree_with_recorded_runs(procedure):
    rules = load_ruleset(COMPILED)
    fast = rules.sampler(procedure, {})
    for seed in range(40):
        ours = outcome_of(lambda: fast(random.Random(seed)))
        recorded = outcome_of(lambda: rules.run(procedure, {}, seed).result)
        assert ours == recorded, (procedure, seed)


@pytest.mark.skipif(not codegen.ENABLED, reason="RULECRAFT_NO_CODEGEN is set")
def test_the_duel_runs_on_python_variables_with_plain_dice():
    """The shortcuts the benchmarks rely on are taken (else they measure something else)."""
    rules = load_ruleset(ROOT / "benchmarks" / "duel.yaml")
    body = rules.procedures["attack"].body()
    assert body.keeps_names
    names = body.__code__.co_varnames
    assert "_w0" in names and "_n3" in names   # a unit view, the rule's names as variables
    assert "_rolled" not in body.__code__.co_names   # both dice held as plain ints


def final_state(result) -> tuple:
    world = result.world
    return (result.winner, result.turns, result.reason, result.survivors, result.scores,
            [(u.uid, u.fields, [s.name for s in u.statuses]) for u in world.units.values()],
            world.rng.getstate())


@pytest.mark.parametrize("path", ["tests/rulesets/world_names.yaml", "rules/tanks/tanks.yaml",
                                  "rules/jungle-warfare/jungle-warfare.yaml", "rules/jugger/jugger.yaml",
                                  "tests/rulesets/duel.yaml", "rules/legowars/legowars.yaml",
                                  "tests/rulesets/start_dice.yaml"])
def test_games_without_a_transcript_end_as_recorded_games(path):
    """The compiled game loop (phases, turn steps and victory conditions on the world names
    they read, compiled choose) ends every game where the recorded game ends, seed by seed."""
    rules = load_ruleset(ROOT / path)
    for seed in range(4 if "jugger" in path else 12):   # (a jugger game: about 0.3 s recorded)
        assert final_state(rules.play(None, seed, record=False)) == \
            final_state(rules.play(None, seed, record=True)), (path, seed)


def test_a_world_that_rolls_as_it_is_built_is_built_for_each_game():
    """Games without a transcript start from a copy of one built world, unless building
    it rolls dice (a starting value "=d6"): then each game rolls its own."""
    rules = load_ruleset(ROOT / "tests" / "rulesets" / "start_dice.yaml")
    starts = {tuple(u.fields["nerve"] for u in
                    rules.play(None, seed, record=False).world.units.values())
              for seed in range(12)}
    assert len(starts) > 1
    tanks = load_ruleset(ROOT / "rules" / "tanks" / "tanks.yaml")
    first = final_state(tanks.play(None, 3, record=False))
    tanks.play(None, 4, record=False)   # a game played from the same copied start
    assert final_state(tanks.play(None, 3, record=False)) == first



def test_a_literal_formula_cell_read_from_the_model_cache():
    """The value of a "=1/2" cell is worked out once and kept in the cell, in a form that
    stays itself when the checked model (pickled by game/rules_cache.py before any
    read) is read back."""
    import pickle
    from fractions import Fraction
    rules = load_ruleset(COMPILED)
    cell = pickle.loads(pickle.dumps(rules.globals["fractions"].rows[0].cells["part"]))
    assert cell.literal() == Fraction(1, 2)
    assert cell.literal() == Fraction(1, 2)   # the kept value


@pytest.mark.skipif(not codegen.ENABLED, reason="RULECRAFT_NO_CODEGEN is set")
@pytest.mark.parametrize("ruleset", ["tanks", "legowars", "jugger", "jungle-warfare", "mech-d20"])
def test_bundled_procedures_compile_to_generated_source(ruleset):
    """A body Python refuses to compile runs on the Step objects instead (same results,
    several times slower), silently: a shortcut writing source Python does not accept
    (`:=` in a comprehension's `for`, say) would show only as a slower game."""
    rules = load_ruleset(ROOT / "rules" / ruleset / f"{ruleset}.yaml")
    fallen = [name for name, p in rules.procedures.items()
              if getattr(p.body(), "source", None) is None]
    assert not fallen


def test_a_written_out_first_status_sets_what_the_action_sets():
    """The generated code writes `apply()` of a unit's first status out
    (gen_calls.CallWriter._first_status) instead of calling `_give_status`.  Both must
    set every field of a Status, the same ones: a field added to the action (or to
    Status) and not to the written-out copy fails here, not as a wrong game later."""
    import ast
    import inspect
    import types
    from interpreter.run.gen_calls import CallWriter
    from interpreter.state import actions
    from interpreter.state.world import Status

    def assigned(tree, name: str) -> set:
        return {target.attr for node in ast.walk(tree) if isinstance(node, ast.Assign)
                for target in node.targets if isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name) and target.value.id == name}

    action = assigned(ast.parse(inspect.getsource(actions._give_status)), "given")
    writer = types.SimpleNamespace(expr=lambda node: "called()")
    lines = CallWriter._first_status(writer, None, "u", "shaken", 1, "now")
    written = assigned(ast.parse("\n".join(lines)), "_s")
    assert written == action == set(Status.__slots__), (written, action)


SEGMENT_NAMES_RULES = """
ruleset: segment_names
title: A segment's names as Python variables
source: none
kinds:
  fighter:
    stats: {armour: 3}
    state: {hits: 0}
statuses:
  braced: {modifies: {armour: 5}}
turn:
  phases:
    - name: brace
      each: unit
      steps:
        - let before = unit.armour
        - if: d6 > 3
          then: ['apply(unit, "braced", turns=1)']
        - unit.hits += unit.armour - before
    - name: count
      each: side
      steps: ['emit side.name']
    - name: look
      each: none
      steps: ['emit LOOK']
  max_turns: 3
scenarios:
  default:
    sides:
      red: {policy: first, units: [{kind: fighter, name: Red, count: 2}]}
      blue: {policy: first, units: [{kind: fighter, name: Blue}]}
"""


def test_a_segments_names_are_the_ones_it_is_handed(tmp_path):
    """A phase's steps run on the names its segments are handed (`unit` and `side`, or
    `side`, or none) as Python variables, `unit` through a view of its fields that a
    status makes read again: the same games as recorded ones."""
    path = tmp_path / "segment_names.yaml"
    path.write_text(SEGMENT_NAMES_RULES.replace("LOOK", "turn"))
    rules = load_ruleset(path)
    for seed in range(8):
        assert final_state(rules.play(None, seed, record=False)) == \
            final_state(rules.play(None, seed, record=True)), seed
    if codegen.ENABLED:
        from interpreter.game.compiled import compiled_cache
        sources = [e.body.source for e in compiled_cache(rules).values()]
        brace = next(s for s in sources if "_w0" in s)
        assert "L['unit']" not in brace.split("\n", 3)[3]   # read once, on entry


@pytest.mark.parametrize("look", ["unit.hits", "unit", "max(unit.hits, 1)"])
def test_a_phase_of_no_one_reads_no_unit_or_side(tmp_path, look):
    """`validate` finds what the game would stop at: a name no segment of the phase is
    handed (game/turns.py), with why as the hint."""
    path = tmp_path / "segment_names.yaml"
    path.write_text(SEGMENT_NAMES_RULES.replace("LOOK", look))
    with pytest.raises(RulesetInvalid) as info:
        load_ruleset(path)
    [finding] = info.value.findings
    assert finding.message == "unknown name 'unit'"
    assert finding.location.line == 25
    assert "phase 'look' is `each: none`" in finding.hint


@pytest.mark.skipif(not codegen.ENABLED, reason="RULECRAFT_NO_CODEGEN is set")
@pytest.mark.parametrize("procedure", ["fails_after_roll", "comprehension_python_error",
                                       "loop_with_calls", "row_parameter_missing"])
def test_a_body_has_one_handler_and_a_bulk_run_finds_its_statements(procedure):
    """Every statement's Python error is explained by its Step through the body's one
    handler (`StepWriter.handler`), which finds the Step by the failing line's mark; a
    bulk run, holding the body's statements at other lines, finds them in its own
    source.  (That the errors are the recorded runs' own, the table above checks.)"""
    rules = load_ruleset(COMPILED)
    body = rules.procedures[procedure].body()
    assert body.source.count("except Exception") == 1
    marked = {n for n, line in enumerate(body.source.split("\n"), 1) if "  #@S" in line}
    assert marked and marked == set(body.__globals__["_STMT"])
    run = rules.sampler(procedure, {})
    lines = run.source.split("\n")
    assert "_R_body(" not in run.source   # the statements are written into the run
    assert {n for n, line in enumerate(lines, 1) if "  #@S" in line} == \
        set(run.__globals__["_STMT"])


ENDLESS_REPEAT_RULES = """
ruleset: endless_repeat
title: A repeat without max that never ends
source: none
procedures:
  endless:
    steps:
      - let n = 0
      - repeat: ['n += 1']
        until: n < 0
      - return n
"""


def test_a_repeat_without_max_stops_at_the_loop_limit_with_the_same_error(tmp_path):
    """Generated code runs a repeat itself (gen_steps._repeat): at MAX_LOOP rounds it is
    the located limit error the Steps give, not a budget stop or a silent end."""
    path = tmp_path / "endless.yaml"
    path.write_text(ENDLESS_REPEAT_RULES)
    rules = load_ruleset(path)
    ours = outcome_of(lambda: rules.sampler("endless", {})(random.Random(1)))
    recorded = outcome_of(lambda: rules.run("endless", {}, 1).result)
    assert ours == recorded
    assert ours[0] == "error" and "ran 10000 times without its 'until'" in ours[1], ours


def _units_of_every_kind_with_derived_fields():
    """(ruleset, unit) for the units of every bundled and test ruleset whose kind derives
    fields, as each game of a few seeds leaves them (damaged, with statuses, ...) and as
    they start."""
    paths = sorted((ROOT / "rules").glob("*/*.yaml")) + sorted((ROOT / "tests" / "rulesets").glob("*.yaml"))
    for path in paths:
        if path.stem != path.parent.name and path.parent.name != "rulesets":
            continue
        try:
            rules = load_ruleset(path)
        except RulecraftError:
            continue
        if not any(k.derived for k in rules.kinds.values()) or not rules.scenarios:
            continue
        for seed in range(3):
            try:
                world = rules.play(None, seed, record=False).world
            except RulecraftError:
                continue
            for unit in world.units.values():
                if unit.kind is not None and unit.kind.derived:
                    yield path.stem, unit


def test_derived_fields_are_what_the_closures_give():
    """A kind's derived formulas run as generated code (run/formulas.py); the closures
    are their meaning: every derived field of every unit the games leave gives the same
    value, or the same located error, both ways."""
    from interpreter.run.formulas import closure_evaluator, derived_evaluator
    checked = set()
    for stem, unit in _units_of_every_kind_with_derived_fields():
        for name in unit.kind.derived:
            ours = outcome_of(lambda: derived_evaluator(unit.kind, name)(unit))
            meaning = outcome_of(lambda: closure_evaluator(unit.kind, name)(unit))
            assert ours == meaning, (stem, unit.name, name)
            checked.add((stem, name))
    assert {stem for stem, _ in checked} >= {"jugger", "legowars", "duel"}, checked


@pytest.mark.skipif(not codegen.ENABLED, reason="RULECRAFT_NO_CODEGEN is set")
def test_a_plain_column_of_a_table_with_formula_cells_is_remembered():
    """The shortcut the Jugger's derived formulas lean on is taken (`_column`)."""
    rules = load_ruleset(COMPILED)
    assert "_column(" in rules.procedures["plain_column_of_a_table_with_formulas"].body().source
    jugger = load_ruleset(ROOT / "rules" / "jugger" / "jugger.yaml")
    from interpreter.run.formulas import derived_evaluator
    spaces = derived_evaluator(jugger.kinds["jug"], "spaces")
    assert any("_column(" in source for source in _generated_sources(spaces))


def _generated_sources(fn, depth: int = 0):
    """The sources of the generated code a function holds, however deep in closures."""
    for cell in (getattr(fn, "__closure__", None) or ()) if depth < 4 else ():
        held = cell.cell_contents
        if isinstance(getattr(held, "source", None), str):
            yield held.source
        if callable(held):
            yield from _generated_sources(held, depth + 1)
