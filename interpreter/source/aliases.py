"""YAML aliases as located nodes: an alias stands in for its anchored node until the whole
document has been counted (so an alias bomb is refused having built nothing), then is
expanded into a copy placed at the alias's own path (compose.py drives both)."""
from __future__ import annotations

from ..errors import Location
from .nodes import MapNode, Node, ScalarNode, SeqNode, path_step


class Alias(Node):
    """Stands in for an alias until the whole document has been counted.

    Copying is deferred so that an alias bomb is refused after counting alone, having
    built nothing.
    """

    __slots__ = ("target",)

    def __init__(self, target: Node, location: Location, path: tuple):
        self.target = target
        self._place(location, path, None)


def expand_aliases(root: Node) -> None:
    """Replace every `Alias` in the tree by a copy of its anchored node (iteratively)."""
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, MapNode):
            slots = node.entries
            for key, value in slots.items():
                if isinstance(value, Alias):
                    slots[key] = copy_node(value.target, value.path, value.path_text, False,
                                       value.location)
                else:
                    pending.append(value)
        elif isinstance(node, SeqNode):
            items = node.items
            for index, value in enumerate(items):
                if isinstance(value, Alias):
                    items[index] = copy_node(value.target, value.path, value.path_text,
                                         False, value.location)
                else:
                    pending.append(value)


def copy_node(node: Node, path: tuple, path_text: str, merge_item: bool,
          location: Location | None = None) -> Node:
    """A copy of an anchored node placed at `path` (aliases are expanded, not shared).

    The copy's own `location` is where the alias is written (if given); nodes inside
    keep the anchored text's line and column, which is where their content is.
    Recursion is bounded: the composer has already checked the depth.  `merge_item`
    keeps a merged list's mappings at the merging mapping's path.
    """
    if isinstance(node, Alias):
        return copy_node(node.target, path, path_text, False,
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
                copy.items.append(copy_node(item, path, path_text, False))
            else:
                copy.items.append(copy_node(item, path + (index,), path_text + f"[{index}]",
                                        False))
        return copy
    copy = MapNode(location, path, path_text)
    for key, value in node.entries.items():
        step = path_step(key, not path_text)
        copy.entries[key] = copy_node(value, path + (key,), path_text + step, False)
        copy.key_nodes[key] = copy_node(node.key_nodes[key], path + (key,), path_text + step,
                                    False)
    return copy
