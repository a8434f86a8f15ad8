"""The `rulecraft` command: argument parsing and output only; the work is the API's.

Exit codes: 0 success, 1 the rules or the input are wrong, 2 usage errors.  Errors are
printed like a compiler's (file:line:col, the source line, a caret), never a traceback.
"""
from __future__ import annotations

import gc
import os
import sys
from typing import TYPE_CHECKING

from ..errors import RulecraftError, UsageError, format_error, printable
from .parsers import COMMAND_NAMES, Parser, build_parser

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK, EXIT_RULES, EXIT_USAGE = 0, 1, 2


def _console() -> Console:
    # rich's console to a terminal; to a file or a pipe, where rich writes the text alone,
    # a plain one that need not load rich's (render/console.py)
    from ..render.console import stdout_console
    return stdout_console()


def _env_for(ruleset: str | None):
    """(the names an expression may use, the ruleset's step and exact-work budgets)."""
    if not ruleset:
        return {}, (None, None)
    from ..game.api import load_ruleset
    rules = load_ruleset(ruleset)
    return rules.environment(), (rules.budget("steps"), rules.budget("forks"))


def cmd_roll(args, out: Console) -> int:
    from ..expr import budget
    env, limits = _env_for(args.ruleset)
    with budget.ruleset_budget(*limits):   # a raised `budgets: {steps: N}` holds here too
        return _roll(args, out, env)


def _roll(args, out: Console, env) -> int:
    from ..expr import rolling
    from ..render.terminal import print_roll, print_summary
    if args.times:
        progress, bar = None, None
        if not args.json and sys.stderr.isatty() and args.times >= 100_000:
            from rich.console import Console
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
            import json   # here, as in the other --json branches: a plain roll need not load it
            print(json.dumps(summary.as_json()))
        else:
            print_summary(out, summary)
        return EXIT_OK
    result = rolling.roll(args.expression, args.seed, env)
    if args.json:
        import json
        print(json.dumps(result.as_json()))
    else:
        print_roll(out, result)
    return EXIT_OK


def cmd_odds(args, out: Console) -> int:
    from ..expr import budget
    env, limits = _env_for(args.ruleset)
    with budget.ruleset_budget(*limits):
        return _odds(args, out, env)


def _odds(args, out: Console, env) -> int:
    from ..expr import rolling
    from ..lang.parse import parse_expression
    from ..lang.ast import to_text
    from ..render.terminal import print_comparison, print_distribution
    series = []
    for text in args.expressions:
        node = parse_expression(text)
        series.append((to_text(node), rolling.odds(node, env)))
    if args.json:
        import json
        shown = [rolling.odds_json(label, dist) for label, dist in series]
        print(json.dumps(shown[0] if len(shown) == 1 else shown))
        return EXIT_OK
    if args.format != "text":
        from ..render.chart import render_html, render_svg
        from ..render.export import write_output
        title = " vs ".join(label for label, _ in series)
        chart = (render_svg if args.format == "svg" else render_html)(series, title)
        write_output(chart, args.output, args.force)
        return EXIT_OK
    if len(series) == 1:
        print_distribution(out, *series[0])
    else:
        print_comparison(out, series)
    return EXIT_OK


def _parse(argv: list[str]):
    """The arguments, parsed by a parser of the one command named first (the common
    case: `rulecraft roll 2d6`); anything it refuses, or a command not named first, goes
    to the whole parser, so that every message is the whole parser's."""
    if argv and argv[0] in COMMAND_NAMES:
        try:
            return build_parser(only=argv[0]).parse_args(argv)
        except UsageError:
            pass
    return build_parser().parse_args(argv)


def _quiet_start() -> bool:
    """Hold the cycle collector off while the command starts (see `started`); whether it
    was on before, for `main` to put back."""
    was_on = gc.isenabled()
    gc.disable()
    return was_on


def started(was_on: bool = True) -> None:
    """The start is over: what it made (the modules, the parser, a loaded ruleset) is
    frozen out of every later collection and the collector is turned back on.

    Why: a start makes some hundred thousand objects that all live to the end, and the
    collector walked each of them twice on the way to its oldest generation (60 young
    and 5 middle passes in `play tanks`, 10-35 ms of a 250 ms command).  Nothing is freed
    differently: the objects are alive, and cycles made later are collected as before."""
    if was_on and not gc.isenabled():
        gc.freeze()
        gc.enable()


# the commands whose handler calls `started` itself once its ruleset is loaded, so that
# its own imports and the load are part of the quiet start; every other command's start
# ends before its handler runs
STARTS_IN_HANDLER = ("play",)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `rulecraft` command; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    was_on = _quiet_start()
    try:
        return _main(argv, was_on)
    finally:
        if was_on:   # as it was, for a caller in the same process (the tests)
            gc.unfreeze()
            gc.enable()


def _main(argv: list[str], was_on: bool) -> int:
    try:
        Parser.argv = list(argv)
        args = _parse(argv)
        if args.version:
            from .. import __version__
            print(f"rulecraft {__version__}")
            return EXIT_OK
        if not args.command:
            build_parser().print_help()
            return EXIT_USAGE
        if args.allow_outside or "interpreter.source.load" in sys.modules:
            # only then: a command that reads no rule file (roll) need not import the
            # loader and YAML; the loader's list starts empty anyway
            from ..source.load import allow_outside
            allow_outside(args.allow_outside)
        handler = COMMANDS.get(args.command)
        if handler is None:
            from . import commands
            handler = commands.HANDLERS[args.command]
        if args.command in STARTS_IN_HANDLER:
            args.started = lambda: started(was_on)
        else:
            started(was_on)
        return handler(args, _console())
    except UsageError as err:
        # a usage error may quote what was typed (a file name): shown escaped
        print(f"rulecraft: usage error: {printable(err.message)}", file=sys.stderr)
        if err.hint:
            print(f"    hint: {printable(err.hint)}", file=sys.stderr)
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


def run() -> None:
    """The process's entry point (the `rulecraft` script, `python -m interpreter`): the
    command, its output flushed, then the process ends without tearing its heap down.

    Why: a command that worked hard (an exact enumeration refused at its budget, a long
    game) leaves a few hundred thousand objects, and Python's exit frees every one of them
    and collects them once more: 0.1-0.4 s of CPU after the answer is printed, counted in
    the command's time (benchmarks/README.md, refuse3).  Nothing is left to do at exit:
    files are written and closed by the commands themselves (atomically, resources.py),
    worker pools are closed by their `with`, and nothing registers an `atexit` hook."""
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:   # the reader went away: answered as `_main` answers it
        pass
    except OSError as err:   # a full disk, say: what Python's own exit would complain of
        print(f"rulecraft: error: the output could not be written: {err}", file=sys.stderr)
        code = EXIT_RULES
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)


COMMANDS = {"roll": cmd_roll, "odds": cmd_odds}

if __name__ == "__main__":
    run()
