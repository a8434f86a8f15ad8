"""The loader: located nodes, positions inside strings, refusals, includes.

Every refusal has a small broken file in tests/broken/load/ and its expected
(code, line, column) in the tables below, so a change in wording never hides a change
in *where* an error points.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter.errors import LoadError
from interpreter.source.nodes import MapNode, ScalarNode, SeqNode, format_path
from interpreter.source.load import (MAX_DEPTH, MAX_FILE_BYTES, MAX_INCLUDES, load_file,
                                     load_ruleset_document, load_text)

BROKEN = Path(__file__).parent / "broken" / "load"

RULES = """\
ruleset: demo
title: "Demo rules"
tables:
  to_hit:
    die: D6
    rows:
      - {roll: 1, hit: false}
      - roll: 2-3
        hit: "(D6 + rammer.sc) x rammer.velocity"
      - roll: 4
        hit: 'it''s x'
        formula: |
          first line
            second x
        stripped: |-
          only x
        plain: a b
          c x
        folded: >
          aa bb
          cc x
        escaped: "tab\\tthen x"
on: yes
"Heavy Bolter": 3
defaults: &defaults {armour: 10, speed: 2}
kinds:
  tank:
    <<: *defaults
    speed: 4
  copy: *defaults
"""


@pytest.fixture(scope="module")
def rules() -> MapNode:
    return load_text(RULES, file="demo.yaml")


def _line_col(text: str, needle: str, occurrence: int = 0) -> tuple[int, int]:
    """1-based line and column of `needle` in `text` (the n-th occurrence)."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


# --------------------------------------------------------------------------- positions

@pytest.mark.parametrize("path, needle, occurrence, path_text", [
    (("ruleset",), "demo", 0, "ruleset"),
    (("title",), '"Demo rules"', 0, "title"),
    (("tables",), "to_hit", 0, "tables"),
    (("tables", "to_hit", "die"), "D6", 0, "tables.to_hit.die"),
    (("tables", "to_hit", "rows"), "- {roll", 0, "tables.to_hit.rows"),
    (("tables", "to_hit", "rows", 0), "{roll", 0, "tables.to_hit.rows[0]"),
    (("tables", "to_hit", "rows", 0, "hit"), "false", 0, "tables.to_hit.rows[0].hit"),
    (("tables", "to_hit", "rows", 1), "roll: 2-3", 0, "tables.to_hit.rows[1]"),
    (("tables", "to_hit", "rows", 1, "roll"), "2-3", 0, "tables.to_hit.rows[1].roll"),
    (("tables", "to_hit", "rows", 2, "formula"), "|", 0, "tables.to_hit.rows[2].formula"),
    (("Heavy Bolter",), "3\n", 1, '["Heavy Bolter"]'),
    (("kinds", "tank", "speed"), "4\n", 1, "kinds.tank.speed"),
])
def test_value_positions(rules, path, needle, occurrence, path_text):
    location = rules.find(path).location
    assert (location.line, location.column) == _line_col(RULES, needle, occurrence)
    assert location.file == "demo.yaml"
    assert location.path == path_text
    assert location.source == RULES.splitlines()[location.line - 1]


@pytest.mark.parametrize("mapping_path, key, needle, occurrence", [
    ((), "ruleset", "ruleset", 0),
    ((), "tables", "tables", 0),
    (("tables", "to_hit"), "rows", "rows", 0),
    (("tables", "to_hit", "rows", 1), "hit", "hit", 2),
    ((), "Heavy Bolter", '"Heavy Bolter"', 0),
])
def test_key_positions(rules, mapping_path, key, needle, occurrence):
    mapping = rules.find(mapping_path)
    assert isinstance(mapping, MapNode)
    location = mapping.key_location(key)
    assert (location.line, location.column) == _line_col(RULES, needle, occurrence)


def test_sequence_items_are_located_in_order(rules):
    rows = rules.find(("tables", "to_hit", "rows"))
    assert isinstance(rows, SeqNode)
    lines = [item.location.line for item in rows]
    assert lines == [_line_col(RULES, "{roll")[0], _line_col(RULES, "roll: 2-3")[0],
                     _line_col(RULES, "roll: 4")[0]]


@pytest.mark.parametrize("path, expected_path", [
    (("tables", "to_hit", "rows", 2, "hit"), ("tables", "to_hit", "rows", 2, "hit")),
    (("tables", "to_hit", "rows", 2, "missing"), ("tables", "to_hit", "rows", 2)),
    (("tables", "to_hit", "rows", 9, "hit"), ("tables", "to_hit", "rows")),
    (("tables", "to_hit", "die", "below_a_scalar"), ("tables", "to_hit", "die")),
    (("nowhere",), ()),
])
def test_find_falls_back_to_nearest_existing_parent(rules, path, expected_path):
    assert rules.find(path).path == expected_path
    assert rules.location_of(path) == rules.find(expected_path).location


