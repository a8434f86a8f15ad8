"""The built parser is cached between runs in the user's cache directory, keyed by the
grammar, the options and the versions, and never in the way when it cannot be used."""
import json
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


# ---------------------------------------------------------------- the checked model

BASE = """\
ruleset: base
title: a base
include: parts.yaml
parameters: {bonus: 2}
procedures:
  shot:
    steps:
      - let r = d6 + bonus + extra
      - return r
"""
PARTS = "parameters: {extra: 1}\n"
HOUSE = "ruleset: house\ntitle: a house rule\nextends: base.yaml\nparameters: {bonus: 5}\n"


def _highest(rules) -> int:
    """The highest result `shot` can give (6 + bonus + extra), from its exact odds."""
    return rules.run_odds("shot").outcomes.max()


@pytest.fixture
def rule_files(tmp_path):
    (tmp_path / "base.yaml").write_text(BASE)
    (tmp_path / "parts.yaml").write_text(PARTS)
    (tmp_path / "house.yaml").write_text(HOUSE)
    return tmp_path


def _no_building(monkeypatch):
    from interpreter.game import api

    def refuse(*args, **kwargs):
        raise AssertionError("built again instead of read from the cache")
    monkeypatch.setattr(api, "_build", refuse)


def _kept(cache_dir):
    return sorted(cache_dir.glob("rules-*"))


@pytest.mark.parametrize("ruleset", ["tanks", "legowars", "veteran-crews"])
def test_a_bundled_model_read_back_is_the_built_one(cache_dir, monkeypatch, ruleset):
    from interpreter.game.api import check_ruleset, load_ruleset
    built = load_ruleset(ruleset)
    assert len(_kept(cache_dir)) == 1
    _no_building(monkeypatch)
    kept = load_ruleset(ruleset)
    assert kept is not built and kept.chain == built.chain
    assert [f.as_json() for f in kept.findings] == [f.as_json() for f in built.findings]
    assert [f.as_json() for f in check_ruleset(built.path)] == [f.as_json() for f in built.findings]
    assert sorted(kept.procedures) == sorted(built.procedures)
    first, again = built.play(seed=3), kept.play(seed=3)
    assert json.dumps(first.as_json()) == json.dumps(again.as_json())
    assert [json.dumps(e, default=str) for e in first.events] == \
        [json.dumps(e, default=str) for e in again.events]
    assert built.run_odds(next(iter(built.procedures))).as_json() == \
        kept.run_odds(next(iter(kept.procedures))).as_json()


@pytest.mark.parametrize("ruleset", ["jugger", "tanks"])
def test_a_kept_model_knows_whether_its_formulas_only_read(cache_dir, monkeypatch, ruleset):
    """Worked out before the model is kept (`narration.formulas_read`): a told game
    then never walks the tables for it."""
    from interpreter.game.api import load_ruleset
    from interpreter.run.narration import _tables_read
    load_ruleset(ruleset)
    _no_building(monkeypatch)
    kept = load_ruleset(ruleset)
    assert kept.__dict__["_formulas_read"] is _tables_read(kept.tables) is True


def test_a_kept_models_document_is_read_only_when_asked(cache_dir, monkeypatch):
    """The located document follows the model in the file and is read at its first use,
    by the same unpickler: equal to the built one, its nodes shared with the model's."""
    import copy
    from interpreter.game.api import load_ruleset
    built = load_ruleset("veteran-crews")
    _no_building(monkeypatch)
    kept = load_ruleset("veteran-crews")
    assert kept.__dict__["_document"] is None and kept.__dict__["_document_later"] is not None
    copied = copy.copy(kept)                           # a copy holds the document itself
    assert copied.__dict__["_document_later"] is None
    assert copied.document.to_plain() == built.document.to_plain()
    assert kept.document.to_plain() == built.document.to_plain()
    assert kept.__dict__["_document_later"] is None and kept.document is kept.document


def test_the_builtins_come_back_as_themselves(cache_dir):
    from interpreter.game.api import load_ruleset
    from interpreter.run.cells import RUN
    from interpreter.state.builtins import ACTIONS
    load_ruleset("tanks")
    kept = load_ruleset("tanks")   # read back
    assert kept.globals["distance"] is ACTIONS["distance"] and kept.globals["run"] is RUN


