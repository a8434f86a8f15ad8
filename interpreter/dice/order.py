"""Exact keep-highest / keep-lowest over a pool of identical dice (`4d6kh3`, `200d10kh100`)
by order statistics: no face combination is enumerated (see `keep_sum`).
"""
from __future__ import annotations

from math import comb
from typing import Callable

from .distribution import Distribution, check_outcomes, power_capped
from .sums import repeat_sum, slot_bytes, unpack
from ..errors import EvalError, LimitError
from ..limits import MAX_EXACT_WORK, MAX_OUTCOMES


def keep_sum(die: Distribution, n: int, k: int, highest: bool = True,
             score: Callable[[int], int] | None = None) -> Distribution:
    """Sum of score(value) over the k best of n independent dice (best = highest value
    for `highest`, lowest otherwise), without enumerating face combinations.

    For each value t that the k-th best die can show, and each count a < k of dice
    strictly better than t: choose those a dice (C(n, a)), let them sum as the a-th power
    of the die restricted to better values, and let at least k - a of the other n - a dice
    show t and the rest worse (a binomial tail, computed along a diagonal recurrence in
    O(1) per a).  The kept sum is then (their sum) + (k - a) * score(t).
    """
    ints = die.int_weights()
    if ints is None:
        raise EvalError("keep needs integer die values")
    if not 0 <= k <= n:
        raise EvalError(f"cannot keep {k} of {n} dice")
    score = score or (lambda v: v)
    total = die.total ** n
    capped = power_capped(die, n)
    if k == 0:
        return Distribution({0: total}, total, capped)
    order = sorted(ints, reverse=highest)
    scores = [score(v) for v in order]
    if k == n:
        scored = Distribution(ints, die.total, die.capped).map(score)
        return repeat_sum(scored, n)
    smin, smax = min(scores), max(scores)
    check_outcomes(k * (len(set(scores)) - 1) + 1, f"keeping {k} of {n} such dice")
    slots = k * (smax - smin) + 1
    width = slot_bytes(total)
    if slots > MAX_OUTCOMES:
        check_outcomes(slots, f"keeping {k} of {n} such dice")
    _check_keep_work(len(order), k, smax - smin + 1, width)
    result = _keep_packed(order, scores, ints, die.total, n, k, smin, width)
    weights = unpack(result, k * smin, width, slots)
    return Distribution(weights, total, capped)


def keep_work(values: int, k: int, span: int, width: int) -> int:
    """An estimate of `keep_sum`'s work, in units of about 0.15 microseconds.

    For each of the `values` faces and each a < k, one packed power grows by a
    multiplication of about k * span slots of `width` bytes; the small factor is limited
    where CPython switches to Karatsuba (70 words).  Measured against the real time of
    200d10kh100, 400d6kh200, 100d20kh50, 20d100kh10 and 50d100kh25, the big dice cost
    more per step than this count says (their products are longer): about values ** 0.4,
    normalised to a d10."""
    digits = width // 8 + 1  # 64-bit words per slot
    work = values * k * (k * span * digits // 2 + 1) * min(values * digits, 70) // 64
    return int(work * values ** 0.4 / 10 ** 0.4)


def _check_keep_work(values: int, k: int, span: int, width: int) -> None:
    """Refuse at once a keep whose packed order-statistics work would take more than
    about a second (200d10kh100 is about 0.8 s and allowed; 400d10kh200 is refused)."""
    work = keep_work(values, k, span, width)
    if work > 2 * MAX_EXACT_WORK:
        raise LimitError(f"the exact odds of keeping {k} of these dice are too much work "
                         f"(about {work:,} steps)", hint="use sampling instead")


def _keep_packed(order: list[int], scores: list[int], weights: dict[int, int],
                 die_total: int, n: int, k: int, smin: int, width: int) -> int:
    """The packed result polynomial of `keep_sum` (slot s = kept score sum - k*smin)."""
    bits = width * 8
    result = 0
    better = 0          # packed weights of the values better than t, by shifted score
    better_weight = 0   # their total weight
    for t, s in zip(order, scores):
        w = weights[t]
        worse = die_total - better_weight - w
        top = k - 1 if better_weight else 0
        tails = _keep_tails(n, k, w, worse, top)
        shift = (s - smin) * bits
        power = 1  # better ** a, packed
        for a in range(top + 1):
            if a:
                power *= better
            factor = comb(n, a) * tails[a]
            if factor:
                result += (power * factor) << (shift * (k - a))
        better += w << shift
        better_weight += w
    return result


def _keep_tails(n: int, k: int, w: int, worse: int, top: int) -> list[int]:
    """tails[a] = sum over b >= k-a of C(n-a, b) w^b worse^(n-a-b), for a = 0..top.

    Moving from a to a-1 adds one die and one required die, so along that diagonal
    T(N+1, r+1) = (w + worse) T(N, r) - worse * C(N, r) w^r worse^(N-r).
    """
    tails = [0] * k
    big_n = n - k + 1                  # N for a = k-1 (r = 1)
    whole = w + worse
    tail = whole ** big_n - worse ** big_n
    term = big_n * w * worse ** (big_n - 1)   # C(N, 1) w^1 worse^(N-1)
    r = 1
    for a in range(k - 1, -1, -1):
        if a <= top:
            tails[a] = tail
        if a == 0:
            break
        tail = whole * tail - worse * term
        term = term * w * (big_n + 1) // (r + 1)
        big_n += 1
        r += 1
    return tails