def test_location_of_key_points_at_the_key(rules):
    location = rules.location_of(("tables", "to_hit", "die"), key=True)
    assert (location.line, location.column) == _line_col(RULES, "die")


@pytest.mark.parametrize("path, expected", [
    (("tables", "to_hit", "rows", 2), "tables.to_hit.rows[2]"),
    (("tables", "hits", "1-2"), 'tables.hits["1-2"]'),
    ((), ""),
])
def test_format_path(path, expected):
    assert format_path(path) == expected


# --------------------------------------------------------------------------- values

@pytest.mark.parametrize("text, expected", [
    ("a: yes", True),
    ("a: 0x10", 16),
    ("a: 1_000", 1000),
    ("a: 1.5e+3", 1500.0),
    ("a: 1.5e3", "1.5e3"),  # YAML 1.1 wants the sign
    ("a: ~", None),
    ("a:", None),
    ("a: '12'", "12"),
    ("a: !!str 12", "12"),
    ("a: !!int '7'", 7),
    ("a: 2001-12-14", "2001-12-14"),  # timestamps stay text
    ("a: <<", "<<"),
])
def test_scalar_values_follow_yaml_safe_loading(text, expected):
    assert load_text(text)["a"].value == expected


@pytest.mark.parametrize("text, keys", [
    ("on: 1\noff: 2", ["on", "off"]),          # not True/False
    ("1: miss\n2-3: hit", ["1", "2-3"]),          # die-roll keys stay text
    ("1:30: x", ["1:30"]),                        # not 90
])
def test_keys_are_their_text(text, keys):
    assert list(load_text(text)) == keys


def test_to_plain_round_trips_through_yaml(rules):
    plain = rules.to_plain()
    reference = yaml.safe_load(RULES)
    reference["on"] = reference.pop(True)  # our keys are text, YAML 1.1 says True
    assert plain == reference
    assert json.loads(json.dumps(plain)) == plain


def test_merge_keys_merge_with_explicit_keys_winning(rules):
    tank = rules["kinds"]["tank"]
    assert tank.to_plain() == {"armour": 10, "speed": 4}
    assert list(tank) == ["armour", "speed"]
    assert tank["armour"].location.path == "kinds.tank.armour"


def test_alias_copy_carries_the_path_of_its_use(rules):
    copy = rules["kinds"]["copy"]
    assert copy.to_plain() == {"armour": 10, "speed": 2}
    assert copy.location.path == "kinds.copy"
    assert (copy.location.line, copy.location.column) == _line_col(RULES, "*defaults", 1)
    assert copy["speed"].location.path == "kinds.copy.speed"
    assert copy["speed"].location.line == _line_col(RULES, "&defaults")[0]


# --------------------------------------------------------------------------- location_at

@pytest.mark.parametrize("key, needle, occurrence", [
    ("hit", "x rammer", 0),          # double-quoted, one line
    ("plain", "c x", 0),             # plain over two lines
    ("formula", "second x", 0),      # literal block
    ("stripped", "only x", 0),       # literal block, strip chomping
    ("folded", "cc x", 0),           # folded block
    ("escaped", "then x", 0),        # double-quoted with an escape before
])
def test_location_at_points_at_the_character(rules, key, needle, occurrence):
    row = 1 if key == "hit" else 2
    node = rules.find(("tables", "to_hit", "rows", row, key))
    assert isinstance(node, ScalarNode)
    location = node.location_at(node.text.index("x"))
    line, column = _line_col(RULES, needle, occurrence)
    assert (location.line, location.column) == (line, column + needle.index("x"))
    assert location.source[location.column - 1] == "x"


def test_location_at_single_quoted_with_doubled_quote(rules):
    node = rules.find(("tables", "to_hit", "rows", 2, "hit"))
    assert node.text == "it's x"
    x = node.location_at(node.text.index("x"))
    quote = node.location_at(node.text.index("'"))
    assert x.source[x.column - 1] == "x"
    assert x.source[quote.column - 1:quote.column + 1] == "''"


@pytest.mark.parametrize("text, offset, line, column", [
    ("a: hello world", 6, 1, 10),
    ("a: 'hello'", 0, 1, 5),
    ("a: \"\\u00e9t\\u00e9 x\"", 4, 1, 19),
    ("a: |2\n    indented\n", 0, 2, 3),             # explicit indentation indicator
    ("a: |\n  one\n\n  three\n", 5, 4, 3),          # blank line inside a block
    ("a: &anchor plain x", 6, 1, 18),               # anchor before the text
    ("a: hello", 99, 1, 9),                          # past the end: clamped to the end
])
def test_location_at_cases(text, offset, line, column):
    location = load_text(text)["a"].location_at(offset)
    assert (location.line, location.column) == (line, column)


