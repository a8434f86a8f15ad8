"""The calls half of the expression writer (see `codegen`): a built-in function, an
action, a procedure (at once, or answered from its memo when its result depends on its
arguments alone), a table's steps cell, each as Python source."""
from __future__ import annotations

import keyword

from ..expr.functions import FUNCTIONS
from ..lang.ast import Call, Name, Num, Text
from ..limits import MAX_CALL_DEPTH
from ..state.actions import ACTIONS, Action
from .gen_facts import remembered


class HandsNames(Exception):
    """Raised while writing a comprehension's item or condition when it would hand the
    rule's names to something else (a context, a frame, a table cell), which would not
    see the comprehension's variable: the comprehension is then left to its closure."""


class CallWriter:
    """What `ExpressionWriter` writes for a call (a mixin: it uses the writer's `expr`,
    `const`, `var` and the names it keeps)."""

    def _e_Call(self, node):
        if self.reusing is not None and _same_reading(node, self.reusing[0], self.bound):
            # what the choose just before read with the same names, nothing having
            # changed the game since (see `StepWriter._choose`); a copy is not needed,
            # as nothing else holds that list
            held = self.reusing[1]
            self.reusing = None
            return f"({held} if {held}.__class__ is list else {self._called(node)})"
        return self._called(node)

    def _called(self, node):
        fn = FUNCTIONS.get(node.func)
        if fn is not None and not node.kwargs and node.func in ("min", "max") \
                and len(node.args) == 2:
            # of two whole numbers, the one the function gives (the first of equals)
            # at once; anything else through the function
            a, b = f"_x{next(self.counter)}", f"_y{next(self.counter)}"
            op = "<" if node.func == "min" else ">"
            return (f"(({b} if {b} {op} {a} else {a}) if (({a} := {self.expr(node.args[0])})"
                    f".__class__ is int) & (({b} := {self.expr(node.args[1])}).__class__ is int) "
                    f"else {self.const(fn, 'F')}({a}, {b}))")
        if fn is not None and not node.kwargs and node.func in ("min", "max") \
                and len(node.args) == 1:
            # of a list of whole numbers, Python's own min or max of it (what the
            # function gives it); anything else through the function.  A list made here
            # is tested for whole numbers as it is weighed (`made`): that flag, reset
            # before the list is made, says so
            a, flag = f"_x{next(self.counter)}", f"_wh{next(self.counter)}"
            self.whole_flags[id(node.args[0])] = flag
            listed = self.expr(node.args[0])
            whole = f"_WHOLE.issuperset(map(type, {a}))"
            reset = ""
            if self.whole_flags.pop(id(node.args[0]), None) is None:   # taken by `made`
                whole, reset = flag, f"not ({flag} := False) and "
            return (f"({self.const(min if node.func == 'min' else max, 'F')}({a}) if "
                    f"{reset}({a} := {listed}).__class__ is list and {a} and "
                    f"{whole} else {self.const(fn, 'F')}({a}))")
        if fn is not None and not node.kwargs and node.func == "contains" \
                and len(node.args) == 2:
            # a plain value in a list: Python's `in` at once (what the function does
            # with a list, `plain(item) in collection`); anything else through it
            o, i = f"_o{next(self.counter)}", f"_i{next(self.counter)}"
            return (f"(({i} in {o}) if (({o} := {self.expr(node.args[0])}).__class__ is list) & "
                    f"(({i} := {self.expr(node.args[1])}).__class__ in _SCALAR) "
                    f"else {self.const(fn, 'F')}({o}, {i}))")
        if fn is not None and not node.kwargs:
            return f"{self.const(fn, 'F')}({', '.join(self.expr(a) for a in node.args)})"
        args = [self.expr(a) for a in node.args]
        kwargs = [(k, self.expr(v)) for k, v in node.kwargs]
        loc = self.const(node.loc, "P")
        if node.func in self.locals:   # a name bound to a procedure or action
            return (f"_callable({self.var(node.func)}, {node.func!r}, {loc}).dsl_call("
                    f"[{', '.join(args)}], {{{', '.join(f'{k!r}: {v}' for k, v in kwargs)}}}, "
                    f"{loc}, {self.CTX})")
        target = self.constants.get(node.func)
        if getattr(target, "runs_cells", False) and len(args) == 1 and not kwargs:
            if self.bound:   # a cell runs on the caller's names, which it would see
                raise HandsNames
            return (f"{self.const(target, 'T')}.run_fast({args[0]}, {self.L}, G, W, rng, depth, "
                    f"{loc}, "
                    f"{self.const(self.constants, 'G')})")
        if type(target) is Action and target.positional is not None:
            call = self._positional(target, args, kwargs, loc)
            if call is not None:
                return call
        if type(target) is Action:
            named = ", ".join(f"{k}={v}" if k.isidentifier() and not keyword.iskeyword(k)
                              else f"**{{{k!r}: {v}}}" for k, v in kwargs)
            world = f"(W or _no_world({self.const(target, 'T')}, {loc}))"
            every = ", ".join([world, "None", loc] + args + ([named] if named else []))
            return f"{self.const(target.fn, 'A')}({every})"
        listed = "[" + ", ".join(args) + "]"
        named = "{" + ", ".join(f"{k!r}: {v}" for k, v in kwargs) + "}"
        if getattr(target, "call_fast", None) is not None and not getattr(target, "dsl_procedure", False):
            # destroy() with its hooks (run/destruction.py): called without a context
            if getattr(target, "call_one", None) is not None and len(args) == 1 and not kwargs:
                return f"{self.const(target, 'T')}.call_one({args[0]}, W, rng, depth, {loc})"
            kw = named if kwargs else "None"
            return f"{self.const(target, 'T')}.call_fast({listed}, {kw}, W, rng, depth, {loc})"
        if getattr(target, "dsl_procedure", False):
            defaults = _plain_defaults(target, len(args)) if not kwargs else None
            if defaults is not None and remembered(target):
                return self._remembered_call(target, args, defaults, loc)
            if defaults is not None:
                # its body, called at once with a dict of the arguments and the plain
                # defaults of the parameters left out (as `call_body` binds them)
                bound = ", ".join([f"{p!r}: {a}" for p, a in zip(target.params, args)] +
                                  [f"{p!r}: {value!r}" for p, value in defaults])
                t, g = self.const(target, "T"), self.const(target.ruleset.globals, "G")
                return (f"((_r if (_r := ({t}._body or {t}.body())({{{bound}}}, W, rng, depth + 1, "
                        f"{g})) is not _NO_RETURN else None) if depth < {MAX_CALL_DEPTH} "
                        f"else {t}.call_fast({listed}, None, W, rng, depth, {loc}))")
            kw = named if kwargs else "None"
            return f"{self.const(target, 'T')}.call_fast({listed}, {kw}, W, rng, depth, {loc})"
        if target is not None:
            return f"{self.const(target, 'T')}.dsl_call({listed}, {named}, {loc}, {self.CTX})"
        return (f"_callee({self.L}, G, {node.func!r}, {loc}).dsl_call({listed}, {named}, {loc}, "
                f"{self.CTX})")

    def written_out(self, node) -> list[str] | None:
        """A call step's statements with its commonest case written out, or None: a
        first status given by `apply(u, "name", turns=N, starting=...)` of literals to a
        unit of this world holding none, and `destroy(u)` of a unit of this world, of a
        declared kind with no `on: destroyed`, holding no status, outside a simultaneous
        phase -- both without a transcript, and `u` a name of the rule's own (read with no
        error).  Each does what the action does there (state/actions.py `_give_status`,
        `_destroy`, through run/destruction.py `Destroy.call_one`); any other case is the
        call as before."""
        if not isinstance(node, Call) or node.func in FUNCTIONS or node.func in self.locals \
                or node.func in self.bound or not node.args or not isinstance(node.args[0], Name) \
                or node.args[0].id not in self.locals:
            return None
        target = self.constants.get(node.func)
        unit = self.var(node.args[0].id)
        if target is ACTIONS["apply"]:
            given = self._literal_status(node)
            return None if given is None else self._first_status(node, unit, *given)
        kind = self.units.get(node.args[0].id)
        if getattr(target, "call_one", None) is not None and target.name == "destroy" \
                and len(node.args) == 1 and not node.kwargs and kind is not None \
                and "destroyed" not in kind.hooks:
            return [f"if (_o := {unit}).__class__ is _Unit and _o.kind is {self.const(kind, 'K')} "
                    f"and not _o.statuses and W is not None and W.doomed is None and not W.record "
                    f"and W.units.get(_o.uid) is _o:",
                    "    if not (_fd := _o.fields).get('destroyed', False):",
                    "        _o.changed = True",
                    "        _fd['destroyed'] = True",
                    "else:",
                    f"    {self.expr(node)}"]
        return None

    @staticmethod
    def _literal_status(node):
        """(status, turns, starting) of `apply(u, "name", turns=N, starting=...)` when each
        is a literal the action takes as it is (a whole number of turns, not negative;
        "now" or "next turn"); None otherwise (extra values, anything computed)."""
        given = dict(zip(("status", "turns", "starting"), node.args[1:]))
        if len(node.args) > 4 or len(node.args) < 2:
            return None
        for key, value in node.kwargs:
            if key not in ("turns", "starting") or key in given:
                return None
            given[key] = value
        status, turns, starting = given["status"], given.get("turns"), given.get("starting")
        if not isinstance(status, Text) or (turns is not None and not (
                isinstance(turns, Num) and turns.value.__class__ is int and turns.value >= 0)) \
                or (starting is not None and not (isinstance(starting, Text)
                                                  and starting.value in ("now", "next turn"))):
            return None
        return (status.value, None if turns is None else turns.value,
                "now" if starting is None else starting.value)

    def _first_status(self, node, unit: str, status: str, turns, starting: str) -> list[str]:
        """`apply` giving a unit its first status, as `_give_status` does then (a new
        Status of the world's definition, the world's next serial, the unit's statuses
        a list of it); else the call."""
        begins = "_t" if starting == "now" else "_t + 1"
        return [f"if (_o := {unit}).__class__ is _Unit and not _o.statuses and W is not None "
                f"and not W.record and W.units.get(_o.uid) is _o and "
                f"(_d := W.ruleset.statuses.get({status!r})) is not None:",
                "    _s = _new_status(_Status)",
                f"    _s.name = {status!r}",
                "    _s.definition = _d",
                f"    _s.turns_left = {turns!r}",
                "    _s.applied_turn = _t = W.turn",
                "    _s.data = {}",
                f"    _s.active_from = {begins}",
                "    _s.started = False",
                "    W.serial += 1",
                "    _s.serial = W.serial",
                "    _o.statuses = [_s]",
                "else:",
                f"    {self.expr(node)}"]

    def remembered_parts(self, node) -> tuple[str, str] | None:
        """For `let x = f(...)` of a remembered procedure (see `_remembered_call`): the
        condition under which the memo answers (leaving its entry in `_rm`) and the call
        made otherwise, so that the statement spends the steps by a plain `-=`; None
        for any other expression."""
        if not isinstance(node, Call) or node.kwargs or node.func in FUNCTIONS \
                or node.func in self.locals or node.func in self.bound:
            return None
        target = self.constants.get(node.func)
        if not getattr(target, "dsl_procedure", False) or not remembered(target):
            return None
        defaults = _plain_defaults(target, len(node.args))
        if defaults is None:
            return None
        return self._remembered(target, [self.expr(a) for a in node.args], defaults,
                                self.const(node.loc, "P"))

    def _remembered_call(self, target, args: list, defaults: list, loc: str) -> str:
        condition, miss = self._remembered(target, args, defaults, loc)
        return f"((_WORK.__setitem__(0, _WORK[0] - _rm[1]) or _rm[0]) if {condition} else {miss})"

    def _remembered(self, target, args: list, defaults: list, loc: str) -> tuple[str, str]:
        """A call of a procedure whose result depends on its arguments alone
        (`gen_facts.remembered`), answered from its memo when an earlier call with
        arguments of the same classes and values was kept: the steps that call spent
        are spent again, in one go, when the budget holds them all and the call depth
        allows the call (a real call could then not stop on the way); else the call is
        made (`gen_runtime.recall`), which stops, fails or is kept as it happens.  The
        arguments are evaluated once, in order; the defaults left out are literals."""
        t = self.const(target, "T")
        recalled = target.__dict__.setdefault("_recall", {})
        held = [f"_p{next(self.counter)}" for _ in args]
        values = held + [repr(value) for _, value in defaults]
        values_t = "(" + "".join(f"{v}, " for v in values) + ")"
        # the classes the parameters declare (a number: a whole one), the defaults' own:
        # arguments of exactly those are looked up at once in the answers kept under
        # them (`recall` keeps them there); any others under their own classes
        declared = [_DECLARED.get(p.type) for p in target.params.values()][:len(args)]
        expected = tuple(declared) + tuple(type(value) for _, value in defaults)
        if all(declared):
            kept = self.const(recalled.setdefault(expected, {}), "R")
            tests = " & ".join(f"(({p} := {a}).__class__ is {self.const(c, 'K')})"
                               for p, a, c in zip(held, args, declared))
            found = (f"({tests} and (_rm := {kept}.get({values_t})) is not None or "
                     f"(_rd := {t}._recall.get({self._classes_again(held, defaults)})) is not None "
                     f"and (_rm := _rd.get({values_t})) is not None)")
        else:
            classes = [f"({p} := {a}).__class__" for p, a in zip(held, args)]
            classes += [self.const(type(value), "K") for _, value in defaults]
            classes_t = "(" + "".join(f"{c}, " for c in classes) + ")"
            found = (f"(_rd := {t}._recall.get({classes_t})) is not None "
                     f"and (_rm := _rd.get({values_t})) is not None")
        condition = f"{found} and _WORK[0] >= _rm[1] and depth < {MAX_CALL_DEPTH}"
        miss = (f"_recall({t}, {self._classes_again(held, defaults)}, {values_t}, W, rng, "
                f"depth, {loc})")
        return condition, miss

    def _classes_again(self, held: list, defaults: list) -> str:
        """The classes of the arguments already held (the condition evaluated them)."""
        parts = [f"{p}.__class__" for p in held]
        parts += [self.const(type(value), "K") for _, value in defaults]
        return "(" + "".join(f"{c}, " for c in parts) + ")"

    def _positional(self, action, args, kwargs, loc):
        """An action called with its values in place (see `Action.positional`), when the
        call's arguments can be put there without changing the order they are
        evaluated in; else None (the call goes through the usual keywords)."""
        fn, names, defaults = action.positional
        if len(args) > len(names):
            return None
        values = dict(zip(names, args))
        extra = []
        last = len(args) - 1
        for key, value in kwargs:
            if key in names and not extra and key not in values and names.index(key) > last:
                values[key] = value
                last = names.index(key)
            elif key not in names:
                extra.append((key, value))
            else:
                return None
        if any(n not in values and n not in defaults for n in names):
            return None
        placed = [values[n] if n in values else repr(defaults[n]) for n in names]
        data = "{" + ", ".join(f"{k!r}: {v}" for k, v in extra) + "}"
        world = f"(W or _no_world({self.const(action, 'T')}, {loc}))"
        return f"{self.const(fn, 'A')}({', '.join([world, loc] + placed + [data])})"


def _same_reading(node, held, bound) -> bool:
    """Whether a call is `held` again: the same function of the same names, none of
    them a comprehension's variable here."""
    return (node.func == held.func and not node.kwargs and len(node.args) == len(held.args)
            and all(isinstance(a, Name) and a.id == b.id and a.id not in bound
                    for a, b in zip(node.args, held.args)))


_PLAIN_DEFAULTS = (int, str, bool, type(None))
# the class of an argument of each parameter type that a remembered call looks up at once
_DECLARED = {"integer": int, "number": int, "text": str, "boolean": bool}


def _plain_defaults(procedure, given: int):
    """(name, default) of the parameters a call with `given` positional arguments leaves
    out, when each has a default that is a plain value (written as a literal: what
    `bind_arguments` binds, since copying a plain value gives itself); None when the
    call gives too many, or leaves out one that is required or has a record or list
    default (then `call_fast` binds them, or says what is missing)."""
    params = list(procedure.params.items())
    if given > len(params):
        return None
    rest = params[given:]
    if any(p.required or p.default.__class__ not in _PLAIN_DEFAULTS for _, p in rest):
        return None
    return [(name, p.default) for name, p in rest]
