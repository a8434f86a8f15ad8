"""Structured state: items through computed indexes, nested records, record literals,
list changes and ranges — the forms the Jugger, Simple Jungle Warfare and mech-d20
READMEs asked for (tests/rulesets/structured_state.yaml), each sampled, exact, compiled
and played; and the smaller gaps of issue #13 (run --policy, --with into records,
unhandled faces in the transcript, one name for a game nobody won)."""
import random
from collections import Counter
from fractions import Fraction as F
from pathlib import Path

import pytest

from interpreter.errors import DSLSyntaxError, RulecraftError, UsageError
from interpreter.expr.values import json_value
from interpreter.game.api import load_ruleset
from interpreter.game.play import NO_WINNER
from interpreter.game.runs import parse_inputs, parse_policies
from interpreter.game.simulate import game_seed, simulate
from interpreter.lang.parse import parse_expression, parse_statement

HERE = Path(__file__).parent
RULES = HERE / "rulesets" / "structured_state.yaml"


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(RULES)


def odds_of(rules, procedure, inputs=None, policies=None):
    dist = rules.run_odds(procedure, inputs or {}, policies=policies).outcomes
    return {_key(v): F(w, dist.total) for v, w in dist.items()}


def _key(value):
    shown = json_value(value)
    return str(shown) if isinstance(shown, (list, dict)) else shown


# procedure, its exact odds worked out by hand from the rule (see the ruleset's comments)
ACCEPTANCE = [
    # mech-d20: d6 location 1-2 left arm (armour 2, internal 1): 2 to armour, 1 inside,
    # left at 0; 3-5 torso (armour 3) takes all 3; 6 head (armour 1): 2 inside, destroyed
    ("damage_die", {"left_arm 0": F(1, 3), "torso 0": F(1, 2), "head destroyed": F(1, 6)}),
    # the issue: 2 LRM rounds, one fired, then a 4+ stops; else the second is fired too
    ("fire", {1: F(1, 2), 0: F(1, 2)}),
    # the issue: one of two Fire Pumps lost on 1-3, else the Gears
    ("lose_one", {"[1, 2]": F(1, 2), "[2, 2]": F(1, 2)}),
    # Jugger: two spells, each a fireball on 1-2 (binomial 2, 1/3) else a shield
    ("prepare_spells", {"[0, 3]": F(4, 9), "[1, 2]": F(4, 9), "[2, 1]": F(1, 9)}),
    # Jugger: an equipment record built in play, and one appended
    ("improve", {"[2, 'Ram', 3]": F(1, 2), "[2, 'Claw', 3]": F(1, 2)}),
    # Simple Jungle Warfare: the second section burned on 3+
    ("burn", {"[False, True]": F(2, 3), "[False, False]": F(1, 3)}),
    # Simple Jungle Warfare: a record literal, rows counted down, a line joined
    ("draw", {". O . . / . . . . / . . . .": F(1)}),
]


@pytest.mark.parametrize("procedure,expected", ACCEPTANCE, ids=[a[0] for a in ACCEPTANCE])
def test_wanted_forms_have_the_odds_worked_out_by_hand(rules, procedure, expected):
    assert odds_of(rules, procedure) == expected


@pytest.mark.parametrize("procedure,expected", ACCEPTANCE, ids=[a[0] for a in ACCEPTANCE])
def test_wanted_forms_sampled_and_compiled_stay_in_the_exact_support(rules, procedure, expected):
    fast = rules.sampler(procedure, {})
    for seed in range(12):
        assert _key(rules.run(procedure, {}, seed).result) in expected
        assert _key(fast(random.Random(seed))) in expected


def test_local_list_and_record_items_change_only_the_local_value(rules):
    # xs[2 or 3] = 20 (a 4+ picks 3); rec.armour = 10 - d6; updated() leaves rec alone
    odds = odds_of(rules, "locals")
    assert len(odds) == 12 and set(odds.values()) == {F(1, 12)}
    assert "[[1, 2, 20], 4, 1, 5]" in odds and "[[1, 20, 3], 9, 1, 5]" in odds


