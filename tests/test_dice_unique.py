"""Unique dice `u` (rpg-dice-roller): a die showing a face an earlier die of the term
shows is rolled again until its face is new.  Exact odds against an oracle that follows
every sequence of rolls; sampled rolls against the exact odds."""
import math
import random
from fractions import Fraction

import pytest

from interpreter.dice.distribution import Distribution
from interpreter.errors import RulecraftError
from interpreter.expr.exact import exact
from interpreter.expr.sampled import Context, compile_sampler
from interpreter.lang.parse import parse_expression


def odds(text):
    return exact(parse_expression(text), {})


def oracle(faces, count, value):
    """Every sequence of first rolls and rerolls, to a new face each time: the chance of
    each sequence of faces shown, then `value(faces shown in order)`."""
    out = {}

    def walk(shown, p):
        if len(shown) == count:
            v = value(shown)
            out[v] = out.get(v, 0) + p
            return
        # rolling again until new: the chance of a new face f is c_f / (entries left)
        left = [f for f in faces if f not in shown]
        for f in set(left):
            walk(shown + [f], p * Fraction(left.count(f), len(left)))
    walk([], Fraction(1))
    scale = math.lcm(*(p.denominator for p in out.values()))
    return Distribution.from_weights({v: int(p * scale) for v, p in out.items()})


D6, D10 = list(range(1, 7)), list(range(1, 11))

CASES = [
    ("3d6u", D6, 3, sum),
    ("6d6u", D6, 6, sum),                                    # every face once: 21
    ("4d10ukh2", D10, 4, lambda s: sum(sorted(s)[-2:])),
    ("4d10ukl1", D10, 4, min),
    ("4d6udl1", D6, 4, lambda s: sum(sorted(s)[1:])),
    ("4d6udh2", D6, 4, lambda s: sum(sorted(s)[:2])),
    ("4d10u>=8", D10, 4, lambda s: sum(f >= 8 for f in s)),
    ("4d10u>=8f<=2", D10, 4, lambda s: sum(f >= 8 for f in s) - sum(f <= 2 for f in s)),
    ("3d{1,1,1,2,3,4}u", [1, 1, 1, 2, 3, 4], 3, sum),       # unequal faces: not uniform
    ("2d{1,1,2,3}ukh1", [1, 1, 2, 3], 2, max),
    ("2dF.1u", [-1, 0, 0, 0, 0, 1], 2, sum),
    ("3d6umax4", [1, 2, 3, 4, 4, 4], 3, sum),               # clamps first, then unique
]


@pytest.mark.parametrize("text,faces,count,value", CASES)
def test_unique_dice_exactly_against_every_sequence(text, faces, count, value):
    assert odds(text) == oracle(faces, count, value)


@pytest.mark.parametrize("text", ["5d10u", "3d{1,1,1,2,3,4}u", "4d10ukh2", "2dF.1u>=0"])
def test_sampled_unique_dice_follow_the_exact_odds(text):
    dist = odds(text)
    sample = compile_sampler(parse_expression(text), False)
    ctx = Context({}, random.Random(11))
    runs = 4000
    values = [sample(ctx) for _ in range(runs)]
    assert set(values) <= set(dist.values())
    mean = sum(values) / runs
    assert abs(mean - float(dist.mean())) < 4 * dist.stdev() / runs ** 0.5 + 1e-9


def test_the_transcript_shows_the_faces_rolled_again():
    ctx = Context({}, random.Random(3), record=[])
    compile_sampler(parse_expression("6d6u"), True)(ctx)
    (rec,) = ctx.record
    assert sorted(d.value for d in rec.dice) == D6
    assert any(d.rerolled for d in rec.dice)
    assert all(set(d.rerolled) <= {e.value for e in rec.dice[:i]}
               for i, d in enumerate(rec.dice))


@pytest.mark.parametrize("text,message", [
    ("7d6u", "7 dice cannot show 7 different faces: the die has 6"),
    ("3d6ur1", "not read together with rerolls or explosions"),
    ("3d6u!", "not read together with rerolls or explosions"),
    ("3d6uu", "only one unique modifier 'u' per dice term"),
    ("(n)d6u", None),                        # checked when the count is known
])
def test_impossible_unique_dice_are_refused_when_read(text, message):
    if message is None:
        parse_expression(text)
        with pytest.raises(RulecraftError, match="cannot show 7 different faces"):
            exact(parse_expression(text), {"n": 7})
        return
    with pytest.raises(RulecraftError) as caught:
        parse_expression(text)
    assert message in caught.value.message
