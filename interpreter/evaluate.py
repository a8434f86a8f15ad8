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

import math
import operator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

from .dice import DiceSpec
from .distribution import Distribution
from .dsl import (Attr, Binary, Bool, Call, Comprehension, Dice, IfExpr, Index, LetExpr,
                  ListExpr, Name, Node, Num, Text, Unary)
from .errors import EvalError, Location, NameError_, RulecraftError
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


class RolledDice:
    """The result of a dice term bound to a name: its total, plus the natural face(s).

    It behaves as its total in arithmetic and comparisons; `.natural` (the first die's
    counted face), `.naturals`, `.total` and `.faces` are reachable from the DSL.  Two
    results are equal only if total and natural agree, so exact enumeration keeps
    "natural 1" apart from "total 1 after modifiers".
    """

    __slots__ = ("total", "natural", "naturals", "record")

    def __init__(self, total, natural, naturals=(), record=None):
        self.total = total
        self.natural = natural
        self.naturals = tuple(naturals)
        self.record = record

    def dsl_attr(self, name: str):
        if name in ("total", "natural", "naturals"):
            value = getattr(self, name)
            return list(value) if name == "naturals" else value
        if name == "faces" and self.record is not None:
            return [f for die in self.record.dice for f in die.faces]
        raise KeyError(name)

    def dsl_names(self):
        return ["total", "natural", "naturals", "faces"]

    def __eq__(self, other):
        if isinstance(other, RolledDice):
            return self.total == other.total and self.natural == other.natural
        return self.total == other

    def __hash__(self):
        return hash((self.total, self.natural))

    def __lt__(self, other):
        return self.total < _plain(other)

    def __le__(self, other):
        return self.total <= _plain(other)

    def __gt__(self, other):
        return self.total > _plain(other)

    def __ge__(self, other):
        return self.total >= _plain(other)

    def __int__(self):
        return int(self.total)

    def __index__(self):
        return int(self.total)

    def __repr__(self):
        return f"{self.total} (natural {self.natural})"

    __str__ = __repr__


class Rolled(int):
    """A bound roll in sampled evaluation: an int (its total, so arithmetic and
    comparisons run at C speed) that also knows its natural face(s)."""

    # (int subclasses cannot have __slots__; the instance dict holds the naturals)

    def __new__(cls, total, natural, naturals=None, record=None):
        self = int.__new__(cls, total)
        self.natural = natural
        if naturals is not None:       # one die: its natural is the only one (see dsl_attr)
            self.__dict__["naturals"] = tuple(naturals)
        if record is not None:
            self.__dict__["record"] = record
        return self

    @property
    def total(self):
        return int(self)

    def dsl_attr(self, name: str):
        if name == "natural":
            return self.natural
        if name == "total":
            return int(self)
        if name == "naturals":
            return list(self.__dict__.get("naturals", (self.natural,)))
        record = self.__dict__.get("record")
        if name == "faces" and record is not None:
            return [f for die in record.dice for f in die.faces]
        raise KeyError(name)

    dsl_names = RolledDice.dsl_names
    __str__ = int.__repr__


_ROLLS = (RolledDice, Rolled)


def _plain(value):
    """A bound roll as its total; everything else unchanged."""
    t = type(value)
    if t is Rolled:
        return int(value)
    return value.total if t is RolledDice else value


# ------------------------------------------------------------------------ arithmetic


def _normal(value):
    if type(value) is Fraction and value.denominator == 1:
        return value.numerator
    return value


def _divide(a, b):
    if type(a) is int and type(b) is int:
        if b == 0:
            raise ZeroDivisionError
        q, r = divmod(a, b)
        return q if r == 0 else Fraction(a, b)
    return _normal(Fraction(a) / Fraction(b))


def _number(value, loc, what):
    value = _plain(value)
    if type(value) in (int, Fraction) or type(value) is bool:
        return value
    raise EvalError(f"{what} needs a number, got {describe(value)}", loc)


