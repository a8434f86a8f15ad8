"""The lark half of the DSL parser: the LALR parser of `grammar/rulecraft.lark` (built
once, kept by `lang/cache.py`) and the Transformer that turns lark's parse tree into the
nodes of `interpreter.lang.ast` after parsing (so that positions survive).

Only `lang/parse.py` imports this module, at the first text it parses: lark and the
grammar are then loaded by a command that parses something, never by one whose rules
come parsed already (a checked model read back from the cache).
"""
from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

import lark
from lark import Lark, Transformer, v_args

from ..errors import DSLSyntaxError, LimitError, Location, RulecraftError
from ..limits import MAX_DIGITS, MAX_EXPR_DEPTH
from ..resources import resource_dir
from .ast import (AssignStmt, Attr, Binary, Bool, Call, CallStmt, Comprehension, Dice, EmitStmt,
                  Group, IfExpr, Index, LetExpr, LetStmt, ListExpr, Name, Node, Num, RecordExpr,
                  ReturnStmt, Text, Unary)
from .cache import cached_parser
from .dice_nodes import (chain_tree, counted_dice, pool_of, sided_dice, targeted_dice,
                         targeted_group)
from .notation import dice_spec, group_modifiers

# ------------------------------------------------------------------------- the parser

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


_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "n": "\n"}


def unquoted(token: str, loc: Location) -> str:
    """The text a STRING token stands for: the quotes taken off and its escapes read
    (`\\"` a double quote, `\\'` a single one, `\\\\` a backslash, `\\n` a new line).
    Any other escape is refused where it is written, so that a Windows path or a
    regular expression pasted into a rule is never silently changed."""
    body = token[1:-1]
    if "\\" not in body:
        return body
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        escaped = body[i + 1]
        if escaped not in _ESCAPES:
            raise DSLSyntaxError(f"unknown escape '\\{escaped}' in text", loc.shifted(
                0, i + 2, length=2), hint="text knows \\\" \\' \\\\ and \\n; "
                "write \\\\ for a backslash")
        out.append(_ESCAPES[escaped])
        i += 2
    return "".join(out)


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
    def _digits(self, meta, text: str) -> None:
        """A number literal past MAX_DIGITS digits is refused where it is written."""
        if sum(c.isdigit() for c in text) > MAX_DIGITS:
            raise LimitError(f"a number of more than {MAX_DIGITS} digits", self._loc(meta),
                             code="limit-number")

    @v_args(meta=True)
    def integer(self, meta, children):
        self._digits(meta, str(children[0]))
        return Num(int(children[0]), loc=self._loc(meta))

    @v_args(meta=True)
    def decimal(self, meta, children):
        self._digits(meta, str(children[0]))
        return Num(Fraction(str(children[0])), loc=self._loc(meta))

    @v_args(meta=True)
    def string(self, meta, children):
        return Text(unquoted(str(children[0]), self._loc(meta)), loc=self._loc(meta))

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
    def counted_dice(self, meta, children):
        """`(n)d6kh1`: the count computed, the rest a dice token."""
        count, token = children
        return counted_dice(count, str(token), self._loc(token), self._loc(meta))

    @v_args(meta=True)
    def sided_dice(self, meta, children):
        """`2d(n)kh1`: the sides computed."""
        opening, sides, mods = children
        return sided_dice(None, str(opening), sides, mods and str(mods), self._loc(meta))

    @v_args(meta=True)
    def counted_sided_dice(self, meta, children):
        """`(n)d(m)`: both computed."""
        count, opening, sides, mods = children
        return sided_dice(count, str(opening), sides, mods and str(mods), self._loc(meta))

    @v_args(meta=True)
    def target_dice(self, meta, children):
        """`6d6>=(t)f1`: the target computed."""
        token, target, after = children
        return targeted_dice(None, str(token), target, after and str(after), self._loc(meta))

    @v_args(meta=True)
    def counted_target_dice(self, meta, children):
        """`(n)d6>=(t)`: the count and the target computed."""
        count, token, target, after = children
        return targeted_dice(count, str(token), target, after and str(after), self._loc(meta))

    @v_args(meta=True)
    def sided_target_dice(self, meta, children):
        """`2d(n)>=(t)`: the sides and the target computed."""
        opening, sides, token, target, after = children
        return targeted_dice(None, str(token), target, after and str(after), self._loc(meta),
                             opening=str(opening), sides=sides)

    @v_args(meta=True)
    def counted_sided_target_dice(self, meta, children):
        """`(n)d(m)>=(t)`: all three computed."""
        count, opening, sides, token, target, after = children
        return targeted_dice(count, str(token), target, after and str(after), self._loc(meta),
                             opening=str(opening), sides=sides)

    @v_args(meta=True)
    def group(self, meta, children):
        *items, end = children
        loc = self._loc(end)
        keep, success, failure, mods, notes = group_modifiers(str(end), len(items), loc)
        pool = ()
        if len(items) == 1 and (keep is not None or success is not None):
            pool = pool_of(items[0], keep, success, self._loc(meta))
        return Group(tuple(items), keep, success, failure, mods, notes, pool,
                     loc=self._loc(meta))

    @v_args(meta=True)
    def group_target(self, meta, children):
        """`{2d6, 3d6}>=(t)f1`: a grouped roll whose target is computed."""
        *items, token, target, after = children
        return targeted_group(items, str(token), target, after and str(after),
                              self._loc(token), self._loc(meta))

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
    def field(self, meta, children):
        key, value = children
        text = str(key)
        if key.type == "STRING":
            text = unquoted(text, self._loc(key))
        return (text, value, self._loc(key))

    @v_args(meta=True)
    def record(self, meta, children):
        *items, end = children
        if str(end) != "}":
            raise DSLSyntaxError(f"a record takes no dice modifiers ({str(end)[1:]!r})",
                                 self._loc(end))
        fields, seen = [], set()
        for item in items:
            if item is None:
                continue
            key, value, loc = item
            if key in seen:
                raise DSLSyntaxError(f"field {key!r} is given twice in this record", loc)
            seen.add(key)
            fields.append((key, value))
        return RecordExpr(tuple(fields), loc=self._loc(meta))

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
    def sum(self, meta, children):
        return self._chain(children, "+")

    @v_args(meta=True)
    def product(self, meta, children):
        return self._chain(children, "*")

    def _chain(self, children, associative: str) -> Node:
        """`t0 op t1 op t2 ...` as operators applied left to right; see `chain_tree`."""
        terms = children[0::2]
        ops = [(str(op), self._loc(op)) for op in children[1::2]]
        return chain_tree(terms, ops, associative)

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
    return cached_parser(grammar, parser="lalr", start=["start_expr", "start_stmt"],
                         propagate_positions=True, maybe_placeholders=True)


