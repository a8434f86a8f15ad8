"""Dice terms: what one piece of dice notation means, rolled (sampled) or exactly.

A `DiceSpec` is the compiled form of one dice term such as `4d6kh3`, `d{0..9}`,
`3d6!x3`, `8d6cs>=5` or `2d6ro<3`.  The grammar/compiler builds it; this module owns
its meaning, in both evaluation modes, so that the two can never disagree:

- `DiceSpec.sampler(record)` returns a fast closure `rng -> total` (record=False) or
  `rng -> (total, DiceRecord)` (record=True) for the transcript;
- `DiceSpec.distribution()` returns the exact `Distribution` of the total.

Semantics (documented in the README):
1. each die is rolled on `faces` (uniform over the tuple; repeats allowed);
2. reroll: a die showing a face in `reroll` is rolled again; `reroll_once` rolls again at
   most once (keeping the second result), otherwise until the face is not in the set;
   only a die's first roll is rerolled, never the extra rolls of an explosion;
3. explode: a die whose (latest) face is in `explode` is rolled again and the new face
   added to the die's value, at most `explode_depth` times per die.  The mass in which
   the last allowed roll shows an exploding face (the die would go on) is reported as
   the distribution's `capped` mass (with depth 0 that is every exploding first face);
4. keep: ("kh", k) keeps the k highest die values, ("kl", k) the k lowest (drop forms are
   normalised to keep forms by the compiler); among equal values the earlier die is kept;
5. total: the sum of kept die values, or with `success=(op, target)` the number of kept
   dice whose value satisfies `value op target`.  With both explode and success, each
   face in a die's chain is counted separately ("10-again"); keep is then not allowed.

Randomness: each die is finished (first roll, rerolls, explosions) before the next is
rolled, one `rng.random()` per roll, a face picked as `faces[int(random() * len)]`, so a
seed gives the same rolls on every Python version, recorded or not.  A reroll-until loop
that keeps hitting the reroll set gives up after `REROLL_TRIES` rolls and picks among the
allowed faces directly - the same distribution, with a bound on the work.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from .distribution import Distribution, convolve, keep_sum, repeat_sum
from ..errors import EvalError, LimitError, Location
from ..limits import DEFAULT_EXPLODE_DEPTH, MAX_DICE, MAX_EXPLODE_DEPTH, MAX_OUTCOMES, MAX_SIDES

REROLL_TRIES = 100
# Entries one exploding die's exact chain may merge (about a second of work).
MAX_CHAIN_WORK = 500_000

SUCCESS_OPS: dict[str, Callable[[int, int], bool]] = {
    ">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt,
    "=": operator.eq,
}
KEEP_KINDS = ("kh", "kl")


@dataclass
class DieRecord:
    """One die as the transcript shows it: the counted chain of faces (explosions
    included), the faces rerolled away, its value, whether it was kept and whether it
    counted as a success (None when not counting successes)."""

    faces: list[int]
    rerolled: list[int] = field(default_factory=list)
    value: int = 0
    kept: bool = True
    success: bool | None = None
    successes: int | None = None  # only for explode + success: successes in the chain

    def as_json(self) -> dict:
        out = {"faces": list(self.faces), "rerolled": list(self.rerolled),
               "value": self.value, "kept": self.kept}
        if self.success is not None:
            out["success"] = self.success
        if self.successes is not None:
            out["successes"] = self.successes
        return out


@dataclass
class DiceRecord:
    """One rolled dice term for the transcript: notation, total and every die."""

    text: str
    total: int
    dice: list[DieRecord]

    @property
    def natural(self) -> int:
        """The first counted face of the first die ("natural 20" rules)."""
        return self.dice[0].faces[0]

    @property
    def naturals(self) -> list[int]:
        """The first counted face of every die."""
        return [d.faces[0] for d in self.dice]

    def as_json(self) -> dict:
        return {"notation": self.text, "total": self.total,
                "dice": [d.as_json() for d in self.dice]}


@dataclass(frozen=True)
class DiceSpec:
    """The compiled meaning of one dice term (see the module docstring)."""

    count: int
    faces: tuple[int, ...]
    text: str
    reroll: frozenset[int] | None = None
    reroll_once: bool = False
    explode: frozenset[int] | None = None
    explode_depth: int = DEFAULT_EXPLODE_DEPTH
    keep: tuple[str, int] | None = None
    success: tuple[str, int] | None = None

    # -- checking ----------------------------------------------------------------------
    def validate(self, location: Location | None = None) -> None:
        """Refuse a term that is absurd (LimitError) or meaningless (EvalError)."""
        where = f"in {self.text!r}: " if self.text else ""

        def limit(message):
            raise LimitError(where + message, location)

        def wrong(message):
            raise EvalError(where + message, location)

        if self.count < 1:
            wrong(f"a dice term needs at least one die, not {self.count}")
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
        if self.keep is not None:
            kind, k = self.keep
            if kind not in KEEP_KINDS:
                wrong(f"unknown keep form {kind!r}")
            if not 0 <= k <= self.count:
                wrong(f"cannot keep {k} of {self.count} dice")
            if self.explode and self.success:
                wrong("keep cannot be combined with exploding success counting")
        if self.success is not None and self.success[0] not in SUCCESS_OPS:
            wrong(f"unknown success comparison {self.success[0]!r}")

    # -- exact -------------------------------------------------------------------------
    def distribution(self) -> Distribution:
        """The exact distribution of the total (cached: specs are immutable)."""
        return _distribution(self)

    # -- sampled -----------------------------------------------------------------------
    def sampler(self, record: bool = False):
        """A closure rolling this term with a `random.Random` (see the module docstring)."""
        self.validate()
        if record:
            return _recording_sampler(self)
        return _fast_sampler(self)


# =========================================================================== exact
def _success_test(spec: DiceSpec) -> Callable[[int], bool] | None:
    """value -> whether it counts as a success, or None when not counting."""
    if spec.success is None:
        return None
    op, target = spec.success
    test = SUCCESS_OPS[op]
    return lambda v: test(v, target)


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

    The value of a chain is the sum of score(face) over its faces.  Built from the last
    allowed roll backwards: a roll with i explosions left is its face if that face does
    not explode, else its face plus a chain with i - 1 left.  `most` is the number of
    distinct values a die may have before the pool would exceed `MAX_OUTCOMES`; it is
    checked at every level, since the levels only grow.
    """
    plain = _face_counts(spec.faces)
    sides = len(spec.faces)
    boom = spec.explode or frozenset()
    _check_chain_size(plain, first, boom, spec, score, most)
    tail, tail_total, tail_capped = None, 1, 0
    for weights, total in [(plain, sides)] * spec.explode_depth + [(first, first_total)]:
        out: dict[int, int] = {}
        exploding: dict[int, int] = {}
        capped = 0
        for f, w in weights.items():
            if f in boom:
                exploding[score(f)] = exploding.get(score(f), 0) + w
                if tail is None:
                    capped += w
                else:
                    capped += w * tail_capped
            s = score(f)
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


