"""The ruleset model: kinds, statuses, the turn structure, scenarios, and the `Ruleset`
that holds them with the tables and procedures.  Plain data built once by
`model.build`; the game API (`interpreter.game.api`) adds roll, odds, run and play.
"""
from __future__ import annotations

from ..records import record, field
from pathlib import Path
from typing import Any

from ..errors import Finding, Location, RuleError
from ..expr.sampled import Context, compiled
from ..lang.ast import Name, Node, walk
from ..limits import BUDGETS, INITIATIVE_REROLLS
from ..run.procedures import Procedure
from ..run.frames import Scope
from ..lang.resolve import mentioned_names, resolve
from ..lang.steps import Step
from ..source.nodes import MapNode
from ..state.world import Unit

SECTIONS_BY_NAME = ("parameters", "kinds", "tables", "statuses", "procedures", "scenarios")


class RulesetInvalid(RuleError):
    """A ruleset with errors; `findings` holds all of them (the message names the first)."""

    code = "invalid"

    def __init__(self, findings: list[Finding]):
        errors = [f for f in findings if f.severity == "error"]
        first = errors[0]
        others = len(errors) - 1
        more = f" (and {others} more error{'s' if others > 1 else ''})" if others else ""
        super().__init__(first.message + more, first.location, code=first.code, hint=first.hint)
        self.findings = findings


# ------------------------------------------------------------------------ the model


@record
class Kind:
    """A unit kind: fixed stats, derived formulas, and mutable state with initial values."""

    name: str
    description: str
    stats: dict
    derived: dict[str, Node]
    state: dict
    ruleset: Any = None
    # derived field -> evaluate(unit), made when first read (`derived_value`)
    evaluators: dict = field(default_factory=dict)
    on: dict = field(default_factory=dict)      # roll hooks: event -> steps (rolled_by, rolled_against)
    hooks: dict = field(default_factory=dict)   # the same as procedures (run/rerolls.py)
    event_locations: dict = field(default_factory=dict)

    _formula_stats: dict | None = None

    def formula_stats(self) -> dict:
        """The `=formula` stats (`weapons: '=mechs[design].weapons'`), each after the
        formula stats it reads (else in declared order; a cycle is the validate finding
        `formula-cycle`): evaluated in this order as each unit is made."""
        if self._formula_stats is None:
            formulas = {k: v for k, v in self.stats.items() if isinstance(v, Node)}
            ordered: dict = {}

            def place(key, path):
                if key in ordered or key in path:
                    return
                for n in walk(formulas[key]):
                    if isinstance(n, Name) and n.id in formulas:
                        place(n.id, path | {key})
                ordered[key] = formulas[key]
            for key in formulas:
                place(key, frozenset())
            self._formula_stats = ordered
        return self._formula_stats

    def derived_value(self, name: str, unit: Unit):
        """The derived field `name` of a unit of this kind, worked out now (generated
        once per field: run/formulas.py)."""
        evaluate = self.evaluators.get(name)
        if evaluate is None:
            from ..run.formulas import derived_evaluator   # (the code generator: not at start)
            evaluate = self.evaluators[name] = derived_evaluator(self, name)
        return evaluate(unit)

    def fields(self) -> set[str]:
        return set(self.stats) | set(self.derived) | set(self.state) | {"name", "kind", "side", "statuses", "destroyed"}


@record
class StatusDef:
    """A status effect: what it overrides while active, and what it does at turn events."""

    name: str
    description: str
    modifies: dict
    on: dict[str, list[Step]]
    ruleset: Any = None
    event_locations: dict = field(default_factory=dict)
    stack: str = "replace"     # how a new application meets one already there (state.statuses)
    hooks: dict = field(default_factory=dict)   # roll hooks as procedures (run/rerolls.py)

    def modifier_value(self, name: str, unit: Unit, status):
        value = self.modifies[name]
        if isinstance(value, Node):
            scope = Scope({"holder": unit, "status": status}, self.ruleset.globals)
            return compiled(value)(Context(scope, None, None))
        return value



# the names each segment of a phase is handed, by its `each` (game/turns.py): a unit's
# segment its `side` and `unit`, a side's its `side`, a phase of no one none
SEGMENT_GIVEN = {"unit": ("side", "unit"), "side": ("side",), "none": ()}


@record
class Phase:
    """A phase of the turn: who acts in it (each side, each unit or no one) and its steps."""
    name: str
    each: str          # side | unit | none
    steps: list[Step]
    description: str = ""
    simultaneous: bool = False   # destroy() held until the phase ends (game/reactions.py)

    @property
    def given(self) -> tuple:
        """The names each of its segments is handed (`SEGMENT_GIVEN`)."""
        return SEGMENT_GIVEN.get(self.each, ())


