"""A ruleset: the YAML document built into kinds, tables, statuses, procedures, the turn
structure and scenarios, every DSL string compiled once, every name checked.

`load_ruleset("tanks")` (a bundled id or a path) returns a `Ruleset` or raises
`RulesetInvalid` carrying every finding; `check_ruleset(path)` returns the findings for
`rulecraft validate`.  The driver `_build` reads like the data flow:
load -> extends -> schema -> build -> semantic checks.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .run.codegen import call_body
from .lang.ast import Node
from .lang.parse import parse_expression
from .errors import (Finding, LoadError, Location, RuleError, RulecraftError,
                     UsageError)
from .expr.sampled import Context, compile_sampler, compiled
from .limits import MAX_CALL_DEPTH
from .source.load import load_ruleset_document, MapNode, ScalarNode, SeqNode
from .resources import resource_dir
from .run.steps import Frame, Scope, Step, binders, compile_steps, explore_steps, run_steps
from .suggest import did_you_mean
from .run.cells import RUN
from .state.actions import ACTIONS
from .state.world import Unit

SECTIONS_BY_NAME = ("parameters", "kinds", "tables", "statuses", "procedures", "scenarios")


class RulesetInvalid(RuleError):
    """A ruleset with errors; `findings` holds all of them (the message names the first)."""

    code = "invalid"

    def __init__(self, findings: list[Finding]):
        errors = [f for f in findings if f.severity == "error"]
        first = errors[0]
        more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
        super().__init__(first.message + more, first.location, code=first.code, hint=first.hint)
        self.findings = findings


# ------------------------------------------------------------------------ the model


@dataclass
class Kind:
    """A unit kind: fixed stats, derived formulas, and mutable state with initial values."""

    name: str
    description: str
    stats: dict
    derived: dict[str, Node]
    state: dict
    ruleset: Any = None
    _samplers: dict = field(default_factory=dict)

    def derived_value(self, name: str, unit: Unit):
        sampler = self._samplers.get(name)
        if sampler is None:
            sampler = self._samplers[name] = compile_sampler(self.derived[name], False)
        scope = Scope(_UnitNames(unit), self.ruleset.globals)
        return sampler(Context(scope, None, None))

    def fields(self) -> set[str]:
        return set(self.stats) | set(self.derived) | set(self.state) | {"name", "kind", "side", "statuses", "destroyed"}


class _UnitNames:
    """A unit's fields as bare names, for its derived formulas (`sc * 20`)."""

    def __init__(self, unit: Unit):
        self.unit = unit

    def __getitem__(self, key):
        try:
            return self.unit.dsl_attr(key)
        except KeyError:
            raise KeyError(key) from None

    def __contains__(self, key):
        try:
            self.unit.dsl_attr(key)
            return True
        except KeyError:
            return False

    def __iter__(self):
        return iter(self.unit.dsl_names())


@dataclass
class StatusDef:
    """A status effect: what it overrides while active, and what it does at turn events."""

    name: str
    description: str
    modifies: dict
    on: dict[str, list[Step]]
    ruleset: Any = None
    event_locations: dict = field(default_factory=dict)

    def modifier_value(self, name: str, unit: Unit, status):
        value = self.modifies[name]
        if isinstance(value, Node):
            scope = Scope({"holder": unit, "status": status}, self.ruleset.globals)
            return compiled(value)(Context(scope, None, None))
        return value


@dataclass
class Param:
    name: str
    type: str
    default: Any = None
    required: bool = True
    kind: str | None = None
    one_of: list | None = None
    description: str = ""


