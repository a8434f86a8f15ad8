"""Terminal output never carries a control character from a rule file or an input: the
story, the trace, tables in every text format and errors show it escaped (`\\x1b`)."""
import pytest

from interpreter.errors import Location, RulecraftError, format_error, printable

ESC = "\x1b"
RULES = r'''ruleset: esc
title: "T\e[31mred\e]0;pwned\a"
source: "book\u202e"
tables:
  t:
    roll: d6
    columns: {what: text}
    rows:
      "1-6": {what: "x\e[2Jy"}
kinds:
  f: {stats: {x: 1}}
procedures:
  p:
    steps:
      - "emit \"a\e[2Jb\""
      - "return \"o\e[1mk\""
turn:
  phases:
    - name: p
      each: unit
      steps: ["emit text(unit.name) + \"u\e[2K\""]
  max_turns: 1
scenarios:
  default:
    sides:
      a: {policy: first, units: [{kind: f, name: "A\e[8m"}]}
      b: {policy: first, units: [{kind: f, name: B}]}
'''


@pytest.mark.parametrize("argv,shown", [
    (["run", "{path}", "p", "--seed", "1"], ["T\\x1b[31mred", "a\\x1b[2Jb", "o\\x1b[1mk"]),
    (["play", "{path}", "--seed", "1"], ["A\\x1b[8m", "u\\x1b[2K"]),
    (["tables", "{path}"], ["T\\x1b[31mred", "x\\x1b[2Jy"]),
    (["tables", "{path}", "--format", "md"], ["x\\x1b[2Jy", "\\x07", "book\\u202e"]),
    (["tables", "{path}", "--format", "csv"], ["x\\x1b[2Jy"]),
    (["tables", "{path}", "--format", "html"], ["x\\x1b[2Jy"]),
    (["roll", "d6 + x\x1b[2J", "--seed", "1"], ["x\\x1b[2J"]),
])
def test_control_characters_from_rules_are_shown_escaped(cli, write, argv, shown):
    path = write("esc.yaml", RULES)
    result = cli(*[a.replace("{path}", str(path)) for a in argv])
    assert ESC not in result.text and "\x07" not in result.text and "\u202e" not in result.text
    for text in shown:
        assert text in result.text


def test_a_refused_line_is_echoed_escaped(cli, write):
    path = write("raw.yaml", "ruleset: raw\ntitle: " + ESC + "[31mraw\n")
    result = cli("validate", path)
    assert result.code == 1 and ESC not in result.text
    assert "    title: \\x1b[31mraw\n           ^" in result.text


@pytest.mark.parametrize("source,column,caret", [
    ("a" + ESC + "bc", 3, "     ^"),     # the caret moves past the four characters of \x1b
    ("abc", 3, "  ^"),
])
def test_the_caret_stays_under_its_character_after_escaping(source, column, caret):
    text = format_error(RulecraftError("m\x1b[2J", Location("f\x1b", 1, column, source)))
    lines = text.splitlines()
    assert lines[0] == "f\\x1b:1:%d: error: m\\x1b[2J" % column
    assert lines[2] == "    " + caret


@pytest.mark.parametrize("text,keep,expected", [
    ("plain", "", "plain"),
    ("a\x1b[2Jb", "", "a\\x1b[2Jb"),
    ("line\nnext", "\n", "line\nnext"),
    ("line\nnext", "", "line\\x0anext"),
    ("\x00\x7f\x9b", "", "\\x00\\x7f\\x9b"),
    ("right\u202eleft\u2066", "", "right\\u202eleft\\u2066"),
    ("émoji ok ✓", "", "émoji ok ✓"),
    ("m\udc9b31m", "", "m\\udc9b31m"),   # a file name's byte 0x9b, not UTF-8
])
def test_printable(text, keep, expected):
    assert printable(text, keep) == expected


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("name,shown", [
    ("m\udc9b31mx.yaml", "m\\udc9b31mx.yaml"),   # as os.fsdecode gives b"m\x9b31mx.yaml"
    ("m\x1b[31mx.yaml", "m\\x1b[31mx.yaml"),
], ids=["not utf-8", "escape"])
def test_a_file_name_typed_is_shown_escaped(cli, tmp_path, command, name, shown):
    """A file name on the command line that does not exist: `run` said so in a usage
    error written raw (an ESC obeyed), and a name's bytes that are not UTF-8, which reach
    Python as lone surrogates, were written back raw by `validate` (a 0x9b byte is the
    CSI of an 8-bit terminal)."""
    result = cli(command, f"{tmp_path}/{name}", *(["p"] if command == "run" else []))
    assert result.code in (1, 2)
    assert shown in result.text, result.text
    assert ESC not in result.text and "\udc9b" not in result.text
