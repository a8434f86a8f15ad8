"""Exact odds for people: a procedure's result (with the event it is conditioned on and
the policies that decided its choices) and a whole game's results turn by turn."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .styled import Styled

from ..expr.values import fraction_text
from ..game.play import NO_WINNER
from .terminal import print_distribution

if TYPE_CHECKING:
    from rich.console import Console


def _print_given(console: Console, given: str | None, probability) -> None:
    if given is not None:
        console.print(Styled(f"given {given}: P = {fraction_text(probability)} "
                             f"(≈{100 * float(probability):.4g}%); the odds below are conditioned "
                             f"on it", style="cyan"))


def _print_choices(console: Console, choices: list) -> None:
    for row in choices:
        how = ", ".join(f"{policy} (P {p})" if len(row["policies"]) > 1 else policy
                        for policy, p in row["policies"].items())
        where = f" at {row['at']}" if row.get("at") else ""
        console.print(Styled(f"choice {row['choice']}{where}: decided by {how}", style="dim"))


def print_procedure_odds(console: Console, result, order: list | None = None) -> None:
    """`run --odds`: the result's distribution (in the procedure's declared `order` of
    outcomes), each tracked expression's, the notes."""
    _print_given(console, result.given, result.given_probability)
    print_distribution(console, f"{result.procedure} (exact)", result.outcomes, order)
    for name, dist in result.tracked.items():
        print_distribution(console, name, dist)
    _print_choices(console, result.choices)
    if result.capped:
        console.print(Styled(f"note: ≈{100 * float(result.capped):.4g}% of the probability "
                             f"stopped at a loop's max (exact in --json)", style="yellow"))


def print_game_odds(console: Console, ruleset, result) -> None:
    """`odds-game`: who wins, how long the game lasts, who survives, tracked values."""
    console.print(Styled(f"{ruleset.title}: scenario {result.scenario}, exact odds over at most "
                         f"{result.max_turns} turns ({result.largest:,} states at most)", style="bold"))
    _print_given(console, result.given, result.given_probability)
    from rich.table import Table   # here: `run --odds` to a file draws its table as text
    table = Table(show_edge=False)
    for name in ("result", "probability", "%"):
        table.add_column(name, justify="left" if name == "result" else "right")
    for value, w in result.winner.items():
        p = w / result.winner.total
        table.add_row(value if value == NO_WINNER else f"{value} wins",
                      fraction_text(result.winner.probability(value)), f"{100 * p:.2f}%")
    console.print(table)
    print_distribution(console, "game length (turns)", result.turns)
    for side, dist in result.survivors.items():
        print_distribution(console, f"{side}: units alive at the end", dist)
    for name, dist in result.tracked.items():
        print_distribution(console, name, dist)
    _print_choices(console, result.choices)
