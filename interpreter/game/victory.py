"""Victory checks remembered by who is still standing.

The victory conditions are checked after every phase and at the end of every turn, for
every side, and most of the time nothing they read has changed since the last check (a
phase in which nobody fell).  A condition whose only reads of the game are which units
are on which side and which are destroyed -- `count_alive(side)`, `enemies(side)`,
`alive(...)`, `side(...)`, `side.name`, counts and comparisons of those, the turn -- has
one answer for one such roster, so the answer of the whole check (the first condition
that holds, for the first side it holds for) is remembered by the roster alone.  A
ruleset with any condition reading more (a field, a comprehension over units, a score,
a procedure) is checked every time, as before.
"""
from __future__ import annotations

from operator import attrgetter, itemgetter

from ..lang.ast import Attr, Binary, Bool, Call, IfExpr, Name, Num, Text, Unary
from ..expr.functions import FUNCTIONS
from ..state.actions import ACTIONS
from ..state.roster import layout

# built-ins whose answer is read from the roster alone (state/actions.py)
ROSTER_ACTIONS = ("count_alive", "enemies", "alive", "side")
# pure functions of their values (expr/functions.py) a condition may apply to those
PURE_FUNCTIONS = ("count", "len", "min", "max", "abs")
NAMES = ("side", "turn")   # the names a victory check binds that such a condition may read

_FIELDS, _DESTROYED = attrgetter("fields"), itemgetter("destroyed")
REMEMBERED = 4096   # rosters remembered at most per ruleset before the memo starts again


def reads_roster_only(node, globals_: dict, names: set) -> bool:
    """Whether the expression's value follows from the roster, the side it is checked
    for and the turn: only literals, those names, `side.name`, operators and the
    built-ins above (not shadowed by a rule's own name).  The names it reads are added
    to `names`."""
    kind = node.__class__
    if kind in (Num, Text, Bool):
        return True
    if kind is Name:
        names.add(node.id)
        return node.id in NAMES
    if kind is Attr:
        return node.name == "name" and node.obj.__class__ is Name and node.obj.id == "side"
    if kind is Unary:
        return reads_roster_only(node.operand, globals_, names)
    if kind in (Binary, IfExpr, Call):
        if kind is Call:
            if node.kwargs:
                return False
            if node.func in PURE_FUNCTIONS:
                if FUNCTIONS.get(node.func) is None:
                    return False
            elif node.func not in ROSTER_ACTIONS or node.func in FUNCTIONS or \
                    globals_.get(node.func) is not ACTIONS[node.func]:
                return False
            parts = node.args
        elif kind is Binary:
            parts = (node.left, node.right)
        else:
            parts = (node.cond, node.then, node.other)
        return all([reads_roster_only(n, globals_, names) for n in parts])
    return False


class RosterMemo:
    """The answers of whole victory checks of one ruleset, by roster (`key`)."""

    def __init__(self, reads_turn: bool):
        self.reads_turn = reads_turn
        self.answers: dict = {}

    def key(self, world) -> tuple:
        """What a roster-only check can read: the sides in order, each unit's id and
        side (in the order of `units`: the roster's `layout`, made again only when the
        roster is), each one's `destroyed`, and the turn if a condition reads it.  Every
        unit stores `destroyed` (runs.make_unit), read here without a Python loop; two
        keys whose values differ but not in truth only keep two equal answers."""
        units = world.units
        try:
            destroyed = tuple(map(_DESTROYED, map(_FIELDS, units.values())))
        except KeyError:   # (a unit made without the field: read as not destroyed)
            destroyed = tuple([u.fields.get("destroyed", False) for u in units.values()])
        return (tuple(world.sides), world.turn if self.reads_turn else None, layout(world),
                destroyed)

    def remember(self, key, answer) -> None:
        if len(self.answers) >= REMEMBERED:
            self.answers.clear()
        self.answers[key] = answer


def memo_for(ruleset, conditions) -> RosterMemo | None:
    """The ruleset's memo of whole victory checks, or None when some condition (or
    winner) reads more than the roster.  `conditions` are `compiled_conditions`'s."""
    memo = ruleset.__dict__.get("_victory_memo", False)
    if memo is False:
        names: set = set()
        ok = bool(conditions) and all(
            reads_roster_only(v.when, ruleset.globals, names) and
            (v.winner is None or reads_roster_only(v.winner, ruleset.globals, names))
            for v, _, _, _ in conditions)
        memo = ruleset._victory_memo = RosterMemo("turn" in names) if ok else None
    return memo
