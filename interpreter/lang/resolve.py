"""The resolver: one pass over a step list that says what every name in it is.

For each step it records the names the step reads (free names of its expressions, nested
blocks included), the local names it writes, the procedures and functions it calls, and
which local names are still *live* after it — read by some later step before being bound
again.  Everything that needs name facts reads them from here: `validate`'s unknown-name
and read-before-assignment findings (analysis/check.py), the compiled path's choice of
which names may live in Python variables (run/codegen.py), exact enumeration's merging of
branches on live names only (run/exact.py), and the ruleset's constant globals.

Scopes follow the DSL: a procedure's parameters and the names its steps bind (`let`,
`for`, `choose`, `modify`, an assignment to a bare name) are its locals; a `let ... in`
expression and a comprehension bind their variable inside themselves only; `option` is
bound inside a `choose`'s `prefer`.  A table's `steps` cell runs on the names of whoever
calls `run()`, so a step calling `run()` reads every name a cell mentions (`cell_names`),
or every local when those are not known.
"""
from __future__ import annotations

from ..records import record

from .ast import Call, Comprehension, LetExpr, Name, Node, walk
from .steps import (AssignStep, ChooseStep, ForStep, IfStep, LetStep, ModifyStep, RepeatStep, RollStep,
                    ReturnStep, Step, all_steps)

#: the name a `choose` step's `prefer:` expression sees for the option being weighed
OPTION = "option"


@record(frozen=True)
class Facts:
    """What one step does with names.  `reads`, `writes` and `calls` cover the step and
    its nested blocks; `live_after` is flow-sensitive."""

    reads: frozenset[str]        # every name its expressions read
    writes: frozenset[str]       # every local name it (or a nested step) binds
    calls: frozenset[str]        # functions and procedures called by name
    live_after: frozenset[str]   # locals some later step may read before rebinding


@record(frozen=True)
class Unbound:
    """A read of a local name on a path where no step has bound it yet."""

    name: str
    step: Step
    surely: bool   # True: bound on no path before the read; False: only on some


def free_names(node: Node) -> set[str]:
    """Names an expression reads that it does not bind itself (`let x = … in`,
    comprehensions), excluding called function names (see `called_names`)."""
    out: set[str] = set()
    _free(node, frozenset(), out)
    return out


def _free(node: Node, bound: frozenset, out: set) -> None:
    for current, scope in scoped_nodes(node, bound):
        if isinstance(current, Name) and current.id not in scope:
            out.add(current.id)


def scoped_nodes(node: Node, bound: frozenset = frozenset()):
    """Every node of an expression with the names the expression itself binds around it
    there (`let x = … in`, a comprehension's variable), on top of `bound`."""
    stack = [(node, bound)]
    while stack:
        current, scope = stack.pop()
        yield current, scope
        if isinstance(current, LetExpr):
            stack.append((current.value, scope))
            stack.append((current.body, scope | {current.name}))
            continue
        if isinstance(current, Comprehension):
            stack.append((current.source, scope))
            inner = scope | {current.var}
            stack.append((current.item, inner))
            if current.cond is not None:
                stack.append((current.cond, inner))
            continue
        for value in current.__dict__.values():
            if isinstance(value, Node):
                stack.append((value, scope))
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, Node):
                        stack.append((item, scope))
                    elif isinstance(item, tuple):
                        stack.extend((x, scope) for x in item if isinstance(x, Node))


def called_names(node: Node) -> set[str]:
    """The names an expression calls (`hurt(t)`, `max(...)`, `run(row.effect)`)."""
    return {n.func for n in walk(node) if isinstance(n, Call)}


def _own_reads(step: Step) -> set[str]:
    """Names the step's own expressions read (not its nested blocks')."""
    names: set[str] = set()
    for tree in step.expressions():
        found = free_names(tree)
        if isinstance(step, ChooseStep) and step.prefer is not None and tree is step.prefer:
            found.discard(OPTION)
        if isinstance(step, RollStep) and tree is step.wanted:
            found.discard(step.name)   # `wanted` reads the roll the step has just bound
        names |= found
    if isinstance(step, AssignStep) and len(step.path) == 1 and step.op == "=" \
            and step.path[0] not in free_names(step.node):
        # `x = 3` binds x; `x += 1`, `x = x + 1` and `append(xs, item)` read it first
        names.discard(step.path[0])
    return names


