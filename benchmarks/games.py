"""Whole games: `simulate` of the tanks default scenario against the same games
hand-written in plain Python (benchmarks/hand_written_game.py), the floor.

Both sides play the same games: `--games` games of seed `--seed` (each game's seed
derived from it as `simulate` derives it), one process, no transcript.  Before timing,
the script asserts that for every one of those seeds the hand-written game ends in
exactly the interpreter's final state (winner, turn, survivors, every vehicle's fields
and statuses, every distance, the random generator's state) and that the two summaries
are equal; it prints NOT THE SAME GAME and times nothing otherwise.

Timing: the two sides take turns, `--rounds` rounds, which side goes first alternating
from round to round; each round times `--games` games per side in CPU time
(`time.process_time`).  Reported per side: the best round, the median and the worst
(the spread), in games per second; the ratio interpreter/hand-written of the best
rounds, of the medians, and the range of the ratio within a round (the two sides timed
back to back).

`--closures` adds a third side: the same `simulate` with steps compiled to the reference
closures instead of generated Python (RULECRAFT_NO_CODEGEN=1, switched on around that
side only: a second copy of the ruleset, loaded and played inside the switch), to weigh
the code generator (run/codegen.py, gen_*.py) on whole games; its summaries are
asserted equal to the interpreter's.

`--workers K` (K > 1) also times `simulate(..., workers=K)` against `workers=1`, wall
clock (`time.perf_counter`: the work is in other processes), taking turns over
`--worker-rounds` rounds of `--worker-games` games, and checks that the summaries are
identical (`as_json`, serialised).

    python benchmarks/games.py [--games 200] [--rounds 10] [--seed 1] [--closures]
    python benchmarks/games.py --workers 2 [--worker-games 2000] [--worker-rounds 3]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _internal  # noqa: E402
import hand_written_game as hand  # noqa: E402

TANKS = ROOT / "rules" / "tanks" / "tanks.yaml"


def same_games(ruleset, games: int, seed: int) -> str | None:
    """None if both sides play the same `games` games; else what differs."""
    for i in range(games):
        s = _internal.game_seed(seed, i)
        ours = _internal.final_state(ruleset.play(None, s, record=False))
        floor = hand.final_state(*hand.play(s))
        if ours != floor:
            diff = [k for k in ours if ours[k] != floor[k]]
            return f"game {i} (seed {s}): {', '.join(diff)} differ"
    summary = _internal.simulate(ruleset, None, games, seed)
    ours = (dict(summary.wins), dict(summary.turns), summary.survivors)
    if ours != hand.simulate(games, seed):
        return f"the summaries differ: {ours} vs {hand.simulate(games, seed)}"
    return None


def spread(times: list[float], games: int) -> str:
    rates = sorted(games / t for t in times)
    return f"{rates[-1]:,.1f} / {statistics.median(rates):,.1f} / {rates[0]:,.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--worker-games", type=int, default=2000)
    parser.add_argument("--worker-rounds", type=int, default=3)
    parser.add_argument("--closures", action="store_true",
                        help="also time the steps compiled to closures (no code generator)")
    args = parser.parse_args()
    from _internal import load_ruleset
    ruleset = load_ruleset(TANKS)

    print(f"tanks default scenario; Python {sys.version.split()[0]}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    problem = same_games(ruleset, args.games, args.seed)
    if problem:
        print(f"NOT THE SAME GAME: {problem}")
        sys.exit(1)
    print(f"checked: the {args.games} games of seed {args.seed} end in the same state on "
          f"both sides, and the summaries are equal\n")

    def ours():
        return _internal.simulate(ruleset, None, args.games, args.seed)

    def floor():
        return hand.simulate(args.games, args.seed)

    sides = {"interpreter": ours, "hand-written": floor}
    if args.closures:
        with _internal.closures_only():
            plain_rules = _internal.load_ruleset(TANKS)
            checked = _internal.simulate(plain_rules, None, args.games, args.seed)
        if checked.as_json() != ours().as_json():
            print("NOT THE SAME GAME: the closures' summary differs")
            sys.exit(1)

        def closures():
            with _internal.closures_only():
                return _internal.simulate(plain_rules, None, args.games, args.seed)
        sides["closures"] = closures
    times = {name: [] for name in sides}
    ratios = []
    for r in range(args.rounds):
        names = list(sides) if r % 2 == 0 else list(reversed(sides))
        taken = {}
        for name in names:
            start = time.process_time()
            sides[name]()
            taken[name] = time.process_time() - start
            times[name].append(taken[name])
        ratios.append(taken["interpreter"] / taken["hand-written"])
    best = {n: min(t) for n, t in times.items()}
    median = {n: statistics.median(t) for n, t in times.items()}
    print(f"{args.rounds} rounds x {args.games} games per side, taking turns, CPU time\n")
    print("| side | games/s best / median / worst | ms per game (best) |")
    print("|---|---:|---:|")
    for name in sides:
        print(f"| {name} | {spread(times[name], args.games)} | "
              f"{best[name] / args.games * 1000:.3f} |")
    print(f"\ninterpreter/hand-written: best {best['interpreter'] / best['hand-written']:.2f}x, "
          f"median {median['interpreter'] / median['hand-written']:.2f}x, "
          f"per round {min(ratios):.2f}x-{max(ratios):.2f}x")
    if args.closures:
        per_round = [c / i for c, i in zip(times["closures"], times["interpreter"])]
        print(f"closures/interpreter (what the code generator gains): best "
              f"{best['closures'] / best['interpreter']:.2f}x, median "
              f"{median['closures'] / median['interpreter']:.2f}x, per round "
              f"{min(per_round):.2f}x-{max(per_round):.2f}x")

    if args.workers > 1:
        n, k = args.worker_games, args.workers
        print(f"\nsimulate --workers {k} against --workers 1: {args.worker_rounds} rounds x "
              f"{n} games, taking turns, wall clock\n")
        walls = {1: [], k: []}
        outputs = {}
        for r in range(args.worker_rounds):
            for w in ([1, k] if r % 2 == 0 else [k, 1]):
                start = time.perf_counter()
                summary = _internal.simulate(ruleset, None, n, args.seed, workers=w)
                walls[w].append(time.perf_counter() - start)
                outputs.setdefault(w, set()).add(json.dumps(summary.as_json(), sort_keys=True))
        identical = len(outputs[1] | outputs[k]) == 1
        print("| workers | games/s best / median / worst |")
        print("|---:|---:|")
        for w in (1, k):
            print(f"| {w} | {spread(walls[w], n)} |")
        print(f"\nspeed-up, best rounds: {min(walls[1]) / min(walls[k]):.2f}x; medians: "
              f"{statistics.median(walls[1]) / statistics.median(walls[k]):.2f}x; summaries "
              f"{'identical' if identical else 'DIFFER'} for every K and round")


if __name__ == "__main__":
    main()
