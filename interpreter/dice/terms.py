"""Dice terms: what one piece of dice notation means, rolled (sampled) or exactly.

A `DiceSpec` is the compiled form of one dice term such as `4d6kh3`, `d{0..9}`,
`5d10!k2`, `6d10>=8f1` or `2d6ro<=2`.  The notation reader (lang/notation.py) builds it;
this module owns its exact meaning and `sampling.py` its rolled meaning, written from the
same rules so that the two cannot disagree (the tests check it):

1. each die is rolled on `faces` (uniform over the tuple; repeats allowed; `min`/`max`
   clamps are already applied to the faces);
2. reroll: a die whose first face is in `reroll` is rolled again; `reroll_once` rolls
   again at most once (keeping the second result), otherwise until the face is not in the
   set; explosions are never rerolled;
3. explode: a roll whose face is in `explode` is followed by another roll, at most
   `explode_depth` times per die.  With `compound` (`!!`) the chain is one die whose value
   is its sum; otherwise (`!`) every roll of the chain is a die of its own in the pool.
   With `penetrate` (`!p`, `!!p`) every roll after the first counts its face minus 1
   (explosion is decided on the face as rolled).  The mass in which the last allowed roll
   would have exploded again is the distribution's `capped` mass;
4. keep: ("kh"|"kl", k) keeps the k highest / lowest die values of the pool, ("dh"|"dl",
   k) drops them (with `!` the pool grows, so drop is not the same as keep);
5. total: the sum of kept die values; with a target `success=(op, n)` the number of kept
   dice whose value satisfies `value op n`, minus (with `failure`) the number of kept
   dice satisfying the failure comparison;
6. unique (`u`): a die whose face an earlier die of the term shows is rolled again until
   its face is new (no rerolls or explosions with it; at most as many dice as faces);
7. `crit_success` / `crit_failure` only mark dice in the transcript (Roll20's and
   rpg-dice-roller's `cs` / `cf`); `sort` only orders the transcript's dice; `label`
   (`2d6[fire]`) is only shown.

Randomness: see sampling.py (one `rng.random()` per roll, each die finished before the
next, so a seed gives the same rolls recorded or not).
"""
from __future__ import annotations

import operator
from ..records import record, field
from functools import lru_cache
from typing import Callable

from .distribution import Distribution
from .order import keep_sum
from .sums import convolve, repeat_sum
from .pool import exploding_pool
from .unique import unique_distribution
from . import sampling
from ..errors import EvalError, LimitError, Location
from ..limits import DEFAULT_EXPLODE_DEPTH, MAX_DICE, MAX_EXPLODE_DEPTH, MAX_OUTCOMES, MAX_SIDES

# Entries one exploding die's exact chain may merge (about a second of work).
MAX_CHAIN_WORK = 500_000

SUCCESS_OPS: dict[str, Callable[[int, int], bool]] = {
    ">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt,
    "=": operator.eq,
}
KEEP_KINDS = ("kh", "kl", "dh", "dl")
DieRecord, DiceRecord = sampling.DieRecord, sampling.DiceRecord


def overlap(a: tuple[str, int], b: tuple[str, int]) -> int | None:
    """An integer satisfying both comparisons, if any (each is a half-line or a point,
    so if they meet, one of the two numbers or its neighbour lies in both)."""
    for v in (a[1] - 1, a[1], a[1] + 1, b[1] - 1, b[1], b[1] + 1):
        if SUCCESS_OPS[a[0]](v, a[1]) and SUCCESS_OPS[b[0]](v, b[1]):
            return v
    return None


