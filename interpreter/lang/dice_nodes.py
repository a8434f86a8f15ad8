"""Building the dice-shaped nodes the parser meets: long `+`/`*` chains folded shallow,
dice with a computed count or sides (`(n)d6kh1`, `2d(n)`), and the pool of a group of one
(`{4d6+3d8}kh1`).  The parser (parse.py) hands over the pieces lark read; the meaning of
the notation itself is notation.py's."""
from __future__ import annotations

import re

from ..errors import DSLSyntaxError, LimitError, Location
from ..limits import MAX_DICE
from .ast import Binary, Dice, Group, Node, Num, Unary, VariableDice
from .notation import STAND_IN_TARGET, computed_template, group_modifiers, inclusive_target

# A chain of more terms than this (`d6 + d6 + ...`) is folded as a balanced tree, so that
# a sum of hundreds of terms does not nest hundreds of levels deep; a chain this short or
# shorter is folded left to right, which keeps `parse(to_text(tree)) == tree`.
_FLAT_CHAIN = 32
_CHUNK = 8


def chain_tree(terms: list, ops: list, associative: str) -> Node:
    """Fold `terms[0] ops[0] terms[1] ...` into Binary nodes.

    Short chains fold to the left (`a - b + c` is `(a - b) + c`).  A long chain is split
    at an `associative` operator (`+` or `*`) near its middle and each half folded the
    same way: the value is the same ((a op b) + (c op d) equals a op b + c op d for
    numbers, texts and lists alike), the dice are still rolled left to right, and the
    depth grows with the logarithm of the length.  A long chain with no such operator
    (`d6 - d6 - d6 ...`) stays deep and meets the depth limit.
    """
    def fold(lo: int, hi: int, balance: bool) -> Node:
        if balance and hi - lo > _CHUNK:
            middle = (lo + hi) // 2
            splits = [i for i in range(lo + 1, hi) if ops[i - 1][0] == associative]
            if splits:
                m = min(splits, key=lambda i: abs(i - middle))
                op, loc = ops[m - 1]
                return Binary(op, fold(lo, m, True), fold(m, hi, True), loc=loc)
        node = terms[lo]
        for i in range(lo + 1, hi):
            op, loc = ops[i - 1]
            node = Binary(op, node, terms[i], loc=loc)
        return node
    return fold(0, len(terms), len(terms) > _FLAT_CHAIN)

_BINARY_TOKENS = {"+", "-", "*", "/", "%", "**"}



# ------------------------------------------------------------ computed counts and sides

def counted_dice(count: Node, token: str, token_loc: Location, loc: Location) -> VariableDice:
    """`(n)d6kh1`: `count` computed, `token` the dice token after it (without a count)."""
    if token[0] not in "dD":
        raise DSLSyntaxError(f"the dice count is given twice: ({count}) and the "
                             f"{token[:len(token) - len(token.lstrip('0123456789'))]} "
                             f"of {token!r}", token_loc)
    tail, notes = computed_template(None, _written_sides(token), _modifiers(token), token_loc)
    return VariableDice(count, None, 1, tail, notes, loc=loc)


def sided_dice(count: Node | None, opening: str, sides: Node, mods: str | None,
               loc: Location) -> VariableDice:
    """`2d(n)kh1` / `(n)d(m)`: `opening` is the `2d(` token, `mods` what follows `)`."""
    written = opening[:-2]
    if count is not None and written:
        raise DSLSyntaxError("the dice count is given twice", loc)
    number = int(written) if written else 1
    if count is None and number > MAX_DICE:
        raise LimitError(f"at most {MAX_DICE} dice may be rolled at once (got {number})",
                         loc, hint="MAX_DICE in interpreter/limits.py")
    tail, notes = computed_template(number if count is None else None, None, mods or "", loc)
    return VariableDice(count, sides, number, tail, notes, loc=loc)


# ------------------------------------------------------------------ computed targets

_TARGET_HEAD = re.compile(r"(\d*)[dD](\d+|%|F(?:\.[12])?|\{[^{}]*\})(.*?)(<=|>=|<|>|=)\($")
_TARGET_MODS = re.compile(r"(.*?)(<=|>=|<|>|=)\($")
# a comparison straight after these belongs to them (`5d10!>=8` explodes on 8+)
_OWNS_COMPARISON = re.compile(r"(!!?p?|ro|r)$")
_OWNER_HINTS = {"!": "give the explosion its number, then the target: 5d10!10>=(t) explodes on "
                     "10 and counts the dice showing (t) or more",
                "r": "give the reroll its number, then the target: 5d10r1>=(t)"}


