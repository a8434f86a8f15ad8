"""Rules of dice terms: the exact distribution agrees with brute force, sampling agrees
with the exact distribution, records are deterministic, absurd terms are refused."""
import itertools
import random
import time
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.dice.terms import DiceRecord, DiceSpec
from interpreter.errors import EvalError, LimitError, Location
from interpreter.limits import DEFAULT_EXPLODE_DEPTH

OPS = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
       "<": lambda a, b: a < b, "=": lambda a, b: a == b}


def spec(count, sides, text="", **kw):
    """A DiceSpec from a number of sides (1..S) or an explicit faces tuple."""
    faces = tuple(range(1, sides + 1)) if isinstance(sides, int) else tuple(sides)
    for name in ("reroll", "explode"):
        if kw.get(name) is not None:
            kw[name] = frozenset(kw[name])
    return DiceSpec(count, faces, text or f"{count}d{sides}", **kw)


def describe(s):
    """A short test id: the notation plus the options that are set."""
    if not isinstance(s, DiceSpec):
        return None
    parts = [s.text if len(s.faces) < 30 else f"{s.count}d{len(s.faces)}"]
    if s.reroll:
        parts.append(("ro" if s.reroll_once else "r") + ",".join(map(str, sorted(s.reroll)))[:20])
    if s.explode:
        parts.append(f"!{','.join(map(str, sorted(s.explode)))[:20]}x{s.explode_depth}")
    if s.keep:
        parts.append(f"{s.keep[0]}{s.keep[1]}")
    if s.compound or s.penetrate:
        parts.append(("!!" if s.compound else "") + ("p" if s.penetrate else ""))
    if s.success:
        parts.append(f"{s.success[0]}{s.success[1]}")
    if s.failure:
        parts.append(f"f{s.failure[0]}{s.failure[1]}")
    return "".join(parts)


# -- oracle ------------------------------------------------------------------------------
def first_faces(s):
    """(probability, face) of a die's first counted face, straight from the rules."""
    n = len(s.faces)
    if not s.reroll:
        return [(Fraction(1, n), f) for f in s.faces]
    if s.reroll_once:
        out = []
        for f in s.faces:
            if f in s.reroll:
                out += [(Fraction(1, n * n), g) for g in s.faces]
            else:
                out.append((Fraction(1, n), f))
        return out
    # reroll until: sum over j rerolls of (r/n)^j * 1/n, a geometric series
    r = sum(1 for f in s.faces if f in s.reroll)
    each = Fraction(1, n) / (1 - Fraction(r, n))
    return [(each, f) for f in s.faces if f not in s.reroll]


def die_outcomes(s):
    """(probability, chain of faces, capped) for every way one die can come out."""
    boom = s.explode or frozenset()
    depth = s.explode_depth if s.explode else 0

    def grow(p, chain, left):
        if chain[-1] not in boom:
            return [(p, chain, False)]
        if left == 0:
            return [(p, chain, True)]
        out = []
        for f in s.faces:
            out += grow(p / len(s.faces), chain + (f,), left - 1)
        return out

    return [o for p, f in first_faces(s) for o in grow(p, (f,), depth)]


def pool_values(s, combo):
    """The dice of the pool as the rules define them: with `!` every roll of a chain is
    a die (later rolls minus 1 when penetrating), with `!!` (or no explosion) a chain is
    one die whose value is its sum."""
    pen = 1 if s.penetrate else 0
    values = []
    for _, chain, _ in combo:
        rolls = [chain[0]] + [f - pen for f in chain[1:]]
        if s.explode and not s.compound:
            values += rolls
        else:
            values.append(sum(rolls))
    return values


def kept_values(s, values):
    """Keep the k highest / lowest, or drop them, by sorting the whole pool."""
    if not s.keep:
        return values
    kind, k = s.keep
    ordered = sorted(values, reverse=kind in ("kh", "dh"))
    return ordered[:k] if kind in ("kh", "kl") else ordered[k:]


def brute(s):
    """Oracle: every combination of die outcomes, kept and counted as the rules say."""
    ok = (lambda v: OPS[s.success[0]](v, s.success[1])) if s.success else None
    bad = (lambda v: OPS[s.failure[0]](v, s.failure[1])) if s.failure else None
    probs, capped = {}, Fraction(0)
    for combo in itertools.product(die_outcomes(s), repeat=s.count):
        p = Fraction(1)
        for q, _, _ in combo:
            p *= q
        values = kept_values(s, pool_values(s, combo))
        if ok:
            total = sum(1 for v in values if ok(v)) - \
                sum(1 for v in values if bad and not ok(v) and bad(v))
        else:
            total = sum(values)
        probs[total] = probs.get(total, 0) + p
        if any(c for _, _, c in combo):
            capped += p
    return probs, capped