_ARITH: dict[str, Callable] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": _divide,
}

_COMPARE: dict[str, Callable] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def describe(value) -> str:
    """A value as a user would name its kind in an error message."""
    if isinstance(value, bool):
        return f"a true/false value ({str(value).lower()})"
    if isinstance(value, (int, Fraction)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, _ROLLS):
        return f"a roll ({value.total})"
    label = getattr(value, "dsl_label", None)
    if label:
        return label
    return "a record"


def _round_half_up(x):
    """Rulebooks round halves up (2.5 -> 3, -2.5 -> -2); Python's round() would not."""
    return math.floor(Fraction(x) + Fraction(1, 2))


def _count(items, value=None):
    """count(list): the items that are not false or missing (so a list of units counts
    its units, a list of checks its passes); count(list, x): the items equal to x."""
    if value is None:
        return sum(1 for item in items if item is not False and item is not None)
    return sum(1 for item in items if item == value)


def _power(base, exponent):
    """pow(a, n): whole-number exponents only (a rule never needs more), bounded."""
    if type(exponent) is not int or abs(exponent) > 64:
        raise ValueError("the exponent must be a whole number from -64 to 64")
    if exponent < 0:
        return _normal(Fraction(1) / (Fraction(base) ** -exponent))
    return _normal(base ** exponent) if type(base) is Fraction else base ** exponent


def _as_text(value, places=None) -> str:
    """text(x): a value as it is printed in transcripts (7/2 stays 7/2);
    text(x, 1): a number rounded to that many decimals (60.7)."""
    from .rolling import decimal_text, json_value
    if places is not None:
        if type(places) is not int or not 0 <= places <= 10:
            raise ValueError("decimals must be a whole number from 0 to 10")
        return decimal_text(_plain(value), places)
    shown = json_value(value)
    if isinstance(shown, bool):
        return "true" if shown else "false"
    return str(shown)


def _contains(collection, item) -> bool:
    """contains(list, x), contains(table, key): membership, for tables by row key."""
    check = getattr(collection, "dsl_contains", None)
    if check is not None:
        return bool(check(_plain(item)))
    if isinstance(collection, (list, tuple, str, dict)):
        return _plain(item) in collection
    raise TypeError("contains() needs a list, text, record or table")


def _natural(value):
    if isinstance(value, _ROLLS):
        return value.natural
    raise TypeError("natural() needs a roll bound with let")


def _aggregate(fn):
    def call(*args):
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = tuple(args[0])
        if not args:
            raise ValueError("needs at least one value")
        return fn(_plain(a) for a in args)
    return call


FUNCTIONS: dict[str, Callable] = {
    "min": _aggregate(min),
    "max": _aggregate(max),
    "sum": lambda items: sum(_plain(i) for i in items),
    "count": _count,
    "len": len,
    "abs": lambda x: abs(_plain(x)),
    "floor": lambda x: math.floor(_plain(x)),
    "ceil": lambda x: math.ceil(_plain(x)),
    "round": lambda x: _round_half_up(_plain(x)),
    "natural": _natural,
    "any": lambda items: any(items),
    "all": lambda items: all(items),
    "pow": lambda base, exponent: _power(_plain(base), _plain(exponent)),
    "text": lambda value, places=None: _as_text(value, places),
    "contains": lambda collection, item: _contains(collection, item),
}
"""Built-in functions of the DSL.  Each takes plain values and returns one."""


# ------------------------------------------------------------------ name resolution


def lookup(env: Mapping[str, Any], name: str, loc: Location | None):
    try:
        return env[name]
    except KeyError:
        raise NameError_(f"unknown name {name!r}", loc,
                         hint=did_you_mean(name, _names_of(env))) from None


def _names_of(container) -> list[str]:
    if isinstance(container, Mapping):
        return [k for k in container.keys() if isinstance(k, str)]
    names = getattr(container, "dsl_names", None)
    return list(names()) if names else []


