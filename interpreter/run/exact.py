"""Exact enumeration of steps: every roll branched over its outcomes, equal states merged.

`explore_steps(steps, branches)` takes the live branches (each a probability, its names
and its own copy of the world) through a step list and returns where they end.  A
procedure called by a step is enumerated in the caller's branch (its changes to the
world are kept: exact_calls.py); the meaning of every expression is `expr.exact`'s and of every value
`expr.values`', so a sampled run and the odds agree.
"""
from __future__ import annotations

from ..errors import EvalError
from ..limits import MAX_BRANCHES, MAX_WEIGHT_BITS
from ..expr.exact import bind_exact, exact, product
from ..expr.sampled import Context
from ..expr.values import describe, plain
from ..lang.ast import Call, IfExpr, Name, Node, walk
from ..lang.resolve import resolve
from ..state.world import Unit
from ..lang.steps import (all_steps, AssignStep, CallStep, ChooseStep, EmitStep, ForStep, IfStep, LetStep,
                          ModifyStep, RepeatStep, ReturnStep, RollStep)
from . import deferred, observed, pending
from .block_memo import explore_block, pure_reads, pure_value
from .choose_exact import explore_choose, single_value
from .field_memo import explore_fields
from ..expr import reads
from .frames import Branch, Merged, Pending, canonical
from . import call_cost
from .loop_cost import LoopCost
from .rerolls import explore_roll
from .sampled import assign, loop_items, path_parts, reaches_game
from .state_count import EarlyCount, count_field_states, expect_forks, product_size


def explore_steps(steps, branches: list[Branch], last_seen: frozenset | None = None
                  ) -> list[Branch]:
    """Take the branches through a step list; every step's results are merged as they
    arrive (`Merged`), dropping the locals no later step reads; the last step's on the
    game's fields at `last_seen` alone, when given (run/observed.py)."""
    done = Merged()
    live = []
    for b in branches:
        if b.returned:
            done.add(b)
        else:
            live.append(b)
    if not live:
        return done.branches()
    run = live[0].run
    call_cost.RUNNING.append(run)   # a procedure called in an expression spends its budget
    try:
        for step in steps:
            if not live:
                break
            if pending.any_kept(run):   # a roll kept pending is split where it is read
                live = pending.force(step, live, pending.consumes(step))
            out = Merged(step)
            if last_seen is not None and step is steps[-1]:
                out.seen = observed.keyed_on(last_seen)
            _EXPLORERS[type(step)](step, live, out)
            if len(out.states) > len(live):   # where a refusal outside any step is said to be
                run.where = step.loc
            live = []
            for b in out.branches():
                if b.returned:
                    done.add(b)
                else:
                    live.append(b)
    finally:
        call_cost.RUNNING.pop()
    return done.branches() + live


# step list (by identity) and the names read after it -> {step: locals dead after it}
_DEAD: dict = {}


def enumerate_liveness(run, steps, params, cell_names=None, live_out=frozenset()) -> None:
    """Tell an enumeration which locals every step of `steps` leaves dead (the resolver's
    liveness: no later step reads them before binding them again), so that states
    differing only in those merge.  Names the resolver does not know as locals (those a
    table's steps cell binds in its caller, the context's `side`) are never dropped.  A
    step list already told keeps what it was told first (the top-level procedure's
    names read after it, by --track, are then not dropped in its recursive calls)."""
    key = (id(steps), frozenset(live_out))
    dead = _DEAD.get(key)
    if dead is None:
        facts = resolve(steps, params, cell_names, live_out)
        dead = {step: frozenset(facts.locals - facts.live_after(step) - _CONTEXT)
                for step in all_steps(steps)}
        pending.study(steps, facts, dead, live_out)
        _DEAD[key] = dead
        _DEAD[(key, "steps")] = steps   # held, so that the id is not reused
    for step, names in dead.items():
        run.dead_after.setdefault(step, names)


# read by steps without being named in them (a `choose` without `by:` reads `side`)
_CONTEXT = frozenset({"side"})