def assert_matches_brute(s):
    d = s.distribution()
    probs, capped = brute(s)
    assert {v: d.probability(v) for v, _ in d.items()} == probs
    assert d.capped_probability() == capped


# -- exact = brute force -----------------------------------------------------------------
@pytest.mark.parametrize("s", [
    spec(1, 6), spec(2, 6), spec(3, 6), spec(4, 4), spec(2, 20), spec(1, 1),
], ids=describe)
def test_sum_of_NdS_matches_brute_force(s):
    assert_matches_brute(s)


@pytest.mark.parametrize("s", [
    spec(4, 6, keep=("kh", 3)), spec(4, 6, keep=("kl", 3)), spec(2, 20, keep=("kh", 1)),
    spec(2, 20, keep=("kl", 1)), spec(5, 4, keep=("kh", 2)), spec(3, 6, keep=("kh", 0)),
    spec(3, 6, keep=("kl", 3)),
], ids=describe)
def test_keep_highest_and_lowest_match_sorting(s):
    assert_matches_brute(s)


@pytest.mark.parametrize("s", [
    spec(2, 6, reroll={1}, reroll_once=True), spec(2, 6, reroll={1, 2}, reroll_once=True),
    spec(2, 6, reroll={1}), spec(3, 4, reroll={1, 2, 3}), spec(1, 6, reroll={1, 2, 3, 4, 5, 6},
                                                            reroll_once=True),
    spec(3, 6, reroll={1}, keep=("kh", 2)), spec(2, [1, 1, 2], reroll={1}, reroll_once=True),
], ids=describe)
def test_reroll_once_and_until(s):
    assert_matches_brute(s)


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
@pytest.mark.parametrize("count, sides, boom", [(1, 6, {6}), (2, 4, {4}), (2, 3, {2, 3}),
                                                (1, 4, {1, 2, 3, 4})])
def test_explode_with_depth_cap_reports_capped_mass(count, sides, boom, depth):
    assert_matches_brute(spec(count, sides, explode=boom, explode_depth=depth))


@pytest.mark.parametrize("s", [
    spec(3, 4, explode={4}, explode_depth=2, keep=("kh", 2)),
    spec(2, 4, explode={4}, explode_depth=2, reroll={1}, reroll_once=True),
    spec(2, 4, explode={4}, explode_depth=2, reroll={1}),
], ids=describe)
def test_explode_combined_with_keep_and_reroll(s):
    assert_matches_brute(s)


E = dict(explode={4}, explode_depth=2)


@pytest.mark.parametrize("s", [
    # `!`: each explosion is a die of its own in the pool (Roll20, rpg-dice-roller)
    spec(3, 4, keep=("kh", 2), **E), spec(3, 4, keep=("kl", 2), **E),
    spec(3, 4, keep=("dl", 1), **E), spec(3, 4, keep=("dh", 1), **E),
    spec(3, 4, keep=("dl", 3), **E), spec(2, 4, keep=("kh", 0), **E),
    spec(3, 4, keep=("kh", 2), success=(">=", 3), **E),
    spec(3, 4, keep=("kh", 2), reroll={1}, **E),
    spec(2, 6, explode={5, 6}, explode_depth=2, keep=("kh", 1)),
    # `!!`: the chain is one die
    spec(3, 4, compound=True, **E), spec(3, 4, compound=True, keep=("kh", 1), **E),
    spec(3, 4, compound=True, keep=("dl", 1), **E),
    spec(3, 4, compound=True, success=(">=", 5), **E),
    # `!p` / `!!p`: every roll after the first counts one less
    spec(3, 4, penetrate=True, **E), spec(3, 4, penetrate=True, keep=("kh", 2), **E),
    spec(3, 4, penetrate=True, success=(">=", 3), **E),
    spec(2, 4, compound=True, penetrate=True, **E),
    spec(2, 4, compound=True, penetrate=True, keep=("kl", 1), **E),
], ids=describe)
def test_explode_compound_penetrate_with_keep_drop_and_targets(s):
    assert_matches_brute(s)