def _check_chain_size(plain: dict[int, int], first: dict[int, int], boom, spec: DiceSpec,
                      score: Callable[[int], int], most: int) -> None:
    """Refuse, before building it, a chain that would be too large or too slow.

    A lower bound on the distinct values of each level (a sum set A + B has at least
    |A| + |B| - 1 values; faces that do not explode and lie outside its range are extra)
    catches growth past `most`; an upper bound on the entries merged (span of each
    level times the exploding faces) catches work that would run for seconds.
    """
    levels = [plain] * spec.explode_depth + [first]
    lower, low, high, work = 0, 0, 0, 0
    for i, weights in enumerate(levels):
        scores = sorted({score(f) for f in weights})
        exp = sorted({score(f) for f in weights if f in boom})
        calm = [v for v in {score(f) for f in weights if f not in boom}]
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
    """The distribution of one die's score: its value, or its successes when counting
    through an explosion chain."""
    first, first_total = _first_roll(spec)
    if not spec.explode:
        weights: dict[int, int] = {}
        for f, w in first.items():
            weights[score(f)] = weights.get(score(f), 0) + w
        return Distribution(weights, first_total)
    pooled = spec.keep[1] if spec.keep else spec.count
    most = (MAX_OUTCOMES - 1) // max(pooled, 1) + 1
    weights, total, capped = _chain(first, first_total, spec, score, most)
    return Distribution(weights, total, capped)


