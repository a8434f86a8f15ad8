"""The sampled runner: steps run with the world's RNG, the transcript as an observer.

Each step is planned once into a closure `run(frame)` holding its compiled expressions
(two forms of each: recording dice for the transcript, and the fast one used when
nothing is recorded).  `run_steps` runs a step list; whether a transcript is written is
the world's `record` flag, checked where a step has something to say, so there is one
implementation of every statement, observed or not.
"""
from __future__ import annotations

from ..errors import EvalError, LimitError, NameError_
from ..expr.sampled import bind_sampler, compile_sampler, compiled

from ..expr.values import (arith, assign_value, describe, get_attr, get_index, json_value, plain,
                           set_index)
from ..lang.steps import (CHANGING_CALLS, AssignStep, CallStep, ChooseStep, EmitStep, ForStep,
                          IfStep, LetStep, ModifyStep, RepeatStep, ReturnStep, RollStep, Step)
from ..lang.ast import Call, Node, to_text
from ..suggest import did_you_mean
from ..limits import MAX_LOOP
from ..expr.budget import WORK, exhausted
from .frames import Frame
from .rerolls import plan_roll
# the transcript's texts, imported from here by the runners and the game
from .texts import dice_text, literal_text, lookup_text, shown, value_text  # noqa: F401
from ..state.statuses import assign_status_field
from ..state.world import Status


def run_steps(steps, frame: Frame) -> None:
    """Run a step list until it ends or a step returns; entering it spends its steps
    from the call tree's step budget (`budget.py`)."""
    if steps:
        WORK[0] -= len(steps)
        if WORK[0] < 0:
            exhausted(steps[0].loc)
    _run_plans(steps, frame)


def _run_plans(steps, frame: Frame) -> None:
    plans = _PLANS
    for step in steps:
        plan = plans.get(step)
        if plan is None:
            plan = plans[step] = _PLANNERS[type(step)](step)
        plan(frame)
        if frame.returned:
            return


def run_step(step: Step, frame: Frame) -> None:
    """Run one step (the compiled form hands a step over with this; its block has spent
    the step already)."""
    _run_plans((step,), frame)


_PLANS: dict = {}   # step -> its planned closure (steps compare by identity)


# --------------------------------------------------------------------- transcript


def _flush_rolls(frame: Frame) -> list:
    records = frame.ctx.record
    if not records:
        return []
    frame.ctx.record = []
    return records


def _detail(rolls) -> str:
    return f"  ({dice_text(rolls)})" if rolls else ""


# -------------------------------------------------------------------------- steps


def _samplers(node):
    return compile_sampler(node, True), compile_sampler(node, False)


def _plan_let(step: LetStep):
    sample, fast, name = bind_sampler(step.node, True), bind_sampler(step.node, False), step.name

    def run(frame):
        value = (sample if frame.ctx.record is not None else fast)(frame.ctx)
        frame.locals[name] = value
        if frame.world.record:
            rolls = _flush_rolls(frame)
            if frame.world.skips("let"):   # a line nobody reads (World.told)
                return
            frame.world.log("let", f"{name} = {value_text(value)}{_detail(rolls)}", name=name,
                            value=json_value(shown(value)), rolls=[r.as_json() for r in rolls])
    return run


def assign(step: AssignStep, frame_locals, scope, world, value, keys=()):
    """Carry out `step` with its value (and the values of its computed keys, in order)
    worked out: a local name, a unit's field, a side's data, or an item inside one of
    them.  Returns what changed (for the transcript) and its new value."""
    path = step.path
    if len(path) == 1:
        if path[0] not in frame_locals and path[0] in scope:
            raise EvalError(f"{path[0]!r} is not a local name; only units' fields and "
                            f"names bound with let can be changed", step.loc)
        old = frame_locals.get(path[0])
        if step.op != "=" and path[0] not in frame_locals:
            raise EvalError(f"{path[0]!r} has no value yet", step.loc)
        frame_locals[path[0]] = assign_value(step.op, old, value, step.loc)
        return path[0], frame_locals[path[0]]
    owner = scope[path[0]] if path[0] in scope else None
    if path[0] in frame_locals and isinstance(owner, (list, tuple, dict)):
        parts = path_parts(step, keys)
        reached = game_item(owner, parts, step.loc)
        if reached is not None:   # `catchers[1].pushing_ball = true`: the unit changes
            return assign_parts(step, value, reached[0], world, parts[reached[1]:])
        frame_locals[path[0]], new = changed_item(owner, parts, step.op, value, step.loc)
        return path[0] + parts_text(parts), new
    return assign_field(step, value, owner, world, keys)


