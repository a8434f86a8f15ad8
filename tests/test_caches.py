"""The built parser is cached between runs in the user's cache directory, keyed by the
grammar, the options and the versions, and never in the way when it cannot be used."""
import os
import stat

import pytest
from lark import Lark

from interpreter.lang import cache
from interpreter.lang.cache import cache_file, cached_parser

GRAMMAR = 'start: WORD\n%import common.WORD\n'
OPTIONS = {"parser": "lalr", "propagate_positions": True}


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(tmp_path / "rc"))
    monkeypatch.delenv("RULECRAFT_NO_CACHE", raising=False)
    return tmp_path / "rc"


def test_the_parser_is_written_then_read_back(cache_dir, monkeypatch):
    cached_parser(GRAMMAR, **OPTIONS)
    path = cache_file(GRAMMAR, OPTIONS)
    assert path.exists() and path.parent == cache_dir
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == 0o700

    def no_building(*args, **kwargs):
        raise AssertionError("built again instead of read from the cache")
    monkeypatch.setattr(cache, "Lark", type("L", (), {"load": Lark.load, "__init__": no_building}))
    parser = cached_parser(GRAMMAR, **OPTIONS)
    assert parser.parse("hello").children[0] == "hello"


@pytest.mark.parametrize("other_grammar,other_options", [
    ('start: NUMBER\n%import common.NUMBER\n', OPTIONS),
    (GRAMMAR, {**OPTIONS, "propagate_positions": False}),
])
def test_a_changed_grammar_or_option_is_another_file(cache_dir, other_grammar, other_options):
    assert cache_file(GRAMMAR, OPTIONS) != cache_file(other_grammar, other_options)


def test_a_damaged_file_is_rebuilt(cache_dir):
    path = cache_file(GRAMMAR, OPTIONS)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a parser")
    assert cached_parser(GRAMMAR, **OPTIONS).parse("hi").children[0] == "hi"
    with open(path, "rb") as f:   # and written again, whole
        assert Lark.load(f).parse("again").children[0] == "again"


def test_an_unwritable_cache_is_no_cache(tmp_path, monkeypatch, capsys):
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(blocked / "rc"))
    assert cached_parser(GRAMMAR, **OPTIONS).parse("ok").children[0] == "ok"
    assert capsys.readouterr() == ("", "")


def test_no_cache_when_asked(cache_dir, monkeypatch):
    monkeypatch.setenv("RULECRAFT_NO_CACHE", "1")
    assert cache_file(GRAMMAR, OPTIONS) is None
    cached_parser(GRAMMAR, **OPTIONS)
    assert not cache_dir.exists()


# ---------------------------------------------------------------- the schema check

RULES = "ruleset: cached\ntitle: a ruleset checked once\nparameters: {bonus: 2}\n"


def test_a_document_that_passed_the_schema_is_not_checked_again(cache_dir, tmp_path, monkeypatch):
    from interpreter.game.api import check_ruleset
    from interpreter.source import schema
    path = tmp_path / "rules.yaml"
    path.write_text(RULES)
    assert check_ruleset(path) == []
    assert len(list(cache_dir.glob("schema-ok-*"))) == 1

    def no_check(document):
        raise AssertionError("checked again")
    monkeypatch.setattr(schema, "check_schema", no_check)
    assert check_ruleset(path) == []


@pytest.mark.parametrize("text", [
    RULES + "tables: {t: {rows: 3}}\n",            # a schema error: never remembered
    RULES.replace("bonus: 2", "bonus: 3") + "kindz: {}\n",
])
def test_a_changed_or_failing_document_is_checked(cache_dir, tmp_path, text):
    from interpreter.game.api import check_ruleset
    path = tmp_path / "rules.yaml"
    path.write_text(RULES)
    check_ruleset(path)
    path.write_text(text)
    first = check_ruleset(path)
    assert first and first[0].code.startswith("schema")
    assert check_ruleset(path) == first
    assert len(list(cache_dir.glob("schema-ok-*"))) == 1
