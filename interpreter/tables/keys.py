"""Table keys: reading them as written, and finding the row (or column) that holds a value.

A key is a face or a range of faces (`"3"`, `"1-2"`, `"19-20"`, `"0"`, `"-1"`), faces
listed as the books print them (`"6,7"`, `"19,20"`, `"1-2,5"`), a band
(`"5+"`, `"1-3"`, `"10 or more"`, `"2 or less"`, `"3-4 hexes"` with a trailing unit word)
or, failing those, a name.  Faces and bands are whole numbers; names are looked up
case-insensitively.  `parse_key` and `numeric_key` read one key; `KeyIndex` finds the
entry of a table's rows (or of a two-dimensional table's columns) for a value.
"""
from __future__ import annotations

import re
from ..records import record
from fractions import Fraction
from typing import Any, Iterable

from ..errors import EvalError
from ..suggest import did_you_mean

MAX_BAND_LIST = 12          # faces named one by one before runs are shortened to a-b

MISSING = object()         # "no entry": what a lookup returns when no key holds the value


# ---------------------------------------------------------------------------- keys

_UNIT = r"(?:\s*[A-Za-z][A-Za-z.]*|\s*[\"']{1,2})?"
_INT = r"([-+−]?\d+)"
_RANGE = re.compile(rf"^\s*{_INT}\s*(?:-|–|—|to)\s*{_INT}{_UNIT}\s*$")
_SINGLE = re.compile(rf"^\s*{_INT}{_UNIT}\s*$")
_PLUS = re.compile(rf"^\s*{_INT}\s*\+{_UNIT}\s*$")
_MORE = re.compile(rf"^\s*{_INT}{_UNIT}\s+or\s+(?:more|higher|greater|over|above|better)"
                   rf"{_UNIT}\s*$", re.IGNORECASE)
_LESS = re.compile(rf"^\s*{_INT}{_UNIT}\s+or\s+(?:less|lower|fewer|under|below|worse)"
                   rf"{_UNIT}\s*$", re.IGNORECASE)


def _int(text: str) -> int:
    return int(text.replace("−", "-").replace("+", ""))


@record(frozen=True)
class Key:
    """One parsed row (or column) key.

    Numeric keys are integer intervals `lo..hi` (inclusive; None = open at that end);
    a single face has lo == hi.  Name keys have `name` set (and lo = hi = None).
    `text` is the key as written.
    """

    text: str
    lo: int | None = None
    hi: int | None = None
    name: str | None = None
    listed: tuple[int, ...] | None = None   # faces listed with commas ("1,3,5"): only those

    def span(self) -> list[int]:
        """The faces of a bounded key, in order."""
        if self.listed is not None:
            return list(self.listed)
        return list(range(self.lo, self.hi + 1))

    @property
    def is_name(self) -> bool:
        return self.name is not None

    @property
    def bounded(self) -> bool:
        return not self.is_name and self.lo is not None and self.hi is not None

    def contains(self, value) -> bool:
        if self.is_name:
            return False
        if self.listed is not None:
            return value in self.listed
        return (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi)

    def faces(self, universe: Iterable[int]) -> list[int]:
        return [f for f in universe if self.contains(f)]

    def describe(self) -> str:
        if self.is_name:
            return self.name
        if self.listed is not None:
            return format_values(self.listed)
        if self.lo is None and self.hi is None:
            return "any value"
        if self.lo is None:
            return f"{self.hi} or less"
        if self.hi is None:
            return f"{self.lo} or more"
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"


def parse_key(raw: Any) -> Key:
    """Read a key as written in a table: a face or range (`3`, `1-2`, `-1`), a band
    (`5+`, `10 or more`, `2 or less`, `3-4 hexes`) or, failing those, a name.

    Integer keys (from code or YAML) read exactly like their text.  A range that runs
    backwards (`6-1`) is read as a name; `numeric_key` tells them apart with a reason.
    """
    key, _ = _parse_numeric(raw)
    if key is not None:
        return key
    text = str(raw)
    return Key(text=text, name=text.strip())


def numeric_key(raw: Any) -> tuple[Key | None, str | None]:
    """A numeric key, or (None, why it is not one)."""
    return _parse_numeric(raw)


