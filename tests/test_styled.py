"""A `Styled` (render/styled.py) prints as the rich `Text` made by the same calls: in
colour at a terminal, plain to a pipe, through the plain console and rich's."""
import io
import sys

from hypothesis import given, settings, strategies as st
from rich.console import Console
from rich.text import Text

from interpreter.render.console import PlainConsole, rich_console
from interpreter.render.styled import Styled

ALPHABET = st.sampled_from(list("ab Z09_-—█→·") + ["\t", "\n", "\r", "\x07", "\x08", "\x0b",
                                                  "\x0c", "\x1b", "[", "]", ":", "[bold]",
                                                  ":smile:", "日", "e\u0301"])
TEXTS = st.lists(ALPHABET, max_size=8).map("".join)
STYLES = st.sampled_from(["", "bold", "dim strike", "bold green", "yellow", None])


@st.composite
def built(draw, depth=0):
    """The same calls made on a Styled and on a Text: (styled, text)."""
    text, style = draw(TEXTS), draw(STYLES) or ""
    styled, rich = Styled(text, style=style), Text(text, style=style)
    for _ in range(draw(st.integers(0, 3))):
        if depth < 2 and draw(st.booleans()):
            inner_styled, inner_rich = draw(built(depth + 1))
            styled.append_text(inner_styled)
            rich.append_text(inner_rich)
        else:
            piece, piece_style = draw(TEXTS), draw(STYLES)
            styled.append(piece, style=piece_style)
            rich.append(piece, style=piece_style)
    return styled, rich


def _printed(console_of, objects) -> str:
    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        console_of(out).print(*objects)
    finally:
        sys.stdout = saved
    return out.getvalue()


@settings(max_examples=150, deadline=None)
@given(st.lists(built(), min_size=1, max_size=3))
def test_a_styled_text_prints_as_its_rich_text(pairs):
    styled, rich = [s for s, _ in pairs], [r for _, r in pairs]
    assert [s.plain for s in styled] == [r.plain for r in rich]
    colour = lambda out: Console(file=out, force_terminal=True, color_system="truecolor",
                                 width=60)
    assert _printed(colour, styled) == _printed(colour, rich)
    for make in (lambda out: rich_console(), lambda out: PlainConsole()):
        assert _printed(make, styled) == _printed(make, rich)
