"""Where each character of a scalar stands in its file: the source text with its line
starts, and the reading of YAML's quoting, escapes and block folding that `location_at`
needs to point inside a DSL string exactly."""
from __future__ import annotations

import bisect
import re

from ..errors import Location

BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")
BREAK_CHARS = "\r\n\x85\u2028\u2029"


class SourceText:
    """A file's text with its line starts, to turn indexes into lines and columns.

    Line breaks are YAML's (\\r\\n, \\r, \\n, NEL, LS, PS), so our line numbers agree
    with the parser's marks.  `echo` false: locations carry no line of the text (the
    file is not a rule file, and its lines must not end up in an error message).
    """

    def __init__(self, file: str, text: str, echo: bool = True):
        self.file = file
        self.text = text
        self.echo = echo
        self.starts = [0] + [m.end() for m in BREAK.finditer(text)]

    def line_text(self, line: int) -> str:
        """The text of 0-based `line`, without its line break."""
        if line >= len(self.starts):
            return ""
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip(BREAK_CHARS)

    def position(self, index: int) -> tuple[int, int]:
        """0-based (line, column) of character `index`."""
        line = bisect.bisect_right(self.starts, index) - 1
        return line, index - self.starts[line]

    def location(self, line: int, column: int, path: str | None = "",
                 length: int = 1) -> Location:
        """A 1-based Location for 0-based `line`/`column`."""
        return Location(self.file, line + 1, column + 1,
                        self.line_text(line) if self.echo else None, path, max(length, 1))

    def at_mark(self, mark, path: str | None = "", length: int = 1) -> Location:
        return self.location(mark.line, mark.column, path, length)



