"""`rulecraft odds-game` against `rulecraft simulate`: the exact chance of each winner
must lie in the 95% Wilson interval of the simulated frequency (issue #12's check; the
test suite makes the same check with 2,000 games and a 99.9% interval).

    python benchmarks/odds_game_check.py [--ruleset tests/rulesets/exact_scale.yaml]
                                         [--scenario winch] [--runs 20000] [--seed 1]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _internal import load_ruleset, simulate  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default=str(ROOT / "tests" / "rulesets" / "exact_scale.yaml"))
    parser.add_argument("--scenario", default="winch")
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from interpreter.game.simulate import wilson
    rules = load_ruleset(args.ruleset)
    start = time.process_time()
    odds = rules.odds_game(args.scenario)
    exact_s = time.process_time() - start
    start = time.process_time()
    summary = simulate(rules, args.scenario, args.runs, args.seed)
    sim_s = time.process_time() - start
    print(f"{args.scenario}: odds-game {exact_s:.2f} s CPU, simulate --runs {args.runs:,} "
          f"--seed {args.seed} {sim_s:.2f} s CPU\n")
    print("| winner | exact | simulated | 95% interval | inside |")
    print("|---|---:|---:|---:|---|")
    ok = True
    for side in odds.winner.values():
        games = summary.wins.get(side, 0)
        low, high = wilson(games, args.runs)
        p = float(odds.winner.probability(side))
        inside = low <= p <= high
        ok &= inside
        print(f"| {side} | {p:.5f} | {games / args.runs:.5f} | {low:.5f}-{high:.5f} | "
              f"{'yes' if inside else 'NO'} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
