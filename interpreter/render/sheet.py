"""The printable HTML reference sheet: a compact quick-reference layout.

Several tables to a page: narrow tables flow in two columns side by side, a wide one spans
the page; a table of contents at the top; the rulings on their own pages.  Rule code (the
`steps` cells of a table, such as an `effect` column) and tables of worked examples are
left out unless asked for (`full`), because a player at the table reads results, not
the engine's instructions.  One self-contained page: no scripts, no fetched files."""
from __future__ import annotations

import html

from ..tables import ResolvedTable

NARROW = 58   # characters: a table whose widest row is under this sits in one column

CSS = """
:root { --ink: #1a1a1a; --rule: #999; --head: #eee; --muted: #555; }
* { box-sizing: border-box; }
body { font-family: Georgia, "Times New Roman", serif; color: var(--ink); margin: 1.5em auto;
       max-width: 62em; padding: 0 1em; line-height: 1.25; font-size: 11pt; }
h1 { font-size: 1.5em; margin: 0 0 .1em; }
h2 { font-size: 1.05em; margin: 0 0 .2em; border-bottom: 1px solid var(--rule); }
h2 .id { font-family: monospace; font-weight: normal; font-size: .8em; color: var(--muted); }
.source { color: var(--muted); margin: 0 0 .4em; }
nav.toc { font-size: .85em; margin: 0 0 .8em; }
nav.toc ol { columns: 3 14em; margin: .2em 0; padding-left: 1.4em; }
nav.toc a { color: inherit; text-decoration: none; }
main.sheet { column-count: 2; column-gap: 1.4em; }
section.table { break-inside: avoid; page-break-inside: avoid; margin: 0 0 .9em;
                display: inline-block; width: 100%; }
section.wide { column-span: all; }
p.description { margin: .1em 0 .3em; font-size: .88em; }
p.note { color: var(--muted); font-style: italic; margin: .2em 0; font-size: .85em; }
table { border-collapse: collapse; width: 100%; font-size: .86em; margin: .2em 0 .3em; }
th, td { border: 1px solid var(--rule); padding: .1em .35em; vertical-align: top; text-align: left; }
th { background: var(--head); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr { break-inside: avoid; page-break-inside: avoid; }
section.rulings { break-before: page; page-break-before: always; columns: 2; column-gap: 1.4em;
                  font-size: .85em; }
section.rulings h2 { column-span: all; }
dl.rulings dt { font-weight: bold; margin-top: .4em; break-after: avoid; }
dl.rulings dd { margin: .05em 0 .05em 1em; }
.label { font-variant: small-caps; color: var(--muted); }
@page { size: A4; margin: 12mm 10mm; }
@media print {
  body { margin: 0; max-width: none; padding: 0; font-size: 9pt; }
  th { background: #eee !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  h2 { break-after: avoid; page-break-after: avoid; }
  thead { display: table-header-group; }
}
""".strip()


def _e(text) -> str:
    return html.escape("" if text is None else str(text), quote=True)


def is_example(table: ResolvedTable) -> bool:
    """A table of worked examples (its id or title says so: `oversize_examples`,
    "Worked example — ...")."""
    return table.name.endswith(("example", "examples")) or \
        table.title.lower().startswith(("worked example", "example"))


def sheet_columns(table: ResolvedTable, full: bool) -> list[int]:
    """The columns a sheet shows: all, or all but rule code."""
    code = set(getattr(table, "code_columns", []) or [])
    return [i for i in range(len(table.columns)) if full or i not in code]


def _width(table: ResolvedTable, shown: list[int]) -> int:
    """About how many characters the table's widest row needs (long texts wrap at 30)."""
    widest = []
    for i in shown:
        cells = [str(r[i]) for r in table.rows if i < len(r)] + [table.headings[i]]
        widest.append(min(30, max(len(c) for c in cells)))
    return sum(widest) + 3 * len(shown)


def render_sheet(tables: list[ResolvedTable], meta: dict, numeric_columns, full: bool = False) -> str:
    title = str(meta.get("title") or "Tables")
    chosen = [t for t in tables if full or not is_example(t) or meta.get("asked")]
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f"<title>{_e(title)}</title>", f"<style>\n{CSS}\n</style>", "</head>", "<body>",
             "<header>", f"<h1>{_e(title)}</h1>"]
    if meta.get("source"):
        parts.append(f'<p class="source"><span class="label">source</span> {_e(meta["source"])}</p>')
    parts.append("</header>")
    if len(chosen) > 1:
        parts.append('<nav class="toc"><ol>' + "".join(
            f'<li><a href="#table-{_e(t.name)}">{_e(t.title)}</a></li>' for t in chosen)
            + "</ol></nav>")
    parts.append('<main class="sheet">')
    for table in chosen:
        parts += _section(table, numeric_columns(table), full)
    parts.append("</main>")
    parts += _rulings(meta.get("rulings") or [])
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


def _section(table: ResolvedTable, numeric: list[bool], full: bool) -> list[str]:
    shown = sheet_columns(table, full)
    wide = _width(table, shown) > NARROW if table.columns else False
    out = [f'<section class="table{" wide" if wide else ""}" id="table-{_e(table.name)}">',
           f'<h2>{_e(table.title)} <span class="id">{_e(table.name)}</span></h2>']
    if table.description:
        out.append(f'<p class="description">{_e(table.description)}</p>')
    if table.columns:
        out.append("<table>")
        out.append("<thead><tr>" + "".join(f'<th scope="col">{_e(table.headings[i])}</th>'
                                           for i in shown) + "</tr></thead>")
        out.append("<tbody>")
        for row in table.rows:
            cells = []
            for i in shown:
                cell = row[i] if i < len(row) else ""
                cls = ' class="num"' if i < len(numeric) and numeric[i] else ""
                cells.append(f"<td{cls}>{_e(cell)}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody>")
        out.append("</table>")
    for note in table.notes:
        out.append(f'<p class="note">{_e(note)}</p>')
    if table.needs:
        out.append(f'<p class="note">needs: {_e(", ".join(table.needs))}</p>')
    left_out = len(table.columns) - len(shown)
    if left_out:
        out.append(f'<p class="note">rule code left out ({left_out} column'
                   f'{"s" if left_out != 1 else ""}; --full shows it)</p>')
    out.append("</section>")
    return out


def _rulings(rulings: list) -> list[str]:
    if not rulings:
        return []
    out = ['<section class="rulings">', "<h2>Rulings</h2>", '<dl class="rulings">']
    for ruling in rulings:
        out.append(f'<dt id="ruling-{_e(ruling.get("id", ""))}">{_e(ruling.get("id", ""))}'
                   + (f' <span class="label">({_e(ruling["topic"])})</span>' if ruling.get("topic") else "")
                   + "</dt>")
        for label in ("text", "ruling", "why"):
            if ruling.get(label):
                out.append(f'<dd><span class="label">{label}</span> {_e(ruling[label])}</dd>')
    out += ["</dl>", "</section>"]
    return out