@pytest.mark.parametrize("s", [
    spec(4, 6, success=(">=", 5), failure=("=", 1)),
    spec(4, 6, success=(">=", 4), failure=("<=", 2), keep=("kh", 3)),
    spec(3, 4, success=(">=", 3), failure=("=", 1), **E),
    spec(3, 4, success=(">=", 4), failure=("=", 1), keep=("dl", 1), **E),
    spec(3, 4, success=(">=", 6), failure=("<=", 2), compound=True, **E),
    spec(0, 6), spec(0, 6, success=(">=", 3)),
], ids=describe)
def test_failures_subtract_and_zero_dice(s):
    assert_matches_brute(s)


@pytest.mark.parametrize("s", [
    spec(5, 6, success=(">=", 5)), spec(4, 10, success=(">", 7)), spec(4, 6, success=("<=", 2)),
    spec(4, 6, success=("<", 2)), spec(4, 6, success=("=", 6)),
    spec(4, 6, success=(">=", 5), keep=("kh", 2)), spec(4, 6, success=(">=", 3), keep=("kl", 2)),
    spec(3, 4, success=(">=", 3), explode={4}, explode_depth=2),
    spec(3, 6, success=(">=", 4), reroll={1}),
], ids=describe)
def test_success_counting(s):
    assert_matches_brute(s)


@pytest.mark.parametrize("s", [
    spec(2, range(0, 10), "2d{0..9}"), spec(3, (-1, 0, 1), "3dF"), spec(1, range(1, 101), "d%"),
    spec(3, (1, 1, 2), "3d{1,1,2}", keep=("kh", 2)), spec(2, (-1, 0, 1), keep=("kl", 1)),
], ids=describe)
def test_custom_faces(s):
    assert_matches_brute(s)


# -- known values ------------------------------------------------------------------------
@pytest.mark.parametrize("s, query, expected", [
    (spec(4, 6, keep=("kh", 3)), "mean", Fraction(15869, 1296)),
    (spec(2, 6), ("probability", 7), Fraction(1, 6)),
    (spec(1, range(1, 101), "d%"), "mean", Fraction(101, 2)),
    (spec(1, range(0, 10), "d{0..9}"), "mean", Fraction(9, 2)),
    (spec(10, 10, success=(">=", 8)), "mean", Fraction(3)),
    # each die: 3.5 * (1 + 1/6 + 1/36 + 1/216)
    (spec(3, 6, explode={6}, explode_depth=3), "mean", Fraction(1813, 144)),
    (spec(2, 20, keep=("kh", 1)), ("probability", 20), Fraction(39, 400)),
], ids=describe)
def test_known_exact_values(s, query, expected):
    d = s.distribution()
    got = d.mean() if query == "mean" else d.probability(query[1])
    assert got == expected


def test_large_pools_are_exact_and_fast():
    start = time.perf_counter()
    d = spec(100, 6, keep=("kh", 50)).distribution()
    assert time.perf_counter() - start < 1.0
    assert d.min() == 50 and d.max() == 300


# -- validation and limits ---------------------------------------------------------------
@pytest.mark.parametrize("s, error", [
    (spec(-1, 6), EvalError), (spec(1001, 6), LimitError), (spec(1, ()), EvalError),
    (spec(1, 10_001), LimitError), (spec(2, 6, reroll=set(range(1, 7))), LimitError),
    (spec(1, 1, explode={1}), EvalError), (spec(1, 6, explode={6}, explode_depth=101), LimitError),
    (spec(1, 6, explode={6}, explode_depth=-1), EvalError), (spec(3, 6, keep=("kh", 4)), EvalError),
    (spec(3, 6, keep=("kl", -1)), EvalError), (spec(3, 6, keep=("kx", 1)), EvalError),
    (spec(3, 6, failure=("=", 1)), EvalError),
    (spec(3, 6, success=(">=", 3), failure=("<=", 3)), EvalError),
    (spec(3, 6, success=("~", 5)), EvalError),
], ids=describe)
def test_validate_refuses_absurd_or_meaningless_terms(s, error):
    where = Location(file="rules.yaml", line=3, column=7)
    with pytest.raises(error) as info:
        s.validate(where)
    assert info.value.location == where


def test_explode_on_every_face_is_allowed_because_it_is_capped():
    d = spec(1, 6, explode=set(range(1, 7)), explode_depth=2).distribution()
    assert d.capped_probability() == 1


