"""Engine: a rulebook procedure through the interpreter against the same procedure
hand-written in plain Python (the floor for an interpreter), and whole games per second.

Procedures: `rules/tanks/tanks.yaml` `shoot` (a vehicle's shot: to hit, strength + D6
against armour, the glancing or penetrating table, the row's effect) and the `attack` of
`benchmarks/duel.yaml` (a small melee ruleset: d10 to hit with modifiers and naturals,
d10 for damage, destroy or shaken).  The interpreter side is
`load_ruleset(path).sampler(procedure, {})` - everything compiled once, no transcript -
called as `run(rng)`.  Before each run the interpreter puts a unit back to its starting
fields only if a rule changed one, and empties its statuses only if it has any; the
hand-written side (benchmarks/hand_written.py) does exactly that too (a `changed` flag
set wherever it writes a field), no more and no less, and draws from the random stream
in the same order, so the script first asserts that, for the same seed, both give the
same outcome on every one of 20,000 runs.  Then the two sides take turns, 40 rounds of
10,000 runs each (CPU time, `time.process_time`, the side going first alternating), and
each side's best, median and worst round are reported, with the ratio of the best
rounds, of the medians, and its range within a round: short rounds taken in turn mean a
slow spell of a shared machine hits both sides alike.

Games: `simulate(ruleset, None, runs=200, seed=1)` (the default scenario, no transcript,
one process) for every bundled ruleset that validates and for the duel; best of 3 in CPU
time (no floor: benchmarks/games.py times whole games against a hand-written floor).

    python benchmarks/engine.py [--runs 10000] [--rounds 40] [--games 200]   # --games 0: no games
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
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


def rounds_seconds(sides, rng_seed: int, runs: int, rounds: int) -> list[list[float]]:
    """For each function, its timings of `runs` calls in each of `rounds` rounds, the
    sides taking turns round by round (the first side alternating), so that a busy
    spell of the machine hits them alike."""
    taken = [[] for _ in sides]
    for r in range(rounds):
        order = range(len(sides)) if r % 2 == 0 else reversed(range(len(sides)))
        for i in order:
            taken[i].append(seconds(sides[i], rng_seed, runs))
    return taken


def rates(times: list[float], runs: int) -> str:
    """best / median / worst of the rounds, in runs per second."""
    return (f"{runs / min(times):,.0f} / {runs / statistics.median(times):,.0f} / "
            f"{runs / max(times):,.0f}")


def bundled_rulesets() -> list[Path]:
    return sorted(p for d in (ROOT / "rules").iterdir() if d.is_dir()
                  for p in d.glob("*.yaml") if p.stem == d.name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    from _internal import load_ruleset, rulecraft_error, simulate
    RulecraftError = rulecraft_error()

    print(f"procedure runs: {args.rounds} rounds x {args.runs:,} runs per side, taking turns, "
          f"CPU time; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    print("| procedure | interpreter runs/s best / median / worst | hand-written runs/s "
          "best / median / worst | interpreter/hand-written best, median (per round) |")
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
        t_ours, t_hand = rounds_seconds([run, hand], 1, args.runs, args.rounds)
        per_round = [a / b for a, b in zip(t_ours, t_hand)]
        print(f"| {label} | {rates(t_ours, args.runs)} | {rates(t_hand, args.runs)} | "
              f"{min(t_ours) / min(t_hand):.2f}x, "
              f"{statistics.median(t_ours) / statistics.median(t_hand):.2f}x "
              f"({min(per_round):.2f}x-{max(per_round):.2f}x) |")

    if args.games <= 0:   # `--games 0`: the procedures alone
        return
    print(f"\ngames: simulate(ruleset, None, runs={args.games}, seed=1), best of 3, CPU time\n")
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
                start = time.process_time()
                summary = simulate(ruleset, None, runs=args.games, seed=1)
                times.append(time.process_time() - start)
        except RulecraftError as err:
            print(f"| {label} | skipped: {str(err).splitlines()[0]} | | |")
            continue
        turns = sum(t * c for t, c in summary.turns.items()) / summary.runs
        print(f"| {label} | {args.games / min(times):,.0f} | {turns:.1f} | "
              f"{min(times) / args.games * 1000:.2f} |")


if __name__ == "__main__":
    main()