@pytest.mark.parametrize("shared", ["MISSING", "TRUE_OUTCOME"])
def test_a_module_level_object_keeps_its_identity(shared):
    """A "no entry" marker or a boolean outcome's key copied would compare unequal to
    the one the code holds: both come back as the very object."""
    import io
    import pickle
    from interpreter.dice.distribution import Distribution
    from interpreter.game import rules_cache
    from interpreter.tables.keys import MISSING
    value = MISSING if shared == "MISSING" else Distribution.constant(True)
    buffer = io.BytesIO()
    rules_cache.SharingPickler(buffer).dump({"x": value})
    back = rules_cache.SharingUnpickler(io.BytesIO(buffer.getvalue())).load()["x"]
    if shared == "MISSING":
        assert back is MISSING
        assert pickle.loads(pickle.dumps(MISSING)) is not MISSING   # what plain pickling does
    else:
        assert back.values() == [True] and back.probability(True) == 1
        assert back.mean() == 1 and back == value


@pytest.mark.parametrize("edit,highest", [
    (None, 6 + 2 + 1),
    (("parts.yaml", "parameters: {extra: 4}\n"), 6 + 2 + 4),          # an included file
    (("base.yaml", BASE.replace("bonus: 2", "bonus: 3")), 6 + 3 + 1),  # the file itself
])
def test_a_changed_file_of_the_ruleset_is_read_again(cache_dir, rule_files, edit, highest):
    from interpreter.game.api import load_ruleset
    assert _highest(load_ruleset(rule_files / "base.yaml")) == 9
    if edit:
        (rule_files / edit[0]).write_text(edit[1])
    assert _highest(load_ruleset(rule_files / "base.yaml")) == highest
    assert _highest(load_ruleset(rule_files / "base.yaml")) == highest   # and kept anew
    assert len(_kept(cache_dir)) == 1


@pytest.mark.parametrize("edit,highest", [
    (None, 6 + 5 + 1),
    (("house.yaml", HOUSE.replace("bonus: 5", "bonus: 7")), 6 + 7 + 1),   # the house rule
    (("base.yaml", BASE.replace("procedures:", "parameters: {}\nprocedures:", 0)
      .replace("d6 +", "d8 +")), 8 + 5 + 1),                             # its base
    (("parts.yaml", "parameters: {extra: 0}\n"), 6 + 5 + 0),            # the base's include
])
def test_a_changed_house_rule_or_base_is_read_again(cache_dir, rule_files, edit, highest):
    from interpreter.game.api import load_ruleset
    house = rule_files / "house.yaml"
    assert _highest(load_ruleset(house)) == 12 and load_ruleset(house).chain == ["base", "house"]
    if edit:
        (rule_files / edit[0]).write_text(edit[1])
    assert _highest(load_ruleset(house)) == highest
    assert load_ruleset(house).chain == ["base", "house"]


def test_a_base_that_now_resolves_elsewhere_is_read_again(cache_dir, rule_files):
    """`extends: base` names a bundled ruleset until a file `base` sits beside it."""
    from interpreter.game.api import load_ruleset
    house = rule_files / "house.yaml"
    house.write_text(HOUSE.replace("extends: base.yaml", "extends: tanks"))
    assert load_ruleset(house).chain == ["tanks", "house"]
    (rule_files / "tanks").write_text(BASE)
    assert load_ruleset(house).chain == ["base", "house"]


@pytest.mark.parametrize("damage", [
    lambda data: data[: len(data) // 2],           # truncated
    lambda data: data[:-1],                         # the document's last byte lost
    lambda data: b"\x80\x05garbage" + data[9:],     # garbage in a pickle's clothes
    lambda data: b"",                               # empty
    lambda data: bytes(range(256)) * 3,             # noise
])
def test_a_damaged_model_is_built_again(cache_dir, rule_files, damage, capsys):
    from interpreter.game.api import load_ruleset
    load_ruleset(rule_files / "base.yaml")
    [entry] = _kept(cache_dir)
    entry.write_bytes(damage(entry.read_bytes()))
    assert _highest(load_ruleset(rule_files / "base.yaml")) == 9
    assert capsys.readouterr() == ("", "")
    assert _highest(load_ruleset(rule_files / "base.yaml")) == 9   # and written whole again
    assert entry.stat().st_size > 1000


def test_an_unwritable_cache_still_loads(tmp_path, rule_files, monkeypatch, capsys):
    from interpreter.game.api import load_ruleset
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(blocked / "rc"))
    monkeypatch.delenv("RULECRAFT_NO_CACHE", raising=False)
    assert _highest(load_ruleset(rule_files / "base.yaml")) == 9
    assert _highest(load_ruleset(rule_files / "base.yaml")) == 9
    assert capsys.readouterr() == ("", "")


def test_no_model_is_kept_when_asked(cache_dir, rule_files, monkeypatch):
    from interpreter.game.api import load_ruleset
    monkeypatch.setenv("RULECRAFT_NO_CACHE", "1")
    load_ruleset(rule_files / "base.yaml")
    assert not cache_dir.exists()


