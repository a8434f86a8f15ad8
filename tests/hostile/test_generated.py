"""Rule files generated from the JSON Schema (hypothesis): whatever a careless or hostile
author writes, `validate` (and, for a file that passes, `run`, `run --odds`, `play` and
`simulate`) ends with exit 0, 1 or 2, never an internal error or a traceback, and within
its time bound.

Two generators.  One walks `schema/ruleset.schema.json` itself: objects get some of
their properties (required ones always, any of the others), strings come from a pool of
DSL fragments, names and hostile text (control characters, paths leaving the folder,
long and deep expressions), numbers from ordinary and extreme values (past the number
limit, `.inf`-like floats).  Such a file rarely validates, so the other writes files
of the schema's shape that mostly do: a kind, a status, procedures whose steps (lets,
rolls, loops, ifs, calls of themselves, assignments to units) come from a pool of
statements with the same hostile values in them, a turn and a scenario, so that the
commands that run rules are reached too (`test_the_generators_reach_every_command`
checks that they are).
"""
import json
import time
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter.cli.main import main

SCHEMA = json.loads((Path(__file__).parents[2] / "schema" / "ruleset.schema.json")
                    .read_text(encoding="utf-8"))
BOUND = 20   # seconds per generated file, every command together (the budgets bound each)

NAMES = ["a", "b", "unit", "target", "shooter", "hits", "to_hit", "t", "boom", "p", "x"]
DSL = ["d6", "2d6 + 1", "d20 >= 11", "x + 1", "unit.hits", "boom(1)", "p()", "t[d6]",
       "1/0", "true", "\"text\"", "[1, 2, 3]", "let r = d6", "r = r * r", "emit \"hi\"",
       "return 1", "x += 1", "apply(unit, \"s\", turns=-3)", "floor(x)", "pow(10, 64)",
       "[0] * 10000", "d10000 + d10000", "((((((((((1))))))))))", "1" + "0" * 200,
       "\x1b[2J", "destroy(unit)", "count(units)", "unit.a.b.c", "d6!", "4d6kh3"]
HOSTILE = ["../../../../etc/passwd", "/dev/zero", "a\x00b", "\x1b]0;title\x07", "\u202e",
           "x" * 5000, "=" + "+".join(["d6"] * 300)]
TEXT = st.sampled_from(NAMES + DSL + HOSTILE) | st.text(max_size=12)
NUMBER = st.sampled_from([0, 1, -1, 6, 20, 10_000, 10 ** 9, 10 ** 200, -(10 ** 200)]) | \
    st.integers(-50, 50) | st.sampled_from([0.5, 1e308, -0.0])


def _resolve(node: dict) -> dict:
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def instance(node: dict, depth: int = 0):
    """A strategy for values of a schema node (lenient: it may break the schema too)."""
    node = _resolve(node)
    choices = node.get("oneOf") or node.get("anyOf")
    if choices:
        return st.one_of([instance(c, depth + 1) for c in choices])
    if "enum" in node:
        return st.sampled_from(node["enum"]) | TEXT
    kind = node.get("type")
    if isinstance(kind, list):
        return st.one_of([instance({**node, "type": k}, depth) for k in kind])
    if depth > 6:
        return TEXT | NUMBER
    if kind == "object" or "properties" in node:
        props = node.get("properties", {})
        required = [k for k in node.get("required", []) if k in props]
        optional = [k for k in props if k not in required]   # any of them: a prefix
        # of the schema's order would never reach `procedures`, `turn` or `scenarios`
        extra = node.get("additionalProperties")
        fixed = st.fixed_dictionaries({k: instance(props[k], depth + 1) for k in required},
                                      optional={k: instance(props[k], depth + 1)
                                                for k in optional})
        if isinstance(extra, dict):
            named = st.dictionaries(st.sampled_from(NAMES), instance(extra, depth + 1),
                                    max_size=3)
            return st.builds(lambda a, b: {**b, **a}, fixed, named)
        return fixed
    if kind == "array":
        items = node.get("items", {})
        return st.lists(instance(items, depth + 1) if isinstance(items, dict) else TEXT,
                        max_size=3)
    if kind in ("integer", "number"):
        return NUMBER
    if kind == "boolean":
        return st.booleans()
    if kind == "string":
        return TEXT
    return TEXT | NUMBER | st.booleans()


SCHEMA_DOCUMENTS = st.builds(lambda doc, id_: {**doc, "ruleset": id_, "title": "generated"},
                             instance(SCHEMA), st.sampled_from(["gen", "Bad Id", "g2"]))

# The plausible files: statements and values, hostile ones among them.
VALUES = st.sampled_from(["d6", "d20", "2d6 + 1", "r + d6", "r * r", "n", "n - 1", "r / 3",
                          "1/0", "floor(r)", "pow(10, 64)", "[d6, d6]", "d10000",
                          "1" + "0" * 200, "q(n - 1, unit)", "q(n - 1, unit) + q(n - 1, unit)", "unit.hits",
                          "count(units)", "text(r)", '"x\x1b[2J"', "r > 3", "d6!"])
