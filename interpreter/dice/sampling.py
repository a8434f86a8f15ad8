"""Rolling a dice term: fast closures for bulk runs and a recording one for transcripts.

The meaning is the one terms.py states; this module reads a `DiceSpec` only through its
fields (it cannot import terms.py, which imports it).

Randomness: each die is finished (first roll, rerolls, explosions) before the next is
rolled, one `rng.random()` per roll, a face picked as `faces[int(random() * len)]`, so a
seed gives the same rolls on every Python version, recorded or not.  A reroll-until loop
that keeps hitting the reroll set gives up after `REROLL_TRIES` rolls and picks among the
allowed faces directly - the same distribution, with a bound on the work.
"""
from __future__ import annotations

import operator
from ..records import record, field

REROLL_TRIES = 100
_OPS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt,
        "=": operator.eq}


@record
class DieRecord:
    """One die as the transcript shows it, in the conventions' words: its faces (a
    compounded die shows its whole chain), the faces rerolled away, its value, whether it
    was kept, and what it was: `success` / `failure` (None when not counting),
    `exploded` (it made another die), `compounded`, `penetrated` (an added die counting
    its face minus 1), `added` (made by an explosion), `critical` ("success"/"failure")."""

    faces: list[int]
    rerolled: list[int] = field(default_factory=list)
    value: int = 0
    kept: bool = True
    success: bool | None = None
    failure: bool | None = None
    exploded: bool = False
    compounded: bool = False
    penetrated: bool = False
    added: bool = False
    critical: str | None = None

    def as_json(self) -> dict:
        out = {"faces": list(self.faces), "rerolled": list(self.rerolled),
               "value": self.value, "kept": self.kept}
        if self.success is not None:
            out["success"] = self.success
        if self.failure is not None:
            out["failure"] = self.failure
        for name in ("exploded", "compounded", "penetrated", "added"):
            if getattr(self, name):
                out[name] = True
        if self.critical is not None:
            out["critical"] = self.critical
        return out

    def words(self) -> list[str]:
        """What happened to the die, in the conventions' words."""
        out = ["kept" if self.kept else "dropped"]
        if self.rerolled:
            out.append("rerolled")
        for name in ("exploded", "compounded", "penetrated"):
            if getattr(self, name):
                out.append(name)
        if self.success:
            out.append("success")
        if self.failure:
            out.append("failure")
        if self.critical:
            out.append(f"critical {self.critical}")
        return out


@record
class DiceRecord:
    """One rolled dice term for the transcript: notation, total, every die, notes."""

    text: str
    total: int
    dice: list[DieRecord]
    notes: tuple[str, ...] = ()

    @property
    def natural(self) -> int | None:
        """The first counted face of the first die ("natural 20" rules)."""
        return self.dice[0].faces[0] if self.dice else None

    @property
    def naturals(self) -> list[int]:
        """The first counted face of every die the term rolled (not those explosions
        added)."""
        return [d.faces[0] for d in self.dice if not d.added]

    def as_json(self) -> dict:
        return {"notation": self.text, "total": self.total,
                "dice": [d.as_json() for d in self.dice]}


def _test(cmp):
    if cmp is None:
        return None
    op, n = cmp
    fn = _OPS[op]
    return lambda v: fn(v, n)


def _score(spec):
    ok, bad = _test(spec.success), _test(spec.failure)
    if ok is None:
        return None
    if bad is None:
        return lambda v: 1 if ok(v) else 0
    return lambda v: 1 if ok(v) else (-1 if bad(v) else 0)


def _roll_die_fn(spec):
    """A function rng.random -> (chain, rerolled) rolling one die in full."""
    faces = spec.faces
    sides = len(faces)
    reroll = spec.reroll or frozenset()
    allowed = tuple(f for f in faces if f not in reroll)
    n_allowed = len(allowed)
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


def kept_flags(values: list[int], keep) -> list[bool]:
    """Which dice (or a group's sub-rolls) are kept; among equal values the earlier one."""
    n = len(values)
    if keep is None:
        return [True] * n
    kind, k = keep
    if kind in ("dh", "dl"):
        kind, k = ("kl" if kind == "dh" else "kh"), n - k
    if kind == "kh":
        ranked = sorted(range(n), key=lambda i: (-values[i], i))
    else:
        ranked = sorted(range(n), key=lambda i: (values[i], i))
    flags = [False] * n
    for i in ranked[:k]:
        flags[i] = True
    return flags


def _pool_fn(spec):
    """random -> list of (value, DieRecord-or-None builder data) for the whole pool:
    [(value, chain, rerolled, role)] where role is 'die', 'compounded' or 'added'."""
    roll_die = _roll_die_fn(spec)
    pen = 1 if spec.penetrate else 0
    separate = bool(spec.explode) and not spec.compound
    count = spec.count
    if spec.unique:
        return _unique_pool_fn(spec)

    def pool(random):
        out = []
        for _ in range(count):
            chain, rerolled = roll_die(random)
            if len(chain) == 1:
                out.append((chain[0], chain, rerolled, "die"))
            elif separate:
                out.append((chain[0], chain[:1], rerolled, "die"))
                for f in chain[1:]:
                    out.append((f - pen, [f], [], "added"))
            else:
                value = chain[0] + sum(f - pen for f in chain[1:])
                out.append((value, chain, rerolled, "compounded"))
        return out
    return pool


