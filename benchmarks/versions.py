"""Before and after: the same `simulate` command run by two source trees of rulecraft
(say a checkout of `main` and this one), as whole fresh processes, taking turns.

Each round runs `rulecraft simulate RULESET --runs N --seed S --json` once with each
tree's `interpreter` package first on `sys.path` (the order alternating from round to
round), and takes the child's CPU time (user + system, from `os.wait4`).  Before timing,
and in every round, the two trees' JSON summaries must be identical: a speed-up that
changes a result is a bug, and the script says NOT THE SAME RESULTS and times nothing.
Reported: each tree's best / median / worst round, and after/before of the medians with
the range of the ratio within a round.

    python benchmarks/versions.py --before /path/to/other/checkout [--ruleset tanks]
                                  [--games 300] [--rounds 8] [--seed 1]
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# as a user's Python runs: bytecode kept (see startup.py); the untimed round writes it
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
RUN = ("import sys; sys.path.insert(0, sys.argv[1]); from interpreter.cli.main import main; "
       "sys.exit(main(sys.argv[2:]))")


def run_once(tree: Path, args: list[str]) -> tuple[float, str]:
    """(CPU seconds of the child, its standard output); stops the script if it fails."""
    before = os.times()
    proc = subprocess.run([sys.executable, "-c", RUN, str(tree), *args], cwd=tree,
                          capture_output=True, text=True, env=CHILD_ENV)
    after = os.times()
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: exit {proc.returncode}: {proc.stderr.strip()[-500:]}")
    cpu = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    return cpu, proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, type=Path, help="the other source tree")
    parser.add_argument("--after", type=Path, default=ROOT, help="default: this tree")
    parser.add_argument("--ruleset", default="tanks")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    opts = parser.parse_args()
    args = ["simulate", opts.ruleset, "--runs", str(opts.games), "--seed", str(opts.seed),
            "--json"]
    trees = {"before": opts.before.resolve(), "after": opts.after.resolve()}
    first = {name: run_once(tree, args)[1] for name, tree in trees.items()}   # untimed
    print(f"`rulecraft {' '.join(args)}`, whole processes, {opts.rounds} rounds taking turns, "
          f"CPU time; Python {platform.python_version()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC")
    print(f"before = {trees['before']}, after = {trees['after']}\n")
    if first["before"] != first["after"]:
        print("NOT THE SAME RESULTS: the two trees' summaries differ; nothing timed")
        raise SystemExit(1)
    times: dict = {name: [] for name in trees}
    ratios = []
    for r in range(opts.rounds):
        order = list(trees) if r % 2 == 0 else list(reversed(trees))
        spent = {}
        for name in order:
            cpu, out = run_once(trees[name], args)
            if out != first[name]:
                print(f"NOT THE SAME RESULTS: {name} gave another summary in round {r + 1}")
                raise SystemExit(1)
            spent[name] = cpu
            times[name].append(cpu)
        ratios.append(spent["after"] / spent["before"])
    print("| tree | CPU s best / median / worst |")
    print("|---|---:|")
    for name in trees:
        t = sorted(times[name])
        print(f"| {name} | {t[0]:.2f} / {statistics.median(t):.2f} / {t[-1]:.2f} |")
    median = statistics.median(times["after"]) / statistics.median(times["before"])
    print(f"\nafter/before: medians {median:.2f}x, per round {min(ratios):.2f}x-{max(ratios):.2f}x; "
          f"summaries identical in every round")


if __name__ == "__main__":
    main()
