"""One procedure run alone (`rulecraft run`): units built from kinds, `--with` inputs
bound to parameters, a run with its transcript, fast bulk runs, exact odds."""
from __future__ import annotations

import copy
import random
from ..records import record, field
from fractions import Fraction
from typing import Any

from ..dice.distribution import Distribution
from ..errors import EvalError, Location, RulecraftError, UsageError
from ..expr.rolling import make_rng
from ..expr.sampled import Context, compile_sampler, compiled
from ..expr.values import describe, json_value, plain
from ..lang.parse import parse_expression
from ..expr import budget
from ..run.frames import Branch, Frame, Scope
from ..run.sampled import dice_text, run_steps, value_text
from ..state.space import parse_position
from ..dice.distribution import outcome_key as dist_key
from ..state.freezing import fresh, frozen_outcome
from ..state.world import Side, Unit, World
from ..suggest import did_you_mean
from .inputs import check_parameter_types
from .policies import Chooser


# ----------------------------------------------------------------------- building units


@record
class StartRoll:
    """A unit whose starting state rolled dice (`morale: "=d6"`): rolled once as it is
    made, with the game's or run's dice; the transcript shows each such value
    (`started`) and exact odds branch over their outcomes (`start_branches`)."""

    unit: Unit
    formulas: list                              # (field, node) of every state formula, in order
    rolls: dict = field(default_factory=dict)   # field -> its dice records, for those that rolled


class _DiceNeeded(Exception):
    pass


class _NoDice:
    """The dice of a unit made where nothing may be rolled (the odds of one formula):
    a starting value that rolls is then a located error, not an internal one."""

    def __getattr__(self, name):
        raise _DiceNeeded


def make_unit(ruleset, kind_name: str, name: str, side: str, overrides: dict | None = None,
              uid: str | None = None, loc: Location | None = None, rng=None,
              rolled: list | None = None) -> Unit:
    """A unit of a kind: its stats (defaults, then overrides) and initial state.  A
    state formula that rolls dice uses `rng` and is noted in `rolled` (a StartRoll)."""
    kind = ruleset.kinds.get(kind_name)
    if kind is None:
        raise RulecraftError(f"unknown kind {kind_name!r}", loc, code="unknown-name",
                             hint=did_you_mean(str(kind_name), ruleset.kinds))
    formulas = kind.formula_stats()
    fields = {k: fresh(v) for k, v in kind.stats.items() if k not in formulas}
    fields.setdefault("destroyed", False)
    unit = Unit(uid or name, name, kind, side, fields)
    overrides = overrides or {}
    # plain stats and the values given first (formulas may read them), then the stat
    # formulas not given, then the state's starting values, then what is set inside a
    # formula's or a state's record (`--with unit.spells.fireball=1`), which the starting
    # value would otherwise overwrite
    into_state = {k: v for k, v in overrides.items() if str(k).split(".")[0] in kind.state}
    into_formula = {k: v for k, v in overrides.items()
                    if "." in str(k) and str(k).split(".")[0] in formulas}
    for key, value in overrides.items():
        if key not in into_state and key not in into_formula:
            set_nested(unit.fields, key, value, loc, name)
    start = StartRoll(unit, [])
    for key in formulas:
        if key not in overrides:
            start.formulas.append((key, formulas[key]))
            unit.fields[key] = fresh(_starting_value(ruleset, unit, key, formulas[key], rng,
                                                     start.rolls))
        for dotted, value in into_formula.items():   # seen by the formulas after it
            if dotted.split(".")[0] == key:
                set_nested(unit.fields, dotted, value, loc, name)
    for key, value in kind.state.items():
        if key in overrides:
            unit.fields[key] = copy.deepcopy(overrides[key])
            continue
        if hasattr(value, "loc") and not isinstance(value, (int, str, bool, float, list, dict)):
            start.formulas.append((key, value))
            value = _starting_value(ruleset, unit, key, value, rng, start.rolls)
        unit.fields[key] = fresh(value)
    if start.rolls and rolled is not None:
        rolled.append(start)
    for key, value in into_state.items():
        if key not in kind.state:
            set_nested(unit.fields, key, value, loc, name)
    return unit


def _starting_value(ruleset, unit, key: str, formula, rng, rolls: dict):
    records: list = []
    ctx = Context(Scope({"self": unit}, _UnitScope(unit, ruleset.globals)),
                  rng if rng is not None else _NoDice(), records)
    try:
        value = compiled(formula, True)(ctx)
    except _DiceNeeded:
        raise EvalError(f"the starting {key} of a {unit.kind.name} rolls dice, and here no "
                        f"unit is rolled for", formula.loc,
                        hint="give it a value instead (a number, or a formula of stats)") from None
    if any(hasattr(r, "dice") for r in records):
        rolls[key] = records
    return plain(value)