def get_attr(obj, name: str, loc: Location | None):
    """`obj.name` in the DSL: record fields and declared attributes only."""
    attr = getattr(obj, "dsl_attr", None)
    try:
        if attr is not None:
            return attr(name)
        if isinstance(obj, (dict, Mapping)):
            return obj[name]
    except KeyError:
        raise NameError_(f"{describe(obj)} has no field {name!r}", loc,
                         hint=did_you_mean(name, _names_of(obj))) from None
    raise EvalError(f"{describe(obj)} has no fields (asked for .{name})", loc)


def get_index(obj, key, loc: Location | None, ctx: Context | None = None):
    """`obj[key]` in the DSL: a table lookup, a list item or a record field."""
    index = getattr(obj, "dsl_index", None)
    if index is not None:
        return index(_plain(key), loc, ctx)
    key = _plain(key)
    if isinstance(obj, (list, tuple)):
        if type(key) is not int:
            raise EvalError(f"a list is indexed by a whole number, not {describe(key)}", loc)
        if not 1 <= key <= len(obj):
            raise EvalError(f"list index {key} is outside 1..{len(obj)}", loc)
        return obj[key - 1]
    if isinstance(obj, Mapping):
        try:
            return obj[key]
        except KeyError:
            raise NameError_(f"no entry {key!r}", loc,
                             hint=did_you_mean(str(key), _names_of(obj))) from None
    raise EvalError(f"{describe(obj)} cannot be indexed", loc)


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


def read_attr(value, name: str, loc):
    """`value.name`, the fast way first (units, rows, rolls), else `get_attr`, which
    also explains a miss."""
    read = getattr(value, "dsl_attr", None)
    if read is not None:
        try:
            return read(name)
        except KeyError:
            pass
    return get_attr(value, name, loc)


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
                if cond is None or _truth(cond(ctx), node.cond.loc):
                    out.append(item(ctx))
        finally:
            ctx.env = saved
        return out
    return comprehension


def _c_unary(node: Unary, record):
    operand, loc = compile_sampler(node.operand, record), node.loc
    if node.op == "not":
        return lambda ctx: not _truth(operand(ctx), loc)

    def negate(ctx):
        return -_number(operand(ctx), loc, "'-'")
    return negate


def _truth(value, loc):
    if type(value) is bool:
        return value
    raise EvalError(f"expected true or false, got {describe(value)}", loc)


def _c_binary(node: Binary, record):
    left, right, loc, op = (compile_sampler(node.left, record),
                            compile_sampler(node.right, record), node.loc, node.op)
    if op == "and":
        return lambda ctx: _truth(left(ctx), loc) and _truth(right(ctx), loc)
    if op == "or":
        return lambda ctx: _truth(left(ctx), loc) or _truth(right(ctx), loc)
    fn = _ARITH.get(op) or _COMPARE[op]
    if op == "/":
        def divide(ctx):
            a, b = left(ctx), right(ctx)
            try:
                return _divide(a, b)
            except ZeroDivisionError:
                raise EvalError("division by zero", loc) from None
            except TypeError:
                return _binary_fallback(op, a, b, loc)
        return divide

    def binary(ctx):
        a, b = left(ctx), right(ctx)
        try:
            r = fn(a, b)
        except TypeError:
            return _binary_fallback(op, a, b, loc)
        return r if type(r) is not Fraction else _normal(r)
    return binary


def _binary_fallback(op, a, b, loc):
    """Retry an operation on bound rolls' totals, or explain why the types don't fit."""
    pa, pb = _plain(a), _plain(b)
    if (pa is not a) or (pb is not b):
        try:
            fn = _ARITH.get(op) or _COMPARE[op]
            return _normal(fn(pa, pb))
        except ZeroDivisionError:
            raise EvalError("division by zero", loc) from None
        except TypeError:
            pass
    raise EvalError(f"cannot apply '{op}' to {describe(pa)} and {describe(pb)}", loc)


