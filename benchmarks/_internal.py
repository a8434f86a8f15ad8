"""Every name the benchmarks take from inside `interpreter/`, in one place: when the
modules move, this is the only file to fix.

It works with both layouts of the package: the flat one this branch started from
(`interpreter.engine`, `interpreter.evaluate`, `interpreter.ruleset`, ...) and the
subpackages of the restructuring (`interpreter.game.simulate`, `interpreter.expr.sampled`,
`interpreter.load`, ...): each name is looked up in the new place first, then the old.

Imports are made when a function is first called, so that `benchmarks/startup.py` (which
times fresh `rulecraft` processes and imports nothing of rulecraft) does not pay for them.
"""
from __future__ import annotations

import importlib


def _name(name: str, *modules: str):
    """`name` from the first of `modules` that has it."""
    for module in modules:
        try:
            found = importlib.import_module(module)
        except ImportError:
            continue
        if hasattr(found, name):
            return getattr(found, name)
    raise ImportError(f"benchmarks/_internal.py: {name} is in none of {', '.join(modules)}; "
                      f"the interpreter's modules have moved: update this file")


def load_ruleset(ref):
    """The public entry point: `interpreter.load` (new layout) or
    `interpreter.ruleset.load_ruleset` (old)."""
    import interpreter
    load = getattr(interpreter, "load", None)
    if not callable(load):        # absent, or the old layout's module interpreter/load.py
        load = _name("load_ruleset", "interpreter.ruleset")
    return load(ref)


def rulecraft_error():
    """The class of every error rulecraft reports (a located message, no traceback)."""
    return _name("RulecraftError", "interpreter.errors")


def simulate(ruleset, scenario, runs, seed, workers=1):
    """`rulecraft simulate` as a function: the summary of `runs` games."""
    return _name("simulate", "interpreter.game.simulate", "interpreter.engine")(
        ruleset, scenario, runs, seed, workers)


def game_seed(seed: int, index: int) -> int:
    """The seed of game `index` of a simulation with seed `seed`."""
    return _name("game_seed", "interpreter.game.simulate", "interpreter.engine")(seed, index)


def expression_sampler(text: str, record: bool):
    """A compiled sampler of a dice expression, and a function making the context it is
    called with: (sample(ctx), context(rng, transcript_list_or_None))."""
    parse_expression = _name("parse_expression", "interpreter.lang.parse", "interpreter.dsl")
    compile_sampler = _name("compile_sampler", "interpreter.expr.sampled", "interpreter.evaluate")
    context = _name("Context", "interpreter.expr.sampled", "interpreter.evaluate")
    return (compile_sampler(parse_expression(text), record=record),
            lambda rng, record_list=None: context({}, rng, record_list))


def dice_spec(*args, **kwargs):
    """A dice term of the engine (`DiceSpec`), whose `.distribution()` is its exact odds."""
    return _name("DiceSpec", "interpreter.dice.terms", "interpreter.dice")(*args, **kwargs)


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
