"""Procedure steps as data: the statement layer of the DSL, built once from the rule file.

A step list in YAML holds statement strings (`let hit = d6`, `target.hits -= 3`,
`return "miss"`, `apply(target, "shaken", turns=1)`) and control-flow mappings
(`if/then/else`, `for/in/do`, `repeat/until/max`, `choose/from/by/prefer`, `modify`).
`compile_steps` turns them into the frozen Step classes below.  Steps do not run
themselves: the sampled runner (`run.sampled`), exact enumeration (`run.exact`) and the
compiled form (`run.codegen`) are three visitors over the same data.

Every step offers `expressions()` (the trees it evaluates itself) and `blocks()` (its
nested step lists), so that a walker needs no list of attribute names of its own.
"""
from __future__ import annotations

import re

from ..errors import DSLSyntaxError, Location, RulecraftError
from ..limits import MAX_LOOP
from ..source.nodes import (MapNode, ScalarNode, SeqNode, unquoted_step_hint,
                            unquoted_step_message)
from ..suggest import did_you_mean
from .ast import (AssignStmt, Attr, Binary, Call, CallStmt, EmitStmt, Index, LetStmt, ListExpr,
                  Name, Node, ReturnStmt, to_text)
from .frozen import FrozenRecord, frozen
from .parse import parse_expression, parse_statement
from .step_errors import StepErrors

Steps = tuple  # a step list: a tuple of Step


class Step(FrozenRecord):
    """Base of the step classes (frozen, compared by identity: lang/frozen.py): what
    every walker may ask of a step."""

    loc: Location | None

    def expressions(self) -> tuple[Node, ...]:
        return ()

    def blocks(self) -> tuple[Steps, ...]:
        return ()

    def children(self) -> tuple:
        """Expression trees first, then the steps of every nested block."""
        return self.expressions() + tuple(s for block in self.blocks() for s in block)

    def binds(self) -> str | None:
        """The local name this step binds, if any."""
        return None


@frozen
class LetStep(Step):
    """`let hit = d6`: bind a value (a bound dice term keeps its natural face)."""

    name: str
    node: Node
    text: str
    loc: Location | None

    def expressions(self):
        return (self.node,)

    def binds(self):
        return self.name


@frozen
class AssignStep(Step):
    """`target.hits -= damage`, `target.locations[at].armour -= 4`: change a unit's
    field, a side's data or a local name, or an item inside one of them.

    `path` is the owner's name, then one entry per step into it: a field name (`str`)
    for `.field`, or the key's expression (a `Node`) for `[key]`, worked out when the
    step runs (`keys()` lists those)."""

    target: Node
    op: str          # = += -= *=
    node: Node
    path: tuple      # (owner name, then str fields and Node keys)
    text: str
    loc: Location | None

    def expressions(self):
        return (self.node, self.target)

    def binds(self):
        return self.path[0] if len(self.path) == 1 else None

    def keys(self) -> tuple[Node, ...]:
        """The computed keys of the path, in order (none for `unit.armour.front`)."""
        return tuple(part for part in self.path[1:] if isinstance(part, Node))

    @property
    def fields_only(self) -> bool:
        """Whether every step of the path is a written field name (nothing computed)."""
        return not self.keys()


@frozen
class ReturnStep(Step):
    node: Node
    loc: Location | None

    def expressions(self):
        return (self.node,)


@frozen
class EmitStep(Step):
    node: Node
    loc: Location | None

    def expressions(self):
        return (self.node,)


@frozen
class CallStep(Step):
    call: Call
    loc: Location | None

    def expressions(self):
        return (self.call,)


@frozen
class IfStep(Step):
    cond: Node
    then: Steps
    other: Steps
    loc: Location | None

    def expressions(self):
        return (self.cond,)

    def blocks(self):
        return (self.then, self.other)


@frozen
class ForStep(Step):
    var: str
    items: Node
    body: Steps
    loc: Location | None

    def expressions(self):
        return (self.items,)

    def blocks(self):
        return (self.body,)

    def binds(self):
        return self.var


