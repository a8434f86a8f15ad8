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
import html
import io
import json
import os
import sys
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from ..errors import UsageError, printable
from ..tables import ResolvedTable

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


def rich_table(table: ResolvedTable) -> RichTable:
    """One resolved table as a rich Table."""
    out = RichTable(show_lines=False)
    for header, numeric in zip(table.columns, _numeric_columns(table)):
        out.add_column(header, justify="right" if numeric else "left",
                       overflow="fold")
    for row in table.rows:
        out.add_row(*row)
    return out


def rich_renderables(tables: list[ResolvedTable]) -> list:
    """Renderables for a live console: each table, then its notes."""
    items: list = []
    for table in tables:
        items.append(Text(table.title, style="bold"))
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


# ------------------------------------------------------------------------------ json


def render_json(tables: list[ResolvedTable], meta: dict) -> str:
    return json.dumps([t.as_json() for t in tables], indent=2, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------------------ html

_CSS = """
:root { --ink: #1a1a1a; --rule: #999; --head: #eee; --muted: #555; }
* { box-sizing: border-box; }
body { font-family: Georgia, "Times New Roman", serif; color: var(--ink); margin: 2em auto;
       max-width: 60em; padding: 0 1em; line-height: 1.35; }
h1 { font-size: 1.6em; margin: 0 0 .2em; }
h2 { font-size: 1.2em; margin: 1.4em 0 .3em; border-bottom: 1px solid var(--rule); }
.source { color: var(--muted); margin: 0 0 1em; }
section.table { break-inside: avoid; page-break-inside: avoid; }
p.description { margin: .2em 0 .5em; }
p.note { color: var(--muted); font-style: italic; margin: .3em 0; font-size: .9em; }
table { border-collapse: collapse; width: 100%; font-size: .92em; margin: .3em 0 .6em; }
th, td { border: 1px solid var(--rule); padding: .2em .45em; vertical-align: top;
         text-align: left; }
th { background: var(--head); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr { break-inside: avoid; page-break-inside: avoid; }
dl.rulings dt { font-weight: bold; margin-top: .6em; }
dl.rulings dd { margin: .1em 0 .1em 1.2em; }
.label { font-variant: small-caps; color: var(--muted); }
@page { size: A4; margin: 15mm 12mm; }
@media print {
  body { margin: 0; max-width: none; padding: 0; font-size: 10pt; }
  th { background: #eee !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  h2 { break-after: avoid; page-break-after: avoid; }
  thead { display: table-header-group; }
  section.rulings { break-before: page; page-break-before: always; }
}
""".strip()


def _e(text) -> str:
    return html.escape("" if text is None else str(text), quote=True)


def render_html(tables: list[ResolvedTable], meta: dict) -> str:
    title = str(meta.get("title") or "Tables")
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f"<title>{_e(title)}</title>", f"<style>\n{_CSS}\n</style>", "</head>", "<body>",
             "<header>", f"<h1>{_e(title)}</h1>"]
    if meta.get("source"):
        parts.append(f'<p class="source"><span class="label">source</span> '
                     f'{_e(meta["source"])}</p>')
    parts.append("</header>")
    parts.append("<main>")
    for table in tables:
        parts.append(f'<section class="table" id="table-{_e(table.name)}">')
        parts.append(f"<h2>{_e(table.title)}</h2>")
        if table.description:
            parts.append(f'<p class="description">{_e(table.description)}</p>')
        if table.columns:
            numeric = _numeric_columns(table)
            parts.append("<table>")
            parts.append("<thead><tr>" + "".join(f'<th scope="col">{_e(c)}</th>'
                                                 for c in table.columns) + "</tr></thead>")
            parts.append("<tbody>")
            for row in table.rows:
                cells = []
                for i, cell in enumerate(row):
                    cls = ' class="num"' if i < len(numeric) and numeric[i] else ""
                    cells.append(f"<td{cls}>{_e(cell)}</td>")
                parts.append("<tr>" + "".join(cells) + "</tr>")
            parts.append("</tbody>")
            parts.append("</table>")
        for note in table.notes:
            parts.append(f'<p class="note">{_e(note)}</p>')
        if table.needs:
            parts.append(f'<p class="note">needs: {_e(", ".join(table.needs))}</p>')
        parts.append("</section>")
    parts.append("</main>")
    rulings = meta.get("rulings") or []
    if rulings:
        parts.append('<section class="rulings">')
        parts.append("<h2>Rulings</h2>")
        parts.append('<dl class="rulings">')
        for ruling in rulings:
            parts.append(f'<dt id="ruling-{_e(ruling.get("id", ""))}">'
                         f'{_e(ruling.get("id", ""))}'
                         + (f' <span class="label">({_e(ruling["topic"])})</span>'
                            if ruling.get("topic") else "") + "</dt>")
            for label in ("text", "ruling", "why"):
                if ruling.get(label):
                    parts.append(f'<dd><span class="label">{label}</span> '
                                 f'{_e(ruling[label])}</dd>')
        parts.append("</dl>")
        parts.append("</section>")
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


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
