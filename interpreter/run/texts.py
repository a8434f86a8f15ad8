"""Values as a transcript writes them: exact numbers as the rules write them, true,
false and none as the DSL does, long lists cut short, dice and table lookups as a
reader checks them against the printed table.  Used by the sampled runner's transcript,
`run`'s output and the story."""
from __future__ import annotations

from fractions import Fraction

from ..expr.values import decimal_text, json_value
from ..limits import TRANSCRIPT_DECIMALS, TRANSCRIPT_ITEMS


class More(str):
    """The end of a list or record cut short in the transcript: `… 9,900 more`."""


def shown(value, room: list | None = None):
    """`value` as the transcript keeps it: a value of more than TRANSCRIPT_ITEMS items in
    all (lists and records inside it counted) is cut there, the rest said as `… N more`
    (a rule may make a list of a million items; its every line need not hold it)."""
    if not isinstance(value, (list, tuple, dict)):
        return value
    room = [TRANSCRIPT_ITEMS] if room is None else room
    pairs = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
    kept = []
    for key, item in pairs:
        if room[0] <= 0:
            kept.append((More, More(f"… {len(pairs) - len(kept):,} more")))
            break
        room[0] -= 1
        kept.append((key, shown(item, room)))
    if isinstance(value, dict):
        return {("…" if k is More else k): v for k, v in kept}
    return [v for _, v in kept]


def value_text(value) -> str:
    """A value in the transcript: exact numbers as the rules write them (decimals, not
    7071/100; JSON keeps the exact value), true/false/none as the DSL does; a long list
    cut short (`shown`)."""
    if isinstance(value, (list, tuple, dict)) and not isinstance(value, More):
        value = shown(value)
    return _value_text(value)


def _value_text(value) -> str:
    if isinstance(value, More):
        return str(value)
    total = getattr(value, "total", None)
    if total is not None and not isinstance(value, (int, Fraction)):
        value = total
    if isinstance(value, Fraction) and value.denominator != 1:
        return decimal_text(value, TRANSCRIPT_DECIMALS)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_value_text(v)}" for k, v in value.items()) + "}"
    name = getattr(value, "name", None)
    if isinstance(name, str) and hasattr(value, "side") and hasattr(value, "uid"):
        return name   # a unit
    return literal_text(value)


def literal_text(value) -> str:
    """A plain value as the DSL writes it: true, false, none, text and numbers as such,
    lists and records item by item (an exact result's tuple reads as the list it is)."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {literal_text(v)}" for k, v in value.items()) + "}"
    v = json_value(value)
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    return str(v)


def dice_text(records) -> str:
    parts = []
    for rec in records:
        as_json = rec.as_json()
        if "dice" in as_json:
            faces = ",".join("+".join(str(f) for f in d["faces"]) + ("" if d.get("kept", True) else "✗")
                             for d in as_json["dice"])
            parts.append(f"{as_json.get('notation', '')} [{faces}]")
        elif "table" in as_json:
            parts.append(lookup_text(as_json))
    return "; ".join(parts)


def lookup_text(record: dict) -> str:
    """A table lookup as a reader checks it against the printed table: the key used, the
    row it fell in when that is not the key itself ("5+"), and the value found."""
    key, row = record.get("key"), record.get("row")
    text = f"{record['table']}[{key}]"
    if row is None or record.get("unhandled"):
        return text + " → unhandled, rolled again"
    if str(row) != str(key):
        text += f" (row {row})"
    if "value" in record:
        text += f" → {record['value']}"
    return text
