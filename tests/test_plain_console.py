"""The plain console (render/console.py) writes what the command line's rich console
writes to a file or a pipe, byte for byte: text, styles, separators, control characters,
markup-looking text, tabs and everything it hands over to rich."""
import io
import sys

from hypothesis import given, settings, strategies as st
from rich.table import Table
from rich.text import Text

from interpreter.render.console import PlainConsole, rich_console, rich_writes_plain

# the characters that matter: plain text, wide and combining characters, what rich
# strips, what the escaping hook escapes, markup and emoji look-alikes, tabs
ALPHABET = st.sampled_from(list("ab Z09_-—″█→·") + ["\t", "\n", "\r", "\x07", "\x08", "\x0b",
                                                    "\x0c", "\x1b", "\x7f", "\x9b", "\u202e",
                                                    "\u2028", "[", "]", ":", "[bold]", ":smile:",
                                                    "日", "e\u0301", "\\"])
TEXTS = st.lists(ALPHABET, max_size=12).map("".join)
STYLES = st.sampled_from(["", "bold", "dim strike", "bold green", "yellow", "magenta"])


@st.composite
def printed(draw):
    """One `print` call's objects: rich Texts (styled, some built by appending) and
    strings."""
    objects = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            text = Text(draw(TEXTS), style=draw(STYLES))
            if draw(st.booleans()):
                text.append(draw(TEXTS), style=draw(STYLES))
            objects.append(text)
        else:
            objects.append(draw(TEXTS))
    return objects


def _written(make, calls) -> str:
    """What a console made by `make` writes to a pipe for the `print` calls."""
    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        console = make()
        for objects, options in calls:
            console.print(*objects, **options)
    finally:
        sys.stdout = saved
    return out.getvalue()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(printed(), st.sampled_from([{}, {"sep": ""}, {"sep": " · "},
                                                     {"end": ""}, {"end": "\t\n"}])),
                min_size=1, max_size=4))
def test_plain_output_is_richs_output(calls):
    assert _written(PlainConsole, calls) == _written(rich_console, calls)


def test_what_it_does_not_write_itself_goes_to_rich_in_order():
    table = Table(show_edge=False)
    table.add_column("value", justify="right")
    table.add_row("3")
    calls = [([Text("before", style="bold")], {}), ([table], {}), ([], {}),
             (["a [bold]b[/bold] :smile:"], {}), ([Text("x\ty")], {}),
             ([Text("no wrap")], {"no_wrap": True}), ([Text("after")], {})]
    assert _written(PlainConsole, calls) == _written(rich_console, calls)


def test_it_is_used_only_where_rich_writes_plain_text():
    class Pipe(io.StringIO):
        def isatty(self):
            return False

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert rich_writes_plain(Pipe(), {})
    assert rich_writes_plain(Pipe(), {"FORCE_COLOR": ""})
    assert rich_writes_plain(Pipe(), {"NO_COLOR": "1"})
    assert rich_writes_plain(Pipe(), {"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"})
    assert not rich_writes_plain(Pipe(), {"FORCE_COLOR": "1"})
    assert not rich_writes_plain(Pipe(), {"TTY_COMPATIBLE": "1"})
    assert not rich_writes_plain(Terminal(), {})
    assert not rich_writes_plain(Terminal(), {"TTY_COMPATIBLE": "0"})
