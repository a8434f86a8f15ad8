"""Terminal rendering (rich) of rolls, distributions and errors.

Everything here turns finished results into text; nothing computes rules.  Colour follows
the terminal and NO_COLOR (rich does both).
"""
from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from .styled import Styled

from ..dice.distribution import Distribution
from ..expr.values import fraction_text, json_value, sort_key
from ..expr.rolling import RollResult, RollSummary
from .console import PlainConsole
from .long_table import LONG_TABLE, plain_table, print_long_table
from .text import clean

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

BAR_WIDTH = 30


def die_text(die) -> Styled:
    """One die of a transcript with rpg-dice-roller's markers, so that the words survive
    without colour: a rerolled face with `r` (struck), the value, then `!` exploded (added
    the next die), `!!` compounded (its chain in brackets), `p` penetrated (an added die
    counting one less), `*` success, `_` failure, `**` critical success, `__` critical
    failure, `d` dropped (struck and dimmed)."""
    out = Styled()
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


def dice_record_text(record) -> Styled:
    if not hasattr(record, "dice"):  # a table roll: which row it hit
        return Styled(getattr(record, "text", str(record)), style="magenta")
    out = Styled(f"{record.text}: ", style="cyan")
    out.append("[")
    for i, die in enumerate(record.dice):
        if i:
            out.append(", ")
        out.append_text(die_text(die))
    out.append(f"] = {json_value(record.total)}")
    return out


def print_roll(console: Console, result: RollResult) -> None:
    console.print(Styled(f"{result.expression}", style="bold"), Styled(f"(seed {result.seed})", style="dim"))
    notes: list[str] = []
    for record in result.dice:
        console.print(Styled("  ").append_text(dice_record_text(record)))
        notes += [n for n in getattr(record, "notes", ()) if n not in notes]
    for note in notes:
        console.print(Styled("  note: ", style="yellow").append(note, style="dim"))
    total = json_value(result.total)
    shown = ("true" if total else "false") if isinstance(total, bool) else str(total)
    console.print(Styled("total: ", style="bold").append(shown, style="bold green"))


def print_summary(console: Console, summary: RollSummary) -> None:
    console.print(Styled(f"{summary.expression}", style="bold"),
                  Styled(f"rolled {summary.times} times (seed {summary.seed})", style="dim"))
    values = sorted(summary.counts, key=sort_key)
    from rich.table import Table   # not for a plain roll: start-up
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


LONG_FRACTION = 16   # characters: a longer exact fraction goes to --json, not the table


def shown_value(value) -> str:
    """An outcome as the DSL writes it: true, false, none, text, numbers; a table row by
    its key and what it says (`1-2: crew shaken`)."""
    if hasattr(value, "table") and hasattr(value, "dsl_names") and getattr(value, "key", None) is not None:
        return f"{value.key}: {row_says(value)}" if row_says(value) else str(value.key)
    # imported here: `roll` prints no outcome table and need not load the step runner
    from ..run.sampled import literal_text
    return literal_text(value)


def row_says(row) -> str:
    """A row's own words: its `result` column, else its first column of plain text or
    number."""
    names = [n for n in row.dsl_names() if n not in ("key", "name")]
    for name in (["result"] if "result" in names else []) + names:
        try:
            cell = row.dsl_attr(name)
        except Exception:   # a formula cell that needs inputs: not the row's words
            continue
        if isinstance(cell, (str, int)) and not isinstance(cell, bool):
            return str(cell)
    return ""


def ordered_items(dist: Distribution, order: list | None = None) -> list:
    """The outcomes in the order the procedure declares them (then the rest by
    probability, most likely first); without an order, as the distribution sorts them."""
    items = dist.items()
    if not order:
        return items
    rank = {str(o): i for i, o in enumerate(order)}
    return sorted(items, key=lambda vw: (rank.get(shown_value(vw[0]), len(rank)), -vw[1]))


_COLUMNS = [("value", "right"), ("probability", "right"), ("%", "right"), ("≥", "right"),
            ("", "left")]


def distribution_table(dist: Distribution, title: str | None = None,
                       order: list | None = None, width: int | None = None) -> tuple[Table, bool]:
    """The table, and whether a fraction was too long to show (then it says ≈ and the
    exact value is in --json)."""
    from rich.table import Table   # not for a plain roll: start-up
    from rich.text import Text
    table = Table(title=title, show_edge=False)
    for header, justify in _COLUMNS[:-1]:
        table.add_column(header, justify=justify, no_wrap=True)
    table.add_column("", justify="left", no_wrap=True, overflow="crop", min_width=1)
    rows, long = distribution_rows(dist, order, width)
    for value, *rest in rows:
        table.add_row(Text(value), *rest)
    return table, long


