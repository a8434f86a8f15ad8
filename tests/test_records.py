"""`interpreter.records` means what `dataclasses` means for the forms the package uses:
each record class here is held against its twin made by `@dataclass` with the same
arguments -- construction, defaults, errors, repr, equality, hashing, frozen fields,
slots, `replace`, pickling and dataclasses' own functions."""
import dataclasses
import os
import pickle
import subprocess
import sys

import pytest

from interpreter import records
from interpreter.records import field, record


def pair(frozen=False, slots=False):
    """The same class made twice: (record, dataclass)."""
    made = []
    for decorate, make_field in ((record, field), (dataclasses.dataclass, dataclasses.field)):
        class Shot:
            """A shot: where it went."""
            target: str
            hits: int = 0
            notes: list = make_field(default_factory=list)
            seen: int = make_field(default=3, compare=False, repr=False)
            kind: str = make_field(default="shot", init=False)

            def double(self):
                return self.hits * 2
        made.append(decorate(frozen=frozen, slots=slots)(Shot))
    return made


KINDS = [dict(), dict(frozen=True), dict(slots=True)]


@pytest.mark.parametrize("kind", KINDS)
def test_construction_defaults_and_repr_match(kind):
    ours, theirs = pair(**kind)
    for args, kwargs in [(("tank",), {}), (("tank", 2), {}), ((), {"target": "x", "hits": 4}),
                         (("t", 1, [1]), {"seen": 9})]:
        a, b = ours(*args, **kwargs), theirs(*args, **kwargs)
        assert repr(a) == repr(b)
        assert [getattr(a, n) for n in ("target", "hits", "notes", "seen", "kind")] == \
            [getattr(b, n) for n in ("target", "hits", "notes", "seen", "kind")]
        assert a.double() == b.double()
    assert ours("a").notes is not ours("a").notes   # a fresh list each time
    assert ours.__match_args__ == theirs.__match_args__


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("args,kwargs", [((), {}), (("a",), {"kind": "x"}),
                                         (("a",), {"nope": 1}), (("a", 1, [], 2, 3), {})])
def test_the_same_calls_are_refused(kind, args, kwargs):
    ours, theirs = pair(**kind)
    with pytest.raises(TypeError):
        theirs(*args, **kwargs)
    with pytest.raises(TypeError):
        ours(*args, **kwargs)


@pytest.mark.parametrize("kind", KINDS)
def test_equality_and_hashing_match(kind):
    ours, theirs = pair(**kind)
    cases = [(("a", 1), ("a", 1)), (("a", 1), ("a", 2)), (("a", 1, [], 3), ("a", 1, [], 4))]
    for left, right in cases:
        assert (ours(*left) == ours(*right)) == (theirs(*left) == theirs(*right))
        assert (ours(*left) != ours(*right)) == (theirs(*left) != theirs(*right))
    assert (ours("a") == theirs("a")) is False   # another class
    assert (ours.__hash__ is None) == (theirs.__hash__ is None)
    if kind.get("frozen"):
        hashed = pair(frozen=True)
        made = [cls("a", 1, (1, 2)) for cls in hashed]
        made[0].notes, made[1].notes   # tuples: hashable
        assert hash(ours("a", 1, ())) == hash(ours("a", 1, (), 7))   # `seen` not compared


def test_frozen_fields_refuse_change_as_dataclasses_do():
    ours, theirs = pair(frozen=True)
    for cls in (ours, theirs):
        shot = cls("a")
        with pytest.raises(dataclasses.FrozenInstanceError):
            shot.hits = 3
        with pytest.raises(dataclasses.FrozenInstanceError):
            del shot.hits
        with pytest.raises(dataclasses.FrozenInstanceError):
            shot.other = 1


def test_slots_make_a_class_without_a_dict():
    ours, theirs = pair(slots=True)
    assert ours.__slots__ == theirs.__slots__
    for cls in (ours, theirs):
        with pytest.raises(AttributeError):
            cls("a").other = 1
    assert not hasattr(ours, "hits") or not isinstance(vars(ours).get("hits"), int)


@pytest.mark.parametrize("kind", KINDS)
def test_replace_and_dataclasses_own_functions(kind):
    ours, theirs = pair(**kind)
    a, b = ours("a", 1, [2]), theirs("a", 1, [2])
    assert repr(records.replace(a, hits=5)) == repr(dataclasses.replace(b, hits=5))
    assert repr(dataclasses.replace(a, hits=5)) == repr(dataclasses.replace(b, hits=5))
    with pytest.raises(ValueError):
        records.replace(a, kind="x")
    assert dataclasses.is_dataclass(a)
    assert [f.name for f in dataclasses.fields(a)] == [f.name for f in dataclasses.fields(b)]
    assert dataclasses.asdict(a) == dataclasses.asdict(b)


def test_a_record_pickles():
    ours, _ = pair()
    globals()["Shot"] = ours   # pickle finds a class by its module and name
    ours.__qualname__ = "Shot"
    try:
        shot = ours("a", 2, [1])
        assert pickle.loads(pickle.dumps(shot)) == shot
    finally:
        del globals()["Shot"]


def test_a_method_of_the_class_is_kept():
    @record
    class Named:
        """A name shown its own way."""
        name: str

        def __repr__(self):
            return f"<{self.name}>"
    assert repr(Named("x")) == "<x>"


def test_a_default_before_a_required_field_is_refused():
    with pytest.raises(TypeError):
        @record
        class Broken:
            """No."""
            a: int = 0
            b: int


def test_play_does_not_import_dataclasses(tmp_path):
    """The point of records: a command's start loads neither dataclasses nor inspect
    (once the model is kept: building it loads lark, which imports dataclasses)."""
    code = ("import sys; from interpreter.cli.main import main; "
            "sys.argv = ['rulecraft', 'play', 'tanks', '--seed', '1', '--quiet']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules))")
    env = {**os.environ, "RULECRAFT_CACHE_DIR": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env=env).stdout.strip().splitlines()[-1] for _ in "ab"]
    assert runs[-1] == "[]"


def test_comparisons_are_compiled_at_the_first_and_mean_the_same():
    """`__eq__` and `__hash__` are compiled at a class's first comparison (a start need
    not compile them): before and after it, the same answers as dataclasses'."""
    ours, theirs = pair(frozen=True)
    assert ours.__dict__["__hash__"] is records._first_hash
    assert hash(ours("a", 1, ())) == hash(theirs("a", 1, ()))   # the first: compiled now
    assert ours.__dict__["__hash__"] is not records._first_hash
    assert ours.__dict__["__eq__"] is not records._first_eq
    assert ours("a", 1, ()) == ours("a", 1, (), 5) and ours("a", 1, ()) != ours("b", 1, ())
    assert hash(ours("a", 1, ())) == hash(theirs("a", 1, ()))