class Procedure:
    """A named procedure with typed parameters and compiled steps; callable from the DSL
    (sampled) and enumerable exactly."""

    dsl_procedure = True   # what compiled calls look for

    def __init__(self, name: str, description: str, params: dict[str, Param],
                 steps: list[Step], outcomes: list, location: Location | None, ruleset):
        self.name, self.description, self.params = name, description, params
        self.steps, self.outcomes, self.location, self.ruleset = steps, outcomes, location, ruleset
        self.dsl_label = f"procedure {name!r}"
        self._fast = None
        self._body = None

    def bind_arguments(self, args: list, kwargs: dict, loc) -> dict:
        names = list(self.params)
        if len(args) > len(names):
            raise RulecraftError(f"{self.name}() takes {len(names)} arguments, got {len(args)}", loc,
                                 code="eval")
        bound = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in self.params:
                raise RulecraftError(f"{self.name}() has no parameter {key!r}", loc, code="unknown-name",
                                     hint=did_you_mean(key, names))
            bound[key] = value
        for name, param in self.params.items():
            if name not in bound:
                if param.required:
                    raise RulecraftError(f"{self.name}() needs a value for {name!r}", loc, code="eval")
                bound[name] = _copy_default(param.default)
        return bound

    def check_depth(self, depth: int, loc) -> None:
        """A call at this depth would go deeper than procedures may call each other."""
        if depth >= MAX_CALL_DEPTH:
            raise RulecraftError(f"procedures call each other more than {MAX_CALL_DEPTH} deep", loc,
                                 code="limit")

    def dsl_call(self, args, kwargs, loc, ctx: Context):
        self.check_depth(ctx.depth, loc)
        world = ctx.world
        frame = Frame(self.bind_arguments(args, kwargs, loc), self.ruleset.globals, world,
                      ctx.rng, world.record if world else False, ctx.depth + 1)
        if world is not None and world.record:
            world.log("call", f"{self.name}({_args_text(frame.locals)})", procedure=self.name)
            run_steps(self.steps, frame)
        else:
            self.fast()(frame)
        return frame.result

    def body(self):
        """The steps compiled to one Python function (no transcript), built on first use:
        `body(L, W, rng, depth, G)`, see `codegen`."""
        if self._body is None:
            from .run.codegen import compile_body
            rules = self.ruleset
            units = {p.name: rules.kinds.get(p.kind) for p in self.params.values()
                     if p.type == "unit"}
            self._body = compile_body(self.steps, set(self.params), set(rules.globals), units,
                                      rules.fixed_globals(), rules.cell_names(),
                                      own_variables=True)
        return self._body

    def fast(self):
        """The compiled steps as `run(frame)`, for callers that hold a Frame."""
        if self._fast is None:
            from .run.codegen import frame_runner
            self._fast = frame_runner(self.body())
        return self._fast

    def call_fast(self, args, kwargs, world, rng, depth, loc):
        """Called from compiled steps (no transcript): see `codegen.call_body`."""
        return call_body(self._body or self.body(), self, args, kwargs, world, rng, depth, loc)

    def dsl_exact_call(self, node, env):
        """A procedure called inside an expression, in exact mode: the distribution of
        its result.  Such a procedure must not change the game (its changes could not be
        kept in an expression); call it as a step or `let x = proc(...)` instead."""
        from fractions import Fraction
        from .dice.distribution import Distribution
        from .expr.exact import exact
        from .expr.values import outcome
        from .expr.exact import product
        from .run.steps import Branch, rebind_units
        world = getattr(env, "world", None)
        before = world.snapshot() if world is not None else None
        args = [exact(a, env) for a in node.args]
        kwargs = [(k, exact(v, env)) for k, v in node.kwargs]
        weights: dict = {}
        for weight, values in product(args + [d for _, d in kwargs]):
            pos = list(values[:len(args)])
            kw = {k: v for (k, _), v in zip(kwargs, values[len(args):])}
            callee = Branch(Fraction(1), locals_=self.bind_arguments(pos, kw, node.loc),
                            world=world.copy() if world is not None else None,
                            globals_=self.ruleset.globals)
            if callee.world is not None:
                rebind_units(callee.locals, callee.world)
            for end in explore_steps(self.steps, [callee]):
                if world is not None and end.world.snapshot() != before:
                    raise RulecraftError(
                        f"{self.name}() changes the game, so it cannot be used inside an "
                        f"expression in exact mode", node.loc, code="eval",
                        hint=f"call it as a step, or bind it: let x = {self.name}(...)")
                value = outcome(end.result)
                weights[value] = weights.get(value, 0) + weight * end.weight
        denominator = math.lcm(*(Fraction(w).denominator for w in weights.values()))
        return Distribution.from_weights({v: int(Fraction(w) * denominator) for v, w in weights.items()})

    def explore_call(self, args, kwargs, loc, branch, weight):
        from .run.steps import Branch, rebind_units
        callee = Branch(branch.weight * weight, locals_=self.bind_arguments(args, kwargs, loc),
                        world=branch.world.copy() if branch.world else None,
                        globals_=self.ruleset.globals)
        if callee.world is not None:
            rebind_units(callee.locals, callee.world)
        for end in explore_steps(self.steps, [callee]):
            back = Branch(end.weight, branch)
            back.locals = dict(branch.locals)
            back.world = end.world
            if back.world is not None:
                rebind_units(back.locals, back.world)
            back.capped = branch.capped or end.capped
            yield end.weight, back, end.result


