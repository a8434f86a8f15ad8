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
from typing import Callable

from .distribution import Distribution
from ..errors import LimitError

MAX_POOL_STATES = 200_000
MAX_POOL_WORK = 3_000_000   # state x face steps (about a second)


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
    work = 0

    def add(state, value, weight, out):
        capped, acc, held = state
        if k == 0:
            if not keeping:
                acc += score(value)
        else:
            held = list(held)
            insort(held, value)
            if len(held) > k:
                out_value = held.pop(0) if high else held.pop()
                if not keeping:
                    acc += score(out_value)
            held = tuple(held)
        key = (capped, acc, held)
        out[key] = out.get(key, 0) + weight

    states = {(False, 0, ()): 1}
    for _ in range(count):
        done: dict = {}
        active = states
        for level in range(depth + 1):
            weights = first if level == 0 else plain
            shift = 0 if level == 0 else penalty
            going: dict = {}
            scale_stop = sides ** (depth - level)
            for state, w in active.items():
                for face, c in weights.items():
                    if face in boom:
                        if level < depth:
                            add(state, face - shift, w * c, going)
                        else:
                            capped_state = (True,) + state[1:]
                            add(capped_state, face - shift, w * c * scale_stop, done)
                    else:
                        add(state, face - shift, w * c * scale_stop, done)
                work += len(weights)
            if work > MAX_POOL_WORK or len(done) > MAX_POOL_STATES:
                raise LimitError(f"{text}: the exact odds of keep/drop over this many "
                                 f"exploding dice would take too long",
                                 hint="lower the explosion depth or use sampling")
            active = going
            if not active:
                break
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