def test_a_let_bound_copy_of_a_ruleset_record_changes_alone(tmp_path):
    path = tmp_path / "copy.yaml"
    path.write_text("""\
ruleset: copy
title: a record parameter copied and changed
parameters:
  base: {armour: 10, structure: 5}
procedures:
  hit:
    steps:
      - let a = base
      - a.structure -= 1
      - return [a.structure, base.structure]
""")
    rules = load_ruleset(path)
    assert list(rules.run("hit", {}, 1).result) == [4, 5]
    assert odds_of(rules, "hit") == {"[4, 5]": 1}


BROKEN_STEPS = [
    # step, the error both a sampled run and exact odds raise
    ('target.locations[if d6 > 0 then "legs" else at].armour -= 1', "no entry 'legs'"),
    ("target.equipment[4] = \"Ram\"", "list index 4 is outside 1..3"),
    ('target["ammo"] = 1', "a unit's fields are written unit.field, not unit[ammo]"),
    ('remove_one(target.equipment, "Claw")', "remove_one(): the list holds no 'Claw' to remove"),
    ("target.ammo.lrm.x = 1", "the number 2 has no fields (asked for .x)"),
]


@pytest.mark.parametrize("step,message", BROKEN_STEPS)
def test_a_wrong_item_is_a_located_error_sampled_and_exactly(tmp_path, step, message):
    path = tmp_path / "broken.yaml"
    text = RULES.read_text().replace("      - target.locations[at].armour -= to_armour",
                                     "      - '" + step.replace("'", "''") + "'", 1)
    path.write_text(text)
    rules = load_ruleset(path)
    for attempt in (lambda: rules.run("damage_die", {}, 1),
                    lambda: rules.run_odds("damage_die", {})):
        with pytest.raises(RulecraftError) as caught:
            attempt()
        assert caught.value.message == message
        assert caught.value.location.line == 38   # the step put in damage_die


@pytest.mark.parametrize("step,message", [
    ("target.locations[at].armor -= 1", "target.locations[at] has no field 'armor' (asked for .armor)"),
    ('target.locations["legs"].armour -= 1',
     "target.locations has no field 'legs' (asked for [\"legs\"])"),
])
def test_a_wrong_field_seen_in_the_rule_is_found_before_any_run(tmp_path, step, message):
    path = tmp_path / "broken.yaml"
    path.write_text(RULES.read_text().replace("      - target.locations[at].armour -= to_armour",
                                              "      - '" + step + "'", 1))
    from interpreter.game.api import check_ruleset
    first = check_ruleset(path)[0]
    assert (first.message, first.location.line) == (message, 38)


@pytest.mark.parametrize("text", [
    "{armour: 10, structure: 5}", "{}", '{"Fire Pump": 2, size: d6 + 1}',
    "[{slot: item, size: 1}]", "{a: {b: [1, 2]}}", "{3d6, 4d6}kh1", "{x}",
])
def test_record_literals_print_back_as_they_parse(text):
    node = parse_expression(text)
    assert parse_expression(str(node)) == node


@pytest.mark.parametrize("text,message", [
    ("{a: 1, a: 2}", "field 'a' is given twice in this record"),
    ("{a: 1}kh1", "a record takes no dice modifiers ('kh1')"),
])
def test_record_literal_mistakes_are_syntax_errors(text, message):
    with pytest.raises(DSLSyntaxError) as caught:
        parse_expression(text)
    assert caught.value.message == message


@pytest.mark.parametrize("text,path", [
    ("target.locations[at].armour -= 4", ("target", "locations", "at", "armour")),
    ("unit.ammo[weapon.ammo_type] -= 1", ("unit", "ammo", "weapon.ammo_type")),
    ("jungle.sections[here].burned = true", ("jungle", "sections", "here", "burned")),
])
def test_assignment_targets_keep_computed_keys_as_expressions(text, path):
    from interpreter.lang.steps import compile_steps
    from interpreter.source.load import load_text
    doc = load_text(f"steps: ['{text}']\n", file="t.yaml")
    (step,) = compile_steps(doc["steps"])
    assert tuple(p if isinstance(p, str) else str(p) for p in step.path) == path
    assert str(parse_statement(text)) == text


