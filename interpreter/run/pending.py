"""Rolls kept as distributions until a step needs their value (issue #12).

`let r3 = d6` makes six branches, one per face, though the rulebook style often reads
the roll once more only: in the condition of the next `if` (`if: r3 >= 4`), or in a sum
at the end (`return r0 + r1 + ... + r11`).  Such a local is bound to a `Pending` (its
distribution) instead, and the branch is not split:

- an `if` whose condition reads it, when the name is dead after the `if` and unread in
  its blocks, splits the branch by the condition's outcome only (two branches, not six);
- a `let` or a `return` whose value is arithmetic reading it once, when the name is dead
  after that step, works the value out with the roll as an independent distribution
  (convolved: `r0 + r1` is the sum of two dice), the `let` binding the result pending
  again if it qualifies in turn;
- any other step reading it first splits the branch over its outcomes ("forced"), as
  if it had been enumerated at its `let`, so every other step sees plain values.

Which names qualify is decided once per step list from the resolver's facts (what each
step reads, what is dead after it: lang/resolve.py): a name qualifies when every step
reading it is one of the consumers above.  Exactness: a pending roll is independent of
everything else in its branch (nothing has read it), so an expression reading it once
has the distribution of its value with the roll as a distribution; a condition's
outcome with the roll summed out is the branch's split, and since the roll is never read
again, forgetting which face made which side changes no later step.
"""
from __future__ import annotations

from fractions import Fraction

from ..expr.exact import exact, product
from ..expr.values import plain
from ..lang.ast import Binary, Bool, Dice, Name, Num, Unary, walk
from ..lang.resolve import free_names
from ..lang.steps import IfStep, LetStep, ReturnStep, all_steps
from .frames import Branch, Scope, spend_work

_ARITHMETIC = frozenset({"+", "-", "*", "<", "<=", ">", ">=", "==", "!="})

# step -> the names a step may take pending (by the rules above)
_CONSUMES: dict = {}
# step -> the names its own dispatch reads (an if: its condition only; a loop: all)
_READS: dict = {}
# let step -> whether its name may be bound pending (per live-out, see `study`)
_LAZY: dict = {}
_ANY = object()     # an enumeration's `pure` cache holds this once a roll was kept pending
_SPLITS = object()  # ... and under this, the conditions already split by kept rolls


class Pending:
    """A roll bound to a local and not yet enumerated: its distribution, compared (for
    merging) by its outcomes and weights."""

    __slots__ = ("dist", "key", "_plain", "_hash")

    def __init__(self, dist):
        self.dist = dist
        self.key = (dist.total, tuple(dist.items()))
        self._plain = None
        self._hash = hash(self.key)   # hashed at every merge: once

    def plain(self):
        """The distribution as arithmetic reads it (a bound die as its total)."""
        if self._plain is None:
            self._plain = self.dist.map(plain)
        return self._plain

    def __eq__(self, other):
        return isinstance(other, Pending) and self.key == other.key

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"pending {self.dist!r}"


def study(steps, facts, dead: dict, live_out) -> None:
    """Note which steps of `steps` consume which names pending, what each step's own
    dispatch reads, and which `let`s may bind pending (once per step list)."""
    reads_of: dict = {}
    for step in all_steps(steps):
        if step not in _READS:
            _READS[step] = _own_reads(step, facts)
            _CONSUMES[step] = _consumed(step, facts, dead.get(step, frozenset()))
        for name in _READS[step]:
            reads_of.setdefault(name, []).append(step)
    live_out = frozenset(live_out)
    for step in all_steps(steps):
        if type(step) is LetStep and (step, live_out) not in _LAZY:
            name = step.name
            _LAZY[(step, live_out)] = name not in live_out and all(
                name in _CONSUMES[t] for t in reads_of.get(name, ()))