def started(world: World, rolled: list) -> None:
    """The transcript's line for each starting value that rolled dice."""
    for start in rolled:
        for key, records in start.rolls.items():
            value = start.unit.fields[key]
            world.log("start", f"{start.unit.name} starts with {key} = {value_text(value)}"
                               f"  ({dice_text(records)})", unit=start.unit.name, field=key,
                      value=value, rolls=[r.as_json() for r in records])


def start_branches(start: Branch, rolled: list) -> list[Branch]:
    """Exact odds: the start branch split over every outcome of each starting value
    that rolled dice, the state formulas after it evaluated again in each branch (one
    may read it: `wounds: "=morale * 2"`), as a sampled run makes the unit."""
    from ..expr.exact import exact   # exact odds only: `play` never loads it
    branches = [start]
    for roll in rolled:
        first = next(i for i, (key, _) in enumerate(roll.formulas) if key in roll.rolls)
        for key, formula in roll.formulas[first:]:
            split = []
            for branch in branches:
                unit = branch.world.units[roll.unit.uid]
                dist = exact(formula, Scope({"self": unit}, _UnitScope(unit, branch.globals)))
                if not isinstance(dist, Distribution):
                    dist = Distribution.constant(dist)
                for value, weight in dist.items():
                    child = branch.fork(Fraction(weight, dist.total), True)
                    child.world.units[roll.unit.uid].fields[key] = plain(value)
                    split.append(child)
            branches = split
    return branches


class _UnitScope(dict):
    """A unit's fields as bare names over the ruleset globals (for state formulas)."""

    def __init__(self, unit, globals_):
        super().__init__()
        self.unit, self.globals_ = unit, globals_

    def __getitem__(self, key):
        try:
            return self.unit.dsl_attr(key)
        except KeyError:
            return self.globals_[key]

    def __contains__(self, key):
        try:
            self[key]
            return True
        except KeyError:
            return False


def set_nested(fields: dict, dotted: str, value, loc, label: str = "") -> None:
    """`fields[a][b][c] = value` for `a.b.c`.  A dotted path goes only where the record
    has the keys (`--with target.armour.frnt=3` is a mistake, not a new field): each
    key after the first must exist, with "did you mean" when it does not.  Only a record
    with no fields at all (a record parameter without a default) is filled freely."""
    parts = dotted.split(".")
    record = fields
    for depth, step in enumerate(parts):
        last = depth == len(parts) - 1
        if depth > 0 and record and step not in record:
            where = ".".join(p for p in [label, *parts[:depth]] if p)
            raise UsageError(f"{label + '.' if label else ''}{dotted}: {where} has no field "
                             f"{step!r}", loc, hint=did_you_mean(step, [str(k) for k in record])
                             or f"its fields: {', '.join(map(str, record))}")
        if last:
            record[step] = value
            return
        record = record.setdefault(step, {})
        if not isinstance(record, dict):
            where = ".".join(p for p in [label, *parts[:depth + 1]] if p)
            raise UsageError(f"{label + '.' if label else ''}{dotted}: {where} is not a record",
                             loc)


# ----------------------------------------------------------------- one procedure run


@record
class RunResult:
    """One run of a procedure: its result and its transcript.  (A docstring of its own
    spares dataclasses writing one from `inspect.signature` at every start.)"""
    procedure: str
    result: Any
    events: list
    seed: int
    inputs: dict
    chain: list = field(default_factory=list)   # the rulesets, base first (set by Rules.run)

    def as_json(self) -> dict:
        return {"procedure": self.procedure, "seed": self.seed, "result": json_value(self.result),
                "events": self.events, **chain_json(self.chain)}


def parse_inputs(pairs: list[str]) -> dict[str, str]:
    """`--with NAME=VALUE` pairs (dotted names allowed) into a dict of text values."""
    inputs = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"--with expects NAME=VALUE, got {pair!r}")
        name, value = pair.split("=", 1)
        name = name.strip()
        if not name or not all(p.isidentifier() for p in name.split(".")):
            raise UsageError(f"--with: {name!r} is not a name (use letters, digits, _ and dots)")
        if name in inputs:
            raise UsageError(f"--with {name} is given twice ({inputs[name]!r} and {value!r})",
                             hint="give each input once")
        inputs[name] = value
    return inputs


def input_value(text, ruleset, name: str):
    """A `--with` value: a number, true/false, a DSL expression over the ruleset's
    names (a table row, a list), or else the text itself.  A bare word is text unless it
    is one of the ruleset's parameters (`--with arc=side` is the text "side")."""
    if not isinstance(text, str):
        return text
    word = text.strip()
    if word.isdigit() and word.isascii() and len(word) <= 18:
        return int(word)     # a whole number, as the parser reads it, without the parser
    if word.isidentifier() and word not in ("true", "false") and word not in ruleset.parameters:
        return word
    try:
        node = parse_expression(text, Location(f"--with {name}", 1, 1, source=text))
    except RulecraftError:
        return text          # not an expression: plain text ("Plate armor", "a b")
    try:
        return compile_sampler(node, False)(Context(ruleset.globals, random.Random(0), None))
    except RulecraftError as err:
        raise UsageError(f"--with {name}={text}: {err.message}", hint=err.hint) from None