@frozen
class RepeatStep(Step):
    """`repeat: [...] until: C max: N`.  With `max`, stopping there is the rule's intent
    ("roll until a 4+, at most 3 times") and play goes on; without one, reaching
    MAX_LOOP means the loop would not end, which is an error at the step."""

    body: Steps
    until: Node
    limit: int
    loc: Location | None
    explicit: bool = True

    def expressions(self):
        return (self.until,)

    def blocks(self):
        return (self.body,)


@frozen
class ChooseStep(Step):
    """`choose: var from: options by: chooser prefer: expr` — a decision point."""

    var: str
    options: Node
    by: Node | None
    prefer: Node | None
    loc: Location | None
    label: str | None = None   # what is chosen, in the rulebook's words (prompts, story)

    @property
    def what(self) -> str:
        """What is being chosen, as a player reads it: the `label:`, else the name."""
        return self.label or self.var.replace("_", " ")

    def expressions(self):
        return tuple(n for n in (self.options, self.by, self.prefer) if n is not None)

    def binds(self):
        return self.var


@frozen
class RollStep(Step):
    """`roll: hit, dice: d6, by: attacker, against: target, wanted: hit <= need`: a roll
    the units it affects may have rolled again (Jugger's Luck and Fate).  It binds like
    `let` (`bind`); then the `rolled_by` hooks of `by` and the `rolled_against` hooks of
    `against` (their kind's and their statuses') are offered it in that order, each
    seeing `roll` and `bad` (whether the roll as it stands goes against its holder, by
    `wanted`, what the roller hopes for); a hook that returns "reroll" has it rolled
    again, and the new roll stands for that hook (run/rerolls.py)."""

    bind: LetStep
    by: Node | None
    against: Node | None
    wanted: Node
    loc: Location | None

    @property
    def name(self) -> str:
        return self.bind.name

    def expressions(self):
        return tuple(n for n in (self.bind.node, self.by, self.against, self.wanted)
                     if n is not None)

    def binds(self):
        return self.bind.name


@frozen
class ModifyStep(Step):
    """`modify: need, base: {to-hit: attacker.to_hit}, add: {sword: weapon.to_hit, ...}`:
    a value built from labelled modifiers, shown as a breakdown in the transcript
    (`need: to-hit 7 −1 sword +3 cover = 9`).  Modifiers that come to 0 are left out of
    the breakdown.  `stack: sum` (default) adds every modifier; `stack: best` / `worst`
    adds only the largest / smallest one (for rules where bonuses do not stack).
    `node` is the whole value as one expression (what exact odds and compiled code use);
    `parts` are the base and the modifiers, for the breakdown."""

    name: str
    base_label: str
    labels: tuple[str, ...]
    parts: tuple[Node, ...]
    stack: str
    node: Node
    loc: Location | None

    @property
    def text(self) -> str:
        return self.name

    def expressions(self):
        return (self.node,) + self.parts

    def binds(self):
        return self.name


# ------------------------------------------------------------------------ compilation


def compile_steps(node, what: str = "steps", errors: StepErrors | None = None) -> Steps:
    """Compile a YAML step list (located nodes from `source.load`) into Steps.

    Without `errors` the first bad step raises.  With it, every bad step (nested ones
    too) is recorded there and left out of the result, so the steps returned are only
    ever real Steps: no walker meets a placeholder.  A list with errors never runs (the
    ruleset is refused), so leaving a step out only narrows what the checks see."""
    if node is None:
        return ()
    if isinstance(node, ScalarNode):
        return _one_step(node, _compile_statement, errors)
    if not isinstance(node, SeqNode):
        err = DSLSyntaxError(f"{what} must be a list of steps", node.location)
        if errors is None:
            raise err
        errors.report(err, node)
        return ()
    steps = []
    for item in node:
        if isinstance(item, ScalarNode):
            steps.extend(_one_step(item, _compile_statement, errors))
        elif isinstance(item, MapNode):
            steps.extend(_one_step(item, lambda n: _compile_control(n, errors), errors))
        else:
            err = DSLSyntaxError("a step is a statement string or an if/for/repeat/choose mapping",
                                 item.location)
            if errors is None:
                raise err
            errors.report(err, item)
    return tuple(steps)


def _one_step(item, compile_one, errors: StepErrors | None) -> tuple:
    """One compiled step, or none (the error recorded) when going on past errors."""
    if errors is None:
        return (compile_one(item),)
    try:
        return (compile_one(item),)
    except RulecraftError as err:
        errors.report(err, item)
        if isinstance(item, MapNode):
            _blocks_of_broken(item, errors)
        return ()


