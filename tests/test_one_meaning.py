"""One meaning: the sampled closures, exact enumeration and the compiled steps give every
expression and statement the same value, or the same located error (values.py owns it)."""
import random
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.dice.distribution import Distribution
from interpreter.errors import RulecraftError
from interpreter.expr.sampled import Context, compile_sampler
from interpreter.expr.exact import exact
from interpreter.lang.parse import parse_expression
from interpreter.game.api import load_ruleset
from interpreter.game.simulate import wilson

from outcomes import outcome

HERE = Path(__file__).parent

# expression, the value it has (or the start of the error it raises)
VALUE_MODEL = [
    ("7 / 2", "7/2"),
    ("6 / 3", 2),
    ("(7 / 2) * 2", 7),
    ("true + true", 2),               # true and false count as 1 and 0
    ("true == 1", True),
    ('"a" + "b"', "ab"),              # text joins with +
    ('"3" == 3', False),              # different kinds are never equal
    ("[1] + [2]", [1, 2]),
    ('["Spear"] * 2', ["Spear", "Spear"]),   # a list times a whole number repeats it
    ('"ab" * 3', "error: cannot apply '*' to the text 'ab' and the number 3"),
    ('"3" / 1', "error: cannot apply '/' to the text '3' and the number 1"),
    ('"a" < 3', "error: cannot apply '<' to the text 'a' and the number 3"),
    ('"a" + 1', "error: cannot apply '+' to the text 'a' and the number 1"),
    ("[1] * (1 / 2)", "error: cannot apply '*' to a list and the number 1/2"),
    ("1 / 0", "error: division by zero"),
    # structured values: ranges count from 1 like lists, records, changed copies
    ("range(3)", [1, 2, 3]),
    ("range(4, 2)", [4, 3, 2]),       # counting down, as a map is printed top row first
    ("range(0)", []),
    ('join(range(3), "-")', "1-2-3"),
    ("{armour: 10, structure: 5}.structure", 5),
    ('{"Fire Pump": 2}["Fire Pump"]', 2),
    ("updated({armour: 10, structure: 5}, {armour: 6})", {"armour": 6, "structure": 5}),
    ("append([1], {a: 2})", [1, {"a": 2}]),
    ('remove_one(["Fire Pump", "Gears", "Fire Pump"], "Fire Pump")', ["Gears", "Fire Pump"]),
    ("updated({armour: 1}, {armor: 2})",
     "error: updated(): the record has no field 'armor'; did you mean 'armour'?"),
    ("remove_one([1], 2)", "error: remove_one(): the list holds no 2 to remove"),
    ("range(1, 20000)", "error: range(): a range may hold at most 10000 numbers"),
    ("{a: 1}.b", "error: a record has no field 'b'"),
    (r'"say \"hi\""', 'say "hi"'),     # escapes in text: a quote, a backslash, a new line
    (r'"C:\\" + "maps"', "C:\\maps"),
    (r'"one\ntwo" == "one" + "\n" + "two"', True),
    ("3d1>=(1 + 1)", 0),              # a computed target counts the dice reaching it
    ("(2)d1>=(1)", 2),
    ("2d1>(0)", 2),
    ("2d6>=(max(1 / 2, 0))", "error: a dice target must be a whole number, got 1/2"),
    ("{2d1, 3d1, 4d1}>=(1 + 2)", 2),  # a grouped roll's computed target counts sub-rolls
    ("{2d1, 3d1, 4d1}kh1>=(4)f<=3", 1),
    ("{3d1 + 2d1}>=(1)", 5),          # a group of one counts its dice
    ("{2d1, 3d1}>=(max(2, 0))f<=3",
     "error: a total of 2 would be both a success and a failure (the target is 2)"),
    ("{2d1, 3d1}>=(max(1 / 2, 0))", "error: a dice target must be a whole number, got 1/2"),
    ("7 % 3", 1),                     # % is the remainder of floored division
    ("-7 % 3", 2),                    # its sign is the divisor's (math.js, Python)
    ("7 % -3", -2),
    ("7 / 2 % 1", "1/2"),
    ("true % 2", 1),
    ("5 % 0", "error: division by zero"),
    ('"%d" % 3', "error: cannot apply '%' to the text '%d' and the number 3"),
    ("2 ** 3 ** 2", 512),             # ** groups to the right
    ("-2 ** 2", -4),                  # and binds tighter than a sign
    ("(-2) ** 2", 4),
    ("2 ** -2", "1/4"),
    ("(1 / 2) ** 2", "1/4"),
    ("2 ** 65", "error: '**': the exponent must be a whole number from -64 to 64"),
    ("2 ** (1 / 2)", "error: '**': the exponent must be a whole number from -64 to 64"),
    ('"a" ** 2', "error: cannot apply '**' to the text 'a' and the number 2"),
]


