"""Space: where units are and how far apart, as generic primitives a ruleset picks from.

- `abstract` (the default): distances between pairs of units, set by the scenario
  (`distance:`, `distances:`) and changed by `set_distance` / `move_towards`.
- `tabletop`: positions are points `[x, y]` (optionally a facing in degrees, `[x, y, 90]`
  or `{x: 0, y: 0, facing: 90}`); distances are straight lines in the ruleset's unit,
  exact to 1/100.
- `hex`: positions are axial hexes `[q, r]` (optionally a facing 0–5, one per hex side,
  0 = "north-east" … in order clockwise); distances count hexes; facing turns by 60°,
  or by 30° to half way between two sides (5/2), where "ahead" runs along the edge.

Arcs are relative to the looking unit's facing: `front` within ±30° (hex: the forward
hex side) or ±45° (tabletop), `rear` the same behind, `side` in between.

A tabletop unit may also stand on a rectangular base (its length along its facing, its
width across): `base_arc` divides the table around it by the lines from the base's
centre through its four corners (front, right, rear, left), and `distance_from_edge`
measures from where the line to another point leaves the base.  Tabletop coordinates
are read like the hex map's: y grows "down", so a positive turn is clockwise and the
right-hand side of a unit facing 0° (along +x) is towards +y.  Nothing here knows a game.
"""
from __future__ import annotations

import math
from ..records import record
from fractions import Fraction

from ..errors import EvalError

# axial directions for facings 0..5, clockwise
HEX_DIRECTIONS = ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))


@record(frozen=True)
class Position:
    """A point (tabletop) or an axial hex (q = x, r = y), and a facing."""

    x: int | Fraction
    y: int | Fraction
    facing: int | Fraction = 0

    def as_record(self, model: str) -> dict:
        if model == "hex":
            return {"q": self.x, "r": self.y, "facing": self.facing}
        return {"x": self.x, "y": self.y, "facing": self.facing}


def _number(value):
    if isinstance(value, float):
        return _exact(value)
    return value


def _exact(value: float):
    """A float as an exact number, to 1/100 (positions and distances are shown so)."""
    hundredths = round(value * 100)
    if hundredths % 100 == 0:   # a whole number: no Fraction to build and reduce
        return hundredths // 100
    exact = _HUNDREDTHS.get(hundredths)
    if exact is None:   # (a Fraction never changes: one made before is the same number)
        exact = Fraction(hundredths, 100)
        if len(_HUNDREDTHS) < 8192:
            _HUNDREDTHS[hundredths] = exact
    return exact


_HUNDREDTHS: dict = {}   # hundredths -> their Fraction, made once (`_exact`)


def _float_gap(p, q) -> float:
    """`float(p - q)` for whole or fractional coordinates, on whole numbers: the exact
    difference's correctly rounded quotient either way (so the same float), without the
    Fraction arithmetic that was a third of a tabletop game's time."""
    kp, kq = p.__class__, q.__class__
    if (kp is int or kp is Fraction) and (kq is int or kq is Fraction):
        if kp is int and kq is int:
            return float(p - q)
        pn, pd = (p, 1) if kp is int else (p.numerator, p.denominator)
        qn, qd = (q, 1) if kq is int else (q.numerator, q.denominator)
        return (pn * qd - qn * pd) / (pd * qd)
    return float(p - q)


def parse_position(value, model: str, where: str) -> Position:
    """A scenario position: `[x, y]`, `[x, y, facing]` or a record."""
    if isinstance(value, (list, tuple)) and len(value) in (2, 3):
        coords = [_number(v) for v in value]
        return Position(coords[0], coords[1], coords[2] if len(coords) == 3 else 0)
    if isinstance(value, dict):
        a, b = ("q", "r") if model == "hex" else ("x", "y")
        if a in value and b in value:
            return Position(_number(value[a]), _number(value[b]), _number(value.get("facing", 0)))
    raise EvalError(f"{where}: a position is [x, y], [x, y, facing] or a record "
                    f"{{{'q, r' if model == 'hex' else 'x, y'}, facing}}")


