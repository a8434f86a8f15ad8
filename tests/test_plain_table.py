"""A table written as text (render/long_table.plain_table) is what rich's Table prints to
a file or a pipe, byte for byte; and a distribution printed on the plain console
(`run --odds`, `odds` to a pipe) is what the command line's rich console prints."""
import io
import os
import sys
from contextlib import contextmanager
from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st
from rich.table import Table
from rich.text import Text

from interpreter.dice.distribution import Distribution
from interpreter.render.console import PlainConsole, rich_console
from interpreter.render.long_table import plain_table
from interpreter.render.terminal import print_distribution

# the tables' own characters, and ones rich measures or reads otherwise (wide, combining,
# markup, emoji codes, tabs, control characters)
ALPHABET = st.sampled_from(list("ab Z09_-.%/█≈≥") + ["日", "e\u0301", "[", "]", ":", "\t",
                                                    "\x1b", "[bold]", ":smile:"])
CELLS = st.lists(ALPHABET, max_size=8).map("".join)


@contextmanager
def _columns(value):
    """COLUMNS set to `value` (unset for None) while the block runs."""
    saved = os.environ.pop("COLUMNS", None)
    if value is not None:
        os.environ["COLUMNS"] = value
    try:
        yield
    finally:
        os.environ.pop("COLUMNS", None)
        if saved is not None:
            os.environ["COLUMNS"] = saved


def _written(make, objects, **options) -> str:
    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        make().print(*objects, **options)
    finally:
        sys.stdout = saved
    return out.getvalue()


@st.composite
def tables(draw):
    n = draw(st.integers(1, 5))
    columns = [(draw(CELLS), draw(st.sampled_from(["left", "right"]))) for _ in range(n)]
    rows = draw(st.lists(st.tuples(*[CELLS] * n), max_size=6))
    return columns, rows


@settings(max_examples=200, deadline=None)
@given(tables(), st.integers(8, 90))
@example(([("a ", "right")], []), 8)                         # a header's trailing space
@example(([("x", "right"), (" a ", "right")], [("q", "b  "), ("q", "cc")]), 30)  # a cell's
@example(([("a b ", "left")], [("b  ",)]), 30)                # kept when left-justified
def test_a_plain_table_is_richs_table(table, width):
    columns, rows = table
    text = plain_table(columns, rows, width)
    rich = Table(show_edge=False)
    for header, justify in columns:
        rich.add_column(header, justify=justify, no_wrap=True, min_width=1)
    for row in rows:
        rich.add_row(*(Text(cell) for cell in row))
    if text is not None:
        with _columns(str(width)):
            assert text == _written(rich_console, [rich])


@pytest.mark.parametrize("columns", [None, "0", "7", "100", "abc", ""])
def test_the_plain_width_is_richs(monkeypatch, columns):
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert PlainConsole().width == rich_console().width


WEIGHTS = st.dictionaries(st.one_of(st.integers(-50, 10 ** 6), st.sampled_from(
    ["miss", "crew shaken", "日本", "a: b", "[x]", "tab\there", True, False])),
    st.integers(1, 10 ** 9), min_size=1, max_size=8)


@settings(max_examples=80, deadline=None)
@given(WEIGHTS, st.sampled_from([None, "12", "40", "100"]), st.booleans())
def test_a_distribution_prints_on_the_plain_console_as_on_richs(weights, columns, ordered):
    with _columns(columns):
        _same_distribution(weights, ordered)


def _same_distribution(weights, ordered):
    dist = Distribution.from_weights(weights)
    order = [str(v) for v in reversed(list(weights))] if ordered else None
    assert _written(PlainConsole, [Text("x")]) == "x\n"
    plain = io.StringIO()
    saved, sys.stdout = sys.stdout, plain
    try:
        print_distribution(PlainConsole(), "d", dist, order)
        plain_text = plain.getvalue()
        rich = io.StringIO()
        sys.stdout = rich
        print_distribution(rich_console(), "d", dist, order)
    finally:
        sys.stdout = saved
    assert plain_text == rich.getvalue()


def test_a_fraction_distribution_and_a_long_one_print_alike():
    for dist in (Distribution.from_weights({Fraction(1, 3): 2, Fraction(5, 2): 1}),
                 Distribution.from_weights({v: v % 7 + 1 for v in range(450)})):
        outputs = []
        for make in (PlainConsole, rich_console):
            out = io.StringIO()
            saved, sys.stdout = sys.stdout, out
            try:
                print_distribution(make(), "d", dist)
            finally:
                sys.stdout = saved
            outputs.append(out.getvalue())
        assert outputs[0] == outputs[1]
