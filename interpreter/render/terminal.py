"""Terminal rendering (rich) of rolls, distributions and errors.

Everything here turns finished results into text; nothing computes rules.  Colour follows
the terminal and NO_COLOR (rich does both).
"""
from __future__ import annotations

from fractions import Fraction

from rich.console import Console, RenderHook
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from ..dice.distribution import Distribution
from ..errors import printable
from ..expr.values import fraction_text, json_value, sort_key
from ..expr.rolling import RollResult, RollSummary

BAR_WIDTH = 30


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


def die_text(die) -> Text:
    """One die of a transcript with rpg-dice-roller's markers, so that the words survive
    without colour: a rerolled face with `r` (struck), the value, then `!` exploded (added
    the next die), `!!` compounded (its chain in brackets), `p` penetrated (an added die
    counting one less), `*` success, `_` failure, `**` critical success, `__` critical
    failure, `d` dropped (struck and dimmed)."""
    out = Text()
    for face in die.rerolled:
        out.append(f"{face}r", style="strike dim")
        out.append("→", style="dim")
    style = "bold" if die.kept else "dim strike"
    if getattr(die, "compounded", False):
        out.append(f"{die.value}!!", style=style)
        out.append("(" + "+".join(str(f) for f in die.faces) + ")", style="dim")
    else:
        out.append("+".join(str(f) for f in die.faces) if not getattr(die, "penetrated", False)
                   else str(die.value), style=style)
        if getattr(die, "penetrated", False):
            out.append("p", style="yellow")
    if getattr(die, "exploded", False):
        out.append("!", style="yellow")
    if die.success is True:
        out.append("*", style="green")
    if getattr(die, "failure", None) is True:
        out.append("_", style="red")
    critical = getattr(die, "critical", None)
    if critical:
        out.append("**" if critical == "success" else "__",
                   style="bold green" if critical == "success" else "bold red")
    if not die.kept:
        out.append("d", style="dim")
    return out


def dice_record_text(record) -> Text:
    if not hasattr(record, "dice"):  # a table roll: which row it hit
        return Text(getattr(record, "text", str(record)), style="magenta")
    out = Text(f"{record.text}: ", style="cyan")
    out.append("[")
    for i, die in enumerate(record.dice):
        if i:
            out.append(", ")
        out.append_text(die_text(die))
    out.append(f"] = {json_value(record.total)}")
    return out


def print_roll(console: Console, result: RollResult) -> None:
    console.print(Text(f"{result.expression}", style="bold"), Text(f"(seed {result.seed})", style="dim"))
    notes: list[str] = []
    for record in result.dice:
        console.print(Text("  ").append_text(dice_record_text(record)))
        notes += [n for n in getattr(record, "notes", ()) if n not in notes]
    for note in notes:
        console.print(Text("  note: ", style="yellow").append(note, style="dim"))
    total = json_value(result.total)
    shown = ("true" if total else "false") if isinstance(total, bool) else str(total)
    console.print(Text("total: ", style="bold").append(shown, style="bold green"))


def print_summary(console: Console, summary: RollSummary) -> None:
    console.print(Text(f"{summary.expression}", style="bold"),
                  Text(f"rolled {summary.times} times (seed {summary.seed})", style="dim"))
    values = sorted(summary.counts, key=sort_key)
    table = Table(show_edge=False)
    table.add_column("value", justify="right")
    table.add_column("count", justify="right")
    table.add_column("share", justify="right")
    table.add_column("", justify="left")
    top = max(summary.counts.values())
    for v in values:
        n = summary.counts[v]
        table.add_row(str(json_value(v)), str(n), f"{100 * n / summary.times:.2f}%",
                      "█" * max(1, round(BAR_WIDTH * n / top)))
    console.print(table)
    mean = summary.mean()
    if mean is not None:
        console.print(f"mean {mean:.4f}   min {json_value(values[0])}   max {json_value(values[-1])}")


def distribution_table(dist: Distribution, title: str | None = None) -> Table:
    table = Table(title=title, show_edge=False)
    table.add_column("value", justify="right")
    table.add_column("probability", justify="right")
    table.add_column("%", justify="right")
    table.add_column("≥", justify="right")
    table.add_column("", justify="left")
    items = dist.items()
    numeric = all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v, _ in items)
    top = max((w for _, w in items), default=1)
    remaining = dist.total
    for value, weight in items:
        p = Fraction(weight, dist.total)
        at_least = f"{100 * float(Fraction(remaining, dist.total)):.2f}%" if numeric else ""
        remaining -= weight
        table.add_row(str(json_value(value)), fraction_text(p), f"{100 * float(p):.2f}%",
                      at_least, "█" * max(1, round(BAR_WIDTH * weight / top)))
    return table


def print_distribution(console: Console, expression: str, dist: Distribution) -> None:
    console.print(Text(expression, style="bold"))
    console.print(distribution_table(dist))
    items = dist.items()
    if items and all(isinstance(v, (int, Fraction)) for v, _ in items):
        mean = dist.mean()
        console.print(f"mean {fraction_text(mean)} ≈ {float(mean):.4f}   "
                      f"sd {dist.stdev():.4f}   min {json_value(dist.min())}   "
                      f"max {json_value(dist.max())}")
    if dist.capped:
        console.print(Text(f"note: explosions were cut at their depth limit in "
                           f"{fraction_text(dist.capped_probability())} "
                           f"(≈{100 * float(dist.capped_probability()):.4g}%) of the outcomes; "
                           f"those outcomes count the capped value", style="yellow"))


_EVENT_STYLES = {"turn": "bold magenta", "phase": "bold cyan", "initiative": "yellow",
                 "destroyed": "bold red", "status": "red", "result": "bold green",
                 "return": "green", "call": "blue", "choice": "yellow", "limit": "yellow"}


def print_events(console: Console, events: list[dict]) -> None:
    """A transcript: turns and phases as headings, every other event indented."""
    for event in events:
        kind = event["event"]
        style = _EVENT_STYLES.get(kind, "")
        if kind == "turn":
            console.print(Text(f"── {event['text']} ──", style=style))
        elif kind == "phase":
            console.print(Text(f"  [{event['text']}]", style=style))
        else:
            console.print(Text(f"    {event['text']}", style=style))


def print_simulation(console: Console, ruleset, data: dict) -> None:
    console.print(Text(f"{ruleset.title}: scenario {data['scenario']}, {data['runs']} games "
                       f"(seed {data['seed']})", style="bold"))
    table = Table(show_edge=False)
    table.add_column("result")
    table.add_column("games", justify="right")
    table.add_column("rate", justify="right")
    table.add_column("95% interval", justify="right")
    for name, row in data["results"].items():
        low, high = row["ci95"]
        table.add_row(name, str(row["wins"]), f"{100 * row['rate']:.1f}%",
                      f"{100 * low:.1f}% – {100 * high:.1f}%")
    console.print(table)
    turns = data["turns"]
    console.print(f"game length: mean {turns['mean']:.2f} turns (min {turns['min']}, max {turns['max']})")
    for side, mean in data["survivors_mean"].items():
        console.print(f"{side}: {mean:.2f} units left on average")
    for expr, summary in data.get("tracked", {}).items():
        shown = ", ".join(f"{c['value']}: {c['count']}" for c in summary["counts"][:12])
        mean = f" (mean {summary['mean']:.3f})" if summary["mean"] is not None else ""
        console.print(f"{expr}{mean}: {shown}")
