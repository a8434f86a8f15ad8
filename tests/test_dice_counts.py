"""Dice whose count or sides are computed (issue #22's `(4-2)d10`, issue #13's `(n)d6`,
`(d6)d6`, `(unit.rifles)d6`): exact odds as the mixture over the values, checked against
brute-force enumeration; sampled rolls against the exact odds; errors located."""
import itertools
import math
import random
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.dice.distribution import Distribution
from interpreter.errors import EvalError, LimitError, RulecraftError
from interpreter.expr.exact import exact
from interpreter.expr.sampled import Context, compile_sampler
from interpreter.game.api import load_ruleset
from interpreter.lang.parse import parse_expression

HERE = Path(__file__).parent


def odds(text, env=None):
    return exact(parse_expression(text), env or {})


def pools(count_faces, sides_faces, score):
    """Oracle: for each count and sides, every roll of that many dice, scored."""
    weights = {}
    for count, sides in itertools.product(count_faces, sides_faces):
        rolls = list(itertools.product(range(1, sides + 1), repeat=count))
        share = Fraction(1, len(count_faces) * len(sides_faces) * len(rolls))
        for roll in rolls:
            v = score(list(roll))
            weights[v] = weights.get(v, 0) + share
    scale = math.lcm(*(w.denominator for w in weights.values()))
    return Distribution.from_weights({v: int(w * scale) for v, w in weights.items()})


def top(k):
    return lambda roll: sum(sorted(roll, reverse=True)[:k])


# expression, env, counts, sides, what the dice make (the oracle's meaning)
CASES = [
    ("(4-2)d10", {}, [2], [10], sum),
    ("(n)d6", {"n": 3}, [3], [6], sum),
    ("(d3)d6", {}, [1, 2, 3], [6], sum),
    ("(d4)d6kh2", {}, [1, 2, 3, 4], [6], top(2)),      # keep 2 of fewer keeps them all
    ("(d3)d6>=5", {}, [1, 2, 3], [6], lambda r: sum(f >= 5 for f in r)),
    ("2d(d3 * 2)", {}, [2], [2, 4, 6], sum),
    ("(d3)d(d3)", {}, [1, 2, 3], [1, 2, 3], sum),
    ("(n - 1)d4", {"n": 1}, [0], [4], sum),            # no dice: 0
    ("d(n)", {"n": 8}, [1], [8], sum),
    ("(d2)d6!", {}, None, None, None),                 # checked against the spellings below
]


@pytest.mark.parametrize("text,env,counts,sides,score", [c for c in CASES if c[2]])
def test_computed_dice_are_the_mixture_of_their_dice_terms(text, env, counts, sides, score):
    assert odds(text, env) == pools(counts, sides, score)


@pytest.mark.parametrize("computed,written", [
    ("(d2)d6!", "if d2 == 1 then 1d6! else 2d6!"),
    ("(d2)d6!!>=5", "if d2 == 1 then 1d6!!>=5 else 2d6!!>=5"),
    ("(d2 + 1)d20kl1", "if d2 == 1 then 2d20kl1 else 3d20kl1"),
    ("2d(d2 * 10)ro1", "if d2 == 1 then 2d10ro1 else 2d20ro1"),
    ("(d2)d{0,0,1}", "if d2 == 1 then d{0,0,1} else 2d{0,0,1}"),
])
def test_a_computed_count_means_the_written_count_it_takes(computed, written):
    assert odds(computed) == odds(written)


def test_a_computed_count_rolls_its_mean():
    assert odds("(d6)d6").mean() == Fraction(7, 2) ** 2


@pytest.mark.parametrize("text", ["(d3)d6kh2", "2d(d4 * 2)", "(d2)d(d3 + 1)!", "(d3)d6>=5f1"])
def test_sampled_computed_dice_follow_the_exact_odds(text):
    dist = odds(text)
    roll = compile_sampler(parse_expression(text), False)
    ctx = Context({}, random.Random(7))
    runs = 6000
    counts = {}
    for _ in range(runs):
        v = roll(ctx)
        counts[v] = counts.get(v, 0) + 1
    assert set(counts) <= set(dist.values())
    chi = 0.0
    merged_obs = merged_exp = 0.0
    for value, w in dist.items():
        expected = runs * w / dist.total
        if expected < 5:                       # pool the rare outcomes into one cell
            merged_obs += counts.get(value, 0)
            merged_exp += expected
            continue
        chi += (counts.get(value, 0) - expected) ** 2 / expected
    if merged_exp:
        chi += (merged_obs - merged_exp) ** 2 / merged_exp
    assert chi < 3 * len(dist) + 30


def test_the_transcript_shows_the_dice_the_values_made():
    ctx = Context({}, random.Random(3), record=[])
    compile_sampler(parse_expression("(d3)d6"), True)(ctx)
    texts = [r.text for r in ctx.record]
    assert texts[0] == "d3" and texts[1].endswith("d6")


@pytest.mark.parametrize("text,canonical", [
    ("(n)d6", "(n)d6"),
    ("(unit.rifles)d6>4", "(unit.rifles)d6>=4"),
    ("(4-2)d10", "(4 - 2)d10"),
    ("2d(3+3)kh1", "2d(3 + 3)kh1"),
    ("d(2*n)!", "d(2 * n)!"),
    ("(a)d(b)kh2[fire]", "(a)d(b)kh2[fire]"),
    ("(n)d{1, 2,3}", "(n)d{1,2,3}"),
    ("1d(n)", "d(n)"),
])
def test_computed_dice_print_back_as_they_parse(text, canonical):
    tree = parse_expression(text)
    assert str(tree) == canonical
    assert parse_expression(canonical) == tree


