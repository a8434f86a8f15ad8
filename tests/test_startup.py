"""Start-up shortcuts say exactly what the long way says: the parser of the one command
named first (cli/parsers.build_parser(only=...)) against the whole command line."""
import argparse
import gc

import pytest

from interpreter.cli.main import main
from interpreter.cli.parsers import COMMAND_NAMES, build_parser


def _sub_parsers(parser) -> dict:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_the_command_names_are_the_whole_parsers():
    assert sorted(COMMAND_NAMES) == sorted(_sub_parsers(build_parser()))


@pytest.mark.parametrize("command", COMMAND_NAMES)
def test_one_commands_parser_is_that_command_of_the_whole(command):
    whole, lean = _sub_parsers(build_parser())[command], _sub_parsers(build_parser(only=command))
    assert list(lean) == [command]
    assert lean[command].format_help() == whole.format_help()
    assert [(a.dest, a.option_strings, a.default, a.nargs) for a in lean[command]._actions] == \
        [(a.dest, a.option_strings, a.default, a.nargs) for a in whole._actions]


@pytest.mark.parametrize("argv", [
    ["roll", "2d6", "--seed", "1"],
    ["odds", "2d6", "--json"],
    ["run", "tanks", "shoot", "--odds", "--json"],
    ["play", "tanks", "--seed", "1", "--json"],
])
def test_a_command_parses_alike(argv):
    whole = build_parser().parse_args(argv)
    lean = build_parser(only=argv[0]).parse_args(argv)
    assert vars(lean) == vars(whole)


@pytest.mark.parametrize("argv,said", [
    (["roll", "2d6", "--odds"], "--odds"),          # an option of another command
    (["roll"], "expression"),
    (["play", "tanks", "--sed", "1"], "--seed"),    # did you mean
    (["rol", "2d6"], "roll"),
])
def test_a_refused_command_line_gets_the_whole_parsers_message(argv, said, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err
    try:
        build_parser().parse_args(argv)
    except Exception as whole:
        assert whole.message in err


def _collector_seen_by(monkeypatch, command: str) -> list:
    """The collector's state (on, objects frozen) when `command`'s handler runs its
    game or its work: seen from inside the ruleset's `play` / the handler."""
    from interpreter.cli import commands
    from interpreter.game.api import Rules as Ruleset
    seen = []
    if command == "play":
        real = Ruleset.play

        def spy(self, *args, **kwargs):
            seen.append((gc.isenabled(), gc.get_freeze_count() > 0))
            return real(self, *args, **kwargs)
        monkeypatch.setattr(Ruleset, "play", spy)
    else:
        real = commands.HANDLERS[command]

        def spy(args, out):
            seen.append((gc.isenabled(), gc.get_freeze_count() > 0))
            return real(args, out)
        monkeypatch.setitem(commands.HANDLERS, command, spy)
    return seen


@pytest.mark.parametrize("argv", [["play", "tanks", "--seed", "1", "--json"],
                                  ["info", "tanks"]])
def test_the_start_is_quiet_and_the_work_is_collected(argv, monkeypatch, capsys):
    """cli/main.py holds the cycle collector off while a command starts; the work after
    the start (a game, a command's handler) runs with it on and the start frozen, and the
    caller gets the collector back as it was."""
    seen = _collector_seen_by(monkeypatch, argv[0])
    assert gc.isenabled()
    assert main(argv) == 0
    assert seen == [(True, True)]
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_caller_without_the_collector_keeps_it_off(monkeypatch, capsys):
    gc.disable()
    try:
        assert main(["play", "tanks", "--seed", "1", "--json"]) == 0
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_a_refused_command_gives_the_collector_back(capsys):
    assert main(["play", "tanks", "--no-such-option"]) == 2
    assert gc.isenabled() and gc.get_freeze_count() == 0
