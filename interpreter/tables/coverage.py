"""Coverage checks of a table's keys: a die table's rows against its roll's faces, a band
table's bands against each other and their domain (gaps, overlaps, order).  They run
while `build_table` builds a table (build.py) and report through its builder."""
from __future__ import annotations

import math

from .keys import format_values
from .rows import Row


def check_die(builder) -> None:
    """A die table's rows against the faces its roll can give: every face once (or
    declared unhandled), no row outside the die; builds the face -> row index."""
    t = builder.table
    if t.roll_dist is None:
        return
    faces = t.roll_dist.values()
    face_set = set(faces)
    rows_node = builder.node["rows"]
    covered: dict[int, Row] = {}
    reported_pairs: dict[tuple[str, str], list[int]] = {}
    for row in t.rows:
        key = row.parsed
        if key.is_name:
            continue
        # O(row) for a face or a narrow range (a d10000 table has 10,000 rows: listing
        # every face per row took seconds); a wide or open range scans the faces
        if key.bounded and (key.listed is not None or key.hi - key.lo <= len(face_set)):
            span = key.span()
            inside = [v for v in span if v in face_set]
            outside = [v for v in span if v not in face_set]
        else:
            inside = key.faces(faces)
            outside = [] if not key.bounded else [_wide_outside(key, inside)]
        if outside or not inside:
            shown = outside[0] if outside and isinstance(outside[0], str) \
                else format_values(outside)
            what = (f"covers {shown}, which {t.roll_text} cannot roll"
                    if outside else f"covers no face that {t.roll_text} can roll")
            builder.add("table-key-outside",
                     f"{t._head()}: row {row.key!r} {what} (faces {_span(face_set)})",
                     row.key_location)
        for f in inside:
            if f in covered:
                pair = (covered[f].key, row.key)
                reported_pairs.setdefault(pair, []).append(f)
            else:
                covered[f] = row
    for (a, b), fs in reported_pairs.items():
        builder.add("table-overlap",
                 f"{t._head()}: rows {a!r} and {b!r} both cover {format_values(fs)}",
                 rows_node.key_location(b))
    gap = [f for f in faces if f not in covered and f not in t.unhandled]
    if gap:
        builder.add("table-gap", f"{t._head()}: no row for {format_values(gap)}",
                 rows_node.location,
                 hint="add rows for them, or declare them `unhandled:` (roll again)")
    bad_unhandled = sorted(f for f in t.unhandled if f in covered)
    if bad_unhandled:
        builder.add("table-unhandled",
                 f"{t._head()}: {format_values(bad_unhandled)} declared unhandled but "
                 f"covered by a row", builder.node["unhandled"].location)
    off_die = sorted(f for f in t.unhandled if f not in face_set)
    if off_die:
        builder.add("table-unhandled",
                 f"{t._head()}: unhandled {format_values(off_die)} cannot be rolled on "
                 f"{t.roll_text} (faces {_span(face_set)})",
                 builder.node["unhandled"].location)
    # a face -> row map for fast lookups (other values are found by scanning)
    t.index.faces = dict(covered)

def check_bands(builder) -> None:
    """A band table's rows: in order, without overlaps, without gaps over the domain."""
    t = builder.table
    rows_node = builder.node["rows"]
    bands = [r for r in t.rows if not r.parsed.is_name]
    if not bands:
        return
    for row in bands:
        if row.parsed.listed is not None:
            builder.add("table-band-listed", f"table {builder.name!r}: row {row.key!r} lists "
                     f"values with gaps, which only a die table (roll:) can have; bands "
                     f"are ranges", row.key_location,
                     hint="write one row per range, e.g. \"1\" and \"3\"")
    bands = [r for r in bands if r.parsed.listed is None]
    if not bands:
        return
    NEG, POS = -math.inf, math.inf

    def lo(r):
        return NEG if r.parsed.lo is None else r.parsed.lo

    def hi(r):
        return POS if r.parsed.hi is None else r.parsed.hi

    # order: ascending or descending, as the first two bands say
    if len(bands) >= 2:
        ascending = lo(bands[1]) >= lo(bands[0])
        for prev, cur in zip(bands, bands[1:]):
            ok = lo(cur) >= lo(prev) if ascending else lo(cur) <= lo(prev)
            if not ok:
                builder.add("table-band-order",
                         f"table {builder.name!r}: row {cur.key!r} is out of order after "
                         f"{prev.key!r} (bands run {'up' if ascending else 'down'} from "
                         f"{bands[0].key!r})", cur.key_location)
                break
    ordered = sorted(bands, key=lambda r: (lo(r), hi(r)))
    # overlaps: sweep with the band reaching furthest so far
    reach = None
    for cur in ordered:
        if reach is not None and hi(reach) >= lo(cur):
            a, b = max(lo(cur), lo(reach)), min(hi(cur), hi(reach))
            builder.add("table-overlap",
                     f"table {builder.name!r}: rows {reach.key!r} and {cur.key!r} both "
                     f"cover {_interval_text(a, b)}", cur.key_location)
        if reach is None or hi(cur) > hi(reach):
            reach = cur
    # gaps over the domain, or between the bounded ends
    if t.domain is not None:
        d_lo, d_hi = t.domain
    else:
        finite = [v for r in bands for v in (r.parsed.lo, r.parsed.hi) if v is not None]
        d_lo, d_hi = min(finite), max(finite)
    missing: list[tuple] = []
    cursor = d_lo
    for cur in ordered:
        if lo(cur) > cursor and cursor <= d_hi:
            missing.append((cursor, min(lo(cur) - 1, d_hi)))
        if hi(cur) + 1 > cursor:
            cursor = hi(cur) + 1
    if cursor <= d_hi:
        missing.append((cursor, d_hi))
    if missing:
        values = []
        for a, b in missing:
            values.extend(range(int(a), int(b) + 1))
        builder.add("table-band-gap", f"table {builder.name!r}: no row for "
                 f"{format_values(values)}", rows_node.location)
    if t.domain is not None:
        for r in bands:
            if hi(r) < d_lo or lo(r) > d_hi:
                builder.add("table-key-outside",
                         f"table {builder.name!r}: row {r.key!r} lies outside the domain "
                         f"{d_lo}-{d_hi}", r.key_location)


def _wide_outside(key, inside: list[int]) -> str:
    """What a range wider than the die covers that it cannot roll, as ranges (without
    listing a range of a billion)."""
    if not inside:
        return f"{key.lo}-{key.hi}"
    parts = []
    if key.lo < min(inside):
        parts.append(_interval(key.lo, min(inside) - 1))
    if max(inside) < key.hi:
        parts.append(_interval(max(inside) + 1, key.hi))
    return ", ".join(parts) or "values"


def _interval(a: int, b: int) -> str:
    return str(a) if a == b else f"{a}-{b}"


def _span(faces: set[int]) -> str:
    lo, hi = min(faces), max(faces)
    if len(faces) == hi - lo + 1:
        return f"{lo}-{hi}"
    return format_values(faces)


def _interval_text(a, b) -> str:
    if a == -math.inf and b == math.inf:
        return "every value"
    if a == -math.inf:
        return f"{b} or less"
    if b == math.inf:
        return f"{a} or more"
    return format_values(range(int(a), int(b) + 1))
