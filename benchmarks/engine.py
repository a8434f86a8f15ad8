"""Engine: a rulebook procedure through the interpreter against the same procedure
hand-written in plain Python (the floor for an interpreter), and whole games per second.

Procedures: `rules/tanks/tanks.yaml` `shoot` (a vehicle's shot: to hit, strength + D6
against armour, the glancing or penetrating table, the row's effect) and the `attack` of
`benchmarks/duel.yaml` (a small melee ruleset: d10 to hit with modifiers and naturals,
d10 for damage, destroy or shaken).  The interpreter side is
`load_ruleset(path).sampler(procedure, {})` - everything compiled once, the units reset
before each run, no transcript - called as `run(rng)`; the hand-written side
(benchmarks/hand_written.py) resets its units too and draws from the random stream in
the same order, so the script first asserts that, for the same seed, both give the same
outcome on every one of 20,000 runs.  Then the two sides take turns, 40 rounds of
10,000 runs each (CPU time, `time.process_time`), and each side's best round is
reported: short rounds taken in turn mean a slow spell of a shared machine hits both
sides alike (with 9 rounds of 100,000 the ratio moved between 1.7x and 2.2x from one
run to the next; with these it stays within a few hundredths).

Games: `simulate(ruleset, None, runs=200, seed=1)` (the default scenario, no transcript,
one process) for every bundled ruleset that validates and for the duel; best of 3.

    python benchmarks/engine.py [--runs 10000] [--rounds 40] [--games 200]
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import hand_written as hw  # noqa: E402

# (label, ruleset, procedure, hand-written run(rng, *units), the hand-written units)
PROCEDURES = [
    ("tanks `shoot`", ROOT / "rules" / "tanks" / "tanks.yaml", "shoot", hw.tanks_shoot_run,
     lambda: (hw.Vehicle(), hw.Vehicle())),
    ("duel `attack`", ROOT / "benchmarks" / "duel.yaml", "attack", hw.duel_attack_run,
     lambda: (hw.Unit("attacker"), hw.Unit("target"))),
]


def seconds(fn, rng_seed: int, runs: int) -> float:
    """CPU time of `runs` calls fn(rng)."""
    rng = random.Random(rng_seed)
    start = time.process_time()
    for _ in range(runs):
        fn(rng)
    return time.process_time() - start


def best_seconds(sides, rng_seed: int, runs: int, rounds: int) -> list[float]:
    """For each function, the best of `rounds` timings of `runs` calls, the sides taking
    turns round by round, so that a busy spell of the machine hits them alike."""
    best = [float("inf")] * len(sides)
    for _ in range(rounds):
        for i, fn in enumerate(sides):
            best[i] = min(best[i], seconds(fn, rng_seed, runs))
    return best


def bundled_rulesets() -> list[Path]:
    return sorted(p for d in (ROOT / "rules").iterdir() if d.is_dir()
                  for p in d.glob("*.yaml") if p.stem == d.name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    from interpreter.game.simulate import simulate
    from interpreter.errors import RulecraftError
    from interpreter.game.api import load_ruleset

    print(f"procedure runs: best of {args.rounds} rounds x {args.runs:,} runs, CPU time; "
          f"Python {sys.version.split()[0]}\n")
    print("| procedure | interpreter runs/s | hand-written runs/s | interpreter/hand-written |")
    print("|---|---:|---:|---:|")
    for label, path, name, hand_run, units in PROCEDURES:
        try:
            run = load_ruleset(path).sampler(name, {})
        except RulecraftError as err:
            print(f"| {label} | skipped: {path.relative_to(ROOT)} does not load ({err}) | | |")
            continue
        a, b = units()

        def hand(rng, a=a, b=b, hand_run=hand_run):
            return hand_run(rng, a, b)
        ours = [run(r) for r in [random.Random(5)] for _ in range(20000)]
        floor = [hand(r) for r in [random.Random(5)] for _ in range(20000)]
        if ours != floor:
            # the ruleset changed under the hand-written copy: say so, compare frequencies
            print(f"| {label} | NOT THE SAME PROCEDURE: interpreter {Counter(ours).most_common()} "
                  f"vs hand-written {Counter(floor).most_common()} | | |")
            continue
        t_ours, t_hand = best_seconds([run, hand], 1, args.runs, args.rounds)
        print(f"| {label} | {args.runs / t_ours:,.0f} | {args.runs / t_hand:,.0f} | "
              f"{t_ours / t_hand:.2f}x |")

    print(f"\ngames: simulate(ruleset, None, runs={args.games}, seed=1), best of 3\n")
    print("| ruleset | games/s | mean turns per game | ms per game |")
    print("|---|---:|---:|---:|")
    for path in bundled_rulesets() + [ROOT / "benchmarks" / "duel.yaml"]:
        label = str(path.relative_to(ROOT))
        try:
            ruleset = load_ruleset(path)
            if not ruleset.scenarios:
                print(f"| {label} | no scenario | | |")
                continue
            times = []
            for _ in range(3):
                start = time.perf_counter()
                summary = simulate(ruleset, None, runs=args.games, seed=1)
                times.append(time.perf_counter() - start)
        except RulecraftError as err:
            print(f"| {label} | skipped: {str(err).splitlines()[0]} | | |")
            continue
        turns = sum(t * c for t, c in summary.turns.items()) / summary.runs
        print(f"| {label} | {args.games / min(times):,.0f} | {turns:.1f} | "
              f"{min(times) / args.games * 1000:.2f} |")


if __name__ == "__main__":
    main()
