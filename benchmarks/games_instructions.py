"""Whole games, counted in machine instructions: the games of `benchmarks/games.py`
(`simulate` of the tanks default scenario against the hand-written game), under
valgrind's callgrind.

Timed ratios on the shared machine move by a fifth or more from one run to the next (the
other sessions' load changes within seconds); instruction counts do not (with
PYTHONHASHSEED=0 they repeat to within a few parts in ten thousand), so this is the
steady companion of games.py, as engine_instructions.py is of engine.py.  It is not the
same measure: an instruction that allocates or misses the cache costs more time than one
that does not, so the timed ratio is usually higher.  Each side runs in its own process,
once with no games and once with `--games`, after the same warm-up (20 games, so that
every procedure is compiled) and after a first process that fills the caches of the
grammar and the model; the difference over the games is the cost of one game.
`--before OTHER_TREE` counts that tree's interpreter too (the same script, the same
games), for a before/after.  Needs valgrind (not a project dependency); a few minutes.

    python benchmarks/games_instructions.py [--games 200] [--before OTHER_TREE]
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TANKS = HERE.parent / "rules" / "tanks" / "tanks.yaml"


def run_side(side: str, tree: str, games: int) -> None:
    """The child: warm up, then play `games` games of seed 1 on one side, nothing else."""
    if side == "hand-written":
        sys.path.insert(0, str(HERE))
        import hand_written_game as hand
        hand.simulate(20, 2)
        if games:
            hand.simulate(games, 1)
        return
    sys.path.insert(0, tree)
    sys.path.insert(0, str(Path(tree) / "benchmarks"))
    import _internal
    ruleset = _internal.load_ruleset(Path(tree) / "rules" / "tanks" / "tanks.yaml")
    _internal.simulate(ruleset, None, 20, 2)
    if games:
        _internal.simulate(ruleset, None, games, 1)


def instructions(side: str, tree: str, games: int) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": tree}
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          sys.executable, __file__, "--child", side, tree, str(games)],
                         capture_output=True, text=True, env=env)
    found = re.search(r"Collected\s*:\s*(\d+)", out.stderr)
    if out.returncode != 0 or not found:
        sys.exit(f"valgrind failed: {out.stderr[-500:]}")
    return int(found.group(1))


def per_game(side: str, tree: str, games: int) -> float:
    # a first process, not counted, fills the caches a start reads (the grammar, the
    # checked model, both keyed by the code's fingerprint): else the first counted
    # process builds them and the other reads them, and the difference is not the games
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": tree}
    subprocess.run([sys.executable, __file__, "--child", side, tree, "0"], check=True, env=env)
    return (instructions(side, tree, games) - instructions(side, tree, 0)) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--before", help="another source tree whose interpreter to count too")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        side, tree, games = args.child
        run_side(side, tree, int(games))
        return
    this = str(HERE.parent)
    floor = per_game("hand-written", this, args.games)
    rows = [("hand-written", floor)]
    if args.before:
        rows.append((f"interpreter, {args.before}", per_game("interpreter", args.before, args.games)))
    rows.append((f"interpreter, {this}", per_game("interpreter", this, args.games)))
    print(f"tanks default scenario, {args.games} games of seed 1 after 20 of seed 2; "
          f"machine instructions per game (callgrind, PYTHONHASHSEED=0)\n")
    print("| side | instructions per game | over the hand-written game |")
    print("|---|---:|---:|")
    for name, count in rows:
        print(f"| {name} | {count:,.0f} | {count / floor:.2f}x |")


if __name__ == "__main__":
    main()
