"""Exact sums of independent integer distributions: dice pools and `a + b`.

Sums are done by Kronecker substitution: the weights are packed into the bit-slots of one
big integer, so that a convolution is a single big-integer multiply and an n-fold sum is
one `pow`; where that would be too big, a coefficient recurrence for powers of a
polynomial is used, and where the values are sparse or not integers, dictionaries.  Every
result is checked against `MAX_OUTCOMES` before the work is done where a bound is known in
advance, and refused on an estimate of its work (`MAX_EXACT_WORK`) rather than left to
run for many seconds.
"""
from __future__ import annotations

import operator

from .distribution import (MAX_PAIRS, Distribution, check_outcomes, pair_capped,
                           power_capped)
from ..errors import LimitError
from ..limits import MAX_EXACT_WORK, MAX_OUTCOMES

# Above this many bits a packed `pow` (Karatsuba only in CPython) is slower than the
# coefficient recurrence used by `repeat_sum`.
_PACKED_POW_BITS = 1 << 21
# The largest result (in bits) the few packed products of `_binary_power` may make in
# place of the recurrence when the faces outnumber the copies: about half a second.
_PRODUCT_BITS = 1 << 23


# -- packing (Kronecker substitution) ---------------------------------------------------
def slot_bytes(bound: int) -> int:
    """Bytes per slot so that every coefficient <= bound fits without carrying over."""
    return max(1, (bound.bit_length() + 7) // 8)


def pack(weights: dict[int, int], lo: int, width: int, slots: int) -> int:
    """Weights over lo..lo+slots-1 as one big int, coefficient i in bytes [i*w, (i+1)*w)."""
    buf = bytearray(slots * width)
    for v, w in weights.items():
        i = (v - lo) * width
        buf[i:i + width] = w.to_bytes(width, "little")
    return int.from_bytes(buf, "little")


def unpack(packed: int, lo: int, width: int, slots: int) -> dict[int, int]:
    """The inverse of `pack`: value -> non-zero weight."""
    raw = packed.to_bytes(slots * width, "little")
    out: dict[int, int] = {}
    from_bytes = int.from_bytes
    for i in range(slots):
        w = from_bytes(raw[i * width:(i + 1) * width], "little")
        if w:
            out[lo + i] = w
    return out


def _dense(span: int, outcomes: int) -> bool:
    """Whether packing pays: the slots are not overwhelmingly empty."""
    return span + 1 <= MAX_OUTCOMES and span + 1 <= 16 * outcomes + 64


def convolve(a: dict[int, int], b: dict[int, int], bound: int,
             what: str = "this sum") -> dict[int, int]:
    """Weights of the sum of two independent integer outcomes (a polynomial product).

    `bound` is an upper bound on every result weight (the product of the totals).
    """
    lo_a, hi_a, lo_b, hi_b = min(a), max(a), min(b), max(b)
    check_outcomes(len(a) + len(b) - 1, what)
    span = hi_a - lo_a + hi_b - lo_b
    if _dense(span, len(a) * len(b)) and len(a) * len(b) > 16:
        width = slot_bytes(bound)
        pa = pack(a, lo_a, width, hi_a - lo_a + 1)
        pb = pack(b, lo_b, width, hi_b - lo_b + 1)
        return unpack(pa * pb, lo_a + lo_b, width, span + 1)
    if len(a) * len(b) > MAX_PAIRS:
        raise LimitError(f"{what} would enumerate {len(a) * len(b):,} pairs of outcomes "
                         f"(limit {MAX_PAIRS:,})")
    out: dict[int, int] = {}
    for va, wa in a.items():
        for vb, wb in b.items():
            s = va + vb
            out[s] = out.get(s, 0) + wa * wb
        if len(out) > MAX_OUTCOMES:
            check_outcomes(len(out), what)
    return out



# -- sums ------------------------------------------------------------------------------
# -- arithmetic -------------------------------------------------------------------------
def add(a: Distribution, b: Distribution) -> Distribution:
    """The distribution of a + b for independent a and b."""
    ia, ib = a.int_weights(), b.int_weights()
    if ia is None or ib is None:
        return a.combine(b, operator.add)
    total = a.total * b.total
    return Distribution(convolve(ia, ib, total), total, pair_capped(a, b))


def repeat_sum(d: Distribution, n: int) -> Distribution:
    """The sum of n independent copies of d (a pool of n identical dice).

    Integer outcomes: one packed `pow` when that is small enough, otherwise a
    coefficient recurrence for powers of a polynomial; other outcomes: binary powering.
    """
    if n < 0:
        raise ValueError("cannot sum a negative number of copies")
    if n == 0:
        return Distribution.constant(0)
    if n == 1:
        return d
    ints = d.int_weights()
    capped = power_capped(d, n)
    if ints is None:
        return _binary_power(d, n)
    check_outcomes(n * (len(ints) - 1) + 1, f"the sum of {n} such dice")
    total = d.total ** n
    lo, hi = min(ints), max(ints)
    span = n * (hi - lo)
    if not _dense(span, n * len(ints)):
        return _binary_power(d, n)
    width = slot_bytes(total)
    if (span + 1) * width * 8 <= _PACKED_POW_BITS:
        packed = pow(pack(ints, lo, width, hi - lo + 1), n)
        return Distribution(unpack(packed, n * lo, width, span + 1), total, capped)
    if len(ints) > n and (span + 1) * width * 8 <= _PRODUCT_BITS:
        # many faces, few copies (two results of a procedure added): the recurrence's
        # span x faces steps are far slower than the few packed products `add` makes
        # (1,276 faces of 1,000-bit weights, twice: 4.5 s against 0.3 s)
        powered = _binary_power(d, n)
        return Distribution(powered.int_weights(), powered.total, capped)
    work = span * len(ints) * (width // 64 + 1)
    if work > MAX_EXACT_WORK * 4:
        raise LimitError(f"the exact sum of {n} such dice is too much work "
                         f"(about {work:,} steps)", hint="use sampling instead")
    return Distribution(_power_recurrence(ints, lo, hi, n), total, capped)


def _binary_power(d: Distribution, n: int) -> Distribution:
    """n-fold sum by repeated squaring, for outcomes the packed path cannot take."""
    result = None
    base = d
    while n:
        if n & 1:
            result = base if result is None else add(result, base)
        n >>= 1
        if n:
            base = add(base, base)
    return result


def _power_recurrence(ints: dict[int, int], lo: int, hi: int, n: int) -> dict[int, int]:
    """Coefficients of Q(x)^n from Q's coefficients (Q shifted so that q_0 > 0).

    From P = Q^n follows P'Q = nQ'P, which gives each coefficient of P from the previous
    `degree(Q)` ones: p_k = sum_i ((n+1) i - k) q_i p_{k-i} / (k q_0).  This costs
    span x faces small big-int steps instead of one huge multiplication.
    """
    q = [(v - lo, w) for v, w in ints.items() if v != lo]
    q0 = ints[lo]
    span = n * (hi - lo)
    p = [0] * (span + 1)
    p[0] = q0 ** n
    n1 = n + 1
    for k in range(1, span + 1):
        acc = 0
        for i, qi in q:
            if i > k:
                continue
            acc += (n1 * i - k) * qi * p[k - i]
        p[k] = acc // (k * q0)
    return {lo * n + k: w for k, w in enumerate(p) if w}


