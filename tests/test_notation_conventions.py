"""Dice notation as Roll20 and rpg-dice-roller users mean it (issue #22).

A corpus of the conventions' own documented kinds of example, each written here from
the conventions' documentation (not copied): the expression, what it means in words, and
its exact distribution from an oracle in this file that enumerates every way the dice
can fall, following the words.  Then: the sampled rolls converge on the exact mean, the
fast and recording samplers roll the same values, and the transcript says what happened
to each die.
"""
import itertools
import math
import random
from fractions import Fraction

import pytest

from interpreter.expr.rolling import odds, roll
from interpreter.lang.ast import Dice
from interpreter.lang.parse import parse_expression


# -- the oracle: every way each die can fall, then the pool, then keep and count ---------
def die_ways(sides, reroll=(), once=False, boom=(), depth=0, faces=None):
    """(probability, rolls, capped) for one die: its first roll (rerolls applied), then
    one roll more for every exploding face, at most `depth` more."""
    faces = list(faces or range(1, sides + 1))
    n = len(faces)
    firsts = []
    for f in faces:
        if f in reroll and once:
            firsts += [(Fraction(1, n * n), g) for g in faces]
        elif f in reroll:
            continue
        else:
            firsts.append((Fraction(1, n), f))
    if reroll and not once:     # reroll until: renormalise over the faces that stay
        kept = sum(p for p, _ in firsts)
        firsts = [(p / kept, f) for p, f in firsts]

    def grow(p, rolls, left):
        if rolls[-1] not in boom:
            return [(p, rolls, False)]
        if left == 0:
            return [(p, rolls, True)]
        return [w for g in faces for w in grow(p / n, rolls + [g], left - 1)]

    return [w for p, f in firsts for w in grow(p, [f], depth)]


def oracle(count, ways, mode="!", penetrate=False, keep=None, success=None, failure=None):
    """{total: probability}, P(capped): the pool (with '!' each roll is a die, with '!!'
    a die is its chain's sum; penetrating rolls after the first count one less), the
    kept dice, then their sum or successes minus failures."""
    out, capped = {}, Fraction(0)
    for combo in itertools.product(ways, repeat=count):
        p = math.prod((w[0] for w in combo), start=Fraction(1))
        pool = []
        for _, rolls, _ in combo:
            values = [rolls[0]] + [r - penetrate for r in rolls[1:]]
            pool += values if mode == "!" else [sum(values)]
        if keep:
            kind, k = keep
            pool.sort(reverse=kind in ("kh", "dh"))
            pool = pool[:k] if kind[0] == "k" else pool[k:]
        if success:
            total = sum(1 for v in pool if success(v)) - \
                sum(1 for v in pool if failure and not success(v) and failure(v))
        else:
            total = sum(pool)
        out[total] = out.get(total, 0) + p
        capped += p if any(w[2] for w in combo) else 0
    return out, capped


