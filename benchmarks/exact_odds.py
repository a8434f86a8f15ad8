"""Exact odds: rulecraft's first computation of a dice distribution against icepool's.

Each case is computed in a fresh `python -c` process, so that no cache of either library
helps; the time is taken with `time.perf_counter` around the computation alone (imports
excluded) and the median of several fresh processes is reported.  icepool lives in its
own virtual environment (benchmarks/.venv-peers, created here on first use) so that it is
never a dependency of rulecraft.  Both sides print the mean, and the script checks that
they agree, so that the two really compute the same thing.

    python benchmarks/exact_odds.py [--runs 5]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import venv
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "benchmarks" / ".venv-peers"
PEER_PYTHON = PEERS / "bin" / "python"

# (case, rulecraft DiceSpec arguments, icepool expression)
D6, D10 = "tuple(range(1, 7))", "tuple(range(1, 11))"
CASES = [
    ("4d6kh3", f"4, {D6}, '4d6kh3', keep=('kh', 3)", "icepool.d6.highest(4, 3)"),
    ("10d10", f"10, {D10}, '10d10'", "10 @ icepool.d10"),
    ("20d6", f"20, {D6}, '20d6'", "20 @ icepool.d6"),
    ("8d6kh3", f"8, {D6}, '8d6kh3', keep=('kh', 3)", "icepool.d6.highest(8, 3)"),
    ("20d10kh10", f"20, {D10}, '20d10kh10', keep=('kh', 10)", "icepool.d10.highest(20, 10)"),
    ("40d6kh20", f"40, {D6}, '40d6kh20', keep=('kh', 20)", "icepool.d6.highest(40, 20)"),
    ("100d6kh50", f"100, {D6}, '100d6kh50', keep=('kh', 50)", "icepool.d6.highest(100, 50)"),
    ("10d10cs>=8", f"10, {D10}, '10d10cs>=8', success=('>=', 8)", "10 @ (icepool.d10 >= 8)"),
    ("3d6!x3", f"3, {D6}, '3d6!x3', explode=frozenset({{6}}), explode_depth=3",
     "3 @ icepool.d6.explode(depth=3)"),
    ("10d6!x3", f"10, {D6}, '10d6!x3', explode=frozenset({{6}}), explode_depth=3",
     "10 @ icepool.d6.explode(depth=3)"),
]

OURS = """
import sys, time
sys.path.insert(0, {root!r})
from interpreter.dice.terms import DiceSpec
spec = DiceSpec({args})
start = time.perf_counter()
dist = spec.distribution()
elapsed = time.perf_counter() - start
print(elapsed, dist.mean())
"""

PEER = """
import time, icepool
start = time.perf_counter()
die = {expr}
die.denominator()
elapsed = time.perf_counter() - start
print(elapsed, die.mean())
"""


def ensure_peers() -> None:
    """Create the peers' venv with icepool in it, once."""
    if PEER_PYTHON.exists():
        return
    print(f"creating {PEERS} with icepool ...", file=sys.stderr)
    venv.create(PEERS, with_pip=True)
    (PEERS / ".gitignore").write_text("*\n")  # the venv ignores itself
    subprocess.run([str(PEER_PYTHON), "-m", "pip", "install", "-q", "icepool"], check=True)


def run_once(python: str, code: str) -> tuple[float, Fraction]:
    """Seconds and mean printed by one fresh process."""
    out = subprocess.run([python, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[0]), Fraction(out[1])


def median_time(python: str, code: str, runs: int) -> tuple[float, Fraction]:
    """Median seconds over `runs` fresh processes, and the mean they computed."""
    results = [run_once(python, code) for _ in range(runs)]
    return statistics.median(t for t, _ in results), results[0][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    ensure_peers()
    version = subprocess.run([str(PEER_PYTHON), "-c", "import icepool; print(icepool.__version__)"],
                             capture_output=True, text=True).stdout.strip()
    print(f"median of {runs} fresh processes; icepool {version}\n")
    print(f"| {'case':<11} | {'rulecraft ms':>12} | {'icepool ms':>10} | {'ours/icepool':>12} |")
    print(f"|{'-' * 13}|{'-' * 13}:|{'-' * 11}:|{'-' * 13}:|")
    for name, args, expr in CASES:
        ours, our_mean = median_time(sys.executable, OURS.format(root=str(ROOT), args=args), runs)
        peer, peer_mean = median_time(str(PEER_PYTHON), PEER.format(expr=expr), runs)
        agree = "" if our_mean == peer_mean or abs(our_mean - peer_mean) < Fraction(1, 10 ** 9) \
            else f"  MEANS DIFFER: {float(our_mean)} vs {float(peer_mean)}"
        print(f"| {name:<11} | {ours * 1000:>12.2f} | {peer * 1000:>10.2f} | "
              f"{ours / peer:>12.3f} |{agree}")


if __name__ == "__main__":
    main()
