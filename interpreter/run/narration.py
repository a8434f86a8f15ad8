"""Telling what a procedure did, in the rulebook's words: its `narrate:` template filled
in from the procedure's own names once it has run (parameters, the locals it bound, and
`result`, what it returned).  Only used while a transcript is written, and a template
cannot roll dice, so a story never changes a game."""
from __future__ import annotations

from fractions import Fraction

from ..errors import EvalError
from ..expr.sampled import Context, compiled
from ..expr.values import decimal_text
from ..lang.template import Narration, Template
from ..limits import TRANSCRIPT_DECIMALS
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
    before, recording, world.record = world.snapshot(), world.record, False
    try:
        sentence = _filled(template, quiet)
    finally:
        world.record = recording
    if world.snapshot() != before:
        raise EvalError("in a narrate template: a procedure called here changed the game; "
                        "a story may only read it (make the change a step)", template.loc)
    return sentence


def _filled(template: Template, quiet: Context) -> str:
    try:
        return fill(template, quiet)
    except EvalError as err:
        err.message = f"in a narrate template: {err.message}"
        raise