_SAFE_CHARS = st.characters(min_codepoint=0x20, max_codepoint=0x7e)


@settings(max_examples=150, deadline=None)
@given(st.text(_SAFE_CHARS, min_size=1, max_size=30), st.sampled_from(["'", '"', "|"]))
def test_location_at_agrees_with_the_source_for_any_string(value, style):
    """For every character of a dumped string, the location shows that character."""
    if style == "|" and (value != value.strip() or not value.strip()):
        return
    document = yaml.safe_dump({"a": value}, default_style=style, width=10_000)
    document = document.replace("? |-\n  a\n:", "a:").replace('"a":', "a:").replace("'a':", "a:")
    node = load_text(document)["a"]
    assert node.text == value
    lines = document.splitlines()
    for offset, char in enumerate(value):
        location = node.location_at(offset)
        source = lines[location.line - 1]
        shown = source[location.column - 1]
        assert shown == char or shown in "\\'", (document, offset)


# --------------------------------------------------------------------------- refusals

@pytest.mark.parametrize("name, code, line, column", [
    ("tag_python_object.yaml", "load-tag", 3, 10),
    ("tag_custom.yaml", "load-tag", 3, 11),
    ("tag_binary.yaml", "load-tag", 2, 7),
    ("tag_bad_int.yaml", "load-tag", 2, 9),
    ("duplicate_key.yaml", "load-duplicate-key", 7, 3),
    ("duplicate_key_numeric.yaml", "load-duplicate-key", 5, 5),
    ("billion_laughs.yaml", "load-too-large", 8, 15),
    ("too_deep_flow.yaml", "load-too-deep", 2, 6 + MAX_DEPTH),
    ("too_deep_block.yaml", "load-too-deep", MAX_DEPTH + 2, 2 * MAX_DEPTH + 1),
    ("syntax_error.yaml", "load-syntax", 4, 9),
    ("syntax_bad_indent.yaml", "load-syntax", 3, 8),
    ("syntax_unquoted_step.yaml", "load-syntax", 7, 32),   # a step's ': ', see below
    ("empty.yaml", "load-not-mapping", 1, 1),
    ("only_comments.yaml", "load-not-mapping", 1, 1),
    ("top_level_list.yaml", "load-not-mapping", 1, 1),
    ("top_level_scalar.yaml", "load-not-mapping", 1, 1),
    ("multi_document.yaml", "load-multi-document", 2, 1),
    ("bad_encoding.yaml", "load-encoding", 2, 11),
    ("control_character.yaml", "load-encoding", 2, 11),
    ("key_is_mapping.yaml", "load-bad-key", 3, 5),
    ("key_is_empty.yaml", "load-bad-key", 2, 12),
    ("merge_not_mapping.yaml", "load-merge", 5, 9),
    ("alias_undefined.yaml", "load-syntax", 3, 9),
    ("alias_recursive.yaml", "load-syntax", 3, 9),
])
def test_broken_file_is_refused_at_its_place(name, code, line, column):
    path = BROKEN / name
    with pytest.raises(LoadError) as caught:
        load_file(path)
    error = caught.value
    assert (error.code, error.location.line, error.location.column) == (code, line, column)
    assert error.location.file == str(path)
    assert "Traceback" not in str(error)


def test_duplicate_key_names_the_first_line():
    with pytest.raises(LoadError) as caught:
        load_file(BROKEN / "duplicate_key.yaml")
    assert "line 3" in caught.value.message


def test_python_tag_is_never_executed(tmp_path):
    marker = tmp_path / "pwned"
    text = f"a: !!python/object/apply:os.system ['touch {marker}']\n"
    with pytest.raises(LoadError) as caught:
        load_text(text)
    assert caught.value.code == "load-tag"
    assert not marker.exists()


def test_billion_laughs_is_refused_quickly():
    started = time.perf_counter()
    with pytest.raises(LoadError) as caught:
        load_file(BROKEN / "billion_laughs.yaml")
    assert caught.value.code == "load-too-large"
    assert time.perf_counter() - started < 5  # generous sanity bound; really ~ms


def test_ten_thousand_brackets_are_too_deep_not_a_crash():
    with pytest.raises(LoadError) as caught:
        load_text("a: " + "[" * 10_000 + "]" * 10_000)
    assert caught.value.code == "load-too-deep"


def test_alias_that_would_nest_too_deep_is_refused():
    deep = "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2)
    with pytest.raises(LoadError) as caught:
        load_text(f"a: &d {deep}\nb: {'[' * 10}*d{']' * 10}")
    assert caught.value.code == "load-too-deep"


