"""The procedures a told game may run compiled: calls whose lines the story reads are
written the same way by the compiled code.

A game with a transcript runs its steps on the Step objects, which write a line for every
`let`, `set`, roll, check and call; the code generator writes none of those.  A story
(`play`) or the result alone (`play --quiet`) reads only some kinds of line
(`World.told`): the story its sentences, what the rules' actions did (destroyed, status,
move, score, ...) and the calls it groups them by.  Most calls of a long game are small
helpers (a hex gap, whether a slot is ready) whose own `call`, `let` and `return` lines
nobody reads.  Such a call runs compiled (`Procedure.dsl_call`), with the same dice, the
same steps spent and the same result -- the one meaning the differential tests hold the
two to -- and the story is the same line for line (`tests/test_told_quiet.py`).

A procedure is *quiet* when every line its call can write that a story reads is one the
compiled code writes too (an action's, whoever calls it; an `emit`'s):

- it has no `narrate:` sentence (the compiled code tells none);
- its steps are `let`, `set`, `return`, `if`, `for`, `repeat`, `modify`, `emit` (the
  compiled code writes its line where the world keeps a transcript), call statements
  and -- where no person is asked (`Chooser.prompt`) -- `choose` (a `roll:` step's hooks
  write their own lines);
- everything it calls is a built-in function, another quiet procedure, or an action
  that runs no rule steps of its own: one that reads the game, or one that writes its
  own lines (`apply`, `score`, `face`, ...); a move along the board only where the rules
  declare no reactions (each hex entered is a reaction point), `destroy()` only where no
  kind or status has a `destroyed` hook; never a name bound to a callable, `run()` of a
  table's steps cell or `react()`;
- and, for the whole ruleset, every call a formula can make while the steps read a field
  or a table (the tables' formula cells, the statuses' modifiers, the kinds' derived and
  formula stats) is to one of those too: a formula calling a procedure that narrates
  would tell its sentence inside the compiled call.

The story reads an action's line (and an `emit`'s, a `repeat`'s `limit`) where it is in
the order of lines, whatever its depth; only sentences and top-level calls are placed by
depth.  So a call is run compiled only inside another (at depth one or more) where the
story reads calls: it tells the action of each top-level call as one group.
"""
from __future__ import annotations

from ..expr.functions import FUNCTIONS
from ..lang.ast import Call, Comprehension, LetExpr, Node, walk
from ..lang.steps import (AssignStep, CallStep, ChooseStep, EmitStep, ForStep, IfStep,
                          LetStep, ModifyStep, RepeatStep, ReturnStep, all_steps)
from ..state.builtins import ACTIONS
from ..tables.formulas import formula_nodes

# the steps a quiet procedure may hold (and `choose` where no person is asked)
_QUIET_STEPS = (LetStep, AssignStep, ReturnStep, CallStep, IfStep, ForStep, RepeatStep,
                ModifyStep, EmitStep)
# the actions that change the game and write their own lines, running no rule steps
WRITING = frozenset(("apply", "remove", "renew", "use", "set_distance", "rotate", "face",
                     "place", "capture", "end_turn", "score", "set_terrain", "deflect",
                     "defer"))
# ... and those that move a unit hex by hex, each hex a reaction point
MOVING = frozenset(("move_towards", "move_away", "step_forward", "move_by"))
# the kinds of line a quiet call's steps write that the compiled code does not: a told
# game may run a call compiled only if it reads none of them
WRITTEN = frozenset(("let", "set", "return", "rolls", "check", "modify", "choice", "hook",
                     "trigger"))


def quiet_procedures(ruleset, chooses: bool = False) -> frozenset:
    """The names of the ruleset's quiet procedures (see the module docstring); with
    `chooses`, those whose `choose` steps no person is asked at.  Worked out once per
    ruleset."""
    known = ruleset.__dict__.get("_quiet_procedures")
    if known is None:
        known = ruleset._quiet_procedures = [None, None]
    if known[chooses] is None:
        known[chooses] = _quiet(ruleset, chooses)
    return known[chooses]


def runs_quietly(told) -> bool:
    """Whether a game telling the kinds `told` (None: every kind) may run quiet calls
    compiled: it reads none of the lines only their Steps would write."""
    return told is not None and told.isdisjoint(WRITTEN)


def _quiet(ruleset, chooses: bool) -> frozenset:
    procedures = ruleset.procedures
    harmless = _harmless_actions(ruleset)
    steps = _QUIET_STEPS + ((ChooseStep,) if chooses else ())
    calls = {name: _calls_if_quiet(p, steps) for name, p in procedures.items()}
    quiet = {name for name, called in calls.items() if called is not None}

    def harmless_call(name):
        if name in procedures:
            return name in quiet
        return name in FUNCTIONS or name in harmless

    changed = True
    while changed:   # a procedure is quiet when all it calls is
        changed = False
        for name in list(quiet):
            if not all(harmless_call(c) for c in calls[name]):
                quiet.discard(name)
                changed = True
    if not all(harmless_call(c) for c in _formula_calls(ruleset)):
        return frozenset()
    return frozenset(quiet)


def _harmless_actions(ruleset) -> frozenset:
    """The actions a quiet procedure may call in this ruleset."""
    names = {name for name, a in ACTIONS.items() if not a.mutates} | WRITING
    turn = getattr(ruleset, "turn", None)
    if not getattr(turn, "reactions", None):
        names |= MOVING
    if not _destroyed_hooks(ruleset):
        names.add("destroy")
    return frozenset(names)


def _destroyed_hooks(ruleset) -> bool:
    return any("destroyed" in (getattr(k, "hooks", None) or {})
               for k in getattr(ruleset, "kinds", {}).values()) or \
        any("destroyed" in (getattr(s, "hooks", None) or {})
            for s in getattr(ruleset, "statuses", {}).values())


def _calls_if_quiet(procedure, allowed: tuple) -> set | None:
    """The names the procedure's steps call, or None when it cannot be quiet whatever
    they are (a narration, a step that writes a story line or asks, a call of a name
    the procedure binds: a parameter, a `let`, a loop's or a comprehension's variable)."""
    if procedure.narrate is not None:
        return None
    steps = list(all_steps(procedure.steps))
    if not all(isinstance(s, allowed) for s in steps):
        return None
    bound = set(procedure.params) | {s.binds() for s in steps}
    called: set = set()
    for step in steps:
        for n in (n for node in step.expressions() for n in walk(node)):
            if isinstance(n, Call):
                called.add(n.func)
            elif isinstance(n, Comprehension):
                bound.add(n.var)
            elif isinstance(n, LetExpr):
                bound.add(n.name)
    return None if called & bound else called


def _formula_calls(ruleset) -> set:
    """Every name a formula read by a field or an item can call: the tables' formula
    cells (`tables.formulas.formula_nodes`), the statuses' modifiers, and the kinds'
    derived fields and formula stats."""
    formulas = list(formula_nodes(getattr(ruleset, "tables", {})))
    formulas += [value for status in getattr(ruleset, "statuses", {}).values()
                 for value in (getattr(status, "modifies", None) or {}).values()]
    for kind in getattr(ruleset, "kinds", {}).values():
        formulas.extend(kind.derived.values())
        formulas.extend(kind.stats.values())
    return {n.func for formula in formulas if isinstance(formula, Node)
            for n in walk(formula) if isinstance(n, Call)}