D = die_ways
CORPUS = [
    # expression, convention, meaning in words, oracle
    ("3d6>3", "Roll20 target number", "count the dice showing 3 or more",
     oracle(3, D(6), success=lambda v: v >= 3)),
    ("3d6<3", "Roll20 target number", "count the dice showing 3 or less",
     oracle(3, D(6), success=lambda v: v <= 3)),
    ("4d10>=8", "rpg-dice-roller target", "count the dice showing 8 or more",
     oracle(4, D(10), success=lambda v: v >= 8)),
    ("4d3>1", "Roll20 target number", "count the dice showing 1 or more: every die",
     oracle(4, D(3), success=lambda v: v >= 1)),
    ("7d4<2", "Roll20 target number", "count the dice showing 2 or less",
     oracle(7, D(4), success=lambda v: v <= 2)),
    ("3d6=6", "rpg-dice-roller target", "count the sixes",
     oracle(3, D(6), success=lambda v: v == 6)),
    ("3d6>3f1", "Roll20 failures", "dice of 3 or more, minus the ones",
     oracle(3, D(6), success=lambda v: v >= 3, failure=lambda v: v == 1)),
    ("4d6>=5f<=2", "rpg-dice-roller failures", "fives and sixes minus ones and twos",
     oracle(4, D(6), success=lambda v: v >= 5, failure=lambda v: v <= 2)),
    ("3d10cs>7", "Roll20 critical success", "the plain sum; dice of 7+ only marked",
     oracle(3, D(10))),
    ("3d6cf<2", "rpg-dice-roller critical failure", "the plain sum; 1s and 2s only marked",
     oracle(3, D(6))),
    ("2d6r<2", "Roll20 reroll", "reroll 1s and 2s until they stop, sum",
     oracle(2, D(6, reroll={1, 2}))),
    ("2d6ro<2", "Roll20 reroll once", "reroll a 1 or 2 once, keep the second roll",
     oracle(2, D(6, reroll={1, 2}, once=True))),
    ("2d6r", "rpg-dice-roller bare reroll", "reroll the lowest face (1s) until it stops",
     oracle(2, D(6, reroll={1}))),
    ("3d4!x2", "Roll20 / rpg-dice-roller explode", "every 4 adds a die (2 at most each)",
     oracle(3, D(4, boom={4}, depth=2))),
    ("2d6!>4x2", "Roll20 explode with a compare point", "4, 5 and 6 explode",
     oracle(2, D(6, boom={4, 5, 6}, depth=2))),
    ("3d4!x2k2", "Roll20 explode then keep", "keep the 2 best of all dice rolled",
     oracle(3, D(4, boom={4}, depth=2), keep=("kh", 2))),
    ("3d4!x2dl1", "rpg-dice-roller explode then drop", "drop the lowest die of the pool",
     oracle(3, D(4, boom={4}, depth=2), keep=("dl", 1))),
    ("4d4!x2kl2", "explode then keep lowest", "the two lowest dice of the pool",
     oracle(4, D(4, boom={4}, depth=2), keep=("kl", 2))),
    ("4d4!x2>=3", "Roll20 exploding successes", "every die of the pool showing 3+ counts",
     oracle(4, D(4, boom={4}, depth=2), success=lambda v: v >= 3)),
    ("3d4!!x2", "Roll20 / rpg-dice-roller compounding", "a chain is one die: its sum",
     oracle(3, D(4, boom={4}, depth=2), mode="!!")),
    ("3d4!!x2k1", "compounding then keep", "the best compounded die",
     oracle(3, D(4, boom={4}, depth=2), mode="!!", keep=("kh", 1))),
    ("3d4!!x2>=5", "compounding successes", "compounded dice reaching 5",
     oracle(3, D(4, boom={4}, depth=2), mode="!!", success=lambda v: v >= 5)),
    ("3d4!px2", "Roll20 / rpg-dice-roller penetrating", "each added die counts 1 less",
     oracle(3, D(4, boom={4}, depth=2), penetrate=True)),
    ("3d4!px2k2", "penetrating then keep", "keep the 2 best of the penetrated pool",
     oracle(3, D(4, boom={4}, depth=2), penetrate=True, keep=("kh", 2))),
    ("2d4!!px2", "compounding penetration", "one die: first roll plus (each later - 1)",
     oracle(2, D(4, boom={4}, depth=2), mode="!!", penetrate=True)),
    ("4d6k3", "Roll20 keep (not d20's 'dice showing 3')", "the 3 highest",
     oracle(4, D(6), keep=("kh", 3))),
    ("4d6d1", "Roll20 bare drop", "drop the lowest",
     oracle(4, D(6), keep=("dl", 1))),
    ("5d6dh2", "drop highest", "drop the 2 highest",
     oracle(5, D(6), keep=("dh", 2))),
    ("4d6min3", "rpg-dice-roller min", "a die below 3 counts 3",
     oracle(4, D(6, faces=[3, 3, 3, 4, 5, 6]))),
    ("4d6max3", "rpg-dice-roller max", "a die above 3 counts 3",
     oracle(4, D(6, faces=[1, 2, 3, 3, 3, 3]))),
    ("3dF", "Fudge / FATE", "each die -1, 0 or +1",
     oracle(3, D(3, faces=[-1, 0, 1]))),
    ("2dF.1", "rpg-dice-roller dF.1", "one -1, four 0, one +1 per die",
     oracle(2, D(6, faces=[-1, 0, 0, 0, 0, 1]))),
    ("0d6", "rpg-dice-roller zero dice", "no dice: 0", ({0: Fraction(1)}, Fraction(0))),
    ("4d6sd", "rpg-dice-roller sort", "the plain sum; the dice shown sorted",
     oracle(4, D(6))),
    ("2d6[fire]", "Roll20 inline label", "the plain sum; the label is only shown",
     oracle(2, D(6))),
    ("4d6kh3[strength]", "Roll20 inline label after modifiers", "the label is only shown",
     oracle(4, D(6), keep=("kh", 3))),
]


def _spec(expr):
    node = parse_expression(expr)
    assert isinstance(node, Dice)
    return node.spec


@pytest.mark.parametrize("expr, convention, meaning, expected", CORPUS,
                         ids=[c[0] for c in CORPUS])
def test_convention_meaning_is_the_exact_distribution(expr, convention, meaning, expected):
    probs, capped = expected
    d = odds(expr)
    assert {v: d.probability(v) for v, _ in d.items()} == probs, f"{convention}: {meaning}"
    assert d.capped_probability() == capped


