"""A command line that teaches itself: help with examples on every command, "did you mean"
for misspelt commands and options, no abbreviated options, `info`, `new` and shell
completion."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.cli.complete import candidates
from interpreter.cli.parsers import build_parser

ROOT = Path(__file__).parent.parent
COMMANDS = ["roll", "odds", "list", "info", "new", "validate", "schema", "tables", "run", "play",
            "simulate", "diff", "completion"]


def rulecraft(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "interpreter", *args], capture_output=True,
                          text=True, cwd=cwd)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_on_every_option_and_an_example(command):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    assert sub.description
    assert f"rulecraft {command}" in sub.epilog
    for action in sub._actions:
        assert action.help, f"{command}: {action.dest} has no help"
        if action.dest in ("ruleset",):
            assert "a bundled ruleset id" in action.help and "path" in action.help


@pytest.mark.parametrize("args,message,hint", [
    (["plya", "tanks"], "unknown command 'plya'", "did you mean 'play'?"),
    (["run", "tanks", "shoot", "--odd"], "unrecognized arguments: --odd", "did you mean '--odds'?"),
    (["play", "tanks", "--seeds", "1"], "unrecognized arguments: --seeds", "'--seed'"),
    # an option of another command is named as such, never a near one of the top level
    (["run", "tanks", "shoot", "--verbose"], "unrecognized arguments: --verbose",
     "hint: '--verbose' is an option of play, not of run"),
    (["run", "tanks", "shoot", "--verbos"], "unrecognized arguments: --verbos",
     "did you mean '--verbose' (an option of play, not of run)?"),
    (["run", "tanks", "shoot", "--version"], "unrecognized arguments: --version",
     "'--version' goes before the command: rulecraft --version"),
    (["play", "tanks", "--verbos"], "unrecognized arguments: --verbos", "hint: did you mean '--verbose'?\n"),
    (["info", "tank"], "no bundled ruleset 'tank'", "did you mean 'tanks'?"),
    (["new", "x", "--from", "tank"], "no bundled ruleset 'tank'", "did you mean 'tanks'?"),
])
def test_mistakes_on_the_command_line_get_a_suggestion(args, message, hint):
    done = rulecraft(*args)
    assert done.returncode == 2
    assert message in done.stderr and hint in done.stderr
    assert "Traceback" not in done.stderr


def test_info_shows_scenarios_procedures_with_defaults_tables_and_rulings():
    out = rulecraft("info", "tanks").stdout
    for text in ("Tanks: Crucial Warfare", "scenarios", "allies (prefer)", "tabletop",
                 "range_band(distance: number = 12, range: integer = 36)", "to_hit  Roll to hit",
                 "shaken", "rulings: "):
        assert text in out


def test_new_writes_a_starter_that_validates_and_plays(tmp_path):
    path = tmp_path / "my-game.yaml"
    assert rulecraft("new", str(path)).returncode == 0
    assert path.read_text().startswith("# yaml-language-server: $schema=")
    assert rulecraft("validate", str(path)).returncode == 0
    played = rulecraft("play", str(path), "--seed", "2")
    assert played.returncode == 0 and " wins after " in played.stdout
    again = rulecraft("new", str(path))
    assert again.returncode == 2 and "already exists" in again.stderr


def test_new_from_a_bundled_ruleset_copies_it_and_its_includes(tmp_path):
    done = rulecraft("new", str(tmp_path / "mine"), "--from", "jugger")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "mine" / "jugger.yaml").exists() and (tmp_path / "mine" / "parts" / "play.yaml").exists()
    assert rulecraft("validate", str(tmp_path / "mine" / "jugger.yaml")).returncode == 0


@pytest.mark.parametrize("words,expected", [
    (["pl"], ["play"]),
    (["run", "tan"], ["tanks"]),
    (["run", "tanks", "sho"], ["shoot"]),
    (["tables", "tanks", "to_"], ["to_hit"]),
    (["play", "tanks", "--scenario", "tab"], ["tabletop"]),
    (["play", "tanks", "--as"], ["--ask"]),
    (["play", "tanks", "--ask", "al"], ["allies"]),
    (["simulate", "tanks", "--compare", "veteran"], ["veteran-crews"]),
])
def test_completion_candidates(words, expected):
    assert candidates(build_parser(), words) == expected


@pytest.mark.parametrize("shell,marker", [("bash", "complete -o default -F _rulecraft"),
                                          ("zsh", "#compdef rulecraft"),
                                          ("fish", "complete -c rulecraft")])
def test_completion_scripts_ask_rulecraft_for_candidates(shell, marker):
    out = rulecraft("completion", shell).stdout
    assert marker in out and "rulecraft __complete" in out