@pytest.mark.parametrize("s", [
    spec(1000, 10_000), spec(1000, 10_000, keep=("kh", 500)), spec(1000, 6, keep=("kh", 500)),
    spec(1000, 10_000, explode={10_000}, explode_depth=100),
], ids=describe)
def test_huge_exact_requests_are_refused_quickly(s):
    start = time.perf_counter()
    with pytest.raises(LimitError):
        s.distribution()
    assert time.perf_counter() - start < 1.0


# -- sampling ----------------------------------------------------------------------------
SMALL_SPECS = [
    spec(1, 20), spec(3, 6), spec(4, 6, keep=("kh", 3)), spec(2, 20, keep=("kl", 1)),
    spec(5, 6, success=(">=", 5)), spec(3, (1, 1, 2)), spec(2, range(0, 10)),
    spec(2, 6, reroll={1}, reroll_once=True), spec(3, 4, reroll={1, 2}),
    spec(2, 6, explode={6}, explode_depth=3), spec(4, 10, success=(">=", 8), explode={10}),
    spec(4, 6, reroll={1}, keep=("kh", 2), success=(">", 3)),
    spec(3, 4, explode={4}, explode_depth=2, keep=("kl", 2)), spec(1, (-1, 0, 1)),
]


@settings(max_examples=40, deadline=None)
@given(s=st.sampled_from(SMALL_SPECS), seed=st.integers(0, 2 ** 32))
def test_sampled_mean_converges_to_exact_mean(s, seed):
    rng, roll, n = random.Random(seed), s.sampler(False), 4000
    mean = sum(roll(rng) for _ in range(n)) / n
    d = s.distribution()
    assert abs(mean - float(d.mean())) <= 6 * d.stdev() / n ** 0.5 + 1e-9


@settings(max_examples=40, deadline=None)
@given(s=st.sampled_from(SMALL_SPECS), seed=st.integers(0, 2 ** 32),
       record=st.booleans())
def test_sampled_totals_lie_in_the_exact_support(s, seed, record):
    rng, roll = random.Random(seed), s.sampler(record)
    support = set(s.distribution().values())
    totals = [roll(rng) for _ in range(200)]
    if record:
        assert all(rec.total == t for t, rec in totals)
        totals = [t for t, _ in totals]
    assert set(totals) <= support


@settings(max_examples=30, deadline=None)
@given(s=st.sampled_from(SMALL_SPECS), seed=st.integers(0, 2 ** 32))
def test_same_seed_gives_same_record_and_same_total_recorded_or_not(s, seed):
    fast = [s.sampler(False)(random.Random(seed)) for _ in range(2)]
    first, second = (s.sampler(True)(random.Random(seed)) for _ in range(2))
    assert first[1].as_json() == second[1].as_json()
    assert fast[0] == fast[1] == first[0]


def test_record_shows_chain_rerolls_keep_and_naturals():
    s = spec(4, 6, "4d6kh3", keep=("kh", 3))
    total, rec = s.sampler(True)(random.Random(7))
    data = rec.as_json()
    assert data["notation"] == "4d6kh3" and data["total"] == total
    assert [set(d) for d in data["dice"]] == [{"faces", "rerolled", "value", "kept"}] * 4
    assert sum(d["kept"] for d in data["dice"]) == 3
    assert total == sum(d["value"] for d in data["dice"] if d["kept"])
    assert rec.natural == rec.dice[0].faces[0] and rec.naturals == [d.faces[0] for d in rec.dice]


def test_record_marks_successes_only_when_counting():
    _, rec = spec(5, 6, success=(">=", 4)).sampler(True)(random.Random(3))
    assert all(d["success"] == (d["value"] >= 4) for d in rec.as_json()["dice"])


def test_explode_record_counts_each_face_of_the_chain():
    s = spec(6, 10, success=(">=", 8), explode={10})
    for seed in range(50):
        total, rec = s.sampler(True)(random.Random(seed))
        assert total == sum(f >= 8 for d in rec.dice for f in d.faces)


def test_reroll_until_is_bounded_even_when_almost_every_face_rerolls():
    s = spec(1, range(1, 10_001), reroll=set(range(1, 10_000)))
    total, rec = s.sampler(True)(random.Random(1))
    assert total == 10_000 and len(rec.dice[0].rerolled) <= 100


def test_default_explode_depth_is_the_documented_one():
    assert spec(1, 6, explode={6}).explode_depth == DEFAULT_EXPLODE_DEPTH


def test_dice_record_is_plain_data():
    rec = DiceRecord("d6", 4, [])
    assert rec.as_json() == {"notation": "d6", "total": 4, "dice": []}
