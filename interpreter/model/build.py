"""Building a ruleset: the YAML document (with `extends:` overlays) made into the model,
every DSL string parsed once and every table built, findings collected as it goes."""
from __future__ import annotations

from ..records import replace
from pathlib import Path

from ..errors import Finding, LimitError, LoadError, RuleError, RulecraftError, UsageError
from ..expr.sampled import Context, compile_sampler
from ..lang.ast import Node
from ..lang.parse import parse_expression
from ..limits import where_to_raise
from ..run.cells import RUN
from ..run.procedures import Param, Procedure
from ..run.destruction import DESTROY, DESTROYED
from ..run.rerolls import ROLL_EVENTS
from ..lang.step_errors import StepErrors
from ..lang.steps import Step, compile_steps
from ..lang.template import read_narration
from ..source.nodes import MapNode, ScalarNode, SeqNode
from ..source.load import check_inside, load_ruleset_document
from ..source.reads import note_base
from ..state.builtins import ACTIONS
from ..suggest import did_you_mean
from ..tables import build_table
from ..tables.rows import StepsCell
from .overlay import CHAINS, EDIT_KEYS, apply_edits, strip_step_ids
from .paths import base_path_of, bundled, resolve_path  # noqa: F401 (bundled, resolve_path: re-exported)
from .ruleset import (SECTIONS_BY_NAME, Initiative, Kind, Phase, Reaction, Ruleset, Scenario, StatusDef,
                      TurnDef, Victory)


def _raise_hint(budget: str, scenario: str | None = None) -> str:
    return f"if it is meant, {where_to_raise(budget, scenario)}"


def load_with_extends(path: Path, seen: set) -> MapNode:
    """Load a file; if it `extends:` a base ruleset (which may itself extend another),
    lay it over the base: sections by name, then the edits by id path (model/overlay.py).
    Step ids are taken away once the whole chain is applied."""
    document, chain = _load_chain(path, seen, Path(path).resolve().parent)
    CHAINS[str(Path(path).resolve())] = chain
    return strip_step_ids(document)


def _load_chain(path: Path, seen: set, root: Path) -> tuple[MapNode, list[str]]:
    """The document of `path` laid over its bases; a base named by a path must lie in
    the folder tree `root` of the file the user named (or be bundled, or allowed)."""
    document = load_ruleset_document(path)
    own = document.get("ruleset")
    own_id = str(own.value) if isinstance(own, ScalarNode) else Path(path).stem
    base_ref = document.get("extends")
    if base_ref is None:
        for key in EDIT_KEYS:
            if key in document:
                raise LoadError(f"{key}: edits a base ruleset, but this file names none",
                                document.key_location(key), code="load-extends",
                                hint="add `extends:` with the base ruleset's id or path")
        return document, [own_id]
    if not isinstance(base_ref, ScalarNode) or not isinstance(base_ref.value, str):
        raise LoadError("extends names a base ruleset (an id or a path)", base_ref.location,
                        code="load-extends")
    real = str(path.resolve())
    if real in seen:
        raise LoadError("rulesets extend each other in a circle", base_ref.location,
                        code="load-extends")
    seen.add(real)
    target = base_ref.value
    if "\0" in target:
        raise LoadError("extends: a path cannot contain a NUL character", base_ref.location,
                        code="load-extends")
    try:
        base_path = base_path_of(path, target)
    except UsageError as err:
        raise LoadError(f"cannot find the base ruleset {target!r}", base_ref.location,
                        code="load-extends", hint=err.hint) from None
    note_base(path, target, base_path)
    check_inside(str(base_path), str(root), base_ref.location, "base ruleset")
    base, chain = _load_chain(base_path, seen, root)
    return overlay(base, document), chain + [own_id]


def overlay(base: MapNode, house: MapNode) -> MapNode:
    """The house document laid over its base: sections by name (and `turn`) are merged
    entry by entry (a house entry replaces the base entry whole), rulings are appended,
    other top-level keys replace the base's.  Positions stay those of the file each
    piece came from."""
    merged = _copy_map(base)
    for key, node in house.items():
        if key in EDIT_KEYS:
            continue
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
    return apply_edits(merged, house)


def _copy_map(source: MapNode) -> MapNode:
    target = MapNode(source.location, source.path)
    target.entries = dict(source.entries)
    target.key_nodes = dict(source.key_nodes)
    return target


