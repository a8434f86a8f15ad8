"""A computed target in dice notation (issue #13): `(n)d6>=(t)` counts the dice that
reach t, as the literal `3d6>=5` does; spaced, `3d6 >= (t)` still compares the total.
Exact odds against the literal term and against enumeration, sampled and compiled runs
against the exact odds, printing back, located errors and validate's finding
(tests/rulesets/dice_targets.yaml)."""
import itertools
import random
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.errors import DSLSyntaxError, EvalError, LimitError
from interpreter.expr.exact import exact
from interpreter.expr.sampled import Context, compile_sampler
from interpreter.game.api import check_ruleset, load_ruleset
from interpreter.lang.parse import parse_expression

HERE = Path(__file__).parent
RULES = HERE / "rulesets" / "dice_targets.yaml"


def odds(text, env=None):
    return exact(parse_expression(text), env or {})


# computed, its values, the literal term it means with those values
@pytest.mark.parametrize("computed,env,literal", [
    ("(n)d6>=(t)", {"n": 3, "t": 5}, "3d6>=5"),
    ("6d6>=(t)", {"t": 4}, "6d6>=4"),
    ("d6>=(t)", {"t": 6}, "d6>=6"),
    ("6d6>=(t)f1", {"t": 4}, "6d6>=4f1"),
    ("(n)d10kh2>=(t)f<=2", {"n": 3, "t": 8}, "3d10kh2>=8f<=2"),
    ("2d(s)>=(t)", {"s": 8, "t": 7}, "2d8>=7"),
    ("(n)d(s)>=(t)", {"n": 2, "s": 10, "t": 9}, "2d10>=9"),
    ("3d6>(t)", {"t": 4}, "3d6>=4"),          # a bare '>' includes the number, as 3d6>4
    ("3d6<(t)", {"t": 2}, "3d6<=2"),
    ("2d6=(t)", {"t": 6}, "2d6=6"),
    ("4d6>=(t - 1)", {"t": 6}, "4d6>=5"),
    ("3d6>=(t)", {"t": -2}, "3d6>=-2"),
    ("3d6!10>=(t)", {"t": 5}, "3d6!10>=5"),   # d6 never explodes on 10: plain 3d6>=5
    # a grouped roll: the sub-rolls' totals reaching t are counted
    ("{2d6, 3d6}>=(t)", {"t": 8}, "{2d6, 3d6}>=8"),
    ("{2d6, 3d6, 4d6}kh2>=(t)f<=4", {"t": 12}, "{2d6, 3d6, 4d6}kh2>=12f<=4"),
    ("{2d6, 3d6}>(t)", {"t": 7}, "{2d6, 3d6}>=7"),
    ("{2d6, 3d6}<(t)", {"t": 5}, "{2d6, 3d6}<=5"),
    ("{d20, d20}kl1=(t)", {"t": 1}, "{d20, d20}kl1=1"),
    ("{4d6 + 3d8}>=(t)", {"t": 5}, "{4d6 + 3d8}>=5"),    # a group of one counts its dice
    ("{2d6, 3d6}>=(t + 1)", {"t": 7}, "{2d6, 3d6}>=8"),
])
def test_a_computed_target_means_the_literal_target_it_takes(computed, env, literal):
    assert odds(computed, env) == odds(literal)


def test_a_rolled_target_is_the_mixture_over_its_faces():
    # d6>=(d6): the die reaches a target rolled on another d6 in 21 of 36 cases
    dist = odds("d6>=(d6)")
    assert {v: Fraction(w, dist.total) for v, w in dist.items()} == \
        {0: Fraction(15, 36), 1: Fraction(21, 36)}
    # (d2)d4>=(d4), enumerated
    weights = {}
    for count, target in itertools.product([1, 2], [1, 2, 3, 4]):
        for roll in itertools.product(range(1, 5), repeat=count):
            v = sum(f >= target for f in roll)
            weights[v] = weights.get(v, 0) + Fraction(1, 8 * 4 ** count)
    got = odds("(d2)d4>=(d4)")
    assert {v: Fraction(w, got.total) for v, w in got.items()} == weights


def test_a_rolled_group_target_is_the_mixture_over_its_faces():
    # {d4, d4}>=(d4), enumerated: each die reaching the target counts one
    weights = {}
    for a, b, target in itertools.product(range(1, 5), repeat=3):
        v = (a >= target) + (b >= target)
        weights[v] = weights.get(v, 0) + Fraction(1, 64)
    got = odds("{d4, d4}>=(d4)")
    assert {v: Fraction(w, got.total) for v, w in got.items()} == weights


def test_spaces_make_a_comparison_of_the_total():
    assert odds("3d6 >= (t)", {"t": 4}) == odds("3d6 >= 4")
    assert odds("(n)d6 >= (t)", {"n": 3, "t": 4}) == odds("3d6 >= 4")
    assert odds("3d6>=(t)", {"t": 4}) == odds("3d6>=4")