BLOCK_KEYS = ("then", "else", "do", "repeat")
"""The keys of a control step that hold nested step lists."""


def _blocks_of_broken(node: MapNode, errors: StepErrors) -> None:
    """A control step whose own part is broken (`if: d6 >`) is left out, but the steps
    nested in it are still compiled, for their errors and for the names they bind."""
    for key in BLOCK_KEYS:
        if key in node:
            steps = compile_steps(node[key], "steps", errors)
            errors.bound |= {step.binds() for step in all_steps(steps) if step.binds()}


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
    try:
        stmt = parse_statement(node.value, node.location_at(0))
    except DSLSyntaxError as err:
        raise _misspelt_statement(node, err) from None
    if isinstance(stmt, LetStmt):
        return LetStep(stmt.name, stmt.value, to_text(stmt), stmt.loc)
    if isinstance(stmt, AssignStmt):
        return AssignStep(stmt.target, stmt.op, stmt.value, _target_path(stmt.target),
                          to_text(stmt), stmt.loc)
    if isinstance(stmt, ReturnStmt):
        return ReturnStep(stmt.value, stmt.loc)
    if isinstance(stmt, EmitStmt):
        return EmitStep(stmt.value, stmt.loc)
    assert isinstance(stmt, CallStmt)
    call = stmt.call
    if call.func in CHANGING_CALLS and call.args and _assignable(call.args[0]):
        # `append(target.equipment, item)` as a step changes what it names: it is the
        # assignment `target.equipment = append(target.equipment, item)`, so that every
        # runner, the transcript and the checks treat it as one.
        target = call.args[0]
        return AssignStep(target, "=", call, _target_path(target), to_text(stmt), stmt.loc)
    return CallStep(call, stmt.loc)


STATEMENT_WORDS = ("let", "return", "emit")


def _misspelt_statement(node, err: DSLSyntaxError) -> DSLSyntaxError:
    """`retrun "miss"`: a first word followed by a value, which is no statement, is most
    likely a misspelt statement word; say which."""
    match = re.match(r"\s*([A-Za-z_]\w*)\s+(?![=+\-*/<>!(.\[]|and\b|or\b)", node.value)
    if match is None or match.group(1) in STATEMENT_WORDS:
        return err
    word = match.group(1)
    hint = did_you_mean(word, STATEMENT_WORDS)
    if hint is None:
        return err
    return DSLSyntaxError(f"unknown statement {word!r}", node.location_at(match.start(1)),
                          hint=f"{hint} (statements: let, return, emit, an assignment or a call)")


CHANGING_CALLS = ("append", "remove_one")
"""List functions that, written as a step on something assignable, change it in place."""


def _assignable(node: Node) -> bool:
    while isinstance(node, (Attr, Index)):
        node = node.obj
    return isinstance(node, Name)


def _target_path(node: Node) -> tuple:
    if isinstance(node, Name):
        return (node.id,)
    if isinstance(node, Attr):
        return _target_path(node.obj) + (node.name,)
    if isinstance(node, Index):
        return _target_path(node.obj) + (node.key,)
    raise DSLSyntaxError("only names, fields and items (unit.hits, target.armour.front, "
                         "target.locations[at].armour) can be assigned", node.loc)