_FRIENDLY_TOKENS = {
    "NAME": "a name", "INT": "a number", "DECIMAL": "a number", "DICE": "dice",
    "GROUP_END": "'}'", "DICE_OPEN": "dice", "DICE_MODS": "dice modifiers",
    "DICE_TARGET": "dice", "DICE_MODS_TARGET": "dice modifiers",
    "STRING": "text", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'",
    "COMMA": "','", "DOT": "'.'", "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*', '/' or '%'", "POW_OP": "'**'", "$END": "the end", "ASSIGN_OP": "'='", "EQUAL": "'='",
    "MINUS": "'-'", "PLUS": "'+'", "IF": "'if'", "THEN": "'then'", "ELSE": "'else'",
    "IN": "'in'", "LET": "'let'", "NOT": "'not'", "AND": "'and'", "OR": "'or'",
    "TRUE": "true", "FALSE": "false", "RETURN": "'return'", "EMIT": "'emit'", "FOR": "'for'",
}


def _expected(names) -> str:
    words = sorted({_FRIENDLY_TOKENS.get(n, n.lower()) for n in names})
    if len(words) > 6:
        words = words[:6] + ["..."]
    return ", ".join(words)


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
            elif str(tok) == "/" and text[max(0, tok.start_pos - 1):tok.start_pos] == "/":
                hint = ("'//' is neither whole-number division nor a description here: "
                        "write floor(a / b), or a '#' comment")
    elif isinstance(err, lark.exceptions.UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else "?"
        message = f"unexpected character {ch!r}"
        if ch == "×":
            hint = "write multiplication as '*'"
        elif ch == "{":
            hint = "grouped rolls are written {3d6, 4d6}kh1 or {2d6, 3d6}>=10"
        elif ch == "^":
            hint = "write powers as '**'"
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


def syntax_tree(text: str, start: str, base: Location) -> Node:
    """The syntax tree of `text` (already checked for length and nesting by
    `parse._parse`), from `start` (`start_expr` or `start_stmt`)."""
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
