"""Exact probability distributions with integer weights over a common total.

Rulecraft answers "what are the odds" exactly, so a `Distribution` never holds floats:
each outcome has an integer weight and the probability of an outcome is weight/total.
Floats appear only when a renderer asks for `stdev()` or percentages.

`capped` is the part of the total mass in which an explosion cap (or any other declared
enumeration cut) was reached: those outcomes are included with the value they had when
the cut happened, and the size of that mass is carried along so it can be reported,
never hidden.

Outcomes are hashable values: integers mostly, booleans for comparisons and strings for
procedure outcomes.  Because Python treats `True == 1`, booleans are stored under private
keys so that a distribution over {True, 1} keeps them as two outcomes.

Speed: sums of integer distributions (the common case: dice pools) are done by Kronecker
substitution - the weights are packed into the bit-slots of one big integer, so that a
convolution is a single big-integer multiply and an n-fold sum is one `pow` - falling back
to dictionaries where the values are sparse or not integers.  Every result is checked
against `MAX_OUTCOMES` before the work is done where a bound is known in advance.
"""
from __future__ import annotations

import operator
from fractions import Fraction
from math import comb, gcd, lcm, sqrt
from typing import Any, Callable, Hashable, Iterable, Sequence

from ..errors import EvalError, LimitError
from ..limits import MAX_OUTCOMES

# Pairs of outcomes one general `combine` may enumerate (about a second of Python work).
MAX_PAIRS = 4_000_000
# Above this many bits a packed `pow` (Karatsuba only in CPython) is slower than the
# coefficient recurrence used by `repeat_sum`.
_PACKED_POW_BITS = 1 << 21
# Work (in big-int operations weighted by size) beyond which an exact computation is
# refused rather than left to run for many seconds.
MAX_EXACT_WORK = 4_000_000

_COMPARE_OPS: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt,
    "=": operator.eq, "==": operator.eq, "!=": operator.ne,
}


class _Flag:
    """Stands for a bool inside weight dicts, so that True and 1 stay distinct outcomes."""

    __slots__ = ("value",)

    def __init__(self, value: bool):
        self.value = value

    def __repr__(self) -> str:
        return repr(self.value)


_FLAG = {True: _Flag(True), False: _Flag(False)}


def _key(value: Hashable) -> Hashable:
    """The dict key under which an outcome is stored (bools get their own keys)."""
    return _FLAG[value] if value.__class__ is bool else value


def _unkey(key: Hashable) -> Hashable:
    """The outcome a dict key stands for."""
    return key.value if key.__class__ is _Flag else key


def order_key(value: Any) -> tuple:
    """Sort key that never raises on a mix of bools, numbers and strings.

    Booleans first, then numbers, then strings, then anything else by its repr.
    """
    if value.__class__ is bool:
        return (0, value)
    if isinstance(value, (int, Fraction, float)):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    return (3, repr(value))


def _as_number(value: Any) -> int | Fraction:
    """An outcome as an exact number (bools count 0/1); strings are not numbers."""
    if isinstance(value, (int, Fraction)):
        return value
    if isinstance(value, float):
        return Fraction(value)
    raise EvalError(f"the outcome {value!r} is not a number")


def _check_outcomes(count: int, what: str) -> None:
    """Refuse a result with more distinct outcomes than `MAX_OUTCOMES`."""
    if count > MAX_OUTCOMES:
        raise LimitError(
            f"{what} would have {count:,} or more distinct outcomes; "
            f"exact odds are limited to {MAX_OUTCOMES:,}",
            hint="use sampling (roll --times) for a distribution this large")


