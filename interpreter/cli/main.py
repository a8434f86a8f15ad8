"""The `rulecraft` command: argument parsing and output only; the work is the API's.

Exit codes: 0 success, 1 the rules or the input are wrong, 2 usage errors.  Errors are
printed like a compiler's (file:line:col, the source line, a caret), never a traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from rich.console import Console

from ..errors import RulecraftError, UsageError, format_error

EXIT_OK, EXIT_RULES, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so all output goes one way."""

    def error(self, message):
        raise UsageError(message)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("a seed must not be negative")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rulecraft", description="Rules-as-data interpreter for tabletop wargames.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    p = sub.add_parser("roll", help="roll a dice expression and show every die")
    p.add_argument("expression")
    p.add_argument("--ruleset", help="a bundled ruleset id or a path, whose names the expression may use")
    p.add_argument("--seed", type=_seed)
    p.add_argument("--times", type=_positive_int, default=None, help="roll many times and summarise")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("odds", help="the exact distribution of an expression")
    p.add_argument("expression")
    p.add_argument("--ruleset")
    p.add_argument("--json", action="store_true")

    from . import commands
    commands.add_parsers(sub, _positive_int, _seed)
    for command in sub.choices.values():
        command.add_argument("--allow-outside", action="append", default=[], metavar="PATH",
                             help="let include: and extends: read files in this folder too "
                                  "(by default only files beside or below the rule file)")
    return parser


def _console() -> Console:
    from ..render.terminal import escaping
    return escaping(Console(highlight=False, soft_wrap=False))


def _env_for(ruleset: str | None):
    if not ruleset:
        return {}
    from ..game.api import load_ruleset
    return load_ruleset(ruleset).environment()


def cmd_roll(args, out: Console) -> int:
    from ..expr import rolling
    from ..render.terminal import print_roll, print_summary
    env = _env_for(args.ruleset)
    if args.times:
        progress, bar = None, None
        if not args.json and sys.stderr.isatty() and args.times >= 100_000:
            from rich.progress import Progress
            bar = Progress(console=Console(stderr=True))
            task = bar.add_task("rolling", total=args.times)
            bar.start()
            progress = lambda done: bar.update(task, completed=done)
        try:
            summary = rolling.roll_many(args.expression, args.times, args.seed, env, progress)
        finally:
            if bar is not None:
                bar.stop()
        if args.json:
            print(json.dumps(summary.as_json()))
        else:
            print_summary(out, summary)
        return EXIT_OK
    result = rolling.roll(args.expression, args.seed, env)
    if args.json:
        print(json.dumps(result.as_json()))
    else:
        print_roll(out, result)
    return EXIT_OK


def cmd_odds(args, out: Console) -> int:
    from ..expr import rolling
    from ..lang.parse import parse_expression
    from ..lang.ast import to_text
    from ..render.terminal import print_distribution
    node = parse_expression(args.expression)
    dist = rolling.odds(node, _env_for(args.ruleset))
    if args.json:
        print(json.dumps(rolling.odds_json(to_text(node), dist)))
    else:
        print_distribution(out, to_text(node), dist)
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `rulecraft` command; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.version:
            from .. import __version__
            print(f"rulecraft {__version__}")
            return EXIT_OK
        if not args.command:
            parser.print_help()
            return EXIT_USAGE
        from ..source.load import allow_outside
        allow_outside(args.allow_outside)
        handler = COMMANDS.get(args.command)
        if handler is None:
            from . import commands
            handler = commands.HANDLERS[args.command]
        return handler(args, _console())
    except UsageError as err:
        print(f"rulecraft: usage error: {err.message}", file=sys.stderr)
        if err.hint:
            print(f"    hint: {err.hint}", file=sys.stderr)
        return EXIT_USAGE
    except RulecraftError as err:
        print(format_error(err), file=sys.stderr)
        return EXIT_RULES
    except KeyboardInterrupt:
        print("rulecraft: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except RecursionError:
        print("rulecraft: error: the input nests too deeply to evaluate", file=sys.stderr)
        return EXIT_RULES
    except Exception as err:  # a bug of ours: say so plainly, keep the traceback for debugging
        if os.environ.get("RULECRAFT_DEBUG"):
            raise
        print(f"rulecraft: internal error: {type(err).__name__}: {err}\n"
              f"    this is a bug in rulecraft; set RULECRAFT_DEBUG=1 to see where", file=sys.stderr)
        return EXIT_RULES


COMMANDS = {"roll": cmd_roll, "odds": cmd_odds}

if __name__ == "__main__":
    sys.exit(main())