def _copy_default(value):
    import copy
    return copy.deepcopy(value)


def _args_text(values: dict) -> str:
    from .expr.values import json_value
    parts = []
    for k, v in values.items():
        shown = v.name if isinstance(v, Unit) else json_value(v)
        if isinstance(shown, (dict, list)):
            shown = "{…}" if isinstance(shown, dict) else "[…]"
        parts.append(f"{k}={shown}")
    return ", ".join(parts)


@dataclass
class Phase:
    name: str
    each: str          # side | unit | none
    steps: list[Step]
    description: str = ""


@dataclass
class Initiative:
    roll: Node | None
    per: str = "side"
    order: str = "highest_first"
    ties: str = "reroll"
    when: str = "game"


@dataclass
class Victory:
    when: Node
    winner: Node | None
    description: str = ""


@dataclass
class TurnDef:
    initiative: Initiative | None
    phases: list[Phase]
    start_of_turn: list[Step]
    end_of_turn: list[Step]
    victory: list[Victory]
    max_turns: int


@dataclass
class Scenario:
    name: str
    description: str
    sides: dict        # side name -> {"policy": str, "units": [unit spec dicts], "script": [...]}
    distance: Any
    distances: dict
    max_turns: int | None
    location: Location | None = None
    positions: dict = field(default_factory=dict)
    terrain: dict = field(default_factory=dict)


class Ruleset:
    """A built, checked ruleset.  The API the CLI wraps: roll, odds, run, play."""

    def __init__(self, path: Path, document: MapNode):
        self.path = path
        self.document = document
        plain = document.to_plain()
        self.id = plain.get("ruleset", path.stem)
        self.title = plain.get("title", self.id)
        self.source = plain.get("source", "")
        self.description = plain.get("description", "")
        self.extends = plain.get("extends")
        self.space = (plain.get("space") or {}).get("model", "abstract") \
            if isinstance(plain.get("space"), dict) else (plain.get("space") or "abstract")
        self.rulings = plain.get("rulings", []) or []
        self.parameters: dict = {}
        self.kinds: dict[str, Kind] = {}
        self.tables: dict = {}
        self.statuses: dict[str, StatusDef] = {}
        self.procedures: dict[str, Procedure] = {}
        self.turn: TurnDef | None = None
        self.scenarios: dict[str, Scenario] = {}
        self.findings: list[Finding] = []
        self.globals: dict = {}
        # (table, row key, column, compiled steps) of every table `steps` cell
        self.cell_steps: list[tuple] = []

    def fixed_globals(self) -> dict:
        """The globals compiled steps may treat as constants: every name except those a
        table's `steps` cell can bind (a cell's `let` lands in its caller's names)."""
        fixed = self.__dict__.get("_fixed_globals")
        if fixed is None:
            bound: set = set()
            for steps in self._cell_steps():
                bound |= binders(steps)
            fixed = self._fixed_globals = {k: v for k, v in self.globals.items() if k not in bound}
        return fixed

    def cell_names(self) -> set[str]:
        """Every name the table `steps` cells mention (see `codegen.compile_body`)."""
        names = self.__dict__.get("_cell_names")
        if names is None:
            from .run.codegen import names_in_steps
            names = self._cell_names = set()
            for steps in self._cell_steps():
                names |= names_in_steps(steps)
        return names

    def _cell_steps(self) -> list:
        return [steps for *_, steps in self.cell_steps]

    # -- the API ---------------------------------------------------------------
    def environment(self) -> dict:
        """Every name a rule can use: parameters, tables, procedures, built-in actions."""
        return self.globals

    def roll(self, expression: str, seed: int | None = None):
        from .expr.rolling import roll
        return roll(expression, seed, self.globals)

    def odds(self, expression: str):
        from .expr.rolling import odds
        return odds(expression, self.globals)

    def run(self, procedure: str, inputs: dict | None = None, seed: int | None = None):
        from .engine import run_procedure
        return run_procedure(self, procedure, inputs or {}, seed)

    def sampler(self, procedure: str, inputs: dict | None = None):
        """`rng -> result`: the procedure compiled for many fast runs (no transcript)."""
        from .engine import procedure_sampler
        return procedure_sampler(self, procedure, inputs or {})

    def run_odds(self, procedure: str, inputs: dict | None = None, track: list[str] | None = None):
        from .engine import procedure_odds
        return procedure_odds(self, procedure, inputs or {}, track or [])

    def play(self, scenario: str | None = None, seed: int | None = None, **options):
        from .engine import play
        return play(self, scenario, seed, **options)