def _shown(value):
    if isinstance(value, tuple):
        return [_shown(v) for v in value]
    if type(value).__name__ == "Fraction":
        return f"{value.numerator}/{value.denominator}"
    return value


def sampled(text):
    try:
        return _shown(compile_sampler(parse_expression(text), False)(Context({}, random.Random(1))))
    except RulecraftError as err:
        return f"error: {err.message}"


def exactly(text):
    try:
        dist = exact(parse_expression(text), {})
    except RulecraftError as err:
        return f"error: {err.message}"
    assert len(dist) == 1
    return _shown(dist.items()[0][0])


@pytest.fixture(scope="module")
def compiled_rules(tmp_path_factory):
    """Each expression as the value a procedure returns, run by the compiled steps."""
    lines = ["ruleset: values", "title: the value model", "procedures:"]
    for i, (text, _) in enumerate(VALUE_MODEL):
        quoted = text.replace("'", "''")
        lines += [f"  p{i}:", "    steps:", f"      - 'return {quoted}'"]
    path = tmp_path_factory.mktemp("values") / "values.yaml"
    path.write_text("\n".join(lines) + "\n")
    return load_ruleset(path)


def compiled(rules, i):
    try:
        return _shown(rules.sampler(f"p{i}", {})(random.Random(1)))
    except RulecraftError as err:
        return f"error: {err.message}"


@pytest.mark.parametrize("i,text,expected", [(i, t, e) for i, (t, e) in enumerate(VALUE_MODEL)])
def test_value_model_is_the_same_on_every_path(compiled_rules, i, text, expected):
    assert (sampled(text), exactly(text), compiled(compiled_rules, i)) == (expected,) * 3


ONE_MEANING = HERE / "rulesets" / "one_meaning.yaml"


# procedure, what a sampled run and exact odds both give
STATEMENTS = [
    ("modtext", ("error", "cannot apply '+' to the number 3 and the text 'x'", 18, 21)),
    ("emitcall", ("value", 2)),   # the emitted call runs, exactly too
    ("emitdiv", ("error", "division by zero", 28, 15)),
    ("retcall", ("value", 1)),    # returning a procedure's result, exactly too
    ("rowstatus", ("value", 2)),  # a table row as status data survives exact branching
    ("structured", ("value", "3,4,7,4")),   # record literal, item assignment, append
    # actions and procedures called through a local name: the call reads that local
    ("aliased", ("value", "true,2")),
    # `let x = if c then p(...) else ...`: the chosen call changes the game, exactly too
    ("chosen_call", ("value", "1,1,1")),
    # `let x = action(...)`: a built-in that changes the game, its result bound, exactly too
    ("bound_action", ("value", "true,true,true")),
    # `pair[1].hits += 4`: a unit named by an item of a local list changes (3 + 4 - 1, x2)
    ("unit_in_a_list", ("value", "12,12,1,5,5")),
]


@pytest.mark.parametrize("procedure,expected", STATEMENTS)
def test_statements_mean_the_same_sampled_and_exactly(procedure, expected):
    rules = load_ruleset(ONE_MEANING)
    ran = outcome(lambda: rules.run(procedure, {}, 1).result)

    def odds():
        dist: Distribution = rules.run_odds(procedure, {}).outcomes
        assert len(dist) == 1
        return dist.items()[0][0]
    assert ran == expected
    assert outcome(lambda: rules.sampler(procedure, {})(random.Random(1))) == expected
    assert outcome(odds) == expected


@pytest.mark.parametrize("procedure,shown", [
    ("true_or_one", {"true", "1"}),                # the result
    ("truth_in_a_local", {"true", "1"}),           # a local, read at the end
    ("truth_in_a_list", {"[true, 1]", "[1, 1]"}),  # inside a list
])
def test_true_and_one_stay_apart_in_exact_odds(procedure, shown):
    """`true == 1` holds in the language (and in Python, which also hashes them alike),
    but they are different values: states holding one or the other must not merge
    (they did: both procedures gave `true` with probability 1)."""
    rules = load_ruleset(ONE_MEANING)
    dist = rules.run_odds(procedure, {}).outcomes
    got = {text_of(value): dist.probability(value) for value, _ in dist.items()}
    assert got == {text: Fraction(1, 2) for text in shown}
    sampled = {text_of(rules.run(procedure, {}, seed).result) for seed in range(1, 40)}
    assert sampled == shown