def test_oversized_file_is_refused_before_parsing(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a: [" + b"1," * (MAX_FILE_BYTES // 2) + b"]\n")
    with pytest.raises(LoadError) as caught:
        load_file(path)
    assert (caught.value.code, caught.value.location.line) == ("load-too-large", 1)


@pytest.mark.parametrize("make_path", [
    lambda tmp: tmp / "missing.yaml",
    lambda tmp: tmp,
])
def test_unreadable_path_is_load_io(tmp_path, make_path):
    with pytest.raises(LoadError) as caught:
        load_file(make_path(tmp_path))
    assert caught.value.code == "load-io"


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes("\ufeffruleset: bom\n".encode("utf-8"))
    assert load_file(path)["ruleset"].location.column == 10


# --------------------------------------------------------------------------- includes

def _write(directory: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text, encoding="utf-8")


def test_includes_merge_sections_and_keep_positions_per_file(tmp_path):
    _write(tmp_path, {
        "main.yaml": "ruleset: main\ninclude: [parts/tables.yaml, kinds.yaml]\n"
                     "tables:\n  damage: {die: D6}\n",
        "parts/tables.yaml": "tables:\n  to_hit: {die: D6}\ninclude: ../shared.yaml\n",
        "kinds.yaml": "include: shared.yaml\nkinds:\n  tank: {armour: 10}\n",
        "shared.yaml": "\n\nprocedures:\n  ram: {steps: []}\n",
    })
    document = load_ruleset_document(tmp_path / "main.yaml")
    assert "include" not in document
    assert document.to_plain() == {
        "tables": {"to_hit": {"die": "D6"}, "damage": {"die": "D6"}},
        "procedures": {"ram": {"steps": []}},
        "kinds": {"tank": {"armour": 10}},
        "ruleset": "main",
    }
    to_hit = document.find(("tables", "to_hit"))
    assert Path(to_hit.location.file) == tmp_path / "parts" / "tables.yaml"
    assert (to_hit.location.line, to_hit.location.path) == (2, "tables.to_hit")
    ram = document.find(("procedures", "ram"))
    assert (Path(ram.location.file), ram.location.line) == (tmp_path / "shared.yaml", 4)
    damage = document.find(("tables", "damage"))
    assert (Path(damage.location.file), damage.location.line) == (tmp_path / "main.yaml", 4)


def test_too_many_includes_are_refused(tmp_path):
    names = [f"part{i}.yaml" for i in range(MAX_INCLUDES + 1)]
    _write(tmp_path, {name: f"section{i}: {i}\n" for i, name in enumerate(names)})
    _write(tmp_path, {"main.yaml": f"include: {json.dumps(names)}\n"})
    with pytest.raises(LoadError) as caught:
        load_ruleset_document(tmp_path / "main.yaml")
    assert caught.value.code == "load-too-large"


@pytest.mark.parametrize("directory, code, file, line, column, mentions", [
    ("include_cycle", "load-include-cycle", "part.yaml", 3, 5, "main.yaml -> part.yaml"),
    ("include_duplicate", "load-duplicate-key", "main.yaml", 6, 3, "tables.yaml:2:3"),
    ("include_duplicate_scalar", "load-duplicate-key", "main.yaml", 2, 1, "other.yaml:2:1"),
    ("include_missing", "load-io", "main.yaml", 4, 5, "absent.yaml"),
    ("include_bad_value", "load-include", "main.yaml", 3, 5, "include"),
])
def test_broken_includes_are_refused(directory, code, file, line, column, mentions):
    with pytest.raises(LoadError) as caught:
        load_ruleset_document(BROKEN / directory / "main.yaml")
    error = caught.value
    assert (error.code, error.location.line, error.location.column) == (code, line, column)
    assert Path(error.location.file).name == file
    assert mentions in error.message


# --------------------------------------------------------------------------- robustness

_YAMLISH = st.lists(st.sampled_from(list("ab1 :-[]{},&*!|>'\"#?<%\\\n\t.~") +
                                    ["\x00", "é", "\u2028", "\ud800", "---", "!!python/",
                                     "<<", "\n  ", "&a ", "*a"]),
                    max_size=40).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_YAMLISH, st.text(max_size=80)))
def test_random_text_only_ever_raises_load_error(text):
    try:
        document = load_text(text)
    except LoadError as error:
        assert error.location is not None and error.location.line >= 1
        return
    assert isinstance(document, MapNode)
    document.to_plain()


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=60))
def test_random_bytes_only_ever_raise_load_error(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("bytes") / "random.yaml"
    path.write_bytes(data)
    try:
        load_file(path)
    except LoadError:
        pass


def test_yaml_error_in_a_step_with_a_colon_shows_the_quoting():
    with pytest.raises(LoadError) as caught:
        load_file(BROKEN / "syntax_unquoted_step.yaml")
    assert "YAML read it as a mapping" in caught.value.message
    assert caught.value.hint == """quote the whole step: - 'let slot = {item: "Ram", size: 1}'"""
