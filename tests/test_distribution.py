"""Rules of exact distributions: integer weights, exact moments, merging, mixing, sums.

Each fast path (packed convolution, packed pow, the power recurrence, the keep order
statistics) is checked against a brute-force oracle written here with plain loops.
"""
import itertools
import operator
import time
from fractions import Fraction

import pytest

import interpreter.dice.sums as sums_mod
from interpreter.dice.distribution import compare, Distribution, negate, scale
from interpreter.dice.order import keep_sum
from interpreter.dice.sums import add, repeat_sum
from interpreter.errors import EvalError, LimitError

D6 = Distribution.uniform(range(1, 7))
D4 = Distribution.uniform(range(1, 5))
COIN = Distribution.uniform([0, 1])


def brute_sum(parts):
    """Oracle: enumerate every combination of outcomes and add them up."""
    out = {}
    for combo in itertools.product(*[d.items() for d in parts]):
        value = sum(v for v, _ in combo)
        weight = 1
        for _, w in combo:
            weight *= w
        out[value] = out.get(value, 0) + weight
    return Distribution.from_weights(out)


def brute_keep(die, n, k, highest, score=lambda v: v):
    """Oracle: enumerate all n-tuples of outcomes, sort, keep k, add the scores."""
    out = {}
    for combo in itertools.product(die.items(), repeat=n):
        values = sorted((v for v, _ in combo), reverse=highest)[:k]
        weight = 1
        for _, w in combo:
            weight *= w
        total = sum(score(v) for v in values)
        out[total] = out.get(total, 0) + weight
    return Distribution.from_weights(out)


# -- construction ------------------------------------------------------------------------
def test_constant_is_certain():
    d = Distribution.constant(5)
    assert d.items() == [(5, 1)] and d.probability(5) == 1 and d.mean() == 5


def test_uniform_counts_repeated_faces():
    d = Distribution.uniform([1, 1, 2])
    assert d.items() == [(1, 2), (2, 1)] and d.total == 3


def test_from_weights_drops_zero_weights():
    d = Distribution.from_weights({1: 0, 2: 3, 3: 1})
    assert d.items() == [(2, 3), (3, 1)] and len(d) == 2


@pytest.mark.parametrize("weights, capped", [
    ({1: -1, 2: 1}, 0), ({1: 0}, 0), ({1: 1.5}, 0), ({1: 2}, 3), ({1: 2}, -1),
])
def test_from_weights_rejects_bad_weights(weights, capped):
    with pytest.raises(ValueError):
        Distribution.from_weights(weights, capped=capped)


def test_items_sort_mixed_types_without_raising():
    d = Distribution.from_weights({"win": 1, 3: 1, True: 1, -2: 1, "lose": 1})
    assert d.values() == [True, -2, 3, "lose", "win"]


def test_bool_and_int_stay_distinct_outcomes():
    d = Distribution.mix([(1, Distribution.constant(True)), (3, Distribution.constant(1))])
    assert len(d) == 2 and d.probability(True) == Fraction(1, 4)
    assert d.probability(1) == Fraction(3, 4)


# -- moments and queries -----------------------------------------------------------------
@pytest.mark.parametrize("d, mean, variance", [
    (D6, Fraction(7, 2), Fraction(35, 12)),
    (D4, Fraction(5, 2), Fraction(5, 4)),
    (Distribution.uniform([True, False, False]), Fraction(1, 3), Fraction(2, 9)),
    (Distribution.uniform([Fraction(1, 2), Fraction(3, 2)]), Fraction(1), Fraction(1, 4)),
])
def test_moments_are_exact(d, mean, variance):
    assert d.mean() == mean and d.variance() == variance
    assert d.stdev() == pytest.approx(float(variance) ** 0.5)


def test_mean_of_text_outcomes_is_an_eval_error():
    with pytest.raises(EvalError):
        Distribution.uniform(["hit", "miss"]).mean()


@pytest.mark.parametrize("query, x, expected", [
    ("at_least", 5, Fraction(1, 3)), ("at_least", 7, Fraction(0)),
    ("at_most", 2, Fraction(1, 3)), ("at_most", 6, Fraction(1)),
])
def test_tail_probabilities(query, x, expected):
    assert getattr(D6, query)(x) == expected


def test_min_and_max_follow_sorted_order():
    assert (D6.min(), D6.max()) == (1, 6)


def test_equality_compares_normalised_probabilities():
    a = Distribution.from_weights({1: 1, 2: 1})
    b = Distribution.from_weights({1: 3, 2: 3})
    assert a == b and hash(a) == hash(b)
    assert a != Distribution.from_weights({1: 1, 2: 2})


def test_equality_includes_capped_mass():
    assert Distribution.from_weights({1: 2}, capped=1) != Distribution.from_weights({1: 2})


def test_reduced_divides_by_gcd():
    d = Distribution.from_weights({1: 4, 2: 6}, capped=2).reduced()
    assert d.items() == [(1, 2), (2, 3)] and d.total == 5 and d.capped == 1


def test_distribution_is_immutable():
    with pytest.raises(AttributeError):
        D6.total = 3


# -- transformation ----------------------------------------------------------------------
def test_map_merges_equal_results():
    d = D6.map(lambda v: v >= 5)
    assert d.items() == [(False, 4), (True, 2)]


def test_combine_multiplies_totals_and_propagates_capped():
    a = Distribution.from_weights({1: 3, 2: 1}, capped=1)
    b = Distribution.from_weights({10: 1, 20: 1}, capped=1)
    c = a.combine(b, operator.add)
    assert c.total == 8 and c.capped == 8 - 3 * 1
    assert c.probability(11) == Fraction(3, 8)


