"""Distributions as charts a player can paste into a forum post: a bar chart as a
self-contained SVG (or an HTML page holding it and the numbers), several distributions
side by side in the same chart.  No scripts, no fonts or files fetched."""
from __future__ import annotations

import html
from fractions import Fraction

from .terminal import ordered_items, shown_value

COLOURS = ["#3b6ea5", "#c0504d", "#9bbb59", "#8064a2", "#f79646", "#4bacc6"]
BAR = 18          # px: width of one bar
GAP = 10          # px: between groups of bars
HEIGHT = 220      # px: the plotting area
LEFT, BOTTOM, TOP = 48, 70, 40


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _columns(series: list, order: list | None) -> list[str]:
    """The values on the x axis: in the declared order, else as the first distribution
    sorts them, then any the others add."""
    values: list[str] = []
    for _, dist in series:
        for value, _w in ordered_items(dist, order):
            text = shown_value(value)
            if text not in values:
                values.append(text)
    return values


def _shares(dist) -> dict[str, Fraction]:
    return {shown_value(v): Fraction(w, dist.total) for v, w in dist.items()}


def render_svg(series: list, title: str, order: list | None = None) -> str:
    """`series`: [(label, Distribution)].  Bars of probability per value."""
    values = _columns(series, order)
    shares = [_shares(d) for _, d in series]
    top = max((float(p) for s in shares for p in s.values()), default=1.0) or 1.0
    group = BAR * len(series) + GAP
    longest = max((len(v) for v in values), default=1)
    left = max(LEFT, int(5.2 * longest))          # the first slanted label fits
    bottom = max(BOTTOM, int(20 + 3.8 * longest))
    width = left + group * len(values) + 20
    height = TOP + HEIGHT + bottom + 18 * len(series)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<title>{_e(title)}</title>',
           f'<text x="{left}" y="20" font-size="14" font-weight="bold">{_e(title)}</text>']
    for tick in range(0, 5):
        share = top * tick / 4
        y = TOP + HEIGHT - HEIGHT * tick / 4
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{100 * share:.0f}%</text>')
    for i, value in enumerate(values):
        x0 = left + GAP / 2 + i * group
        for j, share in enumerate(shares):
            p = share.get(value, Fraction(0))
            h = HEIGHT * float(p) / top
            x = x0 + j * BAR
            out.append(f'<rect x="{x:.1f}" y="{TOP + HEIGHT - h:.1f}" width="{BAR - 2}" '
                       f'height="{h:.1f}" fill="{COLOURS[j % len(COLOURS)]}">'
                       f'<title>{_e(series[j][0])}: {_e(value)} {100 * float(p):.2f}%</title></rect>')
        cx = x0 + BAR * len(series) / 2
        out.append(f'<text x="{cx:.1f}" y="{TOP + HEIGHT + 14}" text-anchor="end" '
                   f'transform="rotate(-35 {cx:.1f} {TOP + HEIGHT + 14})">{_e(value)}</text>')
    for j, (label, _d) in enumerate(series):
        y = TOP + HEIGHT + bottom + 18 * j
        out.append(f'<rect x="{left}" y="{y - 10}" width="12" height="12" fill="{COLOURS[j % len(COLOURS)]}"/>')
        out.append(f'<text x="{left + 18}" y="{y}">{_e(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def render_html(series: list, title: str, order: list | None = None) -> str:
    """A page with the chart and, under it, the numbers (exact and as percentages)."""
    values = _columns(series, order)
    shares = [_shares(d) for _, d in series]
    head = "".join(f"<th>{_e(label)}</th>" for label, _ in series)
    rows = []
    for value in values:
        cells = []
        for share in shares:
            p = share.get(value)
            cells.append("<td></td>" if p is None else
                         f'<td>{100 * float(p):.2f}% <span class="exact">({p})</span></td>')
        rows.append(f"<tr><th>{_e(value)}</th>{''.join(cells)}</tr>")
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f"<title>{_e(title)}</title>",
        "<style>body{font-family:sans-serif;margin:1.5em} table{border-collapse:collapse;"
        "margin-top:1em} th,td{border:1px solid #bbb;padding:.15em .5em;text-align:right}"
        " .exact{color:#777;font-size:.85em}</style>", "</head>", "<body>",
        render_svg(series, title, order),
        f"<table><thead><tr><th>value</th>{head}</tr></thead><tbody>",
        *rows, "</tbody></table>", "</body>", "</html>"]) + "\n"
