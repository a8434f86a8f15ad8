"""Dice notation: one DICE token of the grammar (`4d6kh3`, `d6!x3`, `8d6>=5f1`) read
into a checked `DiceSpec` with its canonical text.

The meanings follow Roll20 and rpg-dice-roller where they agree; where they differ the
choice is in the README's notation table.  In short: a target written on the dice
(`5d10>=8`, `3d6>3`) counts the dice that pass, `f` counts failures against them, `cs` and
`cf` only mark criticals, `!` adds a die per explosion, `!!` compounds, `!p` penetrates,
and a bare `>` or `<` inside the notation is inclusive (Roll20).  The canonical text
spells every comparison out (`3d6>3` becomes `3d6>=3`), and a spec carries `notes` for
spellings another widespread convention reads differently.
"""
from __future__ import annotations

import re
from ..records import replace
from fractions import Fraction
from functools import lru_cache

from ..dice.terms import DiceSpec, overlap
from ..errors import DSLSyntaxError, EvalError, LimitError, Location
from ..limits import DEFAULT_EXPLODE_DEPTH, MAX_DICE, MAX_SIDES, MAX_TARGET

_C = r"(?:<=|>=|<|>|=)"
_DICE_HEAD = re.compile(r"(\d*)[dD](\d+|%|F(?:\.[12])?|\{[^{}]*\})")
_DICE_MOD = re.compile(
    rf"(?P<clamp>min|max)(?P<cval>-?\d+)"
    rf"|(?P<reroll>ro|r)(?:(?P<rcmp>{_C})?(?P<rval>-?\d+))?"
    rf"|!(?P<compound>!)?(?P<pen>p)?(?:(?P<ecmp>{_C})?(?P<eval>-?\d+))?(?:x(?P<depth>\d+))?"
    rf"|(?P<keep>kh|kl|dh|dl|k|d)(?P<kval>\d+)"
    rf"|(?P<crit>cs|cf)(?P<kcmp>{_C})?(?P<kval2>-?\d+)"
    rf"|f(?P<fcmp>{_C})?(?P<fval>-?\d+)"
    rf"|(?P<tcmp>{_C})(?P<tval>-?\d+)"
    rf"|(?P<sort>sa|sd|s)"
    rf"|(?P<unique>u)")

# A bare `>` / `<` inside dice notation is inclusive (Roll20's meaning).
_INCLUSIVE = {">": ">=", "<": "<=", None: "=", "=": "=", ">=": ">=", "<=": "<="}
_STRICT_NOTE = ("{piece!r}: a bare '{op}' in dice notation includes the number (Roll20: "
                "{val} {word}); rpg-dice-roller reads it as strict. Write '{op}=' to say so")
_CS_NOTE = ("'cs' marks critical successes (Roll20, rpg-dice-roller) and leaves the total "
            "alone; to count successes write the target on the dice, e.g. 8d6>=5")


def _faces_of(sides: str, loc: Location) -> tuple[int, ...]:
    if sides == "%":
        return tuple(range(1, 101))
    if sides in ("F", "F.2"):
        return (-1, 0, 1)
    if sides == "F.1":  # rpg-dice-roller's variant Fudge die: one +, one -, four blanks
        return (-1, 0, 0, 0, 0, 1)
    if sides.startswith("{"):
        faces: list[int] = []
        body = sides[1:-1].strip()
        if not body:
            raise DSLSyntaxError("a custom die needs at least one face, e.g. d{0..9}", loc)
        for part in body.split(","):
            part = part.strip()
            m = re.fullmatch(r"(-?\d+)\s*\.\.\s*(-?\d+)", part)
            if m:
                lo, hi = int(m.group(1)), int(m.group(2))
                if hi < lo:
                    raise DSLSyntaxError(f"face range {part} runs backwards", loc)
                if hi - lo + 1 + len(faces) > MAX_SIDES:
                    raise LimitError(f"a die may have at most {MAX_SIDES} faces", loc)
                faces.extend(range(lo, hi + 1))
            elif re.fullmatch(r"-?\d+", part):
                faces.append(int(part))
            else:
                raise DSLSyntaxError(
                    f"custom die face {part!r} is not a number or a range like 0..9", loc)
            if len(faces) > MAX_SIDES:
                raise LimitError(f"a die may have at most {MAX_SIDES} faces", loc)
        return tuple(faces)
    n = int(sides)
    if n < 1:
        raise LimitError("a die needs at least one side (d0 is not a die)", loc)
    if n > MAX_SIDES:
        raise LimitError(f"a die may have at most {MAX_SIDES} sides (got d{n})", loc,
                         hint="MAX_SIDES in interpreter/limits.py")
    return tuple(range(1, n + 1))


