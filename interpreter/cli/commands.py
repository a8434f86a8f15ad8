"""The ruleset sub-commands: list, validate, schema, tables, run, play, simulate, diff.

Each handler parses nothing and computes nothing itself: it calls the Python API and
prints the result (rich for people, JSON for programs)."""
from __future__ import annotations

import json
from contextlib import contextmanager
import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..errors import RulecraftError, UsageError, format_error

EXIT_OK, EXIT_RULES, EXIT_USAGE = 0, 1, 2


def add_parsers(sub, positive_int, seed) -> None:
    p = sub.add_parser("list", help="the bundled rulesets")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("validate", help="check rule files: schema and semantic checks")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--strict", action="store_true", help="warnings count as errors")

    p = sub.add_parser("schema", help="where the ruleset JSON Schema is (or print it)")
    p.add_argument("--print", action="store_true", dest="print_schema")

    p = sub.add_parser("tables", help="print a ruleset's tables, resolved")
    p.add_argument("ruleset")
    p.add_argument("tables", nargs="*", metavar="TABLE")
    p.add_argument("--format", choices=["rich", "md", "csv", "json", "html"], default="rich")
    p.add_argument("--odds", action="store_true", help="add each row's exact probability")
    p.add_argument("--with", action="append", default=[], dest="inputs", metavar="NAME=VALUE")
    p.add_argument("--output", help="write to this file instead of the terminal")
    p.add_argument("--force", action="store_true", help="overwrite --output if it exists")

    p = sub.add_parser("run", help="run one procedure, with its transcript or exact odds")
    p.add_argument("ruleset")
    p.add_argument("procedure")
    p.add_argument("--with", action="append", default=[], dest="inputs", metavar="NAME=VALUE")
    p.add_argument("--seed", type=seed)
    p.add_argument("--odds", action="store_true", help="exact distribution of the outcome")
    p.add_argument("--track", action="append", default=[], metavar="EXPR",
                   help="with --odds: also the distribution of this expression on the state the "
                        "procedure ends in (target.destroyed, \"target.hits <= 0\", result)")
    p.add_argument("--given", metavar="EXPR",
                   help="with --odds: the odds given that this holds at the end (\"result != 'miss'\")")
    p.add_argument("--policy", action="append", default=[], metavar="[SIDE=]POLICY",
                   help="how choices are made: first (default), random or prefer; SIDE=POLICY "
                        "for the choices of one unit parameter (e.g. attacker=prefer)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("play", help="play a scenario to its end")
    p.add_argument("ruleset")
    p.add_argument("--scenario")
    p.add_argument("--seed", type=seed)
    p.add_argument("--interactive", action="store_true", help="ask a person at choices of sides with policy 'ask'")
    p.add_argument("--json", action="store_true", help="JSON lines, one event per line, the result last")

    p = sub.add_parser("odds-game", help="exact odds of a whole scenario: winner, length, survivors")
    p.add_argument("ruleset")
    p.add_argument("--scenario")
    p.add_argument("--turns", type=positive_int, help="stop after this many turns (a draw there)")
    p.add_argument("--track", action="append", default=[], metavar="EXPR",
                   help="an expression on the state each game ends in (sides by name, units, turn, winner)")
    p.add_argument("--given", metavar="EXPR", help="the odds given that this holds at the end")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("simulate", help="play a scenario many times and summarise")
    p.add_argument("ruleset")
    p.add_argument("--scenario")
    p.add_argument("--runs", type=positive_int, required=True)
    p.add_argument("--seed", type=seed)
    p.add_argument("--workers", type=positive_int, default=1)
    p.add_argument("--track", action="append", default=[], metavar="EXPR",
                   help="an expression evaluated at the end of every game (sides by name), summarised")
    p.add_argument("--compare", metavar="HOUSE",
                   help="also play every game under this ruleset (a house rule) with the same seed, "
                        "and show the paired difference")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("diff", help="what a house rule changes, with exact odds before and after")
    p.add_argument("base")
    p.add_argument("house")
    p.add_argument("--json", action="store_true", help="the same as --format json")
    p.add_argument("--format", choices=["text", "md", "json", "html"], default="text")
    p.add_argument("--with", action="append", default=[], dest="inputs", metavar="NAME=VALUE",
                   help="also show the odds of each procedure taking this input with it")
    p.add_argument("--track", action="append", default=[], metavar="FIELD",
                   help="also the distribution of this field at the end (e.g. target.destroyed)")
    p.add_argument("--budget", type=float, default=30.0, metavar="SECONDS",
                   help="the longest one exact computation may take (default 30)")
    p.add_argument("--output", help="write to this file instead of the terminal")
    p.add_argument("--force", action="store_true", help="overwrite --output if it exists")


def _say_chain(out: Console, ruleset) -> None:
    """Name the chain of a house-ruled ruleset (`rules: tanks + veteran-crews`)."""
    if len(ruleset.chain) > 1:
        out.print(Text(f"rules: {ruleset.chain_name}", style="dim"))


def _load(ref):
    from ..game.api import load_ruleset
    return load_ruleset(ref)


def cmd_list(args, out: Console) -> int:
    from ..model.build import bundled
    from ..game.api import load_ruleset
    rows = []
    for entry in bundled():
        try:
            r = load_ruleset(entry["path"])
            rows.append({"id": r.id, "title": r.title, "source": r.source,
                         "base": " + ".join(r.chain[:-1]) or None,
                         "tables": len(r.tables), "procedures": len(r.procedures),
                         "scenarios": sorted(r.scenarios)})
        except RulecraftError as err:
            rows.append({"id": entry["id"], "title": "(does not validate)", "source": "",
                         "base": entry.get("base"),
                         "tables": 0, "procedures": 0, "scenarios": [], "error": err.message})
    if args.json:
        print(json.dumps(rows))
        return EXIT_OK
    table = Table(show_edge=False)
    for name in ("id", "base", "title", "source", "tables", "procedures"):
        table.add_column(name, no_wrap=name in ("id", "base"))
    for row in rows:
        table.add_row(row["id"], row["base"] or "", row["title"], row["source"], str(row["tables"]),
                      str(row["procedures"]))
    out.print(table)
    return EXIT_OK


def cmd_validate(args, out: Console) -> int:
    from ..game.api import check_ruleset
    all_findings = []
    for path in args.paths:
        all_findings.extend(check_ruleset(path))
    failing = [f for f in all_findings
               if f.severity == "error" or (args.strict and f.severity == "warning")]
    if args.format == "json":
        print(json.dumps([f.as_json() for f in all_findings], indent=1))
    else:
        for f in all_findings:
            print(format_error(f))
        errors = sum(1 for f in all_findings if f.severity == "error")
        warnings = len(all_findings) - errors
        print(f"{len(args.paths)} file{'s' if len(args.paths) != 1 else ''} checked: "
              f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}",
              file=sys.stderr)
    return EXIT_RULES if failing else EXIT_OK