def targeted_dice(count: Node | None, token: str, target: Node, after: str | None,
                  loc: Location, opening: str | None = None,
                  sides: Node | None = None) -> VariableDice:
    """Dice with a computed target (issue #13): `6d6>=(t)`, `(n)d6kh3>=(t)f1`,
    `2d(n)>=(t)`.  `token` is the DICE_TARGET token (`6d6kh3>=(`) or, after computed
    sides (`opening` the `2d(` token), the DICE_MODS_TARGET token (`kh3>=(`); `after`
    the modifiers written after the target's ')'.  The written parts are checked now on
    a stand-in target, as computed counts and sides are."""
    if opening is None:
        m = _TARGET_HEAD.match(token)
        written, written_sides, before, op = m.group(1), m.group(2), m.group(3), m.group(4)
        if count is not None and written:
            raise DSLSyntaxError(f"the dice count is given twice: ({count}) and the {written} "
                                 f"of {token[:-1]!r}", loc)
        number = int(written) if written else 1
    else:
        m = _TARGET_MODS.match(token)
        before, op, written_sides = m.group(1), m.group(2), None
        written = opening[:-2]
        if count is not None and written:
            raise DSLSyntaxError("the dice count is given twice", loc)
        number = int(written) if written else 1
    if number > MAX_DICE:
        raise LimitError(f"at most {MAX_DICE} dice may be rolled at once (got {number})",
                         loc, hint="MAX_DICE in interpreter/limits.py")
    owner = _OWNS_COMPARISON.search(before)
    if owner:
        raise DSLSyntaxError(f"a comparison straight after '{owner.group(1)}' says what it "
                             f"acts on, and that takes a written number; a computed value "
                             f"in parentheses is a target only", loc,
                             hint=_OWNER_HINTS[owner.group(1)[0]] if op != "=" or owner.group(1)
                             != "!" else "'!=' here is 'explode on': to compare the total with "
                             "a value, write it with spaces, d6 != (t)")
    op, notes = inclusive_target(op, str(target))
    stand_in = STAND_IN_TARGET if op in (">=", "=") else -STAND_IN_TARGET
    marker = f"{op}{stand_in}"
    whole, more = computed_template(number if count is None else None, written_sides,
                                    before + marker + (after or ""), loc)
    cut = whole.rfind(marker)
    tail, rest = whole[:cut + len(op)], whole[cut + len(marker):]
    return VariableDice(count, sides, number, tail, notes + more, target=target, after=rest,
                        loc=loc)


def targeted_group(items: list, token: str, target: Node, after: str | None,
                   end_loc: Location, loc: Location) -> Group:
    """A grouped roll with a computed target (issue #13): `{2d6, 3d6}>=(t)`,
    `{3d6, 4d6, 5d6}kh2>=(t)f1`.  `token` is the GROUP_TARGET token (`}kh2>=(`), `after`
    the failure count written after the target's ')'.  The written modifiers are read
    now with a stand-in target, as computed dice targets are; the target's value is
    checked when it is rolled (notation.group_target)."""
    head = _GROUP_TARGET.match(token)
    before, op = head.group(1), head.group(2)
    op, notes = inclusive_target(op, str(target))
    stand_in = STAND_IN_TARGET if op in (">=", "=") else -STAND_IN_TARGET
    marker = f"{op}{stand_in}"
    keep, success, failure, mods, more = group_modifiers(
        "}" + before + marker + (after or ""), len(items), end_loc)
    cut = mods.rfind(marker)
    pool = ()
    if len(items) == 1:
        pool = pool_of(items[0], keep, success, loc)
    return Group(tuple(items), keep, (op, None), failure, mods[:cut + len(op)],
                 notes + more, pool, target=target, after=mods[cut + len(marker):], loc=loc)


_GROUP_TARGET = re.compile(r"\}(.*?)(<=|>=|<|>|=)\($")


# ------------------------------------------------------------------ a group of one

_POOL_HINT = "write a sum of dice and numbers, e.g. {4d6+3d8}kh1 or {3d6+2d10}>=5"


def pool_of(item: Node, keep, success, loc: Location) -> tuple:
    """The dice terms and numbers of a group of one with modifiers (`{4d6+3d8-d4}kh1`):
    its keep/drop or target acts on their dice, so they must be plain dice terms (faces,
    rerolls and clamps allowed; no keep, explosion or target of their own) and numbers."""
    out, stack, dice = [], [(1, item)], 0
    while stack:
        sign, node = stack.pop()
        if isinstance(node, Binary) and node.op in ("+", "-"):
            stack.append((sign if node.op == "+" else -sign, node.right))
            stack.append((sign, node.left))
        elif isinstance(node, Unary) and node.op == "-":
            stack.append((-sign, node.operand))
        elif isinstance(node, Num) and type(node.value) is int:
            if success is not None:
                raise DSLSyntaxError(f"a number in a group of one with a target counts "
                                     f"nothing: leave out {node}", node.loc or loc)
            out.append((sign, node.value))
        elif isinstance(node, Dice) and not (node.spec.explode or node.spec.keep
                                             or node.spec.success is not None):
            out.append((sign, node.spec))
            dice += node.spec.count
        else:
            what = "its own keep, explosion or target" if isinstance(node, Dice) else \
                f"'{node}'"
            raise DSLSyntaxError(f"a group of one with modifiers keeps or counts the dice "
                                 f"of a sum of dice terms and numbers; {what} cannot take "
                                 f"part", node.loc or loc, hint=_POOL_HINT)
    if keep is not None and keep[1] > dice:
        raise LimitError(f"cannot {'keep' if keep[0][0] == 'k' else 'drop'} {keep[1]} of "
                         f"{dice} dice", loc)
    if not dice:
        raise DSLSyntaxError("a group of one with modifiers needs dice to keep or count",
                             loc, hint=_POOL_HINT)
    return tuple(out)


def _written_sides(token: str) -> str:
    """The sides of a dice token without its count: `d6kh1` -> `6`, `d{1,2}!` -> `{1,2}`."""
    m = re.match(r"[dD](\d+|%|F(?:\.[12])?|\{[^{}]*\})", token)
    return m.group(1)


def _modifiers(token: str) -> str:
    """What follows the sides in a dice token without its count."""
    return token[1 + len(_written_sides(token)):]


