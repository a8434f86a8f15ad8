"""Composing PyYAML's event stream into located nodes, iteratively: aliases counted
while they are expanded, nesting bounded before any recursion, only YAML's standard tags
accepted and nothing but plain scalars ever constructed (see `load.py`)."""
from __future__ import annotations

import math
import re

import yaml

from ..errors import LoadError
from ..limits import MAX_DEPTH, MAX_DIGITS, MAX_NODES
from .nodes import (MapNode, Mark, Node, ScalarNode, SeqNode, path_step, unquoted_step_hint,
                    unquoted_step_message, with_length)
from .aliases import Alias, copy_node, expand_aliases
from .positions import SourceText


LOADER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

_YAML_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {"str", "int", "float", "bool", "null", "timestamp"}
_CONSTRUCTORS = {
    "int": yaml.constructor.SafeConstructor.construct_yaml_int,
    "float": yaml.constructor.SafeConstructor.construct_yaml_float,
    "bool": yaml.constructor.SafeConstructor.construct_yaml_bool,
    "null": yaml.constructor.SafeConstructor.construct_yaml_null,
}
_SHORT_DECIMAL = re.compile(r"(?:[-+]?[1-9][0-9]{0,17}|0)\Z")  # no octal, no `_`


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


class Composer:
    """Builds the located tree from PyYAML events, counting and bounding as it goes."""

    def __init__(self, source: SourceText):
        self.source = source
        self.loader = None
        self.stack: list[_Frame] = []
        self.root: MapNode | None = None
        self.count = 0
        self.anchors: dict[str, tuple[Node, int, int]] = {}
        self.open_anchors: set[str] = set()

    def compose(self) -> MapNode:
        """Run the parser to the end of the stream; turn its failures into LoadErrors."""
        self.loader = LOADER(self.source.text)
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
        line = location.source or ""
        if "cannot start any token" in message and 0 < location.column <= len(line) \
                and line[location.column - 1] == "\t":
            return LoadError("a tab character: tabs are not allowed in YAML indentation",
                             location, code="load-syntax", hint="indent with spaces")
        meant = _unquoted_step(location.source or "")
        if meant is not None:
            message += "; " + unquoted_step_message("this step")
            hint = unquoted_step_hint(meant)
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
            expand_aliases(self.root)
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
                node.path_text + path_step(key, not node.path), top.depth + 1)

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
        shown = event.value if len(event.value) <= 40 else event.value[:37] + "..."
        if short in ("int", "float") and sum(c.isdigit() for c in event.value) > MAX_DIGITS:
            raise LoadError(f"{shown!r} has more than {MAX_DIGITS:,} digits; a rule's numbers "
                            "must stay printable", self.source.at_mark(event.start_mark),
                            code="load-value")
        try:
            value = _CONSTRUCTORS[short](self.loader, yaml.ScalarNode(_YAML_TAG + short,
                                                                      event.value))
        except Exception:  # ValueError, KeyError from PyYAML's constructors
            raise LoadError(f"{shown!r} cannot be read as {short}",
                            self.source.at_mark(event.start_mark),
                            code="load-tag" if explicit else "load-value") from None
        if type(value) is float and not math.isfinite(value):
            raise LoadError(f"{shown!r} is {'not a number' if value != value else 'infinite'}; "
                            "a rule's numbers are finite", self.source.at_mark(event.start_mark),
                            code="load-value",
                            hint="write a large number (or leave the value out) instead; "
                                 "`.inf` and `.nan` have no meaning in a rule")
        return value

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
            path_text += path_step(event.value, not path_text)
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
            path_text += path_step(anchored.text, not path_text)
        location = self.source.at_mark(event.start_mark, path_text, len(name) + 1)
        if role == "key":
            node = copy_node(anchored, path, path_text, False, location)
            node.value = anchored.text
        elif self.stack and self.stack[-1].merging:
            node = copy_node(anchored, path, path_text, True, location)  # merged at mapping end
        else:
            node = Alias(anchored, location, path)  # expanded once everything is counted
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
                            f"{first.location.line}", with_length(key.location, len(key.text)),
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


_STEP_WITH_COLON = re.compile(r"^\s*-\s+(?P<step>(?:let|return|emit)\s.*|[A-Za-z_][\w.\[\]]*\s*"
                              r"(?:[-+*]?=|\().*)$")


def _unquoted_step(line: str) -> str | None:
    """The statement on a list line `- let x = {a: 1}` (a step) when it holds ': '
    outside quotes and YAML stumbled on it; else None."""
    m = _STEP_WITH_COLON.match(line)
    if m is None or ": " not in m.group("step"):
        return None
    step = m.group("step").strip()
    return None if step[:1] in "'\"" else step
