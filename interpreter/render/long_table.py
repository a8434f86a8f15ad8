"""A long table written line by line: rich's `Table` spends about half a millisecond on
each row (measuring every cell, then rendering it through padding and segments), so the
20,000 outcomes of `d10000 + d10000` took over ten seconds to print.  A table of
unwrapped cells that fits the console is laid out here the same way rich lays it out
(the header and its rule by rich itself, each row a cell padded by one space each side
and the columns parted by `│`), and printed as one block of text."""
from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console

LONG_TABLE = 400   # rows past which a table is written here rather than by rich's Table


def print_long_table(console: Console, columns: list[tuple[str, str]], rows: list[tuple],
                     title: str | None = None) -> bool:
    """Print `rows` (tuples of plain texts) under `columns` ((header, "right" | "left")),
    as rich's `Table(show_edge=False)` of no-wrap columns prints them; False (nothing
    printed) when the table would not fit the console, which rich would then shrink."""
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
            pad = " " * (width - cell_len(cell))
            cells.append(pad + cell if justify == "right" else cell + pad)
        lines.append(" " + " │ ".join(cells) + " ")
    console.print(Text("\n".join(lines)), no_wrap=True, crop=False, overflow="ignore")
    return True
