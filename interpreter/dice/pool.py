"""Exact keep/drop over a pool that explosions grow: `5d10!k2`, `4d6!dl1`, `6d6!p kh3`.

With `!` (Roll20, rpg-dice-roller) every explosion adds a die to the pool, so the pool's
size is random and keep/drop chooses among all of its dice.  Order statistics over a
fixed number of dice do not apply; instead the pool is built one roll at a time while
only the part keep/drop can still change is remembered:

- keep the k highest (lowest): the k best values so far; a die pushed out is gone;
- drop the k lowest (highest): the k worst values so far, and the running score of the
  dice pushed out of them (those are kept whatever comes later).

A state is (capped, running score, sorted values held); each roll moves its weight to the
states it leads to.  Rolls of one die share a common denominator: a die that stops after
j of its D allowed explosions has its weight multiplied by sides ** (D - j), as though
the rolls it did not need were made and ignored.  The number of states is bounded (by
the distinct values and k), checked against `MAX_POOL_STATES` as it grows.
"""
from __future__ import annotations

from bisect import insort
from math import comb
from typing import Callable

from .distribution import Distribution
from ..errors import LimitError

MAX_POOL_STATES = 200_000
MAX_POOL_WORK = 1_500_000   # state x face steps (about a second)


def exploding_pool(count: int, first: dict[int, int], first_total: int,
                   plain: dict[int, int], boom: frozenset[int], depth: int,
                   penalty: int, keep: tuple[str, int],
                   score: Callable[[int], int], text: str) -> Distribution:
    """The distribution of the kept score of `count` exploding dice.

    `first`/`first_total`: weights of a die's first face (rerolls applied); `plain`: the
    weights of every later roll (over `sum(plain.values())`); a roll whose face is in
    `boom` adds another die, at most `depth` times per original die; each added die shows
    its face minus `penalty` (1 when penetrating).  A die's value is compared by keep or
    drop; kept dice add `score(value)`.
    """
    kind, k = keep
    high = kind in ("kh", "dh")        # the values held are the highest ones
    keeping = kind in ("kh", "kl")     # held values are the kept ones (else the dropped)
    sides = sum(plain.values())
    moves: dict = {}                   # (held, value) -> (held after, score it adds)

    def move(held, value):
        key = (held, value)
        hit = moves.get(key)
        if hit is None:
            grown = list(held)
            insort(grown, value)
            gain = 0
            if len(grown) > k:
                out_value = grown.pop(0) if high else grown.pop()
                gain = 0 if keeping else score(out_value)
            hit = moves[key] = (tuple(grown), gain)
        return hit

    _check_pool_size(count, first, plain, boom, penalty, k, keeping, score, text)
    work = 0
    states = {(False, 0, ()): 1}
    for _ in range(count):
        done: dict = {}
        active = states
        for level in range(depth + 1):
            weights = list((first if level == 0 else plain).items())
            shift = 0 if level == 0 else penalty
            going: dict = {}
            scale_stop = sides ** (depth - level)
            for (capped, acc, held), w in active.items():
                work += len(weights)
                if work > MAX_POOL_WORK:
                    raise LimitError(f"{text}: the exact odds of keep/drop over this many "
                                     f"exploding dice would take too long",
                                     hint="lower the explosion depth or use sampling")
                for face, c in weights:
                    new_held, gain = move(held, face - shift)
                    if face in boom and level < depth:
                        target, key, weight = going, (capped, acc + gain, new_held), w * c
                    else:
                        stop_capped = capped or face in boom
                        target = done
                        key, weight = (stop_capped, acc + gain, new_held), w * c * scale_stop
                    target[key] = target.get(key, 0) + weight
            active = going
            if not active:
                break
        if len(done) > MAX_POOL_STATES:
            raise LimitError(f"{text}: the exact odds of keep/drop over this many "
                             f"exploding dice would have too many states",
                             hint="use sampling (roll --times)")
        states = done
    total = (first_total * sides ** depth) ** count
    out: dict[int, int] = {}
    capped_weight = 0
    for (capped, acc, held), w in states.items():
        value = acc + (sum(score(v) for v in held) if keeping else 0)
        out[value] = out.get(value, 0) + w
        if capped:
            capped_weight += w
    return Distribution(out, total, capped_weight).reduced()


def _check_pool_size(count, first, plain, boom, penalty, k, keeping, score, text) -> None:
    """Refuse at once a pool whose states would clearly be too many: at most
    C(values + k, k) held multisets (times the span of the running score when dropping),
    each met by every face of about 1 / (1 - p) rolls per die, p the chance to explode."""
    values = {f for f in first} | {f - penalty for f in plain}
    held = comb(len(values) + k, k)
    p = sum(c for f, c in plain.items() if f in boom) / sum(plain.values())
    rolls = 1 / (1 - p) if p < 1 else float(len(values))
    if not keeping:
        scores = [score(v) for v in values]
        held *= int(count * rolls * (max(scores) - min(scores, default=0)) + 1)
    estimate = count * min(held, MAX_POOL_STATES) * len(plain) * rolls
    if held > 50 * MAX_POOL_STATES or estimate > 2 * MAX_POOL_WORK:
        raise LimitError(f"{text}: the exact odds of keep/drop over this many exploding "
                         f"dice would take too long",
                         hint="lower the explosion depth or use sampling")
