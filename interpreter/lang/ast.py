"""The DSL's syntax tree: small frozen node classes, and their canonical text.

Every node knows where it came from (`loc`) and prints back as canonical DSL text
(`str(node)`), which parses to an equal tree (`interpreter.lang.parse`).  Nothing here
evaluates anything: that is `interpreter.expr`'s job.
"""
from __future__ import annotations

from fractions import Fraction

from ..dice.terms import DiceSpec
from ..errors import Location
from .frozen import FrozenNode, frozen, hidden

# ------------------------------------------------------------------------------ nodes


class Node(FrozenNode):
    """Base of all syntax nodes (frozen: lang/frozen.py).  `loc` is excluded from equality
    so that a reparsed canonical form compares equal to the original."""

    loc: Location | None = None


@frozen
class Num(Node):
    value: int | Fraction


@frozen
class Text(Node):
    value: str


@frozen
class Bool(Node):
    value: bool


@frozen
class Dice(Node):
    spec: DiceSpec


@frozen
class VariableDice(Node):
    """Dice whose count or sides are computed as they are rolled (issue #13): `(n)d6kh1`,
    `(d6)d6`, `(unit.rifles)d6`, `2d(n)`, `(a)d(b)!`.  `count` and `sides` are the
    expressions (None when written as numbers: then `number` is the count, and the sides
    are the start of `tail`); `tail` is the canonical text after the count
    (lang/notation.py's `computed_template`).  Each roll is the dice term of those values:
    exact odds are the mixture over the values' distribution.

    A computed target (`(n)d6>=(t)`, `6d6>=(t)f1`): `target` is its expression, `tail`
    then ends with the comparison and `after` is the canonical text of the modifiers
    written after the target's ')'; the term rolled is the one with the target's value
    written in its place, so `6d6>=(t)` means what `6d6>=5` means when t is 5."""
    count: Node | None
    sides: Node | None
    number: int = 1
    tail: str = ""
    notes: tuple[str, ...] = hidden(())
    target: Node | None = None
    after: str = ""


@frozen
class Group(Node):
    """A grouped roll `{3d6, 4d6}kh1` / `{2d6, 3d6}>=10` (dice/groups.py): keep/drop or a
    target over the totals of its sub-rolls; `mods` is the canonical modifier text."""
    items: tuple[Node, ...]
    keep: tuple[str, int] | None = None
    success: tuple[str, int] | None = None
    failure: tuple[str, int] | None = None
    mods: str = ""
    notes: tuple[str, ...] = hidden(())
    # a group of one with modifiers: its dice terms and numbers, (sign, DiceSpec | int)
    pool: tuple = hidden(())
    # a computed target (`{2d6, 3d6}>=(t)f1`): its expression; `success` is then (op,
    # None), `mods` ends with the comparison and `after` is the modifier text after ')'
    target: Node | None = None
    after: str = ""


@frozen
class Name(Node):
    id: str


@frozen
class Attr(Node):
    obj: Node
    name: str


@frozen
class Index(Node):
    obj: Node
    key: Node


@frozen
class Call(Node):
    func: str
    args: tuple[Node, ...] = ()
    kwargs: tuple[tuple[str, Node], ...] = ()


@frozen
class ListExpr(Node):
    items: tuple[Node, ...]


@frozen
class RecordExpr(Node):
    """`{armour: 10, structure: 5}`: a record literal, its fields in written order."""

    fields: tuple[tuple[str, Node], ...]


@frozen
class Comprehension(Node):
    """`[item for var in source if cond]`: map and filter a list."""

    item: Node
    var: str
    source: Node
    cond: Node | None = None


@frozen
class Unary(Node):
    op: str  # "-" | "not"
    operand: Node


@frozen
class Binary(Node):
    op: str  # + - * / % ** == != < <= > >= and or
    left: Node
    right: Node


@frozen
class IfExpr(Node):
    cond: Node
    then: Node
    other: Node


@frozen
class LetExpr(Node):
    name: str
    value: Node
    body: Node


# statements ---------------------------------------------------------------------


@frozen
class LetStmt(Node):
    name: str
    value: Node


@frozen
class AssignStmt(Node):
    target: Node  # Name | Attr | Index
    op: str       # = += -= *=
    value: Node


@frozen
class ReturnStmt(Node):
    value: Node


@frozen
class EmitStmt(Node):
    value: Node


@frozen
class CallStmt(Node):
    call: Call


# ------------------------------------------------------------------ canonical printing

_PRECEDENCE = {"if": 0, "let": 0, "or": 1, "and": 2, "not": 3,
               "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
               "+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "neg": 7, "**": 8,
               "postfix": 9, "atom": 10}


def _prec(node: Node) -> int:
    if isinstance(node, Binary):
        return _PRECEDENCE[node.op]
    if isinstance(node, Unary):
        return _PRECEDENCE["not" if node.op == "not" else "neg"]
    if isinstance(node, (IfExpr, LetExpr)):
        return 0
    if isinstance(node, Num) and node.value < 0:
        return _PRECEDENCE["neg"]
    if isinstance(node, (Attr, Index)):
        return _PRECEDENCE["postfix"]
    return _PRECEDENCE["atom"]


def _wrap(node: Node, minimum: int) -> str:
    text = to_text(node)
    return f"({text})" if _prec(node) < minimum else text