def text_of(value):
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(text_of(v) for v in value) + "]"
    return "true" if value is True else str(value)


STATE_RECORD = """\
ruleset: state_record
title: a field set inside a state record from --with
kinds:
  wizard:
    stats: {level: 2}
    state:
      spells: {fireball: 0, shield: 1}
      mana: =level * 10
procedures:
  count:
    params:
      caster: {type: unit, kind: wizard}
    steps:
      - return [caster.spells.fireball, caster.spells.shield, caster.mana]
"""


@pytest.mark.parametrize("inputs,expected", [
    ({}, [0, 1, 20]),
    ({"caster.spells.fireball": "2"}, [2, 1, 20]),      # was silently reset to 0
    ({"caster.level": "3"}, [0, 1, 30]),                 # a state formula sees the stat
    ({"caster.mana": "5"}, [0, 1, 5]),
])
def test_with_sets_fields_inside_a_kinds_state(tmp_path, inputs, expected):
    path = tmp_path / "state_record.yaml"
    path.write_text(STATE_RECORD)
    rules = load_ruleset(path)
    assert list(rules.run("count", inputs, 1).result) == expected


STARTING_DICE = """\
ruleset: starting_dice
title: a starting state that rolls dice, rolled once per unit as it is made
kinds:
  soldier:
    stats: {level: 1}
    state:
      morale: "=d6"
      wounds: "=morale * 2"      # reads the rolled value
procedures:
  grit:
    params:
      who: {type: unit, kind: soldier}
    steps:
      - return who.morale + who.wounds
  steady:
    params:
      unit: {type: unit, kind: soldier}
    steps:
      - unit.morale -= 1
      - if: unit.morale <= 0
        then: ["destroy(unit)"]
turn:
  max_turns: 3
  phases:
    - name: rally
      each: unit
      steps: ["steady(unit)"]
  victory:
    - when: count_alive(side) > 0 and count(enemies(side)) == 0
      winner: side
scenarios:
  default:
    sides:
      a: {units: [{kind: soldier, name: A1}]}
      b: {units: [{kind: soldier, name: B1, count: 2}]}
"""


@pytest.fixture(scope="module")
def starting_dice(tmp_path_factory):
    path = tmp_path_factory.mktemp("starting") / "starting_dice.yaml"
    path.write_text(STARTING_DICE, encoding="utf-8")
    return load_ruleset(path)


def test_a_rolled_starting_value_has_exact_odds_over_its_faces(starting_dice):
    # morale is d6 and wounds twice it: grit is 3 x d6, each of 3, 6, ..., 18 one in six
    dist = starting_dice.run_odds("grit", {}).outcomes
    assert dict(dist.items()) == {3 * face: 1 for face in range(1, 7)}


@pytest.mark.parametrize("seed", range(1, 13))
def test_a_rolled_starting_value_is_rolled_once_and_shown(starting_dice, seed):
    run = starting_dice.run("grit", {}, seed)
    start = [e for e in run.events if e["event"] == "start"]
    assert [e["field"] for e in start] == ["morale"]
    assert run.result == 3 * start[0]["value"]
    assert start[0]["rolls"][0]["dice"][0]["faces"] == [start[0]["value"]]


@pytest.mark.parametrize("seed", range(1, 9))
def test_a_rolled_starting_value_is_the_same_in_a_told_and_a_compiled_game(starting_dice, seed):
    told = starting_dice.play(None, seed)
    fast = starting_dice.play(None, seed, record=False)
    assert (told.winner, told.turns, told.survivors) == (fast.winner, fast.turns, fast.survivors)
    assert len([e for e in told.events if e["event"] == "start"]) == 3   # one per unit


def test_a_rolled_starting_value_given_with_with_is_not_rolled(starting_dice):
    assert starting_dice.run_odds("grit", {"who.morale": "4"}).outcomes.items() == [(12, 1)]


# ------------------------------------------- whole games: played, compiled, enumerated

INTERRUPTS = HERE / "rulesets" / "interrupts.yaml"
GAME_CASES = [(INTERRUPTS, s) for s in ("exchange", "volley", "run_past")] + \
    [(HERE / "rulesets" / "reactions.yaml", s) for s in ("default", "duel", "volley")]