class Distribution:
    """An immutable exact distribution: integer weights over a common integer total."""

    __slots__ = ("_w", "_total", "_capped", "_items", "_ints_cache")

    def __init__(self, weights: dict, total: int, capped: int = 0):
        """Trusted constructor: `weights` maps keys (see `_key`) to positive ints summing
        to `total`.  Use `from_weights`, `constant` or `uniform` from outside."""
        object.__setattr__(self, "_w", weights)
        object.__setattr__(self, "_total", total)
        object.__setattr__(self, "_capped", capped)
        object.__setattr__(self, "_items", None)
        object.__setattr__(self, "_ints_cache", None)

    def __setattr__(self, name, value):
        raise AttributeError("Distribution is immutable")

    # -- construction ------------------------------------------------------------------
    @classmethod
    def constant(cls, value: Hashable) -> "Distribution":
        """A certain outcome (a number in an expression, a fixed stat)."""
        return cls({_key(value): 1}, 1)

    @classmethod
    def uniform(cls, faces: Sequence[Hashable]) -> "Distribution":
        """One roll of a die with these faces; a repeated face gets a repeated weight."""
        if not faces:
            raise EvalError("a die needs at least one face")
        _check_outcomes(len(set(faces)), "this die")
        weights: dict = {}
        for face in faces:
            k = _key(face)
            weights[k] = weights.get(k, 0) + 1
        return cls(weights, len(faces))

    @classmethod
    def from_weights(cls, weights: dict, capped: int = 0) -> "Distribution":
        """A distribution from outcome -> non-negative integer weight (zeros dropped)."""
        clean: dict = {}
        for value, weight in weights.items():
            if not isinstance(weight, int) or isinstance(weight, bool) or weight < 0:
                raise ValueError(f"weight of {value!r} must be a non-negative int")
            if weight:
                k = _key(value)
                clean[k] = clean.get(k, 0) + weight
        total = sum(clean.values())
        if total == 0:
            raise ValueError("a distribution needs some positive weight")
        if not 0 <= capped <= total:
            raise ValueError("capped mass must lie between 0 and the total")
        _check_outcomes(len(clean), "this distribution")
        return cls(clean, total, capped)

    @classmethod
    def mix(cls, branches: Iterable[tuple[int | Fraction, "Distribution"]]) -> "Distribution":
        """A weighted mixture: branch i is taken with probability weight_i / sum(weights).

        This is how a `let` binding or a procedure branch is enumerated: each value of
        the bound roll (with its weight) selects the distribution of what follows.
        Arithmetic stays exact: the result's total is the least common denominator.
        """
        parts = []
        for weight, dist in branches:
            weight = Fraction(weight)
            if weight < 0:
                raise ValueError("mixture weights must be non-negative")
            if weight:
                parts.append((weight, dist.reduced()))
        if not parts:
            raise ValueError("a mixture needs a branch with positive weight")
        wsum = sum(w for w, _ in parts)
        probs = [(w / wsum, d) for w, d in parts]
        total = lcm(*(p.denominator * d._total for p, d in probs))
        merged: dict = {}
        capped = 0
        for p, dist in probs:
            factor = p.numerator * (total // (p.denominator * dist._total))
            for k, w in dist._w.items():
                merged[k] = merged.get(k, 0) + w * factor
            capped += dist._capped * factor
        _check_outcomes(len(merged), "this mixture")
        return cls(merged, total, capped)

    # -- inspection --------------------------------------------------------------------
    @property
    def total(self) -> int:
        """The common denominator of all weights."""
        return self._total

    @property
    def capped(self) -> int:
        """The weight of the mass in which an enumeration cap was reached."""
        return self._capped

    def items(self) -> list[tuple[Hashable, int]]:
        """(outcome, weight) pairs sorted by outcome (bools, numbers, strings)."""
        if self._items is None:
            pairs = sorted(((_unkey(k), w) for k, w in self._w.items()),
                           key=lambda vw: order_key(vw[0]))
            object.__setattr__(self, "_items", pairs)
        return list(self._items)

    def values(self) -> list[Hashable]:
        """The outcomes, sorted."""
        return [v for v, _ in self.items()]

    def weight(self, value: Hashable) -> int:
        """The integer weight of one outcome (0 if impossible)."""
        return self._w.get(_key(value), 0)

    def probability(self, value: Hashable) -> Fraction:
        """The exact chance of one outcome."""
        return Fraction(self.weight(value), self._total)

    def capped_probability(self) -> Fraction:
        """The exact chance that an enumeration cap was reached."""
        return Fraction(self._capped, self._total)

    def _numbers(self) -> list[tuple[int | Fraction, int]]:
        """(number, weight) pairs; refuses non-numeric outcomes with an EvalError."""
        return [(_as_number(_unkey(k)), w) for k, w in self._w.items()]

    def mean(self) -> Fraction:
        """The exact expected value (bools count as 0 and 1)."""
        return Fraction(sum(v * w for v, w in self._numbers()), self._total)

    def variance(self) -> Fraction:
        """The exact variance E[X^2] - E[X]^2."""
        pairs = self._numbers()
        mean = Fraction(sum(v * w for v, w in pairs), self._total)
        square = Fraction(sum(v * v * w for v, w in pairs), self._total)
        return square - mean * mean

    def stdev(self) -> float:
        """The standard deviation, as a float because it is for display."""
        return sqrt(self.variance())

    def min(self) -> Hashable:
        """The least outcome in `items()` order."""
        return self.items()[0][0]

    def max(self) -> Hashable:
        """The greatest outcome in `items()` order."""
        return self.items()[-1][0]

    def at_least(self, x) -> Fraction:
        """The exact chance that the outcome is >= x (numbers only)."""
        return Fraction(sum(w for v, w in self._numbers() if v >= x), self._total)

    def at_most(self, x) -> Fraction:
        """The exact chance that the outcome is <= x (numbers only)."""
        return Fraction(sum(w for v, w in self._numbers() if v <= x), self._total)

    def __len__(self) -> int:
        return len(self._w)

    def __iter__(self):
        return iter(self.items())

    def __eq__(self, other) -> bool:
        """Equal when every outcome (and the capped mass) has the same probability."""
        if not isinstance(other, Distribution):
            return NotImplemented
        if self._w.keys() != other._w.keys():
            return False
        ta, tb = self._total, other._total
        if self._capped * tb != other._capped * ta:
            return False
        ow = other._w
        return all(w * tb == ow[k] * ta for k, w in self._w.items())

    def __hash__(self) -> int:
        red = self.reduced()
        return hash((frozenset(red._w.items()), red._total, red._capped))

    def __repr__(self) -> str:
        body = ", ".join(f"{v!r}: {w}" for v, w in self.items())
        tail = f", capped={self._capped}" if self._capped else ""
        return f"Distribution({{{body}}}, total={self._total}{tail})"

    # -- transformation ----------------------------------------------------------------
    def reduced(self) -> "Distribution":
        """The same distribution with weights divided by their greatest common divisor."""
        g = gcd(self._total, self._capped, *self._w.values())
        if g == 1:
            return self
        return Distribution({k: w // g for k, w in self._w.items()},
                            self._total // g, self._capped // g)

    def map(self, f: Callable[[Hashable], Hashable]) -> "Distribution":
        """The distribution of f(outcome); outcomes mapping to equal results merge."""
        out: dict = {}
        for k, w in self._w.items():
            r = _key(f(_unkey(k)))
            out[r] = out.get(r, 0) + w
        return Distribution(out, self._total, self._capped)

    def combine(self, other: "Distribution",
                f: Callable[[Hashable, Hashable], Hashable]) -> "Distribution":
        """The distribution of f(a, b) for independent a ~ self and b ~ other."""
        pairs = len(self._w) * len(other._w)
        if pairs > MAX_PAIRS:
            raise LimitError(
                f"combining distributions of {len(self._w):,} and {len(other._w):,} "
                f"outcomes would enumerate {pairs:,} pairs (limit {MAX_PAIRS:,})")
        out: dict = {}
        right = [(_unkey(k), w) for k, w in other._w.items()]
        for ka, wa in self._w.items():
            a = _unkey(ka)
            for b, wb in right:
                r = _key(f(a, b))
                out[r] = out.get(r, 0) + wa * wb
            if len(out) > MAX_OUTCOMES:
                _check_outcomes(len(out), "this combination")
        return Distribution(out, self._total * other._total,
                            _pair_capped(self, other))

    def _ints(self) -> dict[int, int] | None:
        """Outcome -> weight with bools read as ints, or None if some outcome is not an
        int.  This is the form the packed fast paths work on."""
        if self._ints_cache is None:
            out: dict[int, int] = {}
            for k, w in self._w.items():
                v = _unkey(k)
                if v.__class__ is not int:
                    if not isinstance(v, int):  # bools pass, read as 0/1
                        object.__setattr__(self, "_ints_cache", False)
                        return None
                    v = int(v)
                out[v] = out.get(v, 0) + w
            object.__setattr__(self, "_ints_cache", out)
        return self._ints_cache or None


def _pair_capped(a: Distribution, b: Distribution) -> int:
    """Capped mass of an independent pair: everything but (uncapped a) x (uncapped b)."""
    if not a._capped and not b._capped:
        return 0
    return a._total * b._total - (a._total - a._capped) * (b._total - b._capped)


def _power_capped(d: Distribution, n: int) -> int:
    """Capped mass of n independent copies: everything but all-uncapped."""
    if not d._capped:
        return 0
    return d._total ** n - (d._total - d._capped) ** n


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
    _check_outcomes(len(a) + len(b) - 1, what)
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
            _check_outcomes(len(out), what)
    return out


# -- arithmetic -------------------------------------------------------------------------
def add(a: Distribution, b: Distribution) -> Distribution:
    """The distribution of a + b for independent a and b."""
    ia, ib = a._ints(), b._ints()
    if ia is None or ib is None:
        return a.combine(b, operator.add)
    total = a._total * b._total
    return Distribution(convolve(ia, ib, total), total, _pair_capped(a, b))


def negate(d: Distribution) -> Distribution:
    """The distribution of -x."""
    return d.map(operator.neg)


def scale(d: Distribution, k) -> Distribution:
    """The distribution of k * x (k a constant)."""
    return d.map(lambda v: v * k)


def compare(d: Distribution, op: str, x) -> Distribution:
    """The bool distribution of `outcome op x` (op one of >=, >, <=, <, =, ==, !=)."""
    test = _COMPARE_OPS.get(op)
    if test is None:
        raise EvalError(f"unknown comparison {op!r}")
    yes = sum(w for v, w in d._numbers() if test(v, x)) if op not in ("=", "==", "!=") \
        else sum(w for k, w in d._w.items() if test(_unkey(k), x))
    weights = {}
    if yes:
        weights[_FLAG[True]] = yes
    if d._total - yes:
        weights[_FLAG[False]] = d._total - yes
    return Distribution(weights, d._total, d._capped)


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
    ints = d._ints()
    capped = _power_capped(d, n)
    if ints is None:
        return _binary_power(d, n)
    _check_outcomes(n * (len(ints) - 1) + 1, f"the sum of {n} such dice")
    total = d._total ** n
    lo, hi = min(ints), max(ints)
    span = n * (hi - lo)
    if not _dense(span, n * len(ints)):
        return _binary_power(d, n)
    width = slot_bytes(total)
    if (span + 1) * width * 8 <= _PACKED_POW_BITS:
        packed = pow(pack(ints, lo, width, hi - lo + 1), n)
        return Distribution(unpack(packed, n * lo, width, span + 1), total, capped)
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


# -- order statistics -------------------------------------------------------------------
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
    ints = die._ints()
    if ints is None:
        raise EvalError("keep needs integer die values")
    if not 0 <= k <= n:
        raise EvalError(f"cannot keep {k} of {n} dice")
    score = score or (lambda v: v)
    total = die._total ** n
    capped = _power_capped(die, n)
    if k == 0:
        return Distribution({0: total}, total, capped)
    order = sorted(ints, reverse=highest)
    scores = [score(v) for v in order]
    if k == n:
        scored = Distribution(ints, die._total, die._capped).map(score)
        return repeat_sum(scored, n)
    smin, smax = min(scores), max(scores)
    _check_outcomes(k * (len(set(scores)) - 1) + 1, f"keeping {k} of {n} such dice")
    slots = k * (smax - smin) + 1
    width = slot_bytes(total)
    if slots > MAX_OUTCOMES:
        _check_outcomes(slots, f"keeping {k} of {n} such dice")
    _check_keep_work(len(order), k, smax - smin + 1, width)
    result = _keep_packed(order, scores, ints, die._total, n, k, smin, width)
    weights = unpack(result, k * smin, width, slots)
    return Distribution(weights, total, capped)


def _check_keep_work(values: int, k: int, span: int, width: int) -> None:
    """Refuse a keep whose packed order-statistics work would take many seconds."""
    digits = width // 8 + 1  # 64-bit words per slot
    work = values * k * (k * span * digits // 2 + 1) * min(values * digits, 70) // 64
    if work > MAX_EXACT_WORK:
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
