"""Exact evaluation: the full `Distribution` of an expression's value.

Dice terms give their exact pool distributions, independent sub-expressions are
combined, `let` and `if` enumerate their branches (so a name bound once is the same roll
everywhere it is used).  What each operation means is `values.py`'s, as for sampled runs.
Environment values may themselves be Distributions (a random parameter).
"""
from __future__ import annotations

from ..records import replace
from fractions import Fraction
from typing import Any, Callable, Mapping

from ..dice.distribution import Distribution, negate
from ..dice.sums import add, repeat_sum
from ..dice.terms import DiceSpec
from ..dice.groups import group_distribution, pooled_distribution
from ..errors import EvalError, LimitError, RulecraftError
from ..limits import MAX_VALUE_SIZE
from ..lang.ast import (Attr, Binary, Bool, Call, Comprehension, Dice, Group, IfExpr, Index,
                        LetExpr, ListExpr, Name, Node, Num, RecordExpr, Text, Unary,
                        VariableDice, walk)
from ..lang.notation import computed_spec, group_target
from . import budget, reads
from .sizes import TooLarge, held_size, made, refuse_size, too_large
from .sampled import Bound
from .functions import FUNCTIONS
from .values import (sized, RolledDice, arith, describe, explain, get_attr, get_index,
                     lookup, number, outcome, plain, truth)

# -------------------------------------------------------------------- exact evaluation


def exact(node: Node, env: Mapping[str, Any] | None = None) -> Distribution:
    """The exact distribution of an expression's value.

    Every dice term is an independent roll; a `let` binds one roll and enumerates its
    outcomes so that each use of the name sees the same value.  Environment values may
    themselves be Distributions (a random parameter).  An error raised without a place
    (a limit of dice/: too many outcomes, too much work) is placed at the innermost
    expression that was being worked out.  Every node worked out moves the work meter
    (budget.METER) that the exact-work budget weighs branches by."""
    _METER[0] += 1
    try:
        return _EXACT[type(node)](node, env if env is not None else {})
    except RulecraftError as err:
        if err.location is None:
            err.location = node.loc
        raise


_METER = budget.METER


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
    try:
        if len(dists) == 1:
            return _flatten(dists[0].map(guarded))
        if len(dists) == 2:   # merge results as they come: d100 * d100 * d100 has 46,911
            return _flatten(dists[0].combine(dists[1], guarded))
        result = dists[0].map(lambda v: (v,))
        for d in dists[1:]:
            result = result.combine(d, lambda acc, v: acc + (v,))
        return _flatten(result.map(lambda values: guarded(*values)))
    except LimitError as err:   # too many pairs or outcomes: said where
        if err.location is None:
            err.location = loc
        raise


def _flatten(dist: Distribution) -> Distribution:
    """A lookup may itself be random (a dice cell, a "roll again" row): a distribution
    of distributions becomes one mixture."""
    items = dist.items()
    if not any(isinstance(v, Distribution) for v, _ in items):
        return dist
    return Distribution.mix([(w, v if isinstance(v, Distribution) else Distribution.constant(v))
                             for v, w in items])


def _e_attr(node: Attr, env):
    return _chain(node, env)


def _e_index(node: Index, env):
    return _chain(node, env)


def _chain(node, env):
    """`unit.locations[at].armour`: the chain walked outcome by outcome, the records on
    the way never made outcomes of a distribution of their own (hashing a unit's whole
    record at every link was most of a lookup's cost).  While a call is enumerated
    (reads.py) each outcome's path is noted: only where the chain ends, since the
    records on the way are narrowed, not read whole.  A link that is itself random (a
    dice cell of a table row) or a capped roll takes the general way (`_lifted`)."""
    links = []
    root = node
    while isinstance(root, (Attr, Index)):
        links.append(root)
        root = root.obj
    base = exact(root, env)
    if base.capped:
        return _lifted(node, env)
    tracing = reads.tracing()
    items = [(value, None, weight) for value, weight in base.items()]
    for link in reversed(links):
        try:
            if isinstance(link, Attr):
                name = link.name
                items = [(get_attr(v, name, link.loc),
                          _deeper(v, where, name) if tracing else None, w)
                         for v, where, w in items]
            else:
                keys = exact(link.key, env)
                if keys.capped:
                    return _lifted(node, env)
                keyed = keys.items()
                items = [(get_index(v, k, link.loc),
                          _deeper(v, where, plain(k)) if tracing else None, w * wk)
                         for v, where, w in items for k, wk in keyed]
        except (TypeError, ValueError) as err:
            raise EvalError(explain(err), link.loc) from None
        if any(isinstance(v, Distribution) for v, _, _ in items):
            return _lifted(node, env)
    weights: dict = {}
    for v, where, w in items:
        if where is not None:
            reads.note(*where)
        v = outcome(v)
        weights[v] = weights.get(v, 0) + w
    if len(weights) == 1:
        return Distribution.constant(next(iter(weights)))
    return Distribution.from_weights(weights)


