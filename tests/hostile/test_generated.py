"""Rule files generated from the JSON Schema (hypothesis): whatever a careless or hostile
author writes, `validate` (and, for a file that passes, `run` and `play`) ends with exit
0, 1 or 2, never an internal error or a traceback, and within its time bound.

The generator walks `schema/ruleset.schema.json` itself: objects get some of their
properties (required ones always), strings come from a pool of DSL fragments, names and
hostile text (control characters, paths leaving the folder, long and deep expressions),
numbers from ordinary and extreme values (past the number limit, `.inf`-like floats).
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
        optional = [k for k in props if k not in required]
        extra = node.get("additionalProperties")
        fixed = st.fixed_dictionaries({k: instance(props[k], depth + 1) for k in required},
                                      optional={k: instance(props[k], depth + 1)
                                                for k in optional[:12]})
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


DOCUMENTS = st.builds(lambda doc, id_: {**doc, "ruleset": id_, "title": "generated"},
                      instance(SCHEMA), st.sampled_from(["gen", "Bad Id", "g2"]))


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(document=DOCUMENTS)
def test_any_rule_file_ends_in_exit_0_1_or_2_without_an_internal_error(tmp_path_factory,
                                                                      capsys, document):
    folder = tmp_path_factory.mktemp("gen")
    path = folder / "gen.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    start = time.process_time()
    commands = [["validate", path]]
    code = _run(capsys, commands[0])
    if code == 0:
        for name in list(document.get("procedures") or {})[:2]:
            _run(capsys, ["run", path, name, "--seed", "1"])
        if document.get("scenarios") and document.get("turn"):
            _run(capsys, ["play", path, "--seed", "1"])
    assert time.process_time() - start < BOUND


def _run(capsys, argv) -> int:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert code in (0, 1, 2), (argv, captured.err)
    assert "internal error" not in captured.err and "Traceback" not in captured.err, \
        (argv, captured.err)
    return code
