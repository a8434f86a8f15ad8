"""Sampled evaluation: a syntax tree compiled once into nested Python closures.

`compile_sampler(node, record)` gives `f(ctx)`, which rolls with `ctx.rng` and, when
`record` is true, appends every dice term's `DiceRecord` to `ctx.record` (the
transcript).  Compiling once and running many times is what makes `simulate` fast.  What
each operation means is `values.py`'s; this module only walks the tree.

Names resolve against an environment mapping supplied by the caller (the ruleset, a
procedure's parameters ...).  The DSL can reach nothing else: no Python attributes, no
imports.
"""
from __future__ import annotations

from ..records import record
from functools import lru_cache
from typing import Any, Callable, Mapping

from ..dice.groups import GroupRecord, group_total, pooled_total
from ..errors import EvalError, NameError_
from ..lang.ast import (Attr, Binary, Bool, Call, Comprehension, Dice, Group, IfExpr, Index,
                        LetExpr, ListExpr, Name, Node, Num, RecordExpr, Text, Unary,
                        VariableDice, to_text)
from ..lang.notation import computed_spec, group_target
from ..suggest import did_you_mean
from .budget import spend
from .sizes import made
from .functions import FUNCTIONS
from .values import (NUMBER_BOUND, sized, ARITH, COMPARE, Rolled, arith, describe, explain, get_index,
                     lookup, names_of, number, plain, read_attr, truth)

# ------------------------------------------------------------------------ run context


@record(slots=True)
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
    items, loc = [compile_sampler(i, record) for i in node.items], node.loc
    return lambda ctx: made([item(ctx) for item in items], loc)   # weighed (sizes.py)


def _c_record(node: RecordExpr, record):
    fields, loc = [(key, compile_sampler(value, record)) for key, value in node.fields], node.loc
    return lambda ctx: made({key: value(ctx) for key, value in fields}, loc)


def _c_comprehension(node: Comprehension, record):
    item, source = compile_sampler(node.item, record), compile_sampler(node.source, record)
    cond = compile_sampler(node.cond, record) if node.cond is not None else None
    var = node.var

    def comprehension(ctx):
        values = source(ctx)
        if not isinstance(values, (list, tuple)):
            raise EvalError(f"'for' needs a list, got {describe(values)}", node.source.loc)
        spend(values, node.source.loc)   # one step per item (budget.py)
        saved, out = ctx.env, []
        try:
            for value in values:
                ctx.env = Bound(saved, var, value)
                if cond is None or truth(cond(ctx), node.cond.loc):
                    out.append(item(ctx))
        finally:
            ctx.env = saved
        return made(out, node.loc)
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
    fast = op not in ("/", "%", "**")   # these can fail or leave the ints: values.py decides

    def binary(ctx):
        a, b = left(ctx), right(ctx)
        if type(a) is int and type(b) is int and fast:
            result = fn(a, b)
            return result if -NUMBER_BOUND < result < NUMBER_BOUND else sized(result, loc)
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
        ctx.env = Bound(saved, name, bound)
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


class Bound(Mapping):
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


def _c_variable_dice(node: VariableDice, record):
    """Dice with a computed count, sides or target: the values first (count, sides, then
    target), then the dice term they make, rolled as any written one."""
    count = compile_sampler(node.count, record) if node.count is not None else None
    sides = compile_sampler(node.sides, record) if node.sides is not None else None
    target = compile_sampler(node.target, record) if node.target is not None else None
    number, tail, after, loc = node.number, node.tail, node.after, node.loc

    def variable_dice(ctx):
        c = plain(count(ctx)) if count is not None else number
        s = plain(sides(ctx)) if sides is not None else None
        t = plain(target(ctx)) if target is not None else None
        spec = computed_spec(c, s, tail, loc, t, after)
        if not record:
            return _rolling(spec, False)(ctx.rng)
        total, rec = _rolling(spec, True)(ctx.rng)
        if ctx.record is not None:
            ctx.record.append(rec)
        return total
    return variable_dice


@lru_cache(maxsize=4096)
def _rolling(spec, record: bool):
    """The sampler of one spec, made once (computed dice meet the same few specs)."""
    return spec.sampler(record)


def _c_pooled_group(node: Group, record):
    """A group of one with modifiers (`{4d6+3d8}kh1`): every die of its dice terms, left
    to right, then keep/drop or the target over all of them."""
    parts = [(sign, part if isinstance(part, int) else _rolling(part, True))
             for sign, part in node.pool]
    keep, failure = node.keep, node.failure
    success_of = _success_of(node, record)
    text = to_text(node) if record else ""

    def pooled(ctx):
        success = success_of(ctx)
        faces, signs, records, constant = [], [], [], 0
        for sign, part in parts:
            if isinstance(part, int):
                constant += sign * part
                continue
            _, rec = part(ctx.rng)
            records.append(rec)
            faces += [die.value for die in rec.dice]
            signs += [sign] * len(rec.dice)
        total, flags = pooled_total(faces, signs, constant, keep, success, failure)
        if record and ctx.record is not None:
            ctx.record.append(GroupRecord(text, total, faces, flags, node.notes))
        return total
    return pooled


def _success_of(node: Group, record):
    """`ctx -> the group's success test`: written, or a computed target (`{2d6,
    3d6}>=(t)`) worked out before the sub-rolls are rolled, as a dice term's is."""
    if node.target is None:
        return lambda ctx, success=node.success: success
    target, (op, _), failure, loc = compile_sampler(node.target, record), node.success, \
        node.failure, node.loc
    return lambda ctx: group_target(op, plain(target(ctx)), failure, loc)


def _c_group(node: Group, record):
    """A grouped roll: its sub-rolls left to right, then keep/drop or the target."""
    if node.pool:
        return _c_pooled_group(node, record)
    items = [compile_sampler(i, record) for i in node.items]
    keep, failure = node.keep, node.failure
    success_of = _success_of(node, record)
    text = to_text(node) if record else ""

    def group(ctx):
        success = success_of(ctx)
        values = [plain(item(ctx)) for item in items]
        try:
            total, flags = group_total(values, keep, success, failure)
        except EvalError as err:
            raise EvalError(err.message, node.loc) from None
        if record and ctx.record is not None:
            ctx.record.append(GroupRecord(text, total, values, flags, node.notes))
        return total
    return group


_COMPILERS: dict[type, Callable] = {
    Num: _c_num, Text: _c_text, Bool: _c_text, Dice: _c_dice, Name: _c_name, Attr: _c_attr,
    Index: _c_index, ListExpr: _c_list, Unary: _c_unary, Binary: _c_binary, IfExpr: _c_if,
    LetExpr: _c_let, Call: _c_call, Comprehension: _c_comprehension, Group: _c_group,
    RecordExpr: _c_record, VariableDice: _c_variable_dice,
}
