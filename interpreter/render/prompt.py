"""The odds beside each option at `play --interactive`'s prompt, as a player reads them:

    1. Red 1 (5 away) — attack: miss 70%, hit 6%, kill 24%; destroyed 24%

The numbers are `game/choice_odds.py`'s (exact, on the game as it stands); this module
only words them, short enough for one line of a terminal: outcomes in the order the
procedure declares them, percentages rounded (`<0.1%` for a chance too small to show),
and an option whose odds could not be counted says why (`odds: too slow to count`).
"""
from __future__ import annotations

from fractions import Fraction

from ..expr.values import decimal_text
from ..game.choice_odds import OptionOdds, option_odds
from .terminal import ordered_items, shown_value

SHOWN_OUTCOMES = 5   # outcomes of one procedure named on a prompt line; the rest summed

ODDS_HELP = (
    "Beside each option: the exact odds of what the rules do next with it, counted over "
    "every roll on the game as it stands now: the results of each procedure the option is "
    "passed to (in the order the rules list them), the chance a unit is destroyed, the "
    "average change of the option's numbers, and the result of the rule the choice is in. "
    "An option with nothing beside it has nothing left to chance; 'odds: ...' says why they "
    "could not be counted (a later choice of yours, too many outcomes, more than a few "
    "seconds of counting).")


class PromptOdds:
    """What `PersonAsks` shows beside the options of a choice: `(step, options, frame)`
    gives a text per option, one at a time as each is counted (empty for an option with
    nothing to say), and `help` is what `?` adds about them."""

    help = ODDS_HELP

    def __init__(self, ruleset):
        self.ruleset = ruleset

    def __call__(self, step, options, frame):
        for odds in option_odds(self.ruleset, step, options, frame):
            yield odds_text(odds)


def odds_text(odds: OptionOdds) -> str:
    """One option's odds in a line: `attack: miss 70%, kill 24%; destroyed 24%`."""
    if odds.why_not:
        return f"odds: {odds.why_not}"
    parts = []
    for call in odds.calls:
        if len(call.results) == 1 and call.results.items()[0][0] is None:
            continue   # a procedure with no result: its effects speak below
        when = "" if call.called >= 1 else f" ({percent(call.called)} of the time)"
        parts.append(f"{call.procedure}{when}: {outcomes_text(call.results, call.order)}")
    option_name = getattr(odds.option, "name", None)
    lost = [(percent(p) if name == option_name else f"{name} {percent(p)}")
            for name, p in odds.destroyed]
    lost.sort(key=lambda text: " " in text)   # the option itself first
    if lost:
        parts.append("destroyed " + ", ".join(lost))
    if odds.changes:
        parts.append("on average " + ", ".join(f"{name} {signed(mean)}"
                                               for name, mean in odds.changes))
    if odds.result is not None:
        parts.append(f"result: {outcomes_text(odds.result, odds.order)}")
    text = "; ".join(parts)
    notes = []
    if odds.prefer_later:
        notes.append("your later choices as the rules prefer")
    if odds.capped:
        notes.append(f"{percent(odds.capped)} stopped at a loop's max")
    if text and notes:
        text += f" ({'; '.join(notes)})"
    return text


def outcomes_text(dist, order=None) -> str:
    """`miss 70%, hit 6%, kill 24%`; numbers with many values as their average and range;
    past SHOWN_OUTCOMES, the most likely ones (in their order) and the rest summed."""
    items = ordered_items(dist, order)
    total = dist.total
    numeric = all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v, _ in items)
    if numeric and len(items) > SHOWN_OUTCOMES:
        values = [v for v, _ in items]
        return (f"average {decimal_text(dist.mean(), 2)} "
                f"({decimal_text(min(values), 2)} to {decimal_text(max(values), 2)})")
    if len(items) == 1:
        return shown_value(items[0][0])
    shown = items
    rest = Fraction(0)
    if len(items) > SHOWN_OUTCOMES:
        likeliest = sorted(items, key=lambda vw: -vw[1])[:SHOWN_OUTCOMES - 1]
        keep = {id(vw) for vw in likeliest}
        shown = [vw for vw in items if id(vw) in keep]
        rest = sum((Fraction(w, total) for vw in items if id(vw) not in keep for w in [vw[1]]),
                   Fraction(0))
    text = ", ".join(f"{shown_value(v)} {percent(Fraction(w, total))}" for v, w in shown)
    if rest:
        text += f", {len(items) - len(shown)} others {percent(rest)}"
    return text


def percent(p) -> str:
    """A chance as a short percentage: 24%, 6.5%, <0.1%, >99.9%."""
    p = Fraction(p)
    if p >= 1:
        return "100%"
    if p <= 0:
        return "0%"
    value = 100 * p
    if value < Fraction(1, 10):
        return "<0.1%"
    if value > Fraction(999, 10):
        return ">99.9%"
    digits = 0 if value >= 10 else 1
    text = f"{float(value):.{digits}f}"
    if digits and text.endswith(".0"):
        text = text[:-2]
    if text == "100":
        return ">99.9%"
    return f"{text}%"


def signed(mean) -> str:
    """A change with its sign: +0.7, −1.25."""
    text = decimal_text(abs(Fraction(mean)), 2)
    return f"+{text}" if mean > 0 else f"−{text}"
