"""Evaluating expressions: sampled (with a seeded RNG and a transcript) or exactly.

Two evaluators share one meaning:

- `compile_sampler(node, record)` turns a syntax tree into nested Python closures once;
  each call `f(ctx)` then rolls with `ctx.rng` and, when `record` is true, appends every
  dice term's `DiceRecord` to `ctx.record`.  Compiling once and running many times is what
  makes `simulate` fast.
- `exact(node, env)` returns the full `Distribution` of the value: dice terms give their
  exact pool distributions, independent sub-expressions are combined, `let` and `if`
  enumerate their branches (so a name bound once is the same roll everywhere it is used).

Names resolve against an environment mapping supplied by the caller (the ruleset, a
procedure's parameters ...).  Values may be numbers (int, exact Fraction), booleans,
text, lists, records (dicts) or objects that offer `dsl_attr(name)` / `dsl_index(key)`.
The DSL can reach nothing else: no Python attributes, no imports.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

from .dice.terms import DiceSpec
from .dice.distribution import Distribution
from .lang.ast import (Attr, Binary, Bool, Call, Comprehension, Dice, IfExpr, Index, LetExpr,
                       ListExpr, Name, Node, Num, Text, Unary)
from .errors import EvalError, NameError_, RulecraftError
from .expr.values import (ARITH, COMPARE, FUNCTIONS, Rolled, RolledDice, arith, describe,
                          explain, get_attr, get_index, lookup, names_of, number, outcome,
                          plain, read_attr, truth)
from .suggest import did_you_mean

# ------------------------------------------------------------------------ run context


@dataclass(slots=True)
class Context:
    """What a sampled evaluation needs: names, the one RNG, and where dice records go."""

    env: Mapping[str, Any]
    rng: Any
    record: list | None = None
    world: Any = None   # the game state (interpreter.world.World) when a ruleset runs
    depth: int = 0      # procedure call depth, bounded by MAX_CALL_DEPTH


# ------------------------------------------------------------------ sampled evaluation

Sampler = Callable[[Context], Any]


_COMPILED: dict = {}


def compiled(node: Node, record: bool = False) -> Sampler:
    """`compile_sampler`, once per node: for rule expressions the engine evaluates again
    and again (victory conditions, initiative rolls, status modifiers, state formulas)."""
    key = (id(node), record)
    entry = _COMPILED.get(key)
    if entry is None or entry[0] is not node:
        entry = _COMPILED[key] = (node, compile_sampler(node, record))
    return entry[1]


def compile_sampler(node: Node, record: bool = True) -> Sampler:
    """Compile a tree into a closure `ctx -> value`.  With `record`, every dice term
    appends its DiceRecord to `ctx.record` (the transcript)."""
    return _COMPILERS[type(node)](node, record)


def _c_num(node: Num, record):
    value = node.value
    return lambda ctx: value


def _c_text(node, record):
    value = node.value
    return lambda ctx: value


def _c_dice(node: Dice, record):
    if not record:
        roll = node.spec.sampler(False)
        return lambda ctx: roll(ctx.rng)
    roll_recorded = node.spec.sampler(True)

    def dice(ctx):
        total, rec = roll_recorded(ctx.rng)
        if ctx.record is not None:
            ctx.record.append(rec)
        return total
    return dice


def _c_name(node: Name, record):
    name, loc = node.id, node.loc

    def name_value(ctx):
        try:
            return ctx.env[name]
        except KeyError:
            return lookup(ctx.env, name, loc)
    return name_value


def _c_attr(node: Attr, record):
    obj, name, loc = compile_sampler(node.obj, record), node.name, node.loc
    return lambda ctx: read_attr(obj(ctx), name, loc)


def _c_index(node: Index, record):
    obj, key, loc = compile_sampler(node.obj, record), compile_sampler(node.key, record), node.loc
    return lambda ctx: get_index(obj(ctx), key(ctx), loc, ctx)


def _c_list(node: ListExpr, record):
    items = [compile_sampler(i, record) for i in node.items]
    return lambda ctx: [item(ctx) for item in items]


def _c_comprehension(node: Comprehension, record):
    item, source = compile_sampler(node.item, record), compile_sampler(node.source, record)
    cond = compile_sampler(node.cond, record) if node.cond is not None else None
    var = node.var

    def comprehension(ctx):
        values = source(ctx)
        if not isinstance(values, (list, tuple)):
            raise EvalError(f"'for' needs a list, got {describe(values)}", node.source.loc)
        saved, out = ctx.env, []
        try:
            for value in values:
                ctx.env = _Scope(saved, var, value)
                if cond is None or truth(cond(ctx), node.cond.loc):
                    out.append(item(ctx))
        finally:
            ctx.env = saved
        return out
    return comprehension


def _c_unary(node: Unary, record):
    operand, loc = compile_sampler(node.operand, record), node.loc
    if node.op == "not":
        return lambda ctx: not truth(operand(ctx), loc)

    def negate(ctx):
        return -number(operand(ctx), loc, "'-'")
    return negate


def _c_binary(node: Binary, record):
    left, right, loc, op = (compile_sampler(node.left, record),
                            compile_sampler(node.right, record), node.loc, node.op)
    if op == "and":
        return lambda ctx: truth(left(ctx), loc) and truth(right(ctx), loc)
    if op == "or":
        return lambda ctx: truth(left(ctx), loc) or truth(right(ctx), loc)
    fn = ARITH.get(op) or COMPARE[op]

    def binary(ctx):
        a, b = left(ctx), right(ctx)
        if type(a) is int and type(b) is int and op != "/":
            return fn(a, b)
        return arith(op, a, b, loc)
    return binary


def _c_if(node: IfExpr, record):
    cond, then, other, loc = (compile_sampler(node.cond, record), compile_sampler(node.then, record),
                              compile_sampler(node.other, record), node.cond.loc)
    return lambda ctx: then(ctx) if truth(cond(ctx), loc) else other(ctx)


def _c_let(node: LetExpr, record):
    value = bind_sampler(node.value, record)
    body, name = compile_sampler(node.body, record), node.name

    def let(ctx):
        bound = value(ctx)
        saved = ctx.env
        ctx.env = _Scope(saved, name, bound)
        try:
            return plain(body(ctx))
        finally:
            ctx.env = saved
    return let


def bind_sampler(node: Node, record: bool) -> Sampler:
    """A sampler for the value of a `let`: a bare dice term keeps its natural faces."""
    if not isinstance(node, Dice):
        return compile_sampler(node, record)
    spec = node.spec
    if not record and spec.count == 1 and not spec.explode and not spec.success:
        fast = spec.sampler(False)   # one die: its natural face is its value

        def bind_one(ctx):
            total = fast(ctx.rng)
            return Rolled(total, total)
        return bind_one
    roll = spec.sampler(True)

    def bind(ctx):
        total, rec = roll(ctx.rng)
        if record and ctx.record is not None:
            ctx.record.append(rec)
        return Rolled(total, rec.natural, rec.naturals, rec)
    return bind


class _Scope(Mapping):
    """An environment with one more name bound on top of another."""

    __slots__ = ("parent", "name", "value")

    def __init__(self, parent, name, value):
        self.parent, self.name, self.value = parent, name, value

    @property
    def world(self):
        return getattr(self.parent, "world", None)

    def __getitem__(self, key):
        if key == self.name:
            return self.value
        return self.parent[key]

    def __iter__(self):
        yield self.name
        yield from (k for k in self.parent if k != self.name)

    def __len__(self):
        return len(self.parent) + (self.name not in self.parent)


def _c_call(node: Call, record):
    fn = FUNCTIONS.get(node.func)
    loc = node.loc
    if fn is None:
        return _c_env_call(node, record)
    if node.kwargs:
        raise EvalError(f"{node.func}() takes no named arguments", loc)
    args = [compile_sampler(a, record) for a in node.args]

    def call(ctx):
        values = [a(ctx) for a in args]
        try:
            return fn(*values)
        except (TypeError, ValueError, ZeroDivisionError) as err:
            raise EvalError(f"{node.func}(): {explain(err)}", loc) from None
    return call


def _c_env_call(node: Call, record):
    """A call to something the environment provides (a procedure, a table function)."""
    args = [compile_sampler(a, record) for a in node.args]
    kwargs = [(k, compile_sampler(v, record)) for k, v in node.kwargs]
    name, loc = node.func, node.loc

    def call(ctx):
        try:
            target = ctx.env[name]
        except KeyError:
            raise NameError_(f"unknown function {name!r}", loc,
                             hint=did_you_mean(name, list(FUNCTIONS) + names_of(ctx.env))) from None
        invoke = getattr(target, "dsl_call", None)
        if invoke is None:
            raise EvalError(f"{name!r} is {describe(target)}, not something to call", loc)
        return invoke([a(ctx) for a in args], {k: v(ctx) for k, v in kwargs}, loc, ctx)
    return call


_COMPILERS: dict[type, Callable] = {
    Num: _c_num, Text: _c_text, Bool: _c_text, Dice: _c_dice, Name: _c_name, Attr: _c_attr,
    Index: _c_index, ListExpr: _c_list, Unary: _c_unary, Binary: _c_binary, IfExpr: _c_if,
    LetExpr: _c_let, Call: _c_call, Comprehension: _c_comprehension,
}

# -------------------------------------------------------------------- exact evaluation


def exact(node: Node, env: Mapping[str, Any] | None = None) -> Distribution:
    """The exact distribution of an expression's value.

    Every dice term is an independent roll; a `let` binds one roll and enumerates its
    outcomes so that each use of the name sees the same value.  Environment values may
    themselves be Distributions (a random parameter)."""
    return _EXACT[type(node)](node, env if env is not None else {})


def _e_const(node, env):
    return Distribution.constant(node.value)


def _e_dice(node: Dice, env):
    try:
        return node.spec.distribution()
    except RulecraftError as err:
        if err.location is None:
            err.location = node.loc
        raise


def _e_name(node: Name, env):
    value = lookup(env, node.id, node.loc)
    return value if isinstance(value, Distribution) else Distribution.constant(outcome(value))


def _lift(fn, *dists: Distribution, loc=None, what="") -> Distribution:
    """Apply `fn` to independent distributions, merging equal results."""
    def guarded(*values):
        try:
            return outcome(fn(*values))
        except ZeroDivisionError:
            raise EvalError("division by zero (in some outcome)", loc) from None
        except (TypeError, ValueError) as err:
            raise EvalError(f"{what}{explain(err)}", loc) from None
    if len(dists) == 1:
        return _flatten(dists[0].map(guarded))
    result = dists[0].map(lambda v: (v,))
    for d in dists[1:]:
        result = result.combine(d, lambda acc, v: acc + (v,))
    return _flatten(result.map(lambda values: guarded(*values)))


def _flatten(dist: Distribution) -> Distribution:
    """A lookup may itself be random (a dice cell, a "roll again" row): a distribution
    of distributions becomes one mixture."""
    items = dist.items()
    if not any(isinstance(v, Distribution) for v, _ in items):
        return dist
    return Distribution.mix([(w, v if isinstance(v, Distribution) else Distribution.constant(v))
                             for v, w in items])


def _e_attr(node: Attr, env):
    return _lift(lambda o: get_attr(o, node.name, node.loc), exact(node.obj, env), loc=node.loc)


def _e_index(node: Index, env):
    obj, key = exact(node.obj, env), exact(node.key, env)
    return _lift(lambda o, k: get_index(o, k, node.loc), obj, key, loc=node.loc)


def _e_list(node: ListExpr, env):
    if not node.items:
        return Distribution.constant(())
    return _lift(lambda *items: tuple(items), *(exact(i, env) for i in node.items), loc=node.loc)


def _e_comprehension(node: Comprehension, env):
    """Each element's item (and condition) is evaluated with the element bound; the
    elements' rolls are independent, so their distributions are combined."""
    source = exact(node.source, env)
    branches = []
    for values, weight in source.items():
        if not isinstance(values, (list, tuple)):
            raise EvalError(f"'for' needs a list, got {describe(values)}", node.source.loc)
        result = Distribution.constant(())
        for value in values:
            scope = _Scope(env, node.var, value)
            item = exact(node.item, scope)
            if node.cond is not None:
                cond = exact(node.cond, scope)
                pair = cond.combine(item, lambda c, i: (i,) if truth(c, node.cond.loc) else ())
            else:
                pair = item.map(lambda i: (i,))
            result = result.combine(pair, lambda acc, more: acc + more)
        branches.append((weight, result))
    return _mixed(branches, source)