def test_a_ruleset_with_errors_is_never_kept(cache_dir, rule_files):
    from interpreter.game.api import check_ruleset, load_ruleset
    from interpreter.model.ruleset import RulesetInvalid
    (rule_files / "base.yaml").write_text(BASE.replace("+ extra", "+ extar"))
    with pytest.raises(RulesetInvalid, match="extar"):
        load_ruleset(rule_files / "base.yaml")
    first = check_ruleset(rule_files / "base.yaml")
    assert first and check_ruleset(rule_files / "base.yaml") == first
    assert _kept(cache_dir) == []


def test_another_allowed_folder_is_another_model(cache_dir, rule_files, tmp_path):
    from interpreter.game.api import load_ruleset
    from interpreter.source.load import allow_outside, allowed_outside
    before = allowed_outside()
    load_ruleset(rule_files / "base.yaml")
    allow_outside(before + [str(tmp_path)])
    load_ruleset(rule_files / "base.yaml")
    assert len(_kept(cache_dir)) == 2


def test_only_the_latest_models_are_kept(cache_dir, tmp_path, monkeypatch):
    """Each new rule file (or edit of rulecraft) makes a model; the oldest go."""
    from interpreter.game import rules_cache
    from interpreter.game.api import load_ruleset
    monkeypatch.setattr(rules_cache, "MAX_KEPT_MODELS", 3)
    for n in range(5):
        folder = tmp_path / f"r{n}"
        folder.mkdir()
        (folder / "base.yaml").write_text(BASE.replace("bonus: 2", f"bonus: {n}"))
        (folder / "parts.yaml").write_text(PARTS)
        load_ruleset(folder / "base.yaml")
    assert len(_kept(cache_dir)) == 3
    newest = rules_cache.entry_file(tmp_path / "r4" / "base.yaml")
    assert newest in _kept(cache_dir)
    assert _highest(load_ruleset(tmp_path / "r0" / "base.yaml")) == 6 + 0 + 1   # built again


def test_a_module_level_cache_is_never_named_in_a_kept_model(monkeypatch):
    """What a cache of the package holds changes (and its old objects' ids are reused):
    a value that is also in one is kept as a copy, not as a reference to that cache."""
    import io
    from interpreter.game import rules_cache
    from interpreter.model import overlay
    chain = ["base", "house"]
    monkeypatch.setitem(overlay.CHAINS, "/somewhere/house.yaml", chain)
    buffer = io.BytesIO()
    rules_cache.SharingPickler(buffer).dump({"chain": chain})
    monkeypatch.setitem(overlay.CHAINS, "/somewhere/house.yaml", ["another"])
    back = rules_cache.SharingUnpickler(io.BytesIO(buffer.getvalue())).load()
    assert back == {"chain": ["base", "house"]}


def test_list_reads_a_kept_models_head_only(cache_dir, rule_files, monkeypatch):
    """`rulecraft list` takes what it shows from the head of a still valid kept model
    (game/rules_cache.read_summary): the same as loading the ruleset says, none once
    one of its files changed."""
    from interpreter.game import rules_cache
    from interpreter.game.api import load_ruleset
    house = rule_files / "house.yaml"
    assert rules_cache.read_summary(house) is None          # nothing kept yet
    rules = load_ruleset(house)
    summary = rules_cache.read_summary(house)
    assert summary == {"id": rules.id, "title": rules.title, "source": rules.source,
                       "tables": len(rules.tables), "procedures": len(rules.procedures),
                       "scenarios": sorted(rules.scenarios), "chain": rules.chain}
    assert len(summary["chain"]) == 2
    (rule_files / "parts.yaml").write_text("parameters: {extra: 4}\n")
    assert rules_cache.read_summary(house) is None           # the base's include changed
    entry = rules_cache.entry_file(house)
    load_ruleset(house)
    entry.write_bytes(entry.read_bytes()[:-1])               # a lost last byte
    assert rules_cache.read_summary(house) is None


def test_list_shows_the_same_warm_as_built(cache_dir, rule_files, monkeypatch, capsys):
    from interpreter.cli.main import main
    from interpreter.game import rules_cache
    from interpreter.model import paths
    monkeypatch.setattr(paths, "bundled", lambda: [
        {"id": "base", "path": rule_files / "base.yaml"},
        {"id": "house", "path": rule_files / "house.yaml", "base": "base"}])
    monkeypatch.setenv("RULECRAFT_NO_CACHE", "1")
    assert main(["list", "--json"]) == 0
    built = capsys.readouterr().out
    monkeypatch.delenv("RULECRAFT_NO_CACHE")
    assert main(["list", "--json"]) == 0 and capsys.readouterr().out == built   # filling
    monkeypatch.setattr(rules_cache, "read", lambda path: pytest.fail("a model was read"))
    assert main(["list", "--json"]) == 0 and capsys.readouterr().out == built