def _parse_numeric(raw: Any) -> tuple[Key | None, str | None]:
    if isinstance(raw, bool):
        return None, "true/false is not a face or a band"
    if isinstance(raw, int):
        return Key(str(raw), raw, raw), None
    if isinstance(raw, float) and raw.is_integer():
        return Key(str(int(raw)), int(raw), int(raw)), None
    if not isinstance(raw, str):
        return None, f"{raw!r} is not a face or a band"
    text = raw
    if "," in text:
        return _parse_listed(text)
    m = _RANGE.match(text)
    if m:
        lo, hi = _int(m.group(1)), _int(m.group(2))
        if hi < lo:
            return None, f"the range {text!r} runs backwards"
        return Key(text, lo, hi), None
    m = _SINGLE.match(text)
    if m:
        v = _int(m.group(1))
        return Key(text, v, v), None
    m = _PLUS.match(text) or _MORE.match(text)
    if m:
        return Key(text, _int(m.group(1)), None), None
    m = _LESS.match(text)
    if m:
        return Key(text, None, _int(m.group(1))), None
    return None, (f"cannot read {text!r} as a face, a range like 1-2 or a band like 5+, "
                  f"10 or more, 2 or less")


def _parse_listed(text: str) -> tuple[Key | None, str | None]:
    """`"6,7"`, `"19, 20"`, `"1-2,5"`: faces listed with commas, each a face or a range."""
    faces: list[int] = []
    for part in text.split(","):
        key, why = _parse_numeric(part)
        if key is None or not key.bounded or key.listed is not None:
            return None, (f"cannot read {part.strip()!r} in {text!r} as a face or a range "
                          f"like 1-2" + (f" ({why})" if why and key is None else ""))
        faces.extend(v for v in key.span() if v not in faces)
    faces.sort()
    contiguous = faces == list(range(faces[0], faces[-1] + 1))
    return Key(text, faces[0], faces[-1], listed=None if contiguous else tuple(faces)), None


def format_values(values: Iterable[int]) -> str:
    """`[16, 17, 18]` -> "16, 17, 18"; long runs shortened: "1-40, 45"."""
    values = sorted(set(values))
    runs: list[tuple[int, int]] = []
    for v in values:
        if runs and runs[-1][1] == v - 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    if len(values) <= MAX_BAND_LIST:
        return ", ".join(str(v) for v in values)
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


# ---------------------------------------------------------------------- key index


class KeyIndex:
    """Finds the entry whose key holds a value: faces/bands by value, names by casefold."""

    def __init__(self, label: str, keys: list[Key], items: list, numeric: bool):
        self.label = label
        self.keys = keys
        self.items = items
        self.numeric = numeric
        self.by_name = {k.name.casefold(): it for k, it in zip(keys, items) if k.is_name}
        self.by_text = {k.text.strip().casefold(): it for k, it in zip(keys, items)}
        self.faces: dict[int, Any] | None = None

    def lookup(self, value):
        """The item for value, or MISSING."""
        if isinstance(value, str):
            hit = self.by_name.get(value.strip().casefold(), MISSING)
            if hit is not MISSING:
                return hit
            hit = self.by_text.get(value.strip().casefold(), MISSING)
            if hit is not MISSING:
                return hit
            if not self.numeric:
                return MISSING
            key, _ = numeric_key(value)
            if key is None or not key.bounded or key.lo != key.hi:
                return MISSING
            value = key.lo
        if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
            return MISSING
        if not self.numeric:
            return self.by_name.get(str(value).casefold(), MISSING)
        if self.faces is not None and type(value) is int and value in self.faces:
            return self.faces[value]
        for key, item in zip(self.keys, self.items):
            if not key.is_name and key.contains(value):
                if type(value) is int:   # remember it: the same keys come up again and again
                    if self.faces is None:
                        self.faces = {}
                    if len(self.faces) < 4096:
                        self.faces[value] = item
                return item
        return MISSING

    def find(self, value, loc, what: str):
        hit = self.lookup(value)
        if hit is MISSING:
            raise self.miss(value, loc, what)
        return hit

    def miss(self, value, loc, what: str) -> EvalError:
        if isinstance(value, str) and not self.numeric:
            return EvalError(f"no row {value!r} in {what}", loc,
                             hint=did_you_mean(value, [k.name for k in self.keys
                                                       if k.is_name]))
        if isinstance(value, Fraction) and value.denominator != 1 and self.numeric:
            return EvalError(f"no row for {value} in {what}: its keys are whole numbers",
                             loc, hint="round the value first: floor(x), ceil(x) or round(x)")
        shown = value if not isinstance(value, str) else repr(value)
        return EvalError(f"no row for {shown} in {what}", loc,
                         hint=("the keys are " + ", ".join(k.text for k in self.keys[:12])
                               + (" ..." if len(self.keys) > 12 else ""))
                         if self.keys else None)
