"""Engine, counted in machine instructions: the procedures of `benchmarks/engine.py`,
interpreter against hand-written, under valgrind's callgrind.

Timings on a shared machine move by a fifth from one run to the next; instruction counts
do not (with PYTHONHASHSEED=0 they repeat exactly), so this is the steady companion to
the timed ratio.  It is not the same measure: an instruction that allocates or misses the
cache costs more time than one that does not, so the timed ratio is usually a little
higher.  Each side runs in its own process, once with 0 runs and once with N; the
difference over N is the cost of one run.  Needs valgrind (not a project dependency);
takes a few minutes.

    python benchmarks/engine_instructions.py [--runs 20000]
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def run_side(index: int, side: str, runs: int) -> None:
    """The child: build one side of one procedure, run it `runs` times, nothing else."""
    from engine import PROCEDURES
    from _internal import load_ruleset
    _, path, name, hand_run, units = PROCEDURES[index]
    if side == "interpreter":
        fn = load_ruleset(path).sampler(name, {})
    else:
        a, b = units()

        def fn(rng):
            return hand_run(rng, a, b)
    rng = random.Random(1)
    for _ in range(runs):
        fn(rng)


def instructions(index: int, side: str, runs: int) -> int:
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          sys.executable, __file__, "--child", str(index), side, str(runs)],
                         capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"Collected\s*:\s*(\d+)", out.stderr)
    if out.returncode != 0 or not found:
        sys.exit(f"valgrind failed: {out.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20_000)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_side(int(args.child[0]), args.child[1], int(args.child[2]))
        return
    if shutil.which("valgrind") is None:
        sys.exit("needs valgrind (apt install valgrind)")
    from engine import PROCEDURES
    print(f"instructions per run: callgrind, (N={args.runs:,} runs - 0 runs) / N; "
          f"Python {sys.version.split()[0]}\n")
    print("| procedure | interpreter | hand-written | interpreter/hand-written |")
    print("|---|---:|---:|---:|")
    for index, (label, *_rest) in enumerate(PROCEDURES):
        per_run = {}
        for side in ("interpreter", "hand"):
            base = instructions(index, side, 0)
            per_run[side] = (instructions(index, side, args.runs) - base) / args.runs
        print(f"| {label} | {per_run['interpreter']:,.0f} | {per_run['hand']:,.0f} | "
              f"{per_run['interpreter'] / per_run['hand']:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
