"""The located nodes a rule file is read into: scalars, mappings and lists, each with
the place it was written (file, line, column, and its path inside the document)."""
from __future__ import annotations

import re
from typing import Any, Iterator, NamedTuple

from ..errors import Location
from .positions import SourceText, scalar_positions

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")


class Mark(NamedTuple):
    """A position as PyYAML reports it: 0-based line and column, character index."""

    line: int
    column: int
    index: int


def format_path(path: tuple) -> str:
    """`("tables", "to_hit", "rows", 2)` -> `tables.to_hit.rows[2]`, the way users read it.

    Keys that are not identifiers are quoted (`tables.hits["1-2"]`) so the text stays
    unambiguous.
    """
    text = ""
    for step in path:
        text += path_step(step, first=not text)
    return text


def path_step(step: str | int, first: bool) -> str:
    """One step of a printed path: `[2]`, `.name` (or `name` first), `["odd key"]`."""
    if isinstance(step, int):
        return f"[{step}]"
    if IDENTIFIER.match(step):
        return step if first else "." + step
    import json   # only for a key that is no identifier: not loaded at start
    return f"[{json.dumps(step, ensure_ascii=False)}]"


class Node:
    """A value read from a rule file, with the place it was written.

    `location` is where the node's text starts; `path` is the tuple of keys and indexes
    that leads to it from the top of the document (the same shape as jsonschema's
    `error.absolute_path`).
    """

    __slots__ = ("path", "path_text", "_location", "_where")

    def _place(self, location, path: tuple, path_text: str | None) -> None:
        """Set where the node is: a Location, or (source, line, column, length) from
        which the Location is made on first use -- most are never asked for, and
        building 200,000 of them up front would be most of the loading time."""
        self.path = path
        if isinstance(location, Location):
            self._location = location
            self._where = None
            self.path_text = location.path if path_text is None else path_text
        else:
            self._location = None
            self._where = location
            self.path_text = path_text or ""

    @property
    def location(self) -> Location:
        location = self._location
        if location is None:
            source, line, column, length = self._where
            location = self._location = source.location(line, column, self.path_text,
                                                         length)
        return location

    def _moved(self, path_text: str):
        """This node's place for a copy at another path (aliases, merges)."""
        if self._where is not None:
            return self._where
        loc = self._location
        return Location(loc.file, loc.line, loc.column, loc.source, path_text, loc.length)

    def to_plain(self) -> Any:
        """Plain dicts/lists/scalars, e.g. for jsonschema."""
        raise NotImplementedError

    def child(self, step: str | int) -> "Node | None":
        """The node one step down, or None when there is none."""
        return None

    def find(self, path) -> "Node":
        """The node at `path`, or the nearest existing ancestor when the path runs out.

        Schema errors may name a key that is missing (a `required` property) or a place
        below a scalar; pointing at the closest thing that exists is the best we can do.
        """
        node = self
        for step in path:
            nxt = node.child(step)
            if nxt is None:
                break
            node = nxt
        return node

    def location_of(self, path, key: bool = False) -> Location:
        """Location of the node at `path` (nearest existing ancestor if missing).

        With `key=True` and a path ending at an existing mapping entry, the location of
        the key itself (useful for "this property is not allowed").
        """
        path = tuple(path)
        if key and path:
            parent = self.find(path[:-1])
            if isinstance(parent, MapNode) and path[-1] in parent.key_nodes:
                return parent.key_nodes[path[-1]].location
        return self.find(path).location


def unquoted_step_message(subject: str) -> str:
    """What went wrong when YAML read a statement holding ': ' as a mapping."""
    return (f"{subject} holds ': ' outside quotes, so YAML read it as a mapping "
            f"(key: value), not as a statement")


def unquoted_step_hint(meant: str) -> str:
    """The step as it should be written: the whole statement in quotes."""
    if "'" not in meant:
        return f"quote the whole step: - '{meant}'"
    if '"' not in meant:
        return f'quote the whole step: - "{meant}"'
    return "quote the whole step: - '" + meant.replace("'", "''") + "'"


