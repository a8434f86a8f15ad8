"""Grouped rolls (issue #22): `{3d6, 4d6}kh1`, `{2d6, 3d6, 4d6}>=10`.  In Roll20 and
rpg-dice-roller a group of two or more sub-rolls is a pool of their totals: keep/drop
chooses among the totals, a target counts the sub-rolls that reach it (a bare `>` is
inclusive), `f` subtracts those matching it, no modifier sums them.  Each case is checked
against an oracle that enumerates every face of every die."""
import itertools
import random
from fractions import Fraction

import pytest

from interpreter.dice.distribution import Distribution
from interpreter.errors import RulecraftError
from interpreter.expr.exact import exact
from interpreter.expr.sampled import Context, compile_sampler
from interpreter.expr.rolling import odds, roll
from interpreter.lang.ast import to_text
from interpreter.lang.parse import parse_expression


def sums(*dice):
    """{total: probability} of one sub-roll: the sum of dice with these sides."""
    out = {}
    for faces in itertools.product(*[range(1, s + 1) for s in dice]):
        p = Fraction(1, 1)
        for s in dice:
            p /= s
        out[sum(faces)] = out.get(sum(faces), 0) + p
    return out


def oracle(subs, pick):
    """Every combination of sub-roll totals, then `pick(totals)`."""
    out = {}
    for combo in itertools.product(*[list(s.items()) for s in subs]):
        p = Fraction(1)
        for _, q in combo:
            p *= q
        v = pick([t for t, _ in combo])
        out[v] = out.get(v, 0) + p
    return out


GROUPS = [
    ("{3d6, 4d6}kh1", "the better total", oracle([sums(6, 6, 6), sums(6, 6, 6, 6)], max)),
    ("{d20, d20}kl1", "disadvantage", oracle([sums(20), sums(20)], min)),
    ("{2d6, 3d6, 4d6}>=10", "sub-rolls of 10 or more",
     oracle([sums(6, 6), sums(6, 6, 6), sums(6, 6, 6, 6)], lambda t: sum(v >= 10 for v in t))),
    ("{2d6, 3d6}>10", "Roll20: '>' includes 10",
     oracle([sums(6, 6), sums(6, 6, 6)], lambda t: sum(v >= 10 for v in t))),
    ("{2d6, 2d6, 2d6}k2", "the two best of three", oracle([sums(6, 6)] * 3,
                                                         lambda t: sum(sorted(t)[1:]))),
    ("{2d6, 2d6, 2d6}d1", "drop the worst", oracle([sums(6, 6)] * 3,
                                                    lambda t: sum(sorted(t)[1:]))),
    ("{d6, d8, d10}dh1", "drop the best", oracle([sums(6), sums(8), sums(10)],
                                                  lambda t: sum(sorted(t)[:2]))),
    ("{2d6, 3d6}>=8f<=3", "successes minus failures", oracle(
        [sums(6, 6), sums(6, 6, 6)], lambda t: sum(v >= 8 for v in t) - sum(v <= 3 for v in t))),
    ("{2d6, 3d6}", "no modifier: the sum", oracle([sums(6, 6), sums(6, 6, 6)], sum)),
    ("{d6, d6}kh1 + 1", "a group in arithmetic", oracle([sums(6), sums(6)], lambda t: max(t) + 1)),
]


@pytest.mark.parametrize("expr, meaning, expected", GROUPS, ids=[g[0] for g in GROUPS])
def test_grouped_roll_is_the_exact_distribution(expr, meaning, expected):
    d = odds(expr)
    assert {v: d.probability(v) for v, _ in d.items()} == expected, meaning


@pytest.mark.parametrize("expr", [g[0] for g in GROUPS])
def test_grouped_roll_sampled_mean_converges(expr):
    d = odds(expr)
    n, rng = 2000, random.Random(22)
    from interpreter.expr.sampled import Context, compile_sampler
    node = parse_expression(expr)
    fast = compile_sampler(node, record=False)
    ctx = Context({}, rng, None)
    got = sum(fast(ctx) for _ in range(n)) / n
    assert abs(got - float(d.mean())) <= 5 * d.stdev() / n ** 0.5


@pytest.mark.parametrize("expr", [g[0] for g in GROUPS])
def test_grouped_roll_canonical_text_reads_back(expr):
    node = parse_expression(expr)
    assert parse_expression(to_text(node)) == node