@record
class Reaction:
    """Steps offered to the sides at a reaction point (game/reactions.py)."""

    name: str
    at: str            # "move" (each hex entered) or a name given to react()
    steps: list[Step]
    by: str = "all"    # all | others | mover
    description: str = ""


@record
class Initiative:
    """Who acts first (game/initiative.py).  `roll` is evaluated for each side (`side`
    bound) or each unit (`unit` and its `side` bound); `prefer` scores the winner's
    options "first" and "last" for a `prefer` policy (`option` bound)."""

    roll: Node | None
    per: str = "side"
    order: str = "highest_first"
    ties: str = "reroll"
    when: str = "game"
    rerolls: int = INITIATIVE_REROLLS
    prefer: Node | None = None
    loc: Location | None = None


@record
class Victory:
    """A victory condition: when it holds, who wins (else the side it held for)."""
    when: Node
    winner: Node | None
    description: str = ""


@record
class TurnDef:
    """The turn: its initiative, its phases, what starts and ends it, its victory
    conditions."""
    initiative: Initiative | None
    phases: list[Phase]
    start_of_turn: list[Step]
    end_of_turn: list[Step]
    victory: list[Victory]
    max_turns: int
    reactions: list[Reaction] = field(default_factory=list)


@record
class Scenario:
    """A scenario: its sides (policy, units, script), how distance is measured, where
    things stand, the map and the initiative it changes."""
    name: str
    description: str
    sides: dict        # side name -> {"policy": str, "units": [unit spec dicts], "script": [...]}
    distance: Any
    distances: dict
    max_turns: int | None
    location: Location | None = None
    positions: dict = field(default_factory=dict)
    terrain: dict = field(default_factory=dict)
    objects: dict = field(default_factory=dict)   # name -> {kind, at, stats}: not units
    map: dict | None = None   # {q: [lo, hi], r: [lo, hi]}: the hexes of the map (state/board.py)
    initiative: Initiative | None = None   # the turn's initiative as this scenario changes it
    budgets: dict = field(default_factory=dict)   # its own `budgets:` over the ruleset's


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
        # the map's own rules (state/board.py): per_hex, turn_cost, terrain kinds
        self.space_rules = plain.get("space") if isinstance(plain.get("space"), dict) else {}
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
        # names that broken steps were meant to bind (`let x = d6 +`): validate does not
        # call a later read of them unknown, the broken step is already reported
        self.unparsed_binds: set[str] = set()
        # the `budgets:` the ruleset raised (steps, turns, units; see limits.BUDGETS)
        self.budgets: dict = dict(plain.get("budgets") or {}) \
            if isinstance(plain.get("budgets"), dict) else {}

    @property
    def document(self) -> MapNode:
        """The located document the model was built from.  A model read back from the
        cache (game/rules_cache.py) brings it in only when something asks (a house rule
        built on it, `diff`): it is more than half of what the kept model holds, and
        `run`, `play` and `validate` never read it."""
        later = self.__dict__.get("_document_later")
        if later is not None:
            self._document, self._document_later = later(), None
        return self._document

    @document.setter
    def document(self, document: MapNode | None) -> None:
        self._document, self._document_later = document, None

    def document_later(self, load) -> None:
        """The document, read by `load()` when first asked for."""
        self._document, self._document_later = None, load

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        if state.get("_document_later") is not None:   # a copy holds the document itself
            state["_document"], state["_document_later"] = self.document, None
        return state

    def budget(self, name: str, scenario: Scenario | None = None) -> int:
        """The budget `name` (steps, turns, units, forks): a game's `scenario`'s own if it
        says (a small scenario whose exact odds mean more work than a turn of the ruleset's
        larger ones should be let do before it is refused), else the ruleset's own, else
        the default."""
        for budgets in ((scenario.budgets if scenario is not None else {}), self.budgets):
            value = budgets.get(name)
            if type(value) is int and value > 0:
                return value
        return BUDGETS[name][0]

    def fixed_globals(self) -> dict:
        """The globals compiled steps may treat as constants: every name except those a
        table's `steps` cell can bind (a cell's `let` lands in its caller's names)."""
        fixed = self.__dict__.get("_fixed_globals")
        if fixed is None:
            bound: set = set()
            for steps in self._cell_steps():
                bound |= resolve(steps).binders
            fixed = self._fixed_globals = {k: v for k, v in self.globals.items() if k not in bound}
        return fixed

    def cell_names(self) -> set[str]:
        """Every name the table `steps` cells mention (see `codegen.compile_body`)."""
        names = self.__dict__.get("_cell_names")
        if names is None:
            names = self._cell_names = set()
            for steps in self._cell_steps():
                names |= mentioned_names(steps)
        return names

    def _cell_steps(self) -> list:
        return [steps for *_, steps in self.cell_steps]

    def environment(self) -> dict:
        """Every name a rule can use: parameters, tables, procedures, built-in actions."""
        return self.globals