class ScalarNode(Node):
    """A scalar: its value as YAML 1.1 safe loading reads it, and the text it came from.

    `value` is str/int/float/bool/None; `text` is the scalar's string content (escapes
    and folding applied, before type resolution) and is what `location_at` offsets refer
    to; `tag` is the short resolved tag ("str", "int", "float", "bool", "null",
    "timestamp"); `style` is PyYAML's style: None (plain), "'", '"', "|" or ">";
    `start_mark`/`end_mark` are 0-based `Mark`s of the scalar's text in the file.
    """

    __slots__ = ("value", "text", "tag", "style", "start_mark", "end_mark", "_source",
                 "_positions")

    def __init__(self, value, text: str, tag: str, style: str | None, start_mark: Mark,
                 end_mark: Mark, location, path: tuple,
                 source: "SourceText | None" = None, path_text: str | None = None):
        self.value = value
        self.text = text
        self.tag = tag
        self.style = style
        self.start_mark = start_mark
        self.end_mark = end_mark
        self._place(location, path, path_text)
        self._source = source
        self._positions = None

    def __repr__(self) -> str:
        return f"ScalarNode({self.value!r} @ {self.location})"

    def to_plain(self) -> Any:
        return self.value

    def location_at(self, offset: int, length: int = 1) -> Location:
        """Where character `offset` of `text` is in the file.

        Lets a DSL error inside `"(D6 + rammer.sc) x rammer.velocity"` point at the `x`.
        Exact for plain, quoted and block scalars whenever the text can be rebuilt from
        the source (it is checked); otherwise the scalar's start.
        """
        if self._source is None:
            return self.location
        positions = self._char_positions()
        if positions is None:
            return with_length(self.location, length)
        offset = min(max(offset, 0), len(positions) - 1)
        line, column = self._source.position(positions[offset])
        return self._source.location(line, column, self.path_text, length)

    def _char_positions(self) -> list[int] | None:
        """File index of each character of `text` (plus one past the end), cached."""
        if self._positions is None:
            self._positions = scalar_positions(self._source.text, self) or []
        return self._positions or None


class MapNode(Node):
    """A mapping: ordered `entries` (key text -> node) and each key's own `ScalarNode`.

    Behaves like a read-only mapping (`node["tables"]`, `in`, `.items()`); use
    `key_nodes[key].location` (or `key_location(key)`) to point at a key.
    """

    __slots__ = ("entries", "key_nodes")

    def __init__(self, location, path: tuple, path_text: str | None = None):
        self._place(location, path, path_text)
        self.entries: dict[str, Node] = {}
        self.key_nodes: dict[str, ScalarNode] = {}

    def __repr__(self) -> str:
        return f"MapNode({list(self.entries)} @ {self.location})"

    def to_plain(self) -> dict:
        return {key: node.to_plain() for key, node in self.entries.items()}

    def child(self, step):
        return self.entries.get(step) if isinstance(step, str) else None

    def key_location(self, key: str) -> Location:
        return self.key_nodes[key].location

    def unquoted_statement(self) -> str | None:
        """The statement this one-entry mapping was meant to be, when YAML read an
        unquoted step holding ': ' (`- let rec = {a: 1}`) as `key: value`; else None.
        A control-flow key is one word; a statement's key has a space or an operator."""
        if len(self.entries) != 1:
            return None
        (key, value), = self.entries.items()
        if not re.search(r"[\s=(\[{.]", key):
            return None
        source = self.location.source or ""
        text = source.strip()
        if text.startswith("- "):
            text = text[2:].strip()
        if not text.startswith(key.split()[0]):
            text = f"{key}: {value.to_plain() if hasattr(value, 'to_plain') else value}"
        return text

    def __getitem__(self, key: str) -> Node:
        return self.entries[key]

    def get(self, key: str, default=None):
        return self.entries.get(key, default)

    def __contains__(self, key) -> bool:
        return key in self.entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def keys(self):
        return self.entries.keys()

    def values(self):
        return self.entries.values()

    def items(self):
        return self.entries.items()


class SeqNode(Node):
    """A list: `items`, each a node.  Indexable and iterable like a list."""

    __slots__ = ("items",)

    def __init__(self, location, path: tuple, path_text: str | None = None):
        self._place(location, path, path_text)
        self.items: list[Node] = []

    def __repr__(self) -> str:
        return f"SeqNode(len={len(self.items)} @ {self.location})"

    def to_plain(self) -> list:
        return [node.to_plain() for node in self.items]

    def child(self, step):
        if isinstance(step, int) and not isinstance(step, bool) and 0 <= step < len(self.items):
            return self.items[step]
        return None

    def __getitem__(self, index: int) -> Node:
        return self.items[index]

    def __iter__(self) -> Iterator[Node]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


def with_length(location: Location, length: int) -> Location:
    return Location(location.file, location.line, location.column, location.source,
                    location.path, length)