def test_a_bound_roll_in_a_group_is_the_same_roll():
    d = odds("let r = d6 in {r, r}kh1")
    assert {v: d.probability(v) for v, _ in d.items()} == {v: Fraction(1, 6) for v in range(1, 7)}


def test_transcript_shows_each_sub_roll_kept_or_dropped():
    result = roll("{3d6, 4d6}kh1", seed=2)
    group = result.dice[-1].as_json()
    assert [g["kept"] for g in group["groups"]].count(True) == 1
    assert group["total"] == result.total == max(g["total"] for g in group["groups"])


@pytest.mark.parametrize("expr, message", [
    ("{3d6!}kh1", "its own keep, explosion or target cannot take part"),
    ("{d6 * 2}kh1", "'d6 * 2' cannot take part"),
    ("{2d6 + 1}>=5", "a number in a group of one with a target counts nothing"),
    ("{2d6 + 3d6}kh6", "cannot keep 6 of 5 dice"),
    ("{2d6, 3d6}kh3", "cannot keep 3 of 2"),
    ("{2d6, 3d6}f1", "target"),
    ("{2d6, 3d6}>=5f<=5", "both a success and a failure"),
    ("{2d6, \"a\"}kh1", "must be numbers"),
])
def test_meaningless_groups_are_refused(expr, message):
    with pytest.raises(RulecraftError) as info:
        odds(expr)
    assert message in str(info.value)


def _pool_oracle(terms, constant, keep=None, success=None):
    """Oracle for a group of one: every roll of all the dice (faces, sign), kept as
    `kept_flags` keeps (the earlier of equal faces), scored by hand."""
    dice = [(sides, sign) for count, sides, sign in terms for _ in range(count)]
    weights = {}
    for faces in itertools.product(*[range(1, s + 1) for s, _ in dice]):
        order = sorted(range(len(faces)), key=lambda i: (-faces[i], i))
        if keep is None:
            kept = set(range(len(faces)))
        else:
            kind, k = keep
            n = len(faces)
            if kind in ("kl", "dh"):
                order = sorted(range(n), key=lambda i: (faces[i], i))
            count = k if kind in ("kh", "kl") else n - k
            kept = set(order[:count])
        if success is None:
            v = constant + sum(faces[i] * dice[i][1] for i in kept)
        else:
            v = sum(1 for i in kept if faces[i] >= success)
        weights[v] = weights.get(v, 0) + 1
    return Distribution.from_weights(weights)


@pytest.mark.parametrize("expr, terms, constant, keep, success", [
    ("{2d6+2d4}kh1", [(2, 6, 1), (2, 4, 1)], 0, ("kh", 1), None),     # the highest die
    ("{2d6+d8}kh2", [(2, 6, 1), (1, 8, 1)], 0, ("kh", 2), None),
    ("{3d4+d6}kl2", [(3, 4, 1), (1, 6, 1)], 0, ("kl", 2), None),
    ("{2d4+2d6}dl1", [(2, 4, 1), (2, 6, 1)], 0, ("dl", 1), None),
    ("{2d4+2d6}dh2", [(2, 4, 1), (2, 6, 1)], 0, ("dh", 2), None),
    ("{2d6-d4+3}kh2", [(2, 6, 1), (1, 4, -1)], 3, ("kh", 2), None),   # a kept d4 subtracts
    ("{3d4-2d4}dl2", [(3, 4, 1), (2, 4, -1)], 0, ("dl", 2), None),   # equal faces: earlier kept
    ("{3d6+2d4}>=4", [(3, 6, 1), (2, 4, 1)], 0, None, 4),           # dice passing, all terms
])
def test_a_group_of_one_keeps_or_counts_its_own_dice(expr, terms, constant, keep, success):
    assert exact(parse_expression(expr), {}) == _pool_oracle(terms, constant, keep, success)


@pytest.mark.parametrize("expr", ["{4d6+3d8}kh1", "{2d6-d4+3}kh2", "{3d6+2d10}>=5f1"])
def test_a_group_of_one_rolls_as_its_odds_say(expr):
    dist = exact(parse_expression(expr), {})
    sample = compile_sampler(parse_expression(expr), False)
    ctx = Context({}, random.Random(5))
    seen = {}
    for _ in range(4000):
        total = sample(ctx)
        seen[total] = seen.get(total, 0) + 1
    assert set(seen) <= set(dist.values())
    mean = sum(v * c for v, c in seen.items()) / 4000
    assert abs(mean - float(dist.mean())) < 4 * dist.stdev() / 4000 ** 0.5
