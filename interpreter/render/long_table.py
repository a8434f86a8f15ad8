"""Tables written as text, laid out as rich's `Table(show_edge=False)` of unwrapped cells
lays them out when they fit the console: the header justified like its column and its
columns parted by `┃`, a rule of `━` parted by `╇`, each row a cell padded by one space
each side and the columns parted by `│`.  A right-justified cell is shown without its
trailing spaces (rich strips them before it justifies), though they count in the
column's width.

Two reasons not to go through rich's `Table`: it spends about half a millisecond on each
row (measuring every cell, then rendering it through padding and segments), so the 20,000
outcomes of `d10000 + d10000` took over ten seconds to print; and to a file or a pipe
(`render/console.PlainConsole`) the whole table is text rich would write without a
style, so `run --odds` need not load rich's console and `Table` at all (some 30 ms of a
start).  A table that would not fit, or whose cells rich might measure or read otherwise
than as plain characters, is left to rich.  `tests/test_plain_table.py` holds the text
equal to rich's."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

LONG_TABLE = 400   # rows past which a table is written here rather than by rich's Table

# characters beyond printable ASCII that the tables use and rich counts one cell wide
_NARROW = frozenset("█≈≥≤→…−")


def _simple(cell: str) -> bool:
    """Whether rich would show `cell` as its own characters, one cell each, read neither
    as markup nor as an emoji code (a text cell rich is given as a string)."""
    return all((" " <= ch <= "~" or ch in _NARROW) for ch in cell) and \
        "[" not in cell and ":" not in cell


def plain_table(columns: list[tuple[str, str]], rows: list[tuple], width: int) -> str | None:
    """The text of the table ((header, "right" | "left") columns, rows of plain texts),
    every line ended, as rich prints it to a file; None when the table is wider than
    `width` or a cell is not simple."""
    widths = [len(header) for header, _ in columns]
    for cells in [tuple(h for h, _ in columns)] + rows:
        for i, cell in enumerate(cells):
            if not _simple(cell):
                return None
            if len(cell) > widths[i]:
                widths[i] = len(cell)
    widths = [max(1, w) for w in widths]   # rich gives a column one cell at least
    if sum(widths) + 3 * len(widths) - 1 > width:
        return None
    head = _line(columns, widths, [h for h, _ in columns], " ┃ ")
    rule = "╇".join("━" * (w + 2) for w in widths)
    return "\n".join([head, rule] + [_line(columns, widths, cells, " │ ")
                                      for cells in rows]) + "\n"


def _line(columns, widths, cells, parting: str) -> str:
    out = []
    for (_, justify), w, cell in zip(columns, widths, cells):
        if justify == "right":
            out.append(cell.rstrip().rjust(w))
        else:
            out.append(cell.ljust(w))
    return " " + parting.join(out) + " "


def print_long_table(console: Console, columns: list[tuple[str, str]], rows: list[tuple],
                     title: str | None = None) -> bool:
    """Print `rows` (tuples of plain texts) under `columns` ((header, "right" | "left")),
    as rich's `Table(show_edge=False)` of no-wrap columns prints them; False (nothing
    printed) when the table would not fit the console, which rich would then shrink."""
    from rich.cells import cell_len
    from rich.text import Text
    widths = [cell_len(header) for header, _ in columns]
    for row in rows:
        for i, cell in enumerate(row):
            n = cell_len(cell)
            if n > widths[i]:
                widths[i] = n
    if sum(widths) + 3 * len(widths) - 1 > console.width:
        return False
    from rich.table import Table   # here: a command that prints no table need not load it
    head = Table(title=title, show_edge=False)
    for (header, justify), width in zip(columns, widths):
        head.add_column(header, justify=justify, no_wrap=True, min_width=width)
    console.print(head)
    lines = []
    for row in rows:
        cells = []
        for (_, justify), width, cell in zip(columns, widths, row):
            if justify == "right":
                cell = cell.rstrip()
                cells.append(" " * (width - cell_len(cell)) + cell)
            else:
                cells.append(cell + " " * (width - cell_len(cell)))
        lines.append(" " + " │ ".join(cells) + " ")
    console.print(Text("\n".join(lines)), no_wrap=True, crop=False, overflow="ignore")
    return True