def cmd_schema(args, out: Console) -> int:
    from ..source.schema import schema_path
    path = schema_path()
    if args.print_schema:
        print(path.read_text(encoding="utf-8"))
    else:
        print(path)
    return EXIT_OK


def cmd_tables(args, out: Console) -> int:
    from ..game.runs import parse_inputs
    from ..render.export import render_tables, write_output
    from ..tables import resolve
    ruleset = _load(args.ruleset)
    names = args.tables or list(ruleset.tables)
    for name in names:
        if name not in ruleset.tables:
            from ..suggest import did_you_mean
            raise UsageError(f"{ruleset.id} has no table {name!r}",
                             hint=did_you_mean(name, ruleset.tables))
    inputs = parse_inputs(args.inputs)
    from ..game.runs import input_value
    with_env = {k: input_value(v, ruleset, k) for k, v in inputs.items()}
    resolved = [resolve(ruleset.tables[n], with_env, odds=args.odds) for n in names]
    meta = {"title": ruleset.title, "source": ruleset.source, "rulings": ruleset.rulings,
            "id": ruleset.id}
    if args.format == "rich" and not args.output:
        from ..render.export import rich_renderables
        out.print(Text(f"{ruleset.title}", style="bold"), Text(f"({ruleset.source})", style="dim"))
        _say_chain(out, ruleset)
        for item in rich_renderables(resolved):
            out.print(item)
        return EXIT_OK
    write_output(render_tables(resolved, args.format, meta), args.output, args.force)
    return EXIT_OK


def cmd_run(args, out: Console) -> int:
    from ..game.runs import parse_inputs, parse_policies
    ruleset = _load(args.ruleset)
    inputs = parse_inputs(args.inputs)
    policies = parse_policies(args.policy)
    if args.odds:
        result = ruleset.run_odds(args.procedure, inputs, args.track, args.given, policies)
        if args.json:
            print(json.dumps(result.as_json()))
            return EXIT_OK
        from ..render.odds import print_procedure_odds
        _say_chain(out, ruleset)
        print_procedure_odds(out, result)
        return EXIT_OK
    if args.track or args.given:
        raise UsageError(f"{'--track' if args.track else '--given'} needs --odds")
    result = ruleset.run(args.procedure, inputs, args.seed, policies)
    if args.json:
        print(json.dumps(result.as_json()))
        return EXIT_OK
    from ..render.terminal import print_events
    out.print(Text(f"{ruleset.title}: {args.procedure} (seed {result.seed})", style="bold"))
    _say_chain(out, ruleset)
    print_events(out, result.events)
    from ..expr.values import json_value
    out.print(Text("result: ", style="bold").append(str(json_value(result.result)), style="bold green"))
    return EXIT_OK