def _forks(dist, branch: Branch, copy_world: bool = False):
    """A child branch for every outcome of `dist`.  The world is shared unless asked
    for: only steps that change the game copy it (see `Branch`)."""
    for value, p in dist.chances():
        yield value, branch.fork(p, copy_world)


def _explore_let(step, branches, out):
    pure = _pure_binding(step, branches[0])
    bound = []   # (branch, distribution) of the branches not calling a procedure
    early = EarlyCount(step, step.name, "=", branches, out)
    keeping = pending.may_keep(step, branches[0])   # read later only in a sum or a test
    if pure is not None and not keeping:
        early.same_roll(branches, pure)
    for b in branches:
        if pure is None and _chooses_call(step.node, b):
            for sub, result in _explore_chosen(step.node, b):
                sub.locals[step.name] = result
                out.add(sub)
            continue
        if pure is None and _acts(step.node, b):
            _explore_action(step.node, _callee(step.node, b), b, step.loc, out, step.name)
            continue
        dist = pure if pure is not None else _value(step, b, bind_exact)
        bound.append((b, dist if keeping and len(dist) > 1 else early.see(b, dist)))
    for b, dist in bound:
        if keeping and len(dist) > 1:   # no branch made: the roll kept as it is
            out.add(pending.kept_branch(b, step.name, dist))
            continue
        for value, child in _forks(dist, b):
            child.locals[step.name] = value
            out.add(child)


def _value(step, b: Branch, evaluate):
    """The distribution of a let's or a return's value, the rolls it takes pending
    (pending.py) read as distributions."""
    kept = pending.kept_in(step, b)
    if kept:
        return exact(step.node, pending.with_kept(b, kept))
    return pure_value(step.node, b, evaluate)


def _chooses_call(node, b: Branch) -> bool:
    """A procedure call, or a conditional expression one of whose values is one
    (`let wanted = if ball_game then aim_at_ball(unit) else aim(unit)`): enumerated as
    a call in the branch, so that it may change the game as a sampled run lets it."""
    if isinstance(node, IfExpr):
        return _chooses_call(node.then, b) or _chooses_call(node.other, b)
    return _is_procedure_call(node, b)


def _explore_chosen(node, b: Branch):
    """(branch, value) pairs of `node` as `_chooses_call` says: the condition's outcomes
    split the branch, each side a call explored or a value bound."""
    if isinstance(node, IfExpr):
        out = []
        for value, child in _forks(exact(node.cond, b.scope()), b):
            if type(value) is not bool:
                raise EvalError(f"an if needs true or false, got {describe(value)}", node.cond.loc)
            out.extend(_explore_chosen(node.then if value else node.other, child))
        return out
    if _is_procedure_call(node, b):
        return _explore_call(node, b)
    return [(child, value) for value, child in _forks(bind_exact(node, b.scope()), b)]


def _pure_binding(step, branch: Branch):
    """The distribution a `let` binds when it reads no name (`let hit = d6`): the same in
    every branch and in every enumeration (as a dice term's own distribution is kept,
    dice/terms.py), so worked out once."""
    dist = _CLOSED.get(step)
    if dist is None:
        reads_names = any(isinstance(n, (Name, Call)) for n in walk(step.node))
        dist = False if reads_names else bind_exact(step.node, {})
        if len(_CLOSED) < 4096:
            _CLOSED[step] = dist
    return dist or None


# let step -> the distribution it binds when it reads no name, else False (see above)
_CLOSED: dict = {}


