"""Whole games, counted in Python bytecodes and calls per code object: where a tanks game
of `simulate` spends its interpreter's work, function by function.

Timed ratios move with the shared machine's load and callgrind's instruction count
(`games_instructions.py`) says how much, not where; this says where.  A `sys.settrace`
tracer with `f_trace_opcodes` counts every bytecode executed and every Python call,
keyed by (file, function, first line), over `--games` games of seed `--seed` after 20
games of seed 2 (so that every procedure is compiled before counting).  Generated
procedure bodies show as `<rulecraft steps>`.  The tracer slows the games about 30x
and counts no C code (a `frozenset` made, a dict looked up), so it ranks the Python
side only: a change is judged by `games_instructions.py`, not by these counts (a loop
can run more bytecodes than the comprehension it replaces and still cost less).

Session 9 (games3), 11 (games4) and 12 (games5) used earlier copies of it kept out of
the tree; the numbers in benchmarks/README.md come from it.

    python benchmarks/games_opcodes.py [--games 40] [--seed 1] [--top 45] [--tree PATH]
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def count(tree: Path, games: int, seed: int):
    """(bytecodes, calls) Counters keyed by (file, function, first line), over the games."""
    sys.path.insert(0, str(tree))
    sys.path.insert(0, str(tree / "benchmarks"))
    import _internal
    ruleset = _internal.load_ruleset(tree / "rules" / "tanks" / "tanks.yaml")
    _internal.simulate(ruleset, None, 20, 2)
    ops: collections.Counter = collections.Counter()
    calls: collections.Counter = collections.Counter()

    def where(code):
        return (code.co_filename.rsplit("/", 1)[-1], code.co_name, code.co_firstlineno)

    def tracer(frame, event, arg):
        if event == "opcode":
            ops[where(frame.f_code)] += 1
        elif event == "call":
            frame.f_trace_opcodes = True
            calls[where(frame.f_code)] += 1
        return tracer

    sys.settrace(tracer)
    try:
        _internal.simulate(ruleset, None, games, seed)
    finally:
        sys.settrace(None)
    return ops, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--top", type=int, default=45, help="code objects listed")
    parser.add_argument("--tree", default=str(HERE.parent), help="the source tree to count")
    args = parser.parse_args()
    ops, calls = count(Path(args.tree).resolve(), args.games, args.seed)
    n = args.games
    print(f"tanks default scenario, {n} games of seed {args.seed} after 20 of seed 2; "
          f"per game: {sum(ops.values()) / n:,.0f} bytecodes, "
          f"{sum(calls.values()) / n:,.0f} Python calls\n")
    print("| bytecodes | calls | file | function | line |\n|---:|---:|---|---|---:|")
    for key, value in ops.most_common(args.top):
        print(f"| {value / n:,.0f} | {calls[key] / n:,.1f} | {key[0]} | {key[1]} | {key[2]} |")
    files: collections.Counter = collections.Counter()
    for key, value in ops.items():
        files[key[0]] += value
    print("\n| bytecodes | file |\n|---:|---|")
    for name, value in files.most_common(args.top):
        print(f"| {value / n:,.0f} | {name} |")


if __name__ == "__main__":
    main()