def game_item(container, parts, loc):
    """(the unit, side or status, how many parts led to it) when the path through a
    local list or record reaches one before its last part (`catchers[1].pushing_ball`,
    `pairs[2].target.hits`): the assignment then changes that piece of the game, which
    the list only names, and the list itself stays as it was.  None when the path stays
    inside plain lists and records."""
    value = container
    for i, (is_index, key) in enumerate(parts[:-1]):
        value = get_index(value, key, loc) if is_index else get_attr(value, key, loc)
        if not isinstance(value, (list, tuple, dict)):
            if hasattr(value, "set_field") or isinstance(value, Status) or \
                    hasattr(value, "data") and hasattr(value, "policy"):
                return value, i + 1
            return None
    return None


def reaches_game(owner, parts, loc) -> bool:
    """Whether an assignment through the local `owner` changes the game (exact odds
    copy the world for it): its path reaches a unit, side or status (`game_item`)."""
    return isinstance(owner, (list, tuple, dict)) and game_item(owner, parts, loc) is not None


def path_parts(step: AssignStep, keys) -> list[tuple[bool, object]]:
    """The path after the owner as (is an index, key) pairs, computed keys filled in."""
    values = iter(keys)
    return [(True, plain(next(values))) if isinstance(part, Node) else (False, part)
            for part in step.path[1:]]


def parts_text(parts) -> str:
    """`.locations.left_arm.armour`, `.ammo[3]`: a path as the transcript shows it."""
    out = []
    for is_index, key in parts:
        if is_index and not (isinstance(key, str) and key.isidentifier()):
            out.append(f"[{value_text(key)}]")
        else:
            out.append(f".{key}")
    return "".join(out)


def changed_item(container, parts, op: str, value, loc):
    """`container<parts> op= value` as a new container (nothing is changed in place:
    exact odds' branches and bulk runs share old values).  Returns it and the new
    value of the item."""
    (is_index, key), rest = parts[0], parts[1:]
    old = get_index(container, key, loc) if is_index else get_attr(container, key, loc)
    if rest:
        item, new = changed_item(old, rest, op, value, loc)
    else:
        item = new = assign_value(op, old, value, loc)
    return set_index(container, key, item, loc), new


def assign_field(step: AssignStep, value, owner, world, keys=(), named=True):
    """`owner.field... op= value` for a unit's field or a side's data: (what the
    transcript calls it, the new value); `named=False` (no transcript) skips the name."""
    if owner is None:
        raise EvalError(f"unknown name {step.path[0]!r}", step.loc)
    return assign_parts(step, value, owner, world, path_parts(step, keys), named)


def assign_parts(step: AssignStep, value, owner, world, parts, named=True):
    """`owner<parts> op= value` for a unit, side or status `owner` (see `assign_field`),
    the parts after the owner given: a unit reached through a local list is changed as
    a unit named directly is."""
    unit = None
    if hasattr(owner, "set_field"):
        unit = world.unit(owner, step.loc) if world is not None else owner
    elif world is not None and hasattr(owner, "data") and hasattr(owner, "policy"):
        owner = world.sides.get(owner.name, owner)   # the side of this branch's world
    if unit is not None:
        top_is_index, top = parts[0]
        if top_is_index:
            raise EvalError(f"a unit's fields are written unit.field, not unit[{value_text(top)}]",
                            step.loc)
        if len(parts) == 1:
            new = assign_value(step.op, get_attr(unit, top, step.loc), value, step.loc)
            unit.set_field([top], new, step.loc)
        else:
            if top not in unit.fields:
                unit.set_field([top], None, step.loc)   # explains: derived, or no such field
            record, new = changed_item(unit.fields[top], parts[1:], step.op, value, step.loc)
            unit.set_field([top], record, step.loc)
        return (unit.name + parts_text(parts) if named else None), new
    if isinstance(owner, Status):
        if len(parts) != 1 or parts[0][0]:
            raise EvalError("a status's fields are written status.field, one level deep",
                            step.loc)
        return assign_status_field(world, owner, parts[0][1], step.op, value, step.loc)
    if hasattr(owner, "data") and len(parts) == 1 and not parts[0][0]:  # a side's data (score ...)
        top = parts[0][1]
        old = owner.data.get(top, 0)
        owner.data[top] = assign_value(step.op, old, value, step.loc)
        return f"{owner.name}.{top}", owner.data[top]
    if hasattr(owner, "data") and not parts[0][0]:
        top = parts[0][1]
        if top not in owner.data:
            raise NameError_(f"{owner.name} has no data {top!r}", step.loc,
                             hint=did_you_mean(str(top), list(owner.data)))
        owner.data[top], new = changed_item(owner.data[top], parts[1:], step.op, value, step.loc)
        return owner.name + parts_text(parts), new
    raise EvalError(f"cannot change {describe(owner)}", step.loc)