def _explore_assign(step: AssignStep, branches, out):
    """Every outcome of the value (and of any computed key of the path) in a branch of
    its own, changed as a sampled run changes it; the world is copied only where the
    step changes the game (not a local name)."""
    keys = step.keys()
    early = EarlyCount(step, step.path[0], step.op, branches, out) \
        if len(step.path) == 1 and not keys else None
    values = [(b, pure_value(step.node, b, exact)) for b in branches] if early is None else \
        [(b, early.see(b, pure_value(step.node, b, exact))) for b in branches]
    if (len(step.path) > 1 and not keys and sum(len(d) for _, d in values) > MAX_BRANCHES):
        count_field_states(step, values, out)
    if early is None:
        expect_forks(branches, [len(d) for _, d in values], step.loc)
    for b, dist in values:
        owner = b.locals.get(step.path[0])
        changes_game = len(step.path) > 1 and (
            not isinstance(owner, (list, tuple, dict))
            or not keys and reaches_game(owner, path_parts(step, ()), step.loc))
        if changes_game and reads.tracing():
            _note_write(step, b, [] if not keys else None)
        if not keys:
            for value, child in _forks(dist, b, changes_game):
                assign(step, child.locals, child.scope(), child.world, value)
                out.add(child)
            continue
        scope = b.scope()
        dists = [dist] + [exact(key, scope) for key in keys]
        expect_forks([b], [product_size(dists)], step.loc)
        for weight, vals in product(dists):
            game = changes_game or len(step.path) > 1 and \
                reaches_game(owner, path_parts(step, vals[1:]), step.loc)
            if game and reads.tracing():
                _note_write(step, b, vals[1:])
            child = b.fork(weight, game)
            assign(step, child.locals, child.scope(), child.world, vals[0], vals[1:])
            out.add(child)


def _note_write(step: AssignStep, b: Branch, keys) -> None:
    """A field written by a call being enumerated is read too (reads.py): its old value
    is part of what the call's changes depend on.  `keys` None: not known yet (noted
    with each combination of the computed keys)."""
    if keys is None:
        return
    owner = b.scope().get(step.path[0])
    if not isinstance(owner, Unit):
        reads.everything()   # a side's data, a status's: not a unit's field
        return
    values = iter(keys)
    path = tuple(plain(next(values)) if isinstance(part, Node) else part
                 for part in step.path[1:])
    if reads.field_path(owner, path[0]) is not None:
        reads.note(owner.uid, path)


def _explore_return(step: ReturnStep, branches, out):
    for b in branches:
        if _is_procedure_call(step.node, b):
            for sub, result in _explore_call(step.node, b):
                sub.result, sub.returned = result, True
                out.add(sub)
            continue
        for value, child in _forks(_value(step, b, exact), b):
            child.result, child.returned = value, True
            out.add(child)


def _explore_emit(step: EmitStep, branches, out):
    """The emitted value is worked out as in a sampled run (a procedure it calls runs,
    an error is raised), though nothing is written: odds have no transcript."""
    for b in branches:
        if _is_procedure_call(step.node, b):
            for sub, _ in _explore_call(step.node, b):
                out.add(sub)
            continue
        exact(step.node, b.scope())
        out.add(b)


def _explore_call_step(step: CallStep, branches, out):
    call = step.call
    for b in branches:
        if _is_procedure_call(call, b):
            # a branch already holding a deferred call defers this one too: the steps
            # after the first were all found not to touch the game (deferred.py)
            if b.pending or deferred.deferrable(step, b):
                _defer(call, _callee(call, b), b, out)
                continue
            # merged on a few fields, the call's ends may come with games not made yet
            # (call_memo.Unmade): only the states kept are made (Merged.branches)
            out.unmade = b.unmade = out.seen is not None
            for sub, _ in _explore_call(call, b, step):
                out.add(sub)
            b.unmade = False
            continue
        target = b.scope().get(call.func)
        if hasattr(target, "explore_inline"):
            cells = exact(call.args[0], b.scope()) if call.args else None
            if cells is None:
                raise EvalError("run() takes one argument: the steps cell of a row", step.loc)
            for cell, child in _forks(cells, b):
                for end in target.explore_inline(cell, child, step.loc):
                    end.returned = False   # a `return` in a cell ends only the cell
                    out.add(end)
            continue
        if target is None or not hasattr(target, "dsl_call"):
            raise EvalError(f"unknown action {call.func!r}", step.loc)
        _explore_action(call, target, b, step.loc, out)


