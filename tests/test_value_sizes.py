"""The size a value is weighed at (expr/sizes.weigh, the value limits of issue #20):
the items and characters it shows when printed, lists and records inside it counted
with theirs, a shared one as often as it is held.  An oracle written plainly, against
the weighing the engine does at every list it makes."""
from __future__ import annotations

from hypothesis import given, strategies as st

from interpreter.expr.sizes import made, weigh


class Name(str):
    """A text of a class of its own (a subclass of str is weighed as a text)."""


def printed_size(value) -> int:
    items = list(value.values()) if isinstance(value, dict) else list(value)
    size = len(items)
    for item in items:
        if isinstance(item, str):
            size += len(item)
        elif isinstance(item, (list, tuple, dict)):
            size += printed_size(item)
    return size


leaves = st.one_of(st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False),
                   st.text(max_size=8), st.text(max_size=8).map(Name))
values = st.recursive(
    leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.tuples(inner, inner),
                            st.dictionaries(st.text(max_size=3), inner, max_size=4)),
    max_leaves=40)


@given(st.lists(values, max_size=8))
def test_a_list_weighs_what_it_shows_when_printed(value):
    assert weigh(value) == printed_size(value)
    assert made(value, None) is value


@given(st.lists(st.text(max_size=10), max_size=10))
def test_a_list_of_texts_weighs_its_items_and_their_characters(texts):
    assert weigh(texts) == len(texts) + sum(map(len, texts))


def test_a_list_held_twice_counts_twice():
    inner = ["ab", "cd"]
    assert weigh([inner, inner, Name("xyz")]) == 3 + 2 * (2 + 4) + 3


def test_a_record_of_texts_and_numbers_at_the_nesting_limit_is_refused():
    """A record weighed inline (no call of its own) still counts as one level: at the
    limit it is refused as a list would be, one level less passes."""
    import pytest
    from interpreter.expr.sizes import TooLarge
    from interpreter.limits import MAX_NESTING

    def nested(levels, leaf):
        value = leaf
        for _ in range(levels):
            value = [value]
        return value

    for leaf in ({"slot": "Legs", "size": 1}, {"a": 1}, {"slot": "Legs"}, ["x"]):
        assert weigh(nested(MAX_NESTING - 1, leaf)) == printed_size(nested(MAX_NESTING - 1, leaf))
        with pytest.raises(TooLarge, match=f"nested more than {MAX_NESTING} deep"):
            weigh(nested(MAX_NESTING, leaf))
