"""The engine: run one procedure, enumerate its exact odds, play or simulate a scenario.

Nothing here knows a rulebook.  A game is: build the world from a scenario, decide the
initiative order as the ruleset declares it, then turn after turn run the start-of-turn
steps and status triggers, each phase for each side or unit in order, the end-of-turn
bookkeeping (triggers, status expiry), and the victory conditions, until one holds or the
turn limit is reached.
"""
from __future__ import annotations

import copy
import math
import random
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .dice.distribution import Distribution
from .lang.parse import parse_expression
from .errors import Location, RulecraftError, UsageError
from .expr.sampled import Context, compile_sampler, compiled
from .expr.values import describe, get_attr, json_value, sort_key
from .expr.rolling import make_rng
from .run.steps import Branch, Frame, Scope, explore_steps, run_steps
from .suggest import did_you_mean
from .state.world import Side, Unit, World

# ----------------------------------------------------------------------- building units


def make_unit(ruleset, kind_name: str, name: str, side: str, overrides: dict | None = None,
              uid: str | None = None, loc: Location | None = None) -> Unit:
    """A unit of a kind: its stats (defaults, then overrides) and initial state."""
    kind = ruleset.kinds.get(kind_name)
    if kind is None:
        raise RulecraftError(f"unknown kind {kind_name!r}", loc, code="unknown-name",
                             hint=did_you_mean(str(kind_name), ruleset.kinds))
    fields = copy.deepcopy(kind.stats)
    fields.setdefault("destroyed", False)
    unit = Unit(uid or name, name, kind, side, fields)
    for key, value in (overrides or {}).items():
        _set_nested(unit.fields, key, value, loc)
    for key, value in kind.state.items():
        if key in (overrides or {}):
            continue
        if hasattr(value, "loc") and not isinstance(value, (int, str, bool, float, list, dict)):
            value = compiled(value)(
                Context(Scope({"self": unit}, _UnitScope(unit, ruleset.globals)), None, None))
        unit.fields[key] = copy.deepcopy(value)
    return unit


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


def _set_nested(fields: dict, dotted: str, value, loc) -> None:
    parts = dotted.split(".")
    record = fields
    for step in parts[:-1]:
        record = record.setdefault(step, {})
        if not isinstance(record, dict):
            raise UsageError(f"{dotted}: {step!r} is not a record")
    record[parts[-1]] = value


# ----------------------------------------------------------------- one procedure run


@dataclass
class RunResult:
    procedure: str
    result: Any
    events: list
    seed: int
    inputs: dict

    def as_json(self) -> dict:
        return {"procedure": self.procedure, "seed": self.seed, "result": json_value(self.result),
                "events": self.events}


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
        inputs[name] = value
    return inputs


def _input_value(text, ruleset, name: str):
    """A `--with` value: a number, true/false, a DSL expression over the ruleset's
    names (a table row, a list), or else the text itself.  A bare word is text unless it
    is one of the ruleset's parameters (`--with arc=side` is the text "side")."""
    if not isinstance(text, str):
        return text
    word = text.strip()
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


def _row_fields(value) -> dict:
    """The columns of a table row (or a record) as plain fields for a unit."""
    if isinstance(value, dict):
        return dict(value)
    names = getattr(value, "dsl_names", None)
    if names is None:
        raise UsageError(f"expected a record or a table row, got {describe(value)}")
    return {n: value.dsl_attr(n) for n in names() if n not in ("key",)}