def _explore_action(call: Call, target, b: Branch, loc, out, bind: str | None = None):
    """A built-in action run in each branch of its arguments' outcomes, in the branch's
    own copy of the world when it changes the game; `bind` names the local its result
    goes to (`let taken = capture(target, "red")`), as a sampled run binds it."""
    args = [exact(a, b.scope()) for a in call.args]
    kwargs = [(k, exact(v, b.scope())) for k, v in call.kwargs]
    expect_forks([b], [product_size(args + [d for _, d in kwargs])], loc)
    changes_game = getattr(target, "mutates", True)
    if reads.tracing():   # an action reads and writes the game as it likes
        reads.everything()
    for weight, values in product(args + [d for _, d in kwargs]):
        child = b.fork(weight, changes_game)
        pos = values[:len(args)]
        kw = {k: v for (k, _), v in zip(kwargs, values[len(args):])}
        reactor = getattr(child.world, "reactor", None) if changes_game else None
        if reactor is not None and hasattr(reactor, "explore_action"):
            # reaction points inside the action branch it (game/branching.py)
            out.extend(reactor.explore_action(target, list(pos), kw, loc, child, bind))
            continue
        ctx = Context(child.scope(), None, None, child.world, child.depth)
        result = target.dsl_call(list(pos), kw, loc, ctx)
        if bind is not None:
            child.locals[bind] = result
        out.add(child)


def _explore_if(step: IfStep, branches, out):
    """The branches split by the condition's outcome, then each side's block explored
    once for all the branches that take it (so that they merge inside it as well)."""
    sides = (Merged(loc=step.loc), Merged(loc=step.loc))   # then, else: nothing dropped yet
    for b in branches:
        kept = pending.kept_in(step, b)   # rolls kept pending: split by the outcome alone
        for value, child in pending.split_condition(step, b, kept) if kept else \
                _forks(pure_value(step.cond, b, exact), b):
            if type(value) is not bool:
                raise EvalError(f"an if needs true or false, got {describe(value)}", step.cond.loc)
            sides[0 if value else 1].add(child)
    out.extend(explore_block(step.then, sides[0].branches(), explore_steps, step.loc))
    out.extend(explore_block(step.other, sides[1].branches(), explore_steps, step.loc))


def _explore_for(step: ForStep, branches, out):
    """Branches looping over equal lists go through the body together, pass by pass."""
    groups: dict = {}
    for b in branches:
        for value, child in _forks(exact(step.items, b.scope()), b):
            items = loop_items(step, value)
            key = canonical(items)
            if key in groups:
                groups[key][1].append(child)
            else:
                groups[key] = (items, [child])
    for items, current in groups.values():
        cost = LoopCost(step, current, len(items))
        for n, item in enumerate(items, 1):
            for c in current:
                if not c.returned:
                    c.locals[step.var] = item
            seen = _seen_after(step, current) if n == len(items) else None
            current = _explore_body(step.body, current, step.loc) if seen is None else \
                explore_steps(step.body, current, seen)
            cost.passed(current)
        out.extend(current)


def _seen_after(step, branches):
    """What of the game is read after a loop's last pass, the same in every branch, or
    None (run/observed.py).  That pass is enumerated as it is, not remembered
    (block_memo, field_memo): its ends depend on what is read after it."""
    seen = None
    for b in branches:
        paths = observed.after(step, b)
        if paths is None or (seen is not None and paths != seen):
            return None
        seen = paths
    return seen


def _explore_body(body, branches, loc):
    """A loop's body: remembered over plain locals (block_memo.py), else over the locals
    and unit fields it reads (field_memo.py), else enumerated."""
    if pure_reads(body) is None:
        done = explore_fields(body, branches, explore_steps, loc)
        if done is not None:
            return done
    return explore_block(body, branches, explore_steps, loc)


