"""Read ruleset YAML into a tree of located nodes, refusing anything unsafe or ambiguous.

Why not `yaml.safe_load`: it forgets where every value came from (so later stages could
not say `file:line:col`), silently keeps the last of two equal keys (users lose rules that
way), and expands aliases before anyone can count them (a "billion laughs" document eats
the machine).  So this module reads PyYAML's *event stream* (libyaml's C parser when it is
installed) and composes the tree itself, iteratively:

- every node gets a `Location` (file, 1-based line/column, the source line, and its path
  inside the document such as `tables.to_hit.rows[2].hit`);
- nodes are counted while aliases are expanded, so an alias bomb is refused after at most
  MAX_NODES nodes of work; nesting is bounded by MAX_DEPTH before any recursion happens;
- only YAML's standard tags are accepted, and nothing but plain scalars is ever
  constructed (no Python objects, no `!!python/...`).

Decisions worth knowing (documented here because users meet them):

- **Keys are always strings: the key's text.**  YAML 1.1 would turn `on:` into `True`,
  `1:` into `1` and `1:30:` into `90`; a rule file means the words it shows, so `on`,
  `1` and `1:30` stay strings.  `1:` and `"1":` are therefore the same key (a duplicate).
  A key that is a mapping or a list, or an empty plain key, is refused ("load-bad-key").
- **Values follow YAML 1.1 safe loading** (`yes` is `True`, `0x10` is 16, `.inf` is a
  float), except timestamps, which stay strings (`2001-12-14` is the text, not a date:
  the value set is str/int/float/bool/None, which is what JSON Schema understands).
- **Tags**: `!!str !!int !!float !!bool !!null !!map !!seq !!timestamp` and the
  non-specific `!` are accepted; every other tag (`!!python/...`, `!foo`, `!!binary`,
  `!!set`, `!!omap`, tags redefined by `%TAG`) is refused ("load-tag").
- **Merge keys (`<<`) are supported** as in YAML 1.1: `<<: *defaults` or
  `<<: [*a, *b]` adds the keys of those mappings that the mapping does not set itself
  (the first listed source wins); merged keys take the place of the `<<` entry in the
  key order.  A `<<` whose value is not a mapping (or a list of mappings) is refused
  ("load-merge").  Two `<<` keys in one mapping are duplicate keys.
- **Aliases** copy the anchored node; the copy keeps the anchored text's line/column (that
  is where the content is written) but carries the path of the place it is used.  An
  alias to an enclosing node (a recursive structure) is refused ("load-syntax").
- **Includes** (`load_ruleset_document`): each file is merged at most once, so two parts
  may both include a shared file; an include that leads back to a file on the current
  chain is a cycle ("load-include-cycle").  Included files are merged first, in the
  order listed, then the including file's own sections, so a duplicate entry is reported
  at the later place (normally the including file) and names the earlier one.

Error codes (stable): load-io, load-encoding, load-too-large, load-too-deep, load-syntax,
load-tag, load-value, load-duplicate-key, load-bad-key, load-merge, load-not-mapping,
load-multi-document, load-include, load-include-cycle.
"""
from __future__ import annotations

import bisect
import json
import os
import re
from typing import Any, Iterator, NamedTuple

import yaml

from ..errors import LoadError, Location

MAX_FILE_BYTES = 2_000_000  # bytes in one rule file, checked before parsing
MAX_NODES = 200_000         # nodes in one document, counted after alias expansion
MAX_DEPTH = 64              # nesting of mappings/lists (the top-level mapping is 1)
MAX_INCLUDES = 32           # files included by one ruleset, all levels together

_Loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

_YAML_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {"str", "int", "float", "bool", "null", "timestamp"}
_CONSTRUCTORS = {
    "int": yaml.constructor.SafeConstructor.construct_yaml_int,
    "float": yaml.constructor.SafeConstructor.construct_yaml_float,
    "bool": yaml.constructor.SafeConstructor.construct_yaml_bool,
    "null": yaml.constructor.SafeConstructor.construct_yaml_null,
}
_BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")
_BREAK_CHARS = "\r\n\x85\u2028\u2029"
# Characters YAML allows in a stream (YAML 1.1, section 5.1); anything else is refused
# before parsing so that the error is precise and libyaml never sees it.
_NOT_PRINTABLE = re.compile(
    "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")
_SHORT_DECIMAL = re.compile(r"(?:[-+]?[1-9][0-9]{0,17}|0)\Z")  # no octal, no `_`
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")


# --------------------------------------------------------------------------- nodes

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
        text += _path_step(step, first=not text)
    return text