def _e_unary(node: Unary, env):
    operand = exact(node.operand, env)
    if node.op == "not":
        return _lift(lambda v: not truth(v, node.loc), operand, loc=node.loc)
    return _lift(lambda v: -number(v, node.loc, "'-'"), operand, loc=node.loc)


def _e_binary(node: Binary, env):
    left = exact(node.left, env)
    op, loc = node.op, node.loc
    if op in ("and", "or"):
        short = op == "or"
        branches = []
        for value, weight in left.items():
            if truth(value, loc) == short:
                branches.append((weight, Distribution.constant(short)))
            else:
                right = exact(node.right, env)
                branches.append((weight, _lift(lambda v: truth(v, loc), right, loc=loc)))
        return _mixed(branches, left)
    right = exact(node.right, env)
    if op == "+" and _all_int(left) and _all_int(right):
        from .dice.distribution import add
        return add(left, right)
    return _lift(lambda a, b: arith(op, a, b, loc), left, right, loc=loc)


def _mixed(branches, chooser: Distribution) -> Distribution:
    """Mix branches chosen by `chooser`'s outcomes.  If the chooser itself hit an
    explosion cap, that mass is added to the result's capped mass (an upper bound on
    the part of the answer the cap could affect), so it is still reported."""
    result = Distribution.mix(branches)
    if not chooser.capped:
        return result
    extra = chooser.capped_probability()
    capped = min(Fraction(1), result.capped_probability() + extra)
    weights = dict(result.items())
    scale = capped.denominator
    scaled = {v: w * scale for v, w in weights.items()}
    total = sum(scaled.values())
    return Distribution.from_weights(scaled, capped=total * capped.numerator // scale)


def _all_int(d: Distribution) -> bool:
    return all(type(v) is int for v, _ in d.items())


def _e_if(node: IfExpr, env):
    cond = exact(node.cond, env)
    branches = []
    for value, weight in cond.items():
        chosen = node.then if truth(value, node.cond.loc) else node.other
        branches.append((weight, exact(chosen, env)))
    return _mixed(branches, cond)


def _e_let(node: LetExpr, env):
    value = bind_exact(node.value, env)
    branches = []
    for outcome, weight in value.items():
        body = exact(node.body, _Scope(env, node.name, outcome))
        branches.append((weight, body.map(plain)))
    return _mixed(branches, value)


def bind_exact(node: Node, env) -> Distribution:
    """The distribution a `let` binds; a bare dice term keeps its natural face when the
    body can need it (one die, or a plain sum whose first die is the natural)."""
    if not isinstance(node, Dice):
        return exact(node, env)
    spec = node.spec
    if spec.explode or spec.keep or spec.success:
        dist = spec.distribution()
        return dist.map(lambda total: RolledDice(total, None))
    one = DiceSpec(count=1, faces=spec.faces, text="d", reroll=spec.reroll,
                   reroll_once=spec.reroll_once).distribution()
    if spec.count == 1:
        return one.map(lambda face: RolledDice(face, face, (face,)))
    rest = DiceSpec(count=spec.count - 1, faces=spec.faces, text="d", reroll=spec.reroll,
                    reroll_once=spec.reroll_once).distribution()
    return one.combine(rest, lambda face, others: RolledDice(face + others, face))


def _e_call(node: Call, env):
    fn = FUNCTIONS.get(node.func)
    if fn is None:
        target = lookup(env, node.func, node.loc)
        exact_call = getattr(target, "dsl_exact_call", None)
        if exact_call is None:
            raise EvalError(f"{node.func}() cannot be evaluated exactly", node.loc)
        return exact_call(node, env)
    if not node.args:
        raise EvalError(f"{node.func}() needs at least one value", node.loc)
    args = [exact(a, env) for a in node.args]
    return _lift(fn, *args, loc=node.loc, what=f"{node.func}(): ")


_EXACT: dict[type, Callable] = {
    Num: _e_const, Text: _e_const, Bool: _e_const, Dice: _e_dice, Name: _e_name,
    Attr: _e_attr, Index: _e_index, ListExpr: _e_list, Unary: _e_unary, Binary: _e_binary,
    IfExpr: _e_if, LetExpr: _e_let, Call: _e_call, Comprehension: _e_comprehension,
}