def _plan_assign(step: AssignStep):
    sample, fast = _samplers(step.node)
    keys = [_samplers(key) for key in step.keys()]

    def run(frame):
        recording = frame.ctx.record is not None
        value = (sample if recording else fast)(frame.ctx)
        found = [(k_sample if recording else k_fast)(frame.ctx) for k_sample, k_fast in keys]
        telling = frame.world.record and not frame.world.skips("set")
        old = _old_value(step, frame, found) if telling else None
        where, new = assign(step, frame.locals, frame.ctx.env, frame.world, value, found)
        if frame.world.record:
            rolls = _flush_rolls(frame)
            if not telling:   # a line nobody reads (no call's line waited: see skips)
                return
            how = "" if step.op == "=" or (isinstance(step.node, Call) and step.node.func in CHANGING_CALLS) \
                else f" ({step.op} {value_text(value)})"
            frame.world.log("set", f"{where}: {value_text(old)} → {value_text(new)}{how}"
                            f"{_detail(rolls)}", field=where, value=json_value(shown(new)),
                            old=json_value(shown(old)), unchanged=_same(old, new))
    return run


def _old_value(step: AssignStep, frame, keys=()):
    """What the assigned name, field or item held before (None: nothing yet), for
    `old → new`; computed keys (`locations[at]`) are the values already worked out."""
    path = step.path
    try:
        value = frame.locals[path[0]] if path[0] in frame.locals else frame.ctx.env[path[0]]
        for is_index, key in path_parts(step, keys):
            value = get_index(value, key, step.loc) if is_index else get_attr(value, key, step.loc)
    except (KeyError, EvalError, LookupError, TypeError, StopIteration):
        return None
    return value


def _same(old, new) -> bool:
    try:
        return type(old) is type(new) and bool(old == new)
    except Exception:   # values the DSL cannot compare are never the same
        return False


def _plan_return(step: ReturnStep):
    sample, fast = _samplers(step.node)

    def run(frame):
        frame.result = (sample if frame.ctx.record is not None else fast)(frame.ctx)
        frame.returned = True
        if frame.world.record:
            rolls = _flush_rolls(frame)
            if frame.world.skips("return"):
                return
            frame.world.log("return", f"→ {value_text(frame.result)}{_detail(rolls)}",
                            value=json_value(shown(frame.result)))
    return run


def _plan_emit(step: EmitStep):
    sample, fast = _samplers(step.node)

    def run(frame):
        value = (sample if frame.ctx.record is not None else fast)(frame.ctx)
        if frame.world.record:
            _flush_rolls(frame)
            frame.world.log("emit", value_text(value))
    return run


def _plan_call(step: CallStep):
    """A call statement (`apply(target, "burning", turns=d6)`, `hurt(hits=2d10)`): the
    dice of its arguments are rolled before the call does anything, so the transcript
    shows them on a line of their own just before the first line the call writes (or
    after it, if it writes none)."""
    sample, fast = _samplers(step.call)

    def run(frame):
        world = frame.world
        if not world.record:
            (sample if frame.ctx.record is not None else fast)(frame.ctx)
            return
        pending = world.before_log   # a line still to be written first (a roll hook's)
        first = (lambda: (pending(), _log_rolls(frame))) if pending else (lambda: _log_rolls(frame))
        world.before_log = first
        try:
            (sample if frame.ctx.record is not None else fast)(frame.ctx)
        finally:
            world.before_log = pending if world.before_log is first else None
        _log_rolls(frame)
    return run


def _log_rolls(frame: Frame) -> None:
    """The call's argument dice (with any table lookup keyed by them); a lookup alone,
    `weapons["75mm M3"]`, is not a roll and the call line already shows its row."""
    rolls = _flush_rolls(frame)
    if any(hasattr(r, "dice") for r in rolls) and not frame.world.skips("rolls"):
        frame.world.log("rolls", f"rolls: {dice_text(rolls)}", rolls=[r.as_json() for r in rolls])


def _plan_if(step: IfStep):
    sample, fast = _samplers(step.cond)
    then, other, cond = step.then, step.other, step.cond

    def run(frame):
        value = (sample if frame.ctx.record is not None else fast)(frame.ctx)
        if type(value) is not bool:
            raise EvalError(f"an if needs true or false, got {describe(value)}", cond.loc)
        if frame.world.record:
            rolls = _flush_rolls(frame)
            if rolls and not frame.world.skips("check"):
                frame.world.log("check", f"{to_text(cond)}: {value_text(value)}  ({dice_text(rolls)})")
        run_steps(then if value else other, frame)
    return run