def test_mix_weights_branches_exactly():
    m = Distribution.mix([(Fraction(1, 3), D6), (Fraction(2, 3), D4)])
    assert m.probability(1) == Fraction(1, 3) * Fraction(1, 6) + Fraction(2, 3) * Fraction(1, 4)
    assert m.probability(6) == Fraction(1, 18)
    assert sum(w for _, w in m.items()) == m.total


def test_mix_normalises_integer_weights_like_a_let_binding():
    # let x = d2 in (x == 1 ? d6 : 0)
    m = Distribution.mix([(1, D6), (1, Distribution.constant(0))])
    assert m.probability(0) == Fraction(1, 2) and m.probability(3) == Fraction(1, 12)


def test_mix_keeps_capped_mass():
    m = Distribution.mix([(1, Distribution.from_weights({1: 1}, capped=1)), (1, D6)])
    assert m.capped_probability() == Fraction(1, 2)


# -- arithmetic --------------------------------------------------------------------------
@pytest.mark.parametrize("a, b", [
    (D6, D6), (D6, D4), (D4, Distribution.uniform([-3, 0, 7, 100])),
    (Distribution.uniform(range(0, 40)), Distribution.uniform(range(-5, 30))),
    (Distribution.uniform([0, 10 ** 6]), Distribution.uniform([1, 2, 3])),
    (Distribution.uniform([True, False]), D4),
])
def test_add_is_the_convolution(a, b):
    assert add(a, b) == brute_sum([a, b])


def test_add_of_fractions_falls_back_to_exact_combination():
    half = Distribution.uniform([Fraction(1, 2), 1])
    assert add(half, half) == brute_sum([half, half])


@pytest.mark.parametrize("d, n", [
    (D6, 2), (D6, 3), (D6, 5), (D4, 7), (COIN, 9),
    (Distribution.uniform([-1, 0, 1]), 6), (Distribution.uniform([0, 5, 100]), 4),
    (Distribution.from_weights({2: 1, 3: 5, 9: 2}), 5),
])
def test_repeat_sum_matches_brute_force(d, n):
    assert repeat_sum(d, n) == brute_sum([d] * n)


def test_repeat_sum_power_recurrence_matches_packed_pow(monkeypatch):
    packed = repeat_sum(Distribution.uniform([0, 2, 3, 3, 7]), 40)
    monkeypatch.setattr(sums_mod, "_PACKED_POW_BITS", 0)
    assert repeat_sum(Distribution.uniform([0, 2, 3, 3, 7]), 40) == packed


def test_repeat_sum_of_many_dice_has_exact_moments():
    d = repeat_sum(D6, 1000)
    assert d.mean() == 3500 and d.variance() == Fraction(35 * 1000, 12)
    assert d.total == 6 ** 1000 and sum(w for _, w in d.items()) == d.total


def test_repeat_sum_propagates_capped_mass():
    d = repeat_sum(Distribution.from_weights({1: 3, 2: 1}, capped=1), 3)
    assert d.capped == 4 ** 3 - 3 ** 3


@pytest.mark.parametrize("f, d, expected", [
    (negate, D4, Distribution.uniform([-1, -2, -3, -4])),
    (lambda d: scale(d, 3), D4, Distribution.uniform([3, 6, 9, 12])),
    (lambda d: scale(d, 0), D4, Distribution.constant(0)),
])
def test_negate_and_scale(f, d, expected):
    assert f(d) == expected


@pytest.mark.parametrize("op, x, p_true", [
    (">=", 5, Fraction(1, 3)), (">", 5, Fraction(1, 6)), ("<=", 1, Fraction(1, 6)),
    ("<", 1, Fraction(0)), ("=", 3, Fraction(1, 6)), ("!=", 3, Fraction(5, 6)),
])
def test_compare_to_constant_gives_bool_distribution(op, x, p_true):
    c = compare(D6, op, x)
    assert c.probability(True) == p_true and c.probability(False) == 1 - p_true


# -- keep (order statistics) -------------------------------------------------------------
@pytest.mark.parametrize("die, n, k, highest", [
    (D6, 4, 3, True), (D6, 4, 1, False), (D6, 3, 0, True), (D6, 3, 3, True),
    (D4, 5, 2, True), (D4, 5, 2, False), (Distribution.uniform([-1, 0, 1]), 5, 3, True),
    (Distribution.from_weights({1: 2, 4: 1, 9: 3}), 4, 2, False),
    (Distribution.uniform([0, 0, 3, 8]), 4, 3, True),
])
def test_keep_sum_matches_sorting_every_combination(die, n, k, highest):
    assert keep_sum(die, n, k, highest) == brute_keep(die, n, k, highest)


@pytest.mark.parametrize("score", [lambda v: int(v >= 5), lambda v: int(v <= 2)])
def test_keep_sum_with_scores_counts_kept_successes(score):
    assert keep_sum(D6, 4, 2, True, score) == brute_keep(D6, 4, 2, True, score)


# -- limits ------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: repeat_sum(Distribution.uniform(range(10_000)), 1000),
    lambda: repeat_sum(Distribution.uniform(range(0, 10 ** 7, 1000)), 50),
    lambda: keep_sum(Distribution.uniform(range(10_000)), 1000, 500),
    lambda: keep_sum(D6, 1000, 500),
    lambda: add(Distribution.uniform(range(0, 10 ** 9, 10 ** 4)),
                Distribution.uniform(range(0, 10 ** 5, 7))),
    lambda: Distribution.uniform(range(300_000)),
])
def test_absurd_exact_requests_are_refused_quickly(make):
    start = time.perf_counter()
    with pytest.raises(LimitError):
        make()
    assert time.perf_counter() - start < 1.0
