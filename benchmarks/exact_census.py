"""Where the work of one procedure's exact odds goes (issue #16): how many times each
called procedure is called, enumerated afresh, and answered by the same call made before
in the same game; how many remembered calls were made again in another game from what
they read (a replay: a copy of that game with the call's changes); how many states (each
a distinct game) enter and leave each pass of every `for` loop working on more than one;
and how many values each tracked expression takes at the end, which is all the question
reads of those states.  The default case is the whole LRM 10 `attack` of rules/mech-d20
(the Boar at the Warthog, their own cards, range 8), which the exact-work budget
refuses: `--lift` raises the budget to its ceiling so that the census runs to the end.

    python benchmarks/exact_census.py [TREE] [--lift] [--ruleset PATH --procedure NAME
        --with NAME=VALUE ... --track EXPR ...]

(the attack's inputs and track are the defaults of the default case only), e.g. the
test ruleset's volley: `--ruleset tests/rulesets/exact_scale.yaml --procedure mech_volley`.

The census wraps functions of the exact-call machinery (benchmarks/_internal.py), so its
own CPU time is a little above an unwrapped run's; compare trees with exact_mech.py.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ATTACK = {"weapon": 'weapons["LRM 10"]', "attacker": 'mechs["Boar"]',
          "target": 'mechs["Warthog"]', "range": "8"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--ruleset", default="rules/mech-d20/mech-d20.yaml",
                        help="relative to the tree")
    parser.add_argument("--procedure", default="attack")
    parser.add_argument("--with", dest="inputs", action="append", default=None, metavar="NAME=VALUE")
    parser.add_argument("--track", action="append", default=None)
    parser.add_argument("--lift", action="store_true", help="raise `forks` to its ceiling")
    args = parser.parse_args()
    tree = Path(args.tree)
    sys.path.insert(0, str(tree))
    sys.path.insert(0, str(tree / "benchmarks"))
    from _internal import census_hooks, load_ruleset, rulecraft_error

    default = args.ruleset == parser.get_default("ruleset") and \
        args.procedure == parser.get_default("procedure")   # the issue's case
    inputs = dict(i.split("=", 1) for i in args.inputs or []) if args.inputs or not default \
        else dict(ATTACK)
    track = args.track or (["target.locations.centre_torso.armour"] if default else [])
    rules = load_ruleset(tree / args.ruleset)
    hooks = census_hooks(rules)
    if args.lift:
        rules.budgets["forks"] = hooks.forks_ceiling
    calls, fresh, made, replays = Counter(), Counter(), Counter(), [0]
    passes: list = []
    runs: list = []
    hooks.wrap(calls=calls, fresh=fresh, made=made, replays=replays, passes=passes, runs=runs)
    start = time.process_time()
    try:
        odds = rules.run_odds(args.procedure, inputs, track=track)
        outcome = f"{odds.outcomes}"
    except rulecraft_error() as refused:
        odds, outcome = None, f"refused: {str(refused).splitlines()[0]}"
    spent = time.process_time() - start
    hooks.unwrap()
    work = runs[0].work if runs else 0   # the top-level enumeration's
    print(f"{args.procedure}: {spent:.2f} s CPU, {outcome}")
    if odds is not None:
        print(f"weighed work (against `forks`): {work:,}")
    print(f"{'procedure':<20} {'calls':>8} {'enumerated':>11} {'same game':>10}")
    for name, n in calls.most_common():
        print(f"{name:<20} {n:>8,} {fresh[name]:>11,} {made[name]:>10,}")
    print(f"replays (remembered changes made in another game): {replays[0]:,}")
    for line, n_in, n_out in passes:
        print(f"for loop, line {line}: a pass from {n_in:,} states to {n_out:,}")
    if odds is not None:
        for text, dist in odds.tracked.items():
            print(f"--track {text}: {len(dist.values())} values")


if __name__ == "__main__":
    main()