def bind_procedure_inputs(ruleset, proc, inputs: dict, world: World) -> dict:
    """Parameter values for a run from `--with` inputs, defaults and kinds."""
    top: dict[str, Any] = {}
    nested: dict[str, dict] = {}
    for name, text in inputs.items():
        head, _, rest = name.partition(".")
        if head not in proc.params:
            raise UsageError(f"{proc.name} has no parameter {head!r}",
                             hint=did_you_mean(head, proc.params) or
                             f"its parameters: {', '.join(proc.params) or 'none'}")
        if rest:
            nested.setdefault(head, {})[rest] = _input_value(text, ruleset, name)
        else:
            top[head] = _input_value(text, ruleset, name)
    values = {}
    for pname, param in proc.params.items():
        if param.type == "unit":
            overrides = {}
            if pname in top:
                overrides.update(_row_fields(top[pname]))
            overrides.update(nested.get(pname, {}))
            kind = param.kind or (next(iter(ruleset.kinds)) if len(ruleset.kinds) == 1 else None)
            if kind is None:
                raise UsageError(f"parameter {pname!r} is a unit of no declared kind")
            if param.default and isinstance(param.default, dict):
                overrides = {**param.default, **overrides}
            where = overrides.pop("position", None)
            unit = make_unit(ruleset, kind, pname, pname, overrides)
            world.units[unit.uid] = unit
            if where is not None:   # --with target.position=[q, r, facing]
                from .state.space import parse_position
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
            value = dict(value) if isinstance(value, dict) else (_row_fields(value) if value is not None else {})
            for dotted, v in nested[pname].items():
                _set_nested(value, dotted, v, None)
        if param.one_of and value not in param.one_of:
            raise UsageError(f"{pname} must be one of {', '.join(map(str, param.one_of))}, got {value!r}")
        values[pname] = value
    return values


def _procedure(ruleset, name: str):
    proc = ruleset.procedures.get(name)
    if proc is None:
        raise UsageError(f"{ruleset.id} has no procedure {name!r}",
                         hint=did_you_mean(name, ruleset.procedures) or
                         f"its procedures: {', '.join(ruleset.procedures) or 'none'}")
    return proc


def run_procedure(ruleset, name: str, inputs: dict, seed: int | None) -> RunResult:
    proc = _procedure(ruleset, name)
    rng, seed = make_rng(seed)
    world = World(ruleset, rng, record=True)
    world.chooser = Chooser(world, None)
    values = bind_procedure_inputs(ruleset, proc, inputs, world)
    frame = Frame(values, ruleset.globals, world, rng, True)
    world.log("call", f"{name}", procedure=name)
    run_steps(proc.steps, frame)
    return RunResult(name, frame.result, world.events, seed, inputs)


def procedure_sampler(ruleset, name: str, inputs: dict):
    """A fast closure `rng -> result` running a procedure without a transcript, the
    units reset to their starting state before each run (for benchmarks and bulk runs).
    Inputs are bound and everything compiled once."""
    proc = _procedure(ruleset, name)
    world = World(ruleset, random.Random(0), record=False)
    world.chooser = Chooser(world, None)
    values = bind_procedure_inputs(ruleset, proc, inputs, world)
    units = list(world.units.values())
    starting = [dict(u.fields) for u in units]
    from .run.codegen import repeated_run
    return repeated_run(proc.body(), values, world, ruleset.globals, units, starting)


@dataclass
class ProcedureOdds:
    procedure: str
    outcomes: Distribution
    tracked: dict[str, Distribution]
    capped: Fraction

    def as_json(self) -> dict:
        from .expr.rolling import odds_json
        data = odds_json(self.procedure, self.outcomes)
        data["procedure"] = self.procedure
        data["tracked"] = {k: odds_json(k, d)["outcomes"] for k, d in self.tracked.items()}
        data["capped"] = str(self.capped)
        return data


def procedure_odds(ruleset, name: str, inputs: dict, track: list[str]) -> ProcedureOdds:
    """The exact distribution of a procedure's result (and of tracked fields)."""
    proc = _procedure(ruleset, name)
    world = World(ruleset, random.Random(0), record=False)
    values = bind_procedure_inputs(ruleset, proc, inputs, world)
    start = Branch(Fraction(1), locals_=values, world=world, globals_=ruleset.globals)
    ends = explore_steps(proc.steps, [start])
    results: dict = {}
    tracked: dict[str, dict] = {t: {} for t in track}
    capped = Fraction(0)
    for b in ends:
        key = _hashable(b.result)
        results[key] = results.get(key, 0) + b.weight
        if b.capped:
            capped += b.weight
        for t in track:
            value = _hashable(_tracked_value(b, t))
            tracked[t][value] = tracked[t].get(value, 0) + b.weight
    return ProcedureOdds(name, _to_distribution(results), {t: _to_distribution(d) for t, d in tracked.items()},
                         capped)