def distribution_rows(dist: Distribution, order: list | None = None,
                      width: int | None = None) -> tuple[list[tuple], bool]:
    """The table's rows as texts (value, probability, %, at least, bar), and whether a
    fraction was too long to show."""
    items = ordered_items(dist, order)
    numeric = not order and all(isinstance(v, (int, Fraction)) and not isinstance(v, bool)
                                for v, _ in items)
    top = max((w for _, w in items), default=1)
    remaining = dist.total
    long = False
    bar = BAR_WIDTH
    if width:   # the bars shrink before a value or a probability is cut
        widest = max((len(shown_value(v)) for v, _ in items), default=5)
        bar = max(5, min(BAR_WIDTH, width - widest - 8 - 3 * 12))
    rows = []
    for value, weight in items:
        p = Fraction(weight, dist.total)
        at_least = f"{100 * float(Fraction(remaining, dist.total)):.2f}%" if numeric else ""
        remaining -= weight
        exact_text = fraction_text(p)
        if len(exact_text) > LONG_FRACTION:
            exact_text, long = f"≈{float(p):.6f}", True
        rows.append((shown_value(value), exact_text, f"{100 * float(p):.2f}%", at_least,
                     "█" * max(1, round(bar * weight / top))))
    return rows, long


def print_distribution(console: Console, expression: str, dist: Distribution,
                       order: list | None = None) -> None:
    console.print(Styled(expression, style="bold"))
    plain = isinstance(console, PlainConsole)
    if plain or len(dist) > LONG_TABLE:   # rich's Table: its console, and seconds when long
        rows, long = distribution_rows(dist, order, console.width)
        text = plain_table(_COLUMNS, rows, console.width) if plain else None
        if text is not None:
            console.print(text, end="")
        elif len(dist) <= LONG_TABLE or not print_long_table(console, _COLUMNS, rows):
            console.print(distribution_table(dist, None, order, console.width)[0])
    else:
        table, long = distribution_table(dist, None, order, console.width)
        console.print(table)
    items = dist.items()
    if items and all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v, _ in items):
        mean = dist.mean()
        mean_exact = fraction_text(mean)
        shown_mean = f"{mean_exact} ≈ {float(mean):.4f}" if len(mean_exact) <= LONG_FRACTION \
            else f"≈ {float(mean):.4f}"
        console.print(f"mean {shown_mean}   "
                      f"sd {dist.stdev():.4f}   min {json_value(dist.min())}   "
                      f"max {json_value(dist.max())}")
    if long:
        console.print(Styled("note: ≈ marks probabilities whose exact fraction is long; --json "
                             "gives every one exactly", style="dim"))
    if dist.capped:
        console.print(Styled(f"note: explosions were cut at their depth limit in "
                             f"≈{100 * float(dist.capped_probability()):.4g}% of the outcomes "
                             f"(exact in --json); those outcomes count the capped value",
                             style="yellow"))


def print_comparison(console: Console, series: list) -> None:
    """Several distributions side by side: a row per value, a column per expression,
    then each one's mean."""
    values: list = []
    for _, dist in series:
        for value, _w in dist.items():
            if value not in values:
                values.append(value)
    try:
        values.sort(key=sort_key)
    except TypeError:
        pass
    from rich.table import Table   # not for a plain roll: start-up
    from rich.text import Text
    table = Table(show_edge=False)
    table.add_column("value", justify="right", no_wrap=True)
    for label, _ in series:
        table.add_column(Text(label), justify="right", no_wrap=True)
    for value in values:
        cells = []
        for _, dist in series:
            weight = dict(dist.items()).get(value)
            cells.append("" if weight is None else f"{100 * weight / dist.total:.2f}%")
        table.add_row(Text(shown_value(value)), *cells)
    numeric = all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in values)
    if numeric:
        table.add_row(Text("mean", style="bold"), *(f"{float(d.mean()):.4f}" for _, d in series))
    console.print(table)


_EVENT_STYLES = {"turn": "bold magenta", "phase": "bold cyan", "initiative": "yellow",
                 "destroyed": "bold red", "status": "red", "result": "bold green",
                 "return": "green", "call": "blue", "choice": "yellow", "limit": "yellow"}


def print_events(console: Console, events: list[dict]) -> None:
    """A transcript: turns and phases as headings, every other event indented."""
    for event in events:
        kind = event["event"]
        style = _EVENT_STYLES.get(kind, "")
        if kind == "turn":
            console.print(Styled(f"── {event['text']} ──", style=style))
        elif kind == "phase":
            console.print(Styled(f"  [{event['text']}]", style=style))
        else:
            console.print(Styled(f"    {clean(event['text'])}", style=style))


def print_simulation(console: Console, ruleset, data: dict) -> None:
    console.print(Styled(f"{ruleset.title}: scenario {data['scenario']}, {data['runs']} games "
                         f"(seed {data['seed']})", style="bold"))
    from rich.table import Table   # not for a plain roll: start-up
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
