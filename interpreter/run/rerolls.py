"""Roll steps and their hooks: a die roll the units it affects may have rolled again
(Jugger's Luck, "reroll any 1 die roll affecting jug this turn", and the Fate spell,
"cause any dieroll to be rerolled", the opponent's rolls included).

A `roll:` step (lang/steps.RollStep) binds its dice like `let`.  Then, once, the hooks
of the units it affects are listed, in this order: the `rolled_by` hooks of `by` (the
roller), then the `rolled_against` hooks of `against`; for each unit its kind's hook
first, then its active statuses' hooks, oldest first.  Each hook is offered the roll
in turn: its steps see `holder`, `roll` (the value as it stands now), `bad` (whether
that value goes against the holder: `wanted` false for the roller, true for the unit
it is made against) and, for a status's hook, `status`.  A hook that returns "reroll"
has the dice rolled again; the new roll stands as far as that hook goes, and the hooks
after it see it.  A hook whose holder is destroyed, or whose status has ended
meanwhile, is passed over.  Whether to reroll is the rules' and the side's to decide:
the hook's steps test `bad` and what the ability costs, and a `choose ... by: holder`
in them is decided by the holder's side's policy (a person with `ask`).

The sampled runner (`plan_roll`) and exact enumeration (`explore_roll`) follow these
words step for step; each hook is a procedure call (model/build.py makes them), so its
steps run, compile and enumerate as any procedure's do.
"""
from __future__ import annotations

from fractions import Fraction

from ..errors import EvalError
from ..expr import reads
from ..expr.sampled import compile_sampler
from ..state.world import Unit
from .frames import Frame, Merged


# The exact-odds modules' entry points, bound by `_load_exact` where an enumeration
# first needs them (a sampled game never loads those modules; a function-level import
# would cost about a microsecond on every call of these hot paths).
exact = None


def _load_exact() -> None:
    global exact
    from ..expr.exact import exact

ROLL_EVENTS = ("rolled_by", "rolled_against")
REROLL = "reroll"


def _hooks_of(unit: Unit, event: str) -> list:
    """(label, procedure, status serial or None) of a unit's hooks for `event`."""
    found = []
    kind = unit.kind
    proc = kind.hooks.get(event) if kind is not None and getattr(kind, "hooks", None) else None
    if proc is not None:
        found.append((f"{kind.name} hook", proc, None))
    for status in unit.statuses:
        definition = status.definition
        if definition is not None and status.active and event in definition.hooks:
            found.append((status.name, definition.hooks[event], (status.name, status.serial)))
    return found


def _slots(step, value_of, world) -> list:
    """Every hook offered the roll: (unit id, event, label, procedure, status key)."""
    slots = []
    for node, event in ((step.by, "rolled_by"), (step.against, "rolled_against")):
        if node is None:
            continue
        who = value_of(node)
        if who is None:
            continue
        unit = world.unit(who, node.loc)
        reads.note(unit.uid, ("destroyed",))
        if not unit.alive:
            continue
        slots += [(unit.uid, event, label, proc, key) for label, proc, key in _hooks_of(unit, event)]
    return slots


def _holder(world, slot):
    """The slot's unit and status in this world, or None if the hook is passed over."""
    uid, _, _, _, key = slot
    unit = world.units.get(uid) or world.objects.get(uid)
    if unit is not None:
        reads.note(uid, ("destroyed",))
    if unit is None or not unit.alive:
        return None
    if key is None:
        return unit, None
    status = next((s for s in unit.statuses if (s.name, s.serial) == key and s.active), None)
    return None if status is None else (unit, status)


def _bad(step, hoped, event: str) -> bool:
    if hoped is not True and hoped is not False:
        raise EvalError(f"'wanted' must be true or false, got {hoped!r}", step.wanted.loc)
    return (not hoped) if event == "rolled_by" else hoped


def _arguments(unit, status, value, bad) -> dict:
    kwargs = {"holder": unit, "roll": value, "bad": bad}
    if status is not None:
        kwargs["status"] = status
    return kwargs


# ------------------------------------------------------------------------- sampled


