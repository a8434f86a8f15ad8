"""Telling what a procedure did, in the rulebook's words: its `narrate:` template filled
in from the procedure's own names once it has run (parameters, the locals it bound, and
`result`, what it returned).  Only used while a transcript is written, and a template
cannot roll dice, so a story never changes a game."""
from __future__ import annotations

from fractions import Fraction

from ..errors import EvalError
from ..expr.functions import FUNCTIONS
from ..expr.sampled import Context, compiled
from ..expr.values import decimal_text
from ..lang.ast import (Attr, Binary, Bool, Call, Comprehension, Dice, IfExpr, Index, LetExpr,
                        ListExpr, Name, Node, Num, RecordExpr, Text, Unary, VariableDice, walk)
from ..lang.template import Narration, Template
from ..limits import TRANSCRIPT_DECIMALS
from ..tables.formulas import formula_nodes
from ..tables.rows import ConstantRow, RolledRow
from .frames import Scope


def story_text(value) -> str:
    """A value as a sentence writes it: names for units and rows, decimals for measured
    numbers, `true`/`false`/`none` as the DSL does, lists joined with commas."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    total = getattr(value, "total", None)
    if total is not None and not isinstance(value, (int, Fraction)):
        value = total
    if isinstance(value, (int, Fraction)):
        return decimal_text(value, TRANSCRIPT_DECIMALS)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return ", ".join(story_text(v) for v in value) if value else "none"
    if isinstance(value, dict):
        return ", ".join(f"{k} {story_text(v)}" for k, v in value.items())
    name = getattr(value, "name", None)
    if isinstance(name, str):
        return name
    key = getattr(value, "key", None)
    if key is not None:
        return str(key)
    return str(value)


class _NoDice:
    """The dice stream a template is filled with: a hole may not roll, not even through a
    table cell whose formula rolls (`{forces[f].rifles}` with `rifles: "=d6"`), since
    that would move the game's own stream and change what happens next."""

    def __getattr__(self, name):
        raise _RolledInTemplate()


class _RolledInTemplate(Exception):
    pass


def _without_dice(value, quiet: Context):
    """A bound value as the story may read it: a row reached by a lookup carries the run's
    dice stream (to roll its dice cells), so it is handed to the template with one that
    refuses to roll instead."""
    if isinstance(value, RolledRow) and not isinstance(value, ConstantRow):
        return RolledRow(value.row, quiet)
    if type(value) is list:
        return [_without_dice(v, quiet) for v in value]
    if type(value) is tuple:
        return tuple(_without_dice(v, quiet) for v in value)
    if type(value) is dict:
        return {k: _without_dice(v, quiet) for k, v in value.items()}
    return value


def fill(template: Template, ctx: Context) -> str:
    out = []
    for piece in template.pieces:
        if isinstance(piece, str):
            out.append(piece)
            continue
        try:
            out.append(story_text(compiled(piece)(ctx)))
        except _RolledInTemplate:
            raise EvalError("a story template may not roll dice, and this hole reads a value "
                            "that rolls (a table cell or field with a dice formula); bind it "
                            "with let in the steps and name it here", piece.loc) from None
    return "".join(out)


def tell(narration: Narration, frame, result) -> str | None:
    """The sentence for a finished call (None when its outcome is not narrated)."""
    template = narration.template_for(story_text(result))
    if template is None:
        return None
    quiet = Context(None, _NoDice(), None, frame.world, frame.ctx.depth)
    names = {name: _without_dice(value, quiet) for name, value in frame.locals.items()}
    names["result"] = _without_dice(result, quiet)
    quiet.env = Scope(names, frame.ctx.env.globals, frame.world)
    world = frame.world
    if world is None:
        return _filled(template, quiet)
    # a procedure the template calls (a pure helper that words a value) is part of the
    # sentence, not of the game: it logs nothing, and it may not change the game
    reads_only = _reads_only(template, world.ruleset)
    before = None if reads_only else world.snapshot()
    recording, world.record = world.record, False
    try:
        sentence = _filled(template, quiet)
    finally:
        world.record = recording
    if not reads_only and world.snapshot() != before:
        raise EvalError("in a narrate template: a procedure called here changed the game; "
                        "a story may only read it (make the change a step)", template.loc)
    return sentence


def _filled(template: Template, quiet: Context) -> str:
    try:
        return fill(template, quiet)
    except EvalError as err:
        err.message = f"in a narrate template: {err.message}"
        raise


# What a hole may hold and still only read: names, fields, items, literals, arithmetic,
# conditionals, comprehensions, `let ... in` and the built-in functions (plain values in,
# a value out).  A procedure, an action or a table function is called by any other name
# (`Call`), and only a call can change the game.
_READING = frozenset((Num, Text, Bool, Name, Attr, Index, ListExpr, RecordExpr, Unary, Binary,
                      IfExpr, Comprehension, LetExpr))


def _reads(node: Node, dice: bool = False) -> bool:
    """Whether evaluating `node` can only read (with `dice`, rolling too: a formula's)."""
    for n in walk(node):
        kind = n.__class__
        if kind in _READING or (dice and kind in (Dice, VariableDice)):
            continue
        if kind is Call and n.func in FUNCTIONS and not n.kwargs:
            continue
        return False
    return True


def _reads_only(template: Template, ruleset) -> bool:
    """Whether filling `template` cannot change the game, so that `tell` need not take
    the world's snapshot before and after (228 of them in one `play tanks`, a twelfth
    of the command): its holes only read, and so does every formula a read of theirs
    can evaluate -- the tables' formula cells and the statuses' modifiers
    (`formulas_read`).  Remembered per ruleset and template."""
    known = ruleset.__dict__.setdefault("_reading_templates", {}) if ruleset is not None else {}
    entry = known.get(id(template))
    if entry is None or entry[0] is not template:
        holes = all(_reads(piece) for piece in template.pieces if isinstance(piece, Node))
        entry = known[id(template)] = (template, holes and formulas_read(ruleset))
    return entry[1]


def formulas_read(ruleset) -> bool:
    """Whether every formula a field or item read can evaluate only reads: the formula
    cells of every table (found wherever a table keeps them) and the statuses'
    modifiers.  Worked out once per ruleset."""
    if ruleset is None:
        return False
    answer = ruleset.__dict__.get("_formulas_read")
    if answer is None:
        answer = ruleset._formulas_read = _tables_read(getattr(ruleset, "tables", {})) and all(
            not isinstance(value, Node) or _reads(value, dice=True)
            for status in getattr(ruleset, "statuses", {}).values()
            for value in (getattr(status, "modifies", None) or {}).values())
    return answer


def _tables_read(tables) -> bool:
    """Every formula the tables hold (`tables.formulas.formula_nodes`) only reads."""
    return all(_reads(node, dice=True) for node in formula_nodes(tables))
