"""The expression-level API: roll an expression with a transcript, or get its odds.

`roll("4d6kh3", seed=1)` and `odds("2d6 + 3")` are what `rulecraft roll` / `odds` wrap;
a ruleset supplies its names through `env`.
"""
from __future__ import annotations

import random
from collections import Counter
from ..records import record
from fractions import Fraction
from typing import Any, Mapping

from ..dice.distribution import Distribution
from ..lang.ast import Node, to_text
from ..lang.parse import parse_expression
from ..errors import UsageError
from . import budget
from .sampled import Context, compile_sampler
from .values import fraction_text, json_value, sort_key
from ..limits import MAX_TIMES


def make_rng(seed: int | None) -> tuple[random.Random, int]:
    """An explicit RNG (never the global one) and the seed it was made from, so that a
    run without `--seed` can still be reproduced from what it printed."""
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    return random.Random(seed), seed


@record
class RollResult:
    """One sampled evaluation: the value and the record of every dice term rolled."""

    expression: str
    total: Any
    dice: list
    seed: int

    def as_json(self) -> dict:
        return {"expression": self.expression, "seed": self.seed,
                "total": json_value(self.total),
                "dice": [d.as_json() for d in self.dice]}


@record
class RollSummary:
    """Many sampled evaluations of one expression, summarised."""

    expression: str
    seed: int
    counts: Counter

    @property
    def times(self) -> int:
        return sum(self.counts.values())

    def mean(self) -> float | None:
        numeric = [(v, n) for v, n in self.counts.items() if _is_number(v)]
        if not numeric or len(numeric) != len(self.counts):
            return None
        return float(sum(Fraction(v) * n for v, n in numeric) / self.times)

    def as_json(self) -> dict:
        values = sorted(self.counts, key=sort_key)
        return {"expression": self.expression, "seed": self.seed, "times": self.times,
                "mean": self.mean(),
                "min": json_value(values[0]), "max": json_value(values[-1]),
                "counts": [{"value": json_value(v), "count": self.counts[v]} for v in values]}


def _is_number(value) -> bool:
    return type(value) in (int, Fraction)


def _compiled(expr: str | Node) -> Node:
    return parse_expression(expr) if isinstance(expr, str) else expr


def roll(expr: str | Node, seed: int | None = None,
         env: Mapping[str, Any] | None = None) -> RollResult:
    """Roll an expression once, recording every die."""
    node = _compiled(expr)
    rng, seed = make_rng(seed)
    ctx = Context(env or {}, rng, [])
    before = budget.begin()   # one roll is a call tree of its own (budget.py)
    try:
        total = compile_sampler(node, record=True)(ctx)
    finally:
        budget.end(before)
    return RollResult(to_text(node), total, ctx.record, seed)


def roll_many(expr: str | Node, times: int, seed: int | None = None,
              env: Mapping[str, Any] | None = None, progress=None) -> RollSummary:
    """Roll an expression `times` times (fast path, no transcript) and count the values."""
    if not 1 <= times <= MAX_TIMES:
        raise UsageError(f"--times must be between 1 and {MAX_TIMES}")
    node = _compiled(expr)
    rng, seed = make_rng(seed)
    ctx = Context(env or {}, rng, None)
    sample = compile_sampler(node, record=False)
    counts: Counter = Counter()
    step = max(1, times // 100)
    before = budget.begin()
    try:
        for i in range(times):
            budget.WORK[0] = budget.WORK[2]   # each roll is a call tree of its own
            counts[_plain_value(sample(ctx))] += 1
            if progress is not None and i % step == 0:
                progress(i)
    finally:
        budget.end(before)
    return RollSummary(to_text(node), seed, counts)


def _plain_value(value):
    total = getattr(value, "total", None)
    return total if total is not None and not isinstance(value, (int, Fraction)) else value


def odds(expr: str | Node, env: Mapping[str, Any] | None = None) -> Distribution:
    """The exact distribution of an expression's value."""
    from .exact import exact   # here: `roll`, and `play` (its dice made by this module), need it not
    return exact(_compiled(expr), env or {})


def odds_json(expression: str, dist: Distribution) -> dict:
    """The stable JSON form of a distribution (documented in the README)."""
    outcomes = []
    numeric = all(_is_number(v) or isinstance(v, bool) for v, _ in dist.items())
    remaining = dist.total
    for value, weight in dist.items():
        p = Fraction(weight, dist.total)
        outcome = {"value": json_value(value), "probability": fraction_text(p),
                   "percent": round(float(p) * 100, 6)}
        if numeric:   # P(value or more), exact
            outcome["at_least"] = fraction_text(Fraction(remaining, dist.total))
        remaining -= weight
        outcomes.append(outcome)
    result: dict = {"expression": expression, "outcomes": outcomes}
    if numeric and len(dist):
        mean = dist.mean()
        result.update({"mean": fraction_text(mean), "mean_float": float(mean),
                       "stdev": dist.stdev(), "min": json_value(dist.min()),
                       "max": json_value(dist.max())})
    result["capped"] = fraction_text(dist.capped_probability())
    return result
