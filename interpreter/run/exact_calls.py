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
        if not branch.unmade:   # (games not made yet kept with it: made now, once)
            made = [end if end[2].__class__ is not call_memo.Unmade else
                    (end[0], end[1], end[2].made(), *end[3:]) for end in made]
    else:
        unmade = branch.unmade
        trace = reads.begin(depth)
        try:
            made = _made(_call_ends(proc, bound, call_key, branch, loc, call, seen, unmade),
                         branch, unmade)
        finally:
            reads.end(trace)
        # (made by _call_ends if it was not; the ends' games not made yet are kept so,
        # each made once where a caller needs it: Unmade.made)
        call_memo.keep_made(run, call_key, depth, branch.world, made, trace)
    # the caller's weight times the call's, once for all its ends (exact either way)
    before = branch.weight if weight == 1 else branch.weight * weight
    return [_back(branch, before, p, end_world, result, capped, script)
            for p, result, end_world, capped, script in made]


def _call_ends(proc, bound: dict, call_key, branch: Branch, loc, call: call_cost.Call,
               seen=None, unmade: bool = False) -> list:
    """The callee's ends, the calls it left to its caller not made yet: remembered by
    what the callee read (call_memo.py), else under the whole game, else enumerated
    (`call` is told when they were remembered: run/call_cost.py).  `unmade`: the
    caller takes remembered ends with games not made yet (call_memo.told_end)."""
    run, world, depth = branch.run, branch.world, branch.depth
    told = call_memo.recall(run, call_key, depth, world)
    if told is not None:
        call.recalled = True
        told_end = call_memo.told_end
        ends = [(p, *told_end(world, changes, result, unmade), capped, script, pending)
                for p, result, changes, capped, script, pending in told]
    else:
        if world.__class__ is call_memo.Unmade:   # the game is needed: made now
            world = _making(branch)
            rebind_units(bound, world)
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


def _making(branch: Branch):
    """The branch's game made, if it was not yet (call_memo.Unmade), its names rebound
    to it: the game itself."""
    world = branch.world
    if world.__class__ is call_memo.Unmade:
        world = branch.world = world.made()
        rebind_units(branch.locals, world)
    return world


def _made(ends, branch: Branch, unmade: bool = False) -> list:
    """The call's ends with the calls it left to its caller made (run/deferred.py): in
    their order, each in the game the one before left, at the depth the procedure made
    them from, merged after each; the calls' reads are its caller's.  (probability,
    result, world, capped, script) of each.  `unmade`: the games may be handed back not
    made yet (call_memo.Unmade; those merged here are made)."""
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
            # the ends of one call in one game are distinct (result, game) pairs already:
            # keyed only when several games make it (two ends differing only in the
            # call's result, dropped here, are added up by the next merge)
            merged = Merged(loc=call.loc)
            merged.distinct = len(current) == 1
            # a call leaving calls of its own is answered whole in an equal game met
            # before (call_memo.made_ends), which needs the game made: so only a call
            # leaving none is made in a game not made yet
            leaf = unmade and merged.distinct and deferred.leaves_none(call.proc)
            for b in current:
                at = b.world if leaf else _making(b)
                if at.__class__ is call_memo.Unmade:
                    at = at.base   # its units (the same ids)
                args = [call_memo.moved(a, at) for a in call.args]
                kwargs = {k: call_memo.moved(v, at) for k, v in call.kwargs.items()}
                b.unmade = leaf
                for sub, _ in call.proc.explore_call(args, kwargs, call.loc, b, Fraction(1)):
                    merged.add(sub)
                b.unmade = False
            current = merged.branches()
        for b in current:
            if result.__class__ not in call_memo.ATOMS:
                _making(b)   # (its units are the game's)
            out.append((b.weight, call_memo.moved(result, b.world), b.world, b.capped,
                        b.script))
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
    if world is not None and world is not branch.world and \
            world.__class__ is not call_memo.Unmade:   # (rebound once made: Merged.branches)
        rebind_units(back.locals, world)
    back.capped = branch.capped or capped
    return back, result
