"""Story templates: text with `{expression}` holes, as a ruleset's `narrate:` writes them.

A template is read once into pieces (plain text and parsed expressions), so that a
misspelt name is found by `validate` and a template is never re-parsed while a game runs.
`{{` and `}}` stand for literal braces.  A hole may not roll dice: telling the story must
not change the game (a roll would move the dice stream and change what happens next).
"""
from __future__ import annotations

from ..records import record

from ..errors import DSLSyntaxError, Location
from ..source.nodes import MapNode, ScalarNode
from .ast import Dice, Group, Node, walk
from .parse import parse_expression


@record(frozen=True)
class Template:
    """Pieces in order: each a text (str) or an expression (Node)."""

    pieces: tuple
    source: str
    loc: Location | None = None

    def expressions(self) -> tuple[Node, ...]:
        return tuple(p for p in self.pieces if isinstance(p, Node))


def parse_template(text: str, location_at=None, loc: Location | None = None) -> Template:
    """Read `text` into a Template.  `location_at(offset)` gives the Location of a
    character of the source scalar (so an error points inside the template)."""
    pieces: list = []
    literal: list[str] = []
    i, n = 0, len(text)
    where = location_at or (lambda _offset: loc)
    while i < n:
        ch = text[i]
        if ch in "{}" and i + 1 < n and text[i + 1] == ch:
            literal.append(ch)
            i += 2
            continue
        if ch == "}":
            raise DSLSyntaxError("a '}' with no '{' before it (write '}}' for a brace)", where(i))
        if ch != "{":
            literal.append(ch)
            i += 1
            continue
        end = _closing(text, i)
        if end is None:
            raise DSLSyntaxError("a '{' that is never closed (write '{{' for a brace)", where(i))
        inner = text[i + 1:end]
        if not inner.strip():
            raise DSLSyntaxError("an empty '{}' in a template", where(i))
        node = parse_expression(inner, where(i + 1))
        if any(isinstance(sub, (Dice, Group)) for sub in walk(node)):
            raise DSLSyntaxError("a story template may not roll dice (it would change the game); "
                                 "bind the roll with let and name it here", where(i + 1))
        if literal:
            pieces.append("".join(literal))
            literal = []
        pieces.append(node)
        i = end + 1
    if literal:
        pieces.append("".join(literal))
    return Template(tuple(pieces), text, loc)


def _closing(text: str, start: int) -> int | None:
    """The index of the '}' closing the hole opened at `start` (braces inside quoted text
    or nested records are skipped)."""
    depth, quote = 0, None
    for j in range(start, len(text)):
        ch = text[j]
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return j
    return None


@record(frozen=True)
class Narration:
    """A procedure's `narrate:`: one template for every outcome, or one per outcome the
    procedure returns (`miss: "..."`), with `otherwise` for the rest (None: say nothing)."""

    by_outcome: tuple          # ((outcome text, Template), ...)
    otherwise: Template | None
    loc: Location | None = None

    def template_for(self, outcome_text: str) -> Template | None:
        for key, template in self.by_outcome:
            if key == outcome_text:
                return template
        return self.otherwise

    def templates(self) -> tuple[Template, ...]:
        return tuple(t for _, t in self.by_outcome) + ((self.otherwise,) if self.otherwise else ())


OTHERWISE = "otherwise"


def read_narration(node) -> Narration:
    """`narrate:` from its located YAML node: a template, or a mapping from outcome to
    template (`otherwise:` for every other outcome)."""
    if isinstance(node, ScalarNode) and isinstance(node.value, str):
        return Narration((), _template(node), node.location)
    if not isinstance(node, MapNode):
        raise DSLSyntaxError("'narrate' is a template, or a mapping from outcome to template",
                             node.location)
    by_outcome, otherwise = [], None
    for key, value in node.items():
        if not isinstance(value, ScalarNode) or not isinstance(value.value, str):
            raise DSLSyntaxError(f"narrate {key!r}: expected a template text", value.location)
        if key == OTHERWISE:
            otherwise = _template(value)
        else:
            by_outcome.append((str(key), _template(value)))
    return Narration(tuple(by_outcome), otherwise, node.location)


def _template(node) -> Template:
    return parse_template(node.value, node.location_at, node.location)