@record(frozen=True)
class DiceSpec:
    """The compiled meaning of one dice term (see the module docstring)."""

    count: int
    faces: tuple[int, ...]
    text: str
    reroll: frozenset[int] | None = None
    reroll_once: bool = False
    explode: frozenset[int] | None = None
    explode_depth: int = DEFAULT_EXPLODE_DEPTH
    compound: bool = False
    penetrate: bool = False
    keep: tuple[str, int] | None = None
    success: tuple[str, int] | None = None
    failure: tuple[str, int] | None = None
    crit_success: tuple[str, int] | None = None
    crit_failure: tuple[str, int] | None = None
    sort: str | None = None
    unique: bool = False             # `u`: a face already shown is rolled again (unique.py)
    label: str | None = None         # Roll20's inline label: shown, never counted
    notes: tuple[str, ...] = field(default=(), compare=False)  # advice, not meaning

    # -- checking ----------------------------------------------------------------------
    def validate(self, location: Location | None = None) -> None:
        """Refuse a term that is absurd (LimitError) or meaningless (EvalError)."""
        where = f"in {self.text!r}: " if self.text else ""

        def limit(message):
            raise LimitError(where + message, location)

        def wrong(message):
            raise EvalError(where + message, location)

        if self.count < 0:
            wrong(f"a dice term cannot roll {self.count} dice")
        if self.count > MAX_DICE:
            limit(f"{self.count:,} dice is more than the limit of {MAX_DICE:,}")
        if not self.faces:
            wrong("a die needs at least one face")
        if len(self.faces) > MAX_SIDES:
            limit(f"a die with {len(self.faces):,} faces is more than the limit of "
                  f"{MAX_SIDES:,}")
        if any(f.__class__ is not int for f in self.faces):
            wrong("die faces must be whole numbers")
        if self.reroll and not self.reroll_once and all(f in self.reroll for f in self.faces):
            limit("every face is rerolled, so the die would reroll forever")
        if self.explode:
            if len(set(self.faces)) == 1 and self.faces[0] in self.explode:
                wrong("a one-sided die that explodes would explode forever")
            if self.explode_depth < 0:
                wrong("the explosion depth cannot be negative")
            if self.explode_depth > MAX_EXPLODE_DEPTH:
                limit(f"an explosion depth of {self.explode_depth:,} is more than the "
                      f"limit of {MAX_EXPLODE_DEPTH}")
        if self.unique:
            if self.reroll or self.explode:
                wrong("unique dice ('u') are not read together with rerolls or explosions")
            distinct = len(set(self.faces))
            if self.count > distinct:
                wrong(f"{self.count} dice cannot show {self.count} different faces: the die "
                      f"has {distinct}")
        if self.keep is not None:
            kind, k = self.keep
            if kind not in KEEP_KINDS:
                wrong(f"unknown keep form {kind!r}")
            if not 0 <= k <= self.count:
                wrong(f"cannot {'keep' if kind[0] == 'k' else 'drop'} {k} of "
                      f"{self.count} dice")
        for name in ("success", "failure", "crit_success", "crit_failure"):
            cmp = getattr(self, name)
            if cmp is not None and cmp[0] not in SUCCESS_OPS:
                wrong(f"unknown comparison {cmp[0]!r}")
        if self.failure is not None:
            if self.success is None:
                wrong("failures ('f') are counted against a target: write one, e.g. >=8")
            both = overlap(self.success, self.failure)
            if both is not None:
                wrong(f"a die showing {both} would be both a success and a failure")

    # -- exact -------------------------------------------------------------------------
    def distribution(self) -> Distribution:
        """The exact distribution of the total (cached: specs are immutable)."""
        return _distribution(self)

    # -- sampled -----------------------------------------------------------------------
    def sampler(self, record: bool = False):
        """A closure rolling this term with a `random.Random` (see sampling.py)."""
        self.validate()
        return sampling.sampler(self, record)


# =========================================================================== exact
def score_of(spec: DiceSpec) -> Callable[[int], int] | None:
    """value -> what one kept die adds (successes minus failures), or None for a sum."""
    if spec.success is None:
        return None
    s_op, s_n = spec.success
    s_test = SUCCESS_OPS[s_op]
    if spec.failure is None:
        return lambda v: 1 if s_test(v, s_n) else 0
    f_op, f_n = spec.failure
    f_test = SUCCESS_OPS[f_op]
    return lambda v: 1 if s_test(v, s_n) else (-1 if f_test(v, f_n) else 0)


