"""How big a value a rule may make, checked where it is made (limits.MAX_VALUE_SIZE,
MAX_NESTING, MAX_MEMORY).

The step budget bounds how many steps run, not how much one step makes: `[0] * n`, a
text or list doubled in a loop (`s = s + s`), a `join` with a long separator, a list
holding itself twice (`s = [s, s]`, whose printed form doubles each time though its
memory does not) would each exhaust the machine within a few steps.  So every list,
record and text a rule makes (repetition, `+`, a literal, a comprehension, `append`,
`updated`, an item assigned, `join`, `text`) is weighed as it is made: its *size* is
the number of items and characters it shows when printed, lists and records inside it
counted with theirs (a list shared twice counts twice, as it prints twice), and its
*nesting* how deep lists and records go inside it.  Past either limit it is a located
LimitError, before anything slower (printing it, exact odds, comparing it) meets it.

A value can stay within the size limit and many of them still fill the machine, held
in many names at once; so a value of LARGE_VALUE or more also checks the process's
memory as it is made, and past MAX_MEMORY it is refused the same way.  Small values
never pay for that check, and a large one costs far more to make than to check.

Weighing visits each distinct list or record once (a shared one is weighed once and
counted as often as it is held) and stops as soon as the limit is passed, so it costs
at most what making the value cost.
"""
from __future__ import annotations

import os

try:
    import resource   # not on every platform: see resident_bytes
except ImportError:   # pragma: no cover
    resource = None

from ..errors import LimitError
from ..limits import LARGE_VALUE, MAX_MEMORY, MAX_NESTING, MAX_VALUE_SIZE

CONTAINERS = (list, tuple, dict)
SEQUENCES = (list, tuple, str)


class TooLarge(ValueError):
    """What `weigh` found: the message of the LimitError to raise at the rule (a
    ValueError, so that a built-in function's call turns it into a located error)."""


def weigh(value) -> int:
    """The value's size (items and characters, nested ones included), or TooLarge."""
    if isinstance(value, str):
        size = len(value)
        if size > MAX_VALUE_SIZE:
            raise TooLarge(f"this makes a text of more than {MAX_VALUE_SIZE:,} characters")
        return size
    return _weigh(value, {}, 0)


def _weigh(value, seen: dict, depth: int) -> int:
    if depth >= MAX_NESTING:
        raise TooLarge(f"this makes lists or records nested more than {MAX_NESTING} deep")
    known = seen.get(id(value))
    if known is not None:
        return known
    items = value.values() if isinstance(value, dict) else value
    size = len(items)
    kinds = set(map(type, items))   # at C speed: most lists hold numbers, units or rows only
    texts = containers = False
    for kind in kinds:   # (a few kinds: a loop here, not a generator's frame per list)
        held = _HELD.get(kind)
        if held is None:
            held = _held(kind)
        if held is _TEXT:
            texts = True
        elif held is _CONTAINER:
            containers = True
    if texts:
        if len(kinds) == 1 and str in kinds:   # texts alone (a list of names): at C speed
            size += sum(map(len, items))
        else:
            size += sum(len(item) for item in items if isinstance(item, str))
    if containers:
        inner = depth + 1
        for item in items:
            if item.__class__ is dict and inner < MAX_NESTING:
                # a record of numbers and texts (a jug's equipment slot, a heat sink):
                # weighed here, without a call of its own -- what `_weigh` gives it
                values = item.values()
                held = set(map(type, values))
                if held <= FLAT_KINDS:
                    size += len(values)
                elif held == _STR_ONLY:
                    size += len(values) + sum(map(len, values))
                elif held <= _FLAT_OR_STR:
                    size += len(values) + sum(len(v) for v in values if v.__class__ is str)
                else:
                    size += _weigh(item, seen, inner)
                if size > MAX_VALUE_SIZE:
                    break
            elif isinstance(item, CONTAINERS):
                size += _weigh(item, seen, inner)
                if size > MAX_VALUE_SIZE:
                    break
    if size > MAX_VALUE_SIZE:
        raise TooLarge(f"this makes a value of more than {MAX_VALUE_SIZE:,} items and "
                       f"characters (lists, records and texts inside it counted)")
    seen[id(value)] = size
    return size


# what an item of each type is to `_weigh`: a text, a list or record, or neither
_TEXT, _CONTAINER, _NEITHER = "text", "container", "neither"
_HELD: dict = {}


def _held(kind) -> str:
    """What items of this type are (subclasses included), found once per type."""
    held = _TEXT if issubclass(kind, str) else \
        _CONTAINER if issubclass(kind, CONTAINERS) else _NEITHER
    if len(_HELD) < 1024:
        _HELD[kind] = held
    return held


# item types that are no text or list (the compiled code's lists ask it at once too)
FLAT_KINDS: set = {int, float, bool, type(None)}
_STR_ONLY = {str}
_FLAT_OR_STR = FLAT_KINDS | _STR_ONLY   # (the types above and texts: records weighed inline)