def _tracked_value(branch: Branch, dotted: str):
    head, *rest = dotted.split(".")
    if head not in branch.locals:
        raise UsageError(f"--track {dotted}: {head!r} is not a parameter or local name",
                         hint=did_you_mean(head, branch.locals))
    value = branch.locals[head]
    if isinstance(value, Unit):
        value = branch.world.units[value.uid]
    for step in rest:
        try:
            value = get_attr(value, step, None)
        except RulecraftError as err:
            raise UsageError(f"--track {dotted}: {err.message}", hint=err.hint) from None
    return value


def _hashable(value):
    from .state.world import freeze
    value = getattr(value, "total", value) if not isinstance(value, (int, Fraction)) else value
    if hasattr(value, "dsl_label") and not isinstance(value, Unit):
        return getattr(value, "dsl_label")
    return freeze(value)


def _to_distribution(weights: dict) -> Distribution:
    if not weights:
        return Distribution.constant(None)
    denominator = math.lcm(*(Fraction(w).denominator for w in weights.values()))
    return Distribution.from_weights({v: int(Fraction(w) * denominator) for v, w in weights.items()})


# ----------------------------------------------------------------------- choices


class Chooser:
    """Resolves `choose` points by the deciding side's policy: first, random, prefer,
    script (the scenario's list of answers, in order), or ask (a prompt)."""

    def __init__(self, world: World, scripts: dict | None, prompt=None):
        self.world = world
        self.scripts = {k: list(v) for k, v in (scripts or {}).items()}
        self.prompt = prompt

    def choose(self, step, options, by_value, frame):
        policy, side = "first", None
        if by_value is not None and self.world.sides:
            try:
                side = self.world.side_of(by_value, step.loc)
                policy = side.policy
            except RulecraftError:
                policy = "first"
        if policy == "random":
            return options[int(self.world.rng.random() * len(options))], "random"
        if policy == "prefer" and step.prefer_sampler is not None:
            scores = []
            for option in options:
                ctx = Context(Scope({"option": option}, frame.ctx.env), None, None, self.world)
                scores.append(step.prefer_sampler(ctx))
            return options[scores.index(max(scores))], "prefer"
        if policy == "script" and side is not None and self.scripts.get(side.name):
            wanted = self.scripts[side.name].pop(0)
            for option in options:
                if option_text(option) == str(wanted):
                    return option, "script"
            return options[0], "script (no match: first)"
        if policy == "ask" and self.prompt is not None:
            return self.prompt(step, options, side), "ask"
        return options[0], "first"


def option_text(option) -> str:
    """How a choice's option is named (for scripts and prompts)."""
    if isinstance(option, Unit):
        return option.name
    key = getattr(option, "key", None)
    if key is not None:
        return str(key)
    return str(json_value(option))


# ------------------------------------------------------------------------- games


@dataclass
class GameResult:
    scenario: str
    seed: int
    winner: str | None
    turns: int
    reason: str
    survivors: dict
    scores: dict
    events: list = field(default_factory=list)
    world: Any = field(default=None, repr=False, compare=False)

    def as_json(self) -> dict:
        return {"event": "result", "scenario": self.scenario, "seed": self.seed,
                "winner": self.winner, "turns": self.turns, "reason": self.reason,
                "survivors": self.survivors, "scores": self.scores}