def _path_step(step: str | int, first: bool) -> str:
    """One step of a printed path: `[2]`, `.name` (or `name` first), `["odd key"]`."""
    if isinstance(step, int):
        return f"[{step}]"
    if _IDENTIFIER.match(step):
        return step if first else "." + step
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
                 source: "_SourceText | None" = None, path_text: str | None = None):
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
            return _with_length(self.location, length)
        offset = min(max(offset, 0), len(positions) - 1)
        line, column = self._source.position(positions[offset])
        return self._source.location(line, column, self.path_text, length)

    def _char_positions(self) -> list[int] | None:
        """File index of each character of `text` (plus one past the end), cached."""
        if self._positions is None:
            self._positions = _scalar_positions(self._source.text, self) or []
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


def _with_length(location: Location, length: int) -> Location:
    return Location(location.file, location.line, location.column, location.source,
                    location.path, length)


# --------------------------------------------------------------------------- source text

class _SourceText:
    """A file's text with its line starts, to turn indexes into lines and columns.

    Line breaks are YAML's (\\r\\n, \\r, \\n, NEL, LS, PS), so our line numbers agree
    with the parser's marks.
    """

    def __init__(self, file: str, text: str):
        self.file = file
        self.text = text
        self.starts = [0] + [m.end() for m in _BREAK.finditer(text)]

    def line_text(self, line: int) -> str:
        """The text of 0-based `line`, without its line break."""
        if line >= len(self.starts):
            return ""
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip(_BREAK_CHARS)

    def position(self, index: int) -> tuple[int, int]:
        """0-based (line, column) of character `index`."""
        line = bisect.bisect_right(self.starts, index) - 1
        return line, index - self.starts[line]

    def location(self, line: int, column: int, path: str | None = "",
                 length: int = 1) -> Location:
        """A 1-based Location for 0-based `line`/`column`."""
        return Location(self.file, line + 1, column + 1, self.line_text(line), path,
                        max(length, 1))

    def at_mark(self, mark, path: str | None = "", length: int = 1) -> Location:
        return self.location(mark.line, mark.column, path, length)


# --------------------------------------------------------------------------- reading

def _read_file(path) -> str:
    """The file's text; refuses missing, unreadable, oversized and non-UTF-8 files.

    Reads at most MAX_FILE_BYTES + 1 bytes, so even /dev/zero is refused quickly.
    """
    name = str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise LoadError(f"cannot read {name}: no such file", Location(name, 1, 1),
                        code="load-io") from None
    except IsADirectoryError:
        raise LoadError(f"cannot read {name}: it is a directory", Location(name, 1, 1),
                        code="load-io") from None
    except OSError as exc:
        raise LoadError(f"cannot read {name}: {exc.strerror or exc}", Location(name, 1, 1),
                        code="load-io") from None
    if len(data) > MAX_FILE_BYTES:
        raise LoadError(f"{name} is larger than {MAX_FILE_BYTES:,} bytes; refusing to "
                        "read it", Location(name, 1, 1), code="load-too-large",
                        hint="split the ruleset into several files with `include:`")
    return _decode(data, name)


