"""Plain record classes, made the way `@dataclass` makes them but without its cost at
import, and without importing `dataclasses` at all.

Every command imports about thirty record classes (a location, a finding, a unit kind, a
dice record, a game's result, ...).  `dataclasses` spends about 1.3 M machine
instructions on each (its field machinery, six methods compiled one by one) and its
import, which brings `inspect`, `ast` and `dis`, about 42 M more: together an eighth of a
piped `rulecraft play`.  Here a class's `__init__`, `__eq__` and `__hash__` are written
as dataclasses writes them and compiled in one go (so they name the same parameters and
cost what its methods cost at run time); `repr` and the refusal to change a frozen field
are shared functions reading the class's fields.

`record` means what `@dataclass` means for the forms used here: fields in the order
annotated, a class attribute is the field's default, `field(default=..., default_factory=
..., init=..., repr=..., compare=...)` as dataclasses' own; `frozen=True` refuses
assignment (`dataclasses.FrozenInstanceError`) and hashes the compared fields, `slots=True`
gives the class `__slots__`; a method the class defines itself is kept.  `replace` is
`dataclasses.replace`.  dataclasses' own functions (`fields`, `asdict`, `replace`,
`is_dataclass`) work on a record too: its `__dataclass_fields__` are made, with
`dataclasses` imported, the first time they are asked for.  `tests/test_records.py` holds
records against dataclasses' own classes.
"""
from __future__ import annotations

_MISSING = object()


class Field:
    """A field's declaration, as `dataclasses.field` takes it."""

    __slots__ = ("name", "type", "default", "default_factory", "init", "repr", "compare")

    def __init__(self, default=_MISSING, default_factory=_MISSING, init=True, repr=True,
                 compare=True):
        if default is not _MISSING and default_factory is not _MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name, self.type = None, None
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare


def field(*, default=_MISSING, default_factory=_MISSING, init=True, repr=True, compare=True):
    """`dataclasses.field` for a record."""
    return Field(default, default_factory, init, repr, compare)


class _DataclassFields:
    """`__dataclass_fields__` made when first asked for (by `dataclasses.fields`,
    `asdict`, `replace`, `is_dataclass`): dataclasses' own `Field`s, so that its
    functions read a record as one of its classes.  Only then is `dataclasses` loaded."""

    def __get__(self, instance, cls):
        import dataclasses
        made = {}
        for spec in cls._record_fields:
            kw = {"default": spec.default} if spec.default is not _MISSING else {}
            if spec.default_factory is not _MISSING:
                kw["default_factory"] = spec.default_factory
            made_field = dataclasses.field(init=spec.init, repr=spec.repr,
                                           compare=spec.compare, **kw)
            made_field.name, made_field.type = spec.name, spec.type
            made_field._field_type = dataclasses._FIELD
            made[spec.name] = made_field
        cls.__dataclass_fields__ = made
        return made


def record(cls=None, /, *, frozen: bool = False, slots: bool = False):
    """Make `cls` a record class (`@record`, `@record(frozen=True)`, `@record(slots=True)`),
    as `@dataclass` with the same arguments would."""
    def wrap(klass):
        return _make(klass, frozen, slots)
    return wrap if cls is None else _make(cls, frozen, slots)


def _make(cls, frozen: bool, slots: bool):
    own = cls.__dict__
    specs = []
    for name, annotation in own.get("__annotations__", {}).items():
        declared = own.get(name, _MISSING)
        spec = declared if isinstance(declared, Field) else Field(default=declared)
        spec.name, spec.type = name, annotation
        specs.append(spec)
    if slots:
        cls = _with_slots(cls, specs)
    for spec in specs if not slots else ():   # as dataclasses leaves it: the plain default
        if spec.default is not _MISSING:
            setattr(cls, spec.name, spec.default)
        elif spec.name in cls.__dict__:
            delattr(cls, spec.name)
    cls._record_fields = tuple(specs)
    cls._record_shown = tuple(s.name for s in specs if s.repr)
    cls._record_compared = tuple(s.name for s in specs if s.compare)
    cls.__match_args__ = tuple(s.name for s in specs if s.init)
    cls.__dataclass_fields__ = _DataclassFields()
    _keep_own(cls, "__init__", _init(cls, specs, frozen))
    _keep_own(cls, "__repr__", _repr)
    _keep_own(cls, "__eq__", _first_eq)
    if frozen:
        if "__setattr__" in own or "__delattr__" in own:
            raise TypeError(f"cannot overwrite attribute __setattr__ in class {cls.__name__}")
        cls.__setattr__, cls.__delattr__ = refuse_set, refuse_delete
    own_hash = own.get("__hash__", _MISSING)   # as dataclasses' eq=True
    if own_hash is _MISSING or (own_hash is None and "__eq__" in own):
        cls.__hash__ = _first_hash if frozen else None
    return cls