def row_fields(value) -> dict:
    """The columns of a table row (or a record) as plain fields for a unit."""
    if isinstance(value, dict):
        return dict(value)
    names = getattr(value, "dsl_names", None)
    if names is None:
        raise UsageError(f"expected a record or a table row, got {describe(value)}")
    return {n: value.dsl_attr(n) for n in names() if n not in ("key",)}


def bind_procedure_inputs(ruleset, proc, inputs: dict, world: World,
                          rolled: list | None = None) -> dict:
    """Parameter values for a run from `--with` inputs, defaults and kinds (the units'
    starting values rolled with the world's dice, noted in `rolled`)."""
    check_parameter_types(proc, inputs, lambda text, name: input_value(text, ruleset, name))
    top: dict[str, Any] = {}
    nested: dict[str, dict] = {}
    for name, text in inputs.items():
        head, _, rest = name.partition(".")
        if head not in proc.params:
            raise UsageError(f"{proc.name} has no parameter {head!r}",
                             hint=did_you_mean(head, proc.params) or
                             f"its parameters: {', '.join(proc.params) or 'none'}")
        if rest:
            nested.setdefault(head, {})[rest] = input_value(text, ruleset, name)
        else:
            top[head] = input_value(text, ruleset, name)
    values = {}
    for pname, param in proc.params.items():
        if param.type == "unit":
            overrides = {}
            if pname in top:
                overrides.update(row_fields(top[pname]))
            kind = param.kind or (next(iter(ruleset.kinds)) if len(ruleset.kinds) == 1 else None)
            if kind is None:
                raise UsageError(f"parameter {pname!r} is a unit of no declared kind")
            _known_fields(ruleset, kind, pname, set(overrides), nested.get(pname, {}))
            overrides.update(nested.get(pname, {}))
            if param.default and isinstance(param.default, dict):
                overrides = {**param.default, **overrides}
            where = overrides.pop("position", None)
            try:
                unit = make_unit(ruleset, kind, pname, pname, overrides, rng=world.rng,
                                 rolled=rolled)
            except UsageError as err:   # a dotted --with into one of its records
                raise UsageError(f"--with {err.message}", hint=err.hint) from None
            world.units[unit.uid] = unit
            if where is not None:   # --with target.position=[q, r, facing]
                            world.positions[unit.uid] = parse_position(where, world.space, f"{pname}.position")
            world.sides.setdefault(pname, Side(pname, "first", world))
            values[pname] = unit
            continue
        if pname in top:
            value = top[pname]
        elif param.required and pname not in nested:
            raise UsageError(f"{proc.name} needs a value for {pname!r}",
                             hint=f"--with {pname}=VALUE" + (f" ({param.description})" if param.description else ""))
        else:
            value = copy.deepcopy(param.default)
        if pname in nested:
            value = dict(value) if isinstance(value, dict) else (row_fields(value) if value is not None else {})
            for dotted, v in nested[pname].items():
                try:
                    set_nested(value, dotted, v, None, pname)
                except UsageError as err:
                    raise UsageError(f"--with {err.message}", hint=err.hint) from None
        if param.one_of and value not in param.one_of:
            raise UsageError(f"{pname} must be one of {', '.join(map(str, param.one_of))}, got {value!r}")
        values[pname] = value
    return values


def _known_fields(ruleset, kind_name: str, pname: str, given: set, nested: dict) -> None:
    """`--with target.armr=3` names a field the unit will not have: a usage error with
    "did you mean", not a new field that no rule reads."""
    kind = ruleset.kinds.get(kind_name)
    if kind is None:
        return
    fields = kind.fields() | given | {"position"}
    for dotted in nested:
        head = dotted.split(".")[0]
        if head not in fields:
            raise UsageError(f"--with {pname}.{dotted}: {pname} (a {kind.name}) has no field "
                             f"{head!r}", hint=did_you_mean(head, sorted(fields)))


RUN_POLICIES = ("first", "random", "prefer")
"""Policies a procedure run alone may give its sides: `script` needs a scenario's
answers and `ask` a game at the terminal (`play --interactive`)."""


