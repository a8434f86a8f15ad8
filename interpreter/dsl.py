"""The DSL front end: text -> located syntax tree, and tree -> canonical text.

The grammar lives in `grammar/rulecraft.lark` and is built once (LALR, with positions).
A lark Transformer then turns lark's parse tree into the small frozen node classes below;
every node knows where it came from (`loc`) and prints back as canonical DSL text
(`str(node)`), which parses to an equal tree.  Nothing here evaluates anything: that is
`interpreter.evaluate`'s job.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import lark
from lark import Lark, Transformer, v_args

from .dice.terms import DiceSpec
from .errors import DSLSyntaxError, LimitError, Location, RulecraftError
from .limits import (DEFAULT_EXPLODE_DEPTH, MAX_DICE, MAX_EXPR_DEPTH, MAX_EXPR_LENGTH,
                     MAX_SIDES)
from .resources import resource_dir

# ------------------------------------------------------------------------------ nodes


@dataclass(frozen=True)
class Node:
    """Base of all syntax nodes.  `loc` is excluded from equality so that a reparsed
    canonical form compares equal to the original."""

    loc: Location | None = field(default=None, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True)
class Num(Node):
    value: int | Fraction


@dataclass(frozen=True)
class Text(Node):
    value: str


@dataclass(frozen=True)
class Bool(Node):
    value: bool


@dataclass(frozen=True)
class Dice(Node):
    spec: DiceSpec


@dataclass(frozen=True)
class Name(Node):
    id: str


@dataclass(frozen=True)
class Attr(Node):
    obj: Node
    name: str


@dataclass(frozen=True)
class Index(Node):
    obj: Node
    key: Node


@dataclass(frozen=True)
class Call(Node):
    func: str
    args: tuple[Node, ...] = ()
    kwargs: tuple[tuple[str, Node], ...] = ()


@dataclass(frozen=True)
class ListExpr(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Comprehension(Node):
    """`[item for var in source if cond]`: map and filter a list."""

    item: Node
    var: str
    source: Node
    cond: Node | None = None


@dataclass(frozen=True)
class Unary(Node):
    op: str  # "-" | "not"
    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    op: str  # + - * / == != < <= > >= and or
    left: Node
    right: Node


@dataclass(frozen=True)
class IfExpr(Node):
    cond: Node
    then: Node
    other: Node


@dataclass(frozen=True)
class LetExpr(Node):
    name: str
    value: Node
    body: Node


# statements ---------------------------------------------------------------------


@dataclass(frozen=True)
class LetStmt(Node):
    name: str
    value: Node


@dataclass(frozen=True)
class AssignStmt(Node):
    target: Node  # Name | Attr | Index
    op: str       # = += -= *=
    value: Node


@dataclass(frozen=True)
class ReturnStmt(Node):
    value: Node


@dataclass(frozen=True)
class EmitStmt(Node):
    value: Node


@dataclass(frozen=True)
class CallStmt(Node):
    call: Call


# ------------------------------------------------------------------ canonical printing

_PRECEDENCE = {"if": 0, "let": 0, "or": 1, "and": 2, "not": 3,
               "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
               "+": 5, "-": 5, "*": 6, "/": 6, "neg": 7, "postfix": 8, "atom": 9}


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


def to_text(node: Node) -> str:
    """Canonical DSL text of a node: minimal parentheses, single spaces around binary
    operators, lower-case dice.  `parse_expression(to_text(n)) == n` for every tree the
    parser builds."""
    if isinstance(node, Num):
        return _number_text(node.value)
    if isinstance(node, Text):
        return '"' + node.value + '"' if '"' not in node.value else "'" + node.value + "'"
    if isinstance(node, Bool):
        return "true" if node.value else "false"
    if isinstance(node, Dice):
        return node.spec.text
    if isinstance(node, Name):
        return node.id
    if isinstance(node, Attr):
        return f"{_wrap(node.obj, _PRECEDENCE['postfix'])}.{node.name}"
    if isinstance(node, Index):
        return f"{_wrap(node.obj, _PRECEDENCE['postfix'])}[{to_text(node.key)}]"
    if isinstance(node, Call):
        parts = [to_text(a) for a in node.args] + [f"{k}={to_text(v)}" for k, v in node.kwargs]
        return f"{node.func}({', '.join(parts)})"
    if isinstance(node, ListExpr):
        return "[" + ", ".join(to_text(i) for i in node.items) + "]"
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

# --------------------------------------------------------------------------- dice text

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


# ------------------------------------------------------------------------- the parser

_BINARY_TOKENS = {"+", "-", "*", "/"}


def _loc_of(meta_or_token, base: Location, text: str) -> Location:
    """Location of a lark node/token inside `text`, which starts at `base`."""
    line = getattr(meta_or_token, "line", None)
    column = getattr(meta_or_token, "column", None)
    if line is None:
        return base
    end = getattr(meta_or_token, "end_pos", None)
    start = getattr(meta_or_token, "start_pos", None)
    length = (end - start) if (end is not None and start is not None) else 1
    source_line = text.splitlines()[line - 1] if text.splitlines() else text
    if base.source is not None and line == 1:
        source_line = base.source
    return base.shifted(line - 1, column, source=source_line if line > 1 else base.source
                        if base.source is not None else source_line, length=max(1, length))


def _checked_name(token, loc: Location) -> str:
    """Names starting with '__' could only be attempts to reach Python: refuse them."""
    name = str(token)
    if name.startswith("__"):
        raise DSLSyntaxError(f"names may not start with '__' ({name!r})", loc)
    return name


class _Builder(Transformer):
    """lark tree -> nodes.  Runs after parsing so that positions survive."""

    def __init__(self, base: Location, text: str):
        super().__init__()
        self.base = base
        self.text = text

    def _loc(self, item) -> Location:
        return _loc_of(item, self.base, self.text)

    # --- atoms
    @v_args(meta=True)
    def integer(self, meta, children):
        return Num(int(children[0]), loc=self._loc(meta))

    @v_args(meta=True)
    def decimal(self, meta, children):
        return Num(Fraction(str(children[0])), loc=self._loc(meta))

    @v_args(meta=True)
    def string(self, meta, children):
        return Text(str(children[0])[1:-1], loc=self._loc(meta))

    @v_args(meta=True)
    def true(self, meta, children):
        return Bool(True, loc=self._loc(meta))

    @v_args(meta=True)
    def false(self, meta, children):
        return Bool(False, loc=self._loc(meta))

    @v_args(meta=True)
    def dice(self, meta, children):
        loc = self._loc(children[0])
        return Dice(dice_spec(str(children[0]), loc), loc=loc)

    @v_args(meta=True)
    def name(self, meta, children):
        return Name(_checked_name(children[0], self._loc(children[0])), loc=self._loc(children[0]))

    @v_args(meta=True)
    def attr(self, meta, children):
        obj, name = children
        return Attr(obj, str(name), loc=self._loc(name))

    @v_args(meta=True)
    def index(self, meta, children):
        obj, key = children
        return Index(obj, key, loc=self._loc(meta))

    @v_args(meta=True)
    def list_expr(self, meta, children):
        return ListExpr(tuple(c for c in children if c is not None), loc=self._loc(meta))

    @v_args(meta=True)
    def comprehension(self, meta, children):
        item, var, source, cond = children
        return Comprehension(item, _checked_name(var, self._loc(var)), source, cond,
                             loc=self._loc(meta))

    @v_args(meta=True)
    def keyword(self, meta, children):
        return ("kw", str(children[0]), children[1])

    @v_args(meta=True)
    def call(self, meta, children):
        func = _checked_name(children[0], self._loc(children[0]))
        args, kwargs = [], []
        for arg in children[1:]:
            if arg is None:
                continue
            if isinstance(arg, tuple) and arg and arg[0] == "kw":
                if any(k == arg[1] for k, _ in kwargs):
                    raise DSLSyntaxError(f"argument {arg[1]!r} given twice", self._loc(meta))
                kwargs.append((arg[1], arg[2]))
            else:
                if kwargs:
                    raise DSLSyntaxError("positional argument after a named one",
                                        getattr(arg, "loc", None) or self._loc(meta))
                args.append(arg)
        return Call(func, tuple(args), tuple(kwargs), loc=self._loc(children[0]))

    # --- operators
    @v_args(meta=True)
    def neg(self, meta, children):
        (operand,) = children
        if isinstance(operand, Num):
            return Num(-operand.value, loc=self._loc(meta))
        return Unary("-", operand, loc=self._loc(meta))

    @v_args(meta=True)
    def pos(self, meta, children):
        return children[0]

    @v_args(meta=True)
    def not_op(self, meta, children):
        return Unary("not", children[0], loc=self._loc(meta))

    @v_args(meta=True)
    def binary(self, meta, children):
        left, op, right = children
        return Binary(str(op), left, right, loc=self._loc(op))

    compare = binary

    @v_args(meta=True)
    def and_op(self, meta, children):
        return Binary("and", children[0], children[1], loc=self._loc(meta))

    @v_args(meta=True)
    def or_op(self, meta, children):
        return Binary("or", children[0], children[1], loc=self._loc(meta))

    @v_args(meta=True)
    def if_expr(self, meta, children):
        return IfExpr(*children, loc=self._loc(meta))

    @v_args(meta=True)
    def let_expr(self, meta, children):
        name, value, body = children
        return LetExpr(str(name), value, body, loc=self._loc(name))

    # --- statements
    @v_args(meta=True)
    def let_stmt(self, meta, children):
        name, value = children
        return LetStmt(str(name), value, loc=self._loc(meta))

    @v_args(meta=True)
    def assign_stmt(self, meta, children):
        target, op, value = children
        return AssignStmt(target, str(op), value, loc=self._loc(meta))

    @v_args(meta=True)
    def return_stmt(self, meta, children):
        return ReturnStmt(children[0], loc=self._loc(meta))

    @v_args(meta=True)
    def emit_stmt(self, meta, children):
        return EmitStmt(children[0], loc=self._loc(meta))

    @v_args(meta=True)
    def call_stmt(self, meta, children):
        return CallStmt(children[0], loc=self._loc(meta))

    def start_expr(self, children):
        return children[0]

    start_stmt = start_expr


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR parser, built once per process."""
    grammar = (resource_dir("grammar") / "rulecraft.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", start=["start_expr", "start_stmt"],
                propagate_positions=True, maybe_placeholders=True)


