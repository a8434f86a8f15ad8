"""Rendering resolved tables: rich, Markdown, CSV, JSON and one printable HTML page.

Input is a list of `interpreter.tables.ResolvedTable` (every cell already a display
string) and `meta` (plain data: `title`, `source`, `rulings` as a list of
{id, text, ruling, why}); output is text.  Nothing here computes rules.

Formats:
- `rich`: per table its title (bold), its description, a rich Table, then its notes;
  `rich_renderables` gives the renderables for printing to a live console;
- `md`: GitHub Markdown: `## title`, the description, a pipe table (pipes escaped);
- `csv`: one section per table: a line `# table: name`, then the header and rows written
  by the csv module, sections separated by a blank line;
- `json`: a list of {name, title, description, kind, columns, rows: [{column: cell}],
  odds, needs, notes} (stable; see `ResolvedTable.as_json`);
- `html`: one self-contained page (inline CSS with an A4 print stylesheet, no scripts,
  no external files), every text escaped.

`write_output` writes to stdout or a file, refusing to overwrite a file without force.
"""
from __future__ import annotations

import csv
import io
import json
import os
import sys
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from ..errors import UsageError, printable
from ..tables import ResolvedTable
from .sheet import render_sheet
from .text import clean

FORMATS = ("rich", "md", "csv", "json", "html")


def render_tables(tables: list[ResolvedTable], fmt: str, meta: dict | None = None) -> str:
    """Render resolved tables in one of FORMATS."""
    meta = meta or {}
    renderers = {"rich": render_rich, "md": render_markdown, "csv": render_csv,
                 "json": render_json, "html": render_html}
    if fmt not in renderers:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return renderers[fmt](tables, meta)


# ------------------------------------------------------------------------------ rich


def _is_number(text: str) -> bool:
    t = text.strip().rstrip("%")
    if not t:
        return False
    if "/" in t:
        a, _, b = t.partition("/")
        return _is_number(a) and _is_number(b)
    try:
        float(t)
    except ValueError:
        return False
    return True


def _numeric_columns(table: ResolvedTable) -> list[bool]:
    flags = []
    for i in range(len(table.columns)):
        cells = [row[i] for row in table.rows if i < len(row) and row[i] != ""]
        flags.append(bool(cells) and all(_is_number(c) for c in cells))
    return flags


WORD_LIMIT = 18   # a column is never narrower than its longest word, up to this


def rich_table(table: ResolvedTable) -> RichTable:
    """One resolved table as a rich Table.  Cells are Text, so rule text such as
    `[then: ...]` is shown as written and never read as rich markup; a column is at
    least as wide as its longest word (up to WORD_LIMIT), so words are not broken."""
    out = RichTable(show_lines=False)
    for i, (header, numeric) in enumerate(zip(table.headings, _numeric_columns(table))):
        words = [w for row in table.rows if i < len(row) for w in str(row[i]).split()]
        widest = max([len(w) for w in words + header.split()] or [1])
        out.add_column(Text(clean(header)), justify="right" if numeric else "left",
                       overflow="fold", min_width=min(widest, WORD_LIMIT))
    for row in table.rows:
        out.add_row(*(Text(clean(cell)) for cell in row))
    return out


def rich_renderables(tables: list[ResolvedTable]) -> list:
    """Renderables for a live console: each table, then its notes."""
    items: list = []
    for table in tables:
        items.append(Text(clean(table.title), style="bold").append(f"  {table.name}", style="dim"))
        if table.description:
            items.append(Text(table.description.strip()))
        items.append(rich_table(table))
        for note in table.notes:
            items.append(Text(f"  {note}", style="dim"))
        if table.needs:
            items.append(Text(f"  needs --with {', '.join(n + '=...' for n in table.needs)}",
                              style="yellow"))
        items.append(Text(""))
    return items


