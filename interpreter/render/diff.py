"""`rulecraft diff` output: plain text, Markdown, JSON, and an HTML page with one inline
SVG chart per changed distribution (no scripts, no external resources)."""
from __future__ import annotations

import html
import json
from fractions import Fraction

import yaml


def value_text(value) -> str:
    """A value as it would be written in a rule file (YAML flow style, one line)."""
    if value is None:
        return "null"
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, sort_keys=False,
                          width=10_000).strip()
    if text.endswith("\n..."):
        text = text[:-4].strip()
    return text.removesuffix("...").strip()


def _frac(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def _pct(p: Fraction) -> str:
    return f"{float(p) * 100:.2f}%"


def _pp(pp: float) -> str:
    return "±0" if pp == 0 else f"{pp:+.2f} pp"


def change_line(change) -> str:
    if change.op == "changed":
        return f"change {change.path}: {value_text(change.before)} -> {value_text(change.after)}"
    if change.op == "added":
        return f"add    {change.path}: {value_text(change.after)}"
    return f"remove {change.path} (was {value_text(change.before)})"


def render_text(diff) -> str:
    lines = [f"{diff.base} -> {diff.house}", "", f"changes ({len(diff.changes)}):"]
    lines += [f"  {change_line(c)}" for c in diff.changes] or ["  (none)"]
    for entry in diff.odds:
        lines += ["", f"{entry.title}:"]
        for which, error in (("before", entry.error_before), ("after", entry.error_after)):
            if error:
                lines.append(f"  {which}: {error}")
        rows = entry.rows()
        width = max([len(label) for label, *_ in rows] + [5])
        lines.append(f"  {'value'.ljust(width)}  {'before':>18}  {'after':>18}  change")
        for label, before, after, pp in rows:
            lines.append(f"  {label.ljust(width)}  {_frac(before):>9} {_pct(before):>8}"
                         f"  {_frac(after):>9} {_pct(after):>8}  {_pp(pp)}")
    if diff.unchanged:
        lines += ["", "affected, odds unchanged: " + "; ".join(diff.unchanged)]
    if diff.not_computed:
        lines += ["", "odds not computed:"] + [f"  {n}" for n in diff.not_computed]
    if diff.play_changed:
        lines += ["", "the turn or a scenario changed: `rulecraft simulate BASE --compare HOUSE` "
                      "shows what it does to whole games"]
    return "\n".join(lines) + "\n"


def render_json(diff) -> str:
    return json.dumps(diff.as_json(), default=str)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_md(diff) -> str:
    out = [f"# What `{diff.house}` changes in `{diff.base}`", "", "## Changes", ""]
    out += [f"- `{_md_cell(change_line(c))}`" for c in diff.changes] or ["(none)"]
    for entry in diff.odds:
        out += ["", f"## {entry.title}", ""]
        for which, error in (("before", entry.error_before), ("after", entry.error_after)):
            if error:
                out.append(f"*{which}: {_md_cell(error)}*\n")
        out += ["| value | before | | after | | change |", "|---|---:|---:|---:|---:|---:|"]
        for label, before, after, pp in entry.rows():
            out.append(f"| {_md_cell(label)} | {_frac(before)} | {_pct(before)} | {_frac(after)} "
                       f"| {_pct(after)} | {_pp(pp)} |")
    if diff.unchanged:
        out += ["", "Affected, odds unchanged: " + "; ".join(diff.unchanged)]
    if diff.not_computed:
        out += ["", "Odds not computed:", ""] + [f"- {_md_cell(n)}" for n in diff.not_computed]
    if diff.play_changed:
        out += ["", "The turn or a scenario changed: `rulecraft simulate BASE --compare HOUSE` "
                    "shows what it does to whole games."]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ html


_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #1b1b1b; line-height: 1.4; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
code { background: #f2f2f2; padding: 0 .2em; border-radius: 3px; }
ul.changes li { margin: .25rem 0; font-family: ui-monospace, monospace; font-size: .9rem; }
.op { display: inline-block; width: 4.5em; font-weight: bold; }
.changed .op { color: #8a5a00; } .added .op { color: #1f6f2b; } .removed .op { color: #a11; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .9rem; }
th, td { border-bottom: 1px solid #ddd; padding: .2rem .6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.up { color: #1f6f2b; } .down { color: #a11; }
.legend span { display: inline-block; width: .8em; height: .8em; margin: 0 .3em 0 1em; }
.note { color: #555; }
"""
_BEFORE, _AFTER = "#9aa7b8", "#d9822b"


def chart_svg(entry) -> str:
    """Horizontal bars: for each value, before (grey) above after (orange)."""
    rows = entry.rows()
    label_w, bar_w, row_h = 230, 380, 34
    top = max([max(float(b), float(a)) for _, b, a, _ in rows] + [0.0001])
    height = row_h * len(rows) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 90}" '
             f'height="{height}" role="img" aria-label="{html.escape(entry.title)}: before and after">']
    for i, (label, before, after, _) in enumerate(rows):
        y = 5 + i * row_h
        short = label if len(label) <= 34 else label[:33] + "…"
        parts.append(f'<text x="{label_w - 8}" y="{y + 19}" text-anchor="end" font-size="12">'
                     f'{html.escape(short)}</text>')
        for j, (p, colour) in enumerate(((before, _BEFORE), (after, _AFTER))):
            w = bar_w * float(p) / top
            parts.append(f'<rect x="{label_w}" y="{y + 2 + j * 14}" width="{w:.1f}" height="12" '
                         f'fill="{colour}"><title>{"before" if j == 0 else "after"}: '
                         f'{_frac(p)} ({_pct(p)})</title></rect>')
            parts.append(f'<text x="{label_w + w + 4:.1f}" y="{y + 12 + j * 14}" font-size="10">'
                         f'{_pct(p)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def render_html(diff) -> str:
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(diff.house)}: what it changes in {e(diff.base)}</title>",
           f"<style>{_STYLE}</style></head><body>",
           f"<h1>What <code>{e(diff.house)}</code> changes in <code>{e(diff.base)}</code></h1>",
           "<h2>Changes</h2>", '<ul class="changes">']
    for c in diff.changes:
        line = change_line(c)
        op, rest = line.split(" ", 1)
        out.append(f'<li class="{e(c.op)}"><span class="op">{e(op)}</span>{e(rest.strip())}</li>')
    out.append("</ul>")
    for entry in diff.odds:
        out.append(f"<h2>{e(entry.title)}</h2>")
        for which, error in (("before", entry.error_before), ("after", entry.error_after)):
            if error:
                out.append(f'<p class="note">{which}: {e(error)}</p>')
        out.append(f'<p class="legend"><span style="background:{_BEFORE}"></span>before'
                   f'<span style="background:{_AFTER}"></span>after</p>')
        out.append(chart_svg(entry))
        out.append("<table><tr><th>value</th><th>before</th><th></th><th>after</th><th></th>"
                   "<th>change</th></tr>")
        for label, before, after, pp in entry.rows():
            cls = "up" if pp > 0 else "down" if pp < 0 else ""
            out.append(f"<tr><td>{e(label)}</td><td>{_frac(before)}</td><td>{_pct(before)}</td>"
                       f"<td>{_frac(after)}</td><td>{_pct(after)}</td>"
                       f'<td class="{cls}">{e(_pp(pp))}</td></tr>')
        out.append("</table>")
    if diff.unchanged:
        out.append(f'<p class="note">Affected, odds unchanged: {e("; ".join(diff.unchanged))}</p>')
    if diff.not_computed:
        out.append('<p class="note">Odds not computed:</p><ul>' +
                   "".join(f"<li>{e(n)}</li>" for n in diff.not_computed) + "</ul>")
    if diff.play_changed:
        out.append('<p class="note">The turn or a scenario changed: <code>rulecraft simulate BASE '
                   '--compare HOUSE</code> shows what it does to whole games.</p>')
    out.append("</body></html>")
    return "\n".join(out) + "\n"


RENDERERS = {"text": render_text, "md": render_md, "json": render_json, "html": render_html}
