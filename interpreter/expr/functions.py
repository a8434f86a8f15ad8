"""The DSL's built-in functions (`min`, `count`, `range`, `join`, `updated`, ...): pure
functions of values, one entry each in FUNCTIONS.  What their arguments mean (a bound
roll as its total, true as 1) is the value model's (values.py)."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

from ..limits import MAX_RANGE, MAX_VALUE_SIZE
from ..suggest import did_you_mean
from .sizes import TooLarge, joined_size, within
from .values import ROLLS, bounded_power, decimal_text, describe, json_value, plain


def _round_half_up(x):
    """Rulebooks round halves up (2.5 -> 3, -2.5 -> -2); Python's round() would not."""
    if x.__class__ is int:
        return x
    value = x if x.__class__ is Fraction else Fraction(x)
    # floor(n/d + 1/2) on whole numbers
    return (2 * value.numerator + value.denominator) // (2 * value.denominator)


def _count(items, value=None):
    """count(list): the items that are not false or missing (so a list of units counts
    its units, a list of checks its passes); count(list, x): the items equal to x."""
    n = 0
    if value is None:
        for item in items:
            if item is not False and item is not None:
                n += 1
        return n
    for item in items:
        if item == value:
            n += 1
    return n


def _as_text(value, places=None) -> str:
    """text(x): a value as it is printed in transcripts (7/2 stays 7/2);
    text(x, 1): a number rounded to that many decimals (60.7)."""
    if places is not None:
        if type(places) is not int or not 0 <= places <= 10:
            raise ValueError("decimals must be a whole number from 0 to 10")
        return decimal_text(plain(value), places)
    shown = json_value(value)
    if isinstance(shown, bool):
        return "true" if shown else "false"
    return within(str(shown))


def _contains(collection, item) -> bool:
    """contains(list, x), contains(table, key): membership, for tables by row key."""
    check = getattr(collection, "dsl_contains", None)
    if check is not None:
        return bool(check(plain(item)))
    if isinstance(collection, (list, tuple, str, dict)):
        return plain(item) in collection
    raise TypeError("contains() needs a list, text, record or table")


def _natural(value):
    if isinstance(value, ROLLS):
        return value.natural
    raise TypeError("natural() needs a roll bound with let")


def _aggregate(fn):
    def call(*args):
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = args[0]
        if not args:
            raise ValueError("needs at least one value")
        if _WHOLE.issuperset(map(type, args)):   # whole numbers only: as they are
            return fn(args)
        # a list, not a generator: min/max of a few numbers is most of their cost
        return fn([a if a.__class__ is int else plain(a) for a in args])
    return call


_WHOLE = frozenset((int,))


def _sum(items):
    return sum([i if i.__class__ is int else plain(i) for i in items])


def _number_range(first, last=None):
    """range(n): 1, 2, ..., n (lists count from 1, so these are a list's positions; none
    when n < 1); range(a, b): a to b inclusive, counting down when b < a (map rows printed
    from the far edge down)."""
    counting = last is None
    first, last = (1, plain(first)) if counting else (plain(first), plain(last))
    if type(first) is not int or type(last) is not int:
        raise ValueError("range() needs whole numbers")
    if counting and last < 1:
        return []
    if abs(last - first) + 1 > MAX_RANGE:
        raise ValueError(f"a range may hold at most {MAX_RANGE} numbers")
    step = 1 if last >= first else -1
    return list(range(first, last + step, step))


def _join(items, separator=""):
    """join(list, sep): the items as text (as text() prints them), between them `sep`."""
    if not isinstance(items, (list, tuple)) or not isinstance(separator, str):
        raise TypeError("join() needs a list and a text")
    texts = [_as_text(item) for item in items]
    if joined_size(texts, separator) > MAX_VALUE_SIZE:   # known before it is made
        raise TooLarge(f"this makes a text of more than {MAX_VALUE_SIZE:,} characters")
    return within(separator.join(texts))


def _record_fields(record, what: str):
    if not isinstance(record, dict):
        raise TypeError(f"{what} needs a record, got {describe(record)}")
    return record


def _updated(record, changes):
    """updated(record, {field: value, ...}): a copy of the record with those fields
    changed.  Only fields the record has: a misspelt field is an error, not a new one."""
    _record_fields(record, "updated()")
    _record_fields(changes, "updated()")
    for key in changes:
        if key not in record:
            hint = did_you_mean(str(key), [str(k) for k in record])
            raise ValueError(f"the record has no field {key!r}" + (f"; {hint}" if hint else ""))
    new = dict(record)
    new.update(changes)
    return within(new)


def _list_of(items, what: str) -> list:
    if not isinstance(items, (list, tuple)):
        raise TypeError(f"{what} needs a list, got {describe(items)}")
    return list(items)


def _append(items, item):
    """append(list, x): a new list, the old one with x at its end."""
    return within(_list_of(items, "append()") + [item])


def _remove_one(items, item):
    """remove_one(list, x): a new list without the first item equal to x (one of two
    Fire Pumps lost); an error when there is none, since nothing would be lost."""
    items = _list_of(items, "remove_one()")
    wanted = plain(item)
    for i, value in enumerate(items):
        if plain(value) == wanted:
            return items[:i] + items[i + 1:]
    raise ValueError(f"the list holds no {json_value(item)!r} to remove")


FUNCTIONS: dict[str, Callable] = {
    "range": _number_range,
    "join": _join,
    "updated": _updated,
    "append": _append,
    "remove_one": _remove_one,
    "min": _aggregate(min),
    "max": _aggregate(max),
    "sum": _sum,
    "count": _count,
    "len": len,
    "abs": lambda x: abs(plain(x)),
    "floor": lambda x: math.floor(plain(x)),
    "ceil": lambda x: math.ceil(plain(x)),
    "round": lambda x: _round_half_up(plain(x)),
    "natural": _natural,
    "any": lambda items: any(items),
    "all": lambda items: all(items),
    "pow": lambda base, exponent: bounded_power(plain(base), plain(exponent)),
    "text": lambda value, places=None: _as_text(value, places),
    "contains": lambda collection, item: _contains(collection, item),
}
"""Built-in functions of the DSL.  Each takes plain values and returns one."""