def test_a_target_needs_its_comparison_written_against_the_dice():
    """`2d(n) >= 5` (spaced) compares the total; `2d(n)>=5` counts the dice, as 2d6>=5."""
    env = {"n": 6}
    assert odds("2d(n) >= 5", env) == odds("2d6 >= 5")
    assert odds("2d(n)>=5", env) == odds("2d6>=5")


# expression, env, error class, message
ERRORS = [
    ("(0 - 1)d6", {}, EvalError, "a dice count must be at least 0, got -1"),
    ("(1 / 2)d6", {}, EvalError, "a dice count must be a whole number, got 1/2"),
    ('("a")d6', {}, EvalError, "a dice count must be a whole number, got 'a'"),
    ("(true)d6", {}, EvalError, "a dice count must be a whole number, got true"),
    ("(n)d6", {"n": 2000}, LimitError, "a dice count of 2,000 is more than the limit of 1,000"),
    ("2d(n)", {"n": 0}, EvalError, "a number of sides must be at least 1, got 0"),
    ("2d(n)", {"n": 20000}, LimitError, "a number of sides of 20,000 is more than"),
    ("(nn)d6", {"n": 2}, RulecraftError, "unknown name 'nn'"),
]


@pytest.mark.parametrize("text,env,error,message", ERRORS)
def test_a_value_that_cannot_be_a_count_or_sides_is_a_located_error(text, env, error, message):
    for run in (lambda: odds(text, env),
                lambda: compile_sampler(parse_expression(text), False)(
                    Context(env, random.Random(1)))):
        with pytest.raises(error) as caught:
            run()
        assert message in caught.value.message
        assert caught.value.location.column == (2 if "name" in message else 1)


@pytest.mark.parametrize("text,message", [
    ("(n)2d6", "the dice count is given twice"),
    ("(n)d6kx", "unexpected 'd6kx'"),
    ("2d(n)r<1001", None),     # read on the largest die: fine until rolled
    ("3d(n)kh4", "cannot keep 4 of 3 dice"),
])
def test_the_written_part_is_checked_when_the_rule_is_read(text, message):
    if message is None:
        parse_expression(text)
        return
    with pytest.raises(RulecraftError) as caught:
        parse_expression(text)
    assert message in caught.value.message


RULES = HERE / "rulesets" / "dice_more.yaml"


@pytest.mark.parametrize("inputs,rifles,spears", [
    ({}, 3, 2),
    ({"unit.rifles": "1", "unit.spears": "4"}, 1, 4),
    ({"unit.rifles": "0"}, 0, 2),
])
def test_a_units_stat_gives_the_count_of_dice(inputs, rifles, spears):
    """`(unit.rifles)d6>=5 + (unit.spears)d6>=6`, exactly, against enumeration."""
    rules = load_ruleset(RULES)
    got = rules.run_odds("volley", inputs).outcomes
    weights = {}
    for roll in itertools.product(range(1, 7), repeat=rifles + spears):
        v = sum(f >= 5 for f in roll[:rifles]) + sum(f >= 6 for f in roll[rifles:])
        weights[v] = weights.get(v, 0) + 1
    assert got == Distribution.from_weights(weights)
    ran = {rules.run("volley", inputs, seed).result for seed in range(40)}
    assert ran <= set(got.values())


# -- property: every new form's sampled mean converges on its exact mean ------------------
from hypothesis import given, settings, strategies as st  # noqa: E402

_SIDES = st.sampled_from([2, 3, 4, 6, 8])
_FORMS = st.one_of(
    st.builds(lambda a, b, k: f"(d{a})d{b}kh{k}", _SIDES, _SIDES, st.integers(1, 3)),
    st.builds(lambda n, s: f"{n}d{s}u", st.integers(1, 2), st.sampled_from([4, 6, 8])),
    st.builds(lambda n, s, k: f"{{{n}d{s}+2d4}}kh{k}", st.integers(1, 3), _SIDES,
              st.integers(1, 3)),
    st.builds(lambda n, s, t: f"{{{n}d{s}+d6}}>={t}", st.integers(1, 3), _SIDES,
              st.integers(2, 5)),
    st.builds(lambda a, m: f"2d(d{a} + 1) % {m}", _SIDES, st.integers(2, 5)),
    st.builds(lambda a, e: f"d{a} ** {e} - d{a}", _SIDES, st.integers(0, 3)),
)


@settings(max_examples=30, deadline=None)
@given(_FORMS, st.integers(0, 2 ** 16))
def test_every_new_form_samples_its_exact_mean(text, seed):
    dist = odds(text)
    sample = compile_sampler(parse_expression(text), False)
    ctx = Context({}, random.Random(seed))
    runs = 1500
    values = [sample(ctx) for _ in range(runs)]
    assert set(values) <= set(dist.values())
    mean = sum(values) / runs
    assert abs(mean - float(dist.mean())) <= 5 * dist.stdev() / runs ** 0.5 + 1e-9
