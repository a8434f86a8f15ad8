"""Procedures that can only recurse: each calls the next on every path through its
steps, around a circle, so none of them can ever finish (`validate` finding
"recursion-without-end").

A call counts as *surely made* only when every path from the start of the procedure to
its end or its `return` makes it: calls in an `if`'s condition, in a statement's
expression outside the branches of `if ... then ... else`, the right side of `and` /
`or` and a comprehension's body, in both branches of an `if` step, in the body of a
`repeat` (which runs at least once).  A `for` may run zero times, so its body counts for
nothing.  The analysis errs towards silence: a rule it cannot see through raises no
finding, and a finding is always a rule that recurses until the call-depth limit.
"""
from __future__ import annotations

from ..errors import Finding
from ..lang.ast import Binary, Call, Comprehension, IfExpr, Node, children_of
from ..lang.resolve import resolve
from ..lang.steps import ChooseStep, ForStep, IfStep, RepeatStep, ReturnStep, all_steps

_WORK = 20_000   # paths looked at per procedure before the analysis gives up (silently)


def _sure_in(node: Node) -> set[str]:
    """Names called on every evaluation of an expression."""
    found: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, IfExpr):
            stack.append(n.cond)
        elif isinstance(n, Binary) and n.op in ("and", "or"):
            stack.append(n.left)
        elif isinstance(n, Comprehension):
            stack.append(n.source)
        else:
            if isinstance(n, Call):
                found.add(n.func)
            stack.extend(children_of(n))
    return found


def _may_return(block) -> bool:
    return any(isinstance(s, ReturnStep) for s in all_steps(block))


class _Paths:
    """The calls surely made along every path of a procedure's steps."""

    def __init__(self):
        self.work = _WORK

    def sure(self, steps: list) -> set[str] | None:
        """The calls every path through `steps` makes (None: too many paths to say)."""
        self.work -= 1
        if self.work < 0:
            return None
        made: set[str] = set()
        for i, step in enumerate(steps):
            if isinstance(step, ReturnStep):
                return made | _sure_in(step.node)
            if isinstance(step, IfStep):
                made |= _sure_in(step.cond)
                rest = list(steps[i + 1:])
                if _may_return(step.then) or _may_return(step.other):
                    # a branch may end the procedure: each branch goes on with the rest
                    then, other = self.sure(list(step.then) + rest), self.sure(list(step.other) + rest)
                    return None if then is None or other is None else made | (then & other)
                then, other = self.sure(list(step.then)), self.sure(list(step.other))
                if then is None or other is None:
                    return None
                made |= then & other
            elif isinstance(step, (ForStep, RepeatStep)):
                if _may_return(step.body):
                    return made   # the body may end it: what follows is not sure
                if isinstance(step, ForStep):
                    made |= _sure_in(step.items)
                else:
                    body = self.sure(list(step.body))
                    if body is None:
                        return None
                    made |= body
            elif isinstance(step, ChooseStep):
                made |= _sure_in(step.options)
                if step.by is not None:
                    made |= _sure_in(step.by)
            else:
                for tree in step.expressions():
                    made |= _sure_in(tree)
        return made


def check_recursion(ruleset) -> list[Finding]:
    """Procedures in a circle of calls that every path makes."""
    procedures = ruleset.procedures
    calls: dict[str, set[str]] = {}
    for name, proc in procedures.items():
        own = resolve(proc.steps, set(proc.params)).locals   # a local may hide a procedure
        made = _Paths().sure(list(proc.steps)) or set()
        calls[name] = {c for c in made if c in procedures and c not in own}
    out = []
    for name, proc in procedures.items():
        circle = _circle(name, calls)
        if circle:
            shown = " → ".join(circle)
            out.append(Finding("error", "recursion-without-end",
                               f"procedure {name!r} calls itself on every path ({shown}), so "
                               f"it can never finish", proc.location,
                               "give it a case that returns without calling itself (an `if` "
                               "on a parameter that shrinks, say)"))
    return out


def _circle(start: str, calls: dict) -> list[str] | None:
    """The shortest circle of sure calls from `start` back to it, or None."""
    paths = [[start]]
    seen = {start}
    while paths:
        longer = []
        for path in paths:
            for callee in sorted(calls.get(path[-1], ())):
                if callee == start:
                    return path + [start]
                if callee not in seen:
                    seen.add(callee)
                    longer.append(path + [callee])
        paths = longer
    return None
