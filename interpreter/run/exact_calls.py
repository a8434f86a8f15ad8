"""A procedure called from an enumerated procedure (exact odds): a call is a
distribution over (its result, the game after it), worked out once and merged on those
alone before the caller goes on.  Its ends are remembered by what the callee read
(call_memo.py), else under the whole game; the calls it left to its caller
(deferred.py) are made here, in order; and a chain of calls whose work grows as they
return is foreseen against the budget (call_cost.py)."""
from __future__ import annotations

from fractions import Fraction

from ..expr import reads
from . import call_cost, call_memo
from .exact import enumerate_liveness, explore_steps
from .frames import Branch, Merged, canonical, rebind_units, world_key
from . import deferred, observed


def explore_procedure(proc, args: list, kwargs: dict, loc, branch: Branch, weight: Fraction):
    """A call as a distribution over (result, the game after it): the callee's ends are
    merged on those alone (its locals are gone once it returns) before the caller goes
    on, and a call with the same arguments in the same state is enumerated once per
    enumeration (memoised).  A self-calling procedure thus costs one enumeration per
    depth, and reaches the call-depth limit as a sampled run does; a chain of such calls
    whose work grows as they return is foreseen against the budget (run/call_cost.py)."""
    proc.check_depth(branch.depth, loc)
    run = branch.run
    chain, call = call_cost.begin(run, proc)   # (call_cost.called, without a generator)
    try:
        ends = _explore_procedure(proc, args, kwargs, loc, branch, weight, call)
    except BaseException:
        call_cost.left(run, proc, chain)
        raise
    call_cost.returned(run, proc, loc, chain, call)
    return ends


def _explore_procedure(proc, args: list, kwargs: dict, loc, branch: Branch, weight: Fraction,
                       call: call_cost.Call):
    bound = proc.bind_arguments(args, kwargs, loc)
    run, world = branch.run, branch.world
    depth = branch.depth
    # the arguments in the parameters' order (the same for every call of `proc`), and
    # the depth apart (call_memo)
    call_key = (id(proc), tuple([canonical(bound[name]) for name in proc.params]), branch.script)
    seen = getattr(branch, "after", None)   # what is read after it (run/observed.py)
    if seen is not None:
        call_key += (seen,)   # its ends depend on it
    made = call_memo.made_ends(run, call_key, depth, world)
    if made is not None:
        call.recalled = True
    else:
        trace = reads.begin(depth)
        try:
            made = _made(_call_ends(proc, bound, call_key, branch, loc, call, seen), branch)
        finally:
            reads.end(trace)
        call_memo.keep_made(run, call_key, depth, world, made, trace)
    # the caller's weight times the call's, once for all its ends (exact either way)
    before = branch.weight if weight == 1 else branch.weight * weight
    return [_back(branch, before, p, end_world, result, capped, script)
            for p, result, end_world, capped, script in made]


def _call_ends(proc, bound: dict, call_key, branch: Branch, loc, call: call_cost.Call,
               seen=None) -> list:
    """The callee's ends, the calls it left to its caller not made yet: remembered by
    what the callee read (call_memo.py), else under the whole game, else enumerated
    (`call` is told when they were remembered: run/call_cost.py)."""
    run, world, depth = branch.run, branch.world, branch.depth
    told = call_memo.recall(run, call_key, depth, world)
    if told is not None:
        call.recalled = True
        ends = [(p, *call_memo.replay(world, changes, result)[::-1], capped, script, pending)
                for p, result, changes, capped, script, pending in told]
    else:
        whole_key = call_key + (depth, world_key(world))
        ends = run.memo.get(whole_key)
        if ends is None:
            trace = reads.begin(depth)
            try:
                ends = _enumerate_call(proc, bound, branch, loc, seen)
                if not call_memo.remember(run, call_key, depth, world, trace, ends):
                    trace.all = True   # the caller depends on all the game too
                    run.memo[whole_key] = ends
            finally:
                reads.end(trace)
        else:
            call.recalled = True
            reads.everything()
    return ends


def _made(ends, branch: Branch) -> list:
    """The call's ends with the calls it left to its caller made (run/deferred.py): in
    their order, each in the game the one before left, at the depth the procedure made
    them from, merged after each; the calls' reads are its caller's.  (probability,
    result, world, capped, script) of each."""
    out = []
    for p, result, world, capped, script, left in ends:
        if not left:
            out.append((p, result, world, capped, script))
            continue
        start = Branch(p, branch)
        start.locals, start.world, start.script, start.capped = {}, world, script, capped
        start.depth, start.result, start.returned, start.pending = branch.depth + 1, result, \
            False, None
        current = [start]
        for call in left:
            merged = Merged(loc=call.loc)
            for b in current:
                args = [call_memo.moved(a, b.world) for a in call.args]
                kwargs = {k: call_memo.moved(v, b.world) for k, v in call.kwargs.items()}
                for sub, _ in call.proc.explore_call(args, kwargs, call.loc, b, Fraction(1)):
                    merged.add(sub)
            current = merged.branches()
        out.extend((b.weight, call_memo.moved(result, b.world), b.world, b.capped, b.script)
                   for b in current)
    return out


def _enumerate_call(proc, bound: dict, branch: Branch, loc, seen=None) -> list:
    """The callee's ends merged on (result, the game after it, the calls it left to the
    caller): (probability, result, world, capped, script, pending calls).  `seen`: what
    of the game its caller reads after it (run/observed.py)."""
    run, world = branch.run, branch.world
    enumerate_liveness(run, proc.steps, proc.params, proc.ruleset.cell_names())
    # the world is shared: the callee's steps copy it where they change it
    callee = Branch(Fraction(1), locals_=bound, world=world, globals_=proc.ruleset.globals,
                    depth=branch.depth + 1, run=run)
    callee.script = branch.script
    callee.pending = ()   # its calls may be left to this caller (run/deferred.py)
    callee.seen = seen
    deferred.study(proc)
    observed.study(proc)
    if world is not None:
        rebind_units(callee.locals, world)
    merged = Merged(loc=loc)
    for end in explore_steps(proc.steps, [callee]):
        end.locals = {}
        end.returned = True
        merged.add(end)
    return [(end.weight, end.result, end.world, end.capped, end.script, end.pending)
            for end in merged.branches()]


def _back(branch: Branch, before: Fraction, p: Fraction, world, result, capped, script):
    """The caller's branch after a call that ended in `world` with probability `p`:
    (branch, result).  `before`: the branch's weight times the call's own."""
    back = Branch(before if p == 1 else before * p, branch)
    back.locals = dict(branch.locals)
    back.world, back.script = world, script
    if world is not None and world is not branch.world:
        rebind_units(back.locals, world)
    back.capped = branch.capped or capped
    return back, result
