"""Before and after, without start-up: the same `simulate` by two source trees (or one
tree with and without the code generator), each in one long-lived process that loads
the ruleset once, warms up, then plays `--games` games whenever it is told to; the two
take turns for `--rounds` rounds (the order alternating), each round timed in the
worker's own CPU time (`time.process_time`).  Every round's summary (`as_json`, hashed)
must be the same on both sides, else the script says NOT THE SAME RESULTS.

A side is a tree's path, or `PATH:closures` for that tree with RULECRAFT_NO_CODEGEN=1
(steps compiled to the reference closures instead of Python source).
benchmarks/versions.py times whole processes, start-up included; this times the games.

    python benchmarks/warm_versions.py BEFORE AFTER [--ruleset tanks] [--scenario NAME]
                                       [--games 200] [--rounds 8] [--seed 1]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

WORKER = r'''
import hashlib, json, sys, time
sys.path.insert(0, sys.argv[1])
import interpreter
from interpreter.game.simulate import simulate
rules = interpreter.load(sys.argv[2])
seed = int(sys.argv[3])
scenario = sys.argv[4] or None
simulate(rules, scenario, int(sys.argv[5]), seed)   # the warm-up
for line in sys.stdin:
    start = time.process_time()
    summary = simulate(rules, scenario, int(line), seed)
    taken = time.process_time() - start
    print(taken, hashlib.sha256(json.dumps(summary.as_json(), sort_keys=True).encode()).hexdigest(),
          flush=True)
'''


def start(side: str, ruleset: str, seed: int, scenario: str, warm: int) -> subprocess.Popen:
    tree, _, mode = side.partition(":")
    env = dict(os.environ)
    if mode == "closures":
        env["RULECRAFT_NO_CODEGEN"] = "1"
    path = ruleset if os.path.sep in ruleset else os.path.join(tree, "rules", ruleset, f"{ruleset}.yaml")
    return subprocess.Popen([sys.executable, "-c", WORKER, tree, path, str(seed), scenario or "",
                             str(warm)], cwd=tree,
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--ruleset", default="tanks")
    parser.add_argument("--scenario", help="the ruleset's default scenario if not given")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sides = [args.before, args.after]
    workers = {side: start(side, args.ruleset, args.seed, args.scenario, min(20, args.games))
               for side in sides}
    times = {side: [] for side in sides}
    summaries, ratios = set(), []
    for r in range(args.rounds):
        taken = {}
        for side in (sides if r % 2 == 0 else sides[::-1]):
            worker = workers[side]
            worker.stdin.write(f"{args.games}\n")
            worker.stdin.flush()
            line = worker.stdout.readline().split()
            if not line:
                raise SystemExit(f"{side}: the worker stopped")
            taken[side] = float(line[0])
            times[side].append(taken[side])
            summaries.add(line[1])
        ratios.append(taken[args.after] / taken[args.before])
    for worker in workers.values():
        worker.stdin.close()
        worker.wait()
    if len(summaries) != 1:
        print("NOT THE SAME RESULTS")
        sys.exit(1)
    print(f"{args.ruleset}{' ' + args.scenario if args.scenario else ''}, {args.rounds} rounds "
          f"x {args.games} games per side, taking turns, "
          f"CPU time; load average {os.getloadavg()[0]:.1f}\n")
    print("| side | games/s best / median / worst |")
    print("|---|---:|")
    for side in sides:
        rates = sorted(args.games / t for t in times[side])
        print(f"| {side} | {rates[-1]:,.1f} / {statistics.median(rates):,.1f} / {rates[0]:,.1f} |")
    print(f"\nafter/before CPU time: medians "
          f"{statistics.median(times[args.after]) / statistics.median(times[args.before]):.2f}x, "
          f"per round {min(ratios):.2f}x-{max(ratios):.2f}x; summaries identical in every round")


if __name__ == "__main__":
    main()
