"""The syntax tree's node classes (lang/frozen.py) behave as `@dataclass(frozen=True)`
classes of the same fields would: construction, equality, hashing, repr, frozenness,
pickling and copying."""
from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from hypothesis import given, settings, strategies as st

from interpreter.errors import Location
from interpreter.lang import ast
from interpreter.lang.frozen import FrozenNode, frozen, hidden
from interpreter.lang.parse import parse_expression

NODE_CLASSES = [c for c in vars(ast).values()
                if isinstance(c, type) and issubclass(c, ast.Node) and c is not ast.Node]


def _twin(cls):
    """A frozen dataclass with `cls`'s fields, declared as dataclasses would declare them."""
    specs = []
    for name in cls.__match_args__:
        declared = vars(cls).get(name, dataclasses.MISSING)
        hidden_ones = {"notes", "pool"} & {name}
        if declared is dataclasses.MISSING:
            specs.append((name, object))
        else:
            specs.append((name, object, dataclasses.field(default=declared,
                                                          compare=not hidden_ones)))
    return dataclasses.make_dataclass(cls.__name__, specs, bases=(_TwinNode,), frozen=True)


@dataclasses.dataclass(frozen=True)
class _TwinNode:
    """The dataclass form ast.Node had."""
    loc: object = dataclasses.field(default=None, compare=False, repr=False, kw_only=True)


VALUES = st.one_of(st.integers(-3, 3), st.text("ab", max_size=2), st.none(),
                   st.tuples(st.integers(0, 2)), st.booleans())


@pytest.mark.parametrize("cls", NODE_CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_a_node_class_is_its_dataclass_twin(cls, data):
    twin = _twin(cls)
    names = cls.__match_args__
    required = [n for n in names if n not in vars(cls)]
    a = {n: data.draw(VALUES) for n in names
         if n in required or data.draw(st.booleans())}
    b = {n: data.draw(st.sampled_from([v, 1, "a"])) for n, v in a.items()}
    loc_a, loc_b = Location(line=1), Location(line=2)
    mine_a, mine_b = cls(**a, loc=loc_a), cls(**b, loc=loc_b)
    twin_a, twin_b = twin(**a, loc=loc_a), twin(**b, loc=loc_b)
    assert (mine_a == mine_b) == (twin_a == twin_b)
    assert (mine_a != mine_b) == (twin_a != twin_b)
    assert hash(mine_a) == hash(twin_a)
    assert repr(mine_a) == repr(twin_a)
    assert [getattr(mine_a, n) for n in names] == [getattr(twin_a, n) for n in names]
    assert mine_a.loc is loc_a
    assert list(vars(mine_a)) == list(vars(twin_a))   # the order ast.children_of walks
    positional = [a.get(n, getattr(twin_a, n)) for n in names]
    assert cls(*positional) == mine_a and twin(*positional) == twin_a
    with pytest.raises(dataclasses.FrozenInstanceError):
        mine_a.loc = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        del mine_a.loc


def test_arguments_are_checked_as_dataclasses_check_them():
    with pytest.raises(TypeError):
        ast.Num()
    with pytest.raises(TypeError):
        ast.Num(1, 2)
    with pytest.raises(TypeError):
        ast.Num(1, colour=2)
    with pytest.raises(TypeError):
        ast.Name("x", Location())          # loc is keyword-only
    assert ast.Num(1) != ast.Text(1) and ast.Num(1) != 1
    assert ast.Call("f").args == () and ast.Call.args == ()


def test_a_parsed_tree_pickles_copies_and_compares_by_its_fields():
    tree = parse_expression('let x = 2d6 + {a: 1}.a in [y for y in [1, x] if y > "b"]')
    again = parse_expression(str(tree))
    assert tree == again and hash(tree) == hash(again)
    for copied in (pickle.loads(pickle.dumps(tree)), copy.deepcopy(tree), copy.copy(tree)):
        assert copied == tree and copied.loc == tree.loc
    assert ast.Group((ast.Num(1),), notes=("x",)) == ast.Group((ast.Num(1),))


def test_a_default_may_not_come_before_a_required_field():
    with pytest.raises(TypeError):
        @frozen
        class Wrong(FrozenNode):
            first: int = hidden(0)
            second: int


def test_steps_are_frozen_records_compared_by_identity():
    from interpreter.lang import steps
    classes = [c for c in vars(steps).values()
               if isinstance(c, type) and issubclass(c, steps.Step) and c is not steps.Step]
    assert len(classes) == 11
    for cls in classes:
        names = cls.__match_args__
        required = [n for n in names if n not in vars(cls)]
        twin = dataclasses.make_dataclass(cls.__name__, [(n, object) if n in required else
                                                         (n, object, vars(cls)[n]) for n in names],
                                          frozen=True, eq=False)
        values = {n: (i, n) for i, n in enumerate(required)}
        mine, theirs = cls(**values), twin(**values)
        assert repr(mine) == repr(theirs) and list(vars(mine)) == list(vars(theirs))
        assert mine != cls(**values) and mine == mine and hash(mine) == object.__hash__(mine)
        assert cls(*values.values()).__dict__ == mine.__dict__
        with pytest.raises(dataclasses.FrozenInstanceError):
            mine.loc = None
        copied = pickle.loads(pickle.dumps(mine))
        assert copied.__dict__ == mine.__dict__ and type(copied) is cls