def build_world(ruleset, scenario, rng, record: bool) -> World:
    world = World(ruleset, rng, record)
    for side_name, side in scenario.sides.items():
        world.sides[side_name] = Side(side_name, side["policy"], world)
        for spec in side["units"]:
            count = spec.get("count", 1)
            for i in range(count):
                name = spec.get("name", spec["kind"])
                if count > 1:
                    name = f"{name} {i + 1}"
                overrides = {}
                if spec.get("_design") is not None:
                    row = compiled(spec["_design"])(Context(ruleset.globals, rng, None))
                    design = _row_fields(row)
                    design.pop("name", None)   # the unit keeps its own name
                    overrides.update(design)
                    overrides.setdefault("design", str(getattr(row, "key", "") or spec["design"]))
                overrides.update(spec.get("stats", {}) or {})
                unit = make_unit(ruleset, spec["kind"], name, side_name, overrides,
                                 uid=_unique(world, name), loc=spec.get("_location"))
                for key, value in (spec.get("state") or {}).items():
                    _set_nested(unit.fields, key, value, None)
                world.units[unit.uid] = unit
    world.default_distance = scenario.distance or 0
    for pair, value in scenario.distances.items():
        a, _, b = pair.partition("-")
        world.distances[frozenset((a.strip(), b.strip()))] = value
    _place_units(world, scenario)
    return world


def _place_units(world, scenario) -> None:
    """Scenario positions (by unit name) and hex terrain ("q,r": name)."""
    from .state.space import parse_position
    for name, where in (scenario.positions or {}).items():
        unit = next((u for u in world.units.values() if u.name == name or u.uid == name), None)
        if unit is None:
            raise RulecraftError(f"scenario {scenario.name!r}: a position for {name!r}, which is "
                                 f"no unit of the scenario", scenario.location, code="unknown-name",
                                 hint=did_you_mean(name, [u.name for u in world.units.values()]))
        try:
            world.positions[unit.uid] = parse_position(where, world.space, f"position of {name}")
        except RulecraftError as err:
            err.location = err.location or scenario.location
            raise
    for key, terrain in (scenario.terrain or {}).items():
        parts = [p.strip() for p in str(key).split(",")]
        try:
            world.terrain[(int(parts[0]), int(parts[1]))] = terrain
        except (ValueError, IndexError):
            raise RulecraftError(f"scenario {scenario.name!r}: terrain is keyed by \"q,r\", not "
                                 f"{key!r}", scenario.location, code="schema-invalid") from None


def _unique(world, name):
    uid, n = name, 2
    while uid in world.units:
        uid, n = f"{name} ({n})", n + 1
    return uid


def _scenario(ruleset, name: str | None):
    if not ruleset.scenarios:
        raise UsageError(f"{ruleset.id} has no scenarios to play")
    if name is None:
        name = "default" if "default" in ruleset.scenarios else next(iter(ruleset.scenarios))
    scenario = ruleset.scenarios.get(name)
    if scenario is None:
        raise UsageError(f"{ruleset.id} has no scenario {name!r}",
                         hint=did_you_mean(name, ruleset.scenarios))
    return scenario


def _phase_frame(ruleset, world, names: dict) -> Frame:
    base = {"turn": world.turn, "sides": list(world.sides.values()),
            "units": [u for u in world.units.values() if u.alive]}
    base.update(names)
    return Frame(base, ruleset.globals, world, world.rng, world.record)