def _decode(data: bytes, name: str) -> str:
    """UTF-8 text (a leading BOM dropped); a bad byte is reported where it is."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[line_start:exc.start].decode("utf-8", "replace")) + 1
        line_end = data.find(b"\n", exc.start)
        source = data[line_start:line_end if line_end >= 0 else len(data)]
        raise LoadError(f"byte 0x{data[exc.start]:02x} is not valid UTF-8; rule files "
                        "must be UTF-8", Location(name, line, column,
                                                  source.decode("utf-8", "replace").rstrip("\r")),
                        code="load-encoding",
                        hint="re-save the file as UTF-8 in your editor") from None


def _check_characters(source: _SourceText) -> None:
    """Refuse characters YAML forbids (NUL, other controls, lone surrogates)."""
    bad = _NOT_PRINTABLE.search(source.text)
    if bad:
        line, column = source.position(bad.start())
        raise LoadError(f"character U+{ord(bad.group()):04X} is not allowed in a YAML file",
                        source.location(line, column), code="load-encoding",
                        hint="remove the control character (often pasted by accident)")


# --------------------------------------------------------------------------- public API

def load_text(text: str, file: str = "<string>") -> MapNode:
    """Load one ruleset document from a string (tests, rules given inline)."""
    if len(text) > MAX_FILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise LoadError(f"{file} is larger than {MAX_FILE_BYTES:,} bytes; refusing to read it",
                        Location(file, 1, 1), code="load-too-large")
    if text.startswith("\ufeff"):
        text = text[1:]
    source = _SourceText(file, text)
    _check_characters(source)
    return _Composer(source).compose()


def load_file(path) -> MapNode:
    """Load one ruleset file as it is (its `include:` key, if any, is left alone)."""
    return load_text(_read_file(path), str(path))


def load_ruleset_document(path) -> MapNode:
    """Load a ruleset file and everything it includes, merged section by section.

    `include:` (a path or a list of paths, relative to the including file) is resolved
    recursively; mapping sections (tables, kinds, procedures, ...) are merged entry by
    entry, and the same entry -- or the same non-mapping section -- in two files is an
    error naming both places.  The `include` key is not part of the result.
    """
    state = _IncludeState()
    state.seen.add(os.path.realpath(path))
    return _load_with_includes(str(path), (), state, None)


# --------------------------------------------------------------------------- composing

class _Frame:
    """A mapping or list being built, with what is needed to finish it."""

    __slots__ = ("node", "depth", "anchor", "size", "height", "key", "merging",
                 "merge_item", "merge_key", "merge_at", "merge_sources")

    def __init__(self, node, depth: int, anchor: str | None, merge_item: bool):
        self.node = node
        self.depth = depth
        self.anchor = anchor
        self.size = 1            # nodes in this subtree, aliases expanded
        self.height = 1          # levels of nesting in this subtree
        self.key = None          # pending key of a mapping (a ScalarNode)
        self.merging = False     # the pending key is `<<`
        self.merge_item = merge_item  # a list that is the value of `<<`: items keep our path
        self.merge_key = None    # the `<<` key node, to report a second one
        self.merge_at = 0        # where merged keys go in the key order
        self.merge_sources: list[MapNode] = []


class _Composer:
    """Builds the located tree from PyYAML events, counting and bounding as it goes."""

    def __init__(self, source: _SourceText):
        self.source = source
        self.loader = None
        self.stack: list[_Frame] = []
        self.root: MapNode | None = None
        self.count = 0
        self.anchors: dict[str, tuple[Node, int, int]] = {}
        self.open_anchors: set[str] = set()

    def compose(self) -> MapNode:
        """Run the parser to the end of the stream; turn its failures into LoadErrors."""
        self.loader = _Loader(self.source.text)
        try:
            return self._run()
        except yaml.MarkedYAMLError as exc:
            raise self._syntax_error(exc) from None
        except yaml.YAMLError as exc:
            raise LoadError(f"YAML error: {exc}", self.source.location(0, 0),
                            code="load-syntax") from None
        except RecursionError:
            raise LoadError(f"the document is nested too deeply (more than {MAX_DEPTH} levels)",
                            self.source.location(0, 0), code="load-too-deep") from None
        finally:
            self.loader.dispose()

    def _syntax_error(self, exc: yaml.MarkedYAMLError) -> LoadError:
        """PyYAML's problem and mark, without its multi-line report."""
        mark = exc.problem_mark or exc.context_mark
        location = (self.source.at_mark(mark) if mark is not None
                    else self.source.location(0, 0))
        message = exc.problem or exc.context or "invalid YAML"
        if "nesting depth" in message:  # libyaml >= 0.2.5 stops at a depth of its own
            return self._too_deep_before(mark)
        hint = None
        if exc.context and exc.problem:
            hint = exc.context
            if exc.context_mark is not None:
                hint += f" at line {exc.context_mark.line + 1}, column {exc.context_mark.column + 1}"
        return LoadError(f"YAML syntax error: {message}", location, code="load-syntax",
                         hint=hint)

    def _too_deep_before(self, mark) -> LoadError:
        """libyaml refused a deep flow collection while reading ahead: point where the
        brackets first pass MAX_DEPTH, as the composer itself would have."""
        text = self.source.text
        end = mark.index if mark is not None else len(text)
        depth = 0
        for index in range(end):
            ch = text[index]
            if ch in "[{":
                depth += 1
                if depth + 1 > MAX_DEPTH:
                    line, column = self.source.position(index)
                    return LoadError(f"the document nests deeper than {MAX_DEPTH} levels",
                                     self.source.location(line, column), code="load-too-deep")
            elif ch in "]}":
                depth -= 1
        location = self.source.at_mark(mark) if mark is not None else self.source.location(0, 0)
        return LoadError(f"the document nests deeper than {MAX_DEPTH} levels", location,
                         code="load-too-deep")

    def _run(self) -> MapNode:
        documents = 0
        while True:
            event = self.loader.get_event()
            if isinstance(event, yaml.StreamEndEvent):
                break
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise LoadError(
                        "a rule file holds one YAML document, but a second one starts here",
                        self.source.at_mark(event.start_mark), code="load-multi-document",
                        hint="remove the `---` line, or split the documents into files "
                             "joined with `include:`")
            elif isinstance(event, yaml.ScalarEvent):
                self._scalar(event)
            elif isinstance(event, yaml.AliasEvent):
                self._alias(event)
            elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                self._start(event)
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                self._end()
        if self.root is not None:
            _expand_aliases(self.root)
        if self.root is None:
            raise LoadError("the file is empty; a ruleset is a mapping of sections "
                            "(ruleset:, title:, tables:, ...)", self.source.location(0, 0),
                            code="load-not-mapping")
        return self.root

    # ---- where a new node goes

    def _slot(self) -> tuple[str, tuple, str, int]:
        """(role, path, path text, depth) of the next node: root, key, value or item."""
        if not self.stack:
            return "root", (), "", 1
        top = self.stack[-1]
        node = top.node
        if isinstance(node, SeqNode):
            if top.merge_item:
                return "item", node.path, node.path_text, top.depth + 1
            index = len(node.items)
            return ("item", node.path + (index,), f"{node.path_text}[{index}]",
                    top.depth + 1)
        if top.key is None:
            return "key", node.path, node.path_text, top.depth + 1
        if top.merging:
            return "value", node.path, node.path_text, top.depth + 1
        key = top.key.value
        return ("value", node.path + (key,),
                node.path_text + _path_step(key, not node.path), top.depth + 1)

    def _not_mapping(self, event, what: str) -> LoadError:
        return LoadError(f"the top level of a ruleset file must be a mapping of sections "
                         f"(ruleset:, title:, tables:, ...), not {what}",
                         self.source.at_mark(event.start_mark), code="load-not-mapping")

    def _count(self, size: int, mark) -> None:
        """Add `size` nodes; refuse as soon as the document passes MAX_NODES."""
        self.count += size
        if self.count > MAX_NODES:
            raise LoadError(f"the document has more than {MAX_NODES:,} values (aliases "
                            "counted as often as they are used); refusing to load it",
                            self.source.at_mark(mark), code="load-too-large",
                            hint="aliases that multiply (\"billion laughs\") are refused "
                                 "this way; split a genuinely large ruleset with `include:`")

    def _too_deep(self, mark) -> LoadError:
        return LoadError(f"the document is nested more than {MAX_DEPTH} levels deep",
                         self.source.at_mark(mark), code="load-too-deep")

    # ---- tags

    def _check_collection_tag(self, event, kind: str) -> None:
        tag = event.tag
        if tag is not None and tag != "!" and tag != _YAML_TAG + kind:
            raise self._tag_error(event, tag)

    def _scalar_tag(self, event) -> str:
        """The short tag of a scalar: resolved when implicit, checked when explicit."""
        tag = event.tag
        if tag is None and event.style:
            return "str"  # quoted and block scalars are strings
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
            short = tag[len(_YAML_TAG):] if tag.startswith(_YAML_TAG) else "str"
            return short if short in _SCALAR_TAGS else "str"  # `<<`, `=` read as text
        if tag.startswith(_YAML_TAG) and tag[len(_YAML_TAG):] in _SCALAR_TAGS:
            return tag[len(_YAML_TAG):]
        raise self._tag_error(event, tag)

    def _tag_error(self, event, tag: str) -> LoadError:
        shown = "!!" + tag[len(_YAML_TAG):] if tag.startswith(_YAML_TAG) else tag
        if not shown.startswith("!"):
            shown = f"!<{shown}>"
        start = event.start_mark.index
        line_end = self.source.text.find("\n", start)
        bang = self.source.text.find("!", start, line_end if line_end >= 0 else None)
        if bang >= 0:
            line, column = self.source.position(bang)
            location = self.source.location(line, column, length=len(shown))
        else:
            location = self.source.at_mark(event.start_mark)
        return LoadError(f"tag {shown} is not allowed in a rule file; only plain YAML "
                         "values (strings, numbers, booleans, null, mappings, lists) are",
                         location, code="load-tag",
                         hint="remove the tag; rule files never create program objects")

    def _construct(self, short: str, event, explicit: bool):
        """The scalar's value; only the safe scalar constructors are ever called."""
        if short in ("str", "timestamp"):
            return event.value
        if short == "int" and _SHORT_DECIMAL.match(event.value):
            return int(event.value)  # the common case, without PyYAML's general path
        try:
            return _CONSTRUCTORS[short](self.loader, yaml.ScalarNode(_YAML_TAG + short,
                                                                     event.value))
        except Exception:  # ValueError, KeyError from PyYAML's constructors
            shown = event.value if len(event.value) <= 40 else event.value[:37] + "..."
            raise LoadError(f"{shown!r} cannot be read as {short}",
                            self.source.at_mark(event.start_mark),
                            code="load-tag" if explicit else "load-value") from None

    # ---- events

    def _scalar(self, event) -> None:
        role, path, path_text, _ = self._slot()
        short = self._scalar_tag(event)
        if role == "root":
            if event.value == "" and not event.style:
                raise LoadError("the document is empty; a ruleset is a mapping of sections "
                                "(ruleset:, title:, tables:, ...)",
                                self.source.at_mark(event.start_mark),
                                code="load-not-mapping")
            raise self._not_mapping(event, "a single value")
        self._count(1, event.start_mark)
        style = event.style or None
        if role == "key":
            if event.value == "" and style is None:
                raise LoadError("a mapping key is empty", self.source.at_mark(event.start_mark),
                                code="load-bad-key", hint="give the entry a name before the `:`")
            path = path + (event.value,)
            path_text += _path_step(event.value, not path_text)
            value, short = event.value, "str"  # keys are their text (see module doc)
        else:
            value = self._construct(short, event, explicit=event.tag not in (None, "!"))
        start, end = event.start_mark, event.end_mark
        length = (end.column - start.column if end.line == start.line
                  else len(self.source.line_text(start.line)) - start.column)
        node = ScalarNode(value, event.value, short, style,
                          Mark(start.line, start.column, start.index),
                          Mark(end.line, end.column, end.index),
                          (self.source, start.line, start.column, length), path, self.source,
                          path_text)
        if role == "key" and style is None and event.value == "<<" and event.tag is None:
            self._merge_key(node)
            return
        self._remember(event.anchor, node, 1, 0)
        self._attach(node, role, 1, 0)

    def _start(self, event) -> None:
        is_map = isinstance(event, yaml.MappingStartEvent)
        role, path, path_text, depth = self._slot()
        self._check_collection_tag(event, "map" if is_map else "seq")
        if role == "root" and not is_map:
            raise self._not_mapping(event, "a list")
        if role == "key":
            raise LoadError("a mapping key must be a plain name, not a "
                            f"{'mapping' if is_map else 'list'}",
                            self.source.at_mark(event.start_mark), code="load-bad-key")
        if depth > MAX_DEPTH:
            raise self._too_deep(event.start_mark)
        self._count(1, event.start_mark)
        where = (self.source, event.start_mark.line, event.start_mark.column, 1)
        node = (MapNode if is_map else SeqNode)(where, path, path_text)
        merge_item = (not is_map and role == "value" and self.stack[-1].merging)
        if event.anchor is not None:
            self.open_anchors.add(event.anchor)
        self.stack.append(_Frame(node, depth, event.anchor, merge_item))

    def _end(self) -> None:
        frame = self.stack.pop()
        if isinstance(frame.node, MapNode) and frame.merge_key is not None:
            self._apply_merge(frame)
        if frame.anchor is not None:
            self.open_anchors.discard(frame.anchor)
        self._remember(frame.anchor, frame.node, frame.size, frame.height)
        role = self._slot()[0]
        self._attach(frame.node, role, frame.size, frame.height)

    def _alias(self, event) -> None:
        role, path, path_text, depth = self._slot()
        name = event.anchor
        if name in self.open_anchors:
            raise LoadError(f"alias *{name} refers to a node that contains it; recursive "
                            "structures are not allowed", self.source.at_mark(event.start_mark),
                            code="load-syntax")
        if name not in self.anchors:
            raise LoadError(f"alias *{name} refers to no anchor (&{name}) defined before it",
                            self.source.at_mark(event.start_mark), code="load-syntax")
        anchored, size, height = self.anchors[name]
        self._count(size, event.start_mark)
        if depth - 1 + height > MAX_DEPTH:
            raise self._too_deep(event.start_mark)
        if role == "key":
            if not isinstance(anchored, ScalarNode):
                raise LoadError(f"a mapping key must be a plain name, but *{name} is a "
                                f"{'mapping' if isinstance(anchored, MapNode) else 'list'}",
                                self.source.at_mark(event.start_mark), code="load-bad-key")
            path = path + (anchored.text,)
            path_text += _path_step(anchored.text, not path_text)
        location = self.source.at_mark(event.start_mark, path_text, len(name) + 1)
        if role == "key":
            node = _copy(anchored, path, path_text, False, location)
            node.value = anchored.text
        elif self.stack and self.stack[-1].merging:
            node = _copy(anchored, path, path_text, True, location)  # merged at mapping end
        else:
            node = _Alias(anchored, location, path)  # expanded once everything is counted
        self._attach(node, role, size, height)

    # ---- building mappings

    def _remember(self, anchor: str | None, node: Node, size: int, height: int) -> None:
        if anchor is not None:
            self.anchors[anchor] = (node, size, height)

    def _attach(self, node: Node, role: str, size: int, height: int) -> None:
        """Put a finished node in its parent (or make it the root)."""
        if role == "root":
            self.root = node
            return
        top = self.stack[-1]
        top.size += size
        top.height = max(top.height, height + 1)
        if isinstance(top.node, SeqNode):
            top.node.items.append(node)
        elif role == "key":
            self._add_key(top, node)
        elif top.merging:
            self._add_merge_value(top, node)
        else:
            key, top.key = top.key, None
            top.node.entries[key.value] = node
            top.node.key_nodes[key.value] = key

    def _add_key(self, frame: _Frame, key: ScalarNode) -> None:
        """Accept a key, refusing one the mapping already has (YAML would drop the first)."""
        mapping = frame.node
        first = mapping.key_nodes.get(key.value)
        if first is not None:
            raise LoadError(f"duplicate key {key.value!r}: it is already defined on line "
                            f"{first.location.line}", _with_length(key.location, len(key.text)),
                            code="load-duplicate-key",
                            hint="YAML would silently keep only the last one; rename or "
                                 "merge the two entries")
        frame.key = key

    def _merge_key(self, key: ScalarNode) -> None:
        """A `<<` key: its value's keys will be merged when the mapping ends."""
        frame = self.stack[-1]
        if frame.merge_key is not None:
            raise LoadError(f"duplicate merge key '<<': there is already one on line "
                            f"{frame.merge_key.location.line}", key.location,
                            code="load-duplicate-key",
                            hint="list several sources in one key: `<<: [*a, *b]`")
        frame.size += 1
        frame.merge_key = key
        frame.merge_at = len(frame.node.entries)
        frame.key = key
        frame.merging = True

    def _add_merge_value(self, frame: _Frame, value: Node) -> None:
        frame.key = None
        frame.merging = False
        sources = value.items if isinstance(value, SeqNode) else [value]
        if not sources or not all(isinstance(s, MapNode) for s in sources):
            raise LoadError("a merge key (<<) takes a mapping or a list of mappings, "
                            "e.g. `<<: *defaults`", value.location, code="load-merge")
        frame.merge_sources = sources

    def _apply_merge(self, frame: _Frame) -> None:
        """Insert merged keys the mapping does not set itself, where `<<` stood."""
        mapping = frame.node
        merged_entries: dict[str, Node] = {}
        merged_keys: dict[str, ScalarNode] = {}
        for source in frame.merge_sources:
            for key, value in source.entries.items():
                if key not in mapping.entries and key not in merged_entries:
                    merged_entries[key] = value
                    merged_keys[key] = source.key_nodes[key]
        own = list(mapping.entries.items())
        order = own[:frame.merge_at] + list(merged_entries.items()) + own[frame.merge_at:]
        keys = dict(mapping.key_nodes)
        keys.update(merged_keys)
        mapping.entries = dict(order)
        mapping.key_nodes = {key: keys[key] for key, _ in order}