def _kills(step: Step) -> set[str]:
    """Names the step surely binds on every path through it (what ends their liveness)."""
    if isinstance(step, (LetStep, ModifyStep, ChooseStep, RollStep)):
        return {step.binds()}
    if isinstance(step, AssignStep) and len(step.path) == 1:
        return {step.path[0]}
    return set()   # a `for` variable keeps its old value when the list is empty


class Resolution:
    """Name facts of one step list with its parameters (see the module docstring)."""

    def __init__(self, steps, params=(), cell_names=None, live_out=frozenset()):
        self.steps = tuple(steps)
        self.params = frozenset(params)
        self.counts: dict[str, int] = {}
        for step in all_steps(self.steps):
            name = step.binds()
            if name is not None:
                self.counts[name] = self.counts.get(name, 0) + 1
        self.binders = frozenset(self.counts)
        self.locals = self.binders | self.params
        self.cell_names = cell_names
        self._facts: dict[int, Facts] = {}
        self._own: dict[int, frozenset] = {}
        self._summarise(self.steps)
        self.live_out = frozenset(live_out) & self.locals
        self.live_in = self._live_in(self.steps, frozenset(live_out))

    # -- what callers ask

    def facts(self, step: Step) -> Facts:
        return self._facts[id(step)]

    def reads(self, step: Step) -> frozenset[str]:
        return self._facts[id(step)].reads

    def writes(self, step: Step) -> frozenset[str]:
        return self._facts[id(step)].writes

    def live_after(self, step: Step) -> frozenset[str]:
        return self._facts[id(step)].live_after

    def read_names(self) -> set[str]:
        """Every name any expression of the steps reads."""
        names: set[str] = set()
        for step in self.steps:
            names |= self._facts[id(step)].reads
        return names

    def free(self) -> set[str]:
        """Names read that are neither parameters nor bound by any step: globals, names
        the context binds (a phase's `unit`), or mistakes."""
        return self.read_names() - self.locals

    def calls(self) -> set[str]:
        names: set[str] = set()
        for step in self.steps:
            names |= self._facts[id(step)].calls
        return names

    def mentioned(self) -> set[str]:
        """Every name the steps read, bind or call."""
        return self.read_names() | set(self.locals) | self.calls()

    def unbound_reads(self, outside=frozenset()) -> list[Unbound]:
        """Reads of a step-bound local where, on some path (or every path), no step has
        bound it yet.  Names in `outside` (globals, context names) are never reported: a
        read before the local binding sees them.  A list calling `run()` is not judged
        (a table's steps cell may bind names in its caller)."""
        if "run" in self.calls():
            return []
        found: list[Unbound] = []
        watched = self.binders - self.params - set(outside)
        self._forward(self.steps, set(), set(), watched, found)
        return found

    # -- summaries (flow-insensitive)

    def _summarise(self, steps) -> None:
        for step in steps:
            own = _own_reads(step)
            calls: set[str] = set()
            for tree in step.expressions():
                calls |= called_names(tree)
            own |= self._run_reads(calls)
            # a call through a local (`let hurt = apply` ... `hurt(t, "x")`) reads it:
            # without this the local looks dead and exact odds drop it before the call
            own |= calls & self.locals
            reads, writes = set(own), set(_kills(step))
            if isinstance(step, ForStep):
                writes.add(step.var)
            for block in step.blocks():
                self._summarise(block)
                for inner in block:
                    f = self._facts[id(inner)]
                    reads |= f.reads
                    writes |= f.writes
                    calls |= f.calls
            self._own[id(step)] = frozenset(own)
            self._facts[id(step)] = Facts(frozenset(reads), frozenset(writes),
                                          frozenset(calls), frozenset())

    def _run_reads(self, calls: set[str]) -> set[str]:
        if "run" not in calls:
            return set()
        if self.cell_names is None:
            return set(self.locals)
        return set(self.cell_names)

    # -- liveness (backward)

    def _live_in(self, steps, live_out: frozenset) -> frozenset:
        """Live names before `steps`, recording each step's `live_after` on the way."""
        live = live_out
        for step in reversed(steps):
            live = self._step_live(step, live)
        return live

    def _step_live(self, step: Step, live_out: frozenset) -> frozenset:
        f = self._facts[id(step)]
        self._facts[id(step)] = Facts(f.reads, f.writes, f.calls, live_out & self.locals)
        own = self._own[id(step)]
        if isinstance(step, ReturnStep):
            return own | self.live_out   # a return ends the list: what is read after it
        if isinstance(step, IfStep):
            return own | self._live_in(step.then, live_out) | self._live_in(step.other, live_out)
        if isinstance(step, ForStep):
            # the body may run again: what is live at its start (but the loop variable,
            # bound afresh) is live at its end too; a fixpoint, so that a name the body
            # binds before reading it (`let hit = d6` each pass) is dead between passes
            body_out = live_out
            while True:
                inner = self._live_in(step.body, body_out) - {step.var}
                if live_out | inner == body_out:
                    return own | inner | live_out
                body_out = live_out | inner
        if isinstance(step, RepeatStep):
            # `until` is read after each pass of the body, which runs at least once and
            # may run again (what is live at its start is live at its end): a fixpoint
            body_out = live_out | own
            while True:
                inner = self._live_in(step.body, body_out)
                if live_out | own | inner == body_out:
                    return inner
                body_out = live_out | own | inner
        return own | (live_out - _kills(step))

    def _body_reads(self, steps) -> frozenset:
        names: set[str] = set()
        for step in steps:
            names |= self._facts[id(step)].reads
        return frozenset(names)

    # -- definite binding (forward)

    def _forward(self, steps, must: set, may: set, watched, found) -> tuple[set, set, bool]:
        """Walk steps with the names surely (`must`) and possibly (`may`) bound; returns
        them after the list and whether the list surely returned."""
        must, may = set(must), set(may)
        for step in steps:
            for name in sorted(self._own[id(step)] & watched):
                if isinstance(step, RepeatStep):
                    continue   # judged after its body, below
                if name not in must:
                    found.append(Unbound(name, step, surely=name not in may))
            if isinstance(step, ReturnStep):
                return must, may, True
            if isinstance(step, IfStep):
                m1, y1, r1 = self._forward(step.then, must, may, watched, found)
                m2, y2, r2 = self._forward(step.other, must, may, watched, found)
                if r1 and r2:
                    return must, may, True
                must = m2 if r1 else m1 if r2 else (m1 & m2)
                may = (y1 if not r1 else set()) | (y2 if not r2 else set()) | may
            elif isinstance(step, ForStep):
                inner = may | self._facts[id(step)].writes
                self._forward(step.body, must | {step.var}, inner, watched, found)
                may = inner
            elif isinstance(step, RepeatStep):
                inner = may | self._facts[id(step)].writes
                m1, y1, _ = self._forward(step.body, must, inner, watched, found)
                for name in sorted(self._own[id(step)] & watched):
                    if name not in m1:
                        found.append(Unbound(name, step, surely=name not in y1))
                must, may = m1, y1 | inner
            else:
                kills = _kills(step)
                must |= kills
                may |= kills
        return must, may, False


def resolve(steps, params=(), cell_names=None, live_out=frozenset()) -> Resolution:
    """Resolve a step list.  `params`: names bound on entry; `cell_names`: the names a
    table's steps cell may read when `run()` is called (None: unknown, so every local);
    `live_out`: names read after the list ends (a phase's names read by the next phase)."""
    return Resolution(steps, params, cell_names, live_out)


def mentioned_names(steps) -> set[str]:
    """Every name a step list reads, binds or calls (what a table's steps cell touches
    of its caller's names)."""
    return resolve(steps).mentioned()