def initiative_order(ruleset, world) -> list[str]:
    """Sides in the order they act, by the ruleset's declared initiative.

    `per: side` rolls once per side; `per: unit` rolls per unit (the units then act in
    that order, and sides in the order of their first unit).  Ties are rerolled among the
    tied (`ties: reroll`, bounded) or left in declared order (`keep`).  Orders:
    highest_first, lowest_first, winner_chooses (the highest chooses to go first or
    last, the rest highest first) and winner_chooses_rest_lowest (the rest lowest first).
    """
    names = list(world.sides)
    ini = ruleset.turn.initiative if ruleset.turn else None
    world.unit_order = None
    if ini is None or ini.roll is None:
        return names
    roll = compiled(ini.roll, True)
    per_unit = ini.per == "unit"
    who = [u.uid for u in world.units.values() if u.alive] if per_unit else names
    if len(who) < 2:
        return names
    rolls: dict = {}
    contenders = who
    for _ in range(100):
        for w in contenders:
            rolls[w] = roll(Context(ruleset.globals, world.rng, [], world))
        values = [rolls[w] for w in who]
        if ini.ties != "reroll" or len(set(values)) == len(values):
            break
        contenders = [w for w in who if values.count(rolls[w]) > 1]
        world.log("initiative", "tie: " + ", ".join(f"{_who(world, w)} {rolls[w]}" for w in contenders)
                  + " — reroll")
    ranked = sorted(who, key=lambda w: (-rolls[w], who.index(w)))
    world.log("initiative", "rolls: " + ", ".join(f"{_who(world, w)} {rolls[w]}" for w in ranked),
              rolls={_who(world, w): json_value(rolls[w]) for w in who})
    if ini.order == "lowest_first":
        ranked = list(reversed(ranked))
    elif ini.order in ("winner_chooses", "winner_chooses_rest_lowest"):
        winner, rest = ranked[0], ranked[1:]
        if ini.order == "winner_chooses_rest_lowest":
            rest = list(reversed(rest))
        side = world.sides[world.units[winner].side if per_unit else winner]
        first = side.policy != "random" or world.rng.random() < 0.5
        world.log("initiative", f"{_who(world, winner)} chooses to go {'first' if first else 'last'}")
        ranked = [winner] + rest if first else rest + [winner]
    if not per_unit:
        return ranked
    world.unit_order = ranked
    order = []
    for uid in ranked:
        side = world.units[uid].side
        if side not in order:
            order.append(side)
    return order + [n for n in names if n not in order]


def _who(world, key) -> str:
    unit = world.units.get(key)
    return unit.name if unit is not None and key not in world.sides else key


def _status_triggers(ruleset, world, event: str, holders=None) -> None:
    """Run the `on: {event: ...}` steps of every active status (of `holders`, or of
    every unit)."""
    for unit in list(world.units.values()) if holders is None else holders:
        for status in list(unit.statuses):
            steps = status.definition.on.get(event) if status.definition else None
            if steps and status in unit.statuses and status.active:
                frame = _phase_frame(ruleset, world, {"holder": unit, "status": status,
                                                      "side": world.sides.get(unit.side)})
                run_steps(steps, frame)


def _start_statuses(world) -> None:
    """Statuses applied "from next turn" take effect when their turn starts."""
    for unit in world.units.values():
        for status in unit.statuses:
            if not status.started and status.active_from <= world.turn:
                status.started = True


def _expire_statuses(world) -> None:
    for unit in world.units.values():
        kept = []
        for status in unit.statuses:
            if status.turns_left is not None and status.applied_turn < world.turn:
                status.turns_left -= 1
            if status.turns_left is not None and status.turns_left <= 0:
                world.log("status", f"{unit.name} is no longer {status.name}", unit=unit.name,
                          status=status.name, ended=True)
                continue
            kept.append(status)
        unit.statuses = kept


def _victory(ruleset, world):
    for v in (ruleset.turn.victory if ruleset.turn else []):
        for side in world.sides.values():
            frame = _phase_frame(ruleset, world, {"side": side})
            holds = compiled(v.when)(frame.ctx)
            if holds is True:
                winner = side.name
                if v.winner is not None:
                    value = compiled(v.winner)(frame.ctx)
                    winner = value.name if isinstance(value, Side) else (None if value in (None, "draw") else str(value))
                return winner, v.description or "victory condition"
    return "unfinished", None