def _own_reads(step, facts) -> frozenset:
    """What a step reads itself when it is reached: a step with blocks (if, for, repeat)
    its own expressions only (the steps of its blocks are reached in their turn, and a
    repeat's `until` is forced where it is read); any other step all it reads (with the
    names a table's steps cell may read, by the resolver)."""
    if not step.blocks():
        return facts.reads(step)
    names: set = set()
    for tree in step.expressions():
        names |= free_names(tree)
    return frozenset(names)


def _consumed(step, facts, dead) -> frozenset:
    """The names `step` can take pending (see the module docstring)."""
    if isinstance(step, IfStep):
        arms = set()
        for inner in step.then + step.other:
            arms |= facts.reads(inner)
        return frozenset(n for n in free_names(step.cond) if n in dead and n not in arms)
    if type(step) in (LetStep, ReturnStep) and not isinstance(step.node, Name) \
            and _arithmetic(step.node):
        # (a bare name keeps a die's natural face: `let y = x` is not arithmetic)
        counts: dict = {}
        for node in walk(step.node):
            if isinstance(node, Name):
                counts[node.id] = counts.get(node.id, 0) + 1
        return frozenset(n for n, c in counts.items() if c == 1 and n in dead)
    return frozenset()


def _arithmetic(node) -> bool:
    for part in walk(node):
        if isinstance(part, Binary):
            if part.op not in _ARITHMETIC:
                return False
        elif isinstance(part, Unary):
            if part.op != "-":
                return False
        elif not isinstance(part, (Num, Bool, Name, Dice)):
            return False
    return True


def consumes(step) -> frozenset:
    """The names `step` may take pending (the rest it reads are forced first)."""
    return _CONSUMES.get(step, frozenset())


def may_keep(step, b: Branch) -> bool:
    """Whether the `let` step may bind its roll pending in branch `b`."""
    return _LAZY.get((step, b.keep_at_end), False)


def kept_branch(b: Branch, name: str, dist) -> Branch:
    """`b` with `name` bound to the roll `dist`, kept pending (no branch per outcome)."""
    b.run.pure[_ANY] = True
    child = b.fork(None, False)
    child.locals[name] = Pending(dist)
    return child


def any_kept(run) -> bool:
    return _ANY in run.pure


def kept_in(step, b: Branch):
    """The pending names step may consume in `b` (a tuple, usually empty)."""
    wanted = _CONSUMES.get(step)
    if not wanted:
        return ()
    local = b.locals
    return tuple(n for n in wanted if n in local and local[n].__class__ is Pending)


def force(step, branches: list[Branch], keep_names=frozenset()) -> list[Branch]:
    """The branches split over the outcomes of every pending name the step reads (all of
    them when its reads are not known), but those in `keep_names` (which it consumes)."""
    wanted = _READS.get(step)
    if wanted is not None:
        wanted = wanted - keep_names if keep_names else wanted
        if not wanted:
            return branches   # it reads no name it could find pending
    out = []
    for b in branches:
        local = b.locals
        if wanted is not None and all(local.get(n).__class__ is not Pending for n in wanted):
            out.append(b)     # (the usual case, checked by the few names the step reads)
            continue
        names = [k for k, v in local.items() if v.__class__ is Pending
                 and (wanted is None or k in wanted) and k not in keep_names]
        if not names:
            out.append(b)
            continue
        out.extend(split(b, names, step.loc))
    return out


def split(b: Branch, names, loc=None) -> list[Branch]:
    """`b` forked over every combination of the pending `names`' outcomes (counted
    against the exact-work budget before any is made)."""
    dists = [b.locals[n].dist for n in names]
    spend_work(b.run, _size(dists), loc)
    out = []
    for p, values in product(dists):
        child = b.fork(None if p == 1 else p, False)
        for n, v in zip(names, values):
            child.locals[n] = v
        out.append(child)
    return out


def with_kept(b: Branch, names) -> Scope:
    """The branch's scope with the pending names as their distributions (arithmetic)."""
    local = dict(b.locals)
    for n in names:
        local[n] = local[n].plain()
    return Scope(local, b.globals, b.world)