def _compare_set(faces, op: str, value: int) -> frozenset[int]:
    tests = {"=": value.__eq__, "<": value.__gt__, "<=": value.__ge__,
             ">": value.__lt__, ">=": value.__le__}
    return frozenset(f for f in faces if tests[op](f))


def _cmp_text(op: str, value: int) -> str:
    return f"{'' if op == '=' else op}{value}"


class _Reader:
    """The state of reading one token: the spec's fields, the canonical pieces, notes."""

    def __init__(self, text: str, loc: Location):
        self.text, self.loc = text, loc
        self.kwargs: dict = {}
        self.notes: list[str] = []
        self.canon: list[str] = []

    def once(self, key: str, what: str, here: Location) -> None:
        if key in self.kwargs:
            raise DSLSyntaxError(f"only one {what} per dice term", here)

    def inclusive(self, op: str | None, value: int, piece: str, default: str = "=") -> str:
        if op in (">", "<"):
            word = "or more" if op == ">" else "or less"
            self.notes.append(_STRICT_NOTE.format(piece=piece, op=op, val=value, word=word))
        return _INCLUSIVE[op] if op is not None else default


def dice_spec(text: str, loc: Location, clamp_keep: bool = False,
              check: bool = True) -> DiceSpec:
    """Split one DICE token into a validated DiceSpec (with canonical `text`).

    `clamp_keep`: keeping or dropping more dice than are rolled keeps or drops them all
    (Roll20's and rpg-dice-roller's reading), for counts computed as the dice are rolled
    (`(n)d6kh3` with n = 2); a count written as a number is checked instead."""
    head = _DICE_HEAD.match(text)
    assert head is not None  # the lexer only produces tokens this regex matches
    count = int(head.group(1)) if head.group(1) else 1
    if count > MAX_DICE:
        raise LimitError(f"at most {MAX_DICE} dice may be rolled at once (got {count})", loc,
                         hint="MAX_DICE in interpreter/limits.py")
    raw_faces = _faces_of(head.group(2), loc)
    sides_text = head.group(2) if not head.group(2).startswith("{") else \
        "{" + ",".join(p.strip() for p in head.group(2)[1:-1].split(",")) + "}"
    if sides_text == "F.2":
        sides_text = "F"
    r = _Reader(text, loc)
    r.canon.append(f"{'' if count == 1 else count}d{sides_text}")
    pieces = []
    label = None
    if text.endswith("]"):            # an inline label, Roll20's `2d6[fire]`
        start = text.rindex("[")
        label, text = text[start + 1:-1].strip(), text[:start]
    pos = head.end()
    while pos < len(text):
        m = _DICE_MOD.match(text, pos)
        if m is None:  # the lexer backtracked where this reader does not (e.g. `sd3`)
            raise DSLSyntaxError(f"cannot read the dice modifier at {text[pos:]!r}",
                                 loc.shifted(0, pos + 1, length=len(text) - pos))
        pieces.append((m, loc.shifted(0, pos + 1, length=m.end() - pos)))
        pos = m.end()
    # min / max change the faces first (rpg-dice-roller applies them before the rest)
    faces = raw_faces
    for m, here in pieces:
        if m.group("clamp"):
            r.once(m.group("clamp"), f"'{m.group('clamp')}' modifier", here)
            value = int(m.group("cval"))
            r.kwargs[m.group("clamp")] = value
            faces = tuple(max(f, value) if m.group("clamp") == "min" else min(f, value)
                          for f in faces)
    for m, here in pieces:
        _read_modifier(r, m, here, faces, raw_faces, count, clamp_keep)
    kwargs = {k: v for k, v in r.kwargs.items() if k not in ("min", "max")}
    if "failure" in kwargs and "success" not in kwargs:
        hint = ("a comparison straight after '!' says what explodes: write 6d10!>=10>=8f1 "
                "to explode on 10 and count 8+") if "explode" in kwargs else None
        raise DSLSyntaxError("'f' counts failures against a target: write the target "
                             "first, e.g. 6d10>=8f1", loc, hint=hint)
    if label:
        r.canon.append(f"[{label}]")
        kwargs["label"] = label
    spec = DiceSpec(count=count, faces=faces, text="".join(r.canon), notes=tuple(r.notes),
                    **kwargs)
    if check:
        spec.validate(loc)
    return spec