def parse_policies(pairs: list[str]) -> dict[str, str]:
    """`--policy POLICY` (every choice) and `--policy SIDE=POLICY` (the choices made by
    one unit parameter, which is its own side in a run) into {side or "": policy}."""
    policies: dict[str, str] = {}
    for pair in pairs:
        side, _, policy = pair.rpartition("=")
        side, policy = side.strip(), policy.strip()
        if policy not in RUN_POLICIES:
            raise UsageError(f"--policy {pair}: {policy!r} is not a policy for a run",
                             hint=did_you_mean(policy, RUN_POLICIES)
                             or f"policies: {', '.join(RUN_POLICIES)}")
        if side in policies:
            raise UsageError(f"--policy {side or 'POLICY'} is given twice")
        policies[side] = policy
    return policies


def apply_policies(world: World, proc, policies: dict[str, str]) -> None:
    """Give the run's sides their policies: "" for every choice, a unit parameter's
    name for the choices that unit (its own side) makes."""
    default = policies.get("", "first")
    world.default_policy = default
    for side in world.sides.values():
        side.policy = default
    for name, policy in policies.items():
        if not name:
            continue
        if name not in world.sides:
            units = [p for p, param in proc.params.items() if param.type == "unit"]
            raise UsageError(f"--policy {name}={policy}: {proc.name} has no unit parameter "
                             f"{name!r} (each unit parameter is a side of its own in a run)",
                             hint=did_you_mean(name, units)
                             or f"its unit parameters: {', '.join(units) or 'none'}")
        world.sides[name].policy = policy


def procedure_of(ruleset, name: str):
    proc = ruleset.procedures.get(name)
    if proc is None:
        raise UsageError(f"{ruleset.id} has no procedure {name!r}",
                         hint=did_you_mean(name, ruleset.procedures) or
                         f"its procedures: {', '.join(ruleset.procedures) or 'none'}")
    return proc


def run_procedure(ruleset, name: str, inputs: dict, seed: int | None,
                  policies: dict | None = None) -> RunResult:
    proc = procedure_of(ruleset, name)
    rng, seed = make_rng(seed)
    world = World(ruleset, rng, record=True)
    world.chooser = Chooser(world, None)
    rolled: list = []
    values = bind_procedure_inputs(ruleset, proc, inputs, world, rolled)
    apply_policies(world, proc, policies or {})
    started(world, rolled)
    frame = Frame(values, ruleset.globals, world, rng, True)
    world.log("call", f"{name}", procedure=name)
    before = budget.begin(ruleset.budget("steps"))
    try:
        run_steps(proc.steps, frame)
    finally:
        budget.end(before)
    return RunResult(name, frame.result, world.events, seed, inputs)


def procedure_sampler(ruleset, name: str, inputs: dict, policies: dict | None = None):
    """A fast closure `rng -> result` running a procedure without a transcript, the
    units reset to their starting state before each run (for benchmarks and bulk runs).
    Inputs are bound and everything compiled once."""
    proc = procedure_of(ruleset, name)
    world = World(ruleset, random.Random(0), record=False)
    world.chooser = Chooser(world, None)
    rolled: list = []
    values = bind_procedure_inputs(ruleset, proc, inputs, world, rolled)
    if rolled:
        key = next(iter(rolled[0].rolls))
        raise UsageError(f"{rolled[0].unit.name}.{key} rolls dice as the unit is made, and "
                         f"bulk runs reuse one starting state",
                         hint=f"give it with --with {rolled[0].unit.name}.{key}=N, or play "
                              f"or run the procedure one run at a time")
    apply_policies(world, proc, policies or {})
    units = list(world.units.values())
    starting = [dict(u.fields) for u in units]
    from ..run.codegen import repeated_run   # bulk runs only: a recorded game compiles nothing
    return repeated_run(proc.body(), values, world, ruleset.globals, units, starting,
                        ruleset.budget("steps"))


def chain_json(chain: list) -> dict:
    """What `--json` says of the rulesets a result came from: `"ruleset": "tanks +
    veteran-crews"` and `"chain": ["tanks", "veteran-crews"]` (base first), so that a
    program reading the output knows a house rule was in play.  Empty for a result made
    outside `Rules` (no ruleset to name)."""
    return {"ruleset": " + ".join(chain), "chain": list(chain)} if chain else {}


def hashable(value):
    """A result or tracked value as an outcome of a distribution: a unit by its name, as
    a sampled run shows and `--json` writes it (not the world's internal id)."""
    value = getattr(value, "total", value) if not isinstance(value, (int, Fraction)) else value
    if hasattr(value, "dsl_label") and not isinstance(value, Unit):
        return getattr(value, "dsl_label")
    return frozen_outcome(_units_named(value))


def outcome_key(value):
    """`hashable(value)` as the key weights are gathered under before a distribution is
    made of them (`Distribution.from_weights`): by the distribution's own key for it, since
    true and 1 are equal in Python but different outcomes (also inside a list)."""
    return dist_key(hashable(value))


def _units_named(value):
    if isinstance(value, Unit):
        return value.name
    if isinstance(value, dict):
        return {k: _units_named(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_units_named(v) for v in value]
    return value