@pytest.mark.parametrize("text,canonical", [
    ("(n)d6>=(t)", "(n)d6>=(t)"),
    ("6d6>=(weapons[w].first)", "6d6>=(weapons[w].first)"),
    ("(n)d6>(t+1)f1", "(n)d6>=(t + 1)f1"),
    ("2d(s)kh1>=(t)[fire]", "2d(s)kh1>=(t)[fire]"),
    ("1d6=(t)", "d6=(t)"),
    ("{2d6,3d6}>=(t)", "{2d6, 3d6}>=(t)"),
    ("{2d6,3d6,4d6}kh2>(t+1)f<=4", "{2d6, 3d6, 4d6}kh2>=(t + 1)f<=4"),
    ("{4d6+3d8}>=(t)", "{4d6 + 3d8}>=(t)"),
])
def test_a_computed_target_prints_back_as_it_parses(text, canonical):
    tree = parse_expression(text)
    assert str(tree) == canonical
    assert parse_expression(canonical) == tree


@pytest.mark.parametrize("text,env,error,message", [
    ("3d6>=(t)", {"t": Fraction(1, 2)}, EvalError, "a dice target must be a whole number, got 1/2"),
    ("3d6>=(t)", {"t": "a"}, EvalError, "a dice target must be a whole number, got 'a'"),
    ("3d6>=(t)", {"t": True}, EvalError, "a dice target must be a whole number, got true"),
    ("3d6>=(t)", {"t": 10 ** 7}, LimitError, "a dice target of 10,000,000 is beyond the limit"),
    ("3d6>=(t)f1", {"t": 1}, EvalError, "a die showing 1 would be both a success and a failure"),
    ("{2d6, 3d6}>=(t)", {"t": Fraction(1, 2)}, EvalError,
     "a dice target must be a whole number, got 1/2"),
    ("{2d6, 3d6}>=(t)", {"t": 10 ** 7}, LimitError, "a dice target of 10,000,000 is beyond"),
    ("{2d6, 3d6}>=(t)f<=4", {"t": 3}, EvalError,
     "a total of 3 would be both a success and a failure (the target is 3)"),
])
def test_a_value_that_cannot_be_a_target_is_a_located_error(text, env, error, message):
    for run in (lambda: odds(text, env),
                lambda: compile_sampler(parse_expression(text), False)(
                    Context(env, random.Random(1)))):
        with pytest.raises(error) as caught:
            run()
        assert message in caught.value.message
        assert caught.value.location.column == 1


@pytest.mark.parametrize("text,message", [
    ("5d10!>=(t)", "a comparison straight after '!' says what it acts on"),
    ("d6r>=(t)", "a comparison straight after 'r' says what it acts on"),
    ("d6!=(t)", "a comparison straight after '!'"),         # explode on: d6 != (t) compares
    ("(n)2d6>=(t)", "the dice count is given twice"),
    ("3d6>=(t)>=5", "only one target per dice term"),
    ("{2d6, 3d6}>=(t)>=5", "only one"),
    ("{2d6, 3d6, 4d6}kh4>=(t)", "cannot keep 4 of 3 sub-rolls"),
    ("{2d6 + 1}>=(t)", "a number in a group of one with a target counts nothing"),
])
def test_a_target_the_notation_cannot_read_is_refused_when_read(text, message):
    with pytest.raises((DSLSyntaxError, LimitError)) as caught:
        parse_expression(text)
    assert message in caught.value.message


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(RULES)


@pytest.mark.parametrize("procedure,inputs,literal", [
    ("volley", {}, "3d6>=4"),
    ("volley", {"weapon": "spear", "shooters": "5"}, "5d6>=6"),
    ("melee", {"men": "4"}, "4d6>=5f1"),
    ("squads", {}, "{2d6, 3d6, 2d6}kh2>=8f<=4"),
    ("squads", {"weapon": "spear"}, "{2d6, 3d6, 2d6}kh2>=10f<=4"),
])
def test_a_rule_rolls_its_tables_number_sampled_exact_and_compiled(rules, procedure, inputs,
                                                                   literal):
    """The jungle volley: exact odds are the literal term's; every sampled and compiled
    result is one of its values, and the compiled mean is near the exact mean."""
    dist = rules.run_odds(procedure, inputs).outcomes
    assert dist == odds(literal)
    ran = {rules.run(procedure, inputs, seed).result for seed in range(30)}
    assert ran <= set(dist.values())
    fast = rules.sampler(procedure, inputs)
    rng = random.Random(5)
    values = [fast(rng) for _ in range(3000)]
    assert set(values) <= set(dist.values())
    assert abs(sum(values) / 3000 - float(dist.mean())) < 5 * dist.stdev() / 3000 ** 0.5


def test_the_transcript_shows_the_term_with_the_targets_value(rules):
    texts = [e["text"] for e in rules.run("volley", {}, 2).events]
    assert any("(weapons[rifle]; 3d6>=4 [" in t for t in texts)


def test_validate_finds_a_constant_target_that_is_no_whole_number():
    first = check_ruleset(HERE / "broken" / "semantic" / "dice_target.yaml")[0]
    assert (first.code, first.location.line, first.location.column) == ("dice-value", 8, 16)
    assert first.message == "a dice target must be a whole number, got 7/2"


def test_validate_warns_on_a_bare_comparison_before_a_computed_target(tmp_path):
    path = tmp_path / "bare.yaml"
    path.write_text("ruleset: bare\ntitle: t\nprocedures:\n  p:\n    params: {t: integer}\n"
                    "    steps: ['return 3d6>(t)']\n")
    found = check_ruleset(path)
    assert [(f.code, f.severity) for f in found] == [("dice-convention", "warning")]
    assert "includes the number" in found[0].message