def _read_modifier(r: _Reader, m, here: Location, faces, raw_faces, count: int,
                   clamp_keep: bool = False) -> None:
    piece = m.group(0)
    if m.group("clamp"):
        r.canon.append(f"{m.group('clamp')}{int(m.group('cval'))}")
    elif m.group("reroll"):
        r.once("reroll", "reroll modifier", here)
        if m.group("rval") is None:       # bare `r`: the lowest face (rpg-dice-roller)
            op, value = "=", min(raw_faces)
        else:
            value = int(m.group("rval"))
            op = r.inclusive(m.group("rcmp"), value, piece)
        r.kwargs["reroll"] = _compare_set(faces, op, value)
        r.kwargs["reroll_once"] = m.group("reroll") == "ro"
        r.canon.append(m.group("reroll") + _cmp_text(op, value))
    elif piece.startswith("!"):
        r.once("explode", "explode, compound or penetrate modifier", here)
        compound, pen = bool(m.group("compound")), bool(m.group("pen"))
        out = "!" + ("!" if compound else "") + ("p" if pen else "")
        if m.group("eval") is not None:
            value = int(m.group("eval"))
            op = r.inclusive(m.group("ecmp"), value, piece)
            r.kwargs["explode"] = _compare_set(faces, op, value)
            out += _cmp_text(op, value)
        else:                             # the die's highest face
            r.kwargs["explode"] = _compare_set(faces, "=", max(raw_faces))
        depth = int(m.group("depth")) if m.group("depth") else DEFAULT_EXPLODE_DEPTH
        r.kwargs["explode_depth"] = depth
        r.kwargs["compound"], r.kwargs["penetrate"] = compound, pen
        if m.group("depth"):
            out += f"x{depth}"
        r.canon.append(out)
    elif m.group("keep"):
        r.once("keep", "keep or drop modifier", here)
        kind, k = m.group("keep"), int(m.group("kval"))
        kind = {"k": "kh", "d": "dl"}.get(kind, kind)
        if k > count and clamp_keep:
            k = count
        if k > count:
            raise LimitError(f"cannot {'keep' if kind[0] == 'k' else 'drop'} {k} of "
                             f"{count} dice", here)
        r.kwargs["keep"] = (kind, k)
        r.canon.append(kind + str(k))
    elif m.group("crit"):
        key = "crit_success" if m.group("crit") == "cs" else "crit_failure"
        r.once(key, f"'{m.group('crit')}' modifier", here)
        value = int(m.group("kval2"))
        op = r.inclusive(m.group("kcmp"), value, piece)
        r.kwargs[key] = (op, value)
        if key == "crit_success":
            r.notes.append(_CS_NOTE)
        r.canon.append(m.group("crit") + _cmp_text(op, value))
    elif m.group("fval") is not None:
        r.once("failure", "failure count 'f'", here)
        value = int(m.group("fval"))
        op = r.inclusive(m.group("fcmp"), value, piece)
        r.kwargs["failure"] = (op, value)
        r.canon.append("f" + _cmp_text(op, value))
    elif m.group("tval") is not None:
        r.once("success", "target", here)
        value = int(m.group("tval"))
        op = r.inclusive(m.group("tcmp"), value, piece)
        r.kwargs["success"] = (op, value)
        r.canon.append(op + str(value))
    elif m.group("unique"):
        r.once("unique", "unique modifier 'u'", here)
        r.kwargs["unique"] = True
        r.canon.append("u")
    else:
        r.once("sort", "sort modifier", here)
        r.kwargs["sort"] = "d" if m.group("sort") == "sd" else "a"
        r.canon.append("sd" if m.group("sort") == "sd" else "s")