class _Alias(Node):
    """Stands in for an alias until the whole document has been counted.

    Copying is deferred so that an alias bomb is refused after counting alone, having
    built nothing.
    """

    __slots__ = ("target",)

    def __init__(self, target: Node, location: Location, path: tuple):
        self.target = target
        self._place(location, path, None)


def _expand_aliases(root: Node) -> None:
    """Replace every `_Alias` in the tree by a copy of its anchored node (iteratively)."""
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, MapNode):
            slots = node.entries
            for key, value in slots.items():
                if isinstance(value, _Alias):
                    slots[key] = _copy(value.target, value.path, value.path_text, False,
                                       value.location)
                else:
                    pending.append(value)
        elif isinstance(node, SeqNode):
            items = node.items
            for index, value in enumerate(items):
                if isinstance(value, _Alias):
                    items[index] = _copy(value.target, value.path, value.path_text,
                                         False, value.location)
                else:
                    pending.append(value)


def _copy(node: Node, path: tuple, path_text: str, merge_item: bool,
          location: Location | None = None) -> Node:
    """A copy of an anchored node placed at `path` (aliases are expanded, not shared).

    The copy's own `location` is where the alias is written (if given); nodes inside
    keep the anchored text's line and column, which is where their content is.
    Recursion is bounded: the composer has already checked the depth.  `merge_item`
    keeps a merged list's mappings at the merging mapping's path.
    """
    if isinstance(node, _Alias):
        return _copy(node.target, path, path_text, False,
                     location or node._moved(path_text))
    if location is None:
        location = node._moved(path_text)
    if isinstance(node, ScalarNode):
        return ScalarNode(node.value, node.text, node.tag, node.style, node.start_mark,
                          node.end_mark, location, path, node._source, path_text)
    if isinstance(node, SeqNode):
        copy = SeqNode(location, path, path_text)
        for index, item in enumerate(node.items):
            if merge_item:
                copy.items.append(_copy(item, path, path_text, False))
            else:
                copy.items.append(_copy(item, path + (index,), path_text + f"[{index}]",
                                        False))
        return copy
    copy = MapNode(location, path, path_text)
    for key, value in node.entries.items():
        step = _path_step(key, not path_text)
        copy.entries[key] = _copy(value, path + (key,), path_text + step, False)
        copy.key_nodes[key] = _copy(node.key_nodes[key], path + (key,), path_text + step,
                                    False)
    return copy


