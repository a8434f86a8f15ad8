"""Exact odds of one procedure (`rulecraft run --odds`): the distribution of its result,
of tracked expressions on the state it ends in, optionally conditioned on an event
(`--given`), and which policy decided each choice point."""
from __future__ import annotations

import math
import random
from ..records import record, field
from fractions import Fraction

from ..dice.distribution import Distribution
from ..errors import Location, NameError_, RulecraftError, UsageError
from ..expr.exact import exact
from ..expr.rolling import odds_json
from ..expr.values import fraction_text
from ..lang.ast import Name, walk
from ..lang.parse import parse_expression
from ..run import observed as observed_fields
from ..run.exact import enumerate_liveness, explore_steps
from ..run.frames import WORLD_NAMES, Branch, Enumeration, Scope
from ..run.heap import held as heap_held
from ..run.stack import in_room
from ..state.world import World
from ..suggest import did_you_mean
from .runs import (apply_policies, bind_procedure_inputs, chain_json, outcome_key, procedure_of,
                   start_branches)


@record
class ProcedureOdds:
    procedure: str
    outcomes: Distribution
    tracked: dict[str, Distribution]
    capped: Fraction
    given: str | None = None
    given_probability: Fraction | None = None
    choices: list = field(default_factory=list)
    chain: list = field(default_factory=list)   # the rulesets, base first (set by Rules.run_odds)

    def as_json(self) -> dict:
        data = odds_json(self.procedure, self.outcomes)
        data["procedure"] = self.procedure
        data["tracked"] = {k: odds_json(k, d)["outcomes"] for k, d in self.tracked.items()}
        data["capped"] = str(self.capped)
        if self.given is not None:
            data["given"] = {"expression": self.given,
                             "probability": fraction_text(self.given_probability),
                             "percent": round(float(self.given_probability) * 100, 6)}
        data["choices"] = self.choices
        data.update(chain_json(self.chain))
        return data


class Observed:
    """An expression read on the state a run ends in (`--track`, `--given`): parsed once,
    with the names it reads, which must be kept alive to the end of the enumeration."""

    def __init__(self, option: str, text: str):
        self.option, self.text = option, text
        self.node = parse_expression(text, Location(f"{option} {text}", 1, 1, source=text))
        self.names = frozenset(n.id for n in walk(self.node) if isinstance(n, Name))

    def distribution(self, branch: Branch, names: dict) -> Distribution | None:
        """Its distribution on this end state, or None if it reads a local this branch
        never bound (the caller says so clearly, over all branches)."""
        scope = Scope(names, branch.globals, branch.world)
        try:
            return exact(self.node, scope)
        except NameError_ as err:
            missing = [n for n in self.names if n not in scope and n not in WORLD_NAMES]
            if missing:
                return None
            raise UsageError(f"{self.option} {self.text}: {err.message}", hint=err.hint) from None
        except RulecraftError as err:
            raise UsageError(f"{self.option} {self.text}: {err.message}", hint=err.hint) from None


def _unbound(observed: Observed, ends: list[Branch], missing_weight: Fraction, proc) -> UsageError:
    """A clear message for a tracked name that some (or all) branches never bound."""
    seen = set(proc.params) | bound_names(proc.steps)
    unknown = sorted(n for n in observed.names if n not in seen and n not in proc.ruleset.globals
                     and n not in WORLD_NAMES and n != "result")
    if missing_weight == 1 or unknown:
        name = unknown[0] if unknown else sorted(observed.names)[0]
        return UsageError(f"{observed.option} {observed.text}: {name!r} is not a parameter or a "
                          f"local name of {proc.name}",
                          hint=did_you_mean(name, sorted(seen)) or
                          f"its names: {', '.join(sorted(seen)) or 'none'}; `result` is its result")
    unbound = sorted(n for n in observed.names if any(n not in b.locals for b in ends)
                     and n in seen and n not in proc.params)
    return UsageError(f"{observed.option} {observed.text}: {', '.join(map(repr, unbound))} is not "
                      f"bound on every branch: it has no value in {float(missing_weight):.2%} of "
                      f"the outcomes (the procedure returned before binding it, or bound it only "
                      f"under an if)",
                      hint="track a parameter's field, or bind the name with a let before the "
                           "first return")