# ------------------------------------------------------------------------------ play


def test_play_changes_nested_records_and_lists(rules):
    # seed 4: the Boar loses its torso to the Warthog's LRMs after 7 turns
    result = rules.play(None, 4)
    assert (result.winner, result.turns) == ("a", 7)
    boar = next(u for u in result.world.units.values() if u.name == "Boar")
    assert "torso" in boar.fields["lost"] and boar.fields["destroyed"]
    assert boar.fields["locations"]["torso"]["internal"] <= 0
    texts = [e["text"] for e in result.events]
    # the transcript writes a change as `field: old → new` (with the operation when it is
    # not a plain assignment or an in-place list call)
    assert any(t.startswith("Boar.locations.torso.internal: 2 → -1 (-= 3)") for t in texts)
    assert any(t.startswith("Boar.lost: [] → [") for t in texts)
    assert texts[-1] == "winner: a (victory condition) after 7 turns"


def test_play_golden_transcript_seed_4():
    """The whole game as JSON lines (RULECRAFT_UPDATE_GOLDEN=1 writes it again)."""
    import json
    import os
    import subprocess
    import sys
    golden = HERE / "golden" / "structured_state_play_seed4.jsonl"
    out = subprocess.run([sys.executable, "-m", "interpreter", "play", str(RULES), "--seed", "4",
                          "--json"], capture_output=True, text=True, cwd=HERE.parent)
    assert out.returncode == 0
    if os.environ.get("RULECRAFT_UPDATE_GOLDEN"):
        golden.write_text(out.stdout, encoding="utf-8")
    assert out.stdout == golden.read_text(encoding="utf-8")
    assert json.loads(out.stdout.splitlines()[-1])["winner"] == "a"


def test_simulate_and_play_name_every_result_the_same_way(rules):
    # simulate runs the compiled form without a transcript; play records it
    played = Counter(rules.play(None, game_seed(5, i)).winner or NO_WINNER for i in range(30))
    assert simulate(rules, None, 30, seed=5).wins == played
    assert NO_WINNER in played   # some games end at the turn limit, named alike in both


# ------------------------------------------------------------------- run --policy

POLICY_RULES = HERE / "rulesets" / "run_policy.yaml"


@pytest.mark.parametrize("procedure,policies,expected", [
    ("pick_weapon", [], {"club": 1}),                          # first, as before
    ("pick_weapon", ["attacker=prefer"], {"sword": 1}),        # the most damage
    ("pick_weapon", ["prefer"], {"sword": 1}),                 # every side
    ("pick_weapon", ["random"], {"club": F(1, 3), "sword": F(1, 3), "axe": F(1, 3)}),
    ("pick_weapon", ["random", "attacker=first"], {"club": 1}),
    ("pick_number", ["prefer"], {3: 1}),                       # a choice with no `by`
    ("pick_number", ["random"], {1: F(1, 3), 2: F(1, 3), 3: F(1, 3)}),
    ("pick_nearest", ["prefer"], {"near": 1}),   # a preference reading the game (distance)
])
def test_run_policy_decides_choices_sampled_and_exactly(procedure, policies, expected):
    rules = load_ruleset(POLICY_RULES)
    chosen = parse_policies(policies)
    assert odds_of(rules, procedure, policies=chosen) == expected
    for seed in range(6):
        assert rules.run(procedure, {}, seed, chosen).result in expected
        assert rules.sampler(procedure, {}, chosen)(random.Random(seed)) in expected


@pytest.mark.parametrize("policies,message,hint", [
    (["rnadom"], "--policy rnadom: 'rnadom' is not a policy for a run", "did you mean 'random'?"),
    (["ask"], "--policy ask: 'ask' is not a policy for a run",
     "policies: first, random, prefer"),
    (["attacker=prefer", "attacker=first"], "--policy attacker is given twice", None),
])
def test_run_policy_mistakes_are_usage_errors(policies, message, hint):
    with pytest.raises(UsageError) as caught:
        parse_policies(policies)
    assert (caught.value.message, caught.value.hint) == (message, hint)


