"""The value model: what the DSL's values are and what every operation means on them.

One module, so that the sampled closures (`expr.sampled`), exact enumeration
(`expr.exact`), the steps and the compiled code all give an operation the same meaning and
raise the same error.  Values are:

- numbers: `int`, and exact `Fraction` for non-whole results (`7/2` stays 7/2 until
  `floor`, `ceil` or `round`); a whole Fraction is always turned back into an int;
- true/false (`bool`): they count as 1 and 0 in arithmetic and in comparisons with
  numbers (`true + true` is 2, `true == 1` is true), as rulebooks add up passed checks;
- text (`str`): `+` joins two texts; text is ordered alphabetically against text only;
- lists (`list`/`tuple`, 1-based in the DSL): `+` joins two lists, and a list times a
  whole number is the list repeated (`["Spear"] * spears`);
- records (`dict`), table rows, units, sides, statuses: fields through `dsl_attr`;
- bound rolls (`Rolled`, `RolledDice`): a number (their total) that also knows its
  natural face(s).

Everything else is an error with the rule's location: `"ab" * 3`, `[1] * 1.5`, `"3" / 1`,
`"a" < 3`, `"a" + 1`.  Values of different kinds are never equal (`"3" == 3` is false)
except numbers and true/false, as above.
"""
from __future__ import annotations

import operator
from fractions import Fraction
from typing import Any, Callable, Mapping

from ..errors import EvalError, LimitError, Location, NameError_
from ..limits import MAX_DIGITS
from ..suggest import did_you_mean
from .sizes import SEQUENCES, made, repeated

class RolledDice:
    """The result of a dice term bound to a name: its total, plus the natural face(s).

    It behaves as its total in arithmetic and comparisons; `.natural` (the first die's
    counted face), `.naturals`, `.total` and `.faces` are reachable from the DSL.  Two
    results are equal only if total and natural agree, so exact enumeration keeps
    "natural 1" apart from "total 1 after modifiers".
    """

    __slots__ = ("total", "natural", "naturals", "record")

    def __init__(self, total, natural, naturals=(), record=None):
        self.total = total
        self.natural = natural
        self.naturals = tuple(naturals)
        self.record = record

    def dsl_attr(self, name: str):
        if name in ("total", "natural", "naturals"):
            value = getattr(self, name)
            return list(value) if name == "naturals" else value
        if name == "faces" and self.record is not None:
            return [f for die in self.record.dice for f in die.faces]
        raise KeyError(name)

    def dsl_names(self):
        return ["total", "natural", "naturals", "faces"]

    def __eq__(self, other):
        if isinstance(other, RolledDice):
            return self.total == other.total and self.natural == other.natural
        return self.total == other

    def __hash__(self):
        return hash((self.total, self.natural))

    def __lt__(self, other):
        return self.total < plain(other)

    def __le__(self, other):
        return self.total <= plain(other)

    def __gt__(self, other):
        return self.total > plain(other)

    def __ge__(self, other):
        return self.total >= plain(other)

    def __int__(self):
        return int(self.total)

    def __index__(self):
        return int(self.total)

    def __repr__(self):
        return f"{self.total} (natural {self.natural})"

    __str__ = __repr__


class Rolled(int):
    """A bound roll in sampled evaluation: an int (its total, so arithmetic and
    comparisons run at C speed) that also knows its natural face(s)."""

    # (int subclasses cannot have __slots__; the instance dict holds the naturals)

    def __new__(cls, total, natural, naturals=None, record=None):
        self = int.__new__(cls, total)
        self.natural = natural
        if naturals is not None:       # one die: its natural is the only one (see dsl_attr)
            self.__dict__["naturals"] = tuple(naturals)
        if record is not None:
            self.__dict__["record"] = record
        return self

    @property
    def total(self):
        return int(self)

    def dsl_attr(self, name: str):
        if name == "natural":
            return self.natural
        if name == "total":
            return int(self)
        if name == "naturals":
            return list(self.__dict__.get("naturals", (self.natural,)))
        record = self.__dict__.get("record")
        if name == "faces" and record is not None:
            return [f for die in record.dice for f in die.faces]
        raise KeyError(name)

    dsl_names = RolledDice.dsl_names
    __str__ = int.__repr__


