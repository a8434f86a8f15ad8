"""A kind's derived formulas (`max_hits: hits_per_sc * sc + ...`) as generated code.

A derived field is worked out every time it is read, so a game reads some of them tens
of thousands of times (the Jugger's `spaces`, `acceleration`, `max_hits`, each a sum over
the jug's equipment).  The closures are the meaning: a formula sees the unit's names
first (its fields, its other derived fields, `name`, `side`, ...), then the ruleset's
globals, with no world and no dice (`Kind.derived_value`).  Here the same formula is
generated once per kind and field, reading every name the unit might answer from a
mapping of the unit (`UnitNames`) that asks the unit at the first read of a name and
keeps the answer for the rest of this one evaluation: nothing can change a unit while
one of its formulas is worked out, so a second read is the first one's value.  A name
the unit does not answer is a global, as in the closures' scope.  A formula that walks
a list is also remembered between reads, by the values of the names it reads
(`remembering`).
"""
from __future__ import annotations

from fractions import Fraction

from ..expr.budget import WORK
from ..expr.functions import FUNCTIONS
from ..expr.sampled import Context, compile_sampler
from ..lang.ast import (Attr, Binary, Bool, Call, Comprehension, IfExpr, Index, LetExpr,
                        ListExpr, Name, Num, RecordExpr, Text, Unary, walk)
from ..lang.resolve import free_names
from ..state.world import equipment_bonuses
from .codegen import NO_RETURN, compile_expression
from .frames import Scope

REMEMBERED = 4096   # answers a derived field keeps at most (then it starts again)


class UnitNames(dict):
    """A unit's names as a dict that fills itself: `name in L` and `L[name]` ask the
    unit once (`Unit.dsl_attr`; a KeyError means the unit has no such name)."""

    __slots__ = ("unit",)

    def __init__(self, unit):
        super().__init__()
        self.unit = unit

    def __missing__(self, key):
        value = self[key] = self.unit.dsl_attr(key)
        return value

    def __contains__(self, key):
        if dict.__contains__(self, key):
            return True
        try:
            self[key] = self.unit.dsl_attr(key)
        except KeyError:
            return False
        return True

    def __iter__(self):   # (a frame's names, for an error's report: every name it has)
        return iter(self.unit.dsl_names())


def derived_evaluator(kind, name: str):
    """`evaluate(unit) -> value` of the kind's derived field `name`, generated (or the
    closures', when it cannot be)."""
    node, ruleset = kind.derived[name], kind.ruleset
    fields = kind.fields()
    # a unit's name comes before a global of the same name: none is a constant here
    constants = {k: v for k, v in ruleset.fixed_globals().items() if k not in fields}
    # every name of the kind is one the unit answers (its stats and state are in its
    # fields from the start, and no rule takes one away): read from the mapping at once
    body = compile_expression(node, set(ruleset.globals) - fields, constants,
                              ruleset.cell_names(), free_names(node) & fields)
    if body is None:
        return remembering(kind, name, closure_evaluator(kind, name))
    globals_ = ruleset.globals
    names_of = unit_names(kind, free_names(node) & fields)

    def evaluate(unit):
        result = body(names_of(unit), None, None, 0, globals_)
        return None if result is NO_RETURN else result
    return remembering(kind, name, evaluate)


def unit_names(kind, reads: set):
    """`names_of(unit)`: the mapping a formula of the kind reads the unit's names `reads`
    from.  When they are all names every unit of the kind stores (its stats and state,
    and `destroyed`: `runs.make_unit`), the unit's fields themselves, while no status and
    no equipment bonus can change what those read (what `Unit.dsl_attr` would answer
    for each, without a call per name); else a `UnitNames`."""
    if not reads <= set(kind.stats) | set(kind.state) | {"destroyed"}:
        return UnitNames

    def names_of(unit):
        fields = unit.fields
        if not unit.statuses and ("equipment" not in fields or
                                  _bonus_free(fields["equipment"], reads)):
            return fields
        return UnitNames(unit)
    return names_of


def _bonus_free(equipment, names: set) -> bool:
    """Whether the unit's equipment surely adds nothing to any of the names (known by
    the list's identity: `equipment_bonuses`)."""
    bonuses = equipment_bonuses(equipment)
    return bonuses is not None and (not bonuses or bonuses.keys().isdisjoint(names))


def closure_evaluator(kind, name: str):
    """The same by the closures, the meaning (and what the tests hold it to)."""
    sampler, globals_ = compile_sampler(kind.derived[name], False), kind.ruleset.globals
    return lambda unit: sampler(Context(Scope(UnitNames(unit), globals_), None, None))


# a value of these classes is told apart from another by its class and value; any
# other (a list, a record, a row) by its identity
_PLAIN = frozenset((int, str, bool, type(None), float, Fraction))
# what a formula may be made of to be a function of the names it reads alone: no dice,
# no procedure or action (a built-in function is a function of its arguments)
_PURE_NODES = (Num, Text, Bool, Name, Attr, Index, Call, ListExpr, RecordExpr,
               Comprehension, Unary, Binary, IfExpr, LetExpr)


def remembering(kind, name: str, evaluate):
    """`evaluate` with its answers remembered by the values of the unit's names the
    formula reads, when its answer depends on those alone and working it out walks a
    list (a comprehension: a sum over a unit's equipment, say); else `evaluate`
    itself, since a short formula costs less than its key.

    A formula has no world and no dice (`Kind.derived_value`), so what it gives is a
    function of the names it reads: the unit's (as the unit answers them now: statuses'
    modifiers and equipment bonuses included) and the ruleset's globals.  When every
    global it reads is fixed for the whole game (`fixed_globals`) and it calls no
    procedure or action, the same values read give the same answer.  A plain value is
    compared by value and class (`true` is not `1`); a list or record by identity,
    since a rule never changes a value in place -- an assignment makes a new one
    (`Unit.set_field`, `changed_item`) -- and the kept answer holds the values it was
    worked out from, so their identities stay theirs.

    The key reads every name the formula mentions, even one it would not reach (the
    other branch of an `if`): those reads spend nothing, and if one fails the formula
    is worked out as usual, which fails only if it reads that name.  An answer kept
    spends again the steps working it out spent (the step budget, as `recall` does
    for a remembered procedure), and is worked out as usual when fewer are left, so
    the budget runs out where it would without the memo."""
    node = kind.derived[name]
    fields, fixed = kind.fields(), kind.ruleset.fixed_globals()
    free = free_names(node)
    nodes = list(walk(node))
    if not any(type(n) is Comprehension for n in nodes) \
            or any(not isinstance(n, _PURE_NODES) or (type(n) is Call and n.func not in FUNCTIONS)
                   for n in nodes) or any(n not in fields and n not in fixed for n in free):
        return evaluate
    reads = tuple(sorted(n for n in free if n in fields))
    names_of = unit_names(kind, set(reads))
    memo: dict = {}

    def remembered(unit):
        before = WORK[0]
        names = names_of(unit)
        key = []
        try:
            for read in reads:
                value = names[read]
                key.append(value.__class__)
                key.append(value if value.__class__ in _PLAIN else id(value))
        except Exception:   # (a name the unit lacks, or one that fails to be worked out)
            WORK[0] = before
            return evaluate(unit)
        WORK[0] = before
        key = tuple(key)
        kept = memo.get(key)
        if kept is not None and before >= kept[2]:
            WORK[0] = before - kept[2]
            return kept[0]
        result = evaluate(unit)
        if len(memo) >= REMEMBERED:
            memo.clear()
        memo[key] = (result, [names[read] for read in reads], before - WORK[0])
        return result
    return remembered