@pytest.mark.parametrize("args,code,shown", [
    (["pick_weapon", "--policy", "attacker=prefer", "--seed", "1"], 0, "result: sword"),
    (["pick_number", "--policy", "random", "--odds"], 0, "1/3"),
    (["pick_weapon", "--policy", "rnadom"], 2, "did you mean 'random'?"),
])
def test_run_policy_on_the_command_line(args, code, shown):
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "interpreter", "run", str(POLICY_RULES), *args],
                         capture_output=True, text=True, cwd=HERE.parent)
    assert out.returncode == code
    assert shown in out.stdout + out.stderr


def test_run_policy_for_a_side_the_procedure_does_not_have():
    rules = load_ruleset(POLICY_RULES)
    with pytest.raises(UsageError) as caught:
        rules.run("pick_weapon", {}, 1, parse_policies(["atacker=prefer"]))
    assert "has no unit parameter 'atacker'" in caught.value.message
    assert caught.value.hint == "did you mean 'attacker'?"


# ---------------------------------------------------------------- --with into records


@pytest.mark.parametrize("pair,message,hint", [
    ("target.armour.frnt=3", "--with target.armour.frnt: target.armour has no field 'frnt'",
     "did you mean 'front'?"),
    ("target.armor.front=3", "--with target.armor.front: target (a vehicle) has no field 'armor'",
     "did you mean 'armour'?"),
])
def test_with_into_a_record_names_only_its_fields(pair, message, hint):
    rules = load_ruleset("tanks")
    with pytest.raises(UsageError) as caught:
        rules.run("shoot", parse_inputs([pair]), 1)
    assert (caught.value.message, caught.value.hint) == (message, hint)


def test_with_into_a_record_field_it_has_still_counts():
    rules = load_ruleset("tanks")
    thin = rules.run_odds("shoot", parse_inputs(["target.armour.front=0"])).outcomes
    thick = rules.run_odds("shoot", {}).outcomes
    assert thin != thick


# --------------------------------------------------------------- unhandled faces


def test_an_unhandled_face_says_so_in_the_transcript(tmp_path):
    path = tmp_path / "winch.yaml"
    path.write_text("""\
ruleset: winch
title: roll again on 2-3
tables:
  winch:
    roll: d6
    unhandled: [2, 3]
    rows:
      "1": topple
      "4-6": snaps
procedures:
  pull:
    steps:
      - return winch[d6]
""")
    rules = load_ruleset(path)
    texts = [e["text"] for seed in range(20) for e in rules.run("pull", {}, seed).events]
    assert any("winch[2] → unhandled, rolled again" in t or "winch[3] → unhandled, rolled again"
               in t for t in texts)
    assert not any("None" in t for t in texts)


def _containers(value):
    """Every list and record inside a value, the value itself included."""
    if isinstance(value, dict):
        return [value] + [c for v in value.values() for c in _containers(v)]
    if isinstance(value, list):
        return [value] + [c for v in value for c in _containers(v)]
    return []


@pytest.mark.parametrize("value", [
    7, "text", None, True, F(7, 2),
    {"armour": {"front": 12, "side": 10}, "weapons": [{"range": 24, "ap": [1, 2]}], "crew": 3},
    [[1, 2], {"left_arm": {"armour": 5}}, F(1, 3)],
    {"roll": (1, 2)},   # a tuple is deep-copied as copy.deepcopy does
])
def test_a_unit_is_made_from_a_fresh_copy_of_its_kinds_stats(value):
    """Each unit's fields (and each default of a procedure's parameter) are a copy of the
    kind's: equal to it, sharing no list or record with it, so that one unit's change
    (or one call's) never reaches another."""
    import copy
    from interpreter.state.freezing import fresh
    made = fresh(value)
    assert made == copy.deepcopy(value) == value
    assert not {id(c) for c in _containers(made)} & {id(c) for c in _containers(value)}