def _explore_repeat(step: RepeatStep, branches, out):
    current = branches
    cost = LoopCost(step, branches, step.limit, _LOOP_CUT_BITS)
    for _ in range(step.limit):
        done = explore_fields(step.body, current, explore_steps, step.loc) \
            if pure_reads(step.body) is None else None
        current = done if done is not None else explore_steps(step.body, current)
        if current and pending.any_kept(current[0].run):   # `until` reads plain values
            current = pending.force(step, current)
        still = Merged(loc=step.loc)   # still looping: nothing dropped
        for b in current:
            if b.returned:
                out.add(b)
                continue
            for value, child in _forks(exact(step.until, b.scope()), b):
                if type(value) is not bool:
                    raise EvalError(f"until needs true or false, got {describe(value)}",
                                    step.until.loc)
                (out if value else still).add(child)
        current = still.branches()
        if not current:
            return
        if any(b.weight.denominator.bit_length() > _LOOP_CUT_BITS for b in current):
            break   # its chances need over 2048 bits: cut here, the rest reported as capped
        cost.passed(current)
    for b in current:
        b.capped = True
        out.add(b)


# A repeat still running when its chances need this many bits stops there, the rest
# reported as capped (as at its max), long before a probability reaches MAX_WEIGHT_BITS.
_LOOP_CUT_BITS = MAX_WEIGHT_BITS // 2


# ------------------------------------------------------------------- procedure calls


def _acts(node: Node, branch: Branch) -> bool:
    """`let x = action(...)`: a built-in that changes the game, bound as a step runs it
    (inside a larger expression it stays refused: an expression cannot fork the world)."""
    if not isinstance(node, Call):
        return False
    target = _callee(node, branch)
    return getattr(target, "mutates", False) and not hasattr(target, "explore_call") \
        and not hasattr(target, "explore_inline")


def _is_procedure_call(node: Node, branch: Branch) -> bool:
    if not isinstance(node, Call):
        return False
    return hasattr(_callee(node, branch), "explore_call")


def _callee(node: Call, branch: Branch):
    """What a call names, as a sampled run looks it up: a local first (`let strike =
    hurt` then `strike(target)`), then the globals."""
    if node.func in branch.locals:
        return branch.locals[node.func]
    return branch.globals.get(node.func) if hasattr(branch.globals, "get") else None


def _defer(call: Call, target, b: Branch, out) -> None:
    """The call noted in the branch (one child per outcome of its arguments), to be made
    by the caller once the procedure has returned (`_made`)."""
    scope = b.scope()
    args = [exact(a, scope) for a in call.args]
    kwargs = [(k, exact(v, scope)) for k, v in call.kwargs]
    dists = args + [d for _, d in kwargs]
    expect_forks([b], [product_size(dists)], call.loc)
    for weight, values in product(dists):
        child = b.fork(None if weight == 1 else weight, False)
        kw = {k: v for (k, _), v in zip(kwargs, values[len(args):])}
        child.pending = b.pending + (Pending(target, list(values[:len(args)]), kw, call.loc),)
        out.add(child)


def _explore_call(call: Call, branch: Branch, step=None):
    """Enumerate a procedure called from an enumerated procedure, in this branch's world:
    (the caller's branch after the call, the call's result) pairs.  A call statement
    tells the callee what of the game the statements after it read (`branch.after`)."""
    target = _callee(call, branch)
    args = [exact(a, branch.scope()) for a in call.args]
    kwargs = [(k, exact(v, branch.scope())) for k, v in call.kwargs]
    expect_forks([branch], [product_size(args + [d for _, d in kwargs])], call.loc)
    results = []
    branch.after = observed.after(step, branch) if step is not None else None
    try:
        for weight, values in product(args + [d for _, d in kwargs]):
            pos = list(values[:len(args)])
            kw = {k: v for (k, _), v in zip(kwargs, values[len(args):])}
            results.extend(target.explore_call(pos, kw, call.loc, branch, weight))
    finally:
        branch.after = None
    return results


_EXPLORERS = {
    LetStep: _explore_let, ModifyStep: _explore_let, AssignStep: _explore_assign,
    ReturnStep: _explore_return, EmitStep: _explore_emit, CallStep: _explore_call_step,
    IfStep: _explore_if, ForStep: _explore_for, RepeatStep: _explore_repeat,
    ChooseStep: explore_choose,
    RollStep: lambda step, branches, out: explore_roll(step, branches, out, _explore_let, single_value),
}