_FRIENDLY_TOKENS = {
    "NAME": "a name", "INT": "a number", "DECIMAL": "a number", "DICE": "dice",
    "STRING": "text", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'",
    "COMMA": "','", "DOT": "'.'", "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*' or '/'", "$END": "the end", "ASSIGN_OP": "'='", "EQUAL": "'='",
    "MINUS": "'-'", "PLUS": "'+'", "IF": "'if'", "THEN": "'then'", "ELSE": "'else'",
    "IN": "'in'", "LET": "'let'", "NOT": "'not'", "AND": "'and'", "OR": "'or'",
    "TRUE": "true", "FALSE": "false", "RETURN": "'return'", "EMIT": "'emit'", "FOR": "'for'",
}


def _expected(names) -> str:
    words = sorted({_FRIENDLY_TOKENS.get(n, n.lower()) for n in names})
    if len(words) > 6:
        words = words[:6] + ["..."]
    return ", ".join(words)


def _check_shape(text: str, base: Location) -> None:
    """Refuse over-long or over-deep input before lark sees it."""
    if len(text) > MAX_EXPR_LENGTH:
        raise LimitError(f"expression is {len(text)} characters long; the limit is "
                         f"{MAX_EXPR_LENGTH}", base.shifted(0, 1, source=text[:200]),
                         hint="MAX_EXPR_LENGTH in interpreter/limits.py")
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
            if depth > MAX_EXPR_DEPTH:
                raise LimitError(f"expression nests deeper than {MAX_EXPR_DEPTH} levels",
                                 base.shifted(0, i + 1, source=_line_at(text, i)),
                                 hint="MAX_EXPR_DEPTH in interpreter/limits.py")
        elif ch in ")]}":
            depth -= 1