def split_condition(step, b: Branch, names):
    """(value, child branch) for each outcome of the if's condition in `b`, the pending
    `names` it consumes summed out and gone from the children (never read again)."""
    for value, p in condition_split(step, b, names):
        child = b.fork(None if p == 1 else p, False)
        for name in names:
            del child.locals[name]
        yield value, child


def condition_split(step, b: Branch, names) -> list:
    """(value, probability) of `step.cond` in branch `b` with the pending `names` summed
    out, worked out once per enumeration for each set of the other names' values."""
    cond = step.cond
    key = _split_key(cond, b, names)
    kept = b.run.pure.get(_SPLITS)
    if kept is None:
        kept = b.run.pure[_SPLITS] = {}
    if key is not None and key in kept:
        return kept[key]
    totals: dict = {}
    dists = [b.locals[n].dist for n in names]
    spend_work(b.run, _size(dists), step.loc)   # one test per combination of the rolls
    local = dict(b.locals)
    scope = Scope(local, b.globals, b.world)
    if _read_once(cond, names):
        # each roll read once, by operations that see a roll as the face it shows: the
        # condition with the rolls as independent distributions is the same sum over
        # their faces, worked out in one evaluation
        for n in names:
            local[n] = b.locals[n].dist
        got = exact(cond, scope)
        total = got.total
        found = [(value, Fraction(w, total)) for value, w in got.items()]
        if key is not None and len(kept) < 4096:
            kept[key] = found
        return found
    for p, values in product(dists):
        for n, v in zip(names, values):
            local[n] = v
        got = exact(cond, scope)
        total = got.total
        for value, w in got.items():
            totals[value] = totals.get(value, 0) + p * Fraction(w, total)
    found = list(totals.items())
    if key is not None and len(kept) < 4096:
        kept[key] = found
    return found


# (condition, names) -> whether each name is read once, by the operations of _ONCE_NODES
_ONCE: dict = {}
_ONCE_NODES = (Binary, Unary, Num, Bool, Name, Dice)
_ONCE_OPS = _ARITHMETIC | {"and", "or", "not"}


def _read_once(cond, names) -> bool:
    """Whether `cond` reads each of `names` once only, through arithmetic, comparisons
    and and / or / not (whose meaning on a bound roll is its face's, outcome by outcome:
    lang values' RolledDice), so that evaluating it with the rolls as distributions
    gives the sum over their faces (they are independent of all else in the branch)."""
    key = (id(cond), names)
    found = _ONCE.get(key)
    if found is None:
        counts: dict = {}
        found = True
        for node in walk(cond):
            if not isinstance(node, _ONCE_NODES) or \
                    isinstance(node, (Binary, Unary)) and node.op not in _ONCE_OPS:
                found = False
                break
            if isinstance(node, Name):
                counts[node.id] = counts.get(node.id, 0) + 1
        found = found and all(counts.get(n) == 1 for n in names)
        _ONCE[key] = found
        _HELD.append(cond)
    return found


def _size(dists) -> int:
    size = 1
    for d in dists:
        size *= len(d)
    return size


_PLAIN_VALUES = frozenset({int, str, bool, float, Fraction, type(None)})


def _split_key(cond, b: Branch, names):
    parts = []
    local = b.locals
    for n in sorted(_READS_OF_COND.get(id(cond)) or _cond_names(cond)):
        if n not in local:
            return None   # a global, the world's: not keyed
        v = local[n]
        if v.__class__ is Pending:
            parts.append((n, "pending", v))   # equal by its key, hashed once
        elif v.__class__ in _PLAIN_VALUES:
            parts.append((n, v.__class__, v))
        else:
            return None
    return (id(cond), tuple(parts))


_READS_OF_COND: dict = {}


def _cond_names(cond):
    names = frozenset(free_names(cond))
    _READS_OF_COND[id(cond)] = names
    _HELD.append(cond)
    return names


_HELD: list = []
