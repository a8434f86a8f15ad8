"""Dice limits by cost (issue #12): an exact computation is refused on an estimate of its
real work, not on a loose bound, so that big but cheap questions are answered and costly
ones are refused at once; long sums and the `%` and `**` operators."""
import itertools
import time
from fractions import Fraction

import pytest

from interpreter.dice.distribution import Distribution
from interpreter.errors import LimitError
from interpreter.expr.exact import exact
from interpreter.lang.ast import Binary, children_of, walk
from interpreter.lang.parse import parse_expression
from interpreter.limits import MAX_EXPR_LENGTH


def odds(text):
    return exact(parse_expression(text), {})


def timed(text):
    start = time.process_time()
    try:
        result = odds(text)
    except LimitError as err:
        result = err
    return result, time.process_time() - start


def depth_of(node):
    stack, deepest = [(node, 1)], 0
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children_of(current))
    return deepest


def brute(text_faces, combine):
    """Oracle: every combination of the dice faces, combined by `combine`."""
    weights = {}
    for faces in itertools.product(*text_faces):
        v = combine(*faces)
        weights[v] = weights.get(v, 0) + 1
    return Distribution.from_weights(weights)


# expression, its mean (by hand), the largest CPU time allowed
COMPUTED = [
    ("200d10kh100", None, 3.0),          # refused at once before; about 1 s
    ("d100*d100*d100", Fraction(101, 2) ** 3, 4.0),   # 46,911 outcomes; was refused
    ("+".join(["d6"] * 300), 1050, 2.0),  # 300 separate terms: was refused by the nesting
    ("+".join(["d6"] * 1300), 4550, 2.0),  # as many as the length limit allows
    ("+".join(["d6", "d8", "d10", "d12", "d20"] * 60), 60 * Fraction(61, 2), 3.0),
    ("1000d10kh10", None, 2.0),
]


@pytest.mark.parametrize("text,mean,seconds", COMPUTED)
def test_big_but_cheap_questions_are_answered(text, mean, seconds):
    result, spent = timed(text)
    assert isinstance(result, Distribution), result
    if mean is not None:
        assert result.mean() == mean
    assert spent < seconds


def test_d100_cubed_has_its_46911_outcomes():
    products = {a * b * c for a in range(1, 101) for b in range(1, 101) for c in range(1, 101)}
    assert len(odds("d100*d100*d100")) == len(products) == 46_911


# expression refused, and the part of its message that says why
REFUSED = [
    ("400d10kh200", "too much work"),
    ("50d100kh25", "too much work"),
    ("1000d6kh500", "too much work"),
    ("1000d100", "too much work"),
    ("100d1000", "too much work"),
    ("d1000*d1000", "distinct outcomes"),
]


@pytest.mark.parametrize("text,why", REFUSED)
def test_costly_questions_are_refused_within_a_second(text, why):
    result, spent = timed(text)
    assert isinstance(result, LimitError) and why in result.message
    assert spent < 1.5


@pytest.mark.parametrize("terms", [33, 300, 600])
def test_a_long_sum_is_a_shallow_tree_that_prints_back_to_itself(terms):
    text = "+".join(["d6"] * terms)
    assert len(text) <= MAX_EXPR_LENGTH
    tree = parse_expression(text)
    assert depth_of(tree) <= 8 + terms.bit_length() + 1   # balanced: logarithmic
    assert parse_expression(str(tree)) == tree
    dice = [n for n in walk(tree) if not isinstance(n, Binary)]
    assert len(dice) == terms


@pytest.mark.parametrize("text,expected", [
    ("1 - 2 + 3 - 4 + 5", 3),                       # short chains fold left to right
    (" + ".join(str(i) if i % 3 else f"-{i}" for i in range(1, 60)), sum(
        i if i % 3 else -i for i in range(1, 60))),
    (" - ".join(["1"] * 40), 1 - 39),               # '-' chains are never regrouped
    ('"a" + "b" + "c"', "abc"),
    (" + ".join(f'"{c}"' for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"),
     "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"),       # a long text join keeps its order
    (" * ".join(["2"] * 40), 2 ** 40),
])
def test_regrouping_a_chain_keeps_its_value(text, expected):
    assert odds(text).items() == [(expected, 1)]


def test_a_chain_that_cannot_be_regrouped_meets_the_depth_limit():
    with pytest.raises(LimitError, match="cannot be regrouped"):
        parse_expression("-".join(["d6"] * 300))


@pytest.mark.parametrize("text,faces,combine", [
    ("d6 % d3", [range(1, 7), range(1, 4)], lambda a, b: a % b),
    ("(d6 - 4) % 3", [range(1, 7)], lambda a: (a - 4) % 3),
    ("d4 ** 2", [range(1, 5)], lambda a: a ** 2),
    ("d3 ** d3", [range(1, 4), range(1, 4)], lambda a, b: a ** b),
    ("2 ** d4 % 5", [range(1, 5)], lambda a: 2 ** a % 5),
    ("-d3 ** 2", [range(1, 4)], lambda a: -(a ** 2)),
])
def test_modulus_and_power_exactly_against_enumeration(text, faces, combine):
    assert odds(text) == brute(faces, combine)
