"""Styled text whose rich `Text` is made only when rich draws it.

Importing `rich.text` (with the styles, colours, segments and cell tables it stands on)
costs about 10 ms, a tenth of a `roll 2d6`; to a file or a pipe nothing of it is needed,
since the plain console (render/console.py) writes a line's plain characters.  A
`Styled` records what a renderer asks of a `Text` -- made with a text and a style, then
pieces appended with their styles, other styled texts appended -- and keeps the plain
characters as rich's `Text` keeps them (the control codes it strips, stripped).  Printed
by a rich console (a terminal, a table cell), `__rich__` makes the `Text` by making the
very same calls, so a terminal shows what it showed before; `tests/test_styled.py` holds
both outputs to those of the `Text` built directly.
"""
from __future__ import annotations

# what rich's Text removes from the text it is given (rich.control.STRIP_CONTROL_CODES:
# bell, backspace, vertical tab, form feed, carriage return)
RICH_STRIPS = {7: None, 8: None, 11: None, 12: None, 13: None}


class Styled:
    """`rich.text.Text(text, style=style)`, with `append` and `append_text`, deferred."""

    __slots__ = ("_calls", "_plain")

    def __init__(self, text: str = "", style: str = ""):
        self._calls: list = [(text, style)]
        self._plain = [text.translate(RICH_STRIPS)]

    def append(self, text: str, style: str | None = None) -> Styled:
        self._calls.append((text, style))
        self._plain.append(text.translate(RICH_STRIPS))
        return self

    def append_text(self, other: Styled) -> Styled:
        self._calls.append(other)
        self._plain.append(other.plain)
        return self

    @property
    def plain(self) -> str:
        return "".join(self._plain)

    def __str__(self) -> str:
        return self.plain

    def __len__(self) -> int:
        return len(self.plain)

    def __rich__(self):
        """The `Text` the same calls make."""
        from rich.text import Text
        (text, style), *rest = self._calls
        out = Text(text, style=style)
        for call in rest:
            if isinstance(call, Styled):
                out.append_text(call.__rich__())
            else:
                out.append(*call)
        return out
