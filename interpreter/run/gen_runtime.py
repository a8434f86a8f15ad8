"""What compiled step bodies call at run time (see `codegen`): the slow or rare paths
the generated source hands off to, kept out of the generated text so that it stays
short.  The generated code knows them by the names `codegen` binds in its namespace."""
from __future__ import annotations

from fractions import Fraction

from ..errors import EvalError, NameError_
from ..expr.budget import WORK, exhausted
from ..expr.sizes import SEQUENCES, fits_repeated
from ..expr.sampled import Context
from ..expr.values import Rolled, describe, get_attr, get_index, json_value, lookup
from ..lang.steps import Step
from ..limits import MAX_CALL_DEPTH, MAX_LOOP
from .frames import WORLD_NAMES, Frame, Scope
from .gen_facts import PLAIN_VALUES
from ..state.world import Unit
from ..tables.rows import RolledRow
from .sampled import (assign_field, assign_parts, changed_item, game_item, path_parts,
                      run_step, value_text)


class NoReturn:
    __slots__ = ()

    def __repr__(self):
        return "NO_RETURN"


NO_RETURN = NoReturn()   # what a body returns when it ends without `return`


class UnitReader:
    """A unit's view while a status or its equipment may change what its fields read:
    every read goes through `Unit.dsl_attr`."""

    __slots__ = ("unit",)

    def __init__(self, unit):
        self.unit = unit

    def __getitem__(self, name):
        return self.unit.dsl_attr(name)

    def __contains__(self, name):
        return False


# ------------------------------------------------------------------ run-time helpers


def loop_items(value, loc):
    if not isinstance(value, (list, tuple)) or len(value) > MAX_LOOP:
        raise TypeError("not a list of a loop's size")   # fail_over lets the Step explain
    return list(value)


def times(a, b):
    """`a * b` in compiled code when either may not be a number: a list repeated too
    many times (or text times anything) is refused with a TypeError before it is
    made, so that the statement is run again by its Step, which gives the located
    error (values.arith)."""
    if a.__class__ in SEQUENCES or b.__class__ in SEQUENCES:
        sequence, count = (a, b) if a.__class__ in SEQUENCES else (b, a)
        if sequence.__class__ is str or not fits_repeated(sequence, count):
            raise TypeError("not a product to make here")
    return a * b


def listed(values, loc):
    """The source of a comprehension: a list (one step spent per item, as the closure
    spends them), or the closure's own error."""
    if values.__class__ is list or isinstance(values, (list, tuple)):
        WORK[0] -= len(values)   # `budget.spend`, written out: every comprehension
        if WORK[0] < 0:
            exhausted(loc)
        return values
    raise EvalError(f"'for' needs a list, got {describe(values)}", loc)


def make_frame(L, G, W, rng, depth) -> Frame:
    return Frame(L, G, W, rng, False, depth)


def make_context(L, G, W, rng, depth) -> Context:
    return Context(Scope(L, G, W), rng, None, W, depth)


def fail_over(step: Step, frame: Frame, error: Exception, plain_dice=()):
    """A generated statement raised a Python error: let the Step say it properly."""
    for name in plain_dice:   # the Step reads these as rolls
        value = frame.locals.get(name)
        if type(value) is int:
            frame.locals[name] = Rolled(value, value)
    run_step(step, frame)
    raise EvalError(f"{type(error).__name__}: {error}", step.loc)


def name_value(L, G, W, name, loc):
    """A name the generator could not pin down: the locals, the globals, then the
    world's names (turn, sides, units), exactly as `Scope` answers."""
    if name in L:
        return L[name]
    if name in G:
        return G[name]
    if W is not None and name in WORLD_NAMES:
        return WORLD_NAMES[name](W)
    return lookup(Scope(L, G, W), name, loc)


def assign_local(step, value, owner, W, keys):
    """`local.field... op= value` (`step.path[0]` a local): a unit's or side's field is
    changed, and None returned; a local list or record gives its changed copy, which
    the caller binds (as `run.sampled.assign` does)."""
    if isinstance(owner, (list, tuple, dict)):
        parts = path_parts(step, keys)
        reached = game_item(owner, parts, step.loc)
        if reached is None:
            return changed_item(owner, parts, step.op, value, step.loc)[0]
        # a unit named by the list (`catchers[1].pushing_ball = true`) is changed
        assign_parts(step, value, reached[0], W, parts[reached[1]:], named=False)
        return None
    assign_field(step, value, owner, W, keys, named=False)
    return None


def assign_named(step, value, L, G, W, keys):
    """The same for a name the generator does not hold (in L, or a global)."""
    head = step.path[0]
    if head in L:
        new = assign_local(step, value, L[head], W, keys)
        if new is not None:
            L[head] = new
        return
    assign_field(step, value, G.get(head), W, keys, named=False)


def callee(L, G, name, loc):
    target = L[name] if name in L else G.get(name)
    if target is None and name not in G:
        raise NameError_(f"unknown function {name!r}", loc)
    return callable_target(target, name, loc)


def callable_target(target, name, loc):
    if getattr(target, "dsl_call", None) is None:
        raise EvalError(f"{name!r} is not something to call", loc)
    return target


def constant_table(table, key, loc):
    """A lookup on a table whose cells are all constants: the same value the full lookup
    gives, remembered per whole-number or text key."""
    if key.__class__ is int or key.__class__ is str:
        memo = table._memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        hit = table.constant_lookup(key, loc)
        # lists and records may be changed by the rules; keep the memo to a sane size
        if hit.__class__ is not list and hit.__class__ is not dict and len(memo) < 4096:
            memo[key] = hit
        return hit
    return table.constant_lookup(key, loc)


