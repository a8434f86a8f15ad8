"""Procedures as the DSL calls them: typed parameters, steps, and the three ways to run
a call (with a transcript, compiled, enumerated exactly)."""
from __future__ import annotations

import math
from ..records import record
from fractions import Fraction
from typing import Any

from ..dice.distribution import Distribution
from ..errors import Location, RulecraftError
from ..expr.sampled import Context
from ..expr.values import outcome
from ..limits import MAX_CALL_DEPTH
from ..state.freezing import fresh
from ..state.world import Unit
from ..suggest import did_you_mean
from ..expr import budget
from .frames import Branch, Frame, rebind_units
from ..lang.resolve import resolve
from ..lang.steps import Step
from .narration import tell
from .sampled import run_steps, value_text


# The exact-odds modules' entry points, bound by `_load_exact` where an enumeration
# first needs them (a sampled game never loads those modules; a function-level import
# would cost about a microsecond on every call of these hot paths).
exact = product = call_cost = explore_steps = explore_procedure = None


def _load_exact() -> None:
    global exact, product, call_cost, explore_steps, explore_procedure
    from ..expr.exact import exact, product
    from . import call_cost
    from .exact import explore_steps
    from .exact_calls import explore_procedure


@record
class Param:
    """A procedure's parameter: its name, declared type and default."""
    name: str
    type: str
    default: Any = None
    required: bool = True
    kind: str | None = None
    one_of: list | None = None
    description: str = ""


# The code generator's entry points, loaded with it at the first body compiled
# (`_load_codegen`): a recorded game (`play`) compiles nothing and never loads it.
call_body = compile_body = frame_runner = None


def _load_codegen() -> None:
    global call_body, compile_body, frame_runner
    from .codegen import call_body, compile_body, frame_runner


# run/quiet.py, loaded once a told game's call of a procedure is often enough
quiet = None


def _load_quiet() -> None:
    global quiet
    from . import quiet


# A told game runs a quiet procedure's calls on its Step objects until it has been called
# this many times, then compiled (`Procedure._runs_quietly`): finding the quiet procedures
# (7-14 ms for a bundled ruleset) and generating and compiling a body (1-15 ms) pay for
# themselves only over hundreds of calls -- a short story compiling all of them ran up
# to 1.1x slower, a long one (juggerball, 40,000 calls of one helper) gains the same
# with any threshold up to a thousand.
QUIET_AFTER = 500