SIMPLE = st.one_of(
    st.builds("let r = {}".format, VALUES), st.builds("r += {}".format, VALUES),
    st.builds("r = {}".format, VALUES), st.builds("emit {}".format, VALUES),
    st.builds("return {}".format, VALUES), st.builds("unit.hits -= {}".format, VALUES),
    st.sampled_from(['apply(unit, "s", turns=unit.hits)', "destroy(unit)", "q(n - 1, unit)",
                     "let r = q(n, unit)", "return q(n + 1, unit)"]))


def _compound(body):
    """An if, a for or a repeat around statements of `body`."""
    counts = st.sampled_from(["3", "n", "10000", "range(10000)", "[1, 2]", "d6"])
    return st.one_of(
        st.builds(lambda c, then, other: {"if": c, "then": then, "else": other},
                  st.sampled_from(["r > 3", "n <= 0", "d6 == 6", "r"]), body, body),
        st.builds(lambda items, do: {"for": "i", "in": items, "do": do}, counts, body),
        st.builds(lambda do, until, most: {"repeat": do, "until": until, "max": most},
                  body, st.sampled_from(["r == 6", "false", "d6 > 4"]),
                  st.sampled_from([1, 2, 10, 10000, 10000, 10 ** 9])))


STATEMENTS = st.recursive(SIMPLE, lambda inner: _compound(st.lists(inner, min_size=1,
                                                                    max_size=3)),
                          max_leaves=8)
BLOCK = st.lists(STATEMENTS, min_size=1, max_size=5).map(lambda steps: ["let r = 1", *steps])


def plausible(p_steps, q_steps, phase_steps, depth, hits, turns, count, budgets):
    doc = {
        "ruleset": "gen", "title": "generated",
        "kinds": {"f": {"stats": {"x": 1}, "state": {"hits": hits}}},
        "statuses": {"s": {"description": "generated"}},
        "procedures": {
            "p": {"params": {"unit": {"type": "unit", "kind": "f"}},
                  "steps": [f"let n = {depth}", *p_steps]},
            "q": {"params": {"n": "integer", "unit": {"type": "unit", "kind": "f"}},
                  "steps": [{"if": "n <= 0", "then": ["return 0"]}, *q_steps]},
        },
        "turn": {"phases": [{"name": "go", "each": "unit",
                             "steps": ["let n = 2", *phase_steps]}], "max_turns": turns},
        "scenarios": {"default": {"sides": {
            "a": {"policy": "first", "units": [{"kind": "f", "name": "A", "count": count}]},
            "b": {"policy": "first", "units": [{"kind": "f", "name": "B"}]}}}},
    }
    if budgets:
        doc["budgets"] = budgets
    return doc


PLAUSIBLE = st.builds(
    plausible, BLOCK, BLOCK, BLOCK, st.sampled_from([0, 3, 10, 49, 60]), NUMBER,
    st.sampled_from([1, 3, 100, 10 ** 9, 0]), st.sampled_from([1, 2, 10 ** 8]),
    st.sampled_from([None, {"steps": 1000}, {"forks": 1000}, {"forks": 10 ** 9},
                     {"turns": 5}]))

# commands run on a file that validates
RUNS = [["run", "{path}", "p", "--seed", "1"], ["run", "{path}", "p", "--odds"],
        ["play", "{path}", "--seed", "1"], ["simulate", "{path}", "--runs", "2", "--seed", "1"]]
REACHED: dict = {}   # (command, exit code) -> how many files got there, in this session

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


@SETTINGS
@given(document=SCHEMA_DOCUMENTS)
def test_any_rule_file_ends_in_exit_0_1_or_2_without_an_internal_error(tmp_path_factory,
                                                                      capsys, document):
    _check(tmp_path_factory, capsys, document)


@SETTINGS
@given(document=PLAUSIBLE)
def test_any_plausible_rule_file_ends_in_exit_0_1_or_2_without_an_internal_error(
        tmp_path_factory, capsys, document):
    _check(tmp_path_factory, capsys, document)


def _check(tmp_path_factory, capsys, document):
    folder = tmp_path_factory.mktemp("gen")
    path = folder / "gen.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    start = time.process_time()
    if _run(capsys, ["validate", path]) == 0:
        procedures = document.get("procedures") or {}
        game = bool(document.get("scenarios") and document.get("turn"))
        for argv in RUNS:
            if argv[0] == "run" and "p" not in procedures or argv[0] != "run" and not game:
                continue
            _run(capsys, [str(path) if a == "{path}" else a for a in argv])
    assert time.process_time() - start < BOUND


def test_the_generators_reach_every_command():
    """The property tests above are not vacuous: of their files, some validate and some
    do not, and each command that runs rules was reached and ended cleanly both ways
    (the tallies of this session; run alone, the property tests run first)."""
    if not REACHED:
        import pytest
        pytest.skip("the property tests did not run in this session")
    for command in ("validate", "run", "run --odds", "play", "simulate"):
        assert REACHED.get((command, 0)), (command, REACHED)
    assert REACHED.get(("validate", 1)) and REACHED.get(("run --odds", 1)), REACHED


def _run(capsys, argv) -> int:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert code in (0, 1, 2), (argv, captured.err)
    assert "internal error" not in captured.err and "Traceback" not in captured.err, \
        (argv, captured.err)
    command = argv[0] + (" --odds" if "--odds" in argv else "")
    REACHED[command, code] = REACHED.get((command, code), 0) + 1
    return code
