"""The statement half of the code generator (see `codegen`): each step as Python
statements, guarded so that a Python error is explained by the Step itself."""
from __future__ import annotations

from ..expr.sampled import bind_sampler
from ..expr.values import FUNCTIONS
from ..lang.ast import Bool, Call, Dice, Num, Text, walk
from ..lang.steps import (AssignStep, CallStep, ForStep, IfStep, LetStep, ModifyStep,
                          ReturnStep, Step, all_steps)
from .gen_expressions import ExpressionWriter
from .gen_facts import changes_nothing, written_by_us


class StepWriter(ExpressionWriter):
    """The writer of one body: statements on top of expressions."""

    # ------------------------------------------------------------------ statements
    def steps(self, steps: list[Step], depth: int) -> None:
        if not steps:
            self.emit(depth, "pass")
        for step in steps:
            self.step(step, depth)

    def _stored(self, unit: str) -> set:
        """The fields every unit of the parameter's declared kind stores."""
        kind = self.units.get(unit)
        return set(kind.stats) | set(kind.state) if kind is not None else set()

    def _refresh_views(self, depth: int) -> None:
        for unit in sorted(self.wanted & self.stale):
            u, kind = self.var(unit), self.units.get(unit)
            same_kind = f" and {u}.kind is {self.const(kind, 'K')}" if kind is not None else ""
            self.emit(depth, f"{self.views[unit]} = _f if not {u}.statuses{same_kind} and "
                             f"'equipment' not in (_f := {u}.fields) else _UnitReader({u})")
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

    def _harmless(self, call: Call) -> bool:
        if call.func in FUNCTIONS and not call.kwargs:
            return True
        target = self.constants.get(call.func) if call.func not in self.locals else None
        return changes_nothing(target, set())

    def _guarded(self, step: Step, depth: int, lines: list[str]) -> None:
        ref = self.const(step, "S")
        self._refresh_views(depth)
        self.emit(depth, "try:")
        for line in lines:
            self.emit(depth + 1, line)
        self.emit(depth, "except _RulecraftError:")
        self.emit(depth + 1, "raise")
        self.emit(depth, "except Exception as _e:")
        if self.own_variables:   # the frame the Step runs in gets the names bound so far
            names = f"_names(locals(), {self.names_back}, L)"
            self.emit(depth + 1, f"_fail({ref}, _frame({names}, G, W, rng, depth), _e, "
                                 f"{self.plain_tuple})")
        else:
            self.emit(depth + 1, f"_fail({ref}, {self.FRAME}, _e, {self.plain_tuple})")

    def _delegate(self, step: Step, depth: int) -> None:
        self.emit(depth, f"_run_step({self.const(step, 'S')}, {self.FRAME})")
        self.emit(depth, "if _fr.returned:")
        self.emit(depth + 1, "return _fr.result")

    def step(self, step: Step, depth: int) -> None:
        changes = self._may_change_units(step)
        self.views_usable, self.wanted = not changes, set()
        self._statement(step, depth)
        if changes:
            self.stale = set(self.views)

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
        elif kind is LetStep:
            self._guarded(step, depth, [f"{self.var(step.name)} = {self.expr(step.node)}"])
        elif kind is ReturnStep and isinstance(step.node, (Num, Text, Bool)):
            self.emit(depth, f"return {self.expr(step.node)}")
        elif kind is ReturnStep:
            self._guarded(step, depth, [f"_r = {self.expr(step.node)}"])
            self.emit(depth, "return _r")
        elif kind is CallStep:
            self._guarded(step, depth, [self.expr(step.call)])
        elif kind is IfStep:
            cond = self.const(step.cond.loc, "P")
            self._guarded(step, depth, [f"_c = {self.truth(step.cond, cond)}"])
            if self._may_change_units(step):
                self.stale = set(self.views)
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
            self._guarded(step, depth, [f"{var} = _items({self.expr(step.items)}, {loc})"])
            if self._may_change_units(step) or any(self._may_change_units(s)
                                                   for s in all_steps(step.body)):
                self.stale = set(self.views)
            before = set(self.stale)
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
            if head in self.locals:   # a unit or side changed, or the local list/record
                name = self.var(head)
                self._guarded(step, depth, [
                    f"_changed = _assign_local({ref}, {self.expr(step.node)}, {name}, W, {keys})",
                    f"if _changed is not None: {name} = _changed"])
            else:
                self._guarded(step, depth, [f"_assign_named({ref}, {self.expr(step.node)}, "
                                            f"{self.L}, G, W, {keys})"])
        else:  # emit, repeat, choose: the Step itself
            self._delegate(step, depth)