def made(value, loc):
    """`value`, just made by a rule, if it is within the limits; else the LimitError at
    `loc`.  Numbers and everything that is not a list, record or text pass as they are.

    The common case of a game, a short list of units, rows or numbers, is settled at
    once: its size is its length (no item is a text or holds items), which is below
    LARGE_VALUE, so it can pass neither limit and needs no memory check."""
    if value.__class__ is list and len(value) < LARGE_VALUE:
        kinds = set(map(type, value))
        if kinds <= FLAT_KINDS or _all_flat(kinds):
            return value
    if not isinstance(value, CONTAINERS + (str,)):
        return value
    if isinstance(value, str) and len(value) < LARGE_VALUE:
        return value
    try:
        size = weigh(value)
    except TooLarge as err:
        raise too_large(str(err), loc) from None
    if size >= LARGE_VALUE:
        check_memory(loc)
    return value


def _all_flat(kinds: set) -> bool:
    """Whether no type in `kinds` is a text or a container (remembered when so)."""
    if any(issubclass(kind, CONTAINERS + (str,)) for kind in kinds):
        return False
    FLAT_KINDS.update(kinds)
    return True


def held_size(item) -> int:
    """What one item adds to the size of a list holding it (itself and what it shows),
    or TooLarge: a list made item by item is refused as soon as it passes the limit,
    before the rest of its items are worked out."""
    if isinstance(item, str):
        return 1 + len(item)
    if isinstance(item, CONTAINERS):
        return 1 + _weigh(item, {}, 1)
    return 1


def refuse_size(loc) -> None:
    """The LimitError of a value past MAX_VALUE_SIZE, at `loc`."""
    raise too_large(f"this makes a value of more than {MAX_VALUE_SIZE:,} items and "
                    f"characters (lists, records and texts inside it counted)", loc)


def within(value):
    """`made` for the built-in functions, which know no location: TooLarge instead."""
    size = weigh(value)
    if size >= LARGE_VALUE and resident_bytes() > MAX_MEMORY:
        raise TooLarge(_memory_message(resident_bytes()))
    return value


def joined_size(texts: list, separator: str) -> int:
    """The length of `separator.join(texts)`, known before it is made."""
    return sum(map(len, texts)) + len(separator) * max(len(texts) - 1, 0)


def repeated(sequence, times, loc) -> None:
    """Before `sequence * times` is made: a LimitError at `loc` if the result would be
    too large (so that `[0] * 1000000000` is refused without being made)."""
    if not fits_repeated(sequence, times):
        _refuse_repeated(sequence, times, loc)


def fits_repeated(sequence, times) -> bool:
    """Whether `sequence * times` stays within MAX_VALUE_SIZE (compiled code asks)."""
    if not isinstance(times, int):
        times = getattr(times, "total", None)
    if type(times) is bool or not isinstance(times, int) or times <= 0:
        return True
    if len(sequence) * times > MAX_VALUE_SIZE:
        return False
    try:
        return weigh(sequence) * times <= MAX_VALUE_SIZE
    except TooLarge:
        return False


def _refuse_repeated(sequence, times, loc) -> None:
    if not isinstance(times, int):
        times = getattr(times, "total", None)   # a bound roll of exact odds
    if type(times) is bool or not isinstance(times, int) or times <= 0:
        return
    try:
        size = weigh(sequence)
    except TooLarge as err:
        raise too_large(str(err), loc) from None
    if max(size, len(sequence)) * times > MAX_VALUE_SIZE:
        what = "text" if isinstance(sequence, str) else "list"
        raise too_large(f"this makes a {what} of more than {MAX_VALUE_SIZE:,} items and "
                        f"characters ({max(size, len(sequence)):,} repeated {times:,} times)",
                        loc)


def too_large(message: str, loc) -> LimitError:
    return LimitError(message, loc, code="limit-size",
                      hint="a list or text that keeps growing (doubled or appended to in a "
                           "loop) has no end; a rule never needs one this large")


def check_memory(loc) -> None:
    """A large value was just made: refuse it if the process holds more than MAX_MEMORY."""
    held = resident_bytes()
    if held > MAX_MEMORY:
        raise LimitError(_memory_message(held), loc, code="limit-memory",
                         hint="many large lists or texts are kept at once (in names, state "
                              "or a list of them); a rule never needs this many")


def _memory_message(held: int) -> str:
    return (f"the rules hold more than {MAX_MEMORY // 2 ** 20:,} MB of values "
            f"({held // 2 ** 20:,} MB)")


def resident_bytes() -> int:
    """The process's resident memory now (Linux: /proc/self/statm); elsewhere its peak,
    which is never less."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        if resource is None:
            return 0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss   # KB on Linux, bytes on macOS
        return peak if peak > 2 ** 32 else peak * 1024
