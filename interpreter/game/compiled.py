"""The turn engine's hot paths in compiled form, for games without a transcript
(`simulate`, `play --no-transcript`): a phase's steps, the start and end of the turn, and
the victory conditions, each compiled once per ruleset by the code generator, and run on
a plain dict of names instead of a Frame.

Why it gives what the recorded path gives: the recorded path runs the same steps (a
victory condition is the `return` of its expression) on a frame whose locals are `turn`,
`sides` and `units` (taken when the frame is made) and the segment's `side` / `unit`.
Here the same names are put in the dict, taken at the same moment, but only those the
steps can read: the names they mention, and the names a table's `steps` cell mentions
(`run()` hands a cell its caller's names).  A name neither mentions is never looked up,
so leaving it out changes nothing -- and saves building the list of living units for
every unit's segment and every victory check, which was a tenth of a whole game.
"""
from __future__ import annotations

from ..lang.resolve import mentioned_names
from ..lang.steps import ReturnStep
from ..run.codegen import NO_RETURN, compile_body
from ..run.frames import WORLD_NAMES

# the names every phase sees (a segment adds `side` and `unit`, a victory check `side`)
SEGMENT_NAMES = ("side", "unit")


class CompiledSteps:
    """One step list compiled for a ruleset, with the world names it may read.

    `given`, when known, is the names every run hands it (a segment's `side` and `unit`,
    or `side`, or none): with the world names it reads, those are surely in its dict on
    entry, so its names live in Python variables as a procedure's do, and a segment's
    `unit` (always a unit of the world) is read through a view of its fields.  Without
    it, every name is read from the dict."""

    __slots__ = ("steps", "given", "body", "wanted", "globals")

    def __init__(self, ruleset, steps, own_names, given: tuple | None = None):
        self.steps, self.given = steps, given   # kept: the cache is keyed by their ids
        read = mentioned_names(steps) | ruleset.cell_names()
        self.wanted = tuple(n for n in WORLD_NAMES if n in read)
        self.globals = ruleset.globals
        if given is None:
            self.body = compile_body(steps, set(WORLD_NAMES) | set(own_names),
                                     set(ruleset.globals), constants=ruleset.fixed_globals(),
                                     cell_names=ruleset.cell_names())
            return
        units = {"unit": None} if "unit" in given else {}
        self.body = compile_body(steps, set(self.wanted) | set(given), set(ruleset.globals),
                                 units, ruleset.fixed_globals(), ruleset.cell_names(),
                                 own_variables=True)

    def run(self, world, names: dict):
        """The steps' `return` value (None without one), run on the world's names and
        `names`, exactly as on a phase frame."""
        return self.run_on(world, names_for(world, self.wanted, names))

    def run_on(self, world, local: dict):
        result = self.body(local, world, world.rng, 0, self.globals)
        return None if result is NO_RETURN else result


def names_for(world, wanted, names: dict) -> dict:
    """What a phase frame's locals would be, cut to the world names `wanted`."""
    if not wanted:
        return dict(names)
    local = {n: WORLD_NAMES[n](world) for n in wanted}
    local.update(names)
    return local


def compiled_cache(ruleset) -> dict:
    """The ruleset's compiled step lists by the id of the steps (see `compiled_steps`)."""
    return ruleset.__dict__.setdefault("_compiled_game", {})


def compiled_steps(ruleset, steps, given: tuple) -> CompiledSteps:
    """A phase's (or the turn's start or end) steps, compiled once per ruleset for runs
    that hand them the names `given` (see `CompiledSteps`), kept under
    `(id(steps), given)`."""
    cache = compiled_cache(ruleset)
    key = (id(steps), given)
    entry = cache.get(key)
    if entry is None or entry.steps is not steps:
        entry = cache[key] = CompiledSteps(ruleset, steps, SEGMENT_NAMES, given)
    return entry


def compiled_conditions(ruleset) -> list:
    """For each victory condition: (the condition, its `when`, its `winner` or None, the
    world names either reads), each compiled as the `return` of its expression, with
    `side` among the names."""
    conditions = ruleset.__dict__.get("_compiled_victory")
    if conditions is None:
        conditions = []
        for v in (ruleset.turn.victory if ruleset.turn else []):
            when = CompiledSteps(ruleset, (ReturnStep(v.when, v.when.loc),), ("side",))
            winner = (CompiledSteps(ruleset, (ReturnStep(v.winner, v.winner.loc),), ("side",))
                      if v.winner is not None else None)
            wanted = tuple(n for n in WORLD_NAMES
                           if n in when.wanted or (winner is not None and n in winner.wanted))
            conditions.append((v, when, winner, wanted))
        ruleset._compiled_victory = conditions
    return conditions
