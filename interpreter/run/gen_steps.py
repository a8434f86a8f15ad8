"""The statement half of the code generator (see `codegen`): each step as Python
statements, guarded so that a Python error is explained by the Step itself."""
from __future__ import annotations

import re

from ..expr.sampled import bind_sampler
from ..expr.functions import FUNCTIONS
from ..lang.ast import Bool, Call, Dice, Name, Num, Text, walk
from ..state.actions import Action
from ..lang.steps import (AssignStep, CallStep, ChooseStep, EmitStep, ForStep, IfStep, LetStep,
                          ModifyStep, RepeatStep, ReturnStep, Step, all_steps)
from .gen_expressions import ExpressionWriter, HandsNames
from .gen_facts import written_by_us


class StepWriter(ExpressionWriter):
    """The writer of one body: statements on top of expressions."""

    guarded = False   # whether some statement is guarded (`_guarded`): the body has `handler`

    # ------------------------------------------------------------------ statements
    def steps(self, steps: list[Step], depth: int) -> None:
        self.options_held = self.reusing = None   # a choose's options: not across blocks
        if not steps:
            self.emit(depth, "pass")
            return
        # entering a block spends its steps, as `run_steps` does (see budget.py)
        self.emit(depth, f"_WORK[0] -= {len(steps)}")
        self.emit(depth, f"if _WORK[0] < 0: _exhausted({self.const(steps[0].loc, 'P')})")
        for step in steps:
            self.step(step, depth)
        self.options_held = self.reusing = None

    def _stored(self, unit: str) -> set:
        """The fields every unit of the parameter's declared kind stores."""
        kind = self.units.get(unit)
        return set(kind.stats) | set(kind.state) if kind is not None else set()

    def _refresh_views(self, depth: int) -> None:
        for unit in sorted(self.wanted & self.stale):
            u, kind = self.var(unit), self.units.get(unit)
            first = u
            if not u.isidentifier():   # an entry of L: read once
                first, u = f"(_u := {u})", "_u"
            same_kind = f" and {u}.kind is {self.const(kind, 'K')}" if kind is not None else ""
            # a view made before anything could change a unit is marked: a bulk run knows
            # its units then (see `codegen._root_lines`)
            entry = ""
            if not self.changed_yet:
                self.entry_views[self.views[unit]] = unit
                entry = "  # entry view"
            self.emit(depth, f"{self.views[unit]} = _f if not {first}.statuses{same_kind} and "
                             f"'equipment' not in (_f := {u}.fields) else _UnitReader({u}){entry}")
        self.stale -= self.wanted
        self.wanted = set()

    def _may_change_units(self, step: Step) -> bool:
        """Whether the statement itself (not its sub-steps) may call anything that
        changes a unit: a procedure, a changing action, a table cell's steps."""
        if not written_by_us(step):
            return True
        for tree in step.expressions():
            for node in walk(tree):
                if isinstance(node, Call) and not self._harmless(node):
                    return True
        return False

    def _guarded(self, step: Step, depth: int, lines: list[str]) -> None:
        """The statement's lines, each marked with its Step (`  #@S5`): the body's one
        handler (`handler`) finds the Step of a failing line by that mark, so no
        statement carries a handler of its own (each was about 180 bytes of bytecode)."""
        ref = self.const(step, "S")
        self._refresh_views(depth)
        for line in lines:
            self.emit(depth, f"{line}  #@{ref}")
        self.guarded = True

    def handler(self, depth: int) -> None:
        """The body's one `except`: a Python error on a line of a guarded statement is
        given to that statement's Step, which says it properly, located (`_fail`); one
        anywhere else, and a rulecraft error, goes on as it is.  `_STMT` (line -> Step)
        is made from the marks of the source that is compiled (`statement_lines`)."""
        self.emit(depth, "except _RulecraftError:")
        self.emit(depth + 1, "raise")
        self.emit(depth, "except Exception as _e:")
        self.emit(depth + 1, "if (_s := _STMT.get(_e.__traceback__.tb_lineno)) is None:")
        self.emit(depth + 2, "raise")
        if self.own_variables:   # the frame the Step runs in gets the names bound so far
            names = f"_names(locals(), {self.names_back}, L)"
            self.emit(depth + 1, f"_fail(_s, _frame({names}, G, W, rng, depth), _e, "
                                 f"{self.plain_tuple})")
        else:
            self.emit(depth + 1, f"_fail(_s, {self.FRAME}, _e, {self.plain_tuple})")


    def _delegate(self, step: Step, depth: int) -> None:
        self.emit(depth, f"_run_step({self.const(step, 'S')}, {self.FRAME})")
        self.emit(depth, "if _fr.returned:")
        self.emit(depth + 1, "return _fr.result")

    def step(self, step: Step, depth: int) -> None:
        changes = self._may_change_units(step)
        self.views_usable, self.wanted = not changes, set()
        held, self.options_held = self.options_held, None
        self.reusing = held if not changes else None
        self._statement(step, depth)
        self.reusing = None
        if changes:
            self.stale = set(self.views)
            self.changed_yet = True

    def _statement(self, step: Step, depth: int) -> None:
        kind = type(step)
        if kind is ModifyStep:   # without a transcript, a modify is its total
            self._guarded(step, depth, [f"{self.var(step.name)} = {self.expr(step.node)}"])
        elif kind is LetStep and step.name in self.plain_dice:
            self.emit(depth, f"{self.var(step.name)} = {self.expr(step.node)}")
        elif kind is LetStep and isinstance(step.node, Dice):
            spec = step.node.spec
            if spec.count == 1 and not spec.explode and not spec.success:
                roll = self.expr(step.node)
                self.emit(depth, f"{self.var(step.name)} = _rolled({roll})")
            else:
                binder = self.const(bind_sampler(step.node, False), "B")
                self.emit(depth, f"{self.var(step.name)} = {binder}({self.CTX})")
        elif kind is LetStep and (parts := self.remembered_parts(step.node)) is not None:
            name = self.var(step.name)
            self._guarded(step, depth, [f"if {parts[0]}:", "    _WORK[0] -= _rm[1]",
                                        f"    {name} = _rm[0]", "else:", f"    {name} = {parts[1]}"])
        elif kind is LetStep:
            self._guarded(step, depth, [f"{self.var(step.name)} = {self.expr(step.node)}"])
        elif kind is ReturnStep and isinstance(step.node, (Num, Text, Bool)):
            self.emit(depth, f"return {self.expr(step.node)}")
        elif kind is ReturnStep:
            self._guarded(step, depth, [f"_r = {self.expr(step.node)}"])
            self.emit(depth, "return _r")
        elif kind is CallStep:
            self._guarded(step, depth, self.written_out(step.call) or [self.expr(step.call)])
        elif kind is IfStep:
            cond = self.const(step.cond.loc, "P")
            self._guarded(step, depth, [f"_c = {self.truth(step.cond, cond)}"])
            if self._may_change_units(step):
                self.stale = set(self.views)
                self.changed_yet = True
            before = set(self.stale)
            self.emit(depth, "if _c:")
            self.steps(step.then, depth + 1)
            after_then, self.stale = self.stale, before
            if step.other:
                self.emit(depth, "else:")
                self.steps(step.other, depth + 1)
            self.stale |= after_then
        elif kind is ForStep:
            var = f"_i{next(self.counter)}"
            loc = self.const(step.items.loc, "P")
            # a list of a loop's size copied at once (what `_items` checks and does)
            self._guarded(step, depth, [
                f"{var} = list(_l) if (_l := {self.expr(step.items)}).__class__ is list and "
                f"len(_l) <= _MAX_LOOP else _items(_l, {loc})"])
            before = self._entering_loop(step)
            self.emit(depth, f"for _x in {var}:")
            self.emit(depth + 1, f"{self.var(step.var)} = _x")
            self.steps(step.body, depth + 1)
            self.stale |= before
        elif kind is AssignStep and len(step.path) == 1 and step.path[0] in self.locals:
            value, loc = self.expr(step.node), self.const(step.loc, "P")
            name = self.var(step.path[0])
            new = value if step.op == "=" else f"_assign_value({step.op!r}, {name}, {value}, {loc})"
            self._guarded(step, depth, [f"{name} = {new}"])
        elif kind is AssignStep and len(step.path) > 1:
            head, ref = step.path[0], self.const(step, 'S')
            keys = "(" + "".join(f"{self.expr(k)}, " for k in step.keys()) + ")"
            if head in self.locals and step.op == "=" and len(step.path) == 2 \
                    and isinstance(step.path[1], str):
                # `unit.field = value`, the commonest write of a game: straight into the
                # fields of a unit of this world that has the field and no status (whose
                # modifier, read as the old value, might fail), as Unit.set_field writes
                # it; anything else (a side, a record, an object, a unit of another world
                # or without the field: the errors) as below
                name, field = self.var(head), step.path[1]
                self._guarded(step, depth, [
                    f"_v = {self.expr(step.node)}",
                    f"if (_o := {name}).__class__ is _Unit and not _o.statuses and W is not None "
                    f"and W.units.get(_o.uid) is _o and {field!r} in (_fd := _o.fields):",
                    f"    _fd[{field!r}] = _v",
                    "    _o.changed = True",
                    "else:",
                    f"    _changed = _assign_local({ref}, _v, {name}, W, ())",
                    f"    if _changed is not None: {name} = _changed"])
            elif head in self.locals:   # a unit or side changed, or the local list/record
                name = self.var(head)
                self._guarded(step, depth, [
                    f"_changed = _assign_local({ref}, {self.expr(step.node)}, {name}, W, {keys})",
                    f"if _changed is not None: {name} = _changed"])
            else:
                self._guarded(step, depth, [f"_assign_named({ref}, {self.expr(step.node)}, "
                                            f"{self.L}, G, W, {keys})"])
        elif kind is ChooseStep:
            self._choose(step, depth)
        elif kind is EmitStep:
            # without a transcript an emit's text is worked out and dropped, as the
            # sampled runner does: its dice, calls, budget and errors are the game's;
            # with one (a told game's quiet call: run/quiet.py) its line is written
            self._guarded(step, depth, [f"_em = {self.expr(step.node)}",
                                        "if W is not None and W.record: _emit_line(W, _em)"])
        elif kind is RepeatStep:
            self._repeat(step, depth)
        else:  # a roll statement: the Step itself
            self._delegate(step, depth)

    def _entering_loop(self, step) -> set:
        """Before a loop's first pass: if a pass may change a unit, every view is stale
        from the start of the body (the second pass follows the first's changes).  The
        views stale before it, which stay stale after it."""
        if self._may_change_units(step) or any(self._may_change_units(s)
                                               for s in all_steps(step.body)):
            self.stale = set(self.views)
            self.changed_yet = True
        return set(self.stale)

    def _repeat(self, step: RepeatStep, depth: int) -> None:
        """`repeat: body until: C max: N` as the sampled runner runs it: the body (its
        block spending its steps each time round), then `until`, which must be true or
        false; at the limit, an error without `max` (`_repeat_ended`).  The test is
        guarded as a `return` of it: a Python error there is explained by the closures
        evaluating the same expression on a frame."""
        before = self._entering_loop(step)
        turn = f"_rp{next(self.counter)}"
        self.emit(depth, f"for {turn} in range({step.limit}):")
        self.steps(step.body, depth + 1)
        test = ReturnStep(step.until, step.until.loc)
        self.views_usable, self.wanted = not self._may_change_units(step), set()
        loc = self.const(step.until.loc, "P")
        self._guarded(test, depth + 1, [
            f"if (_b if (_b := {self.expr(step.until)}).__class__ is bool "
            f"else _until(_b, {loc})):", "    break"])
        self.emit(depth, "else:")
        self.emit(depth + 1, f"_repeat_ended({self.const(step, 'S')}, W)")
        self.stale |= before

    def _choose(self, step: ChooseStep, depth: int) -> None:
        """`choose`: the options and the chooser written here, the decision the world's
        Chooser's (by the side's policy, as for the sampled runner).  The `prefer` scores
        are written as a comprehension over the options when they need neither dice nor a
        procedure (the sampled runner scores them with no random stream, at depth 0);
        else the Chooser scores them in the names, which then stay in L."""
        ref = self.const(step, "S")
        held = self._readable_options(step)
        ov = f"_ov{next(self.counter)}" if held else "_ov"
        # (a list's options are a copy of it, as `choice_options` makes them)
        lines = [f"_o = list({ov}) if ({ov} := {self.expr(step.options)}).__class__ is list "
                 f"else _options({ref}, {ov})"]
        if step.by is not None:
            lines.append(f"_by = {self.expr(step.by)}")
        else:   # the runner takes its frame's `side`, bound or not
            self.needs_names = True
            lines.append(f"_by = {self.L}.get('side')")
        scores, env = "None", "None"
        if step.prefer is not None:
            scores = self._scores(step)
            if scores == "None":
                env = f"{self.CTX}.env"
        lines.append(f"{self.var(step.var)} = _choose({ref}, _o, _by, W, {scores}, {env})")
        self._guarded(step, depth, lines)
        if held:
            self.options_held = (step.options, ov)

    def _readable_options(self, step: ChooseStep) -> bool:
        """Whether the statement right after this choose may take the list its options
        were read from instead of reading them again with the same call: they are a
        game-reading action (`enemies(unit)`) of names other than the one chosen,
        nothing in the choose can change the game (its calls are harmless; a policy
        only picks), and that statement's own expressions change nothing before they
        read it (`step`: else no reuse).  `count(enemies(unit)) > 0` after `choose:
        target from: enemies(unit)`."""
        call = step.options
        if not isinstance(call, Call) or call.kwargs or call.func in FUNCTIONS \
                or call.func in self.locals or call.func in self.bound \
                or not all(isinstance(a, Name) and a.id != step.var and a.id not in self.bound
                           for a in call.args):
            return False
        target = self.constants.get(call.func)
        if type(target) is not Action or target.mutates:
            return False
        return all(self._harmless(n) for tree in step.expressions() for n in walk(tree)
                   if isinstance(n, Call))

    def _scores(self, step: ChooseStep) -> str:
        """`lambda: [score of each option]`, or "None" when the score needs what the
        sampled runner does not give it (the random stream, the call depth, a context)."""
        saved = dict(self.bound)
        option = self.bound["option"] = f"_c{next(self.counter)}"
        try:
            score = self.expr(step.prefer)
        except HandsNames:
            return "None"
        finally:
            self.bound = saved
        if re.search(r"\b(rng|depth)\b", score):
            return "None"
        return f"(lambda: [{score} for {option} in _o])"


_MARK = re.compile(r"  #@(S\d+)$")


def statement_lines(lines: list[str], namespace: dict) -> dict:
    """Line number (from 1, as a traceback counts) -> the Step of the guarded statement
    written on it, from the lines' marks and the constants in `namespace`."""
    found = {}
    for number, line in enumerate(lines, 1):
        mark = _MARK.search(line)
        if mark is not None:
            found[number] = namespace[mark.group(1)]
    return found
