"""Procedure steps: compiled once from the rule file, run sampled or enumerated exactly.

A step list in YAML holds statement strings (`let hit = d6`, `target.hits -= 3`,
`return "miss"`, `apply(target, "shaken", turns=1)`) and control-flow mappings
(`if/then/else`, `for/in/do`, `repeat/until/max`, `choose/from/by/prefer`).  Each becomes
one small Step object with two ways to run:

- `run(frame)`: sampled, with the world's RNG, logging to the transcript;
- `explore(branches)`: exact, every roll branched over its outcomes, equal states merged.

A `Frame` is one activation of a procedure: its local names over the ruleset's globals,
the world, and a return slot.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from ..dice.distribution import Distribution
from ..lang.ast import (AssignStmt, Attr, Binary, Call, CallStmt, EmitStmt, LetStmt, ListExpr,
                        Name, Node, ReturnStmt, to_text)
from ..lang.parse import parse_expression, parse_statement
from ..errors import DSLSyntaxError, EvalError, LimitError, Location
from ..expr.sampled import Context, bind_sampler, compile_sampler
from ..expr.exact import bind_exact, exact, product
from ..expr.values import arith, assign_value, describe, get_attr, json_value, plain
from ..limits import MAX_BRANCHES, MAX_LOOP
from ..source.load import MapNode, ScalarNode, SeqNode
from ..state.world import Unit, freeze
from ..suggest import did_you_mean

# ----------------------------------------------------------------------------- frames


class Scope(Mapping):
    """Local names first, then the globals (parameters, tables, procedures, actions)."""

    __slots__ = ("locals", "globals", "world")

    def __init__(self, local_names: dict, global_names: Mapping, world=None):
        self.locals = local_names
        self.globals = global_names
        self.world = world   # the branch's world, for procedures called inside expressions

    def __getitem__(self, key):
        try:
            return self.locals[key]
        except KeyError:
            pass
        try:
            return self.globals[key]
        except KeyError:
            if self.world is not None and key in _WORLD_NAMES:
                return _WORLD_NAMES[key](self.world)
            raise

    def __iter__(self):
        yield from self.locals
        yield from (k for k in self.globals if k not in self.locals)

    def __len__(self):
        return len(self.locals) + len(self.globals)

    def __contains__(self, key):
        return key in self.locals or key in self.globals


# Names every rule can read while a game (or a run) is in progress.
_WORLD_NAMES = {
    "turn": lambda world: world.turn,
    "sides": lambda world: list(world.sides.values()),
    "units": lambda world: [u for u in world.units.values() if u.alive],
}


class Frame:
    """One running procedure (or phase step list): its scope, its world, its result."""

    __slots__ = ("ctx", "locals", "returned", "result", "world")

    def __init__(self, locals_: dict, globals_: Mapping, world, rng, record: bool, depth: int = 0):
        self.locals = locals_
        self.world = world
        self.ctx = Context(Scope(locals_, globals_, world), rng, [] if record else None, world, depth)
        self.returned = False
        self.result = None


def _value_text(value) -> str:
    v = json_value(value)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _dice_text(records) -> str:
    parts = []
    for rec in records:
        as_json = rec.as_json()
        if "dice" in as_json:
            faces = ",".join("+".join(str(f) for f in d["faces"]) + ("" if d.get("kept", True) else "✗")
                             for d in as_json["dice"])
            parts.append(f"{as_json.get('notation', '')} [{faces}]")
        elif "table" in as_json:
            parts.append(f"{as_json['table']}[{as_json.get('key')}] → {as_json.get('row')}")
    return "; ".join(parts)


def _flush_rolls(frame: Frame) -> list:
    records = frame.ctx.record
    if not records:
        return []
    frame.ctx.record = []
    return records


# ------------------------------------------------------------------------------ steps


def _samplers(node: Node):
    """The two compiled forms of an expression: recording dice for the transcript, and
    the fast one used when nothing is recorded (simulate, benchmarks)."""
    return compile_sampler(node, True), compile_sampler(node, False)


class Step:
    loc: Location | None = None

    def run(self, frame: Frame) -> None:
        raise NotImplementedError

    def explore(self, branches: list["Branch"]) -> list["Branch"]:
        raise NotImplementedError


class LetStep(Step):
    def __init__(self, stmt: LetStmt):
        self.name, self.node, self.loc = stmt.name, stmt.value, stmt.loc
        self.sample, self.fast = bind_sampler(stmt.value, True), bind_sampler(stmt.value, False)
        self.text = to_text(stmt)

    def run(self, frame):
        value = (self.sample if frame.ctx.record is not None else self.fast)(frame.ctx)
        frame.locals[self.name] = value
        if frame.world.record:
            rolls = _flush_rolls(frame)
            detail = f"  ({_dice_text(rolls)})" if rolls else ""
            frame.world.log("let", f"{self.name} = {_value_text(value)}{detail}", name=self.name,
                            value=json_value(value), rolls=[r.as_json() for r in rolls])

    def explore(self, branches):
        out = []
        for b in branches:
            if _is_procedure_call(self.node, b):
                for weight, sub, result in _explore_call(self.node, b):
                    sub.locals[self.name] = result
                    out.append(Branch(weight, sub))
                continue
            dist = bind_exact(self.node, b.scope())
            for value, w in dist.items():
                child = b.fork(Fraction(w, dist.total), len(dist) > 1)
                child.locals[self.name] = value
                out.append(child)
        return out


class AssignStep(Step):
    def __init__(self, stmt: AssignStmt):
        self.loc = stmt.loc
        self.op = stmt.op
        self.target = stmt.target
        self.path = _target_path(stmt.target)
        self.node = stmt.value
        self.sample, self.fast = _samplers(stmt.value)
        self.text = to_text(stmt)

    def _new_value(self, old, value):
        return assign_value(self.op, old, value, self.loc)

    def _assign(self, frame_locals, scope, world, value, ctx):
        path = self.path
        if len(path) == 1:
            if path[0] not in frame_locals and path[0] in scope:
                raise EvalError(f"{path[0]!r} is not a local name; only units' fields and "
                                f"names bound with let can be changed", self.loc)
            old = frame_locals.get(path[0])
            if self.op != "=" and path[0] not in frame_locals:
                raise EvalError(f"{path[0]!r} has no value yet", self.loc)
            frame_locals[path[0]] = self._new_value(old, value)
            return path[0], frame_locals[path[0]]
        return self.assign_field(value, scope[path[0]] if path[0] in scope else None, world)

    def assign_field(self, value, owner, world):
        """`owner.field... op= value` for a unit's field or a side's data."""
        path = self.path
        if owner is None:
            raise EvalError(f"unknown name {path[0]!r}", self.loc)
        unit = world.unit(owner, self.loc) if hasattr(owner, "set_field") else None
        if unit is not None:
            old = _read_path(unit, path[1:], self.loc)
            new = self._new_value(old, value)
            unit.set_field(path[1:], new, self.loc)
            return f"{unit.name}.{'.'.join(path[1:])}", new
        if hasattr(owner, "data") and len(path) == 2:  # a side's data (score ...)
            old = owner.data.get(path[1], 0)
            owner.data[path[1]] = self._new_value(old, value)
            return f"{owner.name}.{path[1]}", owner.data[path[1]]
        raise EvalError(f"cannot change {describe(owner)}", self.loc)

    def run(self, frame):
        value = (self.sample if frame.ctx.record is not None else self.fast)(frame.ctx)
        where, new = self._assign(frame.locals, frame.ctx.env, frame.world, value, frame.ctx)
        if frame.world.record:
            rolls = _flush_rolls(frame)
            detail = f"  ({_dice_text(rolls)})" if rolls else ""
            frame.world.log("set", f"{where} {self.op} {_value_text(value)} → {_value_text(new)}{detail}",
                            field=where, value=json_value(new))

    def explore(self, branches):
        out = []
        for b in branches:
            dist = exact(self.node, b.scope())
            for value, w in dist.items():
                child = b.fork(Fraction(w, dist.total), True)
                self._assign(child.locals, child.scope(), child.world, value, None)
                out.append(child)
        return out


def _read_path(unit, path, loc):
    value = unit
    for step in path:
        value = get_attr(value, step, loc)
    return value


def _target_path(node: Node) -> list[str]:
    if isinstance(node, Name):
        return [node.id]
    if isinstance(node, Attr):
        return _target_path(node.obj) + [node.name]
    raise DSLSyntaxError("only names and fields (unit.hits, target.armour.front) can be assigned",
                         node.loc)


class ReturnStep(Step):
    def __init__(self, stmt: ReturnStmt):
        self.loc, self.node = stmt.loc, stmt.value
        self.sample, self.fast = _samplers(stmt.value)

    def run(self, frame):
        frame.result = (self.sample if frame.ctx.record is not None else self.fast)(frame.ctx)
        frame.returned = True
        if frame.world.record:
            rolls = _flush_rolls(frame)
            detail = f"  ({_dice_text(rolls)})" if rolls else ""
            frame.world.log("return", f"→ {_value_text(frame.result)}{detail}",
                            value=json_value(frame.result))

    def explore(self, branches):
        out = []
        for b in branches:
            if _is_procedure_call(self.node, b):
                for weight, sub, result in _explore_call(self.node, b):
                    sub.result, sub.returned = result, True
                    out.append(Branch(weight, sub))
                continue
            dist = exact(self.node, b.scope())
            for value, w in dist.items():
                child = b.fork(Fraction(w, dist.total), len(dist) > 1)
                child.result, child.returned = value, True
                out.append(child)
        return out


class EmitStep(Step):
    def __init__(self, stmt: EmitStmt):
        self.loc = stmt.loc
        self.sample, self.fast = _samplers(stmt.value)
        self.node = stmt.value

    def run(self, frame):
        value = (self.sample if frame.ctx.record is not None else self.fast)(frame.ctx)
        if frame.world.record:
            _flush_rolls(frame)
            frame.world.log("emit", _value_text(value))

    def explore(self, branches):
        """The emitted value is worked out as in a sampled run (a procedure it calls
        runs, an error is raised), though nothing is written: odds have no transcript."""
        out = []
        for b in branches:
            if _is_procedure_call(self.node, b):
                out.extend(Branch(weight, sub) for weight, sub, _ in _explore_call(self.node, b))
                continue
            exact(self.node, b.scope())
            out.append(b)
        return out


class CallStep(Step):
    def __init__(self, stmt: CallStmt):
        self.loc, self.call = stmt.loc, stmt.call
        self.sample, self.fast = _samplers(stmt.call)

    def run(self, frame):
        (self.sample if frame.ctx.record is not None else self.fast)(frame.ctx)
        if frame.world.record:
            _flush_rolls(frame)

    def explore(self, branches):
        out = []
        for b in branches:
            if _is_procedure_call(self.call, b):
                for weight, sub, _result in _explore_call(self.call, b):
                    out.append(Branch(weight, sub))
                continue
            target = b.scope().get(self.call.func)
            if hasattr(target, "explore_inline"):
                cells = exact(self.call.args[0], b.scope()) if self.call.args else None
                if cells is None:
                    raise EvalError("run() takes one argument: the steps cell of a row", self.loc)
                for cell, w in cells.items():
                    child = b.fork(Fraction(w, cells.total), len(cells) > 1)
                    for end in target.explore_inline(cell, child, self.loc):
                        end.returned = False   # a `return` in a cell ends only the cell
                        out.append(end)
                continue
            args = [exact(a, b.scope()) for a in self.call.args]
            kwargs = [(k, exact(v, b.scope())) for k, v in self.call.kwargs]
            for weight, values in product(args + [d for _, d in kwargs]):
                child = b.fork(weight, True)
                pos = values[:len(args)]
                kw = {k: v for (k, _), v in zip(kwargs, values[len(args):])}
                ctx = Context(child.scope(), None, None, child.world, 0)
                if target is None or not hasattr(target, "dsl_call"):
                    raise EvalError(f"unknown action {self.call.func!r}", self.loc)
                target.dsl_call(list(pos), kw, self.loc, ctx)
                out.append(child)
        return out


class IfStep(Step):
    def __init__(self, cond: Node, then: list[Step], other: list[Step], loc):
        self.cond, self.then, self.other, self.loc = cond, then, other, loc
        self.sample, self.fast = _samplers(cond)

    def run(self, frame):
        value = (self.sample if frame.ctx.record is not None else self.fast)(frame.ctx)
        if type(value) is not bool:
            raise EvalError(f"an if needs true or false, got {describe(value)}", self.cond.loc)
        if frame.world.record:
            rolls = _flush_rolls(frame)
            if rolls:
                frame.world.log("check", f"{to_text(self.cond)}: {_value_text(value)}  ({_dice_text(rolls)})")
        run_steps(self.then if value else self.other, frame)

    def explore(self, branches):
        out = []
        for b in branches:
            dist = exact(self.cond, b.scope())
            for value, w in dist.items():
                if type(value) is not bool:
                    raise EvalError(f"an if needs true or false, got {describe(value)}", self.cond.loc)
                child = b.fork(Fraction(w, dist.total), len(dist) > 1)
                out.extend(explore_steps(self.then if value else self.other, [child]))
        return out


class ForStep(Step):
    def __init__(self, var: str, items: Node, body: list[Step], loc):
        self.var, self.items, self.body, self.loc = var, items, body, loc
        self.sample, self.fast = _samplers(items)

    def _items(self, value):
        if not isinstance(value, (list, tuple)):
            raise EvalError(f"for needs a list, got {describe(value)}", self.items.loc)
        if len(value) > MAX_LOOP:
            raise LimitError(f"a for loop may run at most {MAX_LOOP} times", self.loc)
        return list(value)

    def run(self, frame):
        for item in self._items((self.sample if frame.ctx.record is not None else self.fast)(frame.ctx)):
            frame.locals[self.var] = item
            run_steps(self.body, frame)
            if frame.returned:
                return

    def explore(self, branches):
        out = []
        for b in branches:
            dist = exact(self.items, b.scope())
            for value, w in dist.items():
                current = [b.fork(Fraction(w, dist.total), len(dist) > 1)]
                for item in self._items(value):
                    for c in current:
                        c.locals[self.var] = item
                    current = explore_steps(self.body, current)
                out.extend(current)
        return out


class RepeatStep(Step):
    """`repeat: [...] until: C max: N`.  With `max`, stopping there is the rule's intent
    ("roll until a 4+, at most 3 times") and play goes on; without one, reaching
    MAX_LOOP means the loop would not end, which is an error at the step."""

    def __init__(self, body: list[Step], until: Node, limit: int, loc, explicit: bool = True):
        self.body, self.until, self.limit, self.loc = body, until, limit, loc
        self.explicit = explicit
        self.sample, self.fast = _samplers(until)

    def run(self, frame):
        for _ in range(self.limit):
            run_steps(self.body, frame)
            if frame.returned:
                return
            done = (self.sample if frame.ctx.record is not None else self.fast)(frame.ctx)
            if type(done) is not bool:
                raise EvalError(f"until needs true or false, got {describe(done)}", self.until.loc)
            if done:
                return
        if not self.explicit:
            raise LimitError(f"this repeat ran {self.limit} times without its 'until' becoming "
                             f"true", self.loc, hint="give it a 'max:' if stopping there is meant")
        frame.world.log("limit", f"repeat stopped after {self.limit} rounds (its max)")

    def explore(self, branches):
        finished, current = [], branches
        for _ in range(self.limit):
            current = explore_steps(self.body, current)
            still = []
            for b in current:
                if b.returned:
                    finished.append(b)
                    continue
                dist = exact(self.until, b.scope())
                for value, w in dist.items():
                    child = b.fork(Fraction(w, dist.total), len(dist) > 1)
                    (finished if value else still).append(child)
            current = _merge(still)
            if not current:
                break
        for b in current:
            b.capped = True
        return finished + current


class ChooseStep(Step):
    """`choose: var from: options by: chooser prefer: expr` — a decision point."""

    def __init__(self, var: str, options: Node, by: Node | None, prefer: Node | None, loc):
        self.var, self.options, self.by, self.prefer, self.loc = var, options, by, prefer, loc
        self.sample_options = compile_sampler(options, False)
        self.sample_by = compile_sampler(by, False) if by is not None else None
        self.prefer_sampler = compile_sampler(prefer, False) if prefer is not None else None

    def _options(self, value):
        if not isinstance(value, (list, tuple)):
            raise EvalError(f"choose needs a list of options, got {describe(value)}", self.options.loc)
        return list(value)

    def run(self, frame):
        options = self._options(self.sample_options(frame.ctx))
        by_value = self.sample_by(frame.ctx) if self.sample_by else frame.locals.get("side")
        if not options:
            frame.locals[self.var] = None
            frame.world.log("choice", f"{self.var}: nothing to choose from")
            return
        chooser = frame.world.chooser
        choice, how = chooser.choose(self, options, by_value, frame) if chooser else (options[0], "first")
        frame.locals[self.var] = choice
        frame.world.log("choice", f"{self.var} = {_value_text(choice)} ({how})", name=self.var,
                        value=json_value(choice), policy=how)

    def explore(self, branches):
        out = []
        for b in branches:
            options = self._options(_single(exact(self.options, b.scope()), self.options.loc))
            if not options:
                b.locals[self.var] = None
                out.append(b)
                continue
            by_value = _single(exact(self.by, b.scope()), self.loc) if self.by else b.locals.get("side")
            policy = "first"
            if by_value is not None and b.world.sides:
                policy = b.world.side_of(by_value, self.loc).policy
            if policy == "random":
                for option in options:
                    child = b.fork(Fraction(1, len(options)), True)
                    child.locals[self.var] = option
                    out.append(child)
                continue
            if policy == "prefer" and self.prefer is not None:
                option = max(options, key=lambda o: _preference(self, o, b.scope()))
            else:
                option = options[0]
            b.locals[self.var] = option
            out.append(b)
        return out


def _preference(step: ChooseStep, option, scope):
    value = exact(step.prefer, Scope({"option": option}, scope))
    return value.mean()


def _single(dist: Distribution, loc):
    if len(dist) != 1:
        raise EvalError("this value must not depend on a roll here", loc)
    return dist.items()[0][0]


# ------------------------------------------------------------------------ compilation


def compile_steps(node, what: str = "steps") -> list[Step]:
    """Compile a YAML step list (located nodes from interpreter.load) into Steps."""
    if node is None:
        return []
    if isinstance(node, ScalarNode):
        return [_compile_statement(node)]
    if not isinstance(node, SeqNode):
        raise DSLSyntaxError(f"{what} must be a list of steps", node.location)
    steps = []
    for item in node:
        if isinstance(item, ScalarNode):
            steps.append(_compile_statement(item))
        elif isinstance(item, MapNode):
            steps.append(_compile_control(item))
        else:
            raise DSLSyntaxError("a step is a statement string or an if/for/repeat/choose mapping",
                                 item.location)
    return steps


def _expr(node) -> Node:
    if not isinstance(node, ScalarNode):
        raise DSLSyntaxError("expected an expression", node.location)
    value = node.value
    if isinstance(value, bool):
        return parse_expression("true" if value else "false", node.location)
    if isinstance(value, (int, float)):
        return parse_expression(str(value), node.location)
    if not isinstance(value, str):
        raise DSLSyntaxError("expected an expression", node.location)
    return parse_expression(value, node.location_at(0))


def _compile_statement(node) -> Step:
    if not isinstance(node.value, str):
        raise DSLSyntaxError(f"a step must be a statement, not {node.value!r}", node.location)
    stmt = parse_statement(node.value, node.location_at(0))
    return _STATEMENTS[type(stmt)](stmt)


_STATEMENTS = {LetStmt: LetStep, AssignStmt: AssignStep, ReturnStmt: ReturnStep,
               EmitStmt: EmitStep, CallStmt: CallStep}


def _compile_control(node) -> Step:
    keys = set(node.keys())
    loc = node.location
    if "if" in keys:
        _only(node, {"if", "then", "else"})
        if "then" not in keys:
            raise DSLSyntaxError("an 'if' step needs 'then'", loc)
        return IfStep(_expr(node["if"]), compile_steps(node["then"]),
                      compile_steps(node.get("else")), loc)
    if "for" in keys:
        _only(node, {"for", "in", "do"})
        var = node["for"].value
        if not isinstance(var, str) or not var.isidentifier():
            raise DSLSyntaxError("'for' names the loop variable", node["for"].location)
        if "in" not in keys or "do" not in keys:
            raise DSLSyntaxError("a 'for' step needs 'in' and 'do'", loc)
        return ForStep(var, _expr(node["in"]), compile_steps(node["do"]), loc)
    if "repeat" in keys:
        _only(node, {"repeat", "until", "max"})
        if "until" not in keys:
            raise DSLSyntaxError("a 'repeat' step needs 'until'", loc)
        limit = node["max"].value if "max" in keys else MAX_LOOP
        if not isinstance(limit, int) or not 1 <= limit <= MAX_LOOP:
            raise DSLSyntaxError(f"'max' must be a whole number from 1 to {MAX_LOOP}",
                                 node["max"].location)
        return RepeatStep(compile_steps(node["repeat"]), _expr(node["until"]), limit, loc,
                          explicit="max" in keys)
    if "modify" in keys:
        return _compile_modify(node)
    if "choose" in keys:
        _only(node, {"choose", "from", "by", "prefer"})
        var = node["choose"].value
        if not isinstance(var, str) or not var.isidentifier():
            raise DSLSyntaxError("'choose' names the variable that gets the choice",
                                 node["choose"].location)
        if "from" not in keys:
            raise DSLSyntaxError("a 'choose' step needs 'from'", loc)
        return ChooseStep(var, _expr(node["from"]),
                          _expr(node["by"]) if "by" in keys else None,
                          _expr(node["prefer"]) if "prefer" in keys else None, loc)
    raise DSLSyntaxError("a control step starts with if, for, repeat, choose or modify", loc)


class ModifyStep(LetStep):
    """`modify: need, base: {to-hit: attacker.to_hit}, add: {sword: weapon.to_hit, ...}`:
    a value built from labelled modifiers, shown as a breakdown in the transcript
    (`need: to-hit 7 −1 sword +3 cover = 9`).  Modifiers that come to 0 are left out of
    the breakdown.  `stack: sum` (default) adds every modifier; `stack: best` / `worst`
    adds only the largest / smallest one (for rules where bonuses do not stack)."""

    def __init__(self, name, base_label, base, mods, stack, loc):
        self.name, self.loc = name, loc
        self.base_label, self.labels, self.stack = base_label, [m[0] for m in mods], stack
        self.parts = [base] + [m[1] for m in mods]
        if stack == "sum" or not mods:
            total = base
            for _, expr in mods:
                total = Binary("+", total, expr, loc=expr.loc)
        else:
            pick = "max" if stack == "best" else "min"
            total = Binary("+", base, Call(pick, (ListExpr(tuple(m[1] for m in mods)),), loc=loc), loc=loc)
        self.node = total
        self.sample, self.fast = _samplers(total)
        self.part_samplers = [compile_sampler(p, True) for p in self.parts]
        self.text = name

    def run(self, frame):
        if frame.ctx.record is None:
            frame.locals[self.name] = self.fast(frame.ctx)
            return
        values = [part(frame.ctx) for part in self.part_samplers]
        rolls = _flush_rolls(frame)
        base, mods = values[0], list(zip(self.labels, values[1:]))
        locs = [part.loc for part in self.parts[1:]]
        if self.stack != "sum" and mods:
            try:
                pick = (max if self.stack == "best" else min)(range(len(mods)),
                                                              key=lambda i: plain(mods[i][1]))
            except TypeError:
                raise EvalError(f"{self.stack}: the modifiers must be numbers", self.loc) from None
            mods, locs = [mods[pick]], [locs[pick]]
        total = base
        for loc, (_, v) in zip(locs, mods):
            total = arith("+", total, v, loc)
        frame.locals[self.name] = total
        pieces = [f"{self.base_label} {_value_text(base)}"]
        for label, v in mods:
            if v != 0:
                sign = "+" if v > 0 else "−"
                pieces.append(f"{sign}{_value_text(abs(v))} {label}")
        detail = f"  ({_dice_text(rolls)})" if rolls else ""
        frame.world.log("modify", f"{self.name}: {' '.join(pieces)} = {_value_text(total)}{detail}",
                        name=self.name, value=json_value(total),
                        breakdown=[{"label": self.base_label, "value": json_value(base)}] +
                        [{"label": l, "value": json_value(v)} for l, v in mods])


def _compile_modify(node) -> Step:
    _only(node, {"modify", "base", "add", "stack"})
    name = node["modify"].value
    if not isinstance(name, str) or not name.isidentifier():
        raise DSLSyntaxError("'modify' names the value it builds", node["modify"].location)
    base = node.get("base")
    if not isinstance(base, MapNode) or len(base) != 1:
        raise DSLSyntaxError("'base' is one labelled value, e.g. base: {to-hit: attacker.to_hit}",
                             (base or node).location)
    (base_label, base_node), = base.items()
    mods = []
    add = node.get("add")
    if add is not None:
        if not isinstance(add, MapNode):
            raise DSLSyntaxError("'add' maps labels to modifier expressions", add.location)
        mods = [(label, _expr(expr)) for label, expr in add.items()]
    stack = node["stack"].value if "stack" in node else "sum"
    if stack not in ("sum", "best", "worst"):
        raise DSLSyntaxError("'stack' is sum, best or worst", node["stack"].location)
    return ModifyStep(name, base_label, _expr(base_node), mods, stack, node.location)


def _only(node, allowed: set[str]) -> None:
    for key in node.keys():
        if key not in allowed:
            raise DSLSyntaxError(f"unexpected key {key!r} in this step", node.key_location(key),
                                 hint=did_you_mean(key, allowed))


def binders(steps: list[Step]) -> set[str]:
    """The names a step list binds (let, for, choose, an assignment to a bare name)."""
    return set(binder_counts(steps))


def binder_counts(steps: list[Step], counts: dict | None = None) -> dict[str, int]:
    """How many statements bind each name (let, for, choose, an assignment to a bare
    name), nested steps included."""
    counts = {} if counts is None else counts
    for step in steps:
        name = None
        if isinstance(step, LetStep):
            name = step.name
        elif isinstance(step, (ForStep, ChooseStep)):
            name = step.var
        path = getattr(step, "path", None)
        if path and len(path) == 1:
            name = path[0]
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
        for attr in ("then", "other", "body"):
            binder_counts(getattr(step, attr, None) or [], counts)
    return counts


def statements_of(steps: list[Step]):
    """Every expression/statement node in a compiled step list (for checks)."""
    for step in steps:
        for attr in ("node", "cond", "items", "until", "options", "by", "prefer", "call"):
            value = getattr(step, attr, None)
            if isinstance(value, Node):
                yield value
        if isinstance(step, AssignStep):
            yield step.target
        for attr in ("then", "other", "body"):
            sub = getattr(step, attr, None)
            if sub:
                yield from statements_of(sub)


# ---------------------------------------------------------------------- sampled runs


def run_steps(steps: list[Step], frame: Frame) -> None:
    for step in steps:
        step.run(frame)
        if frame.returned:
            return


# ------------------------------------------------------------------------ exact runs


class Branch:
    """One branch of an exact enumeration: its probability, locals and world."""

    __slots__ = ("weight", "locals", "world", "globals", "result", "returned", "capped")

    def __init__(self, weight: Fraction, other: "Branch | None" = None, *, locals_=None,
                 world=None, globals_=None):
        self.weight = weight
        if other is not None:
            self.locals, self.world, self.globals = other.locals, other.world, other.globals
            self.result, self.returned, self.capped = other.result, other.returned, other.capped
        else:
            self.locals, self.world, self.globals = locals_, world, globals_
            self.result, self.returned, self.capped = None, False, False

    def scope(self) -> Scope:
        return Scope(self.locals, self.globals, self.world)

    def fork(self, p: Fraction, copy_world: bool) -> "Branch":
        child = Branch(self.weight * p, self)
        child.locals = dict(self.locals)
        if copy_world and self.world is not None:
            child.world = self.world.copy()
            rebind_units(child.locals, child.world)
        return child

    def key(self):
        return (freeze(self.locals), self.world.snapshot() if self.world else None,
                self.result if _hashable(self.result) else id(self.result), self.returned, self.capped)


def rebind_units(names: dict, world) -> None:
    """After a world is copied, names must see the copy's units, not the original's
    (or a change made in this branch would be invisible to the next step)."""
    units = world.units
    for key, value in names.items():
        if isinstance(value, Unit):
            names[key] = units.get(value.uid, value)
        elif isinstance(value, list) and any(isinstance(v, Unit) for v in value):
            names[key] = [units.get(v.uid, v) if isinstance(v, Unit) else v for v in value]


def _hashable(value) -> bool:
    try:
        hash(value)
        return True
    except TypeError:
        return False


def _merge(branches: list[Branch]) -> list[Branch]:
    """Merge branches that reached the same state: the heart of keeping enumeration small."""
    if len(branches) < 2:
        return branches
    merged: dict = {}
    for b in branches:
        k = b.key()
        if k in merged:
            merged[k].weight += b.weight
        else:
            merged[k] = b
    if len(merged) > MAX_BRANCHES:
        raise LimitError(f"exact enumeration passed {MAX_BRANCHES} distinct states",
                         hint="use `rulecraft simulate` (or `run` without --odds) for this")
    return list(merged.values())


def explore_steps(steps: list[Step], branches: list[Branch]) -> list[Branch]:
    done = [b for b in branches if b.returned]
    live = [b for b in branches if not b.returned]
    for step in steps:
        if not live:
            break
        result = _merge(step.explore(live))
        done.extend(b for b in result if b.returned)
        live = [b for b in result if not b.returned]
    return _merge(done + live)


def _is_procedure_call(node: Node, branch: Branch) -> bool:
    if not isinstance(node, Call):
        return False
    target = branch.globals.get(node.func) if hasattr(branch.globals, "get") else None
    return hasattr(target, "explore_call")


def _explore_call(call: Call, branch: Branch):
    """Enumerate a procedure called from an enumerated procedure, in this branch's world."""
    target = branch.globals[call.func]
    args = [exact(a, branch.scope()) for a in call.args]
    kwargs = [(k, exact(v, branch.scope())) for k, v in call.kwargs]
    results = []
    for weight, values in product(args + [d for _, d in kwargs]):
        pos = list(values[:len(args)])
        kw = {k: v for (k, _), v in zip(kwargs, values[len(args):])}
        for sub in target.explore_call(pos, kw, call.loc, branch, weight):
            results.append(sub)
    return results