def _lifted(node, env):
    """The chain one link at a time, each a distribution (see `_chain`); a unit met
    while a call is enumerated is read whole."""
    tracing = reads.tracing()
    if isinstance(node, Attr):
        get = _whole_read if tracing else get_attr
        return _lift(lambda o: get(o, node.name, node.loc), exact(node.obj, env), loc=node.loc)
    obj, key = exact(node.obj, env), exact(node.key, env)
    return _lift(lambda o, k: get_index(o, k, node.loc), obj, key, loc=node.loc)


# ------------------------------------------------- reads of a called procedure (reads.py)


def _whole_read(obj, name, loc):
    if reads.is_unit(obj):
        reads.note(obj.uid, reads.WHOLE)
    return get_attr(obj, name, loc)


def _deeper(obj, where, key):
    """Where `obj[key]` (or `obj.key`) is read, given where `obj` was read."""
    if reads.is_unit(obj):
        path = reads.field_path(obj, key)
        return None if path is None else (obj.uid, path)
    if where is None:
        return None
    if isinstance(obj, Mapping):
        return where[0], where[1] + (key,)
    reads.note(*where)   # a list, a table row...: read whole
    return None


def _e_list(node: ListExpr, env):
    if not node.items:
        return Distribution.constant(())
    return _lift(lambda *items: made(tuple(items), node.loc), *(exact(i, env) for i in node.items),
                 loc=node.loc)


def _e_record(node: RecordExpr, env):
    """A record literal: its fields' rolls are independent, so they are combined."""
    if not node.fields:
        return Distribution.constant(outcome({}))
    keys = [key for key, _ in node.fields]
    return _lift(lambda *values: made(dict(zip(keys, values)), node.loc),
                 *(exact(value, env) for _, value in node.fields), loc=node.loc)


def _e_comprehension(node: Comprehension, env):
    """Each element's item (and condition) is evaluated with the element bound; the
    elements' rolls are independent, so their distributions are combined.  Each list
    spends one step per item, as in sampled runs (budget.py), so nested comprehensions
    over long lists stop at the same statement; outside any call tree (exact odds) the
    comprehension is a tree of its own, as one sampled roll is."""
    if not budget.running():
        before = budget.begin()
        try:
            return _e_comprehension(node, env)
        finally:
            budget.end(before)
    source = exact(node.source, env)
    branches = []
    metered = _METER[0]   # the items' work is the step budget's: not weighed again as forks
    for values, weight in source.items():
        if not isinstance(values, (list, tuple)):
            raise EvalError(f"'for' needs a list, got {describe(values)}", node.source.loc)
        budget.spend(values, node.source.loc)
        fixed: list = []   # the items while each has one value: no distribution to combine
        result = None      # (combining them one by one would copy the list once per item)
        size = 0           # the size of `fixed` (sizes.py): refused once past the limit
        same = None        # the element's distribution, when it does not read the element
        for value in values:
            if same is not None:
                pair = same
            else:
                scope = Bound(env, node.var, value)
                item = exact(node.item, scope)
                if node.cond is not None:
                    cond = exact(node.cond, scope)
                    pair = cond.combine(item, lambda c, i: (i,) if truth(c, node.cond.loc)
                                        else ())
                else:
                    pair = item.map(lambda i: (i,))
                if _element_free(node):
                    same = pair
            if result is None and len(pair) == 1:
                more = pair.values()[0]
                size = _grown(size, more, node.loc)
                fixed.extend(more)
                continue
            if result is None:
                result = Distribution.constant(tuple(fixed))
            result = result.combine(pair, lambda acc, more: acc + more)
        made_ = (lambda items: made(items, node.loc))   # weighed as made (sizes.py)
        branches.append((weight, result.map(made_) if result is not None
                         else Distribution.constant(made_(tuple(fixed)))))
    _METER[0] = metered
    return _mixed(branches, source)


# comprehension (by identity) -> whether its item and condition are independent of the
# element: rolls and arithmetic not reading the loop's name (`[d6 < 5 for p in range(n)]`)
_FREE_OF_ELEMENT: dict = {}
_HELD: list = []
_ELEMENT_FREE_NODES = (Num, Text, Bool, Dice, Name, Binary, Unary)


