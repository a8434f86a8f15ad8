"""House-rule overlays by stable ids: `change`, `add`, `insert` and `remove`.

A house-rule file names its base with `extends:` and may, besides replacing whole
entries section by section (see `build.overlay`), edit single pieces of the base by
their id path:

    add:    {tables.penetrating.rows.7: {...}, procedures.shoot.steps: [...]}
    change: {tables.to_hit.rows.1: 5, scenarios.default.sides.axis.policy: ask}
    insert: [{after: procedures.shoot.steps.to_hit_roll, items: [...]}]
    remove: [tables.critical_damage.rows.2, rulings.full-range]

An id path is dot-separated; a segment holding a dot is written in double quotes
(`tables.vehicles.rows."Sd.Kfz. 222"`).  In a mapping a segment is a key; in a list
(steps, phases, victory conditions, units, rulings) it is the item's `id:`, else its
`name:`, else (for a `let` step) the name the step binds, else the item's position
counted from 1.  A step that is a mapping may carry `id:`; the id is taken away once
every overlay is applied, and a step written `{id: x, step: "let a = d6"}` becomes the
plain statement.  Every path that names nothing is an error located in the overlay
file, with a "did you mean".
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import LoadError
from ..source.nodes import MapNode, ScalarNode, SeqNode
from ..suggest import did_you_mean

EDIT_KEYS = ("add", "change", "insert", "remove")    # applied in this order
_SECTIONS = ("parameters", "kinds", "tables", "statuses", "procedures", "scenarios")
_STEP_WORDS = {"if", "for", "repeat", "modify", "choose", "step"}
_LET = re.compile(r"\s*let\s+([A-Za-z_][A-Za-z_0-9]*)\s*=")

# the chain of ruleset ids each loaded file stands for: resolved path -> ["tanks", "veteran-crews"]
CHAINS: dict[str, list[str]] = {}


def split_path(text: str) -> list[str]:
    """`a.b."c.d".e` -> ["a", "b", "c.d", "e"]."""
    parts, current, quoted = [], "", False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif ch == "." and not quoted:
            parts.append(current)
            current = ""
        else:
            current += ch
    if quoted:
        raise ValueError("an unclosed quote")
    parts.append(current)
    if any(p == "" for p in parts):
        raise ValueError("an empty segment")
    return parts


def item_ids(item, index: int) -> list[str]:
    """The names by which a list item can be named, most stable first."""
    names = []
    if isinstance(item, MapNode):
        for key in ("id", "name"):
            value = item.get(key)
            if isinstance(value, ScalarNode) and value.value is not None:
                names.append(str(value.value))
    elif isinstance(item, ScalarNode) and isinstance(item.value, str):
        match = _LET.match(item.value)
        if match:
            names.append(match.group(1))
    names.append(str(index + 1))
    return names


def _child(node, segment: str):
    """(the child named `segment`, the key or index it sits at) or (None, None)."""
    if isinstance(node, MapNode):
        return (node[segment], segment) if segment in node else (None, None)
    if isinstance(node, SeqNode):
        for index, item in enumerate(node):      # ids and names before positions
            if segment in item_ids(item, index)[:-1]:
                return item, index
        if segment.isdigit() and 1 <= int(segment) <= len(node.items):
            return node.items[int(segment) - 1], int(segment) - 1
    return None, None


def _candidates(node) -> list[str]:
    if isinstance(node, MapNode):
        return list(node.keys())
    if isinstance(node, SeqNode):
        return [n for i, item in enumerate(node) for n in item_ids(item, i)[:-1]]
    return []


class _Editor:
    """Applies one overlay file's edits to the merged document (copied, then mutated)."""

    def __init__(self, document: MapNode):
        self.root = deep_copy(document)

    def _fail(self, message: str, where, hint=None):
        raise LoadError(message, where.location, code="overlay-unknown", hint=hint)

    def _parse(self, text, where) -> list[str]:
        if not isinstance(text, str):
            raise LoadError("an id path is text, e.g. tables.to_hit.rows.1", where.location,
                            code="overlay-path")
        try:
            return split_path(text)
        except ValueError as err:
            raise LoadError(f"id path {text!r} has {err}", where.location,
                            code="overlay-path") from None

    def resolve(self, segments: list[str], where, upto: int | None = None):
        """Walk the path; returns (parent, key-or-index, node)."""
        node, parent, key = self.root, None, None
        whole = where.value if isinstance(where, ScalarNode) and isinstance(where.value, str) \
            else ".".join(segments)
        for i, segment in enumerate(segments[:upto]):
            child, at = _child(node, segment)
            if child is None:
                done = ".".join(segments[:i]) or "the ruleset"
                what = "has no" if isinstance(node, (MapNode, SeqNode)) else "is not a section, so it has no"
                hint = did_you_mean(segment, _candidates(node)) or _list_hint(node)
                if hint is None and i == len(segments) - 1 and isinstance(node, MapNode):
                    hint = "to put in something new, use add"
                self._fail(f"{done} {what} {segment!r} (overlay path {whole})", where, hint)
            parent, key, node = node, at, child
        return parent, key, node

    def change(self, text, value, where):
        segments = self._parse(text, where)
        parent, key, _ = self.resolve(segments, where)
        if parent is None:
            self._fail("change names a piece of the ruleset, not the whole of it", where)
        _put(parent, key, value, where)

    def add(self, text, value, where):
        segments = self._parse(text, where)
        if len(segments) >= 2 and segments[0] in _SECTIONS and segments[0] not in self.root:
            section = MapNode(where.location, (segments[0],))   # a section the base lacks
            self.root.entries[segments[0]] = section
            self.root.key_nodes[segments[0]] = where
        _, _, parent = self.resolve(segments, where, upto=-1)
        last = segments[-1]
        existing, _ = _child(parent, last)
        if isinstance(existing, SeqNode):           # add to a list: appended
            existing.items.extend(value.items if isinstance(value, SeqNode) else [value])
            return
        if existing is not None:
            self._fail(f"{text} already exists: use change to replace it", where)
        if not isinstance(parent, MapNode):
            self._fail(f"{'.'.join(segments[:-1])} is a list: add items by naming the list "
                       f"itself, or use insert", where)
        _put(parent, last, value, where)

    def insert(self, spec, where):
        if not isinstance(spec, MapNode) or ("before" in spec) == ("after" in spec) \
                or "items" not in spec:
            raise LoadError("an insert is {before: PATH, items: [...]} or {after: PATH, items: [...]}",
                            where.location, code="overlay-path")
        side = "before" if "before" in spec else "after"
        segments = self._parse(spec[side].value if isinstance(spec[side], ScalarNode) else None,
                               spec[side])
        parent, index, _ = self.resolve(segments, spec[side])
        if not isinstance(parent, SeqNode):
            self._fail(f"insert {side} names an item of a list (a step, a phase, a unit)", spec[side])
        items = spec["items"].items if isinstance(spec["items"], SeqNode) else [spec["items"]]
        at = index if side == "before" else index + 1
        parent.items[at:at] = items

    def remove(self, text, where):
        segments = self._parse(text, where)
        parent, key, _ = self.resolve(segments, where)
        if parent is None:
            self._fail("remove names a piece of the ruleset, not the whole of it", where)
        if isinstance(parent, MapNode):
            parent.entries.pop(key)
            parent.key_nodes.pop(key, None)
        else:
            del parent.items[key]