def _unique_pool_fn(spec):
    """The pool of `u` dice: each die rolled again while it shows a face already shown
    (after REROLL_TRIES, picked directly among the new faces: the same chances)."""
    faces, sides, count = spec.faces, len(spec.faces), spec.count

    def pool(random):
        out, seen = [], set()
        for _ in range(count):
            face = faces[int(random() * sides)]
            rerolled = []
            while face in seen:
                rerolled.append(face)
                if len(rerolled) >= REROLL_TRIES:
                    fresh = [f for f in faces if f not in seen]
                    face = fresh[int(random() * len(fresh))]
                    break
                face = faces[int(random() * sides)]
            seen.add(face)
            out.append((face, [face], rerolled, "die"))
        return out
    return pool


def _recording_sampler(spec):
    """rng -> (total, DiceRecord): every die with what happened to it."""
    pool = _pool_fn(spec)
    score = _score(spec)
    ok, bad = _test(spec.success), _test(spec.failure)
    boom = spec.explode or frozenset()
    marks = spec.crit_success is not None or spec.crit_failure is not None
    crit_hi = _test(spec.crit_success or ("=", max(spec.faces)))
    crit_lo = _test(spec.crit_failure or ("=", min(spec.faces)))
    pen = spec.penetrate

    def sample(rng):
        rolled = pool(rng.random)
        flags = kept_flags([r[0] for r in rolled], spec.keep)
        dice, total = [], 0
        for (value, faces, rerolled, role), kept in zip(rolled, flags):
            die = DieRecord(list(faces), list(rerolled), value, kept)
            die.added = role == "added"
            die.compounded = role == "compounded"
            die.penetrated = pen and (die.added or die.compounded)
            die.exploded = role != "compounded" and faces[-1] in boom and bool(spec.explode)
            if ok is not None:
                die.success = bool(ok(value))
                if bad is not None:
                    die.failure = not die.success and bool(bad(value))
            if marks:
                die.critical = "success" if crit_hi(value) else \
                    ("failure" if crit_lo(value) else None)
            if kept:
                total += score(value) if score is not None else value
            dice.append(die)
        if spec.explode and not spec.compound:
            _mark_exploded(dice, rolled, boom, spec.explode_depth)
        if spec.sort:
            dice.sort(key=lambda d: d.value, reverse=spec.sort == "d")
        return total, DiceRecord(spec.text, total, dice, tuple(spec.notes))

    return sample


def _mark_exploded(dice, rolled, boom, depth) -> None:
    """With `!`, a die exploded when the next die of its chain was added for it."""
    for i, die in enumerate(dice):
        die.exploded = i + 1 < len(dice) and dice[i + 1].added and \
            rolled[i][1][-1] in boom


def sampler(spec, record: bool):
    """The closure for a validated spec."""
    if record:
        return _recording_sampler(spec)
    if spec.count == 0:
        return lambda rng: 0
    plain = not spec.reroll and not spec.explode and not spec.unique
    if plain and spec.keep is None:
        return _plain_sampler(spec)
    if plain and spec.success is None:
        return _plain_keep_sampler(spec)
    if spec.explode and not spec.reroll and spec.keep is None and spec.success is None \
            and not spec.penetrate:
        return _exploding_sum_sampler(spec)
    return _general_sampler(spec)


def _exploding_sum_sampler(spec):
    """NdS! / NdS!! summed: a running total, no per-die lists.  Consumes the random
    stream exactly as `_roll_die_fn` does (first face, then one draw per explosion)."""
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


def _plain_sampler(spec):
    """NdS (or a target on NdS) without reroll, explode or keep."""
    faces, sides, count = spec.faces, len(spec.faces), spec.count
    score = _score(spec)
    if score is not None:
        faces = tuple(score(f) for f in faces)
    consecutive = faces == tuple(range(faces[0], faces[0] + sides))
    if count == 1:
        if consecutive:
            low = faces[0]
            return lambda rng: int(rng.random() * sides) + low
        return lambda rng: faces[int(rng.random() * sides)]
    dice = range(count)
    if consecutive:
        base = faces[0] * count

        def sample_consecutive(rng):
            random = rng.random
            total = base
            for _ in dice:
                total += int(random() * sides)
            return total
        return sample_consecutive

    def sample_faces(rng):
        random = rng.random
        total = 0
        for _ in dice:
            total += faces[int(random() * sides)]
        return total
    return sample_faces


def _plain_keep_sampler(spec):
    """Keep or drop on NdS without reroll or explode: sort and sum a slice."""
    faces, sides, count = spec.faces, len(spec.faces), spec.count
    kind, k = spec.keep
    if kind in ("dh", "dl"):
        kind, k = ("kl" if kind == "dh" else "kh"), count - k
    dice = range(count)
    lo, hi = (count - k, count) if kind == "kh" else (0, k)

    def sample(rng):
        random = rng.random
        values = sorted([faces[int(random() * sides)] for _ in dice])
        return sum(values[lo:hi])
    return sample


def _general_sampler(spec):
    """Rerolls, explosions, keep and targets in any combination: the whole pool."""
    pool = _pool_fn(spec)
    score = _score(spec)
    keep = spec.keep

    def sample(rng):
        values = [r[0] for r in pool(rng.random)]
        if keep is not None:
            values = [v for v, kept in zip(values, kept_flags(values, keep)) if kept]
        if score is None:
            return sum(values)
        return sum(score(v) for v in values)
    return sample