def _element_free(node: Comprehension) -> bool:
    """Whether every element of `node` has the same distribution: its item and condition
    are rolls, constants and arithmetic over names other than the loop's (no call, no
    inner comprehension spending steps of its own), so one is worked out for all."""
    found = _FREE_OF_ELEMENT.get(id(node))
    if found is None:
        trees = [node.item] + ([node.cond] if node.cond is not None else [])
        found = all(isinstance(n, _ELEMENT_FREE_NODES) and
                    not (isinstance(n, Name) and n.id == node.var)
                    for tree in trees for n in walk(tree))
        _FREE_OF_ELEMENT[id(node)] = found
        _HELD.append(node)
    return found


def _grown(size: int, items, loc) -> int:
    """`size` grown by the items a comprehension adds; past MAX_VALUE_SIZE the located
    refusal `made` would give the whole list, before its other items are worked out."""
    try:
        for item in items:
            size += held_size(item)
    except TooLarge as err:
        raise too_large(str(err), loc) from None
    if size > MAX_VALUE_SIZE:
        refuse_size(loc)
    return size


def _e_unary(node: Unary, env):
    operand = exact(node.operand, env)
    if node.op == "not":
        return _lift(lambda v: not truth(v, node.loc), operand, loc=node.loc)
    return _lift(lambda v: -number(v, node.loc, "'-'"), operand, loc=node.loc)


def _e_binary(node: Binary, env):
    op = node.op
    if op in ("+", "-") and (isinstance(node.left, Binary) and node.left.op in ("+", "-")
                             or isinstance(node.right, Binary) and node.right.op in ("+", "-")):
        return _e_sum(node, env)
    return _e_pair(node, env)


def _e_pair(node: Binary, env):
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
    if op in ("+", "-") and _all_int(left) and _all_int(right):   # convolved (dice/sums.py)
        try:
            total = add(left, right if op == "+" else negate(right))
        except LimitError as err:
            if err.location is None:
                err.location = loc
            raise
        for value in (total.min(), total.max()) if hasattr(total, "min") else total.values():
            sized(value, loc)
        return total
    return _lift(lambda a, b: arith(op, a, b, loc), left, right, loc=loc)


def _e_sum(node: Binary, env):
    """A chain of `+` and `-` (`d6 + d6 + 2d8 - d4 + ...`): its terms are independent, so
    when all are whole numbers, equal terms are summed at once (`repeat_sum`, one packed
    power) and the groups added; a sum of 300 dice terms costs about what 300d6 costs.
    Any other chain (texts, lists, fractions) is added pairwise in its written order."""
    terms = _sum_terms(node)
    if len(terms) <= 2:
        return _e_pair(node, env)
    values = {id(term): exact(term, env) for _, term in terms}
    if not all(_all_int(d) for d in values.values()):
        return _fold_sum(node, values, env)
    groups: dict = {}
    for sign, term in terms:
        key = (sign, values[id(term)])
        groups[key] = groups.get(key, 0) + 1
    result = None
    for (sign, dist), count in groups.items():
        part = repeat_sum(dist, count)
        part = part if sign > 0 else negate(part)
        result = part if result is None else add(result, part)
    return result.reduced()


def _sum_terms(node: Node) -> list[tuple[int, Node]]:
    """The terms of a `+`/`-` chain with their signs, left to right (iteratively)."""
    out, stack = [], [(1, node)]
    while stack:
        sign, current = stack.pop()
        if isinstance(current, Binary) and current.op in ("+", "-"):
            right_sign = sign if current.op == "+" else -sign
            stack.append((right_sign, current.right))
            stack.append((sign, current.left))
        else:
            out.append((sign, current))
    return out


def _fold_sum(node: Node, values: dict, env) -> Distribution:
    """The chain's tree added as written, from terms already evaluated."""
    if id(node) in values:
        return values[id(node)]
    left = _fold_sum(node.left, values, env)
    right = _fold_sum(node.right, values, env)
    op, loc = node.op, node.loc
    return _lift(lambda a, b: arith(op, a, b, loc), left, right, loc=loc)


def _mixed(branches, chooser: Distribution) -> Distribution:
    """Mix branches chosen by `chooser`'s outcomes.  If the chooser itself hit an
    explosion cap, that mass is added to the result's capped mass (an upper bound on
    the part of the answer the cap could affect), so it is still reported."""
    if len(branches) == 1 and not chooser.capped and branches[0][0] > 0:
        return branches[0][1].reduced()   # a certain choice: what the mixture would give
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
    for bound, weight in value.items():
        body = exact(node.body, Bound(env, node.name, bound))
        branches.append((weight, body.map(plain)))
    return _mixed(branches, value)


