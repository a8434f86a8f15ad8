"""Every name the benchmarks take from inside `interpreter/`, in one place: when the
modules move, this is the only file to fix.

Imports are made when a function is first called, so that `benchmarks/startup.py` (which
times fresh `rulecraft` processes and imports nothing of rulecraft) does not pay for them.
"""
from __future__ import annotations


def load_ruleset(ref):
    """The public entry point, `interpreter.load`."""
    import interpreter
    return interpreter.load(ref)


def rulecraft_error():
    """The class of every error rulecraft reports (a located message, no traceback)."""
    from interpreter.errors import RulecraftError
    return RulecraftError


def simulate(ruleset, scenario, runs, seed, workers=1):
    """`rulecraft simulate` as a function: the summary of `runs` games."""
    from interpreter.game.simulate import simulate as run
    return run(ruleset, scenario, runs, seed, workers)


def game_seed(seed: int, index: int) -> int:
    """The seed of game `index` of a simulation with seed `seed`."""
    from interpreter.game.simulate import game_seed as derive
    return derive(seed, index)


def expression_sampler(text: str, record: bool):
    """A compiled sampler of a dice expression, and a function making the context it is
    called with: (sample(ctx), context(rng, transcript_list_or_None))."""
    from interpreter.expr.sampled import Context, compile_sampler
    from interpreter.lang.parse import parse_expression
    return (compile_sampler(parse_expression(text), record=record),
            lambda rng, record_list=None: Context({}, rng, record_list))


def dice_spec(*args, **kwargs):
    """A dice term of the engine (`DiceSpec`), whose `.distribution()` is its exact odds."""
    from interpreter.dice.terms import DiceSpec
    return DiceSpec(*args, **kwargs)


def final_state(result) -> dict:
    """The comparable end of a played game (a `GameResult` of `Ruleset.play`): winner,
    last turn, survivors, each unit's changing fields and statuses, every distance
    between two units, and the random generator's state - the same shape as
    `benchmarks/hand_written_game.final_state`."""
    world = result.world
    units = list(world.units.values())
    return {
        "winner": result.winner, "turns": result.turns, "survivors": dict(result.survivors),
        "units": {u.name: {"destroyed": u.fields["destroyed"], "crew": u.fields["crew"],
                           "moved": u.fields["moved"], "weapons": list(u.fields["weapons"]),
                           "statuses": [(s.name, s.turns_left, s.applied_turn, s.active_from,
                                         s.started) for s in u.statuses]}
                  for u in units},
        "distances": {(a.name, b.name): world.distance(a, b)
                      for i, a in enumerate(units) for b in units[i + 1:]},
        "rng": world.rng.getstate(),
    }


def closures_only():
    """A context in which steps are compiled to the reference closures, not to Python
    source (what RULECRAFT_NO_CODEGEN=1 does for a whole process): a ruleset loaded and
    played inside it runs the compiled path's other half, for comparing the two in one
    process."""
    from contextlib import contextmanager
    from interpreter.run import codegen

    @contextmanager
    def switched():
        before = codegen.ENABLED
        codegen.ENABLED = False
        try:
            yield
        finally:
            codegen.ENABLED = before
    return switched()



class _CensusHooks:
    """Counters wrapped around the exact-call machinery for benchmarks/exact_census.py:
    each called procedure's calls, fresh enumerations and calls answered as made in the
    same game (run/exact_calls.py, run/call_memo.py), replays of remembered changes, and
    the states entering and leaving each pass of a `for` loop working on more than one
    (a last pass merged on what is read after it, run/observed.py, by its body's line)
    (run/exact.py).  `unwrap` puts the functions back."""

    def __init__(self):
        from interpreter.limits import BUDGETS
        from interpreter.run import call_memo, exact, exact_calls, frames
        self.forks_ceiling = BUDGETS["forks"][1]
        self._modules = {"calls": exact_calls, "memo": call_memo, "exact": exact,
                         "frames": frames}
        self._saved: list = []

    def _swap(self, owner, name, make):
        original = getattr(owner, name)
        self._saved.append((owner, name, original))
        setattr(owner, name, make(original))

    def wrap(self, calls, fresh, made, replays, passes, runs):
        exact_calls, call_memo = self._modules["calls"], self._modules["memo"]
        exact, frames = self._modules["exact"], self._modules["frames"]

        def explored(original):
            def explore(proc, args, kwargs, loc, branch, weight, call):
                calls[proc.name] += 1
                return original(proc, args, kwargs, loc, branch, weight, call)
            return explore

        def enumerated(original):
            def enumerate_call(proc, bound, branch, loc, *rest):
                fresh[proc.name] += 1
                return original(proc, bound, branch, loc, *rest)
            return enumerate_call

        def answered(original):
            def made_ends(run, call_key, depth, world):
                found = original(run, call_key, depth, world)
                if found is not None:
                    made[_PROCEDURES.get(call_key[0], call_key[0])] += 1
                return found
            return made_ends

        def replayed(original):
            def replay(world, changes, result):
                replays[0] += 1
                return original(world, changes, result)
            return replay

        def body(original):
            def explore_body(steps, branches, loc, *rest):
                out = original(steps, branches, loc, *rest)
                if len(branches) > 1 or len(out) > 1:
                    passes.append((getattr(loc, "line", None), len(branches), len(out)))
                return out
            return explore_body

        def last(original):
            def explore_steps(steps, branches, *rest):
                out = original(steps, branches, *rest)
                if rest and rest[0] is not None:   # a loop's last pass, merged on what is read
                    where = f"{getattr(steps[-1].loc, 'line', None)} (a last pass, merged on what is read)"
                    passes.append((where, len(branches), len(out)))
                return out
            return explore_steps

        def kept(original):
            def init(self, *args, **kwargs):
                original(self, *args, **kwargs)
                runs.append(self)
            return init

        self._swap(exact_calls, "_explore_procedure", explored)
        self._swap(exact_calls, "_enumerate_call", enumerated)
        self._swap(call_memo, "made_ends", answered)
        self._swap(call_memo, "replay", replayed)
        self._swap(exact, "_explore_body", body)
        self._swap(exact, "explore_steps", last)
        self._swap(frames.Enumeration, "__init__", kept)

    def unwrap(self):
        while self._saved:
            owner, name, original = self._saved.pop()
            setattr(owner, name, original)


# id(procedure) -> its name, for the made-call counter (a call's key starts with the id)
_PROCEDURES: dict = {}


def census_hooks(rules=None) -> _CensusHooks:
    """The census's counters (see _CensusHooks); `rules` names its procedures' ids."""
    if rules is not None:
        _PROCEDURES.update({id(p): p.name for p in rules.procedures.values()})
    return _CensusHooks()