class Procedure:
    """A named procedure with typed parameters and compiled steps; callable from the DSL
    (sampled) and enumerable exactly."""

    dsl_procedure = True   # what compiled calls look for
    _told_calls = 0        # the calls of it a told game has made (`_runs_quietly`)

    def __init__(self, name: str, description: str, params: dict[str, Param],
                 steps: list[Step], outcomes: list, location: Location | None, ruleset):
        self.name, self.description, self.params = name, description, params
        self.steps, self.outcomes, self.location, self.ruleset = steps, outcomes, location, ruleset
        self.dsl_label = f"procedure {name!r}"
        self._fast = None
        self._body = None
        self.narrate = None   # lang.template.Narration: the story sentence of a call
        self._resolution = None

    def resolution(self):
        """The resolver's name facts of the steps (locals, reads, liveness), built once."""
        if self._resolution is None:
            self._resolution = resolve(self.steps, self.params, self.ruleset.cell_names())
        return self._resolution

    def bind_arguments(self, args: list, kwargs: dict, loc) -> dict:
        params = self.params
        if len(args) > len(params):
            raise RulecraftError(f"{self.name}() takes {len(params)} arguments, got {len(args)}", loc,
                                 code="eval")
        bound = dict(zip(params, args))
        for key, value in kwargs.items():
            if key not in params:
                raise RulecraftError(f"{self.name}() has no parameter {key!r}", loc, code="unknown-name",
                                     hint=did_you_mean(key, list(params)))
            bound[key] = value
        if len(bound) == len(params):
            return bound
        for name, param in params.items():
            if name not in bound:
                if param.required:
                    raise RulecraftError(f"{self.name}() needs a value for {name!r}", loc, code="eval")
                bound[name] = _copy_default(param.default)
        return bound

    def check_depth(self, depth: int, loc) -> None:
        """A call at this depth would go deeper than procedures may call each other."""
        if depth >= MAX_CALL_DEPTH:
            raise RulecraftError(f"procedures call each other more than {MAX_CALL_DEPTH} deep", loc,
                                 code="limit")

    def dsl_call(self, args, kwargs, loc, ctx: Context):
        if not budget.running():   # called from an expression outside any run: a root
            before = budget.begin(self.ruleset.budget("steps"))
            try:
                return self.dsl_call(args, kwargs, loc, ctx)
            finally:
                budget.end(before)
        self.check_depth(ctx.depth, loc)
        world = ctx.world
        frame = Frame(self.bind_arguments(args, kwargs, loc), self.ruleset.globals, world,
                      ctx.rng, world.record if world else False, ctx.depth + 1)
        if world is not None and world.record and not self._runs_quietly(world):
            world.log("call", f"{self.name}({_args_text(frame.locals)})", procedure=self.name)
            world.depth += 1
            try:
                run_steps(self.steps, frame)
            finally:
                world.depth -= 1
            if self.narrate is not None:
                sentence = tell(self.narrate, frame, frame.result)
                if sentence:
                    world.log("story", sentence, procedure=self.name)
        else:
            self.fast()(frame)
        return frame.result

    def _runs_quietly(self, world) -> bool:
        """Whether this call, in a game with a transcript, runs compiled: the procedure
        writes no line the game tells (run/quiet.py), the call is made inside another
        when the told lines are grouped by the calls that made them, and the procedure
        has been called often enough (`QUIET_AFTER`) for its compiled body to be worth
        making."""
        told = world.told
        if told is None or not (world.depth or "call" not in told):
            return False
        self._told_calls += 1
        if self._told_calls <= QUIET_AFTER:
            return False
        if quiet is None:   # (the first time a call is often enough)
            _load_quiet()
        chooser = world.chooser   # (a `choose` is quiet where no person is asked)
        chooses = chooser is None or chooser.prompt is None
        return quiet.runs_quietly(told) and \
            self.name in quiet.quiet_procedures(self.ruleset, chooses)

    def body(self):
        """The steps compiled to one Python function (no transcript), built on first use:
        `body(L, W, rng, depth, G)`, see `codegen`."""
        if self._body is None:
            if compile_body is None:
                _load_codegen()
            rules = self.ruleset
            units = {p.name: rules.kinds.get(p.kind) for p in self.params.values()
                     if p.type == "unit"}
            self._body = compile_body(self.steps, set(self.params), set(rules.globals), units,
                                      rules.fixed_globals(), rules.cell_names(),
                                      own_variables=True)
        return self._body

    def fast(self):
        """The compiled steps as `run(frame)`, for callers that hold a Frame."""
        if self._fast is None:
            body = self.body()   # (first: it loads `frame_runner`)
            self._fast = frame_runner(body)
        return self._fast

    def call_fast(self, args, kwargs, world, rng, depth, loc):
        """Called from compiled steps (no transcript): see `codegen.call_body`."""
        body = self._body or self.body()   # (first: it loads `call_body`)
        return call_body(body, self, args, kwargs, world, rng, depth, loc)

    def dsl_exact_call(self, node, env):
        """A procedure called inside an expression, in exact mode: the distribution of
        its result.  Such a procedure must not change the game (its changes could not be
        kept in an expression); call it as a step or `let x = proc(...)` instead."""
        world = getattr(env, "world", None)
        self.check_depth(_inside_expressions[0], node.loc)
        _inside_expressions[0] += 1
        try:
            return self._exact_result(node, env, world)
        finally:
            _inside_expressions[0] -= 1

    def _exact_result(self, node, env, world):
        """The callee runs in the caller's world, shared: exact steps copy a world before
        they change it (frames.Branch), so an end still holding that very world changed
        nothing, and only an end holding a copy is compared with it."""
        if exact is None:   # the exact-odds modules, loaded at first use
            _load_exact()
        args = [exact(a, env) for a in node.args]
        kwargs = [(k, exact(v, env)) for k, v in node.kwargs]
        weights: dict = {}
        for weight, values in product(args + [d for _, d in kwargs]):
            pos = list(values[:len(args)])
            kw = {k: v for (k, _), v in zip(kwargs, values[len(args):])}
            callee = Branch(Fraction(1), locals_=self.bind_arguments(pos, kw, node.loc),
                            world=world, globals_=self.ruleset.globals)
            if callee.world is not None:
                rebind_units(callee.locals, callee.world)
            for end in self._explore_inside(callee, node.loc):
                if world is not None and end.world is not world and \
                        end.world.snapshot() != world.snapshot():
                    raise RulecraftError(
                        f"{self.name}() changes the game, so it cannot be used inside an "
                        f"expression in exact mode", node.loc, code="eval",
                        hint=f"call it as a step, or bind it: let x = {self.name}(...)")
                value = outcome(end.result)
                weights[value] = weights.get(value, 0) + weight * end.weight
        denominator = math.lcm(*(Fraction(w).denominator for w in weights.values()))
        return Distribution.from_weights({v: int(Fraction(w) * denominator) for v, w in weights.items()})

    def _explore_inside(self, callee: Branch, loc) -> list:
        """The callee's ends, its enumeration spending the budget of the one whose
        expression calls it (if any), as a call of a chain (run/call_cost.py)."""
        if exact is None:   # the exact-odds modules, loaded at first use
            _load_exact()
        outer = call_cost.current()
        if outer is None:
            return explore_steps(self.steps, [callee])
        run = callee.run
        call_cost.share(outer, run)
        try:
            with call_cost.called(run, self, loc):
                return explore_steps(self.steps, [callee])
        finally:
            outer.work = run.work

    def explore_call(self, args, kwargs, loc, branch, weight):
        """A call from an enumerated procedure: (the caller's branch after it, the
        result) pairs, see `exact_calls.explore_procedure`."""
        if exact is None:   # the exact-odds modules, loaded at first use
            _load_exact()
        return explore_procedure(self, args, kwargs, loc, branch, weight)


# how deep procedures called inside expressions are being enumerated (an expression has
# no branch to count its calls in), bounded by MAX_CALL_DEPTH as sampled calls are
_inside_expressions = [0]


def _copy_default(value):
    return fresh(value)


def _args_text(values: dict) -> str:
    parts = []
    for k, v in values.items():
        if isinstance(v, (dict, list, tuple)):
            shown = "{…}" if isinstance(v, dict) else "[…]"
        else:
            shown = v.name if isinstance(v, Unit) else value_text(v)
        parts.append(f"{k}={shown}")
    return ", ".join(parts)
