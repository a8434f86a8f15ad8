"""The command line's grammar: every sub-command with a one-line description, help on every
argument and option, and an example.  Parsing only; the handlers are in commands.py and
main.py.  A misspelt command or option gets "did you mean"; options are never taken from
an abbreviation (`--odd` is not `--odds`)."""
from __future__ import annotations

import argparse
import re

from ..errors import UsageError
from ..suggest import did_you_mean

RULESET_HELP = "a bundled ruleset id (rulecraft list) or the path of a rule file"
WITH_HELP = ("give an input a value (repeatable): a parameter, a unit's stat "
             "(target.armour.front=10) or a table's key; values are read as the DSL writes them")


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so all output goes one way, and that
    suggests the command or option meant."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    argv: list[str] = []   # set by main: the words being parsed (to scope suggestions)

    def error(self, message):
        hint = self._suggestion(message)
        command = re.match(r"argument COMMAND: invalid choice: '([^']*)'", message)
        if command:
            message = f"unknown command {command.group(1)!r}"
            hint = hint or "rulecraft --help lists the commands"
        raise UsageError(message, hint=hint)

    def _suggestion(self, message: str) -> str | None:
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            options = [o for o in re.findall(r"'([^']*)'", choice.group(2)) if not o.startswith("_")]
            return did_you_mean(choice.group(1), options)
        unknown = re.search(r"unrecognized arguments: (.*)", message)
        if unknown:
            words = [w.split("=")[0] for w in unknown.group(1).split() if w.startswith("--")]
            hints = [h for h in map(self._option_hint, words) if h]
            return "; ".join(hints) or None
        return None

    def _option_hint(self, word: str) -> str | None:
        """What an unknown option `word` most likely meant.  After a command only that
        command's options are candidates (`rulecraft --version` is not an option of
        `run`); an option that another command has, or that goes before the command,
        is named as such: `run --verbose` -> `--verbose` is an option of play."""
        commands = self._commands()
        chosen = next((w for w in Parser.argv if w in commands), None)
        if chosen is None:
            return did_you_mean(word, _options(*all_parsers(self)))
        if word in _options(self):
            return f"{word!r} goes before the command: rulecraft {word}"
        having = [name for name, p in commands.items() if name != chosen and word in _options(p)]
        if having:
            return f"{word!r} is an option of {_some(having)}, not of {chosen}"
        close = did_you_mean(word, _options(commands[chosen]))
        if close:
            return close
        elsewhere = did_you_mean(word, _options(*(p for n, p in commands.items() if n != chosen)))
        if elsewhere is None:
            return None
        meant = re.findall(r"'([^']*)'", elsewhere)
        having = [name for name, p in commands.items() if set(meant) & set(_options(p))]
        return f"{elsewhere[:-1]} (an option of {_some(having)}, not of {chosen})?"

    def _commands(self) -> dict:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices
        return {}


def _some(names: list[str]) -> str:
    """`play`, `play and simulate`, `roll, run, play, ...`: at most three names."""
    shown = names[:3] + (["..."] if len(names) > 3 else [])
    return ", ".join(shown) if len(names) > 3 else " and ".join(shown)


def _options(*parsers) -> list[str]:
    return [o for p in parsers for a in p._actions for o in a.option_strings]


