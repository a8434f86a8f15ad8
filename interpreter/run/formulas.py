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
the unit does not answer is a global, as in the closures' scope.
"""
from __future__ import annotations

from ..expr.sampled import Context, compile_sampler
from .codegen import NO_RETURN, compile_expression
from .frames import Scope


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
    body = compile_expression(node, set(ruleset.globals) - fields, constants,
                              ruleset.cell_names())
    if body is None:
        return closure_evaluator(kind, name)
    globals_ = ruleset.globals

    def evaluate(unit):
        result = body(UnitNames(unit), None, None, 0, globals_)
        return None if result is NO_RETURN else result
    return evaluate


def closure_evaluator(kind, name: str):
    """The same by the closures, the meaning (and what the tests hold it to)."""
    sampler, globals_ = compile_sampler(kind.derived[name], False), kind.ruleset.globals
    return lambda unit: sampler(Context(Scope(UnitNames(unit), globals_), None, None))