_ESCAPES = {
    "0": "\0", "a": "\x07", "b": "\x08", "t": "\t", "\t": "\t", "n": "\n", "v": "\x0b",
    "f": "\x0c", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
    "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _break_length(text: str, i: int) -> int:
    """Length of the line break at `i` (0 if none)."""
    if i >= len(text):
        return 0
    if text.startswith("\r\n", i):
        return 2
    return 1 if text[i] in BREAK_CHARS else 0


def scalar_positions(text: str, node) -> list[int] | None:
    """File index of each character of the scalar's text, plus one past its end.

    The text is rebuilt from the source the way the YAML scanner builds it; only if the
    rebuilt text equals the parser's do we trust the positions.
    """
    start = _skip_properties(text, node.start_mark.index)
    end = node.end_mark.index
    if node.style in ("|", ">"):
        return _block_positions(text, start, node)
    if node.style in ("'", '"'):
        chars, where = _flow_chars(text, start + 1, end - 1, node.style)
    else:
        chars, where = _flow_chars(text, start, end, None)
    if "".join(chars) != node.text:
        return None
    return where + [end - 1 if node.style else end]


def _skip_properties(text: str, i: int) -> int:
    """Index of a scalar's own text, after any `&anchor` and `!tag` before it."""
    while i < len(text) and text[i] in "&!":
        while i < len(text) and not text[i].isspace():
            i += 1
        while i < len(text) and text[i].isspace():
            i += 1
    return i


def _flow_chars(text: str, begin: int, end: int, style: str | None):
    """Rebuild a plain or quoted scalar between `begin` and `end`, with indexes.

    Line folding as in the YAML scanner: whitespace around a line break is dropped, a
    single break becomes a space, k blank lines become k newlines (mapped to the break).
    """
    chars: list[str] = []
    where: list[int] = []
    spaces: list[int] = []
    i = begin
    while i < end:
        c = text[i]
        if c in " \t":
            spaces.append(i)
            i += 1
            continue
        if _break_length(text, i):
            i = _fold_breaks(text, i, end, chars, where, escaped=False)
            spaces = []
            continue
        for s in spaces:
            chars.append(text[s])
            where.append(s)
        spaces = []
        if style == "'" and c == "'" and text.startswith("''", i):
            chars.append("'")
            where.append(i)
            i += 2
        elif style == '"' and c == "\\" and i + 1 < end:
            i = _escape(text, i, end, chars, where)
        else:
            chars.append(c)
            where.append(i)
            i += 1
    for s in spaces:
        chars.append(text[s])
        where.append(s)
    return chars, where


def _fold_breaks(text: str, i: int, end: int, chars, where, escaped: bool) -> int:
    """Consume a line break, blank lines and indentation at `i`; emit their folding."""
    first = i
    i += _break_length(text, i)
    blank = 0
    while True:
        j = i
        while j < end and text[j] in " \t":
            j += 1
        length = _break_length(text, j) if j < end else 0
        if not length:
            break
        blank += 1
        i = j + length
    if blank:
        chars.extend("\n" * blank)
        where.extend([first] * blank)
    elif not escaped:
        chars.append(" ")
        where.append(first)
    return j


def _escape(text: str, i: int, end: int, chars, where) -> int:
    """One backslash escape of a double-quoted scalar; every produced char maps to `\\`."""
    code = text[i + 1]
    if code in _ESCAPES:
        chars.append(_ESCAPES[code])
        where.append(i)
        return i + 2
    if code in _HEX_ESCAPES:
        digits = text[i + 2:i + 2 + _HEX_ESCAPES[code]]
        try:
            chars.append(chr(int(digits, 16)))
        except ValueError:
            chars.append("\ufffd")
        where.append(i)
        return i + 2 + _HEX_ESCAPES[code]
    if _break_length(text, i + 1):
        return _fold_breaks(text, i + 1, end, chars, where, escaped=True)
    chars.append(code)
    where.append(i)
    return i + 2


def _block_positions(text: str, start: int, node) -> list[int] | None:
    """Positions for `|` and `>` scalars, trying indentations until the text matches.

    The indentation is the first content line's unless an indentation indicator says
    otherwise (relative to the parent, which we do not track), hence the search.
    """
    if start >= len(text) or text[start] not in "|>":
        return None
    header_end = start + 1
    while header_end < len(text) and text[header_end] in "+-0123456789":
        header_end += 1
    header = text[start + 1:header_end]
    chomping = "-" if "-" in header else "+" if "+" in header else ""
    line_end = header_end
    while line_end < len(text) and not _break_length(text, line_end):
        line_end += 1
    body = line_end + _break_length(text, line_end)
    detected = _first_content_indent(text, body)
    candidates = [detected] + [n for n in range(1, detected) if n != detected]
    for indent in candidates:
        if indent < 1:
            continue
        chars, where = _block_chars(text, body, indent, text[start] == ">", chomping)
        if "".join(chars) == node.text:
            return where + [(where[-1] + 1) if where else body]
    return None


def _first_content_indent(text: str, i: int) -> int:
    """Indentation of the first non-blank line from `i` (the widest blank line if more)."""
    widest = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == " ":
            j += 1
        length = _break_length(text, j)
        if not length:
            return max(widest, j - i)
        widest = max(widest, j - i)
        i = j + length
    return widest


def _block_chars(text: str, i: int, indent: int, folded: bool, chomping: str):
    """Rebuild a block scalar body starting at index `i`, as the YAML scanner does."""
    chars: list[str] = []
    where: list[int] = []
    line_start = i
    breaks, i, line_start = _block_breaks(text, i, line_start, indent)
    line_break = None
    while i - line_start == indent and i < len(text):
        for b in breaks:
            chars.append("\n")
            where.append(b)
        leading_non_space = text[i] not in " \t"
        while i < len(text) and not _break_length(text, i):
            chars.append(text[i])
            where.append(i)
            i += 1
        length = _break_length(text, i)
        line_break = i if length else None
        i += length
        line_start = i
        breaks, i, line_start = _block_breaks(text, i, line_start, indent)
        if line_break is None:
            break
        if i - line_start == indent and i < len(text):
            if folded and leading_non_space and text[i] not in " \t":
                if not breaks:
                    chars.append(" ")
                    where.append(line_break)
            else:
                chars.append("\n")
                where.append(line_break)
        else:
            break
    if chomping != "-" and line_break is not None:
        chars.append("\n")
        where.append(line_break)
    if chomping == "+":
        for b in breaks:
            chars.append("\n")
            where.append(b)
    return chars, where


def _block_breaks(text: str, i: int, line_start: int, indent: int):
    """Skip indentation and collect the breaks of blank lines (their indexes)."""
    breaks = []
    while True:
        while i - line_start < indent and i < len(text) and text[i] == " ":
            i += 1
        length = _break_length(text, i)
        if not length:
            return breaks, i, line_start
        breaks.append(i)
        i += length
        line_start = i