def no_world(action, loc):
    """An action called where there is no game (a table printed on its own)."""
    raise EvalError(f"{action.name}() needs a game in progress (use `rulecraft run` or `play`)", loc)


def index_value(obj, key, loc, L, G, W, rng, depth):
    """`obj[key]`: a record's field at once; a context is built only for objects that
    look up with one (tables and rows, whose formula cells roll)."""
    if obj.__class__ is dict and key.__class__ is str and key in obj:
        return obj[key]
    if getattr(obj, "dsl_index", None) is None:
        return get_index(obj, key, loc, None)
    return get_index(obj, key, loc, make_context(L, G, W, rng, depth))


_OWN_NAMES = frozenset(("name", "side", "kind", "statuses"))


def attr_value(value, name, loc):
    """`value.name`: a record's field at once; a derived field of a unit no status
    changes by its evaluator at once (what `Unit.dsl_attr` and `Kind.derived_value` come
    to for it: a Jugger's `e.in_action` in a comprehension over its enemies, a quarter
    of a juggerball game); else what `read_attr` gives."""
    if value.__class__ is dict and name in value:
        return value[name]
    if value.__class__ is Unit and not value.statuses and name not in value.fields \
            and value.kind is not None and name not in _OWN_NAMES:
        evaluate = value.kind.evaluators.get(name)   # (`Kind.derived_value` makes it)
        if evaluate is not None:
            return evaluate(value)
    try:
        return value.dsl_attr(name)
    except (AttributeError, KeyError):
        return get_attr(value, name, loc)   # which also explains a miss


def found_row(memo, table, key, loc, L, G, W, rng, depth):
    """`table[key]` of a table with formula cells (`gen_expressions._found_row`): the
    full lookup, and the row it found remembered per whole-number or text key when the
    lookup gave that row with the run's dice (a `RolledRow`: the row a key finds is
    fixed, and without a transcript nothing else of the lookup is kept)."""
    value = index_value(table, key, loc, L, G, W, rng, depth)
    if value.__class__ is RolledRow and (key.__class__ is int or key.__class__ is str) \
            and len(memo) < 4096:
        memo[key] = value.row
    return value


def plain_column(memo, table, key, column, index_loc, attr_loc, L, G, W, rng, depth):
    """`table[key].column` where every cell of that column is a plain value though the
    table has formula cells elsewhere (`gen_expressions._plain_column`): the full lookup
    and read, and the value remembered per whole-number or text key when it is a plain
    scalar (what a second lookup surely gives: the row a key finds and the cell are fixed)."""
    value = attr_value(index_value(table, key, index_loc, L, G, W, rng, depth), column, attr_loc)
    if (key.__class__ is int or key.__class__ is str) and value.__class__ in _SCALARS \
            and len(memo) < 4096:
        memo[key] = value
    return value


_SCALARS = frozenset((int, str, bool, float, Fraction))


def rolled(total):
    return Rolled(total, total)


def emit_line(world, value) -> None:
    """An `emit`'s line, as the sampled runner writes it (`_plan_emit`), from compiled
    steps run in a game with a transcript."""
    world.log("emit", value_text(value))


def names_of_body(variables: dict, names_back: dict, params: dict) -> dict:
    """The rule's names from a body's Python variables (for a Step re-running a failed
    statement): the parameters as passed, then every name bound so far."""
    names = dict(params)
    names.update({names_back[k]: v for k, v in variables.items() if k in names_back})
    return names


def choose(step, options: list, by_value, world, scores_of, env):
    """A `choose` as the sampled runner makes it (`_plan_choose`): nothing to choose from
    gives None; else the world's Chooser decides by the side's policy."""
    if not options:
        if world.record:
            world.log("choice", f"{step.var}: nothing to choose from")
        return None
    chooser = world.chooser
    choice, how = (chooser.pick(step, options, by_value, scores_of, env) if chooser
                   else (options[0], "first"))
    if world.record:
        world.log("choice", f"{step.var} = {value_text(choice)} ({how})", name=step.var,
                  value=json_value(choice), policy=how)
    return choice


RECALLED = 4096   # the answers kept per remembered procedure (then it is called as before)
_KEPT = frozenset(PLAIN_VALUES)


def recall(procedure, classes: tuple, values: tuple, W, rng, depth, loc):
    """A call of a `remembered` procedure (gen_facts) that its memo could not answer:
    called as the generated call would call it, and its answer kept -- with the steps
    it spent -- under the classes and values of its arguments (`1` and `True` are equal
    keys to Python, not to the rules), when the arguments and the result are plain
    values.  A call that fails keeps nothing: it fails again, the same way, each time.
    A kept answer is given only where the budget holds every step the call spent and
    the depth allows the call (the caller checks both), so a remembered call stops at
    the step where a real one would stop."""
    if depth >= MAX_CALL_DEPTH:   # the same refusal as the call's
        return procedure.call_fast(list(values), None, W, rng, depth, loc)
    before = WORK[0]
    result = (procedure._body or procedure.body())(dict(zip(procedure.params, values)), W, rng,
                                                   depth + 1, procedure.ruleset.globals)
    if result is NO_RETURN:
        result = None
    if result.__class__ in _KEPT and _KEPT.issuperset(classes):
        kept = procedure._recall.get(classes)
        if kept is None:
            kept = procedure._recall[classes] = {}
        if len(kept) < RECALLED:
            kept[values] = (result, before - WORK[0])
    return result