def _c_if(node: IfExpr, record):
    cond, then, other, loc = (compile_sampler(node.cond, record), compile_sampler(node.then, record),
                              compile_sampler(node.other, record), node.cond.loc)
    return lambda ctx: then(ctx) if _truth(cond(ctx), loc) else other(ctx)


def _c_let(node: LetExpr, record):
    value = _bind_sampler(node.value, record)
    body, name = compile_sampler(node.body, record), node.name

    def let(ctx):
        bound = value(ctx)
        saved = ctx.env
        ctx.env = _Scope(saved, name, bound)
        try:
            return _plain(body(ctx))
        finally:
            ctx.env = saved
    return let


def _bind_sampler(node: Node, record: bool) -> Sampler:
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
            raise EvalError(f"{node.func}(): {_explain(err)}", loc) from None
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
                             hint=did_you_mean(name, list(FUNCTIONS) + _names_of(ctx.env))) from None
        invoke = getattr(target, "dsl_call", None)
        if invoke is None:
            raise EvalError(f"{name!r} is {describe(target)}, not something to call", loc)
        return invoke([a(ctx) for a in args], {k: v(ctx) for k, v in kwargs}, loc, ctx)
    return call


def _explain(err: Exception) -> str:
    text = str(err)
    if "not supported between" in text or "unsupported operand" in text:
        return "the values are of kinds that do not fit together"
    return text or type(err).__name__


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


class Record(dict):
    """A record (YAML mapping) that can be an outcome of a distribution: hashable by
    its contents.  Only built for exact evaluation; never mutated there."""

    def __hash__(self):
        return hash(_freeze(self))


def _freeze(value):
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def outcome(value):
    """A value made fit to be a distribution outcome (records and lists hashable)."""
    if type(value) is dict:
        return Record(value)
    if type(value) is list:
        return tuple(outcome(v) for v in value)
    return value


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
            raise EvalError(f"{what}{_explain(err)}", loc) from None
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
                pair = cond.combine(item, lambda c, i: (i,) if _truth(c, node.cond.loc) else ())
            else:
                pair = item.map(lambda i: (i,))
            result = result.combine(pair, lambda acc, more: acc + more)
        branches.append((weight, result))
    return _mixed(branches, source)


def _e_unary(node: Unary, env):
    operand = exact(node.operand, env)
    if node.op == "not":
        return _lift(lambda v: not _truth(v, node.loc), operand, loc=node.loc)
    return _lift(lambda v: -_number(v, node.loc, "'-'"), operand, loc=node.loc)


def _e_binary(node: Binary, env):
    left = exact(node.left, env)
    op, loc = node.op, node.loc
    if op in ("and", "or"):
        short = op == "or"
        branches = []
        for value, weight in left.items():
            if _truth(value, loc) == short:
                branches.append((weight, Distribution.constant(short)))
            else:
                right = exact(node.right, env)
                branches.append((weight, _lift(lambda v: _truth(v, loc), right, loc=loc)))
        return _mixed(branches, left)
    right = exact(node.right, env)
    if op == "+" and _all_int(left) and _all_int(right):
        from .distribution import add
        return add(left, right)
    fn = _ARITH.get(op) or _COMPARE[op]

    def apply(a, b):
        try:
            return _normal(fn(a, b))
        except TypeError:
            return _binary_fallback(op, a, b, loc)
    return _lift(apply, left, right, loc=loc)


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
        chosen = node.then if _truth(value, node.cond.loc) else node.other
        branches.append((weight, exact(chosen, env)))
    return _mixed(branches, cond)


def _e_let(node: LetExpr, env):
    value = _bind_exact(node.value, env)
    branches = []
    for outcome, weight in value.items():
        body = exact(node.body, _Scope(env, node.name, outcome))
        branches.append((weight, body.map(_plain)))
    return _mixed(branches, value)


def _bind_exact(node: Node, env) -> Distribution:
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
