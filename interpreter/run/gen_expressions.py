"""The expression half of the code generator (see `codegen`): Python source for one
DSL expression, and the state a body's writer keeps (its constants, where each name
lives, the views of unit parameters)."""
from __future__ import annotations

import itertools

from ..expr.sampled import compile_sampler
from ..expr.functions import FUNCTIONS
from ..lang.ast import (Attr, Binary, Bool, Call, Dice, Index, ListExpr, Name, Node, Num, Text,
                        Unary, walk)
from ..lang.steps import LetStep, Step
from ..tables.model import Table
from ..tables.rows import varies
from .gen_calls import CallWriter, HandsNames
from .gen_facts import COMPARISONS, changes_nothing, compiled_steps, inline_die

__all__ = ["ExpressionWriter", "HandsNames"]


# ------------------------------------------------------------------ the writer


class ExpressionWriter(CallWriter):
    """Generates the source of one body, collecting the constants it needs: the
    expressions here, the calls in `CallWriter`, the statements in `StepWriter`."""

    def __init__(self, local_names: set[str], units=frozenset(), constants=None,
                 plain_dice=frozenset(), own_variables=False, shared=frozenset()):
        self.lines: list[str] = []
        self.consts: dict = {}
        self.counter = itertools.count()
        self.locals = local_names        # names always bound when read (see `var`)
        self.units = units               # parameters that always hold a unit: their kinds
        self.constants = constants or {}  # global names no step can rebind: their values
        self.plain_dice = plain_dice     # names holding a single die's face as a plain int
        self.plain_tuple = self.const(tuple(sorted(plain_dice)), "N")
        # With own_variables, the rule's names are Python variables of the body (`_n0`
        # ...), except the `shared` ones, which stay in L for the table cells run on it
        # (and for the helpers that read L: lookups of other names, table contexts).
        # Whatever needs every name in L (a frame or context for a Step or a closure)
        # sets needs_names, and the caller writes the body again without variables.
        self.own_variables = own_variables
        self.shared = shared
        self.needs_names = False
        self.variables = {name: f"_n{i}" for i, name in enumerate(sorted(local_names))}
        self.names_back = self.const({v: k for k, v in self.variables.items()}, "M")
        # A unit's fields, read straight from its dict while it has no status and no
        # equipment (and is of the declared kind, whose fields the dict surely has):
        # `_w0` holds that dict, or a `_UnitReader`, for each unit parameter.  Only a
        # call can change a unit's statuses, so a view is refreshed before a statement
        # that reads it if a call may have run since (`stale`); statements that call
        # anything themselves read units the long way (`views_usable`).
        self.views = {u: f"_w{i}" for i, u in enumerate(sorted(units))}
        self.stale = set(self.views)
        self.changed_yet = False   # whether a statement written may have changed a unit
        self.entry_views: dict = {}   # views made before that: view -> its parameter
        self.views_usable = False
        self.wanted: set = set()
        self.rows: set = set()   # names surely holding a ConstantRow (see find_rows)
        # the variables of the comprehensions being written: DSL name -> Python variable
        self.bound: dict = {}
        self.item_views: dict = {}   # a comprehension variable -> its item's view
        # a choose's options read from a game-reading action (`from: enemies(unit)`),
        # held for the statement right after it (see `StepWriter._choose`), and, while
        # that statement's own expressions are written, the same call to give it
        self.options_held = None
        self.reusing = None
        # lists whose weighing also tells `min`/`max` of them whether they are whole
        # numbers (see `made`): the node -> the flag's variable
        self.whole_flags: dict = {}

    @property
    def FRAME(self) -> str:
        if self.bound:
            raise HandsNames
        self.needs_names = True
        return "(_fr or (_fr := _frame(L, G, W, rng, depth)))"

    @property
    def CTX(self) -> str:
        if self.bound:
            raise HandsNames
        self.needs_names = True
        return "(_cx or (_cx := _context(L, G, W, rng, depth)))"

    L = "L"

    def var(self, name: str) -> str:
        """Where a local name lives: a Python variable or an entry of L."""
        if self.own_variables and name not in self.shared:
            return self.variables[name]
        return f"L[{name!r}]"

    def const(self, value, prefix="K") -> str:
        name = f"{prefix}{next(self.counter)}"
        self.consts[name] = value
        return name

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    # ------------------------------------------------------------------ expressions
    def expr(self, node: Node) -> str:
        method = getattr(self, f"_e_{type(node).__name__}", None)
        if method is None:
            return self._closure(node)
        return method(node)

    def _closure(self, node: Node) -> str:
        """An expression the writer leaves to the closure evaluator, given a context."""
        return f"{self.const(compile_sampler(node, False), 'C')}({self.CTX})"

    def _e_Num(self, node):
        return repr(node.value) if type(node.value) is int else self.const(node.value)

    def _e_Text(self, node):
        return repr(node.value)

    def _e_Bool(self, node):
        return "True" if node.value else "False"

    def _e_Dice(self, node):
        inline = inline_die(node)
        if inline is not None:
            return inline if inline[0] == "(" else inline.replace("FACES", self.const(node.spec.faces))
        return f"{self.const(node.spec.sampler(False), 'D')}(rng)"

    def _e_Name(self, node):
        if node.id in self.bound:
            return self.bound[node.id]
        if node.id in self.locals:
            return self.var(node.id)
        if node.id in self.constants:
            return self.const(self.constants[node.id], "G")
        n = repr(node.id)
        return f"({self.L}[{n}] if {n} in {self.L} else _name(L, G, W, {n}, {self.const(node.loc, 'P')}))"

    def _e_Attr(self, node):
        if isinstance(node.obj, Name) and node.obj.id in self.bound:
            item = self.bound[node.obj.id]
            if node.name in _UNIT_OWN:
                return self._unit_own(node, item)
            view = self.item_views.get(item)
            if view is not None:   # the item's view, taken as the item was reached
                n = repr(node.name)
                return f"({view}[{n}] if {n} in {view} else _attr({item}, {n}, {self.const(node.loc, 'P')}))"
            return self._record_field(node)   # a comprehension's variable: any value
        if isinstance(node.obj, Name) and node.obj.id in self.plain_dice \
                and node.name in ("natural", "total"):
            return self.var(node.obj.id)
        if isinstance(node.obj, Name) and node.obj.id in self.units and self.views_usable:
            self.wanted.add(node.obj.id)
            w, n = self.views[node.obj.id], repr(node.name)
            if node.name in self._stored(node.obj.id):   # in every view of that kind
                return f"{w}[{n}]"
            return f"({w}[{n}] if {n} in {w} else {self.var(node.obj.id)}.dsl_attr({n}))"
        if isinstance(node.obj, Name) and node.obj.id in self.units:
            # what Unit.dsl_attr gives when no status or equipment can change the field
            n = repr(node.name)
            return (f"(_f[{n}] if not (_u := {self.var(node.obj.id)}).statuses and {n} in "
                    f"(_f := _u.fields) and 'equipment' not in _f else _u.dsl_attr({n}))")
        n = repr(node.name)
        column = self._plain_column(node)
        if column is not None:
            return column
        if self._row_of_constant_table(node.obj) or \
                (isinstance(node.obj, Name) and node.obj.id in self.rows):
            # a ConstantRow: its plain cells are a dict
            return (f"(_a.values[{n}] if {n} in (_a := {self.expr(node.obj)}).values "
                    f"else _attr(_a, {n}, {self.const(node.loc, 'P')}))")
        return self._record_field(node)

    def _unit_own(self, node, item: str) -> str:
        """`u.kind`, `u.name`, `u.side` of a comprehension's item (`[u for u in units if
        u.kind == "jug"]`): a unit's own, as `Unit.dsl_attr` answers them when no status
        can change them and no field has the name; anything else what `_attr` gives."""
        n = repr(node.name)
        own = {"kind": "(_k.name if (_k := _a.kind) is not None else None)",
               "name": "_a.name", "side": "_a._side"}[node.name]
        return (f"({own} if (_a := {item}).__class__ is _Unit and not _a.statuses and "
                f"{n} not in _a.fields else _attr(_a, {n}, {self.const(node.loc, 'P')}))")

    def _record_field(self, node) -> str:
        """A record's field (or a plain unit's) at once, else what `_attr` gives (a miss
        raises KeyError, and the Step then explains it)."""
        n = repr(node.name)
        # a unit (`m.group` over a side's units): its field at once when no status or
        # equipment can change it, as Unit.dsl_attr gives it; a constant table's row
        # (a procedure's parameter `weapon.range`) its plain cell, as ConstantRow.dsl_attr
        return (f"(_a[{n}] if (_a := {self.expr(node.obj)}).__class__ is dict "
                f"else _f[{n}] if _a.__class__ is _Unit and not _a.statuses and {n} in "
                f"(_f := _a.fields) and 'equipment' not in _f "
                f"else _a.values[{n}] if _a.__class__ is _ConstantRow and {n} in _a.values "
                f"else _attr(_a, {n}, {self.const(node.loc, 'P')}))")

    def _plain_column(self, node) -> str | None:
        """`t[key].column` of a table that is not constant (formula cells elsewhere:
        `equipment_items` with `weapon: "=standard_weapons[1]"`) but whose rows all
        hold that column as plain values: the cell remembered per key (`_column`), or
        None to read it the long way."""
        obj = node.obj
        if not (isinstance(obj, Index) and isinstance(obj.obj, Name)
                and obj.obj.id not in self.locals and obj.obj.id not in self.bound):
            return None
        table = self.constants.get(obj.obj.id)
        if type(table) is not Table or table.constant \
                or table.mode not in ("die", "band", "name") or table.index is None \
                or table.unhandled or not table.rows \
                or any(r.cells is None or varies(r.cells.get(node.name)) for r in table.rows):
            return None
        memo, t = self.const({}, "M"), self.const(table, "G")
        index_loc, attr_loc = self.const(obj.loc, "P"), self.const(node.loc, "P")
        return (f"(_h if (_k := {self.expr(obj.key)}).__class__ in _MEMO_KEYS and "
                f"(_h := {memo}.get(_k)) is not None else _column({memo}, {t}, _k, "
                f"{node.name!r}, {index_loc}, {attr_loc}, {self.L}, G, W, rng, depth))")

    def _row_of_constant_table(self, node) -> bool:
        """Whether `node` is a lookup that surely gives a `ConstantRow`: a constant table
        (see `_e_Index`) every row of which has columns."""
        if not (isinstance(node, Index) and isinstance(node.obj, Name)
                and node.obj.id not in self.locals and node.obj.id not in self.bound):
            return False
        table = self.constants.get(node.obj.id)
        return getattr(table, "constant", False) and all(r.cells is not None for r in table.rows)

    def find_rows(self, steps: list[Step], counts: dict) -> None:
        """The names every binding of which is a lookup giving a ConstantRow."""
        lets: dict = {}
        for step in compiled_steps(steps):
            if type(step) is LetStep and self._row_of_constant_table(step.node):
                lets[step.name] = lets.get(step.name, 0) + 1
        self.rows = {name for name, n in lets.items() if counts.get(name) == n}

    def _e_Index(self, node):
        loc = self.const(node.loc, "P")
        if isinstance(node.obj, Name) and node.obj.id not in self.locals \
                and node.obj.id not in self.bound:
            table = self.constants.get(node.obj.id)
            if getattr(table, "constant", False):   # the memo first, then `_table`
                t = self.const(table, "G")
                return (f"(_h if (_k := {self.expr(node.key)}).__class__ in _MEMO_KEYS and "
                        f"(_h := {t}._memo.get(_k)) is not None else _table({t}, _k, {loc}))")
            if type(table) is Table and table.mode in ("die", "band", "name") \
                    and table.index is not None and not table.unhandled:
                return self._found_row(table, node, loc)
        # a record's field by a text key, or a list's item by a whole number in 1..len,
        # at once (what `_index` does with them); both sides are evaluated, in order,
        # before either is looked at
        o, k = f"_o{next(self.counter)}", f"_k{next(self.counter)}"
        return (f"({o}[{k}] if (({o} := {self.expr(node.obj)}).__class__ is dict) & "
                f"(({k} := {self.expr(node.key)}).__class__ is str) and {k} in {o} "
                f"else {o}[{k} - 1] if {o}.__class__ is list and {k}.__class__ is int "
                f"and 0 < {k} <= len({o}) "
                f"else _index({o}, {k}, {loc}, {self.L}, G, W, rng, depth))")

    def _found_row(self, table, node, loc: str) -> str:
        """`t[key]` of a table with formula cells (`equipment_items[e.item]`): a key
        looked up before gives its row again with the run's dice, as the lookup does
        without a transcript (`RolledRow(row, ctx)`, whose cells read only the context's
        dice); anything else the full lookup (`_found_row`, which remembers the row)."""
        memo, t = self.const({}, "M"), self.const(table, "G")
        return (f"(_RolledRow(_h, _Context(None, rng)) if (_k := {self.expr(node.key)})"
                f".__class__ in _MEMO_KEYS and (_h := {memo}.get(_k)) is not None else "
                f"_found_row({memo}, {t}, _k, {loc}, {self.L}, G, W, rng, depth))")

    def _e_ListExpr(self, node):
        """A list literal; one holding anything but literals is weighed as it is made
        (expr/sizes.py: `s = [s, s]` doubles what it holds)."""
        listed = "[" + ", ".join(self.expr(i) for i in node.items) + "]"
        if all(isinstance(i, (Num, Text, Bool)) for i in node.items):
            return listed
        return self.made(listed, self.const(node.loc, "P"), node)

    def made(self, source: str, loc: str, node=None) -> str:
        """A list just made, weighed as `sizes.made` weighs it: one shorter than
        LARGE_VALUE holding only items that are no text or container passes at once
        (the same test, written out); anything else goes to `made`.  A list `min` or
        `max` is taken of (`whole_flags`) is first tested for whole numbers only, which
        are no text or container either, and the flag says so: one test of its items,
        not two."""
        m = f"_m{next(self.counter)}"
        flag = self.whole_flags.pop(id(node), None) if node is not None else None
        flat = f"_FLAT.issuperset(map(type, {m}))"
        if flag is not None:
            flat = f"(({flag} := _WHOLE.issuperset(map(type, {m}))) or {flat})"
        return f"({m} if len({m} := {source}) < _LARGE and {flat} else _made({m}, {loc}))"

    def _e_Comprehension(self, node):
        """`[item for var in source if cond]` as a Python list comprehension whose own
        variable shadows every other name, as the closure's `Bound` does (every shortcut
        keyed on a name -- a local's variable, a unit view, a plain die, a constant table
        -- first asks `bound`); the source is checked to be a list as the closure checks
        it.  Left to the closure when the variable is called, or when the item needs the
        rule's names handed on (see `HandsNames`)."""
        var = node.var
        inner = [node.item] + ([node.cond] if node.cond is not None else [])
        if any(isinstance(n, Call) and n.func == var for tree in inner for n in walk(tree)):
            return self._closure(node)
        source = self.expr(node.source)
        loc = self.const(node.source.loc, "P")
        saved, saved_views = dict(self.bound), self.item_views
        name = self.bound[var] = f"_c{next(self.counter)}"
        view = f"_iv{next(self.counter)}" if self._item_view(var, inner) else None
        self.item_views = {**saved_views, name: view} if view else saved_views
        try:
            item = self.expr(node.item)
            cond = ("" if node.cond is None else
                    f" if {self.truth(node.cond, self.const(node.cond.loc, 'P'))}")
        except HandsNames:
            self.bound = saved
            return self._closure(node)   # which raises again inside an outer comprehension
        finally:
            self.item_views = saved_views
        self.bound = saved
        # Python refuses `:=` in a comprehension's iterable: the list is taken first
        listed = f"_s{next(self.counter)}"
        made_at = self.const(node.loc, "P")   # a list too large is the comprehension's, as sampled
        taken = f" for {view} in ({_ITEM_VIEW.format(item=name)},)" if view else ""
        # the list's steps spent at once when the budget holds them (`_listed` spends
        # them, or stops, or gives the closure's error, otherwise)
        taking = (f"({listed} := {source}).__class__ is list and _WORK[0] >= len({listed}) "
                  f"and not _WORK.__setitem__(0, _WORK[0] - len({listed})) "
                  f"or ({listed} := _listed({listed}, {loc})) is not None")
        made = self.made(f"[{item} for {name} in {listed}{taken}{cond}]", made_at, node)
        return f"({made} if {taking} else None)"

    def _item_view(self, var: str, inner: list) -> bool:
        """Whether a comprehension's item and condition read fields of its variable
        and call nothing that could change a unit: then each item's fields are read
        from one view of it, taken when the item is reached (`_ITEM_VIEW`), as the
        statements read a unit parameter's."""
        reads = False
        for tree in inner:
            for n in walk(tree):
                if isinstance(n, Call) and not self._harmless(n):
                    return False
                if isinstance(n, Attr) and isinstance(n.obj, Name) and n.obj.id == var:
                    reads = True
        return reads

    def _harmless(self, call: Call) -> bool:
        """Whether a call surely changes no unit: a built-in function, a reading
        action, a procedure that calls nothing else (gen_facts.changes_nothing)."""
        if call.func in FUNCTIONS and not call.kwargs:
            return True
        if call.func in self.locals or call.func in self.bound:
            return False
        return changes_nothing(self.constants.get(call.func), set())

    def truth(self, node: Node, loc: str) -> str:
        """An operand of and/or/not/if: comparisons are booleans already."""
        if isinstance(node, Binary) and node.op in COMPARISONS + ("and", "or"):
            return self.expr(node)
        if isinstance(node, Unary) and node.op == "not":
            return self.expr(node)
        if isinstance(node, Bool):
            return self.expr(node)
        return f"(_b if (_b := {self.expr(node)}).__class__ is bool else _truth(_b, {loc}))"

    def _e_Unary(self, node):
        loc = self.const(node.loc, "P")
        if node.op == "not":
            return f"(not {self.truth(node.operand, loc)})"
        return f"(-{self.expr(node.operand)})"

    def _whole(self, node) -> bool:
        """Whether a value is surely a plain whole number (so `+ - *` need no Fraction
        check): literals, plain dice and the names holding them."""
        if isinstance(node, Num):
            return type(node.value) is int
        if isinstance(node, Dice):
            return True   # every dice term totals whole faces
        if isinstance(node, Name):
            return node.id in self.plain_dice and node.id not in self.bound
        if isinstance(node, Binary) and node.op in ("+", "-", "*"):
            return self._whole(node.left) and self._whole(node.right)
        return False

    def _e_Binary(self, node):
        loc = self.const(node.loc, "P")
        if node.op in ("and", "or"):
            return f"({self.truth(node.left, loc)} {node.op} {self.truth(node.right, loc)})"
        if node.op in ("+", "-") + COMPARISONS:
            # a whole Fraction inside a sum is made an int at its end; one compared is
            # compared as its int would be
            left, right = self._summand(node.left), self._summand(node.right)
        else:
            left, right = self.expr(node.left), self.expr(node.right)
        if node.op == "/":
            # whole numbers divide at once: the quotient of two numbers within the size
            # limit (every number made is) is within it too, so needs no size check
            a, b = f"_x{next(self.counter)}", f"_y{next(self.counter)}"
            if isinstance(node.right, Num) and type(node.right.value) is int and node.right.value:
                b = right   # a whole literal divisor, not 0: known to be an int
                return (f"(({a} // {b} if {a} % {b} == 0 else _F({a}, {b})) "
                        f"if ({a} := {left}).__class__ is int else _sized(_divide({a}, {b}), {loc}))")
            return (f"(({a} // {b} if {a} % {b} == 0 else _F({a}, {b})) "
                    f"if (({a} := {left}).__class__ is int) & (({b} := {right}).__class__ is int) "
                    f"and {b} else _sized(_divide({a}, {b}), {loc}))")
        if node.op in ("%", "**"):   # values.py's meaning (numbers only, exact powers)
            return f"{'_modulo' if node.op == '%' else '_power'}({left}, {right})"
        if node.op in ("+", "-", "*"):
            return self._normalised(node, self._apply(node, left, right))
        return f"({left} {node.op} {right})"

    def _apply(self, node, left: str, right: str) -> str:
        """`left op right`; a product of operands that may not be numbers goes through
        `_times`, which refuses a list repeated past the value limits before it is made."""
        if node.op == "*" and not (self._whole(node.left) and self._whole(node.right)):
            return f"_times({left}, {right})"
        return f"({left} {node.op} {right})"

    def _normalised(self, node, source: str) -> str:
        """Exact arithmetic gives a whole Fraction as an int, as the closures do, and a
        number past MAX_DIGITS digits is refused where it is made (`values.sized`).
        Literals, dice and plain dice need neither: what they make is bounded by the
        expression's own length (a product of long literals is checked all the same)."""
        if self._whole(node.left) and self._whole(node.right) and not (
                node.op == "*" and any(isinstance(n, Num) and abs(n.value) >= 2 ** 62
                                       for n in walk(node))):
            return source
        loc = self.const(node.loc, "P")
        if node.op == "+" and (isinstance(node.left, ListExpr) or isinstance(node.right, ListExpr)):
            # a list literal added to something is a list (or Python's TypeError, which
            # the Step explains): weighed as `_sized` weighs a list
            return self.made(source, loc, node)
        small = "(_v := {}).__class__ is int and _NBN < _v < _NB"
        if node.op == "*":   # text or lists times a number are refused (values.py)
            return f"(_v if {small.format(source)} else _sized(_product(_v), {loc}))"
        return f"(_v if {small.format(source)} else _sized(_normal(_v), {loc}))"

    def _summand(self, node) -> str:
        """An operand of + or -: a sum or product inside it needs no int conversion of
        its own (a whole Fraction adds as its int would, and any other operand that
        fails with one fails with the int too)."""
        if isinstance(node, Binary) and node.op in ("+", "-", "*"):
            if node.op == "*":
                left, right = self.expr(node.left), self.expr(node.right)
            else:
                left, right = self._summand(node.left), self._summand(node.right)
            return self._apply(node, left, right)
        return self.expr(node)

    def _e_LetExpr(self, node):
        """`let name = value in body`: the value bound to a variable of its own, which
        shadows every other name in the body as the closure's `Bound` does (the same
        `bound` a comprehension's variable uses), and the body's value a plain one (a
        roll as its total).  Left to the closure when the value is a bare dice term
        (its natural faces: `bind_sampler`) or the name is called."""
        if isinstance(node.value, Dice) or any(isinstance(n, Call) and n.func == node.name
                                               for n in walk(node.body)):
            return self._closure(node)
        value = self.expr(node.value)
        saved = dict(self.bound)
        name = self.bound[node.name] = f"_lv{next(self.counter)}"
        try:
            body = self.expr(node.body)
        except HandsNames:
            self.bound = saved
            return self._closure(node)   # which raises again inside an outer binding
        self.bound = saved
        kept = f"_lp{next(self.counter)}"
        return (f"({kept} if ({kept} := (({name} := {value}), {body})[1]).__class__ "
                f"not in _ROLLS else _plain({kept}))")

    def _e_IfExpr(self, node):
        return (f"({self.expr(node.then)} if {self.truth(node.cond, self.const(node.cond.loc, 'P'))} "
                f"else {self.expr(node.other)})")


# the names every unit answers from itself, not from its fields (`Unit.dsl_attr`)
_UNIT_OWN = ("kind", "name", "side")

# a comprehension item's view (see `_item_view`): a plain unit's fields (no status, no
# equipment: what Unit.dsl_attr gives for a field it stores), a record itself, else
# nothing, so that every read goes the long way (`_attr`); no `:=`, which Python refuses
# in a comprehension's `for`
_ITEM_VIEW = ("({item}.fields if {item}.__class__ is _Unit and not {item}.statuses and "
              "'equipment' not in {item}.fields else {item} if {item}.__class__ is dict else ())")
