"""Choice points in exact odds: a `choose` step decided as `play` decides it, by the
deciding side's policy (first, prefer, script, random), with the policy noted for the
output.  Split from run/exact.py, which dispatches to it."""
from __future__ import annotations

from fractions import Fraction

from ..errors import EvalError, RulecraftError
from ..expr.exact import exact, product
from ..lang.steps import ChooseStep
from .frames import Branch, Scope, option_text
from .sampled import choice_options


def explore_choose(step: ChooseStep, branches, out):
    """A choice point decided as `play` decides it (game/policies.Chooser): the deciding
    side's policy; `random` is branched uniformly, `prefer` takes the best-scoring option
    (branched over the preference's own rolls, if it has any), `script` the side's next
    answer.  Which policy decided is noted for the output."""
    for b in branches:
        options = choice_options(step, single_value(exact(step.options, b.scope()), step.options.loc))
        if not options:
            b.locals[step.var] = None
            out.add(b)
            continue
        by_value = single_value(exact(step.by, b.scope()), step.loc) if step.by else b.locals.get("side")
        policy, side = b.world.default_policy if b.world is not None else "first", None
        if by_value is not None and b.world is not None and b.world.sides:
            try:
                side = b.world.side_of(by_value, step.loc)
                policy = side.policy
            except RulecraftError:
                policy = b.world.default_policy
        run = b.run
        if policy == "ask" and run.asked is not None:
            policy = run.asked(step)
        if policy == "random":
            run.note_choice(step, "random", b.weight)
            for option in options:
                child = b.fork(Fraction(1, len(options)), False)
                child.locals[step.var] = option
                out.add(child)
            continue
        if policy == "prefer" and step.prefer is not None:
            run.note_choice(step, "prefer", b.weight)
            for p, index in _preferred(step, options, b):
                child = b.fork(p, False)
                child.locals[step.var] = options[index]
                out.add(child)
            continue
        if policy == "script" and side is not None and run.scripts.get(side.name):
            _scripted(step, options, side.name, b, out)
            continue
        run.note_choice(step, "ask (no one to ask in exact odds: first)" if policy == "ask"
                        else "first", b.weight)
        b.locals[step.var] = options[0]
        out.add(b)


def _preferred(step: ChooseStep, options: list, branch: Branch):
    """(probability, index of the chosen option) pairs: the first option with the highest
    preference, as `play` picks it, over every outcome of the preferences' rolls."""
    scope = branch.scope()
    dists = [exact(step.prefer, Scope({"option": o}, scope, branch.world)) for o in options]
    if all(len(d) == 1 for d in dists):
        scores = [d.items()[0][0] for d in dists]
        return [(Fraction(1), scores.index(max(scores)))]
    chosen: dict = {}
    for p, scores in product(dists):
        index = list(scores).index(max(scores))
        chosen[index] = chosen.get(index, 0) + p
    return [(p, index) for index, p in sorted(chosen.items())]


def _scripted(step: ChooseStep, options: list, side: str, b: Branch, out) -> None:
    """The side's next scripted answer (its position is part of the branch's state)."""
    used = dict(b.script)
    script = b.run.scripts[side]
    n = used.get(side, 0)
    if n >= len(script):
        b.run.note_choice(step, "script (used up: first)", b.weight)
        b.locals[step.var] = options[0]
        out.add(b)
        return
    used[side] = n + 1
    b.script = tuple(sorted(used.items()))
    wanted = str(script[n])
    option = next((o for o in options if option_text(o) == wanted), None)
    b.run.note_choice(step, "script" if option is not None else "script (no match: first)",
                      b.weight)
    b.locals[step.var] = option if option is not None else options[0]
    out.add(b)


def single_value(dist, loc):
    if len(dist) != 1:
        raise EvalError("this value must not depend on a roll here", loc)
    return dist.items()[0][0]