def _compile_control(node, errors: StepErrors | None = None) -> Step:
    keys = set(node.keys())
    loc = node.location
    if "if" in keys:
        _only(node, {"if", "then", "else"})
        if "then" not in keys:
            raise DSLSyntaxError("an 'if' step needs 'then'", loc)
        return IfStep(_expr(node["if"]), compile_steps(node["then"], "steps", errors),
                      compile_steps(node.get("else"), "steps", errors), loc)
    if "for" in keys:
        _only(node, {"for", "in", "do"})
        var = node["for"].value
        if not isinstance(var, str) or not var.isidentifier():
            raise DSLSyntaxError("'for' names the loop variable", node["for"].location)
        if "in" not in keys or "do" not in keys:
            raise DSLSyntaxError("a 'for' step needs 'in' and 'do'", loc)
        return ForStep(var, _expr(node["in"]), compile_steps(node["do"], "steps", errors), loc)
    if "repeat" in keys:
        _only(node, {"repeat", "until", "max"})
        if "until" not in keys:
            raise DSLSyntaxError("a 'repeat' step needs 'until'", loc)
        limit = node["max"].value if "max" in keys else MAX_LOOP
        if not isinstance(limit, int) or not 1 <= limit <= MAX_LOOP:
            raise DSLSyntaxError(f"'max' must be a whole number from 1 to {MAX_LOOP}",
                                 node["max"].location)
        until = _expr(node["until"])   # before the block: a broken until reports it once
        return RepeatStep(compile_steps(node["repeat"], "steps", errors), until, limit, loc,
                          explicit="max" in keys)
    if "modify" in keys:
        return _compile_modify(node)
    if "roll" in keys:
        return _compile_roll(node)
    if "choose" in keys:
        _only(node, {"choose", "from", "by", "prefer", "label"})
        var = node["choose"].value
        if not isinstance(var, str) or not var.isidentifier():
            raise DSLSyntaxError("'choose' names the variable that gets the choice",
                                 node["choose"].location)
        if "from" not in keys:
            raise DSLSyntaxError("a 'choose' step needs 'from'", loc)
        return ChooseStep(var, _expr(node["from"]),
                          _expr(node["by"]) if "by" in keys else None,
                          _expr(node["prefer"]) if "prefer" in keys else None, loc,
                          _label(node["label"]) if "label" in keys else None)
    meant = node.unquoted_statement()
    if meant is not None:
        raise DSLSyntaxError(unquoted_step_message("this step"), loc, hint=unquoted_step_hint(meant))
    raise DSLSyntaxError("a control step starts with if, for, repeat, choose, modify or roll", loc)


def _label(node) -> str:
    if not isinstance(node, ScalarNode) or not isinstance(node.value, str) or not node.value.strip():
        raise DSLSyntaxError("'label' is a text naming what is chosen", node.location)
    return node.value


def _compile_roll(node) -> Step:
    _only(node, {"roll", "dice", "by", "against", "wanted"})
    name, loc, keys = node["roll"].value, node.location, set(node.keys())
    if not isinstance(name, str) or not name.isidentifier():
        raise DSLSyntaxError("'roll' names the value it binds", node["roll"].location)
    if "dice" not in keys or "wanted" not in keys:
        raise DSLSyntaxError("a 'roll' step needs 'dice' (what is rolled) and 'wanted' (what "
                             "the roller hopes for, e.g. wanted: hit <= need)", loc)
    if "by" not in keys and "against" not in keys:
        raise DSLSyntaxError("a 'roll' step needs 'by' or 'against': the units whose hooks "
                             "may have it rolled again", loc)
    dice = _expr(node["dice"])
    return RollStep(LetStep(name, dice, to_text(dice), dice.loc),
                    _expr(node["by"]) if "by" in keys else None,
                    _expr(node["against"]) if "against" in keys else None,
                    _expr(node["wanted"]), loc)


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
    base_expr, loc = _expr(base_node), node.location
    if stack == "sum" or not mods:
        total = base_expr
        for _, expr in mods:
            total = Binary("+", total, expr, loc=expr.loc)
    else:
        pick = "max" if stack == "best" else "min"
        total = Binary("+", base_expr, Call(pick, (ListExpr(tuple(m[1] for m in mods)),), loc=loc),
                       loc=loc)
    return ModifyStep(name, base_label, tuple(m[0] for m in mods),
                      (base_expr,) + tuple(m[1] for m in mods), stack, total, loc)


def _only(node, allowed: set[str]) -> None:
    for key in node.keys():
        if key not in allowed:
            raise DSLSyntaxError(f"unexpected key {key!r} in this step", node.key_location(key),
                                 hint=did_you_mean(key, allowed))


# ---------------------------------------------------------------------- walking steps


def all_steps(steps):
    """Every step of a list, nested blocks included, parents first."""
    for step in steps:
        yield step
        for block in step.blocks():
            yield from all_steps(block)


def statements_of(steps):
    """Every expression tree of a step list, nested blocks included (for checks)."""
    for step in all_steps(steps):
        yield from step.expressions()
