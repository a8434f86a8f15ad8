"""Every formula the tables hold, wherever they keep it: what a story or a told game asks
of all of them at once (whether they only read, what they call)."""
from __future__ import annotations

from ..lang.ast import Node
from .rows import Formula


def formula_nodes(tables: dict):
    """The expression of every Formula reachable from the tables (their rows, cells,
    computed formulas: any object of the tables' own modules, any list, tuple or dict),
    and every formula kept as its node alone; not a steps cell's steps."""
    seen, todo = set(), list(tables.values())
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, Formula):
            yield item.node
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            todo.extend(item)
        elif isinstance(item, Node):
            yield item
        elif type(item).__module__.startswith("interpreter.tables"):
            todo.extend(getattr(item, "__dict__", {}).values())
            for cls in type(item).__mro__:
                slots = getattr(cls, "__slots__", ())
                for slot in (slots,) if isinstance(slots, str) else slots:
                    if slot != "__dict__" and hasattr(item, slot):
                        todo.append(getattr(item, slot))
