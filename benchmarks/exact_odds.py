"""Exact odds: rulecraft's first computation of a dice distribution against icepool's.

Each case is computed in a fresh `python -c` process, so that no cache of either library
helps; the time is CPU time (`time.process_time`) around the computation alone (imports
excluded).  The two sides take turns, case by case and run by run (which side goes first
alternating), and the median of `--runs` fresh processes per side is reported with the
spread (lowest - highest).  icepool lives in the peer environment (benchmarks/.venv-peers,
created here on first use, shared with rolling.py's d20) so that it is never a dependency
of rulecraft; if it cannot be had, the script says so and stops.  Both sides print the
mean, and the script checks that they agree, so that the two really compute the same
thing.

    python benchmarks/exact_odds.py [--runs 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
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
    ("10d10>=8", f"10, {D10}, '10d10>=8', success=('>=', 8)", "10 @ (icepool.d10 >= 8)"),
    ("3d6!x3", f"3, {D6}, '3d6!x3', explode=frozenset({{6}}), explode_depth=3",
     "3 @ icepool.d6.explode(depth=3)"),
    ("10d6!x3", f"10, {D6}, '10d6!x3', explode=frozenset({{6}}), explode_depth=3",
     "10 @ icepool.d6.explode(depth=3)"),
]

OURS = """
import sys, time
sys.path.insert(0, {root!r})
sys.path.insert(0, {root!r} + "/benchmarks")
from _internal import dice_spec
spec = dice_spec({args})
start = time.process_time()
dist = spec.distribution()
elapsed = time.process_time() - start
print(elapsed, dist.mean())
"""

PEER = """
import time, icepool
start = time.process_time()
die = {expr}
die.denominator()
elapsed = time.process_time() - start
print(elapsed, die.mean())
"""


def ensure_peers() -> str | None:
    """Create the peers' venv with icepool in it, once; why not, if it cannot be had."""
    try:
        if not PEER_PYTHON.exists():
            print(f"creating {PEERS} with icepool and d20 ...", file=sys.stderr)
            venv.create(PEERS, with_pip=True)
            (PEERS / ".gitignore").write_text("*\n")  # the venv ignores itself
        probe = subprocess.run([str(PEER_PYTHON), "-c", "import icepool"], capture_output=True)
        if probe.returncode:
            subprocess.run([str(PEER_PYTHON), "-m", "pip", "install", "-q", "icepool", "d20"],
                           check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as err:
        return f"the peer environment {PEERS} could not be built ({err})"
    return None


def run_once(python: str, code: str) -> tuple[float, Fraction]:
    """Seconds and mean printed by one fresh process."""
    out = subprocess.run([python, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[0]), Fraction(out[1])


def take_turns(ours: str, peer: str,
               runs: int) -> tuple[list[float], list[float], Fraction, Fraction]:
    """`runs` fresh processes per side, the sides taking turns (the first alternating):
    the seconds of each side and the means they computed."""
    times = {"ours": [], "peer": []}
    means = {}
    sides = {"ours": (sys.executable, ours), "peer": (str(PEER_PYTHON), peer)}
    for r in range(runs):
        for side in (("ours", "peer") if r % 2 == 0 else ("peer", "ours")):
            seconds, mean = run_once(*sides[side])
            times[side].append(seconds)
            means[side] = mean
    return times["ours"], times["peer"], means["ours"], means["peer"]


def ms(times: list[float]) -> str:
    low, mid, high = min(times) * 1000, statistics.median(times) * 1000, max(times) * 1000
    return f"{mid:.2f} ({low:.2f}-{high:.2f})"


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
    for name, args, expr in CASES:
        ours, peer, our_mean, peer_mean = take_turns(OURS.format(root=str(ROOT), args=args),
                                                     PEER.format(expr=expr), runs)
        agree = "" if our_mean == peer_mean or abs(our_mean - peer_mean) < Fraction(1, 10 ** 9) \
            else f"  MEANS DIFFER: {float(our_mean)} vs {float(peer_mean)}"
        print(f"| {name} | {ms(ours)} | {ms(peer)} | "
              f"{statistics.median(ours) / statistics.median(peer):.3f} |{agree}", flush=True)


if __name__ == "__main__":
    main()
