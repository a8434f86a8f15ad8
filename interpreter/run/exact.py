"""Exact enumeration of steps: every roll branched over its outcomes, equal states merged.

`explore_steps(steps, branches)` takes the live branches (each a probability, its names
and its own copy of the world) through a step list and returns where they end.  A
procedure called by a step is enumerated in the caller's branch (its changes to the
world are kept); the meaning of every expression is `expr.exact`'s and of every value
`expr.values`', so a sampled run and the odds agree.
"""
from __future__ import annotations

from fractions import Fraction

from ..errors import EvalError
from ..expr.exact import bind_exact, exact, product
from ..expr.sampled import Context
from ..expr.values import describe
from ..lang.ast import Call, Node
from ..lang.steps import (AssignStep, CallStep, ChooseStep, EmitStep, ForStep, IfStep, LetStep,
                          ModifyStep, RepeatStep, ReturnStep)
from .frames import Branch, Scope, merge
from .sampled import assign, choice_options, loop_items


def explore_steps(steps, branches: list[Branch]) -> list[Branch]:
    done = [b for b in branches if b.returned]
    live = [b for b in branches if not b.returned]
    for step in steps:
        if not live:
            break
        result = merge(_EXPLORERS[type(step)](step, live))
        done.extend(b for b in result if b.returned)
        live = [b for b in result if not b.returned]
    return merge(done + live)


def _forks(dist, branch: Branch, copy_world: bool | None = None):
    """A child branch for every outcome of `dist` (the world copied when the outcomes
    may go different ways)."""
    for value, w in dist.items():
        yield value, branch.fork(Fraction(w, dist.total),
                                 len(dist) > 1 if copy_world is None else copy_world)


def _explore_let(step, branches):
    out = []
    for b in branches:
        if _is_procedure_call(step.node, b):
            for weight, sub, result in _explore_call(step.node, b):
                sub.locals[step.name] = result
                out.append(Branch(weight, sub))
            continue
        for value, child in _forks(bind_exact(step.node, b.scope()), b):
            child.locals[step.name] = value
            out.append(child)
    return out


def _explore_assign(step: AssignStep, branches):
    """Every outcome of the value (and of any computed key of the path) in a branch of
    its own, changed as a sampled run changes it."""
    out = []
    keys = step.keys()
    for b in branches:
        if not keys:
            for value, child in _forks(exact(step.node, b.scope()), b, True):
                assign(step, child.locals, child.scope(), child.world, value)
                out.append(child)
            continue
        scope = b.scope()
        dists = [exact(step.node, scope)] + [exact(key, scope) for key in keys]
        for weight, values in product(dists):
            child = b.fork(weight, True)
            assign(step, child.locals, child.scope(), child.world, values[0], values[1:])
            out.append(child)
    return out


def _explore_return(step: ReturnStep, branches):
    out = []
    for b in branches:
        if _is_procedure_call(step.node, b):
            for weight, sub, result in _explore_call(step.node, b):
                sub.result, sub.returned = result, True
                out.append(Branch(weight, sub))
            continue
        for value, child in _forks(exact(step.node, b.scope()), b):
            child.result, child.returned = value, True
            out.append(child)
    return out


def _explore_emit(step: EmitStep, branches):
    """The emitted value is worked out as in a sampled run (a procedure it calls runs,
    an error is raised), though nothing is written: odds have no transcript."""
    out = []
    for b in branches:
        if _is_procedure_call(step.node, b):
            out.extend(Branch(weight, sub) for weight, sub, _ in _explore_call(step.node, b))
            continue
        exact(step.node, b.scope())
        out.append(b)
    return out


