"""Grouped rolls: `{3d6, 4d6}kh1`, `{2d6, 3d6, 4d6}>=10`, `{d20, d20}kl1`.

Roll20 and rpg-dice-roller agree: a group of two or more sub-rolls is a pool whose
"dice" are the sub-rolls' totals.  Keep/drop chooses among those totals, a target counts
the sub-rolls whose total passes (minus those matching the failure comparison), and a
group without modifiers is the sum of its sub-rolls.  A group of one sub-roll with modifiers
(`{4d6+3d8}kh1`, `{3d6+2d10}>=5`) is a pool of that sub-roll's own dice: keep/drop chooses
among all of its dice by their faces, a target counts the dice that pass; the sub-roll is
a sum of plain dice terms and numbers (`pooled_distribution`, `pooled_total`).

The sub-rolls are independent given the names in scope, so the exact distribution is
built one sub-roll at a time, remembering only what keep/drop can still change: the k
values held (the kept ones, or the dropped ones) and the running score of the rest.
"""
from __future__ import annotations

import operator
from ..records import record
from fractions import Fraction
from math import prod

from .distribution import Distribution
from .sampling import kept_flags
from ..errors import EvalError, LimitError
from ..limits import MAX_GROUP_PAIRS

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
    """The exact distribution of a group of independent sub-rolls: a pool whose dice are
    the sub-rolls' totals."""
    rolls = [([(_number(v, f"sub-roll {i + 1}"), w) for v, w in d.items()], 1)
             for i, d in enumerate(dists)]
    weights = _kept_weights(rolls, 0, keep, group_score(success, failure), signed=False)
    total = prod(d.total for d in dists)
    capped = total - prod(d.total - d.capped for d in dists)
    return Distribution.from_weights(weights, capped).reduced()


# ------------------------------------------------- a group of one: a pool of its dice

def _hold_position(held: list, value: int, kind: str) -> int:
    """Where a new (latest) die goes among the held ones, so that popping the last one
    removes the die that keep/drop gives up first: the lowest (kh) or highest (kl) kept
    one, the latest among equals; or, when dropping, the die to keep after all, the
    earliest among equals (the same ties as `kept_flags`: the earlier die is kept)."""
    for i, (v, _) in enumerate(held):
        if (kind == "kh" and v < value or kind == "kl" and v > value
                or kind == "dh" and v <= value or kind == "dl" and v >= value):
            return i
    return len(held)


def pooled_distribution(dice: list[tuple[Distribution, int]], constant: int, keep,
                        success, failure) -> Distribution:
    """The exact distribution of `{4d6 + 3d8 - d4 + 2}kh1`: `dice` holds one (face
    distribution, sign) per die in written order; keep/drop chooses among the faces; the
    kept dice add sign * face (or, with a target, +1 / -1 / 0 whatever their sign)."""
    rolls = [(dist.items(), sign) for dist, sign in dice]
    weights = _kept_weights(rolls, constant, keep, group_score(success, failure),
                            signed=success is None)
    return Distribution.from_weights(weights).reduced()


def _kept_weights(rolls: list, constant, keep, score, signed: bool) -> dict:
    """{value: weight} of a pool of independent rolls, each (its [(face, weight)], its
    sign), under keep/drop: the one enumeration behind both kinds of group.

    Built roll by roll, holding the k rolls keep/drop can still change (their face and
    sign, in tie order) and the running score of the rolls already settled."""
    kind, k = keep if keep is not None else ("kh", len(rolls))
    keeping = kind in ("kh", "kl")
    states: dict = {(0, ()): 1}
    for items, sign in rolls:
        pairs = len(states) * len(items)
        if pairs > MAX_GROUP_PAIRS:   # refused on this estimate before the work begins
            raise LimitError(f"the exact odds of this grouped roll would work through "
                             f"{pairs:,} pairs of outcomes (limit {MAX_GROUP_PAIRS:,})",
                             hint="use `rulecraft roll` (sampling) or `simulate` for this")
        out: dict = {}
        for (acc, held), w in states.items():
            for v, c in items:
                grown = list(held)
                grown.insert(_hold_position(grown, v, kind), (v, sign))
                gain = 0
                if len(grown) > k:
                    gone, gone_sign = grown.pop()
                    if not keeping:
                        gain = score(gone) * (gone_sign if signed else 1)
                key = (acc + gain, tuple(grown))
                out[key] = out.get(key, 0) + w * c
        if len(out) > MAX_GROUP_STATES:
            raise LimitError(f"the exact odds of this grouped roll would need more than "
                             f"{MAX_GROUP_STATES:,} states", hint="use sampling")
        states = out
    weights: dict = {}
    for (acc, held), w in states.items():
        value = acc + constant
        if keeping:
            value += sum(score(v) * (s if signed else 1) for v, s in held)
        weights[value] = weights.get(value, 0) + w
    return weights


def pooled_total(faces: list[int], signs: list[int], constant: int, keep, success,
                 failure):
    """The sampled total of a group of one from its dice's faces: (total, kept flags)."""
    score = group_score(success, failure)
    flags = kept_flags(faces, keep)
    total = constant
    for v, s, kept in zip(faces, signs, flags):
        if kept:
            total += score(v) * (s if success is None else 1)
    return total, flags


@record
class GroupRecord:
    """A grouped roll in the transcript: each sub-roll's total, kept or dropped."""

    notation: str
    total: object
    values: list
    kept: list
    notes: tuple = ()     # readings another convention differs on (lang/notation.py)

    @property
    def text(self) -> str:
        parts = [f"{v}" + ("" if k else " dropped") for v, k in zip(self.values, self.kept)]
        return f"{self.notation}: [{', '.join(parts)}] = {self.total}"

    def as_json(self) -> dict:
        return {"notation": self.notation, "total": self.total,
                "groups": [{"total": v, "kept": k} for v, k in zip(self.values, self.kept)]}