# ------------------------------------------------------------------------ building


def resolve_path(ref: str | Path) -> Path:
    """A bundled ruleset id (`tanks`) or a path to a YAML file."""
    path = Path(ref)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.exists():
            raise UsageError(f"no such file: {ref}")
        if path.is_dir():
            candidates = sorted(path.glob("*.yaml"))
            if len(candidates) == 1:
                return candidates[0]
            named = path / f"{path.name}.yaml"
            if named.exists():
                return named
            raise UsageError(f"{ref} is a directory; name the ruleset's YAML file")
        return path
    rules = resource_dir("rules")
    for candidate in (rules / str(ref) / f"{ref}.yaml", rules / f"{ref}.yaml"):
        if candidate.exists():
            return candidate
    raise UsageError(f"no bundled ruleset {str(ref)!r} and no such file",
                     hint=did_you_mean(str(ref), [b["id"] for b in bundled()]) or
                     "`rulecraft list` shows the bundled rulesets")


def bundled() -> list[dict]:
    """The bundled rulesets: id and path (cheap: no building)."""
    rules = resource_dir("rules")
    found = []
    for directory in sorted(p for p in rules.iterdir() if p.is_dir()):
        main = directory / f"{directory.name}.yaml"
        if main.exists():
            found.append({"id": directory.name, "path": main})
    return found


def load_ruleset(ref: str | Path) -> Ruleset:
    ruleset, findings = _build(resolve_path(ref))
    if ruleset is None or any(f.severity == "error" for f in findings):
        raise RulesetInvalid(findings)
    return ruleset


def check_ruleset(ref: str | Path) -> list[Finding]:
    """All findings for a ruleset file (`rulecraft validate`)."""
    try:
        path = resolve_path(ref)
    except UsageError as err:
        return [Finding("error", "load-io", err.message, Location(str(ref), 1, 1))]
    _, findings = _build(path)
    return findings


def _build(path: Path) -> tuple[Ruleset | None, list[Finding]]:
    try:
        document = _load_with_extends(path, set())
    except RulecraftError as err:
        return None, [Finding.from_error(err)]
    from .source.schema import check_schema
    findings = check_schema(document)
    if any(f.severity == "error" for f in findings):
        return None, findings
    ruleset = Ruleset(path, document)
    _Builder(ruleset, findings).build()
    if not any(f.severity == "error" for f in findings):
        from .check import check_names
        findings.extend(check_names(ruleset))
    ruleset.findings = findings
    return ruleset, findings


def _load_with_extends(path: Path, seen: set) -> MapNode:
    """Load a file; if it `extends:` a base ruleset, lay it over the base by name."""
    document = load_ruleset_document(path)
    base_ref = document.get("extends")
    if base_ref is None:
        return document
    if not isinstance(base_ref, ScalarNode) or not isinstance(base_ref.value, str):
        raise LoadError("extends names a base ruleset (an id or a path)", base_ref.location,
                        code="load-extends")
    real = str(path.resolve())
    if real in seen:
        raise LoadError("rulesets extend each other in a circle", base_ref.location,
                        code="load-extends")
    seen.add(real)
    target = base_ref.value
    relative = (path.parent / target)
    try:
        base_path = resolve_path(relative if relative.exists() else target)
    except UsageError as err:
        raise LoadError(f"cannot find the base ruleset {target!r}", base_ref.location,
                        code="load-extends", hint=err.hint) from None
    base = _load_with_extends(base_path, seen)
    return overlay(base, document)