ROLLS = (RolledDice, Rolled)


def plain(value):
    """A bound roll as its total; everything else unchanged."""
    t = type(value)
    if t is Rolled:
        return int(value)
    return value.total if t is RolledDice else value


# ------------------------------------------------------------------------ arithmetic


NUMBER_BOUND = 10 ** MAX_DIGITS   # a whole number's size must stay below it (printable)


def sized(value, loc):
    """`value` if it is not a number beyond MAX_DIGITS digits (a whole number, or a
    fraction's numerator or denominator); else the LimitError where it was made.  Such
    a number cannot be printed, and a rule never needs one: a value that keeps growing
    is stopped here rather than slowing every step after it."""
    kind = type(value)
    if kind is int:
        if -NUMBER_BOUND < value < NUMBER_BOUND:
            return value
    elif kind is Fraction:
        if -NUMBER_BOUND < value.numerator < NUMBER_BOUND and value.denominator < NUMBER_BOUND:
            return value
    else:   # a list or text (made by `+` in compiled code): its size (sizes.py)
        return made(value, loc)
    raise LimitError(f"this makes a number of more than {MAX_DIGITS:,} digits", loc,
                     code="limit-number",
                     hint="a value that keeps growing (doubled in a loop, say) has no end; "
                          "bound it with min() or a loop's max")


def normal(value):
    if type(value) is Fraction and value.denominator == 1:
        return value.numerator
    return value


def divide(a, b):
    """`a / b`, exact: a whole quotient is an int, any other a Fraction.  Only numbers
    divide (Fraction() would read a text like "3" as a number)."""
    if type(a) is int and type(b) is int:
        if b == 0:
            raise ZeroDivisionError
        q, r = divmod(a, b)
        return q if r == 0 else Fraction(a, b)
    if not isinstance(a, (int, Fraction)) or not isinstance(b, (int, Fraction)):
        raise TypeError("unsupported operand")
    return normal(Fraction(a) / Fraction(b))


def _numeric(value) -> bool:
    return type(value) in (int, Fraction, bool) or isinstance(value, int)


def modulo(a, b):
    """`a % b`: the remainder of floored division (its sign is the divisor's, so
    -7 % 3 is 2, as in math.js and Python; JavaScript's % would give -1).  Numbers only:
    Python's % on text would format it."""
    if not (_numeric(a) and _numeric(b)):
        raise TypeError("unsupported operand")
    if b == 0:
        raise ZeroDivisionError
    return normal(a % b)


def power(base, exponent):
    """`a ** n`: `pow(a, n)`'s meaning (whole exponents from -64 to 64), numbers only."""
    if not (_numeric(base) and _numeric(exponent)):
        raise TypeError("unsupported operand")
    return bounded_power(base, int(exponent) if type(exponent) is bool else exponent)


def number(value, loc, what):
    value = plain(value)
    if type(value) in (int, Fraction) or type(value) is bool:
        return value
    raise EvalError(f"{what} needs a number, got {describe(value)}", loc)


ARITH: dict[str, Callable] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": divide,
    "%": modulo,
    "**": power,
}

COMPARE: dict[str, Callable] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def describe(value) -> str:
    """A value as a user would name its kind in an error message."""
    if isinstance(value, bool):
        return f"a true/false value ({str(value).lower()})"
    if isinstance(value, ROLLS):   # before numbers: a bound roll is an int too
        return f"a roll ({value.total})"
    if isinstance(value, (int, Fraction)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, (list, tuple)):
        return "a list"
    label = getattr(value, "dsl_label", None)
    if label:
        return label
    return "a record"


def bounded_power(base, exponent):
    """pow(a, n): whole-number exponents only (a rule never needs more), bounded."""
    if type(exponent) is not int or abs(exponent) > 64:
        raise ValueError("the exponent must be a whole number from -64 to 64")
    if isinstance(base, (int, Fraction)) and not isinstance(base, bool) and base != 0 and \
            max(abs(Fraction(base).numerator), Fraction(base).denominator).bit_length() \
            * abs(exponent) > MAX_DIGITS * 3.33:
        raise ValueError(f"the result would have more than {MAX_DIGITS:,} digits")
    if exponent < 0:
        return normal(Fraction(1) / (Fraction(base) ** -exponent))
    return normal(base ** exponent) if type(base) is Fraction else base ** exponent




