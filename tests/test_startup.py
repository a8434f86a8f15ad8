"""Start-up shortcuts say exactly what the long way says: the parser of the one command
named first (cli/parsers.build_parser(only=...)) against the whole command line."""
import argparse

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