def overlay(base: MapNode, house: MapNode) -> MapNode:
    """The house document laid over its base: sections by name (and `turn`) are merged
    entry by entry (a house entry replaces the base entry whole), rulings are appended,
    other top-level keys replace the base's.  Positions stay those of the file each
    piece came from."""
    merged = _copy_map(base)
    for key, node in house.items():
        old = merged.get(key)
        if (key in SECTIONS_BY_NAME or key == "turn") and isinstance(old, MapNode) \
                and isinstance(node, MapNode):
            section = _copy_map(old)
            for name, entry in node.items():
                _set(section, name, entry, node)
            _set(merged, key, section, house)
        elif key == "rulings" and isinstance(old, SeqNode) and isinstance(node, SeqNode):
            combined = SeqNode(old.location, old.path)
            combined.items = list(old) + list(node)
            _set(merged, key, combined, house)
        else:
            _set(merged, key, node, house)
    merged.entries.pop("extends", None)
    merged.key_nodes.pop("extends", None)
    if "extends" in house:
        _set(merged, "extends", house["extends"], house)
    return merged


def _copy_map(source: MapNode) -> MapNode:
    target = MapNode(source.location, source.path)
    target.entries = dict(source.entries)
    target.key_nodes = dict(source.key_nodes)
    return target


def _set(target: MapNode, key: str, node, owner: MapNode) -> None:
    target.entries[key] = node
    target.key_nodes[key] = owner.key_nodes[key]