@pytest.mark.parametrize("path,scenario", GAME_CASES)
def test_reactions_defer_and_simultaneous_mean_the_same_played_and_enumerated(path, scenario):
    """Every game `play` plays (told and compiled) ends as one of the ends odds-game
    enumerates: the same turn loop (game/turns.py) under both drivers."""
    rules = load_ruleset(path)
    odds = rules.odds_game(scenario)
    ends = {(w, t) for w in odds.winner.values() for t in odds.turns.values()}
    for seed in range(12):
        told, fast = rules.play(scenario, seed), rules.play(scenario, seed, record=False)
        assert (told.winner, told.turns, told.survivors) == (fast.winner, fast.turns, fast.survivors)
        assert (told.winner or "no winner", told.turns) in ends, seed
        for side, alive in told.survivors.items():
            assert odds.survivors[side].probability(alive) > 0, (seed, side)


# whole games whose meaning lives outside procedure steps: initiative rolled with the
# roller bound (per side with a side's modifier, per unit with the unit's, the winner
# choosing), and stat formulas rolled as a unit is made.  Exact odds-game, compiled play
# and told play are one game: the told and compiled game of a seed end alike, and the
# sampled frequency of a result lies inside its interval around the exact probability.
GAMES = [
    ("initiative.yaml", "default", "red"),
    ("initiative.yaml", "winner_goes_last", "red"),
    ("initiative.yaml", "three", "red"),
    ("stat_formulas.yaml", "default", "blue"),
    ("destroyed.yaml", "default", "red"),   # a destroyed jug's hook rolls to take one along
    ("destroyed.yaml", "volley", "red"),    # ... when a simultaneous phase ends
]


@pytest.mark.parametrize("ruleset,scenario,side", GAMES)
def test_games_mean_the_same_exactly_compiled_and_told(ruleset, scenario, side):
    rules = load_ruleset(HERE / "rulesets" / ruleset)
    exact_p = float(rules.odds_game(scenario).winner.probability(side))
    for seed in range(1, 6):
        assert rules.play(scenario, seed).winner == rules.play(scenario, seed, record=False).winner
    runs = 600
    wins = sum(rules.play(scenario, seed, record=False).winner == side for seed in range(runs))
    low, high = wilson(wins, runs, 3.3)
    assert low <= exact_p <= high, (wins, exact_p)


# ------------------------------------------- a unit's destruction and its hooks

DESTROYED = HERE / "rulesets" / "destroyed.yaml"


@pytest.mark.parametrize("scenario,expected", [
    # Red fires first (1/2), its hit takes Red along on 5-6 (1/3); then Blue (1/2) likewise:
    # red wins 1/2 * 2/3; blue 1/2 * 1/2 * 2/3; both gone 1/2 * 1/3 + 1/4 * 1/3 (a draw), and
    # both standing after the one turn 1/4 (no winner: a draw too)
    ("default", {"red": Fraction(1, 3), "blue": Fraction(1, 6), "no winner": Fraction(1, 2)}),
    # both shots rolled, the jugs hit destroyed at the phase's end, then their hooks: only a
    # jug destroyed alone (1/4 each way) takes the other along (1/3)
    ("volley", {"red": Fraction(1, 6), "blue": Fraction(1, 6), "no winner": Fraction(2, 3)}),
])
def test_on_destroyed_hooks_in_a_game_have_odds_derived_by_hand(scenario, expected):
    winner = load_ruleset(DESTROYED).odds_game(scenario).winner
    assert {w or "no winner": winner.probability(w) for w in winner.values()} == expected


# the kind's hook (wrecks 1, what it left), then the status's (4-6 on a D6: wrecks + 10)
SMASHED = {"1,a wreck off the map and a fire,true": Fraction(1, 2),
           "11,a wreck off the map and a fire,true": Fraction(1, 2)}


def test_on_destroyed_hooks_of_a_call_mean_the_same_sampled_compiled_and_exactly():
    rules = load_ruleset(DESTROYED)
    dist = rules.run_odds("smash", {}).outcomes
    assert {v: Fraction(w, dist.total) for v, w in dist.items()} == SMASHED
    told = {rules.run("smash", {}, seed).result for seed in range(1, 30)}
    assert told == set(SMASHED)
    sample = rules.sampler("smash", {})
    runs = 600
    big = sum(sample(random.Random(seed)).startswith("11,") for seed in range(runs))
    low, high = wilson(big, runs, 3.3)
    assert low <= 0.5 <= high, big