@lru_cache(maxsize=512)
def _distribution(spec: DiceSpec) -> Distribution:
    """The exact distribution of a validated spec's total."""
    spec.validate()
    test = _success_test(spec)
    if spec.keep is None:
        if test is not None:
            die = _die(spec, lambda v: int(test(v)))  # per face when exploding
        else:
            die = _die(spec, lambda v: v)
        return repeat_sum(die, spec.count).reduced()
    kind, k = spec.keep
    die = _die(spec, lambda v: v)
    score = (lambda v: int(test(v))) if test is not None else None
    return keep_sum(die, spec.count, k, highest=(kind == "kh"), score=score).reduced()


# =========================================================================== sampled
def _plan(spec: DiceSpec):
    """What every sampler needs, precomputed: faces, sizes, the allowed faces for a
    bounded reroll and the success test."""
    faces = spec.faces
    allowed = tuple(f for f in faces if not spec.reroll or f not in spec.reroll)
    return faces, len(faces), spec.reroll or frozenset(), allowed, len(allowed)


def _roll_die_fn(spec: DiceSpec):
    """A function rng.random -> (chain, rerolled) rolling one die in full.

    Used by the recording sampler and the general fast path, so both consume the random
    stream identically.
    """
    faces, sides, reroll, allowed, n_allowed = _plan(spec)
    once = spec.reroll_once
    boom = spec.explode or frozenset()
    depth = spec.explode_depth if spec.explode else 0

    def roll_die(random):
        face = faces[int(random() * sides)]
        rerolled = []
        if face in reroll:
            if once:
                rerolled.append(face)
                face = faces[int(random() * sides)]
            else:
                while face in reroll:
                    rerolled.append(face)
                    if len(rerolled) >= REROLL_TRIES:
                        face = allowed[int(random() * n_allowed)]
                        break
                    face = faces[int(random() * sides)]
        chain = [face]
        left = depth
        while left and face in boom:
            face = faces[int(random() * sides)]
            chain.append(face)
            left -= 1
        return chain, rerolled

    return roll_die


def _keep_flags(values: list[int], keep) -> list[bool]:
    """Which dice are kept: the k best values, the earlier die first among equals."""
    if keep is None:
        return [True] * len(values)
    kind, k = keep
    if kind == "kh":
        ranked = sorted(range(len(values)), key=lambda i: (-values[i], i))
    else:
        ranked = sorted(range(len(values)), key=lambda i: (values[i], i))
    flags = [False] * len(values)
    for i in ranked[:k]:
        flags[i] = True
    return flags


def _recording_sampler(spec: DiceSpec):
    """rng -> (total, DiceRecord): every die with its chain, rerolls, keep and success."""
    roll_die = _roll_die_fn(spec)
    test = _success_test(spec)
    chain_counting = test is not None and bool(spec.explode)
    count, text, keep = spec.count, spec.text, spec.keep

    def sample(rng):
        random = rng.random
        dice = []
        for _ in range(count):
            chain, rerolled = roll_die(random)
            dice.append(DieRecord(chain, rerolled, sum(chain)))
        flags = _keep_flags([d.value for d in dice], keep)
        total = 0
        for die, kept in zip(dice, flags):
            die.kept = kept
            if chain_counting:
                die.successes = sum(1 for f in die.faces if test(f))
                die.success = die.successes > 0
                total += die.successes
            elif test is not None:
                die.success = test(die.value)
                total += die.success and kept
            elif kept:
                total += die.value
        return total, DiceRecord(text, total, dice)

    return sample


