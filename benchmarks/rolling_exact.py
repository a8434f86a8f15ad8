"""Exact odds of the newer dice forms (computed counts, groups of one, unique dice,
`%` and `**`, long sums, the limits by cost) against icepool, where icepool expresses
the same thing.

The method is exact_odds.py's (its functions are used): each case in a fresh process
per side, CPU time around the computation alone, the sides taking turns run by run,
the median of `--runs` with the spread, and both sides' means compared.  Our side parses
the expression first and times `exact` of the tree (the parse is not timed: icepool's
expressions are Python).

    python benchmarks/rolling_exact.py [--runs 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from fractions import Fraction

from exact_odds import PEER_PYTHON, ROOT, ensure_peers, ms, take_turns

# (our expression, icepool expression of the same distribution)
CASES = [
    ("(d6)d6", "icepool.d6 @ icepool.d6"),
    ("(d10)d10", "icepool.d10 @ icepool.d10"),
    ("(2d6)d6", "(2 @ icepool.d6) @ icepool.d6"),
    ("{4d6+3d8}kh1", "icepool.highest(*([icepool.d6] * 4 + [icepool.d8] * 3))"),
    ("{4d6+3d8}kh3", "icepool.highest(*([icepool.d6] * 4 + [icepool.d8] * 3), keep=3)"),
    ("{2d6, 3d6, 4d6}kh1", "icepool.highest(2 @ icepool.d6, 3 @ icepool.d6, 4 @ icepool.d6)"),
    ("5d10u", "icepool.Deck(range(1, 11)).deal(5).sum()"),
    ("10d100ukh3", "icepool.Deck(range(1, 101)).deal(10).highest(3).sum()"),
    ("d20 % 7", "icepool.d20 % 7"),
    ("d6 ** 2 + d6", "icepool.d6 ** 2 + icepool.d6"),
    ("d100*d100*d100", "icepool.d100 * icepool.d100 * icepool.d100"),
    ("200d10kh100", "icepool.d10.highest(200, 100)"),
    ("d6+d6+... (300 terms)", "functools.reduce(operator.add, [icepool.d6] * 300)"),
    # the largest dice (issue #20): sums convolved, a group of two kept by its pairs
    ("d10000 + d10000", "icepool.d(10000) + icepool.d(10000)"),
    ("d10000 + d9999", "icepool.d(10000) + icepool.d(9999)"),
    ("d10000 - d10000", "icepool.d(10000) - icepool.d(10000)"),
    ("d10000 * 2 + d10000", "icepool.d(10000) * 2 + icepool.d(10000)"),
    ("{d1000, d1000}kh1", "icepool.highest(icepool.d(1000), icepool.d(1000))"),
]
OURS = """
import sys, time
sys.path.insert(0, {root!r})
from interpreter.expr.exact import exact
from interpreter.lang.parse import parse_expression
tree = parse_expression({text!r})
start = time.process_time()
dist = exact(tree, {{}})
elapsed = time.process_time() - start
print(elapsed, dist.mean())
"""
PEER = """
import functools, operator, time, icepool
start = time.process_time()
die = {expr}
die.denominator()
elapsed = time.process_time() - start
print(elapsed, die.mean())
"""


def our_text(name: str) -> str:
    return "+".join(["d6"] * 300) if name.startswith("d6+d6+...") else name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    why = ensure_peers()
    if why:
        print(f"*** icepool IS NOT MEASURED: {why} ***")
        sys.exit(1)
    version = subprocess.run([str(PEER_PYTHON), "-c", "import icepool; print(icepool.__version__)"],
                             capture_output=True, text=True).stdout.strip()
    print(f"median (lowest-highest) of {runs} fresh processes per side, taking turns; "
          f"Python {sys.version.split()[0]}, icepool {version}, load average "
          f"{os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    print("| case | rulecraft ms | icepool ms | ours/icepool (medians) |")
    print("|---|---:|---:|---:|")
    for name, expr in CASES:
        ours, peer, our_mean, peer_mean = take_turns(
            OURS.format(root=str(ROOT), text=our_text(name)), PEER.format(expr=expr), runs)
        agree = "" if abs(our_mean - peer_mean) < Fraction(1, 10 ** 9) \
            else f"  MEANS DIFFER: {float(our_mean)} vs {float(peer_mean)}"
        print(f"| `{name}` | {ms(ours)} | {ms(peer)} | "
              f"{statistics.median(ours) / statistics.median(peer):.3f} |{agree}", flush=True)


if __name__ == "__main__":
    main()
