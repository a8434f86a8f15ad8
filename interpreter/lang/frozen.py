"""Frozen syntax-node and step classes, made the way `@dataclass(frozen=True)` makes them
but at a fraction of its cost when the module is imported.

Every command that parses or reads a kept model imports the syntax tree's two dozen node
classes and the steps' eleven, and `dataclasses` spends 0.3-1.2 ms on each (it reads the
annotations through its field machinery, asks `inspect` for a signature to write a
docstring, and compiles six methods one by one): about 13 ms of a 150 ms `roll 2d6`.
Here only `__init__` is compiled for each class (it names its parameters, so a missing or
unknown argument is the same `TypeError`); equality, hashing, `repr` and the refusal to
change a field are shared methods of the base classes, read off the class's fields.

A node (`FrozenNode`) means what `@dataclass(frozen=True)` means: fields in the order
written, a default makes a field optional, `loc` is keyword-only and, like a field
declared `hidden(...)`, takes no part in equality or hashing (`repr` shows every field but
`loc`); two nodes are equal when their classes are the same and their compared fields are
equal, and hash as the tuple of those fields.  A step (`FrozenRecord`) is
`@dataclass(frozen=True, eq=False)`: compared by identity, its `loc` a field like the
others.  `tests/test_frozen_nodes.py` holds both against dataclasses' own classes.
"""
from __future__ import annotations

from operator import attrgetter

from ..records import refuse_delete, refuse_set

_NO_DEFAULT = object()


class hidden:   # noqa: N801 - read as a field's declaration, like dataclasses.field
    """The default of a field kept out of equality and hashing (a node's notes, the dice
    pool it carries for the evaluator): `dataclasses.field(default=..., compare=False)`."""

    __slots__ = ("default",)

    def __init__(self, default):
        self.default = default


class FrozenRecord:
    """A frozen class compared by identity (`@dataclass(frozen=True, eq=False)`): the
    procedure steps; `frozen` fills the class's fields."""

    _shown: tuple[str, ...] = ()          # the fields `repr` shows: all but a node's loc

    def __repr__(self):
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._shown)
        return f"{type(self).__qualname__}({shown})"

    __setattr__ = refuse_set         # frozen as a frozen record is (records.py)
    __delattr__ = refuse_delete


class FrozenNode(FrozenRecord):
    """A frozen class compared by its fields (`@dataclass(frozen=True)`): the syntax
    nodes, whose `loc` is a keyword-only field kept out of equality and `repr`."""

    _key = staticmethod(lambda node: ())  # the compared fields' values, as one tuple

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key(self) == self._key(other)
        return NotImplemented

    def __hash__(self):
        return hash(self._key(self))


def frozen(cls):
    """Make `cls` (a subclass of `FrozenNode` or `FrozenRecord` with annotated fields) a
    frozen class: its `__init__` compiled from its fields, its compared fields recorded.
    A node's `loc` is its base's keyword-only field; a record declares its own."""
    node = issubclass(cls, FrozenNode)
    fields = [(name, cls.__dict__.get(name, _NO_DEFAULT))
              for name in cls.__dict__.get("__annotations__", {})]
    compared = tuple(name for name, default in fields if not isinstance(default, hidden))
    params, defaults = [], {}
    for name, default in fields:
        if isinstance(default, hidden):
            default = default.default
        if default is not _NO_DEFAULT:
            defaults[f"_default_{name}"] = default
            params.append(f"{name}=_default_{name}")
            setattr(cls, name, default)   # as dataclasses leaves it: the plain default
        elif defaults:
            raise TypeError(f"{cls.__name__}: non-default field {name!r} follows a default")
        else:
            params.append(name)
    # the instance dict filled in dataclasses' order (loc first: it is the base's field),
    # so that code walking a node's fields in order (ast.children_of) sees the same order
    body = "".join(f"    d[{name!r}] = {name}\n" for name, _ in fields)
    head = ("*, loc=None", "    d['loc'] = loc\n") if node else ("", "")
    source = (f"def __init__(self, {''.join(p + ', ' for p in params)}{head[0]}):\n"
              f"    d = self.__dict__\n{head[1]}{body}")
    namespace: dict = {}
    exec(compile(source, f"<{cls.__name__}.__init__>", "exec"), defaults, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init
    cls._shown = tuple(name for name, _ in fields)
    cls.__match_args__ = tuple(name for name, _ in fields)
    if not node:
        return cls
    if not compared:
        cls._key = staticmethod(lambda node: ())
    elif len(compared) == 1:
        one = attrgetter(compared[0])
        cls._key = staticmethod(lambda node: (one(node),))
    else:
        cls._key = staticmethod(attrgetter(*compared))
    return cls
