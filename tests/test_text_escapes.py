"""Escapes in DSL text (issue #13): `\\"`, `\\'`, `\\\\` and `\\n` read as a quote, a
backslash and a new line; the canonical text writes them back so that it parses to the
same tree; an unknown escape is a located error; the transcript and the sheets show
the text as the rule wrote it (tests/rulesets/text_escapes.yaml)."""
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.errors import DSLSyntaxError
from interpreter.game.api import load_ruleset
from interpreter.lang.parse import parse_expression

HERE = Path(__file__).parent
RULES = HERE / "rulesets" / "text_escapes.yaml"


# as written, the text it stands for, its canonical text
@pytest.mark.parametrize("written,value,canonical", [
    (r'"say \"hi\""', 'say "hi"', r"""'say "hi"'"""),     # single quotes need no escape
    (r"'it\'s'", "it's", '"it\'s"'),
    (r'"C:\\maps"', "C:\\maps", r'"C:\\maps"'),
    (r'"one\ntwo"', "one\ntwo", r'"one\ntwo"'),
    (r'''"both ' and \""''', "both ' and \"", r'''"both ' and \""'''),
    (r'"\\n"', "\\n", r'"\\n"'),                          # a backslash, then an n
    ('"plain"', "plain", '"plain"'),
])
def test_an_escape_reads_as_its_character_and_prints_back(written, value, canonical):
    tree = parse_expression(written)
    assert tree.value == value
    assert str(tree) == canonical
    assert parse_expression(canonical) == tree


def test_a_record_key_in_quotes_takes_escapes_too():
    tree = parse_expression(r'{"the \"Hammer\"": 3}')
    assert tree.fields[0][0] == 'the "Hammer"'
    assert parse_expression(str(tree)) == tree


@pytest.mark.parametrize("written,column", [
    (r'"tab\there"', 5),
    (r'"a" + "C:\maps"', 10),
])
def test_an_unknown_escape_is_a_located_error(written, column):
    with pytest.raises(DSLSyntaxError) as caught:
        parse_expression(written)
    assert caught.value.message.startswith("unknown escape")
    assert caught.value.location.column == column
    assert "write \\\\ for a backslash" in caught.value.hint


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(RULES)


@pytest.mark.parametrize("order,result", [
    ("charge", '"Forward!" cries the sergeant'),
    ("hold", "Hold the line\nand wait"),
])
def test_a_rule_returns_the_text_it_wrote(rules, order, result):
    assert rules.run("shout", {"order": order}, 1).result == result
    assert [v for v, _ in rules.run_odds("shout", {"order": order}).outcomes.items()] == [result]


def test_the_transcript_shows_quotes_and_backslashes_as_written(rules):
    texts = [e["text"] for e in rules.run("shout", {}, 1).events]
    assert 'the order: "charge"' in texts
    assert "path = C:\\maps\\arena" in texts


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "interpreter", *args], capture_output=True,
                          text=True, env={"NO_COLOR": "1", "COLUMNS": "120", "PATH": ""})


def test_the_sheet_and_the_story_show_a_new_line_as_the_rule_writes_it():
    sheet = _cli("tables", str(RULES))
    assert "Hold the line\\nand wait" in sheet.stdout and sheet.returncode == 0
    story = _cli("run", str(RULES), "shout", "--with", "order=hold", "--seed", "1")
    assert "result: Hold the line\\nand wait" in story.stdout