def _fast_sampler(spec: DiceSpec):
    """rng -> total, specialised for the common shapes (the simulation hot path)."""
    plain = not spec.reroll and not spec.explode
    if plain and spec.keep is None:
        return _plain_sampler(spec)
    if plain and spec.success is None:
        return _plain_keep_sampler(spec)
    if spec.explode and not spec.reroll and spec.keep is None and spec.success is None:
        return _exploding_sum_sampler(spec)
    return _general_sampler(spec)


def _exploding_sum_sampler(spec: DiceSpec):
    """NdS! summed: a running total, no per-die lists.  Consumes the random stream
    exactly as `_roll_die_fn` does (first face, then one draw per explosion)."""
    faces, sides, count = spec.faces, len(spec.faces), spec.count
    boom, depth = spec.explode, spec.explode_depth
    dice = range(count)

    def sample(rng):
        random = rng.random
        total = 0
        for _ in dice:
            face = faces[int(random() * sides)]
            total += face
            left = depth
            while left and face in boom:
                face = faces[int(random() * sides)]
                total += face
                left -= 1
        return total
    return sample


def _plain_sampler(spec: DiceSpec):
    """NdS (or success counting on NdS) without reroll, explode or keep."""
    faces, sides, count = spec.faces, len(spec.faces), spec.count
    test = _success_test(spec)
    if test is not None:
        faces = tuple(int(test(f)) for f in faces)
    consecutive = faces == tuple(range(faces[0], faces[0] + sides))
    if count == 1:
        if consecutive:
            low = faces[0]
            return lambda rng: int(rng.random() * sides) + low
        return lambda rng: faces[int(rng.random() * sides)]
    if consecutive:
        base = faces[0] * count
        dice = range(count)

        def sample_consecutive(rng):
            random = rng.random
            total = base
            for _ in dice:
                total += int(random() * sides)
            return total
        return sample_consecutive
    dice = range(count)

    def sample_faces(rng):
        random = rng.random
        total = 0
        for _ in dice:
            total += faces[int(random() * sides)]
        return total
    return sample_faces


def _plain_keep_sampler(spec: DiceSpec):
    """NdSkhK / NdSklK without reroll or explode: sort and sum a slice."""
    faces, sides, count = spec.faces, len(spec.faces), spec.count
    kind, k = spec.keep
    dice = range(count)
    lo, hi = (count - k, count) if kind == "kh" else (0, k)

    def sample(rng):
        random = rng.random
        values = sorted([faces[int(random() * sides)] for _ in dice])
        return sum(values[lo:hi])
    return sample


def _general_sampler(spec: DiceSpec):
    """Rerolls and explosions (any keep/success): one die at a time."""
    roll_die = _roll_die_fn(spec)
    test = _success_test(spec)
    count, keep = spec.count, spec.keep
    dice = range(count)
    if test is not None and spec.explode:
        def sample_chain_successes(rng):
            random = rng.random
            total = 0
            for _ in dice:
                for f in roll_die(random)[0]:
                    if test(f):
                        total += 1
            return total
        return sample_chain_successes
    if keep is None and test is None:
        def sample_sum(rng):
            random = rng.random
            total = 0
            for _ in dice:
                total += sum(roll_die(random)[0])
            return total
        return sample_sum
    kind, k = keep if keep is not None else ("kh", count)
    lo, hi = (count - k, count) if kind == "kh" else (0, k)

    def sample_kept(rng):
        random = rng.random
        values = sorted([sum(roll_die(random)[0]) for _ in dice])[lo:hi]
        if test is None:
            return sum(values)
        return sum(1 for v in values if test(v))
    return sample_kept
