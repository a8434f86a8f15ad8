"""Grouped rolls: `{3d6, 4d6}kh1`, `{2d6, 3d6, 4d6}>=10`, `{d20, d20}kl1`.

Roll20 and rpg-dice-roller agree: a group of two or more sub-rolls is a pool whose
"dice" are the sub-rolls' totals.  Keep/drop chooses among those totals, a target counts
the sub-rolls whose total passes (minus those matching the failure comparison), and a
group without modifiers is the sum of its sub-rolls.  (A group of one sub-roll with
modifiers means keep/drop among that roll's own dice; it is not read yet.)

The sub-rolls are independent given the names in scope, so the exact distribution is
built one sub-roll at a time, remembering only what keep/drop can still change: the k
values held (the kept ones, or the dropped ones) and the running score of the rest.
"""
from __future__ import annotations

import operator
from bisect import insort
from dataclasses import dataclass
from fractions import Fraction
from math import prod

from .distribution import Distribution
from .sampling import kept_flags
from ..errors import EvalError, LimitError

MAX_GROUP_STATES = 200_000
_OPS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt,
        "=": operator.eq}


def group_score(success, failure):
    """total -> what one kept sub-roll adds: itself, or +1 / -1 / 0 against a target."""
    if success is None:
        return lambda v: v
    s_test, s_n = _OPS[success[0]], success[1]
    if failure is None:
        return lambda v: 1 if s_test(v, s_n) else 0
    f_test, f_n = _OPS[failure[0]], failure[1]
    return lambda v: 1 if s_test(v, s_n) else (-1 if f_test(v, f_n) else 0)


def _number(value, what: str):
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise EvalError(f"a grouped roll's sub-rolls must be numbers; {what} is {value!r}")
    return value


def group_total(values, keep, success, failure):
    """The sampled total of a group from its sub-rolls' values."""
    values = [_number(v, f"sub-roll {i + 1}") for i, v in enumerate(values)]
    score = group_score(success, failure)
    flags = kept_flags(values, keep)
    return sum(score(v) for v, kept in zip(values, flags) if kept), flags


def group_distribution(dists: list[Distribution], keep, success, failure) -> Distribution:
    """The exact distribution of a group of independent sub-rolls."""
    score = group_score(success, failure)
    kind, k = keep if keep is not None else ("kh", len(dists))
    high = kind in ("kh", "dh")
    keeping = kind in ("kh", "kl")
    states: dict = {(0, ()): 1}
    for i, d in enumerate(dists):
        items = [(_number(v, f"sub-roll {i + 1}"), w) for v, w in d.items()]
        out: dict = {}
        for (acc, held), w in states.items():
            for v, c in items:
                grown = list(held)
                insort(grown, v)
                gain = 0
                if len(grown) > k:
                    gone = grown.pop(0) if high else grown.pop()
                    gain = 0 if keeping else score(gone)
                key = (acc + gain, tuple(grown))
                out[key] = out.get(key, 0) + w * c
        if len(out) > MAX_GROUP_STATES:
            raise LimitError(f"the exact odds of this grouped roll would need more than "
                             f"{MAX_GROUP_STATES:,} states", hint="use sampling")
        states = out
    weights: dict = {}
    for (acc, held), w in states.items():
        value = acc + (sum(score(v) for v in held) if keeping else 0)
        weights[value] = weights.get(value, 0) + w
    total = prod(d.total for d in dists)
    capped = total - prod(d.total - d.capped for d in dists)
    return Distribution.from_weights(weights, capped).reduced()


@dataclass
class GroupRecord:
    """A grouped roll in the transcript: each sub-roll's total, kept or dropped."""

    notation: str
    total: object
    values: list
    kept: list

    @property
    def text(self) -> str:
        parts = [f"{v}" + ("" if k else " dropped") for v, k in zip(self.values, self.kept)]
        return f"{self.notation}: [{', '.join(parts)}] = {self.total}"

    def as_json(self) -> dict:
        return {"notation": self.notation, "total": self.total,
                "groups": [{"total": v, "kept": k} for v, k in zip(self.values, self.kept)]}
