"""Reactions, deferred calls and simultaneous phases in exact odds (odds-game), meaning
what game/reactions.py makes them mean in play:

- a reaction point inside a built-in action (every hex of a move, `react(...)`) runs
  the declared reactions for every side allowed, in the scenario's order, each
  branched over its rolls; the action goes on in each world they leave
  (game/branching.py replays it once per path);
- the calls a phase deferred run when it ends, in the order deferred (a call deferred
  by one of them after them), each enumerated as a procedure call;
- the units a simultaneous phase destroyed are destroyed then.

`explore_in_frame` is how every step list of the game is enumerated: in a fresh frame
of the game's names, as play's phase frame."""
from __future__ import annotations

from fractions import Fraction

from ..errors import LimitError
from ..expr.sampled import Context
from ..limits import MAX_LOOP
from ..run.exact import explore_steps
from ..run.destruction import explore_destroyed
from ..run.frames import Branch, Merged
from .branching import replayed
from .reactions import destroy_doomed


def explore_in_frame(b: Branch, steps, names: dict, keep=()) -> list:
    """The ends of `steps` run from branch `b` on a frame of the game's names (`turn`,
    `sides`, `units`, then `names`), as `play` runs them; the frame's names are gone once
    the steps end but for the branch's own `keep`."""
    world = b.world
    frame = {k: b.locals[k] for k in keep}
    frame.update({"turn": world.turn, "sides": list(world.sides.values()),
                  "units": [u for u in world.units.values() if u.alive]})
    frame.update(names)
    child = b.fork(Fraction(1), False)
    child.locals = frame
    ends = explore_steps(steps, [child])
    for end in ends:
        end.locals = {k: end.locals[k] for k in keep}
        end.returned, end.result = False, None
    return ends


class ExactReactions:
    """The world's reaction-point hook in exact odds (`world.reactor`): the exact
    enumeration hands it every built-in action that changes the game
    (`explore_action`), which it replays once per way the reactions inside can end."""

    def __init__(self, ruleset):
        self.ruleset = ruleset
        self.reactions = list(ruleset.turn.reactions)
        self.busy = False      # inside a reaction: no reaction points of its own (as play)
        self.current = None    # (path, branch) of the replay under way

    def explore_action(self, target, pos, kw, loc, branch: Branch, bind: str | None = None) -> list:
        """The branches an action ends in, its reaction points answered every way they
        can be; `bind` names the local its result goes to (`let x = action(...)`)."""
        if self.busy:
            result = target.dsl_call(pos, kw, loc, Context(branch.scope(), None, None,
                                                           branch.world, branch.depth))
            if bind is not None:
                branch.locals[bind] = result
            return [branch]

        def run(path):
            child = branch.fork(Fraction(1), True)   # the action from its start, again
            self.current = (path, child)
            try:
                result = target.dsl_call(pos, kw, loc, Context(child.scope(), None, None,
                                                               child.world, child.depth))
            finally:
                self.current = None
            if bind is not None:
                child.locals[bind] = result
            return child

        out = []
        for path, child in replayed(run, loc):
            if path.answers:
                last = path.answers[-1][1]
                child.weight, child.script = last.weight, last.script
                child.capped = child.capped or any(end.capped for _, end in path.answers)
            out.append(child)
        return out

    def __call__(self, world, point, unit, loc) -> None:
        """A reaction point reached by the action being replayed: the path's answer for
        it, or every way the reactions can end (a fork); the world becomes the answer's."""
        if self.busy or self.current is None:
            return
        if not any(r.at == point for r in self.reactions):
            return
        path, child = self.current
        if path.at < len(path.answers):
            end = path.draw(None)
        else:
            before = path.answers[-1][1] if path.answers else child
            ends = self._react(world, point, unit, before)
            end = path.draw([(e.weight / before.weight, e) for e in ends])
        world.become(end.world)

    def _react(self, world, point, unit, before: Branch) -> list:
        """Every way the reactions at this point end, from `world` as the action left it:
        each reaction in order, each side it allows in the scenario's order."""
        start = Branch(before.weight, locals_={}, world=world.copy(), globals_=self.ruleset.globals,
                       depth=before.depth, run=before.run)
        start.script = before.script
        current = [start]
        self.busy = True
        try:
            for reaction in self.reactions:
                if reaction.at != point:
                    continue
                for side in list(world.sides):
                    if reaction.by == "others" and side == unit.side or \
                            reaction.by == "mover" and side != unit.side:
                        continue
                    merged = Merged(loc=loc_of(reaction))
                    for b in current:
                        mover = b.world.unit(unit.uid, None)
                        merged.extend(explore_in_frame(b, reaction.steps, {
                            "side": b.world.sides[side], "mover": mover, "point": point}))
                    current = merged.branches()
        finally:
            self.busy = False
        return current


def loc_of(thing):
    return getattr(thing, "loc", None) or getattr(thing, "location", None)


def close_batch(b: Branch) -> list:
    """The end of a phase in one state: its deferred calls, in order (those deferred by
    them after them), each enumerated; then the units a simultaneous phase held are
    destroyed.  What `reactions.end_phase` does in play."""
    first = b.fork(Fraction(1), True)
    world = first.world
    if not world.deferred and not world.doomed:   # nothing held: the batch just closes
        world.deferred = world.doomed = None
        return [first]
    doomed, world.doomed = world.doomed or [], None
    current, ran = [first], 0
    while any(c.world.deferred for c in current):
        ran += max(len(c.world.deferred or ()) for c in current)   # the most on any path
        if ran > MAX_LOOP:
            raise LimitError(f"more than {MAX_LOOP} deferred calls in one phase",
                             next(c.world.deferred[0][3] for c in current if c.world.deferred))
        merged = Merged()
        for c in current:
            calls = c.world.deferred
            if not calls:
                merged.add(c)
                continue
            c = c.fork(Fraction(1), True)
            c.world.deferred = []
            chain = [c]
            for procedure, args, kwargs, loc in calls:
                step = Merged(loc=loc)
                for d in chain:
                    step.extend(back for back, _ in
                                procedure.explore_call(list(args), dict(kwargs), loc, d, Fraction(1)))
                chain = step.branches()
            merged.extend(chain)
        current = merged.branches()
    out = []
    for c in current:
        c = c.fork(Fraction(1), True)
        c.world.deferred = None
        ends = [c]
        for unit in destroy_doomed(c.world, doomed):   # each one's `on: destroyed` hooks
            ends = explore_destroyed(ends, unit.uid, None)
        out.extend(ends)
    return out