# ------------------------------------------------------------ computed counts and sides

# A computed target is checked, when the rule is read, with this value in its place: one
# no face reaches, so that no failure count `f` can overlap it.
STAND_IN_TARGET = 987654321


def inclusive_target(op: str, shown: str) -> tuple[str, tuple[str, ...]]:
    """The comparison of a computed target as the canonical text writes it (a bare `>`
    or `<` is inclusive, as in the literal `3d6>3`), with the note that says so."""
    if op in (">", "<"):
        word = "or more" if op == ">" else "or less"
        piece = f"{op}({shown})"
        note = (f"{piece!r}: a bare '{op}' in dice notation includes the number (Roll20: "
                f"({shown}) {word}); rpg-dice-roller reads it as strict. Write '{op}=' to say so")
        return _INCLUSIVE[op], (note,)
    return op, ()


def computed_template(count: int | None, sides: str | None, mods: str,
                      loc: Location) -> tuple[str, tuple[str, ...]]:
    """Check the literal part of dice with a computed count or sides (`(n)d6kh1`,
    `2d(n)!`) and give its canonical text after the count, with the notes.

    `count` is the written count (None when computed), `sides` the written sides text
    (None when computed); `mods` the modifiers as written.  The modifiers are read on a
    stand-in of the largest count and die allowed, so that every error of spelling is
    found when the rule is read and only the values wait for the roll."""
    stand_in_sides = str(MAX_SIDES) if sides is None else sides
    stand_in = f"{MAX_DICE if count is None else count}d{stand_in_sides}{mods}"
    spec = dice_spec(stand_in, loc, clamp_keep=count is None, check=False)
    if spec.unique and count is None:   # at most as many unique dice as faces
        replace(spec, count=min(spec.count, len(set(spec.faces)))).validate(loc)
    else:
        spec.validate(loc)
    head = f"{'' if count == 1 else MAX_DICE if count is None else count}"
    tail = spec.text[len(head):]
    if sides is None:
        tail = tail[len(f"d{stand_in_sides}"):]
    return tail, spec.notes


def computed_spec(count, sides, tail: str, loc: Location, target=None,
                  after: str = "") -> DiceSpec:
    """The spec of dice with a computed count or sides, once their values are known:
    `count` whole from 0 to MAX_DICE, `sides` (None when written) whole from 1 to
    MAX_SIDES; `tail` is `computed_template`'s text.  With a computed target (`tail`
    ending with its comparison), `target` is its value, whole and at most MAX_TARGET
    either way, written in its place before `after`.  Cached: a rule rolls the same few."""
    if target is not None:
        tail = f"{tail}{checked_target(target, loc)}{after}"
    for value, what, low, high in ((count, "dice count", 0, MAX_DICE),
                                   (sides, "number of sides", 1, MAX_SIDES)):
        if value is None:
            continue
        if type(value) is not int:
            raise EvalError(f"a {what} must be a whole number, got {_shown(value)}", loc)
        if value < low:
            raise EvalError(f"a {what} must be at least {low}, got {value}", loc)
        if value > high:
            raise LimitError(f"a {what} of {value:,} is more than the limit of {high:,}",
                             loc, hint="MAX_DICE and MAX_SIDES in interpreter/limits.py")
    return _computed(count, sides, tail, loc)


