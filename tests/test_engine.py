"""The engine: procedures (sampled and exact), games, simulation, and run-time errors."""
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.game.simulate import simulate
from interpreter.errors import RulecraftError, UsageError
from interpreter.game.api import load_ruleset

HERE = Path(__file__).parent
DUEL = HERE / "rulesets" / "duel.yaml"
GOLDEN = HERE / "golden"


@pytest.fixture(scope="module")
def duel():
    return load_ruleset(DUEL)


# need = to-hit 7 + cover (3) + weapon (damage - 1): with damage 3, need 9, so 9 and 10 hit (1/5)
# and d10 + 3 >= 5 kills on 2..10 (9/10). A natural 1 misses, a natural 10 hits;
# damage d10 + damage >= armour 5 (or a natural 10) kills, otherwise the target is shaken.
ATTACK_ODDS = [
    ({}, {"miss": Fraction(1, 2), "kill": Fraction(3, 10), "hit": Fraction(1, 5)}),
    ({"cover": "true"}, {"miss": Fraction(4, 5), "kill": Fraction(3, 25), "hit": Fraction(2, 25)}),
    ({"attacker.damage": "3"}, {"miss": Fraction(4, 5), "kill": Fraction(9, 50), "hit": Fraction(1, 50)}),
    ({"attacker.to_hit": "12"}, {"miss": Fraction(9, 10), "kill": Fraction(3, 50), "hit": Fraction(1, 25)}),
]


@pytest.mark.parametrize("inputs,expected", ATTACK_ODDS)
def test_attack_odds_match_hand_computed_fractions(duel, inputs, expected):
    outcomes = duel.run_odds("attack", inputs).outcomes
    assert {v: outcomes.probability(v) for v, _ in outcomes.items()} == expected


def test_tracked_field_has_its_own_distribution(duel):
    result = duel.run_odds("attack", {}, track=["target.destroyed"])
    assert result.tracked["target.destroyed"].probability(True) == Fraction(3, 10)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sampled_outcomes_are_possible_outcomes(duel, seed):
    assert duel.run("attack", {}, seed).result in {"miss", "hit", "kill"}


def test_sampled_frequencies_converge_on_exact_odds(duel):
    import random
    run = duel.sampler("attack", {})
    rng = random.Random(5)
    n = 20000
    kills = sum(run(rng) == "kill" for _ in range(n))
    assert abs(kills / n - 0.3) < 0.015


def test_modifier_breakdown_is_in_the_transcript(duel):
    events = duel.run("attack", {"cover": "true"}, 3).events
    modify = [e for e in events if e["event"] == "modify"][0]
    assert modify["text"] == "need: to-hit 7 +3 cover −1 weapon = 9"


@pytest.mark.parametrize("inputs,message", [
    ({"nope": "1"}, "has no parameter 'nope'"),
    ({"cover": "maybe"}, None),
])
def test_bad_inputs_are_usage_errors(duel, inputs, message):
    if message is None:  # text where a boolean is expected fails when the rule uses it
        with pytest.raises(RulecraftError):
            duel.run("attack", inputs, 1)
        return
    with pytest.raises(UsageError) as info:
        duel.run("attack", inputs, 1)
    assert message in info.value.message


def test_same_seed_same_transcript(duel):
    a = duel.play(None, 11).events
    b = duel.play(None, 11).events
    assert a == b


def test_play_golden_transcript():
    out = subprocess.run([sys.executable, "-m", "interpreter", "play", str(DUEL), "--seed", "7", "--json"],
                         capture_output=True, text=True, cwd=HERE.parent)
    assert out.returncode == 0
    golden = GOLDEN / "duel_play_seed7.jsonl"
    assert out.stdout == golden.read_text(encoding="utf-8")
    assert json.loads(out.stdout.splitlines()[-1])["event"] == "result"


def test_simulation_is_the_same_whatever_the_workers(duel):
    one = simulate(duel, None, 40, seed=3, workers=1).as_json()
    two = simulate(duel, None, 40, seed=3, workers=2).as_json()
    assert one == two
    assert sum(r["wins"] for r in one["results"].values()) == 40


@pytest.mark.parametrize("procedure,inputs,words,line", [
    ("divide", {}, "division by zero", 11),
    ("endless", {}, "without its 'until' becoming true", 21),
])
def test_runtime_error_points_at_the_rule(procedure, inputs, words, line):
    rules = load_ruleset(HERE / "rulesets" / "errors.yaml")
    with pytest.raises(RulecraftError) as info:
        rules.run(procedure, inputs, 1)
    assert words in info.value.message
    assert info.value.location.line == line
    assert info.value.location.file.endswith("errors.yaml")


def test_runtime_error_in_a_game_names_turn_and_phase():
    rules = load_ruleset(HERE / "rulesets" / "errors.yaml")
    with pytest.raises(RulecraftError) as info:
        rules.play(None, 1)
    assert "(turn 1, phase shooting)" in info.value.message
    assert info.value.location.line == 30


