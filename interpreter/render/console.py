"""The console a command prints to: rich's, or, where rich would write nothing but the
text itself, a plain one that writes the same bytes without loading rich's console.

Building rich's `Console` costs about a third of a `roll` (importing `rich.console` and its
styles, themes and logging is some 30 ms of CPU, more than the roll, its parsing and its
printing together).  To a file or a pipe rich writes no escape codes and cuts no lines
(`cli/main.py` asks for soft wrapping there), so a line of styled `Text` comes out as its
plain characters, the objects of one `print` joined by its `sep`, control characters
escaped by the render hook (`render/escaping.py`).  `PlainConsole` writes exactly that for
what it can be sure of -- rich `Text` objects and strings free of markup and emoji codes,
without tabs -- and hands everything else (tables, options, a `width` asked for) to a rich
console it builds then, configured as the command line's own: both write to the same
`sys.stdout` in order, so the output is the one rich alone would write.
`tests/test_plain_console.py` holds the two equal, text for text.
"""
from __future__ import annotations

import builtins
import os
import sys

from ..errors import printable
from .styled import RICH_STRIPS as _RICH_STRIPS, Styled


def rich_writes_plain(stream=None, environ=None) -> bool:
    """Whether rich's console on `stream` (stdout) would write plain text, unwrapped:
    `stream` is no terminal (so the command line asks for soft wrapping), and rich's own
    test of a terminal (rich.console.Console.is_terminal: TTY_COMPATIBLE, then
    FORCE_COLOR, then isatty) says no."""
    stream = sys.stdout if stream is None else stream
    environ = os.environ if environ is None else environ
    try:
        if stream.isatty():
            return False
    except (AttributeError, ValueError):
        return False
    compatible = environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "0"
    force = environ.get("FORCE_COLOR")
    return force is None or force == ""


def rich_console():
    """The command line's rich console: unwrapped lines to a file or a pipe (a program or
    an editor wraps them), control characters from rule files escaped."""
    from rich.console import Console
    from .escaping import escaping
    return escaping(Console(highlight=False, soft_wrap=not sys.stdout.isatty()))


def stdout_console():
    """The console `rulecraft` prints its results to."""
    return PlainConsole() if rich_writes_plain() else rich_console()


class PlainConsole:
    """`print` of plain text as the command line's rich console writes it to a file or a
    pipe; anything else goes to that rich console, built at its first use."""

    def __init__(self):
        self._rich = None

    @property
    def rich(self):
        if self._rich is None:
            self._rich = rich_console()
        return self._rich

    def __getattr__(self, name):
        # `render`, `size`, ...: what only rich knows (its renderables, its options)
        return getattr(self.rich, name)

    @property
    def width(self) -> int:
        """The width rich's console would take (rich.console.Console.size, for an output
        that is no terminal): COLUMNS when it is a number, else the size of the first of
        stdin, stdout and stderr that is a terminal, else 80.  Where rich has rules of
        its own (Windows' legacy console, Jupyter) rich is asked."""
        if self._rich is not None or sys.platform == "win32" or "get_ipython" in vars(builtins):
            return self.rich.width
        columns = os.environ.get("COLUMNS")
        if columns is not None and columns.isdigit():
            return int(columns)
        for descriptor in (0, 1, 2):
            try:
                width = os.get_terminal_size(descriptor)[0]
            except (AttributeError, ValueError, OSError):
                continue
            return width or 80
        return 80

    def print(self, *objects, sep: str = " ", end: str = "\n", **options) -> None:
        if not objects:   # rich's blank line, or with another `end` an empty text
            objects = () if end == "\n" else ("",)
        text = None if options else _plain_line(objects, sep)
        if text is None:
            self.rich.print(*objects, sep=sep, end=end, **options)
            return
        stream = sys.stdout
        try:
            stream.write(text if not objects else text + printable(end, keep="\n"))
        except UnicodeEncodeError as error:   # as rich says it
            error.reason = (f"{error.reason}\n*** You may need to add PYTHONIOENCODING=utf-8 "
                            f"to your environment ***")
            raise
        stream.flush()


def _plain_line(objects, sep: str) -> str | None:
    """What rich writes for `print(*objects, sep=sep)` without its `end`, when every object
    is a rich `Text`, a `Styled` (render/styled.py) or a string rich reads as plain text,
    and nothing holds a tab (which rich expands by cell widths); None otherwise.  No
    object at all is rich's blank line."""
    if not objects:
        return "\n"
    parts = []
    text_class = _rich_text_class()
    for item in objects:
        if type(item) is str:
            if "[" in item or ":" in item:   # markup or an emoji code: rich's to read
                return None
            parts.append(item.translate(_RICH_STRIPS))
        elif type(item) is Styled or (text_class is not None and type(item) is text_class):
            parts.append(item.plain)
        else:
            return None
    line = sep.translate(_RICH_STRIPS).join(parts)
    if "\t" in line:
        return None
    return printable(line, keep="\n")


def _rich_text_class():
    """rich's `Text` if it is loaded (a `Text` object can only exist then), else None."""
    module = sys.modules.get("rich.text")
    return None if module is None else module.Text
