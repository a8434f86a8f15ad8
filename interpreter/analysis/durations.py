"""Durations that can be seen to be wrong before a game runs: `apply(unit, "shaken",
turns=-1)` or `renew(holder, status, turns=5/2)` written with numbers alone (validate
finding "turns-value").  At run time the same values are refused with the same message
(state/actions.py, state/statuses.py); a duration computed from state is left to that."""
from __future__ import annotations

from fractions import Fraction

from ..errors import Finding
from ..expr.exact import exact
from ..lang.ast import Binary, Call, Node, Num, Unary, walk

DURATION_ACTIONS = ("apply", "renew")   # both take `turns` third: (unit, status, turns)
TURNS_POSITION = 2


def _number(node: Node):
    """The value of an expression of numbers alone (`-1`, `5 / 2`), else None."""
    if not all(isinstance(n, (Num, Binary, Unary)) for n in walk(node)):
        return None
    try:
        values = exact(node, {}).values()
    except Exception:   # `1 / 0`: not a duration question (the run says what is wrong)
        return None
    return values[0] if len(values) == 1 else None


def check_duration(call: Call, ruleset, out: list) -> None:
    """A literal number of turns given to `apply` or `renew` must be a whole number from
    0 up, as the action itself demands when it runs."""
    if call.func not in DURATION_ACTIONS or call.func in ruleset.procedures:
        return
    turns = dict(call.kwargs).get("turns")
    if turns is None and len(call.args) > TURNS_POSITION:
        turns = call.args[TURNS_POSITION]
    value = None if turns is None else _number(turns)
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, Fraction) and value.denominator != 1:
        message = f"a number of turns must be a whole number, got {value}"
    elif value < 0:
        message = f"a number of turns cannot be negative, got {value}"
    else:
        return
    out.append(Finding("error", "turns-value", message, turns.loc,
                       "a status lasts 0 or more whole turns; leave `turns` out for the game"))