# ------------------------------------------------------------------ name resolution


def lookup(env: Mapping[str, Any], name: str, loc: Location | None):
    try:
        return env[name]
    except KeyError:
        raise NameError_(f"unknown name {name!r}", loc,
                         hint=did_you_mean(name, names_of(env))) from None


def names_of(container) -> list[str]:
    if isinstance(container, Mapping):
        return [k for k in container.keys() if isinstance(k, str)]
    names = getattr(container, "dsl_names", None)
    return list(names()) if names else []


def get_attr(obj, name: str, loc: Location | None):
    """`obj.name` in the DSL: record fields and declared attributes only."""
    attr = getattr(obj, "dsl_attr", None)
    try:
        if attr is not None:
            return attr(name)
        if isinstance(obj, (dict, Mapping)):
            return obj[name]
    except KeyError:
        raise NameError_(f"{describe(obj)} has no field {name!r}", loc,
                         hint=did_you_mean(name, names_of(obj))) from None
    raise EvalError(f"{describe(obj)} has no fields (asked for .{name})", loc)


def set_index(container, key, value, loc: Location | None, what: str = ""):
    """`container[key] = value` without changing `container`: a new list or record with
    that one item replaced (branches of exact odds and bulk runs share old values, so
    nothing is changed in place).  Only items that exist: a list position in 1..len, a
    field the record has (with "did you mean"); a new field is never made by accident."""
    key = plain(key)
    if isinstance(container, (list, tuple)):
        if type(key) is not int:
            raise EvalError(f"a list is indexed by a whole number, not {describe(key)}", loc)
        if not 1 <= key <= len(container):
            raise EvalError(f"list index {key} is outside 1..{len(container)}", loc)
        new = list(container)
        new[key - 1] = value
        return made(new, loc)
    if isinstance(container, dict):
        if key not in container:
            raise NameError_(f"{what or 'the record'} has no field {key!r}", loc,
                             hint=did_you_mean(str(key), [str(k) for k in container]))
        new = dict(container)
        new[key] = value
        return made(new, loc)
    raise EvalError(f"cannot change an item of {describe(container)}", loc)


def get_index(obj, key, loc: Location | None, ctx=None):
    """`obj[key]` in the DSL: a table lookup, a list item or a record field."""
    index = getattr(obj, "dsl_index", None)
    if index is not None:
        return index(plain(key), loc, ctx)
    key = plain(key)
    if isinstance(obj, (list, tuple)):
        if type(key) is not int:
            raise EvalError(f"a list is indexed by a whole number, not {describe(key)}", loc)
        if not 1 <= key <= len(obj):
            raise EvalError(f"list index {key} is outside 1..{len(obj)}", loc)
        return obj[key - 1]
    if isinstance(obj, Mapping):
        try:
            return obj[key]
        except KeyError:
            raise NameError_(f"no entry {key!r}", loc,
                             hint=did_you_mean(str(key), names_of(obj))) from None
    raise EvalError(f"{describe(obj)} cannot be indexed", loc)



def read_attr(value, name: str, loc):
    """`value.name`, the fast way first (units, rows, rolls), else `get_attr`, which
    also explains a miss."""
    read = getattr(value, "dsl_attr", None)
    if read is not None:
        try:
            return read(name)
        except KeyError:
            pass
    return get_attr(value, name, loc)


def truth(value, loc):
    if type(value) is bool:
        return value
    raise EvalError(f"expected true or false, got {describe(value)}", loc)


def arith_result(op: str, result, a, b, loc):
    """Check and normalise what Python gave for `a op b` when it was not a plain int or
    bool: a whole Fraction becomes an int; text and lists only join with `+`."""
    kind = type(result)
    if kind is Fraction:
        return normal(sized(result, loc))
    if kind is int:
        return sized(result, loc)
    if kind is str and op != "+" or kind in (list, tuple) and not (
            op == "+" or op == "*" and (isinstance(a, int) or isinstance(b, int))):
        raise EvalError(f"cannot apply '{op}' to {describe(a)} and {describe(b)}", loc)
    return made(result, loc)


