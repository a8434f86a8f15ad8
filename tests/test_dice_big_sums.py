"""Sums of the largest dice (issue #20, the rule of #12: under a second or refused under
a second): `d10000 + d10000` and its neighbours are convolved by the dice layer and
printed quickly, as one expression, inside a procedure (`let`, `roll`, `run --odds`)
and by `odds`; what would enumerate a hundred million pairs is refused at once, located.
Times are CPU seconds of the command in this process (tests/hostile/conftest.py)."""
from fractions import Fraction

import pytest

from interpreter.expr.exact import exact
from interpreter.lang.parse import parse_expression

pytest_plugins = ["tests.hostile.conftest"]


def odds(text):
    dist = exact(parse_expression(text), {})
    return {v: Fraction(w, dist.total) for v, w in dist.items()}


# expression, a value, its probability (by hand), how many outcomes
@pytest.mark.parametrize("text,value,p,outcomes", [
    ("d10000 + d10000", 10001, Fraction(10000, 10 ** 8), 19999),   # the middle: 10,000 pairs
    ("d10000 + d10000", 2, Fraction(1, 10 ** 8), 19999),
    ("d10000 + d9999", 10000, Fraction(9999, 10 ** 4 * 9999), 19998),
    ("d10000 - d10000", 0, Fraction(10000, 10 ** 8), 19999),       # convolved, not 10^8 pairs
    ("d10000 * 2 + d10000", 3, Fraction(1, 10 ** 8), 29998),
    # P(a + b <= 5000) = C(5000, 2) / 10^8: the rest is 35001/40000
    ("(d10000 + d10000) > 5000", True, Fraction(35001, 40000), 2),
])
def test_sums_of_the_largest_dice_are_exact(text, value, p, outcomes):
    got = odds(text)
    assert (got[value], len(got)) == (p, outcomes)


@pytest.mark.parametrize("argv", [
    ["odds", "d10000 + d10000"],
    ["odds", "d10000 - d10000"],
    ["odds", "d10000 * 2 + d10000"],
    ["odds", "(d10000 + d10000) > 5000"],
    ["roll", "d10000 + d10000", "--seed", "1"],
])
def test_the_largest_sums_print_in_about_a_second(cli, argv):
    got = cli(*argv)
    assert got.code == 0, got.err
    assert got.seconds < 3.0, got.seconds   # 20 s before (rich's table), about 1 s now


PROCEDURE = """ruleset: big
title: big
procedures:
  let_sum:
    steps:
      - let s = d10000 + d10000
      - return s
  return_sum:
    steps: ['return d10000 + d10000']
"""


@pytest.mark.parametrize("procedure", ["let_sum", "return_sum"])
def test_the_largest_sums_inside_a_procedure(cli, write, procedure):
    path = write("big.yaml", PROCEDURE)
    exact_run = cli("run", path, procedure, "--odds")
    assert exact_run.code == 0, exact_run.err
    assert "mean 10001" in exact_run.out
    assert exact_run.seconds < 4.0, exact_run.seconds
    sampled = cli("run", path, procedure, "--seed", "3")
    assert sampled.code == 0 and sampled.seconds < 2.0


@pytest.mark.parametrize("text,message,column", [
    ("{d10000, d10000}kh1", "the exact odds of this grouped roll would work through "
     "100,000,000 pairs of outcomes (limit 1,000,000)", 1),   # it hung
    ("d10000 * d10000", "would enumerate 100,000,000 pairs", 8),
    ("(d10000 + d10000) * d10000", "would enumerate 199,990,000 pairs", 19),
    ("max(d10000, d10000)", "would enumerate 100,000,000 pairs", 1),
])
def test_what_would_take_minutes_is_refused_at_once_where_it_is(cli, text, message, column):
    got = cli("odds", text)
    assert got.code == 1
    assert f"<expr>:1:{column}: error: " in got.err and message in got.err, got.err
    assert got.seconds < 1.0, got.seconds


def test_two_copies_of_a_wide_distribution_are_one_packed_product():
    """Many faces and few copies (two results of a procedure added: 1,276 faces of
    1,000-bit weights) are summed by packed products, not the coefficient recurrence
    (4.5 s where the product takes 0.3): the same weights as `add` and as the recurrence."""
    import random

    from interpreter.dice import sums
    from interpreter.dice.distribution import Distribution
    rng = random.Random(1)
    ints = {v: rng.getrandbits(1000) | 1 for v in range(1276)}
    d = Distribution(dict(ints), sum(ints.values()), 0)
    twice = sums.repeat_sum(d, 2)
    assert twice.total == d.total ** 2
    assert twice.int_weights() == sums.add(d, d).int_weights()
    small = {v: w >> 980 | 1 for v, w in list(ints.items())[:40]}   # the recurrence's own
    e = Distribution(dict(small), sum(small.values()), 0)
    assert sums.repeat_sum(e, 3).int_weights() == sums._power_recurrence(small, 0, 39, 3)