def play(ruleset, scenario_name: str | None = None, seed: int | None = None, *,
         record: bool = True, prompt=None) -> GameResult:
    """Play a whole scenario with seeded dice; every event goes to the transcript."""
    if ruleset.turn is None:
        raise UsageError(f"{ruleset.id} declares no turn structure to play")
    scenario = _scenario(ruleset, scenario_name)
    rng, seed = make_rng(seed)
    world = build_world(ruleset, scenario, rng, record)
    scripts = {n: s.get("script", []) for n, s in scenario.sides.items()}
    world.chooser = Chooser(world, scripts, prompt)
    turn_def = ruleset.turn
    max_turns = scenario.max_turns or turn_def.max_turns
    order = None
    winner, reason = "unfinished", None
    try:
        for turn in range(1, max_turns + 1):
            world.turn, world.phase = turn, ""
            world.log("turn", f"turn {turn}")
            if order is None or (turn_def.initiative and turn_def.initiative.when == "turn"):
                world.phase = "initiative"
                order = initiative_order(ruleset, world)
            world.phase = "start"
            _start_statuses(world)
            run_steps(turn_def.start_of_turn, _phase_frame(ruleset, world, {}))
            _status_triggers(ruleset, world, "start_of_turn")
            for phase in turn_def.phases:
                world.phase = phase.name
                world.log("phase", phase.name)
                _run_phase(ruleset, world, phase, order)
                winner, reason = _victory(ruleset, world)
                if reason:
                    break
            if reason:
                break
            world.phase = "end"
            run_steps(turn_def.end_of_turn, _phase_frame(ruleset, world, {}))
            _status_triggers(ruleset, world, "end_of_turn")
            _expire_statuses(world)
            winner, reason = _victory(ruleset, world)
            if reason:
                break
    except RulecraftError as err:
        err.message = f"{err.message} (turn {world.turn}, phase {world.phase or 'start'})"
        raise
    if not reason:
        winner, reason = None, f"turn limit ({max_turns}) reached"
    result = GameResult(scenario.name, seed, winner, world.turn, reason,
                        {n: len([u for u in s.units() if u.alive]) for n, s in world.sides.items()},
                        {n: json_value(s.data.get("score", 0)) for n, s in world.sides.items()},
                        world.events, world)
    world.log("result", f"winner: {winner or 'none'} ({reason}) after {world.turn} turns")
    return result


_PHASE_NAMES = {"turn", "sides", "units", "side", "unit"}


def _phase_steps(ruleset, world, steps):
    """How to run a phase's steps: the Steps when recording, else their compiled form."""
    if world.record:
        return lambda frame: run_steps(steps, frame)
    cache = ruleset.__dict__.setdefault("_compiled_phases", {})
    compiled = cache.get(id(steps))
    if compiled is None:
        from .run.codegen import compile_body, frame_runner
        compiled = frame_runner(compile_body(steps, _PHASE_NAMES, set(ruleset.globals),
                                             constants=ruleset.fixed_globals(),
                                             cell_names=ruleset.cell_names()))
        cache[id(steps)] = (steps, compiled)
        return compiled
    return compiled[1]


def _run_phase(ruleset, world, phase, order) -> None:
    """A phase: for each side or unit in order (or once), its holders' `start_of_PHASE`
    triggers, the phase's steps, then their `end_of_PHASE` triggers — so a status acts
    in its holder's own segment ("flees on its next move")."""
    run = _phase_steps(ruleset, world, phase.steps)
    start, end = f"start_of_{phase.name}", f"end_of_{phase.name}"

    def segment(holders, names):
        _status_triggers(ruleset, world, start, holders)
        if names is None or names.get("unit") is None or names["unit"].alive:
            run(_phase_frame(ruleset, world, names or {}))
        _status_triggers(ruleset, world, end, holders)

    if phase.each == "none":
        segment(None, None)
        return
    if phase.each == "unit" and world.unit_order:
        for uid in world.unit_order:
            unit = world.units.get(uid)
            if unit is not None and unit.alive:
                segment([unit], {"side": world.sides[unit.side], "unit": unit})
        return
    for side_name in order:
        side = world.sides[side_name]
        if phase.each == "side":
            segment(side.units(), {"side": side})
            continue
        for unit in [u for u in side.units() if u.alive]:
            if unit.alive:
                segment([unit], {"side": side, "unit": unit})


# ---------------------------------------------------------------------- simulate