def loop_items(step: ForStep, value) -> list:
    if not isinstance(value, (list, tuple)):
        raise EvalError(f"for needs a list, got {describe(value)}", step.items.loc)
    if len(value) > MAX_LOOP:
        raise LimitError(f"a for loop may run at most {MAX_LOOP} times", step.loc)
    return list(value)


def _plan_for(step: ForStep):
    sample, fast = _samplers(step.items)
    var, body = step.var, step.body

    def run(frame):
        for item in loop_items(step, (sample if frame.ctx.record is not None else fast)(frame.ctx)):
            frame.locals[var] = item
            run_steps(body, frame)
            if frame.returned:
                return
    return run


def _plan_repeat(step: RepeatStep):
    sample, fast = _samplers(step.until)

    def run(frame):
        for _ in range(step.limit):
            run_steps(step.body, frame)
            if frame.returned:
                return
            done = (sample if frame.ctx.record is not None else fast)(frame.ctx)
            if type(done) is not bool:
                until_not_boolean(done, step.until.loc)
            if done:
                return
        repeat_ended(step, frame.world)
    return run


def until_not_boolean(value, loc):
    """A repeat's `until` that is not a boolean (here and in generated code)."""
    raise EvalError(f"until needs true or false, got {describe(value)}", loc)


def repeat_ended(step: RepeatStep, world) -> None:
    """A repeat ran its `limit` times with `until` false: an error without `max`, else
    play goes on (here and in generated code, whose world may be None)."""
    if not step.explicit:
        raise LimitError(f"this repeat ran {step.limit} times without its 'until' becoming "
                         f"true", step.loc, hint="give it a 'max:' if stopping there is meant")
    if world is not None:
        world.log("limit", f"repeat stopped after {step.limit} rounds (its max)")


def choice_options(step: ChooseStep, value) -> list:
    if not isinstance(value, (list, tuple)):
        raise EvalError(f"choose needs a list of options, got {describe(value)}", step.options.loc)
    return list(value)


def _plan_choose(step: ChooseStep):
    options_of = compile_sampler(step.options, False)
    by_of = compile_sampler(step.by, False) if step.by is not None else None

    def run(frame):
        options = choice_options(step, options_of(frame.ctx))
        by_value = by_of(frame.ctx) if by_of else frame.locals.get("side")
        if not options:
            frame.locals[step.var] = None
            frame.world.log("choice", f"{step.var}: nothing to choose from")
            return
        chooser = frame.world.chooser
        choice, how = chooser.choose(step, options, by_value, frame) if chooser else (options[0], "first")
        frame.locals[step.var] = choice
        if frame.world.skips("choice"):
            return
        frame.world.log("choice", f"{step.var} = {value_text(choice)} ({how})", name=step.var,
                        value=json_value(choice), policy=how)
    return run


def _plan_modify(step: ModifyStep):
    fast = compile_sampler(step.node, False)
    parts = [compiled(p, True) for p in step.parts]
    locs = [p.loc for p in step.parts[1:]]

    def run(frame):
        if frame.ctx.record is None:
            frame.locals[step.name] = fast(frame.ctx)
            return
        values = [part(frame.ctx) for part in parts]
        rolls = _flush_rolls(frame)
        base, mods, where = values[0], list(zip(step.labels, values[1:])), locs
        if step.stack != "sum" and mods:
            try:
                pick = (max if step.stack == "best" else min)(range(len(mods)),
                                                              key=lambda i: plain(mods[i][1]))
            except TypeError:
                raise EvalError(f"{step.stack}: the modifiers must be numbers", step.loc) from None
            mods, where = [mods[pick]], [where[pick]]
        total = base
        for loc, (_, v) in zip(where, mods):
            total = arith("+", total, v, loc)
        frame.locals[step.name] = total
        if frame.world.skips("modify"):
            return
        pieces = [f"{step.base_label} {value_text(base)}"]
        for label, v in mods:
            if v != 0:
                sign = "+" if v > 0 else "−"
                pieces.append(f"{sign}{value_text(abs(v))} {label}")
        frame.world.log("modify", f"{step.name}: {' '.join(pieces)} = {value_text(total)}"
                        f"{_detail(rolls)}", name=step.name, value=json_value(total),
                        breakdown=[{"label": step.base_label, "value": json_value(base)}] +
                        [{"label": label, "value": json_value(v)} for label, v in mods])
    return run


_PLANNERS = {
    RollStep: lambda step: plan_roll(step, _plan_let(step.bind), value_text, run_steps),
    LetStep: _plan_let, AssignStep: _plan_assign, ReturnStep: _plan_return, EmitStep: _plan_emit,
    CallStep: _plan_call, IfStep: _plan_if, ForStep: _plan_for, RepeatStep: _plan_repeat,
    ChooseStep: _plan_choose, ModifyStep: _plan_modify,
}