def cmd_play(args, out: Console) -> int:
    ruleset = _load(args.ruleset)
    result = ruleset.play(args.scenario, args.seed, prompt=terminal_prompt if args.interactive else None)
    if args.json:
        for event in result.events:
            print(json.dumps(event))
        print(json.dumps(result.as_json()))
        return EXIT_OK
    from ..render.terminal import print_events
    out.print(Text(f"{ruleset.title}: scenario {result.scenario} (seed {result.seed})", style="bold"))
    _say_chain(out, ruleset)
    print_events(out, result.events)
    return EXIT_OK


def cmd_odds_game(args, out: Console) -> int:
    ruleset = _load(args.ruleset)
    result = ruleset.odds_game(args.scenario, args.turns, args.track, args.given)
    if args.json:
        print(json.dumps(result.as_json()))
        return EXIT_OK
    from ..render.odds import print_game_odds
    _say_chain(out, ruleset)
    print_game_odds(out, ruleset, result)
    return EXIT_OK


def cmd_diff(args, out: Console) -> int:
    from ..game.diff import diff_rulesets
    from ..game.runs import parse_inputs
    from ..render.diff import RENDERERS
    from ..render.export import write_output
    if args.budget <= 0:
        raise UsageError("--budget must be a positive number of seconds")
    base, house = _load(args.base), _load(args.house)
    result = diff_rulesets(base, house, parse_inputs(args.inputs), budget=args.budget,
                           track=args.track)
    write_output(RENDERERS["json" if args.json else args.format](result), args.output, args.force)
    return EXIT_OK


@contextmanager
def _progress_bar(args, label: str):
    """`progress(done)` for a long run: a bar on a terminal, nothing for --json or a pipe."""
    if args.json or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import Progress
    bar = Progress(console=Console(stderr=True))
    task = bar.add_task(label, total=args.runs)
    bar.start()
    try:
        yield lambda done: bar.update(task, completed=done)
    finally:
        bar.stop()


def cmd_compare(args, out: Console) -> int:
    from ..game.play import NO_WINNER
    from ..game.compare import compare
    base, house = _load(args.ruleset), _load(args.compare)
    with _progress_bar(args, "simulating both") as progress:
        result = compare(base, house, args.scenario, args.runs, args.seed, progress, args.track,
                         args.workers)
    data = result.as_json()
    if args.json:
        print(json.dumps(data))
        return EXIT_OK
    out.print(Text(f"{data['base']} vs {data['house']}: scenario {data['scenario']}, "
                   f"{data['runs']} games each, seed {data['seed']} (game i has the same seed "
                   f"on both sides)", style="bold"))
    table = Table("", "before", "after", "change (paired 95% interval)", show_edge=False)
    for side, diff in data["difference"]["win_rate"].items():
        b = data["before"]["results"].get(side, {"rate": 0.0})["rate"]
        a = data["after"]["results"].get(side, {"rate": 0.0})["rate"]
        low, high = diff["ci95"]
        table.add_row(side if side == NO_WINNER else f"{side} wins", f"{b:.1%}", f"{a:.1%}",
                      f"{diff['mean'] * 100:+.1f} pp [{low * 100:+.1f}, {high * 100:+.1f}]")
    turns = data["difference"]["turns"]
    table.add_row("mean game length (turns)", f"{data['before']['turns']['mean']:.2f}",
                  f"{data['after']['turns']['mean']:.2f}",
                  f"{turns['mean']:+.2f} [{turns['ci95'][0]:+.2f}, {turns['ci95'][1]:+.2f}]")
    out.print(table)
    out.print(f"same winner in {data['difference']['same_winner']} of {data['runs']} games")
    return EXIT_OK


def cmd_simulate(args, out: Console) -> int:
    from ..game.simulate import simulate
    if args.compare:
        return cmd_compare(args, out)
    ruleset = _load(args.ruleset)
    with _progress_bar(args, "simulating") as progress:
        summary = simulate(ruleset, args.scenario, args.runs, args.seed, args.workers, progress,
                           args.track)
    data = summary.as_json()
    data["ruleset"] = ruleset.chain_name
    data["chain"] = ruleset.chain
    if args.json:
        print(json.dumps(data))
        return EXIT_OK
    from ..render.terminal import print_simulation
    _say_chain(out, ruleset)
    print_simulation(out, ruleset, data)
    return EXIT_OK


def terminal_prompt(step, options, side):
    """Ask a person at the terminal (play --interactive)."""
    from ..game.policies import option_text
    print(f"{side.name if side else ''}: choose {step.var}:")
    for i, option in enumerate(options, 1):
        print(f"  {i}. {option_text(option)}")
    while True:
        try:
            answer = input("> ").strip()
        except EOFError:
            return options[0]
        if answer.isdigit() and 1 <= int(answer) <= len(options):
            return options[int(answer) - 1]
        print(f"type a number from 1 to {len(options)}")


HANDLERS = {"list": cmd_list, "validate": cmd_validate, "schema": cmd_schema,
            "tables": cmd_tables, "run": cmd_run, "play": cmd_play, "simulate": cmd_simulate,
            "diff": cmd_diff, "odds-game": cmd_odds_game}