def _list_hint(node) -> str | None:
    if isinstance(node, SeqNode):
        return (f"name a list item by its id or name, or by its position from 1 "
                f"(this list has {len(node.items)})")
    return None


def _put(parent, key, value, where) -> None:
    if isinstance(parent, MapNode):
        parent.entries[key] = value
        if key not in parent.key_nodes:
            parent.key_nodes[key] = where
    else:
        parent.items[key] = value


def deep_copy(node):
    """The containers copied (so edits do not reach the base); scalars shared."""
    if isinstance(node, MapNode):
        copy = MapNode(node.location, node.path, node.path_text)
        copy.entries = {k: deep_copy(v) for k, v in node.entries.items()}
        copy.key_nodes = dict(node.key_nodes)
        return copy
    if isinstance(node, SeqNode):
        copy = SeqNode(node.location, node.path, node.path_text)
        copy.items = [deep_copy(v) for v in node.items]
        return copy
    return node


def apply_edits(document: MapNode, house: MapNode) -> MapNode:
    """The `add`, `change`, `insert` and `remove` of `house` applied, in that order (so a
    file may change what it adds, and remove comes last)."""
    if not any(key in house for key in EDIT_KEYS):
        return document
    editor = _Editor(document)
    for key in EDIT_KEYS:
        editor.root.entries.pop(key, None)
        editor.root.key_nodes.pop(key, None)
    change, add = house.get("change"), house.get("add")
    for name, node in (("change", change), ("add", add)):
        if node is not None and not isinstance(node, MapNode):
            raise LoadError(f"{name} maps id paths to their new values", node.location,
                            code="overlay-path")
    for path, value in (add.items() if add is not None else []):
        editor.add(path, value, add.key_nodes[path])
    for path, value in (change.items() if change is not None else []):
        editor.change(path, value, change.key_nodes[path])
    for name in ("insert", "remove"):
        node = house.get(name)
        if node is not None and not isinstance(node, SeqNode):
            raise LoadError(f"{name} is a list", node.location, code="overlay-path")
    for spec in (house.get("insert") or []):
        editor.insert(spec, spec)
    for item in (house.get("remove") or []):
        editor.remove(item.value if isinstance(item, ScalarNode) else None, item)
    return editor.root


def strip_step_ids(node):
    """Steps may carry `id:` for overlays to name them; the step compiler does not know
    it, so it is taken away here (a copy where anything changes).  A step is a mapping
    in a list with one of the step words (if, for, repeat, modify, choose, step)."""
    if isinstance(node, SeqNode):
        items = [_strip_step(strip_step_ids(item)) for item in node.items]
        if all(a is b for a, b in zip(items, node.items)):
            return node
        copy = SeqNode(node.location, node.path, node.path_text)
        copy.items = items
        return copy
    if not isinstance(node, MapNode):
        return node
    entries = {k: strip_step_ids(v) for k, v in node.entries.items()}
    if all(entries[k] is v for k, v in node.entries.items()):
        return node
    copy = MapNode(node.location, node.path, node.path_text)
    copy.entries = entries
    copy.key_nodes = dict(node.key_nodes)
    return copy


def _strip_step(item):
    if not isinstance(item, MapNode) or "id" not in item or not _STEP_WORDS & set(item.keys()):
        return item
    if set(item.keys()) == {"id", "step"}:
        return item["step"]
    copy = MapNode(item.location, item.path, item.path_text)
    copy.entries = {k: v for k, v in item.entries.items() if k != "id"}
    copy.key_nodes = {k: v for k, v in item.key_nodes.items() if k != "id"}
    return copy


def chain_of(path: Path) -> list[str]:
    """The ids of the rulesets a file stands for, base first (`tanks + veteran-crews`)."""
    return CHAINS.get(str(Path(path).resolve()), [])


def chain_text(path: Path, fallback: str) -> str:
    chain = chain_of(path)
    return " + ".join(chain) if len(chain) > 1 else fallback
