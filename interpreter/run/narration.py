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


def fill(template: Template, ctx: Context) -> str:
    out = []
    for piece in template.pieces:
        out.append(piece if isinstance(piece, str) else story_text(compiled(piece)(ctx)))
    return "".join(out)


def tell(narration: Narration, frame, result) -> str | None:
    """The sentence for a finished call (None when its outcome is not narrated)."""
    template = narration.template_for(story_text(result))
    if template is None:
        return None
    scope = Scope({**frame.locals, "result": result}, frame.ctx.env.globals, frame.world)
    try:
        return fill(template, Context(scope, None, None, frame.world, frame.ctx.depth))
    except EvalError as err:
        err.message = f"in a narrate template: {err.message}"
        raise