@dataclass
class SimulationSummary:
    scenario: str
    runs: int
    seed: int
    wins: Counter
    turns: Counter
    survivors: dict
    tracked: dict = field(default_factory=dict)   # expression -> Counter of end values

    def as_json(self) -> dict:
        sides = {}
        for name, n in sorted(self.wins.items(), key=lambda kv: str(kv[0])):
            low, high = wilson(n, self.runs)
            sides[str(name)] = {"wins": n, "rate": n / self.runs, "ci95": [low, high]}
        mean_turns = sum(t * c for t, c in self.turns.items()) / self.runs
        return {"scenario": self.scenario, "runs": self.runs, "seed": self.seed,
                "results": sides, "turns": {"mean": mean_turns, "min": min(self.turns),
                                            "max": max(self.turns),
                                            "counts": {str(k): v for k, v in sorted(self.turns.items())}},
                "survivors_mean": {k: v / self.runs for k, v in sorted(self.survivors.items())},
                "tracked": {expr: _tracked_summary(counts, self.runs)
                            for expr, counts in self.tracked.items()}}


def _tracked_summary(counts: Counter, runs: int) -> dict:
    values = sorted(counts, key=sort_key)
    numeric = all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in values)
    mean = float(sum(Fraction(v) * n for v, n in counts.items()) / runs) if numeric and values else None
    return {"mean": mean, "counts": [{"value": json_value(v), "count": counts[v]} for v in values]}


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def game_seed(seed: int, index: int) -> int:
    """The seed of game `index` of a simulation: independent of how games are split
    among workers, so the summary is the same whatever --workers is."""
    return random.Random(f"rulecraft:{seed}:{index}").randrange(2**63)


def _play_chunk(args):
    path, scenario, seed, start, stop, track = args
    from .ruleset import load_ruleset
    ruleset = load_ruleset(path)
    tracked = _compile_tracks(track)
    return [_summarise(ruleset, play(ruleset, scenario, game_seed(seed, i), record=False), tracked)
            for i in range(start, stop)]


def _compile_tracks(track: list[str]) -> list:
    return [(text, compile_sampler(parse_expression(text, Location(f"--track {text}", 1, 1, source=text)),
                                   False)) for text in track]


def _summarise(ruleset, result: GameResult, tracked: list):
    """What a simulation keeps of one game: winner, length, survivors, tracked values
    (expressions evaluated on the final state; sides are reachable by name)."""
    values = {}
    for text, sample in tracked:
        world = result.world
        names = {"turn": world.turn, "units": [u for u in world.units.values() if u.alive],
                 "sides": list(world.sides.values()), **world.sides}
        ctx = Context(Scope(names, ruleset.globals, world), world.rng, None, world)
        values[text] = _hashable(sample(ctx))
    return (result.winner or "draw", result.turns, result.survivors, values)


def simulate(ruleset, scenario_name: str | None, runs: int, seed: int | None = None,
             workers: int = 1, progress=None, track: list[str] | None = None) -> SimulationSummary:
    from .limits import MAX_RUNS
    if not 1 <= runs <= MAX_RUNS:
        raise UsageError(f"--runs must be between 1 and {MAX_RUNS}")
    scenario = _scenario(ruleset, scenario_name)
    _, seed = make_rng(seed)
    track = list(track or [])
    tracked = _compile_tracks(track)
    outcomes = []
    if workers <= 1:
        for i in range(runs):
            outcomes.append(_summarise(ruleset, play(ruleset, scenario.name, game_seed(seed, i),
                                                     record=False), tracked))
            if progress:
                progress(i + 1)
    else:
        import multiprocessing
        chunk = max(1, runs // (workers * 4))
        jobs = [(str(ruleset.path), scenario.name, seed, s, min(runs, s + chunk), track)
                for s in range(0, runs, chunk)]
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            done = 0
            for part in pool.imap(_play_chunk, jobs):
                outcomes.extend(part)
                done += len(part)
                if progress:
                    progress(done)
    wins, turns, survivors = Counter(), Counter(), Counter()
    tracked_counts: dict = {text: Counter() for text in track}
    for winner, n_turns, alive, values in outcomes:
        wins[winner] += 1
        turns[n_turns] += 1
        for side, n in alive.items():
            survivors[side] += n
        for text, value in values.items():
            tracked_counts[text][value] += 1
    return SimulationSummary(scenario.name, runs, seed, wins, turns, dict(survivors), tracked_counts)