def checked_target(target, loc: Location) -> int:
    """A computed target's value: a whole number, at most MAX_TARGET either way."""
    if type(target) is not int:
        raise EvalError(f"a dice target must be a whole number, got {_shown(target)}", loc)
    if abs(target) > MAX_TARGET:
        raise LimitError(f"a dice target of {target:,} is beyond the limit of "
                         f"{MAX_TARGET:,} either way", loc,
                         hint="MAX_TARGET in interpreter/limits.py")
    return target


def group_target(op: str, target, failure, loc: Location) -> tuple[str, int]:
    """The success test of a grouped roll with a computed target (`{2d6, 3d6}>=(t)`),
    once the target's value is known: (op, value), checked as a written one is."""
    success = (op, checked_target(target, loc))
    both = overlap(success, failure) if failure is not None else None
    if both is not None:
        raise EvalError(f"a total of {both} would be both a success and a failure "
                        f"(the target is {target})", loc)
    return success


def _shown(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    return str(value) if isinstance(value, (int, Fraction)) else type(value).__name__


@lru_cache(maxsize=4096)
def _computed(count: int, sides: int | None, tail: str, loc: Location) -> DiceSpec:
    text = f"{count}d{sides}{tail}" if sides is not None else f"{count}{tail}"
    return dice_spec(text, loc, clamp_keep=True)


_GROUP_MOD = re.compile(
    rf"(?P<keep>kh|kl|dh|dl|k|d)(?P<kval>\d+)"
    rf"|f(?P<fcmp>{_C})?(?P<fval>-?\d+)"
    rf"|(?P<tcmp>{_C})(?P<tval>-?\d+)")


def group_modifiers(text: str, items: int, loc: Location):
    """Read the `}kh1>=10f1` that closes a grouped roll: (keep, success, failure,
    canonical modifier text, notes)."""
    r = _Reader(text, loc)
    pos = 1  # after the '}'
    while pos < len(text):
        m = _GROUP_MOD.match(text, pos)
        here = loc.shifted(0, pos + 1, length=len(text) - pos)
        if m is None:
            raise DSLSyntaxError(f"cannot read the group modifier at {text[pos:]!r}", here)
        piece = m.group(0)
        if m.group("keep"):
            r.once("keep", "keep or drop modifier", here)
            kind = {"k": "kh", "d": "dl"}.get(m.group("keep"), m.group("keep"))
            k = int(m.group("kval"))
            if k > items > 1:   # a group of one keeps among its dice: parse.py checks
                raise LimitError(f"cannot {'keep' if kind[0] == 'k' else 'drop'} {k} of "
                                 f"{items} sub-rolls", here)
            r.kwargs["keep"] = (kind, k)
            r.canon.append(kind + str(k))
        elif m.group("fval") is not None:
            r.once("failure", "failure count 'f'", here)
            value = int(m.group("fval"))
            op = r.inclusive(m.group("fcmp"), value, piece)
            r.kwargs["failure"] = (op, value)
            r.canon.append("f" + _cmp_text(op, value))
        else:
            r.once("success", "target", here)
            value = int(m.group("tval"))
            op = r.inclusive(m.group("tcmp"), value, piece)
            r.kwargs["success"] = (op, value)
            r.canon.append(op + str(value))
        pos = m.end()
    if "failure" in r.kwargs and "success" not in r.kwargs:
        raise DSLSyntaxError("'f' counts failures against a target: write the target "
                             "first, e.g. {2d6, 3d6}>=8f<=3", loc)
    s, f = r.kwargs.get("success"), r.kwargs.get("failure")
    if s is not None and f is not None:
        both = overlap(s, f)
        if both is not None:
            raise DSLSyntaxError(f"a total of {both} would be both a success and a "
                                 f"failure", loc)
    return r.kwargs.get("keep"), s, f, "".join(r.canon), tuple(r.notes)