@pytest.mark.parametrize("expr", [c[0] for c in CORPUS])
def test_sampled_mean_converges_on_the_exact_mean(expr):
    d = odds(expr)
    mean, sd = d.mean(), d.stdev()
    n = 3000
    roll_fast = _spec(expr).sampler(False)
    rng = random.Random(22)
    got = sum(roll_fast(rng) for _ in range(n)) / n
    assert abs(got - float(mean)) <= 5 * sd / math.sqrt(n) + 1e-9


@pytest.mark.parametrize("expr", [c[0] for c in CORPUS])
def test_fast_and_recording_samplers_roll_the_same(expr):
    spec = _spec(expr)
    fast, recorded = spec.sampler(False), spec.sampler(True)
    a, b = random.Random(7), random.Random(7)
    for _ in range(200):
        total, record = recorded(b)
        assert fast(a) == total == record.total


@pytest.mark.parametrize("expr, canonical, note", [
    ("3d6>3", "3d6>=3", "rpg-dice-roller reads it as strict"),
    ("2d6r<2", "2d6r<=2", "rpg-dice-roller reads it as strict"),
    ("3d6!>4", "3d6!>=4", "rpg-dice-roller reads it as strict"),
    ("4d10cs>=7", "4d10cs>=7", "to count successes write the target"),
    ("3d6>=3", "3d6>=3", None),
    ("3d6!!", "3d6!!", None),
])
def test_readings_other_conventions_differ_on_say_so(expr, canonical, note):
    spec = _spec(expr)
    assert spec.text == canonical
    if note is None:
        assert spec.notes == ()
    else:
        assert any(note in n for n in spec.notes)


def _dice(expr, seed):
    return roll(expr, seed=seed).dice[0].dice


def test_transcript_explode_adds_dice_and_keep_drops_among_them():
    for seed in range(200):
        dice = _dice("5d10!k2", seed)
        if any(d.added for d in dice):
            break
    assert len(dice) > 5 and sum(d.kept for d in dice) == 2
    for before, after in zip(dice, dice[1:]):
        assert before.exploded == (after.added and before.faces[-1] == 10)
    assert "dropped" in [w for d in dice for w in d.words()]


def test_transcript_compounding_is_one_die_with_its_chain():
    for seed in range(200):
        dice = _dice("3d6!!", seed)
        if any(d.compounded for d in dice):
            break
    assert len(dice) == 3
    chained = [d for d in dice if d.compounded][0]
    assert len(chained.faces) > 1 and chained.value == sum(chained.faces)
    assert "compounded" in chained.words()


def test_transcript_successes_failures_and_criticals():
    dice = _dice("20d10>=8f1", 5)
    assert {d.value for d in dice if d.success} <= {8, 9, 10}
    assert {d.value for d in dice if d.failure} <= {1}
    assert sum(d.success for d in dice) - sum(d.failure for d in dice) == \
        roll("20d10>=8f1", seed=5).total
    crit = _dice("20d10cs>=9cf<=2", 5)
    assert all((d.critical == "success") == (d.value >= 9) for d in crit)
    assert all((d.critical == "failure") == (d.value <= 2) for d in crit)
    assert sum(d.value for d in crit) == roll("20d10cs>=9cf<=2", seed=5).total


@pytest.mark.parametrize("expr, message", [
    ("6d10f1", "failures"),
    ("6d10>=3f<=3", "both a success and a failure"),
    ("3d6!!!", None),
    ("2d6!!x2!", "only one explode"),
])
def test_meaningless_notation_is_refused_with_a_message(expr, message):
    from interpreter.errors import RulecraftError
    with pytest.raises(RulecraftError) as info:
        odds(expr)
    if message:
        assert message in str(info.value)


@pytest.mark.parametrize("expr, seed, shown", [
    ("4d6kh3", 11, "4d6kh3: [3, 4, 6, 3d] = 13"),
    ("5d10!k2", 11, "5d10!kh2: [5d, 6, 10!, 5d, 6d, 6d] = 16"),
    ("3d6!!", 11, "3d6!!: [3, 4, 9!!(6+3)] = 16"),
    ("4d6!p", 11, "4d6!p: [3, 4, 6!, 2p, 4] = 19"),
    ("6d10>=8f1", 11, "6d10>=8f1: [5, 6, 10*, 5, 6, 6] = 1"),
    ("4d10cs>=9cf<=2", 11, "4d10cs>=9cf<=2: [5, 6, 10**, 5] = 26"),
])
def test_terminal_transcript_uses_the_conventions_markers(expr, seed, shown):
    from interpreter.render.terminal import dice_record_text
    assert dice_record_text(roll(expr, seed=seed).dice[0]).plain == shown