def all_parsers(parser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from all_parsers(child)


def _command(sub, name: str, summary: str, examples: list[str], details: str = ""):
    epilog = "examples:\n" + "\n".join(f"  {e}" for e in examples)
    return sub.add_parser(name, help=summary, description=summary + (f"\n\n{details}" if details else ""),
                          epilog=epilog)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("a seed must not be negative")
    return value


def _seed_option(p, what: str = "the dice") -> None:
    p.add_argument("--seed", type=seed, metavar="N",
                   help=f"seed {what} (the same seed gives the same result; default: a new one, shown)")


def _chart_options(p, prefix: str = "") -> None:
    p.add_argument("--format", choices=["text", "html", "svg"], default="text",
                   help=prefix + "text, or the distribution as a chart: an SVG image or an HTML "
                        "page with the numbers")
    p.add_argument("--output", metavar="FILE", help="write the chart to this file")
    p.add_argument("--force", action="store_true", help="overwrite --output if it exists")


COMMAND_NAMES = ("roll", "odds", "list", "info", "new", "validate", "schema", "tables", "run",
                 "play", "odds-game", "simulate", "diff", "completion", "__complete")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `only` (one of COMMAND_NAMES), the top level and that
    one command, all a run of it needs to parse its arguments: the other commands'
    arguments are not built (about 12 ms of every start).  What such a parser refuses,
    the whole one must say again (its messages may name the other commands)."""
    parser = Parser(prog="rulecraft", description="Rules-as-data interpreter for tabletop wargames.",
                    epilog="examples:\n  rulecraft list\n  rulecraft info tanks\n"
                           "  rulecraft run tanks shoot --odds\n  rulecraft play tanks --seed 1\n\n"
                           "`rulecraft COMMAND --help` explains each command.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")
    if only is not None:
        sub = _OnlyOne(sub, only)
    _dice_commands(sub)
    _ruleset_commands(sub)
    _game_commands(sub)
    for command in sub.choices.values():
        command.add_argument("--allow-outside", action="append", default=[], metavar="PATH",
                             help="let include: and extends: read files in this folder too "
                                  "(by default only files beside or below the rule file)")
    return parser


class _OnlyOne:
    """The sub-commands' table building one command: the others get a `_Skipped`."""

    def __init__(self, sub, name: str):
        object.__setattr__(self, "_sub", sub)
        object.__setattr__(self, "_name", name)

    def add_parser(self, name, **kwargs):
        return self._sub.add_parser(name, **kwargs) if name == self._name else _Skipped()

    def __getattr__(self, attr):
        return getattr(self._sub, attr)

    def __setattr__(self, attr, value):
        setattr(self._sub, attr, value)


class _Skipped:
    """A command not built this time: every call on it (an argument, a group) is
    ignored and gives the same nothing back."""

    def __getattr__(self, attr):
        return lambda *args, **kwargs: self


def _dice_commands(sub) -> None:
    p = _command(sub, "roll", "roll a dice expression and show every die",
                 ["rulecraft roll 4d6kh3 --seed 1", "rulecraft roll '2d6 + 3' --times 10000",
                  "rulecraft roll 'glancing[d6]' --ruleset tanks"])
    p.add_argument("expression", help="dice notation or any DSL expression (quote it in the shell)")
    p.add_argument("--ruleset", metavar="RULESET", help=RULESET_HELP + ", whose names the expression may use")
    _seed_option(p)
    p.add_argument("--times", type=positive_int, default=None, metavar="N",
                   help="roll N times and summarise the results")
    p.add_argument("--json", action="store_true", help="the result as JSON")

    p = _command(sub, "odds", "the exact distribution of an expression, or several side by side",
                 ["rulecraft odds 2d6", "rulecraft odds '(d6 + 3) * 4'",
                  "rulecraft odds 3d6 4d6kh3 '2d6 + 6'",
                  "rulecraft odds 'glancing[d6]' --ruleset tanks",
                  "rulecraft odds 2d6 3d6 --format svg --output dice.svg"])
    p.add_argument("expressions", nargs="+", metavar="EXPRESSION",
                   help="dice notation or any DSL expression (quote it in the shell); several "
                        "are compared side by side")
    p.add_argument("--ruleset", metavar="RULESET", help=RULESET_HELP + ", whose names the expression may use")
    p.add_argument("--json", action="store_true", help="the distribution as JSON (exact fractions)")
    _chart_options(p)


def _ruleset_commands(sub) -> None:
    p = _command(sub, "list", "the bundled rulesets and house rules",
                 ["rulecraft list", "rulecraft list --json"])
    p.add_argument("--json", action="store_true", help="the list as JSON")

    p = _command(sub, "info", "what a ruleset holds: scenarios, procedures, tables, statuses",
                 ["rulecraft info tanks", "rulecraft info rules/tanks/tanks.yaml --json"],
                 "The page to read before `run` and `play`: the names to type and the "
                 "parameters each procedure takes, with their defaults.")
    p.add_argument("ruleset", metavar="RULESET", help=RULESET_HELP)
    p.add_argument("--json", action="store_true", help="the same as JSON")

    p = _command(sub, "new", "a starting rule file, or an editable copy of a bundled ruleset",
                 ["rulecraft new my-game.yaml", "rulecraft new my-tanks --from tanks",
                  "rulecraft play my-tanks/tanks.yaml"],
                 "Bundled ids run the installed copy; to change a bundled ruleset, copy it "
                 "with --from and run the copy by its path.")
    p.add_argument("path", metavar="PATH",
                   help="the file to write (.yaml), or a directory to copy a ruleset into")
    p.add_argument("--from", dest="base", metavar="RULESET",
                   help="copy this bundled ruleset (and the files it includes)")
    p.add_argument("--force", action="store_true", help="overwrite files that exist")

    p = _command(sub, "validate", "check rule files: schema and semantic checks",
                 ["rulecraft validate rules/tanks/tanks.yaml", "rulecraft validate my-game.yaml --strict"],
                 "Exit code 0 when there is no error (1 otherwise); every finding has its "
                 "file, line and column.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="rule files to check")
    p.add_argument("--format", choices=["text", "json"], default="text", help="how findings are printed")
    p.add_argument("--strict", action="store_true", help="warnings count as errors")

    p = _command(sub, "schema", "where the ruleset JSON Schema is (or print it)",
                 ["rulecraft schema", "rulecraft schema --print > ruleset.schema.json"])
    p.add_argument("--print", action="store_true", dest="print_schema", help="print the schema itself")

    p = _command(sub, "tables", "print a ruleset's tables, resolved (reference sheets)",
                 ["rulecraft tables tanks", "rulecraft tables tanks to_hit glancing --odds",
                  "rulecraft tables legowars --format html --output legowars.html",
                  "rulecraft tables tanks --format csv --output sheets/"])
    p.add_argument("ruleset", metavar="RULESET", help=RULESET_HELP)
    p.add_argument("tables", nargs="*", metavar="TABLE", help="only these tables (default: all)")
    p.add_argument("--format", choices=["rich", "md", "csv", "json", "html"], default="rich",
                   help="terminal (rich), Markdown, CSV, JSON or a printable HTML page")
    p.add_argument("--only", nargs="+", metavar="TABLE", help="only these tables (as TABLE...)")
    p.add_argument("--odds", action="store_true", help="add each row's exact probability")
    p.add_argument("--full", action="store_true",
                   help="html: also rule code columns and tables of worked examples")
    p.add_argument("--with", action="append", default=[], dest="inputs", metavar="NAME=VALUE",
                   help=WITH_HELP)
    p.add_argument("--output", metavar="FILE",
                   help="write to this file instead of the terminal (for csv: a directory, "
                        "one file per table)")
    p.add_argument("--force", action="store_true", help="overwrite --output if it exists")


def _game_commands(sub) -> None:
    p = _command(sub, "run", "run one procedure, with its transcript or exact odds",
                 ["rulecraft run tanks shoot --seed 1", "rulecraft run tanks shoot --odds",
                  "rulecraft run tanks shoot --odds --with distance=30 --with target.armour.front=10"])
    p.add_argument("ruleset", metavar="RULESET", help=RULESET_HELP)
    p.add_argument("procedure", metavar="PROCEDURE", help="the procedure (rulecraft info RULESET lists them)")
    p.add_argument("--with", action="append", default=[], dest="inputs", metavar="NAME=VALUE",
                   help=WITH_HELP)
    _seed_option(p)
    p.add_argument("--odds", action="store_true", help="the exact distribution of the outcome")
    p.add_argument("--track", action="append", default=[], metavar="EXPR",
                   help="with --odds: also the distribution of this expression on the state the "
                        "procedure ends in (target.destroyed, \"target.hits <= 0\", result)")
    p.add_argument("--given", metavar="EXPR",
                   help="with --odds: the odds given that this holds at the end (\"result != 'miss'\")")
    p.add_argument("--json", action="store_true", help="the result as JSON")
    p.add_argument("--policy", action="append", default=[], metavar="[SIDE=]POLICY",
                   help="how choices are made: first (default), random or prefer; SIDE=POLICY "
                        "for the choices of one unit parameter (e.g. attacker=prefer)")
    _chart_options(p, "with --odds: ")

    p = _command(sub, "play", "play a scenario to its end, told as a story",
                 ["rulecraft play tanks --seed 1", "rulecraft play tanks --seed 1 --verbose",
                  "rulecraft play jungle-warfare --interactive",
                  "rulecraft play tanks --ask allies"],
                 "By default one line per game action in the rulebook's words; --verbose shows "
                 "every roll and change of state.  Exit code 3 when a person stops the game.")
    p.add_argument("ruleset", metavar="RULESET", help=RULESET_HELP)
    p.add_argument("--scenario", metavar="NAME", help="the scenario (default: 'default' or the first)")
    _seed_option(p, "the game")
    p.add_argument("--interactive", action="store_true",
                   help="a person makes the choices of sides with policy 'ask' (needs a terminal)")
    p.add_argument("--ask", action="append", default=[], metavar="SIDE",
                   help="a person plays this side (repeatable); implies --interactive")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--verbose", "-v", action="store_true",
                     help="the full trace: every roll, lookup, call and change of state")
    how.add_argument("--quiet", "-q", action="store_true", help="only the result")
    how.add_argument("--json", action="store_true",
                     help="JSON lines, one event per line as it happens, the result last")

    p = _command(sub, "odds-game", "exact odds of a whole scenario: winner, length, survivors",
                 ["rulecraft odds-game tests/rulesets/exact_scale.yaml --scenario winch",
                  "rulecraft odds-game tests/rulesets/duel.yaml --turns 10 --json"])
    p.add_argument("ruleset", metavar="RULESET", help=RULESET_HELP)
    p.add_argument("--scenario", help="the scenario (default: the ruleset's first)")
    p.add_argument("--turns", type=positive_int, help="stop after this many turns (a draw there)")
    p.add_argument("--track", action="append", default=[], metavar="EXPR",
                   help="an expression on the state each game ends in (sides by name, units, "
                        "turn, winner)")
    p.add_argument("--given", metavar="EXPR", help="the odds given that this holds at the end")
    p.add_argument("--json", action="store_true", help="the result as JSON")

    p = _command(sub, "simulate", "play a scenario many times and summarise",
                 ["rulecraft simulate tanks --runs 1000 --seed 1",
                  "rulecraft simulate tanks --runs 1000 --compare veteran-crews"])
    p.add_argument("ruleset", metavar="RULESET", help=RULESET_HELP)
    p.add_argument("--scenario", metavar="NAME", help="the scenario (default: 'default' or the first)")
    p.add_argument("--runs", type=positive_int, required=True, metavar="N", help="how many games")
    _seed_option(p, "the first game (game i has seed + i)")
    p.add_argument("--workers", type=positive_int, default=1, metavar="K",
                   help="processes to play on (the summary is the same for every K)")
    p.add_argument("--track", action="append", default=[], metavar="EXPR",
                   help="an expression evaluated at the end of every game (sides by name), summarised")
    p.add_argument("--compare", metavar="HOUSE",
                   help="also play every game under this ruleset (a house rule) with the same seed, "
                        "and show the paired difference")
    p.add_argument("--json", action="store_true", help="the summary as JSON")

    p = _command(sub, "diff", "what a house rule changes, with exact odds before and after",
                 ["rulecraft diff tanks veteran-crews",
                  "rulecraft diff tanks veteran-crews --format html --output diff.html"])
    p.add_argument("base", metavar="BASE", help=RULESET_HELP + ": the rules before")
    p.add_argument("house", metavar="HOUSE", help=RULESET_HELP + ": the rules after (a house rule)")
    p.add_argument("--json", action="store_true", help="the same as --format json")
    p.add_argument("--format", choices=["text", "md", "json", "html"], default="text",
                   help="how the difference is written")
    p.add_argument("--with", action="append", default=[], dest="inputs", metavar="NAME=VALUE",
                   help="also show the odds of each procedure taking this input with it")
    p.add_argument("--track", action="append", default=[], metavar="FIELD",
                   help="also the distribution of this field at the end (e.g. target.destroyed)")
    p.add_argument("--budget", type=float, default=30.0, metavar="SECONDS",
                   help="the longest one exact computation may take (default 30)")
    p.add_argument("--output", metavar="FILE", help="write to this file instead of the terminal")
    p.add_argument("--force", action="store_true", help="overwrite --output if it exists")

    p = _command(sub, "completion", "a shell completion script (ruleset ids, procedures, tables, scenarios)",
                 ["rulecraft completion bash >> ~/.bashrc",
                  "rulecraft completion zsh > ~/.zfunc/_rulecraft",
                  "rulecraft completion fish > ~/.config/fish/completions/rulecraft.fish"])
    p.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell to complete in")

    p = sub.add_parser("__complete")   # what the completion scripts call; not listed
    p.add_argument("words", nargs=argparse.REMAINDER)
    sub._choices_actions = [a for a in sub._choices_actions if a.dest != "__complete"]