def _set(target: MapNode, key: str, node, owner: MapNode) -> None:
    target.entries[key] = node
    target.key_nodes[key] = owner.key_nodes[key]


class Builder:
    """Turns the checked document into the model, collecting findings as it goes."""

    def __init__(self, ruleset: Ruleset, findings: list[Finding]):
        self.r = ruleset
        self.doc = ruleset.document
        self.findings = findings

    def error(self, err: RulecraftError, severity: str = "error") -> None:
        self.findings.append(Finding.from_error(err, severity))

    def build(self) -> None:
        r = self.r
        r.globals = {**ACTIONS, "destroy": DESTROY, "run": RUN}
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

    def _within_budget(self, node: MapNode, key: str, budget: str, what: str,
                       scenario: Scenario | None = None) -> None:
        """`key` (a number of turns) must not pass the ruleset's budget (or the
        scenario's, for its own): a game of a billion turns would run until killed."""
        value = node.to_plain().get(key) if isinstance(node, MapNode) else None
        limit = self.r.budget(budget, scenario)
        if type(value) is int and value > limit:
            self.error(LimitError(f"{key}: {value:,} is more than {what} may last (the "
                                  f"{budget} budget, {limit:,})", node[key].location,
                                  code=f"limit-{budget}",
                                  hint=_raise_hint(budget, scenario and scenario.name)))

    def _units_within_budget(self, name: str, node: MapNode, scenario: Scenario) -> None:
        """A scenario's units, `count:` included, must not pass the units budget (every
        unit is built before the first turn: `count: 100000000` would fill memory)."""
        total, limit = 0, self.r.budget("units", scenario)
        sides = node.get("sides")
        for side in (sides.values() if isinstance(sides, MapNode) else []):
            units = side.get("units") if isinstance(side, MapNode) else None
            for unit in (units if isinstance(units, SeqNode) else []):
                count = unit.to_plain().get("count", 1) if isinstance(unit, MapNode) else 1
                total += count if type(count) is int and count > 0 else 1
                if total > limit:
                    where = unit["count"].location if "count" in unit else unit.location
                    self.error(LimitError(f"scenario {name!r} has more than {limit:,} units "
                                          f"(the units budget)", where, code="limit-units",
                                          hint=_raise_hint("units", name)))
                    return

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
        """Every broken step of the list is a finding; the steps that compiled are kept,
        so the name checks still see them (the ruleset, having errors, never runs)."""
        errors = StepErrors()
        try:
            steps = compile_steps(node, what, errors)
        except RulecraftError as err:
            self.error(err)
            return []
        for err in errors.errors:
            self.error(err)
        self.r.unparsed_binds |= errors.bound
        return steps

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
        for table in self.r.tables.values():
            for row in getattr(table, "rows", []):
                for column, cell in (row.cells or {}).items():
                    if isinstance(cell, StepsCell):
                        try:
                            steps = RUN.steps_of(cell, None)
                        except RulecraftError as err:
                            steps = self._every_broken_step(cell, err)
                        self.r.cell_steps.append((table.name, row.key, column, steps))

    def _every_broken_step(self, cell, first) -> list:
        """A broken `steps` cell reports each of its broken steps, as a procedure does,
        and keeps the steps that compiled for the name checks (the ruleset, having
        errors, never runs); compiled again only here, so a good cell is compiled once."""
        node = getattr(cell, "node", None)
        before = len(self.findings)
        steps = self._steps(node, "table steps") if node is not None else []
        if len(self.findings) == before:
            self.error(first)
        return steps

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
            stats = {}   # plain values, and "=formula" stats evaluated as each unit is made
            for key, value in (node.get("stats").items() if isinstance(node.get("stats"), MapNode) else []):
                stats[key] = self._value(value)
            kind = self.r.kinds[name] = Kind(name, plain.get("description", ""), stats, derived,
                                             state, self.r)
            on_node = node.get("on") if isinstance(node.get("on"), MapNode) else None
            for event, steps in (on_node.items() if on_node is not None else []):
                kind.on[event] = self._steps(steps, f"kind {name} on {event}")
                kind.event_locations[event] = on_node.key_location(event)
            kind.hooks = self._roll_hooks(f"{name}", kind.on, kind.event_locations, False)

    def _roll_hooks(self, owner: str, on: dict, where: dict, status: bool) -> dict:
        """A kind's or status's roll hooks (`on: rolled_by / rolled_against`) as procedures
        of `holder`, `roll`, `bad` (and `status`), which run/rerolls.py calls at a roll
        step, and its `on: destroyed` hook, a procedure of `holder` (and `status`), which
        run/destruction.py calls when the unit is destroyed: a procedure call is what
        all three paths already run and enumerate."""
        hooks = {}
        for event in (*ROLL_EVENTS, DESTROYED):
            if event not in on:
                continue
            params = {"holder": Param("holder", "unit")}
            if event != DESTROYED:   # `on: destroyed` (run/destruction.py) sees the holder
                params |= {"roll": Param("roll", "any"), "bad": Param("bad", "boolean")}
            if status:
                params["status"] = Param("status", "any")
            hooks[event] = Procedure(f"{owner} on {event}", f"the {event} hook of {owner}",
                                     params, on[event], [] if event == DESTROYED else ["reroll"],
                                     where.get(event), self.r)
        return hooks

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
                                              self.r, where, plain.get("stack", "replace"),
                                              self._roll_hooks(name, on, where, True))

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
            if node.get("narrate") is not None:
                try:
                    proc.narrate = read_narration(node["narrate"])
                except RulecraftError as err:
                    self.error(err)
            self.r.procedures[name] = proc
            self.r.globals[name] = proc

    def _turn(self) -> None:
        node = self.doc.get("turn")
        if not isinstance(node, MapNode):
            return
        plain = node.to_plain()
        initiative = None
        if isinstance(node.get("initiative"), MapNode):
            initiative = self._initiative(node["initiative"], Initiative(None))
        phases = []
        for item in (node.get("phases") or []):
            p = item.to_plain()
            phases.append(Phase(p["name"], p.get("each", "none"),
                                self._steps(item.get("steps"), f"phase {p['name']}"),
                                p.get("description", ""), bool(p.get("simultaneous", False))))
        reactions = []
        for item in (node.get("reactions") or []):
            p = item.to_plain()
            reactions.append(Reaction(p["name"], p.get("at", "move"),
                                      self._steps(item.get("steps"), f"reaction {p['name']}"),
                                      p.get("by", "all"), p.get("description", "")))
        victory = []
        for item in (node.get("victory") or []):
            when = self._expr(item["when"])
            winner = self._expr(item["winner"]) if "winner" in item else None
            if when is not None:
                victory.append(Victory(when, winner, item.to_plain().get("description", "")))
        self.r.turn = TurnDef(initiative, phases,
                              self._steps(node.get("start_of_turn"), "start_of_turn"),
                              self._steps(node.get("end_of_turn"), "end_of_turn"),
                              victory, plain.get("max_turns", 20), reactions)
        self._within_budget(node, "max_turns", "turns", "a game")

    def _initiative(self, node: MapNode, base: Initiative) -> Initiative:
        """An `initiative:` mapping over `base`: the turn's over the defaults, a scenario's
        over the turn's (`scenarios.duel.initiative: {per: unit}` changes only `per`)."""
        plain = node.to_plain()
        changes = {key: plain[key] for key in ("per", "order", "ties", "when", "rerolls")
                   if key in plain}
        for key in ("roll", "prefer"):
            if key in node:
                changes[key] = self._expr(node[key])
        return replace(base, **changes, loc=node.location)

    def _scenarios(self) -> None:
        for name, node in self._section("scenarios").items():
            plain = node.to_plain()
            sides: dict = {}   # filled in below
            scenario = self.r.scenarios[name] = Scenario(
                name, plain.get("description", ""), sides, plain.get("distance", 0),
                plain.get("distances", {}) or {}, plain.get("max_turns"),
                self._section("scenarios").key_location(name), plain.get("positions", {}) or {},
                plain.get("terrain", {}) or {}, plain.get("objects", {}) or {}, plain.get("map"),
                # its own budgets (the schema checks them: whole numbers within the ceilings)
                budgets=dict(plain["budgets"]) if isinstance(plain.get("budgets"), dict) else {})
            self._within_budget(node, "max_turns", "turns", "a game", scenario)
            self._units_within_budget(name, node, scenario)
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
            if isinstance(node.get("initiative"), MapNode):
                turn = self.r.turn.initiative if self.r.turn and self.r.turn.initiative else None
                self.r.scenarios[name].initiative = self._initiative(
                    node["initiative"], turn or Initiative(None))