def hex_distance(a: Position, b: Position) -> int:
    dq, dr = a.x - b.x, a.y - b.y
    return int((abs(dq) + abs(dr) + abs(dq + dr)) // 2)


def distance(a: Position, b: Position, model: str):
    if model == "hex":
        return hex_distance(a, b)
    return _exact(math.hypot(_float_gap(a.x, b.x), _float_gap(a.y, b.y)))


def _pixel(p: Position, model: str) -> tuple[float, float]:
    """Cartesian coordinates (hexes: centres of pointy-top hexes, y down)."""
    if model == "hex":
        return (math.sqrt(3) * (p.x + p.y / 2), 1.5 * p.y)
    return (float(p.x), float(p.y))


def _facing_degrees(p: Position, model: str) -> float:
    if model == "hex":
        # facing 0 (north-east) is -60 degrees with y down; each hex side 60 more, and a
        # facing between two sides (k + 1/2) lies half way
        return -60.0 + 60.0 * float(p.facing)
    return float(p.facing)


def hex_facing(value) -> int | Fraction:
    """A hex facing in 0 <= f < 6: a whole hex side, or half way between two (k + 1/2,
    after a turn of 30 or 90 degrees)."""
    f = Fraction(value) % 6
    return f.numerator if f.denominator == 1 else f


def hex_steps(facing, n: int) -> list[tuple[int, int]]:
    """The axial steps of `n` hexes straight ahead (behind for a negative `n`).  A
    facing between two hex sides runs along the edge between them, so the steps take the
    two sides in turn, the counter-clockwise one first."""
    f = hex_facing(Fraction(facing) + (0 if n >= 0 else 3))
    side = math.floor(f)
    if f == side:
        return [HEX_DIRECTIONS[side]] * abs(n)
    return [HEX_DIRECTIONS[(side + i % 2) % 6] for i in range(abs(n))]


def arc(a: Position, b: Position, model: str) -> str:
    """Which arc of `a` the unit at `b` is in: front, side or rear."""
    ax, ay = _pixel(a, model)
    bx, by = _pixel(b, model)
    if (ax, ay) == (bx, by):
        return "front"
    bearing = math.degrees(math.atan2(by - ay, bx - ax))
    off = abs((bearing - _facing_degrees(a, model) + 180) % 360 - 180)
    half = 30 if model == "hex" else 45
    if off <= half + 1e-9:
        return "front"
    if off >= 180 - half - 1e-9:
        return "rear"
    return "side"


def hex_round(q: float, r: float) -> tuple[int, int]:
    """The hex a fractional axial point lies in."""
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return int(rq), int(rr)


def move_towards(a: Position, b: Position, amount, model: str, away: bool = False) -> Position:
    """`a` moved `amount` towards `b` (never past it), or away from it."""
    total = distance(a, b, model)
    if total == 0:
        return a
    if model == "hex":
        steps = min(int(amount), total) if not away else int(amount)
        t = (steps if not away else -steps) / total
        q = a.x + (b.x - a.x) * t + 1e-6
        r = a.y + (b.y - a.y) * t + 1e-6
        nq, nr = hex_round(q, r)
        return Position(nq, nr, a.facing)
    moved = _moved_on_whole_numbers(a, b, amount, total, away)
    if moved is not None:
        return moved
    fraction = min(Fraction(amount), Fraction(total)) / Fraction(total) if not away \
        else -Fraction(amount) / Fraction(total)
    return Position(_exact(float(a.x + (b.x - a.x) * fraction)),
                    _exact(float(a.y + (b.y - a.y) * fraction)), a.facing)


def _parts(value):
    """(numerator, denominator) of a whole or fractional number, else None."""
    kind = value.__class__
    if kind is int:
        return value, 1
    if kind is Fraction:
        return value.numerator, value.denominator
    return None


def _moved_on_whole_numbers(a: Position, b: Position, amount, total, away: bool):
    """`move_towards` on a tabletop for whole and fractional numbers, the exact point's
    coordinates taken as one quotient of whole numbers: the same floats as the Fraction
    arithmetic gives (the correctly rounded value of the same number), at a fraction of
    its cost.  None for anything else (the Fraction arithmetic then decides)."""
    parts = [_parts(v) for v in (amount, total, a.x, a.y, b.x, b.y)]
    if None in parts:
        return None
    (an, ad), (tn, td) = parts[0], parts[1]
    if away:
        fn, fd = -an * td, ad * tn
    elif an * td < tn * ad:          # amount < total: a part of the way
        fn, fd = an * td, ad * tn
    else:                            # never past the target
        fn, fd = 1, 1
    coords = []
    for (xn, xd), (yn, yd) in ((parts[2], parts[4]), (parts[3], parts[5])):
        numerator = xn * yd * fd + (yn * xd - xn * yd) * fn
        coords.append(_exact(numerator / (xd * yd * fd)))
    return Position(coords[0], coords[1], a.facing)


def step_forward(a: Position, amount, model: str) -> Position:
    """`a` moved straight ahead along its facing."""
    if model == "hex":
        steps = hex_steps(a.facing, int(amount))
        return Position(a.x + sum(d[0] for d in steps), a.y + sum(d[1] for d in steps), a.facing)
    angle = math.radians(float(a.facing))
    return Position(_exact(float(a.x) + math.cos(angle) * float(amount)),
                    _exact(float(a.y) + math.sin(angle) * float(amount)), a.facing)


def turned(a: Position, by, model: str) -> Position:
    """`a` turned by `by` hex sides (hex) or degrees (tabletop), clockwise."""
    if model == "hex":
        return Position(a.x, a.y, hex_facing(Fraction(a.facing) + Fraction(by)))
    return Position(a.x, a.y, _number((a.facing + by) % 360))


def facing_towards(a: Position, b: Position, model: str) -> Position:
    """`a` turned to face `b` (the nearest hex side on a hex map)."""
    ax, ay = _pixel(a, model)
    bx, by = _pixel(b, model)
    bearing = math.degrees(math.atan2(by - ay, bx - ax))
    if model == "hex":
        best = min(range(6), key=lambda f: abs((bearing - _facing_degrees(Position(0, 0, f), model)
                                                 + 180) % 360 - 180))
        return Position(a.x, a.y, best)
    return Position(a.x, a.y, _exact(bearing % 360))


def _local(a: Position, b: Position) -> tuple[float, float]:
    """`b` in the frame of `a`: (ahead along a's facing, to a's right)."""
    dx, dy = float(b.x - a.x), float(b.y - a.y)
    angle = math.radians(float(a.facing))
    c, s = math.cos(angle), math.sin(angle)
    return (dx * c + dy * s, -dx * s + dy * c)


def _base_size(length, width) -> tuple[float, float]:
    try:
        half_l, half_w = float(length) / 2, float(width) / 2
    except (TypeError, ValueError):
        raise EvalError(f"a base's length and width are numbers, got {length!r} x {width!r}") from None
    if not (half_l > 0 and half_w > 0):
        raise EvalError(f"a base needs a length and a width above 0, got {length} x {width}")
    return half_l, half_w


def base_arc(a: Position, b: Position, length, width) -> str:
    """Which arc of the rectangular base centred on `a` (its `length` along a's facing,
    its `width` across) the point `b` is in, the arcs being bounded by the lines from the
    centre through the base's corners: "front", "right", "rear" or "left".  A point on a
    corner line is in the front or rear arc; `b` on the centre itself is in front."""
    half_l, half_w = _base_size(length, width)
    ahead, right = _local(a, b)
    if ahead == 0 and right == 0:
        return "front"
    slack = 1e-9 * max(1.0, abs(ahead), abs(right))
    if abs(right) * half_l <= abs(ahead) * half_w + slack * half_l:
        return "front" if ahead > 0 else "rear"
    return "right" if right > 0 else "left"


def edge_distance(a: Position, b: Position, length, width) -> float:
    """How far from `a` (the centre of its base) the line towards `b` leaves the base."""
    half_l, half_w = _base_size(length, width)
    ahead, right = _local(a, b)
    reach = math.hypot(ahead, right)
    if reach == 0:
        return 0.0
    limits = [half_l * reach / abs(ahead)] if ahead else []
    limits += [half_w * reach / abs(right)] if right else []
    return min(limits)


def distance_from_edge(a: Position, b: Position, length, width):
    """The straight line from the edge of `a`'s base (where the line from its centre to
    `b` leaves it) to `b`, exact to 1/100; 0 when `b` is on or inside the base."""
    reach = math.hypot(float(b.x - a.x), float(b.y - a.y))
    return _exact(max(0.0, reach - edge_distance(a, b, length, width)))
