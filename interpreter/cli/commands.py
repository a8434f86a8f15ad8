"""The ruleset sub-commands: list, validate, schema, tables, run, play, simulate, diff.

Each handler parses nothing and computes nothing itself: it calls the Python API and
prints the result (rich for people, JSON for programs)."""
from __future__ import annotations

from contextlib import contextmanager
import sys

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from ..render.styled import Styled

from ..errors import RulecraftError, UsageError, format_error

EXIT_OK, EXIT_RULES, EXIT_USAGE, EXIT_STOPPED = 0, 1, 2, 3


def _text(text: str = "", style: str = "") -> Styled:
    """Styled text, rich's `Text` made only where rich draws it (render/styled.py):
    `validate`, `schema` and every --json output print none, and to a file or a pipe
    none is made."""
    from ..render.styled import Styled
    return Styled(text, style=style)


def _say_chain(out: Console, ruleset) -> None:
    """Name the chain of a house-ruled ruleset (`rules: tanks + veteran-crews`)."""
    if len(ruleset.chain) > 1:
        out.print(_text(f"rules: {ruleset.chain_name}", style="dim"))


def _load(ref):
    from ..game.api import load_ruleset
    return load_ruleset(ref)


def cmd_list(args, out: Console) -> int:
    from ..model.paths import bundled
    from ..game.api import load_ruleset
    from ..game.rules_cache import read_summary
    rows = []
    for entry in bundled():
        kept = read_summary(entry["path"])   # a kept model's head: the model is not read
        if kept is not None:
            rows.append({"id": kept["id"], "title": kept["title"], "source": kept["source"],
                         "base": " + ".join(kept["chain"][:-1]) or None,
                         "tables": kept["tables"], "procedures": kept["procedures"],
                         "scenarios": kept["scenarios"]})
            continue
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
        import json   # here, as in main.py: a command's start need not load it
        print(json.dumps(rows))
        return EXIT_OK
    from rich.table import Table   # here: only the commands that draw a table load it
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
        import json
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
    asked = list(args.tables) + list(args.only or [])
    names = asked or list(ruleset.tables)
    for name in names:
        if name not in ruleset.tables:
            from ..suggest import did_you_mean
            raise UsageError(f"{ruleset.id} has no table {name!r}",
                             hint=did_you_mean(name, ruleset.tables))
    inputs = parse_inputs(args.inputs)
    from ..game.inputs import check_table_inputs
    from ..game.runs import input_value
    check_table_inputs([ruleset.tables[n] for n in names], inputs)
    with_env = {k: input_value(v, ruleset, k) for k, v in inputs.items()}
    resolved = [resolve(ruleset.tables[n], with_env, odds=args.odds) for n in names]
    meta = {"title": ruleset.title, "source": ruleset.source, "rulings": ruleset.rulings,
            "id": ruleset.id, "full": args.full, "asked": bool(asked)}
    if args.format == "rich" and not args.output:
        from ..render.export import rich_renderables
        out.print(_text(f"{ruleset.title}", style="bold"), _text(f"({ruleset.source})", style="dim"))
        _say_chain(out, ruleset)
        for item in rich_renderables(resolved):
            out.print(item)
        return EXIT_OK
    if args.format == "csv" and args.output and not args.output.endswith(".csv"):
        from ..render.export import csv_files, write_files
        for path in write_files(args.output, csv_files(resolved), args.force):
            print(path)
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
            import json
            print(json.dumps(result.as_json()))
            return EXIT_OK
        order = ruleset.procedures[args.procedure].outcomes
        if args.format != "text":
            from ..render.chart import render_html, render_svg
            from ..render.export import write_output
            series = [(f"{args.procedure}", result.outcomes)] + list(result.tracked.items())
            chart = (render_svg if args.format == "svg" else render_html)(
                series[:1], f"{ruleset.title}: {args.procedure}", order)
            write_output(chart, args.output, args.force)
            return EXIT_OK
        from ..render.odds import print_procedure_odds
        _say_chain(out, ruleset)
        print_procedure_odds(out, result, order)
        return EXIT_OK
    if args.track or args.given:
        raise UsageError(f"{'--track' if args.track else '--given'} needs --odds")
    if args.format != "text":
        raise UsageError(f"--format {args.format} draws the exact odds: add --odds")
    result = ruleset.run(args.procedure, inputs, args.seed, policies)
    if args.json:
        import json
        print(json.dumps(result.as_json()))
        return EXIT_OK
    from ..render.terminal import print_events
    out.print(_text(f"{ruleset.title}: {args.procedure} (seed {result.seed})", style="bold"))
    _say_chain(out, ruleset)
    print_events(out, result.events)
    from ..render.text import clean
    from ..run.sampled import value_text
    out.print(_text("result: ", style="bold").append(clean(value_text(result.result)),
                                                    style="bold green"))
    return EXIT_OK