def bind_exact(node: Node, env) -> Distribution:
    """The distribution a `let` binds; a bare dice term keeps its natural face when the
    body can need it (one die, or a plain sum whose first die is the natural)."""
    if not isinstance(node, Dice):
        return exact(node, env)
    spec = node.spec
    if spec.explode or spec.keep or spec.success or spec.count == 0:
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
        if reads.tracing() and not hasattr(target, "explore_call"):
            _action_reads(node, env)
        return exact_call(node, env)
    if not node.args:
        raise EvalError(f"{node.func}() needs at least one value", node.loc)
    args = [exact(a, env) for a in node.args]
    if reads.tracing():   # a built-in reads the units it is given as it likes
        for arg in args:
            for value, _ in arg.items():
                reads.note_units(value)
    return _lift(fn, *args, loc=node.loc, what=f"{node.func}(): ")


def _action_reads(node: Call, env) -> None:
    """A read-only action in an expression (`has(target, "stunned")`) reads the units it
    is given as it likes: they are read whole, and which units are in the game too
    (`enemies(unit)`); given anything but names, all the game is."""
    reads.every_unit()
    for arg in [*node.args, *(v for _, v in node.kwargs)]:
        if not isinstance(arg, (Name, Num, Text, Bool)):
            reads.everything()
            return
        if isinstance(arg, Name):
            for value, _ in exact(arg, env).items():
                reads.note_units(value)


def _e_variable_dice(node: VariableDice, env):
    """Dice with a computed count, sides or target: the mixture, over the values' distribution,
    of the dice term each pair of values makes (`(d6)d6` is 1d6 with chance 1/6, ...)."""
    counts = exact(node.count, env) if node.count is not None else \
        Distribution.constant(node.number)
    sides = exact(node.sides, env) if node.sides is not None else Distribution.constant(None)
    targets = exact(node.target, env) if node.target is not None else \
        Distribution.constant(None)
    pairs = counts.combine(sides, lambda c, s: (c, s)).combine(
        targets, lambda cs, t: (cs[0], cs[1], t))
    branches = []
    for (count, side, target), weight in pairs.items():
        spec = computed_spec(plain(count), plain(side), node.tail, node.loc, plain(target),
                             node.after)
        try:
            branches.append((weight, spec.distribution()))
        except RulecraftError as err:
            if err.location is None:
                err.location = node.loc
            raise
    return _mixed(branches, pairs)


def _e_group(node: Group, env):
    """A grouped roll; with a computed target (`{2d6, 3d6}>=(t)`), the mixture over the
    target's outcomes of the group with each value written in."""
    if node.target is None:
        return _group_with(node, node.success, env)
    targets = exact(node.target, env)
    op = node.success[0]
    return _mixed([(w, _group_with(node, group_target(op, plain(t), node.failure, node.loc),
                                   env)) for t, w in targets.items()], targets)


def _group_with(node: Group, success, env):
    if node.pool:
        dice, constant = [], 0
        for sign, part in node.pool:
            if isinstance(part, int):
                constant += sign * part
                continue
            one = replace(part, count=1, text="d", sort=None, label=None).distribution()
            dice += [(one, sign)] * part.count
        try:
            return pooled_distribution(dice, constant, node.keep, success, node.failure)
        except LimitError as err:
            err.location = err.location or node.loc
            raise
    dists = [exact(i, env).map(plain) for i in node.items]
    try:
        return group_distribution(dists, node.keep, success, node.failure)
    except EvalError as err:
        raise EvalError(err.message, node.loc) from None
    except LimitError as err:
        if err.location is None:
            err.location = node.loc
        raise


_EXACT: dict[type, Callable] = {
    Num: _e_const, Text: _e_const, Bool: _e_const, Dice: _e_dice, Name: _e_name,
    Attr: _e_attr, Index: _e_index, ListExpr: _e_list, Unary: _e_unary, Binary: _e_binary,
    IfExpr: _e_if, LetExpr: _e_let, Call: _e_call, Comprehension: _e_comprehension,
    Group: _e_group, RecordExpr: _e_record, VariableDice: _e_variable_dice,
}


def product(dists: list[Distribution]):
    """All combinations of independent outcomes with their probabilities.  The weights
    are multiplied as integers and each combination's fraction made once at the end
    (one reduction a combination rather than two fractions at every factor)."""
    combos = [(1, 1, ())]
    for d in dists:
        total, items = d.total, d.items()
        combos = [(n * w, t * total, vals + (v,)) for n, t, vals in combos for v, w in items]
    return [(Fraction(n, t), vals) for n, t, vals in combos]
