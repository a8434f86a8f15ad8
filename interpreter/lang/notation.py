"""Dice notation: one DICE token of the grammar (`4d6kh3`, `d6!x3`, `8d6cs>=5`) read
into a checked `DiceSpec` with its canonical text."""
from __future__ import annotations

import re

from ..dice.terms import DiceSpec
from ..errors import DSLSyntaxError, LimitError, Location
from ..limits import DEFAULT_EXPLODE_DEPTH, MAX_DICE, MAX_SIDES

_CMP = r"(<=|>=|<|>|=)?"
_DICE_HEAD = re.compile(r"(\d*)[dD](\d+|%|F|\{[^{}]*\})")
_DICE_MOD = re.compile(
    r"(?P<reroll>ro|r)(?P<rcmp><=|>=|<|>|=)?(?P<rval>-?\d+)"
    r"|!(?:(?P<ecmp><=|>=|<|>|=)?(?P<eval>-?\d+))?(?:x(?P<depth>\d+))?"
    r"|(?P<keep>kh|kl|dh|dl|k)(?P<kval>\d+)"
    r"|cs(?P<scmp><=|>=|<|>|=)?(?P<sval>-?\d+)")


def _faces_of(sides: str, loc: Location) -> tuple[int, ...]:
    if sides == "%":
        return tuple(range(1, 101))
    if sides == "F":
        return (-1, 0, 1)
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


def _compare_set(faces: tuple[int, ...], op: str | None, value: int) -> frozenset[int]:
    op = op or "="
    tests = {"=": value.__eq__, "<": value.__gt__, "<=": value.__ge__,
             ">": value.__lt__, ">=": value.__le__}
    return frozenset(f for f in faces if tests[op](f))


def _canonical_cmp(op: str | None, value: int) -> str:
    return f"{'' if op in (None, '=') else op}{value}"


def dice_spec(text: str, loc: Location) -> DiceSpec:
    """Split one DICE token into a validated DiceSpec (with canonical `text`)."""
    head = _DICE_HEAD.match(text)
    assert head is not None  # the lexer only produces tokens this regex matches
    count = int(head.group(1)) if head.group(1) else 1
    if count > MAX_DICE:
        raise LimitError(f"at most {MAX_DICE} dice may be rolled at once (got {count})", loc,
                         hint="MAX_DICE in interpreter/limits.py")
    if count < 1:
        raise LimitError("a dice term needs at least one die (0d6)", loc)
    faces = _faces_of(head.group(2), loc)
    sides_text = head.group(2) if not head.group(2).startswith("{") else \
        "{" + ",".join(p.strip() for p in head.group(2)[1:-1].split(",")) + "}"
    canon = [f"{count if count != 1 else ''}d{sides_text}"]
    kwargs: dict = {}
    pos = head.end()
    while pos < len(text):
        m = _DICE_MOD.match(text, pos)
        assert m is not None
        here = loc.shifted(0, pos + 1, length=m.end() - pos)
        if m.group("reroll"):
            if "reroll" in kwargs:
                raise DSLSyntaxError("only one reroll modifier per dice term", here)
            value = int(m.group("rval"))
            kwargs["reroll"] = _compare_set(faces, m.group("rcmp"), value)
            kwargs["reroll_once"] = m.group("reroll") == "ro"
            canon.append(m.group("reroll") + _canonical_cmp(m.group("rcmp"), value))
        elif m.group(0).startswith("!"):
            if "explode" in kwargs:
                raise DSLSyntaxError("only one explode modifier per dice term", here)
            if m.group("eval") is not None:
                value = int(m.group("eval"))
                kwargs["explode"] = _compare_set(faces, m.group("ecmp"), value)
                piece = "!" + _canonical_cmp(m.group("ecmp"), value)
            else:
                kwargs["explode"] = frozenset([max(faces)])
                piece = "!"
            depth = int(m.group("depth")) if m.group("depth") else DEFAULT_EXPLODE_DEPTH
            kwargs["explode_depth"] = depth
            if m.group("depth"):
                piece += f"x{depth}"
            canon.append(piece)
        elif m.group("keep"):
            if "keep" in kwargs:
                raise DSLSyntaxError("only one keep or drop modifier per dice term", here)
            kind, k = m.group("keep"), int(m.group("kval"))
            if k > count:
                raise LimitError(f"cannot {'keep' if kind[0] == 'k' else 'drop'} {k} of "
                                 f"{count} dice", here)
            kwargs["keep"] = {"k": ("kh", k), "kh": ("kh", k), "kl": ("kl", k),
                              "dh": ("kl", count - k), "dl": ("kh", count - k)}[kind]
            canon.append(("kh" if kind == "k" else kind) + str(k))
        else:
            if "success" in kwargs:
                raise DSLSyntaxError("only one success count per dice term", here)
            op = m.group("scmp") or ">="
            kwargs["success"] = (op, int(m.group("sval")))
            canon.append(f"cs{op}{int(m.group('sval'))}")
        pos = m.end()
    spec = DiceSpec(count=count, faces=faces, text="".join(canon), **kwargs)
    spec.validate(loc)
    return spec
