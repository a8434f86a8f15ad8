"""`run(row.effect)`: the steps of a table row's `steps` cell, run where it is called."""
from __future__ import annotations

from ..errors import EvalError
from ..expr.sampled import Context
from ..expr.values import describe
from ..state.actions import Action
from .gen_runtime import NO_RETURN
from .frames import Frame, Scope
from ..lang.steps import compile_steps
from ..expr import budget
from .sampled import run_steps


# The exact-odds modules' entry points, bound by `_load_exact` where an enumeration
# first needs them (a sampled game never loads those modules; a function-level import
# would cost about a microsecond on every call of these hot paths).
explore_steps = None


def _load_exact() -> None:
    global explore_steps
    from .exact import explore_steps


class RunSteps(Action):
    """`run(row.effect)`: the statements of a table row's `steps` cell, run as if they
    were written at this point of the procedure (they see and set its names)."""

    runs_cells = True   # what compiled calls look for

    def __init__(self):
        super().__init__("run", None, True, "run the steps of a table cell: run(row.effect)")
        self._compiled: dict = {}
        self._fast: dict = {}
        self._by_cell: dict = {}   # id(cell) -> (cell, constants, body), for run_fast

    def steps_of(self, cell, loc):
        node = getattr(cell, "node", None)
        if node is None or not hasattr(cell, "statements"):
            raise EvalError(f"run() needs the steps of a table cell, got {describe(cell)}", loc)
        key = id(node)
        if key not in self._compiled:
            self._compiled[key] = (node, compile_steps(node, "table steps"))
        return self._compiled[key][1]

    def remember(self, cell, steps) -> None:
        """The steps of `cell`, compiled already (a model read back from the cache holds
        them, game/rules_cache.py): `steps_of` returns these very steps, parsing nothing."""
        self._compiled[id(cell.node)] = (cell.node, steps)

    def dsl_call(self, args, kwargs, loc, ctx: Context):
        if not budget.running():   # run() in an expression outside any run: a root
            before = budget.begin()
            try:
                return self.dsl_call(args, kwargs, loc, ctx)
            finally:
                budget.end(before)
        if len(args) != 1 or kwargs:
            raise EvalError("run() takes one argument: the steps cell of a row", loc)
        steps = self.steps_of(args[0], loc)
        recording = ctx.world.record if ctx.world else False
        env = ctx.env
        while not isinstance(env, Scope) and hasattr(env, "parent"):
            env = env.parent
        local_names = env.locals if isinstance(env, Scope) else {}
        globals_ = env.globals if isinstance(env, Scope) else ctx.env
        frame = Frame(local_names, globals_, ctx.world, ctx.rng, recording, ctx.depth + 1)
        if recording:
            run_steps(steps, frame)
        else:
            self.fast_of(steps, globals_)(frame)
        return frame.result

    def run_fast(self, cell, L, G, W, rng, depth, loc, constants=None):
        """`run(cell)` from compiled steps (no transcript): the cell's body on the
        caller's names, one call deeper.  `constants` are the caller's: the globals
        none of its names (which the cell sees) can hide."""
        entry = self._by_cell.get(id(cell))
        if entry is None or entry[0] is not cell or entry[1] is not constants:
            body = self.body_of(self.steps_of(cell, loc), G, constants)
            entry = self._by_cell[id(cell)] = (cell, constants, body)
        result = entry[2](L, W, rng, depth + 1, G)
        return None if result is NO_RETURN else result

    def body_of(self, steps, globals_, constants=None):
        """The compiled body of a cell's steps (its names are the caller's: every name it
        does not bind is read through the caller's scope, or is one of the constants)."""
        key = (id(steps), id(constants))
        entry = self._fast.get(key)
        if entry is None:
            from .codegen import compile_body, frame_runner   # a recorded game compiles nothing
            body = compile_body(steps, global_names=set(globals_), constants=constants)
            entry = self._fast[key] = (steps, constants, body, frame_runner(body))
        return entry[2]

    def fast_of(self, steps, globals_):
        self.body_of(steps, globals_)
        return self._fast[(id(steps), id(None))][3]

    def explore_inline(self, cell, branch, loc):
        if explore_steps is None:   # the exact-odds modules, loaded at first use
            _load_exact()
        return explore_steps(self.steps_of(cell, loc), [branch])


RUN = RunSteps()
"""The one `run()` built-in; the ruleset's globals hold it beside the actions."""