def arith(op: str, a, b, loc):
    """`a op b` for + - * / and the comparisons: the one meaning every path uses."""
    fn = ARITH.get(op) or COMPARE[op]
    if op == "*" and (a.__class__ in SEQUENCES or b.__class__ in SEQUENCES):   # not made yet
        if a.__class__ is str or b.__class__ is str:
            raise EvalError(f"cannot apply '*' to {describe(plain(a))} and {describe(plain(b))}", loc)
        repeated(*((a, b) if a.__class__ in SEQUENCES else (b, a)), loc)
    try:
        result = fn(a, b)
    except ZeroDivisionError:
        raise EvalError("division by zero", loc) from None
    except TypeError:
        return binary_fallback(op, a, b, loc)
    except ValueError as err:   # `2 ** 100`: the exponent is out of range
        raise EvalError(f"'{op}': {err}", loc) from None
    if type(result) is int:
        return result if -NUMBER_BOUND < result < NUMBER_BOUND else sized(result, loc)
    if type(result) is bool:
        return result
    return arith_result(op, result, a, b, loc)


def binary_fallback(op, a, b, loc):
    """Retry an operation on bound rolls' totals, or explain why the kinds don't fit."""
    pa, pb = plain(a), plain(b)
    if (pa is not a) or (pb is not b):
        try:
            fn = ARITH.get(op) or COMPARE[op]
            return arith_result(op, fn(pa, pb), pa, pb, loc)
        except ZeroDivisionError:
            raise EvalError("division by zero", loc) from None
        except ValueError as err:
            raise EvalError(f"'{op}': {err}", loc) from None
        except TypeError:
            pass
    raise EvalError(f"cannot apply '{op}' to {describe(pa)} and {describe(pb)}", loc)


def product_value(result):
    """What compiled code does with `a * b` when Python did not give an int: a whole
    Fraction becomes an int; text (`"ab" * 3`) is refused with a TypeError, so that the
    statement is run again by its Step, which gives the located error.  (A list times a
    whole number is the list repeated, as in Python.)"""
    if type(result) is str:
        raise TypeError("text times a number")
    return normal(result) if type(result) is Fraction else result


def assign_value(op: str, old, value, loc):
    """The new value of `x op= value` (`=`, `+=`, `-=`, `*=`)."""
    if op == "=":
        return value
    return arith(op[0], plain(old), plain(value), loc)


def explain(err: Exception) -> str:
    text = str(err)
    if "not supported between" in text or "unsupported operand" in text:
        return "the values are of kinds that do not fit together"
    return text or type(err).__name__


class Record(dict):
    """A record (YAML mapping) that can be an outcome of a distribution: hashable by
    its contents.  Only built for exact evaluation; never mutated there."""

    def __hash__(self):
        return hash(freeze_value(self))


def freeze_value(value):
    if isinstance(value, dict):
        return tuple(sorted((k, freeze_value(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(freeze_value(v) for v in value)
    return value


def outcome(value):
    """A value made fit to be a distribution outcome (records and lists hashable)."""
    if type(value) is dict:
        return Record(value)
    if type(value) is list:
        return tuple(outcome(v) for v in value)
    return value


def sort_key(value):
    """Order for mixed outcome values: booleans, numbers, then text."""
    if isinstance(value, bool):
        return (0, int(value), "")
    if isinstance(value, (int, Fraction)):
        return (1, value, "")
    return (2, 0, str(value))


def json_value(value):
    """A DSL value as JSON: exact non-integers as "a/b" strings."""
    total = getattr(value, "total", None)
    if total is not None and not isinstance(value, (int, Fraction)):
        value = total
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    label = getattr(value, "dsl_label", None)
    return label if label is not None else str(value)


def decimal_text(value, places: int = 2) -> str:
    """A number for people: whole numbers as they are, others rounded to `places`
    decimals (60.71, not 6071/100); used for measured positions and distances."""
    if isinstance(value, bool) or not isinstance(value, (int, Fraction, float)):
        return str(value)
    if isinstance(value, int) or (isinstance(value, Fraction) and value.denominator == 1):
        return str(int(value))
    rounded = round(Fraction(value), places)
    text = f"{float(rounded):.{places}f}".rstrip("0").rstrip(".")
    return text


def fraction_text(value: Fraction) -> str:
    """An exact probability as a reduced fraction string: "1/6", "0", "1"."""
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