def cmd_play(args, out: Console) -> int:
    from ..game.play import scenario_of
    from ..game.policies import GameStopped, PersonAsks
    from ..render.story import JsonTeller, StoryTeller
    ruleset = _load(args.ruleset)
    getattr(args, "started", lambda: None)()   # cli/main.py: the quiet start ends here
    asking = bool(args.ask) or args.interactive
    prompt = None
    if asking:
        scenario = scenario_of(ruleset, args.scenario)
        sides = [n for n, s in scenario.sides.items() if s["policy"] == "ask"] + list(args.ask)
        if not sides:
            raise UsageError(f"no side of scenario {scenario.name!r} is played by a person "
                             f"(policy ask)", hint="name one with --ask SIDE: "
                             + ", ".join(scenario.sides))
        if not sys.stdin.isatty():
            raise UsageError("--interactive and --ask need a terminal to ask at; stdin is not one",
                             hint="run it in a terminal, or play without --interactive/--ask")
    teller = JsonTeller() if args.json else StoryTeller(
        out, "verbose" if args.verbose else "quiet" if args.quiet else "story")
    if asking:   # with --json the questions go to stderr, so stdout stays JSON lines
        from rich.console import Console
        from ..render.prompt import PromptOdds   # the odds shown at a question: only when asking
        asker = Console(stderr=True, highlight=False) if args.json else out
        prompt = PersonAsks(_read_answer if args.json else input,
                            lambda text: asker.print(_text(text)),
                            getattr(teller, "tell_so_far", None), PromptOdds(ruleset))
    if not args.json:
        out.print(_text(f"{ruleset.title}: scenario {args.scenario or scenario_of(ruleset, None).name}"
                       + (f" (seed {args.seed})" if args.seed is not None else ""), style="bold"))
        _say_chain(out, ruleset)
    try:
        result = ruleset.play(args.scenario, args.seed, prompt=prompt, observer=teller,
                              ask=tuple(args.ask))
    except GameStopped as stop:
        print(f"rulecraft: {stop}; the story so far is above", file=sys.stderr)
        return EXIT_STOPPED
    teller.finish(result)
    if not args.json and args.seed is None:
        out.print(_text(f"(seed {result.seed}: play it again with --seed {result.seed})", style="dim"))
    return EXIT_OK


def _read_answer(question: str) -> str:
    """input() with its question on stderr (play --json --interactive)."""
    sys.stderr.write(question)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def cmd_odds_game(args, out: Console) -> int:
    ruleset = _load(args.ruleset)
    result = ruleset.odds_game(args.scenario, args.turns, args.track, args.given)
    if args.json:
        import json
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
    from rich.console import Console
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
        import json
        print(json.dumps(data))
        return EXIT_OK
    out.print(_text(f"{data['base']} vs {data['house']}: scenario {data['scenario']}, "
                   f"{data['runs']} games each, seed {data['seed']} (game i has the same seed "
                   f"on both sides)", style="bold"))
    from rich.table import Table   # as in cmd_list
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
        import json
        print(json.dumps(data))
        return EXIT_OK
    from ..render.terminal import print_simulation
    _say_chain(out, ruleset)
    print_simulation(out, ruleset, data)
    return EXIT_OK


def cmd_info(args, out: Console) -> int:
    from ..game.info import ruleset_info
    from ..render.info import print_info
    info = ruleset_info(_load(args.ruleset))
    if args.json:
        import json
        print(json.dumps(info))
    else:
        print_info(out, info)
    return EXIT_OK


def cmd_new(args, out: Console) -> int:
    from ..game.new import new_ruleset
    written = new_ruleset(args.path, args.base, args.force)
    for path in written:
        out.print(_text(f"wrote {path}"))
    main = written[0]
    out.print(_text(f"next: rulecraft validate {main}   then: rulecraft play {main}", style="dim"))
    return EXIT_OK


def cmd_completion(args, out: Console) -> int:
    from .complete import SCRIPTS
    sys.stdout.write(SCRIPTS[args.shell])
    return EXIT_OK


def cmd_complete(args, out: Console) -> int:
    from .complete import candidates
    from .parsers import build_parser
    for word in candidates(build_parser(), args.words):
        print(word)
    return EXIT_OK


HANDLERS = {"list": cmd_list, "validate": cmd_validate, "schema": cmd_schema,
            "tables": cmd_tables, "run": cmd_run, "play": cmd_play, "simulate": cmd_simulate,
            "diff": cmd_diff, "info": cmd_info, "new": cmd_new, "completion": cmd_completion,
            "__complete": cmd_complete, "odds-game": cmd_odds_game}