def test_repeat_stopped_at_its_max_is_reported_in_exact_mode():
    rules = load_ruleset(HERE / "rulesets" / "errors.yaml")
    result = rules.run_odds("loop", {})
    assert result.capped == 1


def test_cli_run_odds_json_is_like_odds():
    out = subprocess.run([sys.executable, "-m", "interpreter", "run", str(DUEL), "attack", "--odds", "--json"],
                         capture_output=True, text=True, cwd=HERE.parent)
    data = json.loads(out.stdout)
    assert {o["value"]: o["probability"] for o in data["outcomes"]} == {"hit": "1/5", "kill": "3/10", "miss": "1/2"}


def test_cli_missing_required_value_is_a_usage_error(tmp_path):
    rules = tmp_path / "r.yaml"
    rules.write_text("ruleset: r\ntitle: r\nprocedures:\n  p:\n    params:\n      n: {type: integer}\n"
                     "    steps: ['return n']\n")
    out = subprocess.run([sys.executable, "-m", "interpreter", "run", str(rules), "p"],
                         capture_output=True, text=True, cwd=HERE.parent)
    assert out.returncode == 2
    assert "needs a value for 'n'" in out.stderr


def test_exact_mode_sees_state_changed_by_earlier_steps():
    rules = load_ruleset(HERE / "rulesets" / "state.yaml")
    outcomes = rules.run_odds("hit", {}).outcomes
    assert outcomes.probability("damaged") == Fraction(1, 2)


def test_procedure_called_inside_an_expression_is_enumerated():
    rules = load_ruleset(HERE / "rulesets" / "state.yaml")
    assert rules.run_odds("shot", {}).outcomes.probability("hit") == Fraction(1, 3)
    assert rules.run_odds("shot", {"cover": "false"}).outcomes.probability("hit") == Fraction(5, 6)


@pytest.fixture(scope="module")
def effects():
    return load_ruleset(HERE / "rulesets" / "effects.yaml")


def test_row_effect_steps_run_in_the_procedure(effects):
    result = effects.run_odds("hit", {}, track=["target.hits", "target.destroyed"])
    assert result.outcomes.probability("shaken") == Fraction(1, 2)
    assert result.tracked["target.hits"].probability(2) == Fraction(1, 3)
    assert result.tracked["target.destroyed"].probability(True) == Fraction(1, 6)


def test_status_from_next_turn_has_no_effect_yet(effects):
    assert effects.run("shaken_check", {}, 1).result == "not yet"
    assert effects.run_odds("shaken_check", {}).outcomes.probability("not yet") == 1


@pytest.mark.parametrize("text,value", [("side", 10), ("front", 12), ('"rear"', 10)])
def test_with_bare_word_is_text(effects, text, value):
    assert effects.run("arc_armour", {"arc": text}, 1).result == value


def test_turn_is_visible_inside_procedures(effects):
    assert effects.run("which_turn", {}, 1).result == 0


def test_simulate_tracks_values_at_the_end_of_games(duel):
    one = simulate(duel, None, 30, seed=5, workers=1, track=["count(red.units)", "turn"]).as_json()
    two = simulate(duel, None, 30, seed=5, workers=2, track=["count(red.units)", "turn"]).as_json()
    assert one == two
    counts = one["tracked"]["count(red.units)"]["counts"]
    assert sum(c["count"] for c in counts) == 30
    assert {c["value"] for c in counts} <= {0, 1, 2}
    assert one["tracked"]["turn"]["mean"] == one["turns"]["mean"]


CALL_DICE = """\
ruleset: calls
title: calls
kinds:
  tank:
    stats: {armour: 3}
statuses:
  burning: {}
procedures:
  hurt:
    params: {hits: integer}
    steps:
      - return hits
  attack:
    params: {target: {type: unit, kind: tank}}
    steps:
      - STEP
      - return 1
"""


@pytest.mark.parametrize("step,first", [
    ('apply(target, "burning", turns=d6)', "status"),   # a keyword argument of an action
    ('apply(target, "burning", d6)', "status"),         # a positional one
    ("hurt(hits=2d10)", "call"),                        # a keyword argument of a procedure
])
def test_a_call_statement_shows_its_argument_dice_before_its_first_line(tmp_path, step, first):
    path = tmp_path / "calls.yaml"
    path.write_text(CALL_DICE.replace("STEP", step), encoding="utf-8")
    events = load_ruleset(path).run("attack", seed=3).events
    kinds = [e["event"] for e in events]
    at = kinds.index("rolls")
    assert kinds[at + 1] == first
    faces = [f for r in events[at]["rolls"] for d in r["dice"] for f in d["faces"]]
    shown = events[at + 1].get("turns") or events[at + 2]["value"]   # the status or the return
    assert sum(faces) == shown
    assert events[at]["text"].startswith("rolls: ") and str(faces[0]) in events[at]["text"]
