"""Exact odds that scale (issue #12): the k-roll ladder, the mathhammer volley against a
hand-written dynamic programme (the floor), and the mech damage procedure.

Everything is CPU time (`time.process_time`) of the computation alone, in this process,
after one untimed run (the ruleset loaded and its steps resolved).  Where two sides are
compared (the volley against the floor) they take turns round by round, the order
alternating, and the script first checks that both give the same distribution, exactly.

    python benchmarks/exact_scale.py [--rounds 5] [--ladder 12] [--attacks 20] [--skip-mech]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _internal import load_ruleset, rulecraft_error  # noqa: E402

SCALE = ROOT / "tests" / "rulesets" / "exact_scale.yaml"


# ------------------------------------------------------------------ the ladder


def ladder_yaml(k: int) -> str:
    """k rolls bound to k names, in two styles: each read by the step after it (the
    rulebook style) and all read only at the end, in one sum."""
    lines = ["ruleset: ladder", "title: the k-roll ladder", "procedures:",
             "  each:", "    steps:", "      - let hits = 0"]
    for i in range(k):
        lines += [f"      - let r{i} = d6", f"      - if: r{i} >= 4",
                  "        then: ['hits += 1']"]
    lines += ["      - return hits", "  at_end:", "    steps:"]
    lines += [f"      - let r{i} = d6" for i in range(k)]
    lines += ["      - return " + " + ".join(f"r{i}" for i in range(k))]
    return "\n".join(lines) + "\n"


def timed(call):
    start = time.process_time()
    try:
        value = call()
    except rulecraft_error() as err:
        return time.process_time() - start, f"refused: {err.message.split('(')[0].strip()}"
    return time.process_time() - start, value


def ladder(top: int) -> None:
    print("\n### the k-roll ladder (one run per cell, after one untimed run of k = 1)\n")
    print("| k | each read next: s | outcomes | read at the end: s | outcomes |")
    print("|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for k in range(1, top + 1):
            path = Path(folder) / f"ladder{k}.yaml"
            path.write_text(ladder_yaml(k))
            rules = load_ruleset(path)
            cells = []
            for name in ("each", "at_end"):
                seconds, odds = timed(lambda: rules.run_odds(name))
                shown = odds if isinstance(odds, str) else len(odds.outcomes)
                if isinstance(odds, str) and name == "at_end":
                    shown = odds
                cells += [f"{seconds:.3f}", str(shown)]
            print(f"| {k} | " + " | ".join(cells) + " |")


# ------------------------------------------------------------- the mathhammer volley


def volley_floor(attacks: int, models: int, wounds: int) -> dict:
    """The volley of exact_scale.yaml written by hand: a distribution over (models
    killed, wounds on the current model), attack by attack."""
    hit = Fraction(4, 6) + Fraction(1, 6) * Fraction(4, 6)   # 3+, a 1 rerolled once
    through = hit * Fraction(1, 2) * Fraction(4, 6)           # wounds on 4+, saves fail on 1-4
    lost_by = {}   # D3 damage, each point ignored on a 5+ (feel no pain): points lost
    for dmg in (1, 2, 3):
        for lost in range(dmg + 1):
            ways = _choose(dmg, lost) * Fraction(4, 6) ** lost * Fraction(2, 6) ** (dmg - lost)
            lost_by[lost] = lost_by.get(lost, 0) + Fraction(1, 3) * ways
    states = {(0, 0): Fraction(1)}
    for _ in range(attacks):
        new: dict = {}
        for (killed, current), p in states.items():
            if killed >= models:
                new[(killed, current)] = new.get((killed, current), 0) + p
                continue
            new[(killed, current)] = new.get((killed, current), 0) + p * (1 - through)
            for lost, q in lost_by.items():
                now = current + lost
                key = (killed + 1, 0) if now >= wounds else (killed, now)
                new[key] = new.get(key, 0) + p * through * q
        states = new
    out: dict = {}
    for (killed, _), p in states.items():
        out[killed] = out.get(killed, 0) + p
    return out


def _choose(n, k):
    from math import comb
    return comb(n, k)


def volley(attacks: int, rounds: int) -> None:
    rules = load_ruleset(SCALE)
    inputs = {"attacks": str(attacks), "models": "3", "wounds": "2"}

    def ours():
        dist = rules.run_odds("volley", inputs).outcomes
        return {v: dist.probability(v) for v in dist.values()}

    def floor():
        return volley_floor(attacks, 3, 2)

    if ours() != floor():
        sys.exit("the volley and the floor differ: not timed")
    times = {"rulecraft": [], "hand-written": []}
    ratios = []
    for r in range(rounds):
        order = [("rulecraft", ours), ("hand-written", floor)]
        if r % 2:
            order.reverse()
        got = {}
        for name, call in order:
            start = time.process_time()
            call()
            got[name] = time.process_time() - start
            times[name].append(got[name])
        ratios.append(got["rulecraft"] / max(got["hand-written"], 1e-9))
    print(f"\n### the mathhammer volley, N = {attacks} attacks, 3 models of 2 wounds "
          f"({rounds} rounds taking turns; both sides equal, exactly)\n")
    print("| side | CPU s best / median / worst |")
    print("|---|---:|")
    for name, ts in times.items():
        print(f"| {name} | {min(ts):.4f} / {statistics.median(ts):.4f} / {max(ts):.4f} |")
    print(f"\nrulecraft/hand-written: median {statistics.median(ratios):.1f}x, per round "
          f"{min(ratios):.1f}x-{max(ratios):.1f}x")


# ------------------------------------------------------------------ the mech volley


def mech() -> None:
    rules = load_ruleset(SCALE)
    seconds, odds = timed(lambda: rules.run_odds("mech_volley"))
    shown = odds if isinstance(odds, str) else \
        f"P(centre destroyed) = {float(odds.outcomes.probability(True)):.6f}"
    print(f"\n### the mech volley (3 shots of 2d6, transfer and an ammunition explosion)\n")
    print(f"one run: {seconds:.2f} s CPU; {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ladder", type=int, default=12)
    parser.add_argument("--attacks", type=int, default=20)
    parser.add_argument("--skip-mech", action="store_true")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
    ladder(args.ladder)
    volley(args.attacks, args.rounds)
    if not args.skip_mech:
        mech()


if __name__ == "__main__":
    main()
