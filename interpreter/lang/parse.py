"""The DSL parser: text -> located syntax tree.

This module is the front: it refuses over-long and over-deep text before any parsing,
and the tree too deep to walk after it.  The parsing itself (lark, the grammar in
`grammar/rulecraft.lark`, the Transformer to `interpreter.lang.ast`'s nodes) is
`lang/grammar.py`, imported at the first text parsed: a command whose rules are read back
parsed from the cache (`game/rules_cache.py`) never loads lark.
"""
from __future__ import annotations

from ..errors import DSLSyntaxError, LimitError, Location
from ..limits import MAX_EXPR_DEPTH, MAX_EXPR_LENGTH
from .ast import Node, children_of


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


def _parse(text: str, start: str, base: Location | None) -> Node:
    if base is None:
        base = Location("<expr>", 1, 1, source=text.splitlines()[0] if text else "")
    if not isinstance(text, str):
        raise DSLSyntaxError(f"expected an expression, got {type(text).__name__}", base)
    _check_shape(text, base)
    if not text.strip():
        raise DSLSyntaxError("the expression is empty", base)
    # deferred, same stage, no cycle (grammar.py imports nothing of this module): lark
    # and the parser load only when a text is parsed, which a kept model never needs
    from .grammar import syntax_tree
    node = syntax_tree(text, start, base)
    if _node_depth(node) > MAX_EXPR_DEPTH * 4:   # a long chain that could not be balanced
        raise LimitError(f"expression nests deeper than {MAX_EXPR_DEPTH * 4} operations "
                         f"(a chain of '-' or '/' this long cannot be regrouped)", base,
                         hint="MAX_EXPR_DEPTH in interpreter/limits.py")
    return node


def _node_depth(node: Node) -> int:
    """Depth of a syntax tree, computed without recursion."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in children_of(current):
            stack.append((child, depth + 1))
    return deepest


def parse_expression(text: str, location: Location | None = None) -> Node:
    """Parse one expression.  `location` is where the string starts in its file."""
    return _parse(text, "start_expr", location)


def parse_statement(text: str, location: Location | None = None) -> Node:
    """Parse one procedure step (let, assignment, return, emit, or a call)."""
    return _parse(text, "start_stmt", location)