def render_rich(tables: list[ResolvedTable], meta: dict) -> str:
    """Rich rendering captured as plain text (width from meta, default 100)."""
    console = Console(record=True, width=int(meta.get("width", 100)), color_system=None,
                      file=io.StringIO(), force_terminal=False)
    if meta.get("title"):
        console.print(Text(str(meta["title"]), style="bold"))
        console.print()
    for item in rich_renderables(tables):
        console.print(item)
    return console.export_text()


# -------------------------------------------------------------------------- markdown


def _md_cell(text: str) -> str:
    return (str(text).replace("\\", "\\\\").replace("|", "\\|")
            .replace("\n", "<br>").strip())


def render_markdown(tables: list[ResolvedTable], meta: dict) -> str:
    out: list[str] = []
    if meta.get("title"):
        out.append(f"# {meta['title']}")
        out.append("")
        if meta.get("source"):
            out.append(f"Source: {meta['source']}")
            out.append("")
    for table in tables:
        out.append(f"## {table.title}")
        out.append("")
        if table.description:
            out.append(table.description.strip())
            out.append("")
        if table.columns:
            numeric = _numeric_columns(table)
            out.append("| " + " | ".join(_md_cell(c) for c in table.columns) + " |")
            out.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
            for row in table.rows:
                out.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
            out.append("")
        for note in table.notes:
            out.append(f"*{_md_cell(note)}*")
            out.append("")
        if table.needs:
            out.append(f"*needs: {', '.join(table.needs)}*")
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# ------------------------------------------------------------------------------- csv


def render_csv(tables: list[ResolvedTable], meta: dict) -> str:
    buffer = io.StringIO()
    for i, table in enumerate(tables):
        if i:
            buffer.write("\n")
        buffer.write(f"# table: {table.name}\n")
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(table.columns)
        writer.writerows(table.rows)
    return buffer.getvalue()


def csv_files(tables: list[ResolvedTable]) -> dict[str, str]:
    """One CSV per table, named by its id, each a plain sheet (a header row, then the
    rows) that a spreadsheet opens as it is."""
    files = {}
    for table in tables:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(table.columns)
        writer.writerows(table.rows)
        files[f"{table.name}.csv"] = buffer.getvalue()
    return files


def write_files(directory: str | os.PathLike, files: dict[str, str], force: bool = False) -> list[str]:
    """Write `files` (name -> text) into `directory` (made if missing); a file that
    exists needs force.  Returns the paths written."""
    folder = os.fspath(directory)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise UsageError(f"{folder} is a file; CSV sheets go into a directory (one file per table)")
    targets = [os.path.join(folder, name) for name in files]
    clashing = [t for t in targets if os.path.exists(t)]
    if clashing and not force:
        raise UsageError(f"{clashing[0]} already exists; use --force to overwrite it")
    try:
        os.makedirs(folder, exist_ok=True)
        for target, text in zip(targets, files.values()):
            with open(target, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
    except OSError as err:
        raise UsageError(f"cannot write into {folder}: {err.strerror or err}") from None
    return targets


# ------------------------------------------------------------------------------ json


def render_json(tables: list[ResolvedTable], meta: dict) -> str:
    return json.dumps([t.as_json() for t in tables], indent=2, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------------------ html

def render_html(tables: list[ResolvedTable], meta: dict) -> str:
    """The printable reference sheet (render/sheet.py)."""
    return render_sheet(tables, meta, _numeric_columns, bool(meta.get("full")))


# ------------------------------------------------------------------------------ output


def write_output(text: str, output_path: str | os.PathLike | None, force: bool = False
                 ) -> None:
    """Write to stdout (no path) or a file; an existing file needs force."""
    if output_path is None or str(output_path) == "-":
        # to the terminal: control characters from the rules escaped (a CSV's \r\n kept)
        sys.stdout.write("\r\n".join(printable(part, keep="\n\t")
                                      for part in text.split("\r\n")))
        sys.stdout.flush()
        return
    path = os.fspath(output_path)
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory; give a file name for --output")
    if os.path.exists(path) and not force:
        raise UsageError(f"{path} already exists; use --force to overwrite it")
    try:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror or err}") from None