class _Builder:
    """Turns the checked document into the model, collecting findings as it goes."""

    def __init__(self, ruleset: Ruleset, findings: list[Finding]):
        self.r = ruleset
        self.doc = ruleset.document
        self.findings = findings

    def error(self, err: RulecraftError, severity: str = "error") -> None:
        self.findings.append(Finding.from_error(err, severity))

    def build(self) -> None:
        r = self.r
        r.globals = {**ACTIONS, "run": RUN}
        self._parameters()
        self._tables()
        self._cells()
        self._kinds()
        self._statuses()
        self._procedures()
        self._turn()
        self._scenarios()
        for table in r.tables.values():
            table.bind(r.globals)

    def _section(self, name: str) -> MapNode:
        node = self.doc.get(name)
        return node if isinstance(node, MapNode) else MapNode(self.doc.location, (name,))

    def _expr(self, node: ScalarNode) -> Node | None:
        try:
            if isinstance(node.value, str):
                return parse_expression(node.value, node.location_at(0))
            return parse_expression(str(node.value).lower() if isinstance(node.value, bool)
                                    else str(node.value), node.location)
        except RulecraftError as err:
            self.error(err)
            return None

    def _value(self, node):
        """A plain value, or for "=formula" strings the compiled expression."""
        if isinstance(node, ScalarNode) and isinstance(node.value, str) and node.value.startswith("="):
            try:
                return parse_expression(node.value[1:], node.location_at(1))
            except RulecraftError as err:
                self.error(err)
                return None
        return node.to_plain()

    def _steps(self, node, what: str) -> list[Step]:
        try:
            return compile_steps(node, what)
        except RulecraftError as err:
            self.error(err)
            return []

    def _parameters(self) -> None:
        for name, node in self._section("parameters").items():
            value = self._value(node)
            if isinstance(value, Node):
                try:
                    value = compile_sampler(value, False)(Context(self.r.globals, None, None))
                except RulecraftError as err:
                    self.error(err)
                    continue
            self.r.parameters[name] = value
            self.r.globals[name] = value

    def _tables(self) -> None:
        from .tables import build_table
        for name, node in self._section("tables").items():
            try:
                table, found = build_table(name, node, self.r.globals)
            except RulecraftError as err:
                self.error(err)
                continue
            self.findings.extend(found)
            self.r.tables[name] = table
            self.r.globals[name] = table

    def _cells(self) -> None:
        """Every table `steps` cell is parsed now, not when its face is first rolled."""
        from .tables.model import StepsCell
        for table in self.r.tables.values():
            for row in getattr(table, "rows", []):
                for column, cell in (row.cells or {}).items():
                    if isinstance(cell, StepsCell):
                        try:
                            steps = RUN.steps_of(cell, None)
                        except RulecraftError as err:
                            self.error(err)
                            continue
                        self.r.cell_steps.append((table.name, row.key, column, steps))

    def _kinds(self) -> None:
        for name, node in self._section("kinds").items():
            plain = node.to_plain() if isinstance(node, MapNode) else {}
            derived = {}
            for key, formula in (node.get("derived").items() if isinstance(node.get("derived"), MapNode) else []):
                expr = self._expr(formula)
                if expr is not None:
                    derived[key] = expr
            state = {}
            for key, value in (node.get("state").items() if isinstance(node.get("state"), MapNode) else []):
                state[key] = self._value(value)
            self.r.kinds[name] = Kind(name, plain.get("description", ""), plain.get("stats", {}) or {},
                                      derived, state, self.r)

    def _statuses(self) -> None:
        for name, node in self._section("statuses").items():
            plain = node.to_plain() if isinstance(node, MapNode) else {}
            modifies = {}
            for key, value in (node.get("modifies").items() if isinstance(node.get("modifies"), MapNode) else []):
                modifies[key] = self._value(value)
            on, where = {}, {}
            on_node = node.get("on") if isinstance(node.get("on"), MapNode) else None
            for event, steps in (on_node.items() if on_node is not None else []):
                on[event] = self._steps(steps, f"status {name} on {event}")
                where[event] = on_node.key_location(event)
            self.r.statuses[name] = StatusDef(name, plain.get("description", ""), modifies, on,
                                              self.r, where)

    def _procedures(self) -> None:
        for name, node in self._section("procedures").items():
            if name in self.r.globals:
                self.error(RuleError(f"procedure {name!r} has the name of another rule element",
                                     self._section("procedures").key_location(name), code="name-clash"))
            plain = node.to_plain()
            params = {}
            for pname, pnode in (node.get("params").items() if isinstance(node.get("params"), MapNode) else []):
                spec = pnode.to_plain() if isinstance(pnode, MapNode) else {"type": pnode.to_plain()}
                has_default = "default" in spec
                params[pname] = Param(pname, spec.get("type", "any"), spec.get("default"),
                                      not has_default and not spec.get("optional", False),
                                      spec.get("kind"), spec.get("one_of"), spec.get("description", ""))
            steps = self._steps(node.get("steps"), f"procedure {name}")
            proc = Procedure(name, plain.get("description", ""), params, steps,
                             plain.get("outcomes", []) or [],
                             self._section("procedures").key_location(name), self.r)
            self.r.procedures[name] = proc
            self.r.globals[name] = proc

    def _turn(self) -> None:
        node = self.doc.get("turn")
        if not isinstance(node, MapNode):
            return
        plain = node.to_plain()
        initiative = None
        if isinstance(node.get("initiative"), MapNode):
            ini = node["initiative"]
            ip = ini.to_plain()
            initiative = Initiative(self._expr(ini["roll"]) if "roll" in ini else None,
                                    ip.get("per", "side"), ip.get("order", "highest_first"),
                                    ip.get("ties", "reroll"), ip.get("when", "game"))
        phases = []
        for item in (node.get("phases") or []):
            p = item.to_plain()
            phases.append(Phase(p["name"], p.get("each", "none"),
                                self._steps(item.get("steps"), f"phase {p['name']}"),
                                p.get("description", "")))
        victory = []
        for item in (node.get("victory") or []):
            when = self._expr(item["when"])
            winner = self._expr(item["winner"]) if "winner" in item else None
            if when is not None:
                victory.append(Victory(when, winner, item.to_plain().get("description", "")))
        self.r.turn = TurnDef(initiative, phases,
                              self._steps(node.get("start_of_turn"), "start_of_turn"),
                              self._steps(node.get("end_of_turn"), "end_of_turn"),
                              victory, plain.get("max_turns", 20))

    def _scenarios(self) -> None:
        for name, node in self._section("scenarios").items():
            plain = node.to_plain()
            sides = {}
            for side_name, side_node in (node.get("sides").items() if isinstance(node.get("sides"), MapNode) else []):
                sp = side_node.to_plain()
                units = []
                for i, unode in enumerate(side_node.get("units") or []):
                    spec = unode.to_plain()
                    spec["_location"] = unode.location
                    if spec.get("design") is not None:   # parsed once, used every game
                        spec["_design"] = self._expr(unode["design"])
                    if spec.get("kind") not in self.r.kinds:
                        self.error(RuleError(f"unknown kind {spec.get('kind')!r}", unode.location,
                                             code="unknown-name",
                                             hint=did_you_mean(str(spec.get("kind")), self.r.kinds)))
                    units.append(spec)
                sides[side_name] = {"policy": sp.get("policy", "first"), "units": units,
                                    "script": sp.get("script", [])}
            self.r.scenarios[name] = Scenario(name, plain.get("description", ""), sides,
                                              plain.get("distance", 0), plain.get("distances", {}) or {},
                                              plain.get("max_turns"),
                                              self._section("scenarios").key_location(name),
                                              plain.get("positions", {}) or {},
                                              plain.get("terrain", {}) or {})
