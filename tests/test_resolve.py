"""The resolver (interpreter/lang/resolve.py): which names each step reads and writes,
which locals are live after it, and which reads can happen before a binding."""
import pytest

from interpreter.lang.resolve import free_names, resolve
from interpreter.lang.parse import parse_expression
from interpreter.lang.steps import all_steps, compile_steps
from interpreter.source.load import load_text


def _steps(yaml_text: str):
    return compile_steps(load_text("steps:\n" + yaml_text)["steps"])


@pytest.mark.parametrize("expr, names", [
    ("a + b", {"a", "b"}),
    ("let x = d6 in x + y", {"y"}),
    ("[u.hits for u in units if u.hits > limit]", {"units", "limit"}),
    ("hurt(target, amount=n)", {"target", "n"}),
    ("table[d6].damage", {"table"}),
])
def test_free_names_of_an_expression(expr, names):
    assert free_names(parse_expression(expr)) == names


LADDER = """
  - let hit = d6
  - let wound = d6
  - let save = d6
  - if: hit >= 4 and wound >= 4
    then:
      - return save < 3
  - return false
"""


@pytest.mark.parametrize("steps, params, expected", [
    # each row: the live locals after each top-level step, in order
    (LADDER, (), [{"hit"}, {"hit", "wound"}, {"hit", "wound", "save"}, set(), set()]),
    ("""
  - let a = d6
  - let b = a + 1
  - return b
""", (), [{"a"}, {"b"}, set()]),
    ("""
  - let total = 0
  - for: u
    in: units
    do:
      - total += u.hits
  - return total
""", (), [{"total"}, {"total"}, set()]),
    ("""
  - let r = 0
  - repeat:
      - r = d6
    until: r >= 5
    max: 3
  - return n
""", ("n",), [{"n"}, {"n"}, set()]),
])
def test_live_names_after_each_step(steps, params, expected):
    steps = _steps(steps)
    resolution = resolve(steps, params)
    assert [set(resolution.live_after(s)) for s in steps] == expected


def test_dead_rolls_are_not_live():
    """A named roll never read again (the usual rulebook style) is not live after it:
    exact enumeration may forget it when merging branches."""
    steps = _steps("""
  - let hit = d6
  - let keep = hit >= 4
  - let wound = d6
  - return keep and wound >= 4
""")
    resolution = resolve(steps)
    assert set(resolution.live_after(steps[1])) == {"keep"}
    assert set(resolution.live_after(steps[2])) == {"keep", "wound"}


@pytest.mark.parametrize("steps, unbound", [
    ("""
  - let r = d6
  - if: r > 3
    then:
      - let late = r
  - return late
""", [("late", False)]),
    ("""
  - return never
  - let never = 1
""", [("never", True)]),
    ("""
  - if: d6 > 3
    then:
      - let x = 1
    else:
      - let x = 2
  - return x
""", []),
    ("""
  - if: d6 > 3
    then:
      - return 0
  - let y = 1
  - return y
""", []),
    ("""
  - repeat:
      - let r = d6
    until: r >= 5
  - return r
""", []),
    ("""
  - for: u
    in: units
    do:
      - let last = u
  - return last
""", [("last", False)]),
    ("""
  - let x = 0
  - x += 1
  - return x
""", []),
])
def test_reads_before_a_binding(steps, unbound):
    found = resolve(_steps(steps)).unbound_reads(outside={"units"})
    assert [(u.name, u.surely) for u in found] == unbound


def test_a_run_call_reads_the_cell_names():
    steps = _steps("""
  - let row = hits[d6]
  - let bonus = 2
  - run(row.effect)
  - return 0
""")
    resolution = resolve(steps, cell_names={"bonus"})
    assert "bonus" in resolution.live_after(steps[1])
    assert "bonus" not in resolve(steps, cell_names=set()).live_after(steps[1])


def test_reads_and_writes_cover_nested_blocks():
    steps = _steps("""
  - if: a > 1
    then:
      - let b = c
    else:
      - d = 2
""")
    facts = resolve(steps, ("a",)).facts(steps[0])
    assert facts.reads == {"a", "c"}
    assert facts.writes == {"b", "d"}
    assert len(list(all_steps(steps))) == 3