def _number_text(value: int | Fraction) -> str:
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        decimal = value.numerator / value.denominator
        if Fraction(repr(decimal)) == value:
            return repr(decimal)
        return f"({value.numerator} / {value.denominator})"
    return str(value)


def _key_text(key: str) -> str:
    """A record key as written: bare when it reads as a name, else quoted."""
    if key.isidentifier() and key not in _KEYWORDS:
        return key
    return quoted(key)


def quoted(text: str) -> str:
    """Text as the DSL writes it, reading back to the same text: in double quotes, or in
    single quotes when it holds double quotes and no single ones (as a rule writer would
    write it); a quote of the kind used, a backslash and a new line are escaped
    (`"say \\"hi\\""`, `"C:\\\\maps"`, `"one\\ntwo"`)."""
    mark = "'" if '"' in text and "'" not in text else '"'
    if "\\" not in text and "\n" not in text and mark not in text:
        return mark + text + mark
    body = text.replace("\\", "\\\\").replace("\n", "\\n").replace(mark, "\\" + mark)
    return mark + body + mark


_KEYWORDS = {"if", "then", "else", "let", "in", "and", "or", "not", "true", "false", "for",
             "return", "emit"}


def to_text(node: Node) -> str:
    """Canonical DSL text of a node: minimal parentheses, single spaces around binary
    operators, lower-case dice.  `parse_expression(to_text(n)) == n` for every tree the
    parser builds."""
    if isinstance(node, Num):
        return _number_text(node.value)
    if isinstance(node, Text):
        return quoted(node.value)
    if isinstance(node, Bool):
        return "true" if node.value else "false"
    if isinstance(node, Dice):
        return node.spec.text
    if isinstance(node, Name):
        return node.id
    if isinstance(node, VariableDice):
        count = f"({to_text(node.count)})" if node.count is not None else \
            ("" if node.number == 1 else str(node.number))
        sides = f"d({to_text(node.sides)})" if node.sides is not None else ""
        target = f"({to_text(node.target)}){node.after}" if node.target is not None else ""
        return count + sides + node.tail + target
    if isinstance(node, Group):
        text = "{" + ", ".join(to_text(i) for i in node.items) + "}" + node.mods
        return text if node.target is None else f"{text}({to_text(node.target)}){node.after}"
    if isinstance(node, Attr):
        return f"{_wrap(node.obj, _PRECEDENCE['postfix'])}.{node.name}"
    if isinstance(node, Index):
        return f"{_wrap(node.obj, _PRECEDENCE['postfix'])}[{to_text(node.key)}]"
    if isinstance(node, Call):
        parts = [to_text(a) for a in node.args] + [f"{k}={to_text(v)}" for k, v in node.kwargs]
        return f"{node.func}({', '.join(parts)})"
    if isinstance(node, ListExpr):
        return "[" + ", ".join(to_text(i) for i in node.items) + "]"
    if isinstance(node, RecordExpr):
        return "{" + ", ".join(f"{_key_text(k)}: {to_text(v)}" for k, v in node.fields) + "}"
    if isinstance(node, Comprehension):
        cond = f" if {to_text(node.cond)}" if node.cond is not None else ""
        return f"[{to_text(node.item)} for {node.var} in {to_text(node.source)}{cond}]"
    if isinstance(node, Unary):
        if node.op == "not":
            return f"not {_wrap(node.operand, _PRECEDENCE['not'])}"
        return f"-{_wrap(node.operand, _PRECEDENCE['neg'])}"
    if isinstance(node, Binary):
        p = _PRECEDENCE[node.op]
        if node.op in ("==", "!=", "<", "<=", ">", ">="):
            # comparisons do not chain: both sides must bind tighter
            return f"{_wrap(node.left, p + 1)} {node.op} {_wrap(node.right, p + 1)}"
        if node.op == "**":  # right-associative; its right side may carry a sign
            return f"{_wrap(node.left, p + 1)} ** {_wrap(node.right, _PRECEDENCE['neg'])}"
        return f"{_wrap(node.left, p)} {node.op} {_wrap(node.right, p + 1)}"
    if isinstance(node, IfExpr):
        return (f"if {to_text(node.cond)} then {to_text(node.then)} "
                f"else {to_text(node.other)}")
    if isinstance(node, LetExpr):
        return f"let {node.name} = {to_text(node.value)} in {to_text(node.body)}"
    if isinstance(node, LetStmt):
        return f"let {node.name} = {to_text(node.value)}"
    if isinstance(node, AssignStmt):
        return f"{to_text(node.target)} {node.op} {to_text(node.value)}"
    if isinstance(node, ReturnStmt):
        return f"return {to_text(node.value)}"
    if isinstance(node, EmitStmt):
        return f"emit {to_text(node.value)}"
    if isinstance(node, CallStmt):
        return to_text(node.call)
    raise TypeError(f"not a DSL node: {node!r}")


Node.__str__ = to_text  # type: ignore[assignment]


def children_of(node: Node) -> list[Node]:
    """The direct sub-nodes of a node (in fields, tuples of nodes, keyword pairs)."""
    out: list[Node] = []
    for value in node.__dict__.values():
        if isinstance(value, Node):
            out.append(value)
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Node):
                    out.append(item)
                elif isinstance(item, tuple):
                    out.extend(x for x in item if isinstance(x, Node))
    return out


def walk(node: Node):
    """Every node of a tree, parents before children (iteratively)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children_of(current))
