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

Sums of integer distributions live in `sums.py` (packed big-integer convolution) and
keep-highest / keep-lowest over many dice in `order.py` (order statistics); this module
holds the distribution itself, mixtures, `map` / `combine` and comparisons.
"""
from __future__ import annotations

import operator
from fractions import Fraction
from math import gcd, lcm, sqrt
from typing import Any, Callable, Hashable, Iterable, Sequence

from ..errors import EvalError, LimitError
from ..limits import MAX_OUTCOMES

# Pairs of outcomes one general `combine` may enumerate (about a second of Python work).
MAX_PAIRS = 4_000_000

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


class _Holding:
    """Stands for a list or record outcome (a tuple) holding bools, so that `[true, 1]`
    and `[1, 1]` stay distinct outcomes too: equal by the tuple with its bools flagged."""

    __slots__ = ("value", "flagged")

    def __init__(self, value: tuple):
        self.value, self.flagged = value, _flagged(value)

    def __eq__(self, other):
        return other.__class__ is _Holding and other.flagged == self.flagged

    def __hash__(self):
        return hash(self.flagged)

    def __repr__(self) -> str:
        return repr(self.value)


def _flagged(value):
    cls = value.__class__
    if cls is bool:
        return _FLAG[value]
    if cls is tuple:
        return tuple(_flagged(v) for v in value)
    return value


def _holds_bool(value: tuple) -> bool:
    return any(v.__class__ is bool or (v.__class__ is tuple and _holds_bool(v)) for v in value)


def _key(value: Hashable) -> Hashable:
    """The dict key under which an outcome is stored (bools get their own keys, and so do
    tuples holding bools)."""
    cls = value.__class__
    if cls is bool:
        return _FLAG[value]
    if cls is tuple and _holds_bool(value):
        return _Holding(value)
    return value


outcome_key = _key   # for code that gathers weights by outcome before a distribution is made


def _unkey(key: Hashable) -> Hashable:
    """The outcome a dict key stands for."""
    cls = key.__class__
    return key.value if cls is _Flag or cls is _Holding else key


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


def check_outcomes(count: int, what: str) -> None:
    """Refuse a result with more distinct outcomes than `MAX_OUTCOMES`."""
    if count > MAX_OUTCOMES:
        raise LimitError(
            f"{what} would have {count:,} or more distinct outcomes; "
            f"exact odds are limited to {MAX_OUTCOMES:,}",
            hint="use sampling (roll --times) for a distribution this large")


class Distribution:
    """An immutable exact distribution: integer weights over a common integer total."""

    __slots__ = ("_w", "_total", "_capped", "_items", "_ints_cache", "_chances")

    def __init__(self, weights: dict, total: int, capped: int = 0):
        """Trusted constructor: `weights` maps keys (see `_key`) to positive ints summing
        to `total`.  Use `from_weights`, `constant` or `uniform` from outside."""
        object.__setattr__(self, "_w", weights)
        object.__setattr__(self, "_total", total)
        object.__setattr__(self, "_capped", capped)
        object.__setattr__(self, "_items", None)
        object.__setattr__(self, "_ints_cache", None)
        object.__setattr__(self, "_chances", None)

    def __setattr__(self, name, value):
        raise AttributeError("Distribution is immutable")

    def __reduce__(self):
        """Copied and pickled through the constructor (the ruleset cache keeps the
        distributions a built model holds); the derived caches are rebuilt on use."""
        return (Distribution, (self._w, self._total, self._capped))

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
        check_outcomes(len(set(faces)), "this die")
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
        check_outcomes(len(clean), "this distribution")
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
        check_outcomes(len(merged), "this mixture")
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
            if len(self._w) == 1:   # most are: a constant, a name's certain value
                pairs = [(_unkey(k), w) for k, w in self._w.items()]
            else:
                pairs = sorted(((_unkey(k), w) for k, w in self._w.items()),
                               key=lambda vw: order_key(vw[0]))
            object.__setattr__(self, "_items", pairs)
        return list(self._items)

    def chances(self) -> list[tuple[Hashable, Fraction | None]]:
        """(outcome, its chance) pairs in the order of `items`, the chance None for a
        certain outcome: what an enumeration branches a state by, at every branch of
        every state (the fractions are made once per distribution, not per branch)."""
        if self._chances is None:
            total = self._total
            object.__setattr__(self, "_chances", [
                (v, None if w == total else Fraction(w, total)) for v, w in self.items()])
        return self._chances

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
                check_outcomes(len(out), "this combination")
        return Distribution(out, self._total * other._total,
                            pair_capped(self, other))

    def int_weights(self) -> dict[int, int] | None:
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


def pair_capped(a: Distribution, b: Distribution) -> int:
    """Capped mass of an independent pair: everything but (uncapped a) x (uncapped b)."""
    if not a._capped and not b._capped:
        return 0
    return a._total * b._total - (a._total - a._capped) * (b._total - b._capped)


def power_capped(d: Distribution, n: int) -> int:
    """Capped mass of n independent copies: everything but all-uncapped."""
    if not d._capped:
        return 0
    return d._total ** n - (d._total - d._capped) ** n



# -- simple transformations ------------------------------------------------------------
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