def _keep_own(cls, name: str, method) -> None:
    """A method the class defines itself stays, as with dataclasses."""
    if name not in cls.__dict__:
        setattr(cls, name, method)


def _with_slots(cls, specs):
    """The class made again with `__slots__` for its fields, as `slots=True` does."""
    body = {k: v for k, v in cls.__dict__.items()
            if k not in ("__dict__", "__weakref__") and k not in {s.name for s in specs}}
    body["__slots__"] = tuple(s.name for s in specs)
    made = type(cls)(cls.__name__, cls.__bases__, body)
    made.__qualname__ = cls.__qualname__
    return made


def _init(cls, specs, frozen: bool):
    """`__init__` compiled from the fields, written as dataclasses writes it (so it costs
    what its method costs): each parameter in order, a default making it optional, a
    default factory called when the parameter is not given."""
    params, lines, namespace = [], [], {"_MISSING": _MISSING, "_setattr": object.__setattr__}
    for spec in specs:
        if spec.default_factory is not _MISSING:
            namespace[f"_factory_{spec.name}"] = spec.default_factory
            value = f"_factory_{spec.name}()"
            if spec.init:
                params.append(f"{spec.name}=_MISSING")
                value = f"{value} if {spec.name} is _MISSING else {spec.name}"
        elif spec.default is not _MISSING:
            namespace[f"_default_{spec.name}"] = spec.default
            value = f"_default_{spec.name}"
            if spec.init:
                params.append(f"{spec.name}=_default_{spec.name}")
                value = spec.name
        else:
            if any("=" in p for p in params):
                raise TypeError(f"non-default argument {spec.name!r} follows default argument")
            params.append(spec.name)
            value = spec.name
        lines.append(_set_line(spec.name, value, frozen))
    source = f"def __init__(self, {', '.join(params)}):\n" + ("".join(lines) or "    pass\n")
    return _compiled(cls, source, namespace)["__init__"]


def _compiled(cls, source: str, namespace: dict) -> dict:
    made: dict = {}
    exec(compile(source, f"<{cls.__name__} record>", "exec"), namespace, made)
    for name, method in made.items():
        method.__qualname__ = f"{cls.__qualname__}.{name}"
    return made


def _first_eq(self, other):
    """A record class's first comparison: its `__eq__` (and `__hash__`) compiled now, as
    dataclasses writes them -- most of the record classes a command loads are never
    compared, so their start need not compile them."""
    return _comparisons_of(type(self)).__eq__(self, other)


def _first_hash(self):
    return _comparisons_of(type(self)).__hash__(self)


def _comparisons_of(cls):
    """The record class holding the stand-ins (`cls` or a base), its methods compiled."""
    owner = next(k for k in cls.__mro__ if k.__dict__.get("__eq__") is _first_eq or
                 k.__dict__.get("__hash__") is _first_hash)
    mine = "".join(f"self.{n}," for n in owner._record_compared)
    theirs = "".join(f"other.{n}," for n in owner._record_compared)
    made = _compiled(owner, "def __eq__(self, other):\n"
                            "    if other.__class__ is self.__class__:\n"
                            f"        return ({mine}) == ({theirs})\n"
                            "    return NotImplemented\n"
                            "def __hash__(self):\n"
                            f"    return hash(({mine}))\n", {})
    if owner.__dict__.get("__eq__") is _first_eq:
        owner.__eq__ = made["__eq__"]
    if owner.__dict__.get("__hash__") is _first_hash:
        owner.__hash__ = made["__hash__"]
    return owner


def _set_line(name: str, value: str, frozen: bool) -> str:
    """A frozen field is set past the class's refusal as dataclasses sets it (not through
    `self.__dict__`, which would make Python keep the instance's values in a dict of its
    own and read every field slower)."""
    if not frozen:
        return f"    self.{name} = {value}\n"
    return f"    _setattr(self, {name!r}, {value})\n"


def _repr(self):
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._record_shown)
    return f"{type(self).__qualname__}({shown})"


def refuse_set(self, name, value):
    from dataclasses import FrozenInstanceError   # only when someone tries
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def refuse_delete(self, name):
    from dataclasses import FrozenInstanceError
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def replace(obj, /, **changes):
    """A copy of the record `obj` with `changes` (`dataclasses.replace`)."""
    for spec in obj._record_fields:
        if not spec.init:
            if spec.name in changes:
                raise ValueError(f"field {spec.name} is declared with init=False, "
                                 f"it cannot be specified with replace()")
            continue
        if spec.name not in changes:
            changes[spec.name] = getattr(obj, spec.name)
    return obj.__class__(**changes)
