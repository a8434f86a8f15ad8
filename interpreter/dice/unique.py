"""Exact odds of unique dice (`5d10u`, rpg-dice-roller's `u`): a die showing a face an
earlier die of the term already shows is rolled again until it shows a new one.

Rolled in order, the dice are a draw without replacement of distinct faces, each next
face with a chance in proportion to how many entries of the die show it.  On a die whose
faces are equally common (d6, d%, dF), every set of m distinct faces is equally likely,
so the distribution is a count of subsets by what they score (`_uniform`, a walk over the
faces in order); otherwise the draw is followed set by set (`_weighted`), which is
bounded by `MAX_UNIQUE_STATES`.  Keep/drop then chooses among the distinct faces.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb, lcm
from typing import Callable

from .distribution import Distribution
from ..errors import LimitError

MAX_UNIQUE_STATES = 200_000


def unique_distribution(counts: dict[int, int], m: int, keep,
                        score: Callable[[int], int]) -> Distribution:
    """The kept score of m unique dice; `counts` maps each face to its entries on the
    die; kept dice add `score(face)`."""
    if len(set(counts.values())) == 1:
        return _uniform(sorted(counts), m, keep, score)
    return _weighted(counts, m, keep, score)


def _kept_ranks(m: int, keep) -> tuple[bool, range]:
    """(whether to walk the faces from the highest, the ranks in that walk kept)."""
    if keep is None:
        return True, range(m)
    kind, k = keep
    if kind == "kh":
        return True, range(k)
    if kind == "kl":
        return False, range(k)
    if kind == "dl":      # drop the k lowest: the m - k highest are kept
        return True, range(m - k)
    return False, range(m - k)   # dh: the m - k lowest are kept


def _uniform(faces: list[int], m: int, keep, score) -> Distribution:
    """Every m-subset of the faces once: for each rank j chosen so far and running kept
    score, the number of subsets reaching it, walking the faces in keep's order."""
    highest, kept = _kept_ranks(m, keep)
    order = sorted(faces, reverse=highest)
    states: list[dict[int, int]] = [dict() for _ in range(m + 1)]
    states[0][0] = 1
    for face in order:
        gain = score(face)
        for j in range(min(m, len(faces)) - 1, -1, -1):   # choose this face as rank j
            if not states[j]:
                continue
            add = gain if j in kept else 0
            target = states[j + 1]
            for acc, w in states[j].items():
                target[acc + add] = target.get(acc + add, 0) + w
    result = states[m]
    assert sum(result.values()) == comb(len(faces), m)
    return Distribution.from_weights(result).reduced()


def _weighted(counts: dict[int, int], m: int, keep, score) -> Distribution:
    """The draw without replacement followed set by set, then keep/drop on each set."""
    whole = sum(counts.values())
    states: dict[frozenset, Fraction] = {frozenset(): Fraction(1)}
    for _ in range(m):
        out: dict[frozenset, Fraction] = {}
        for seen, p in states.items():
            left = whole - sum(counts[f] for f in seen)
            for face, c in counts.items():
                if face not in seen:
                    key = seen | {face}
                    out[key] = out.get(key, 0) + p * Fraction(c, left)
        if len(out) > MAX_UNIQUE_STATES:
            raise LimitError(f"the exact odds of {m} unique dice on this die would follow "
                             f"more than {MAX_UNIQUE_STATES:,} sets of faces",
                             hint="use sampling (roll --times)")
        states = out
    highest, kept = _kept_ranks(m, keep)
    weights: dict[int, Fraction] = {}
    for seen, p in states.items():
        ranked = sorted(seen, reverse=highest)
        value = sum(score(f) for j, f in enumerate(ranked) if j in kept)
        weights[value] = weights.get(value, 0) + p
    scale = lcm(*(w.denominator for w in weights.values()))
    return Distribution.from_weights({v: int(w * scale) for v, w in weights.items()}).reduced()