def _face_counts(faces) -> dict[int, int]:
    """How many entries of the faces tuple show each face."""
    counts: dict[int, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    return counts


def _first_roll(spec: DiceSpec) -> tuple[dict[int, int], int]:
    """Weights (and their total) of a die's first counted face, rerolls applied."""
    counts = _face_counts(spec.faces)
    sides = len(spec.faces)
    if not spec.reroll:
        return counts, sides
    rerolled = sum(c for f, c in counts.items() if f in spec.reroll)
    if not rerolled:
        return counts, sides
    if spec.reroll_once:
        # kept at once (sides ways) or rerolled once (rerolled ways, then any face)
        return ({f: (0 if f in spec.reroll else sides * c) + rerolled * c
                 for f, c in counts.items()}, sides * sides)
    allowed = {f: c for f, c in counts.items() if f not in spec.reroll}
    return allowed, sides - rerolled


def _chain(first: dict[int, int], first_total: int, spec: DiceSpec,
           score: Callable[[int], int], most: int) -> tuple[dict[int, int], int, int]:
    """Weights, total and capped weight of one die's explosion chain.

    The value of a chain is the sum of score(face) over its first face and
    score(face - penalty) over the later ones.  Built from the last allowed roll
    backwards: a roll with i explosions left is its score if its face does not explode,
    else its score plus a chain with i - 1 left.  `most` is the number of distinct
    values a die may have before the pool would exceed `MAX_OUTCOMES`; it is checked at
    every level, since the levels only grow.
    """
    plain = _face_counts(spec.faces)
    sides = len(spec.faces)
    boom = spec.explode or frozenset()
    pen = 1 if spec.penetrate else 0
    levels = [(plain, sides, pen)] * spec.explode_depth + [(first, first_total, 0)]
    _check_chain_size(levels, boom, spec, score, most)
    tail, tail_total, tail_capped = None, 1, 0
    for weights, total, shift in levels:
        out: dict[int, int] = {}
        exploding: dict[int, int] = {}
        capped = 0
        for f, w in weights.items():
            s = score(f - shift)
            if f in boom:
                exploding[s] = exploding.get(s, 0) + w
                capped += w if tail is None else w * tail_capped
            if f not in boom or tail is None:
                out[s] = out.get(s, 0) + w * tail_total
        if tail is not None and exploding:
            grown = convolve(exploding, tail, total * tail_total, "this exploding die")
            for v, w in grown.items():
                out[v] = out.get(v, 0) + w
        if len(out) > most:
            raise LimitError(f"{spec.text}: {spec.count} exploding dice would have more "
                             f"than {MAX_OUTCOMES:,} distinct totals")
        tail, tail_total, tail_capped = out, total * tail_total, capped
    return tail, tail_total, tail_capped


def _check_chain_size(levels, boom, spec: DiceSpec, score: Callable[[int], int],
                      most: int) -> None:
    """Refuse, before building it, a chain that would be too large or too slow.

    A lower bound on the distinct values of each level (a sum set A + B has at least
    |A| + |B| - 1 values; faces that do not explode and lie outside its range are extra)
    catches growth past `most`; an upper bound on the entries merged (span of each
    level times the exploding faces) catches work that would run for seconds.
    """
    lower, low, high, work = 0, 0, 0, 0
    for i, (weights, _, shift) in enumerate(levels):
        scores = sorted({score(f - shift) for f in weights})
        exp = sorted({score(f - shift) for f in weights if f in boom})
        calm = [v for v in {score(f - shift) for f in weights if f not in boom}]
        if i == 0:
            lower, low, high = len(scores), scores[0], scores[-1]
        elif exp:
            lo_sum, hi_sum = exp[0] + low, exp[-1] + high
            lower = len(exp) + lower - 1 + sum(1 for v in calm if v < lo_sum or v > hi_sum)
            work += len(exp) * (high - low + 1)
            low = min([lo_sum] + calm)
            high = max([hi_sum] + calm)
        if lower > most or work > MAX_CHAIN_WORK:
            raise LimitError(f"{spec.text}: the exact odds of {spec.count} such exploding "
                             f"dice would have too many outcomes or take too long",
                             hint="lower the explosion depth or use sampling")


def _die(spec: DiceSpec, score: Callable[[int], int]) -> Distribution:
    """The distribution of one die's score: its value (a compounded chain is one die),
    or, for `!` without keep, the summed scores of its chain's dice."""
    first, first_total = _first_roll(spec)
    if not spec.explode:
        weights: dict[int, int] = {}
        for f, w in first.items():
            weights[score(f)] = weights.get(score(f), 0) + w
        return Distribution(weights, first_total)
    pooled = spec.keep[1] if spec.keep and spec.keep[0] in ("kh", "kl") else spec.count
    most = (MAX_OUTCOMES - 1) // max(pooled, 1) + 1
    weights, total, capped = _chain(first, first_total, spec, score, most)
    return Distribution(weights, total, capped)


def _fixed_keep(spec: DiceSpec) -> tuple[bool, int]:
    """(highest, k) of a keep/drop over a pool of exactly `count` dice."""
    kind, k = spec.keep
    if kind in ("kh", "kl"):
        return kind == "kh", k
    return kind == "dl", spec.count - k


@lru_cache(maxsize=512)
def _distribution(spec: DiceSpec) -> Distribution:
    """The exact distribution of a validated spec's total."""
    spec.validate()
    if spec.count == 0:
        return Distribution.constant(0)
    score = score_of(spec)
    ident = (lambda v: v)
    if spec.unique:
        return unique_distribution(_face_counts(spec.faces), spec.count, spec.keep,
                                   score or ident)
    separate = bool(spec.explode) and not spec.compound
    if separate and spec.keep is not None:
        first, first_total = _first_roll(spec)
        return exploding_pool(spec.count, first, first_total, _face_counts(spec.faces),
                              spec.explode, spec.explode_depth, 1 if spec.penetrate else 0,
                              spec.keep, score or ident, spec.text)
    if spec.keep is None:
        if separate:                  # every die of the chain scores on its own
            die = _die(spec, score or ident)
        else:
            die = _die(spec, ident)
            if score is not None:
                die = die.map(score)
        return repeat_sum(die, spec.count).reduced()
    highest, k = _fixed_keep(spec)
    die = _die(spec, ident)
    return keep_sum(die, spec.count, k, highest=highest, score=score).reduced()