def bound_names(steps) -> set:
    """Every local name a step list binds (at any depth)."""
    names = set()
    for step in steps:
        if step.binds():
            names.add(step.binds())
        for block in step.blocks():
            names |= bound_names(block)
    return names


def procedure_odds(ruleset, name: str, inputs: dict, track: list[str], given: str | None = None,
                   policies: dict | None = None) -> ProcedureOdds:
    """The exact distribution of a procedure's result and of tracked expressions, given
    an event if one is asked for (the outcomes where it does not hold are dropped and the
    rest scaled by 1 / P(given), which is reported)."""
    proc = procedure_of(ruleset, name)
    world = World(ruleset, random.Random(0), record=False)
    rolled: list = []
    values = bind_procedure_inputs(ruleset, proc, inputs, world, rolled)
    apply_policies(world, proc, policies or {})
    observed = [Observed("--track", t) for t in track]
    condition = Observed("--given", given) if given is not None else None
    keep = frozenset().union(*(o.names for o in observed + ([condition] if condition else [])))
    run = Enumeration()
    enumerate_liveness(run, proc.steps, proc.params, ruleset.cell_names(), keep)
    start = Branch(Fraction(1), locals_=values, world=world, globals_=ruleset.globals, run=run,
                   keep_at_end=keep)
    # the game is read at the end by the tracked expressions and the condition alone
    start.seen = observed_fields.top(observed_fields.expression_reads(
        [o.node for o in observed + ([condition] if condition else [])]), values, ruleset.globals)
    observed_fields.study(proc)
    with heap_held():
        ends = in_room(explore_steps, proc.steps, start_branches(start, rolled))
    results: dict = {}
    tracked: dict[str, dict] = {t: {} for t in track}
    missing = {t: Fraction(0) for t in track}
    capped = held = Fraction(0)
    for b in ends:
        names = {**b.locals, "result": b.result}
        weight = b.weight
        if condition is not None:
            holds = condition.distribution(b, names)
            if holds is None:
                raise _unbound(condition, ends, sum((e.weight for e in ends
                                                     if condition.distribution(e, {**e.locals, "result": e.result}) is None),
                                                    Fraction(0)), proc)
            weight *= _probability_true(holds, condition)
            if not weight:
                continue
        held += weight
        key = outcome_key(b.result)
        results[key] = results.get(key, 0) + weight
        if b.capped:
            capped += weight
        for o in observed:
            dist = o.distribution(b, names)
            if dist is None:
                missing[o.text] += b.weight
                continue
            for value, w in dist.items():
                v = outcome_key(value)
                tracked[o.text][v] = tracked[o.text].get(v, 0) + weight * Fraction(w, dist.total)
    for o in observed:
        if missing[o.text]:
            raise _unbound(o, ends, missing[o.text], proc)
    if condition is not None and held == 0:
        raise UsageError(f"--given {given}: it never holds, so there is nothing to condition on")
    scale = 1 / held if condition is not None else Fraction(1)
    return ProcedureOdds(name, to_distribution(results, scale),
                         {t: to_distribution(d, scale) for t, d in tracked.items()},
                         capped * scale, given, held if condition is not None else None,
                         choices_json(run))


def _probability_true(holds: Distribution, condition: Observed) -> Fraction:
    bad = [v for v, _ in holds.items() if type(v) is not bool]
    if bad:
        raise UsageError(f"--given {condition.text}: a condition is true or false, not {bad[0]!r}")
    return holds.probability(True)


def choices_json(run: Enumeration) -> list:
    """Which policy decided each choice point reached, and with what probability."""
    rows = []
    for step, seen in run.choices.items():
        rows.append({"choice": step.var, "at": str(step.loc) if step.loc else None,
                     "policies": {k: fraction_text(Fraction(w)) for k, w in seen.items()}})
    return rows


def to_distribution(weights: dict, scale: Fraction = Fraction(1)) -> Distribution:
    if not weights:
        return Distribution.constant(None)
    weights = {v: Fraction(w) * scale for v, w in weights.items()}
    denominator = math.lcm(*(w.denominator for w in weights.values()))
    return Distribution.from_weights({v: int(w * denominator) for v, w in weights.items()})
