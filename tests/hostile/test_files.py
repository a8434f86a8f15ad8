"""Hostile files: only regular files are read, includes and bases stay inside the rule
file's folder tree unless allowed, and a file that is not a rule file is never echoed."""
import os

import pytest

HEAD = "ruleset: evil\ntitle: evil\n"
SECRET = "api_key: hunter2\nfoo: [\n"


@pytest.mark.parametrize("key,target,message", [
    ("include", "../secret.txt", "included file {dir}/secret.txt is outside the folder"),
    ("include", "{dir}/secret.txt", "included file {dir}/secret.txt is outside the folder"),
    ("include", "link.yaml", "included file {dir}/rules/link.yaml is outside the folder"),
    ("include", "../../../../../../../../etc/passwd", "included file /etc/passwd is outside"),
    ("extends", "../secret.txt", "base ruleset {dir}/secret.txt is outside the folder"),
    ("extends", "/etc/passwd", "base ruleset /etc/passwd is outside the folder"),
])
def test_includes_and_bases_stay_in_the_rule_files_folder(cli, write, tmp_path, key, target,
                                                          message):
    write("secret.txt", SECRET)
    os.symlink(tmp_path / "secret.txt", tmp_path / "rules-link.yaml")
    (tmp_path / "rules").mkdir()
    os.symlink(tmp_path / "secret.txt", tmp_path / "rules" / "link.yaml")
    rule = write("rules/evil.yaml", HEAD + f"{key}: {target.format(dir=tmp_path)}\n")
    result = cli("validate", rule)
    assert result.seconds < 5
    assert result.code == 1
    assert message.format(dir=tmp_path) in result.text
    assert "load-outside" in cli("validate", rule, "--format", "json").out
    assert "hunter2" not in result.text and "api_key" not in result.text


def test_allow_outside_lets_an_include_in_but_never_echoes_a_file_that_is_not_a_rule_file(
        cli, write, tmp_path):
    write("secret.txt", SECRET)
    rule = write("rules/evil.yaml", HEAD + "include: ../secret.txt\n")
    result = cli("validate", rule, "--allow-outside", tmp_path)
    assert result.code == 1 and result.seconds < 5
    assert f"{tmp_path}/secret.txt:3:1: error: YAML syntax error" in result.text
    assert "hunter2" not in result.text and "foo: [" not in result.text


def test_an_include_inside_the_folder_tree_is_read(cli, write):
    write("rules/parts/kinds.yaml", "kinds:\n  f: {stats: {x: 1}}\n")
    rule = write("rules/main.yaml", HEAD + "include: parts/kinds.yaml\n")
    result = cli("validate", rule)
    assert result.code == 0, result.text


@pytest.mark.parametrize("where", ["ruleset", "include"])
def test_a_named_pipe_is_refused_at_once(cli, write, tmp_path, where):
    os.mkfifo(tmp_path / "pipe.yaml")
    rule = (tmp_path / "pipe.yaml" if where == "ruleset"
            else write("main.yaml", HEAD + "include: pipe.yaml\n"))
    result = cli("validate", rule)
    assert result.seconds < 5 and result.code == 1
    assert "pipe.yaml: it is not a regular file (a named pipe)" in result.text


def test_a_device_is_refused(cli):
    result = cli("validate", "/dev/zero")
    assert result.code == 1 and "not a regular file (a device)" in result.text


@pytest.mark.parametrize("key,message", [
    ("include", "an included file's path cannot contain a NUL character"),
    ("extends", "extends: a path cannot contain a NUL character"),
])
def test_a_nul_in_a_path_is_a_clean_error(cli, write, key, message):
    rule = write("main.yaml", HEAD + f'{key}: "a\\0b.yaml"\n')
    result = cli("validate", rule)
    assert result.code == 1 and message in result.text
    assert "internal error" not in result.text


def test_a_nul_in_a_ruleset_path_given_to_the_api_is_a_usage_error():
    from interpreter.errors import UsageError
    from interpreter.game.api import load_ruleset
    with pytest.raises(UsageError, match="NUL"):
        load_ruleset("a\0b.yaml")