def _explore_call_step(step: CallStep, branches):
    out = []
    call = step.call
    for b in branches:
        if _is_procedure_call(call, b):
            out.extend(Branch(weight, sub) for weight, sub, _ in _explore_call(call, b))
            continue
        target = b.scope().get(call.func)
        if hasattr(target, "explore_inline"):
            cells = exact(call.args[0], b.scope()) if call.args else None
            if cells is None:
                raise EvalError("run() takes one argument: the steps cell of a row", step.loc)
            for cell, child in _forks(cells, b):
                for end in target.explore_inline(cell, child, step.loc):
                    end.returned = False   # a `return` in a cell ends only the cell
                    out.append(end)
            continue
        args = [exact(a, b.scope()) for a in call.args]
        kwargs = [(k, exact(v, b.scope())) for k, v in call.kwargs]
        for weight, values in product(args + [d for _, d in kwargs]):
            child = b.fork(weight, True)
            pos = values[:len(args)]
            kw = {k: v for (k, _), v in zip(kwargs, values[len(args):])}
            ctx = Context(child.scope(), None, None, child.world, 0)
            if target is None or not hasattr(target, "dsl_call"):
                raise EvalError(f"unknown action {call.func!r}", step.loc)
            target.dsl_call(list(pos), kw, step.loc, ctx)
            out.append(child)
    return out


def _explore_if(step: IfStep, branches):
    out = []
    for b in branches:
        for value, child in _forks(exact(step.cond, b.scope()), b):
            if type(value) is not bool:
                raise EvalError(f"an if needs true or false, got {describe(value)}", step.cond.loc)
            out.extend(explore_steps(step.then if value else step.other, [child]))
    return out


def _explore_for(step: ForStep, branches):
    out = []
    for b in branches:
        for value, child in _forks(exact(step.items, b.scope()), b):
            current = [child]
            for item in loop_items(step, value):
                for c in current:
                    c.locals[step.var] = item
                current = explore_steps(step.body, current)
            out.extend(current)
    return out


def _explore_repeat(step: RepeatStep, branches):
    finished, current = [], branches
    for _ in range(step.limit):
        current = explore_steps(step.body, current)
        still = []
        for b in current:
            if b.returned:
                finished.append(b)
                continue
            for value, child in _forks(exact(step.until, b.scope()), b):
                (finished if value else still).append(child)
        current = merge(still)
        if not current:
            break
    for b in current:
        b.capped = True
    return finished + current


def _explore_choose(step: ChooseStep, branches):
    out = []
    for b in branches:
        options = choice_options(step, _single(exact(step.options, b.scope()), step.options.loc))
        if not options:
            b.locals[step.var] = None
            out.append(b)
            continue
        by_value = _single(exact(step.by, b.scope()), step.loc) if step.by else b.locals.get("side")
        policy = b.world.default_policy
        if by_value is not None and b.world.sides:
            policy = b.world.side_of(by_value, step.loc).policy
        if policy == "random":
            for option in options:
                child = b.fork(Fraction(1, len(options)), True)
                child.locals[step.var] = option
                out.append(child)
            continue
        if policy == "prefer" and step.prefer is not None:
            option = max(options, key=lambda o: _preference(step, o, b.scope()))
        else:
            option = options[0]
        b.locals[step.var] = option
        out.append(b)
    return out


def _preference(step: ChooseStep, option, scope):
    return exact(step.prefer, Scope({"option": option}, scope)).mean()


def _single(dist, loc):
    if len(dist) != 1:
        raise EvalError("this value must not depend on a roll here", loc)
    return dist.items()[0][0]


def _is_procedure_call(node: Node, branch: Branch) -> bool:
    if not isinstance(node, Call):
        return False
    target = branch.globals.get(node.func) if hasattr(branch.globals, "get") else None
    return hasattr(target, "explore_call")


def _explore_call(call: Call, branch: Branch):
    """Enumerate a procedure called from an enumerated procedure, in this branch's world."""
    target = branch.globals[call.func]
    args = [exact(a, branch.scope()) for a in call.args]
    kwargs = [(k, exact(v, branch.scope())) for k, v in call.kwargs]
    results = []
    for weight, values in product(args + [d for _, d in kwargs]):
        pos = list(values[:len(args)])
        kw = {k: v for (k, _), v in zip(kwargs, values[len(args):])}
        results.extend(target.explore_call(pos, kw, call.loc, branch, weight))
    return results


_EXPLORERS = {
    LetStep: _explore_let, ModifyStep: _explore_let, AssignStep: _explore_assign,
    ReturnStep: _explore_return, EmitStep: _explore_emit, CallStep: _explore_call_step,
    IfStep: _explore_if, ForStep: _explore_for, RepeatStep: _explore_repeat,
    ChooseStep: _explore_choose,
}
