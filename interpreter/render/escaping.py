"""Control characters from rule files escaped in everything rich prints (issue #20): a
render hook on the command line's rich console (`render/console.py`), which the plain
console matches by escaping its text with the same `errors.printable`."""
from __future__ import annotations

from rich.console import Console, RenderHook
from rich.segment import Segment

from ..errors import printable


class _Escaped:
    """A renderable shown with every control character of its text escaped (rich's own
    control segments, such as cursor moves of a progress bar, pass)."""

    def __init__(self, inner):
        self.inner = inner

    def __rich_console__(self, console, options):
        for segment in console.render(self.inner, options):
            if segment.control:
                yield segment
            else:
                yield Segment(printable(segment.text, keep="\n"), segment.style)


class _Escaping(RenderHook):
    def process_renderables(self, renderables):
        return [_Escaped(r) for r in renderables]


def escaping(console: Console) -> Console:
    """The console with every renderable it prints escaped (story, trace, tables, rolls):
    text from rule files (a `title`, an `emit`, a cell) never carries a control
    character to the terminal."""
    console.push_render_hook(_Escaping())
    return console