def plan_roll(step, roll_again, text_of, run_steps):
    """A roll step for the sampled runner: `roll_again(frame)` is the `let` of its dice
    (rolling and writing `hit = 5 (d6 [5])`), `text_of` how a value is written,
    `run_steps` the runner of a hook's steps in a transcript."""
    by_of = compile_sampler(step.by, False) if step.by is not None else None
    against_of = compile_sampler(step.against, False) if step.against is not None else None
    wanted_of = compile_sampler(step.wanted, False)
    samplers = {id(step.by): by_of, id(step.against): against_of}
    name = step.name

    def run(frame):
        roll_again(frame)
        world = frame.world
        for slot in _slots(step, lambda node: _quietly(samplers[id(node)], frame.ctx), world):
            held = _holder(world, slot)
            if held is None:
                continue
            unit, status = held
            value = frame.locals[name]
            bad = _bad(step, _quietly(wanted_of, frame.ctx), slot[1])
            kwargs = _arguments(unit, status, value, bad)
            if not world.record:
                result = slot[3].dsl_call([], kwargs, step.loc, frame.ctx)
            else:
                said = (f"{unit.name}'s {slot[2]} at {slot[1]}: {name} {text_of(value)} is "
                        f"{'bad' if bad else 'good'} for {unit.name}")
                result = _told_hook(slot[3], kwargs, said, frame, run_steps)
            if result == REROLL:
                if world.record:
                    world.log("reroll", f"{unit.name}'s {slot[2]} has {name} "
                              f"({text_of(value)}) rolled again", unit=unit.name, name=name,
                              hook=slot[2])
                roll_again(frame)
    return run


def _quietly(sampler, ctx):
    """A value the step reads for its hooks (`by`, `against`, `wanted`), its table
    lookups kept out of the transcript: they are the rules' reading of the roll, which
    the steps after it show when they read it themselves."""
    record = ctx.record
    if record is None:
        return sampler(ctx)
    ctx.record = []
    try:
        return sampler(ctx)
    finally:
        ctx.record = record


def _told_hook(proc, kwargs, said: str, frame, run_steps):
    """A hook's steps in a transcript, headed by `said` -- written only if the hook
    writes anything (a hook that lets the roll stand and changes nothing says nothing)."""
    world = frame.world
    proc.check_depth(frame.ctx.depth, proc.location)
    inner = Frame(proc.bind_arguments([], kwargs, proc.location), proc.ruleset.globals, world,
                  frame.ctx.rng, True, frame.ctx.depth + 1)

    def header():   # written at the roll's own depth
        world.depth -= 1
        try:
            world.log("hook", said, procedure=proc.name)
        finally:
            world.depth += 1
    world.before_log = header
    world.depth += 1
    try:
        run_steps(proc.steps, inner)
    finally:
        world.depth -= 1
        world.before_log = None
    return inner.result


# --------------------------------------------------------------------------- exact


def explore_roll(step, branches, out, explore_let, single):
    """A roll step enumerated: the dice branched as `let` branches them
    (`explore_let`), then each hook offered in every branch, a "reroll" branching the
    dice again.  `single(dist, loc)` is the one value of an expression that must not
    depend on a roll."""
    if exact is None:   # the exact-odds modules, loaded at first use
        _load_exact()
    rolled = Merged()
    explore_let(step.bind, branches, rolled)
    for b in rolled.branches():
        slots = _slots(step, lambda node: single(exact(node, b.scope()), node.loc), b.world)
        current = [b]
        for slot in slots:
            offered = Merged()
            for c in current:
                offered.extend(_offer(step, slot, c, explore_let, single))
            current = offered.branches()
        for c in current:
            out.add(c)


def _offer(step, slot, branch, explore_let, single) -> list:
    held = _holder(branch.world, slot)
    if held is None:
        return [branch]
    unit, status = held
    value = branch.locals[step.name]
    if exact is None:   # the exact-odds modules, loaded at first use
        _load_exact()
    bad = _bad(step, single(exact(step.wanted, branch.scope()), step.wanted.loc), slot[1])
    ends = []
    for back, result in slot[3].explore_call([], _arguments(unit, status, value, bad),
                                             step.loc, branch, Fraction(1)):
        if result == REROLL:
            again = Merged()
            explore_let(step.bind, [back], again)
            ends += again.branches()
        else:
            ends.append(back)
    return ends