def _line_at(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text[start:] if end < 0 else text[start:end]


def _tree_depth(tree) -> int:
    """Depth of a lark tree, computed without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_EXPR_DEPTH * 4:
            return depth
        for child in getattr(node, "children", ()):
            if isinstance(child, lark.Tree):
                stack.append((child, depth + 1))
    return deepest


def _syntax_error(err: lark.exceptions.LarkError, text: str, base: Location) -> DSLSyntaxError:
    line = getattr(err, "line", 1) or 1
    column = getattr(err, "column", 1) or 1
    if line < 1:  # lark reports end-of-input as line -1
        lines = text.splitlines() or [""]
        line, column = len(lines), len(lines[-1]) + 1
    src = text.splitlines()[line - 1] if text.splitlines() else text
    loc = base.shifted(line - 1, column, source=base.source if (line == 1 and base.source
                                                                 is not None) else src)
    hint = None
    if isinstance(err, lark.exceptions.UnexpectedToken):
        tok = err.token
        if tok.type == "$END":
            message = f"the expression ends too early; expected {_expected(err.expected)}"
        else:
            message = f"unexpected {str(tok)!r}; expected {_expected(err.expected)}"
            if str(tok) in ("x", "X", "×"):
                hint = "write multiplication as '*'"
            elif str(tok) == "=":
                hint = "compare with '=='"
    elif isinstance(err, lark.exceptions.UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else "?"
        message = f"unexpected character {ch!r}"
        if ch == "×":
            hint = "write multiplication as '*'"
        elif re.match(r"\d*[dD]", text[err.pos_in_stream - 1:err.pos_in_stream + 2] or ""):
            hint = "dice are written like 2d6, d%, d{0..9}, 4d6kh3, 3d6!, 8d6cs>=5"
    elif isinstance(err, lark.exceptions.UnexpectedEOF):
        message = "the expression ends too early"
    else:
        message = str(err).splitlines()[0]
    if re.search(r"\d*[dD]\s*$", text[:max(0, _offset(text, line, column))]) and hint is None:
        hint = "dice need a number of sides: d6, 2d6, d%"
    return DSLSyntaxError(message, loc, hint=hint)


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    return sum(len(l) + 1 for l in lines[:line - 1]) + column - 1


def _parse(text: str, start: str, base: Location | None) -> Node:
    if base is None:
        base = Location("<expr>", 1, 1, source=text.splitlines()[0] if text else "")
    if not isinstance(text, str):
        raise DSLSyntaxError(f"expected an expression, got {type(text).__name__}", base)
    _check_shape(text, base)
    if not text.strip():
        raise DSLSyntaxError("the expression is empty", base)
    try:
        tree = _parser().parse(text, start=start)
    except lark.exceptions.LarkError as err:
        raise _syntax_error(err, text, base) from None
    if _tree_depth(tree) > MAX_EXPR_DEPTH * 4:
        raise LimitError(f"expression nests deeper than {MAX_EXPR_DEPTH} levels", base,
                         hint="MAX_EXPR_DEPTH in interpreter/limits.py")
    try:
        return _Builder(base, text).transform(tree)
    except lark.exceptions.VisitError as err:
        if isinstance(err.orig_exc, RulecraftError):
            raise err.orig_exc from None
        raise


def parse_expression(text: str, location: Location | None = None) -> Node:
    """Parse one expression.  `location` is where the string starts in its file."""
    return _parse(text, "start_expr", location)


def parse_statement(text: str, location: Location | None = None) -> Node:
    """Parse one procedure step (let, assignment, return, emit, or a call)."""
    return _parse(text, "start_stmt", location)


def walk(node: Node):
    """Every node of a tree, parents before children (iteratively)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for value in current.__dict__.values():
            if isinstance(value, Node):
                stack.append(value)
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, Node):
                        stack.append(item)
                    elif isinstance(item, tuple):
                        stack.extend(x for x in item if isinstance(x, Node))