# --------------------------------------------------------------------------- location_at

_ESCAPES = {
    "0": "\0", "a": "\x07", "b": "\x08", "t": "\t", "\t": "\t", "n": "\n", "v": "\x0b",
    "f": "\x0c", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
    "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _break_length(text: str, i: int) -> int:
    """Length of the line break at `i` (0 if none)."""
    if i >= len(text):
        return 0
    if text.startswith("\r\n", i):
        return 2
    return 1 if text[i] in _BREAK_CHARS else 0


def _scalar_positions(text: str, node: ScalarNode) -> list[int] | None:
    """File index of each character of the scalar's text, plus one past its end.

    The text is rebuilt from the source the way the YAML scanner builds it; only if the
    rebuilt text equals the parser's do we trust the positions.
    """
    start = _skip_properties(text, node.start_mark.index)
    end = node.end_mark.index
    if node.style in ("|", ">"):
        return _block_positions(text, start, node)
    if node.style in ("'", '"'):
        chars, where = _flow_chars(text, start + 1, end - 1, node.style)
    else:
        chars, where = _flow_chars(text, start, end, None)
    if "".join(chars) != node.text:
        return None
    return where + [end - 1 if node.style else end]


def _skip_properties(text: str, i: int) -> int:
    """Index of a scalar's own text, after any `&anchor` and `!tag` before it."""
    while i < len(text) and text[i] in "&!":
        while i < len(text) and not text[i].isspace():
            i += 1
        while i < len(text) and text[i].isspace():
            i += 1
    return i


def _flow_chars(text: str, begin: int, end: int, style: str | None):
    """Rebuild a plain or quoted scalar between `begin` and `end`, with indexes.

    Line folding as in the YAML scanner: whitespace around a line break is dropped, a
    single break becomes a space, k blank lines become k newlines (mapped to the break).
    """
    chars: list[str] = []
    where: list[int] = []
    spaces: list[int] = []
    i = begin
    while i < end:
        c = text[i]
        if c in " \t":
            spaces.append(i)
            i += 1
            continue
        if _break_length(text, i):
            i = _fold_breaks(text, i, end, chars, where, escaped=False)
            spaces = []
            continue
        for s in spaces:
            chars.append(text[s])
            where.append(s)
        spaces = []
        if style == "'" and c == "'" and text.startswith("''", i):
            chars.append("'")
            where.append(i)
            i += 2
        elif style == '"' and c == "\\" and i + 1 < end:
            i = _escape(text, i, end, chars, where)
        else:
            chars.append(c)
            where.append(i)
            i += 1
    for s in spaces:
        chars.append(text[s])
        where.append(s)
    return chars, where


def _fold_breaks(text: str, i: int, end: int, chars, where, escaped: bool) -> int:
    """Consume a line break, blank lines and indentation at `i`; emit their folding."""
    first = i
    i += _break_length(text, i)
    blank = 0
    while True:
        j = i
        while j < end and text[j] in " \t":
            j += 1
        length = _break_length(text, j) if j < end else 0
        if not length:
            break
        blank += 1
        i = j + length
    if blank:
        chars.extend("\n" * blank)
        where.extend([first] * blank)
    elif not escaped:
        chars.append(" ")
        where.append(first)
    return j


def _escape(text: str, i: int, end: int, chars, where) -> int:
    """One backslash escape of a double-quoted scalar; every produced char maps to `\\`."""
    code = text[i + 1]
    if code in _ESCAPES:
        chars.append(_ESCAPES[code])
        where.append(i)
        return i + 2
    if code in _HEX_ESCAPES:
        digits = text[i + 2:i + 2 + _HEX_ESCAPES[code]]
        try:
            chars.append(chr(int(digits, 16)))
        except ValueError:
            chars.append("\ufffd")
        where.append(i)
        return i + 2 + _HEX_ESCAPES[code]
    if _break_length(text, i + 1):
        return _fold_breaks(text, i + 1, end, chars, where, escaped=True)
    chars.append(code)
    where.append(i)
    return i + 2


def _block_positions(text: str, start: int, node: ScalarNode) -> list[int] | None:
    """Positions for `|` and `>` scalars, trying indentations until the text matches.

    The indentation is the first content line's unless an indentation indicator says
    otherwise (relative to the parent, which we do not track), hence the search.
    """
    if start >= len(text) or text[start] not in "|>":
        return None
    header_end = start + 1
    while header_end < len(text) and text[header_end] in "+-0123456789":
        header_end += 1
    header = text[start + 1:header_end]
    chomping = "-" if "-" in header else "+" if "+" in header else ""
    line_end = header_end
    while line_end < len(text) and not _break_length(text, line_end):
        line_end += 1
    body = line_end + _break_length(text, line_end)
    detected = _first_content_indent(text, body)
    candidates = [detected] + [n for n in range(1, detected) if n != detected]
    for indent in candidates:
        if indent < 1:
            continue
        chars, where = _block_chars(text, body, indent, text[start] == ">", chomping)
        if "".join(chars) == node.text:
            return where + [(where[-1] + 1) if where else body]
    return None


def _first_content_indent(text: str, i: int) -> int:
    """Indentation of the first non-blank line from `i` (the widest blank line if more)."""
    widest = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == " ":
            j += 1
        length = _break_length(text, j)
        if not length:
            return max(widest, j - i)
        widest = max(widest, j - i)
        i = j + length
    return widest


def _block_chars(text: str, i: int, indent: int, folded: bool, chomping: str):
    """Rebuild a block scalar body starting at index `i`, as the YAML scanner does."""
    chars: list[str] = []
    where: list[int] = []
    line_start = i
    breaks, i, line_start = _block_breaks(text, i, line_start, indent)
    line_break = None
    while i - line_start == indent and i < len(text):
        for b in breaks:
            chars.append("\n")
            where.append(b)
        leading_non_space = text[i] not in " \t"
        while i < len(text) and not _break_length(text, i):
            chars.append(text[i])
            where.append(i)
            i += 1
        length = _break_length(text, i)
        line_break = i if length else None
        i += length
        line_start = i
        breaks, i, line_start = _block_breaks(text, i, line_start, indent)
        if line_break is None:
            break
        if i - line_start == indent and i < len(text):
            if folded and leading_non_space and text[i] not in " \t":
                if not breaks:
                    chars.append(" ")
                    where.append(line_break)
            else:
                chars.append("\n")
                where.append(line_break)
        else:
            break
    if chomping != "-" and line_break is not None:
        chars.append("\n")
        where.append(line_break)
    if chomping == "+":
        for b in breaks:
            chars.append("\n")
            where.append(b)
    return chars, where


def _block_breaks(text: str, i: int, line_start: int, indent: int):
    """Skip indentation and collect the breaks of blank lines (their indexes)."""
    breaks = []
    while True:
        while i - line_start < indent and i < len(text) and text[i] == " ":
            i += 1
        length = _break_length(text, i)
        if not length:
            return breaks, i, line_start
        breaks.append(i)
        i += length
        line_start = i


# --------------------------------------------------------------------------- includes

class _IncludeState:
    """Files already merged (each is merged once) and how many were included."""

    def __init__(self):
        self.seen: set[str] = set()
        self.count = 0


def _load_with_includes(path: str, chain: tuple, state: _IncludeState,
                        via: ScalarNode | None) -> MapNode:
    """Load `path`, then its includes (recursively), and merge them all."""
    try:
        document = load_file(path)
    except LoadError as exc:
        if via is not None and exc.code == "load-io":
            raise LoadError(f"included file {exc.message.removeprefix('cannot read ')}",
                            via.location, code="load-io") from None
        raise
    real = os.path.realpath(path)
    parts = []
    for item in _include_items(document):
        target = os.path.normpath(os.path.join(os.path.dirname(path), item.value))
        target_real = os.path.realpath(target)
        if target_real in chain or target_real == real:
            loop = " -> ".join(os.path.basename(p) for p in chain + (real, target_real))
            raise LoadError(f"include cycle: {loop}", item.location,
                            code="load-include-cycle",
                            hint="a file may not include itself, directly or indirectly")
        if target_real in state.seen:
            continue
        state.seen.add(target_real)
        state.count += 1
        if state.count > MAX_INCLUDES:
            raise LoadError(f"more than {MAX_INCLUDES} files are included; refusing to go on",
                            item.location, code="load-too-large")
        parts.append(_load_with_includes(target, chain + (real,), state, item))
    merged = MapNode(document.location, ())
    for part in parts + [_without_include(document)]:
        _merge_document(merged, part)
    return merged


def _include_items(document: MapNode) -> list[ScalarNode]:
    """The `include:` entries: one path or a list of paths, each a non-empty string."""
    value = document.get("include")
    if value is None:
        return []
    items = value.items if isinstance(value, SeqNode) else [value]
    for item in items:
        if not (isinstance(item, ScalarNode) and isinstance(item.value, str) and item.value):
            raise LoadError("`include` takes a file path or a list of file paths",
                            item.location, code="load-include",
                            hint="e.g. `include: [tables.yaml, kinds.yaml]`")
    return items


def _without_include(document: MapNode) -> MapNode:
    copy = MapNode(document.location, document.path)
    for key, value in document.items():
        if key != "include":
            copy.entries[key] = value
            copy.key_nodes[key] = document.key_nodes[key]
    return copy


def _merge_document(merged: MapNode, part: MapNode) -> None:
    """Merge one file's sections into the result; a name defined twice is an error."""
    for key, value in part.items():
        key_node = part.key_nodes[key]
        existing = merged.get(key)
        if existing is None:
            if isinstance(value, MapNode):
                section = MapNode(value.location, value.path)
                section.entries.update(value.entries)
                section.key_nodes.update(value.key_nodes)
                value = section
            merged.entries[key] = value
            merged.key_nodes[key] = key_node
        elif isinstance(existing, MapNode) and isinstance(value, MapNode):
            _merge_section(existing, value, key)
        else:
            raise _defined_twice(key, key_node, merged.key_nodes[key])


def _merge_section(section: MapNode, part: MapNode, name: str) -> None:
    for key, value in part.items():
        if key in section.entries:
            raise _defined_twice(f"{name}.{key}" if _IDENTIFIER.match(key)
                                 else f"{name}[{json.dumps(key)}]",
                                 part.key_nodes[key], section.key_nodes[key])
        section.entries[key] = value
        section.key_nodes[key] = part.key_nodes[key]


def _defined_twice(what: str, here: ScalarNode, first: ScalarNode) -> LoadError:
    loc = first.location
    return LoadError(f"{what} is defined twice: here and at {loc.file}:{loc.line}:{loc.column}",
                     here.location, code="load-duplicate-key",
                     hint="names must be unique across a ruleset and its included files")
