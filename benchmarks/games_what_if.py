"""What-if for whole games: how near the hand-written game would the interpreter come if
its generated code did not weigh lists or spend the step budget?  A measurement of
where the time is, not a mode of rulecraft: the checks it strips are what issue #20's
budgets rest on, and nothing here changes the package.

Each side is a copy of the tanks ruleset loaded in its own process state: `as-is`, the
generated code as rulecraft makes it; `no-list-checks`, the same with every list's
weighing (`_FLAT`/`_WHOLE` kinds, the budget spent per item) replaced by True;
`no-budget`, with every statement's `_WORK[0] -= N` and its test removed; `neither`,
both.  The source is rewritten as it is compiled (`codegen.compile`), so the rest of the
engine is untouched.  Before timing, each side's summary of `--games` games is asserted
equal to the hand-written game's (benchmarks/hand_written_game.py): the games are the
same.  Timing: `--rounds` rounds; in each, the side and the hand-written game take turns
(which goes first alternating), CPU time; reported: the median ratio side/hand-written
and its range.

    python benchmarks/games_what_if.py [--games 300] [--rounds 6] [--sides as-is,neither]
"""
from __future__ import annotations

import argparse
import builtins
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIDES = ("as-is", "no-list-checks", "no-budget", "neither")


STRIPPED = [0]   # how many checks were taken out, over every body compiled


def stripped(source: str, side: str) -> str:
    """The generated source with the checks `side` leaves out."""
    rewrites = []
    if side in ("no-list-checks", "neither"):
        rewrites += [(r"_FLAT\.issuperset\(map\(type, _m\d+\)\)", "True"),
                     (r"\(\(_wh\d+ := _WHOLE\.issuperset\(map\(type, _m\d+\)\)\) or True\)",
                      "True"),
                     (r"_WORK\[0\] >= len\((_s\d+)\) and not "
                      r"_WORK\.__setitem__\(0, _WORK\[0\] - len\(\1\)\)", "True")]
    if side in ("no-budget", "neither"):
        rewrites += [(r"\n( *)_WORK\[0\] -= \d+\n\1if _WORK\[0\] < 0: _exhausted\(P\d+\)", "")]
    for pattern, replacement in rewrites:
        source, count = re.subn(pattern, replacement, source)
        STRIPPED[0] += count
    return source


def one_side(side: str, games: int, rounds: int) -> list[float]:
    """The ratios side/hand-written, one per round (run in a process of its own)."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from interpreter.run import codegen

    def compile_stripped(source, filename, mode, *args, **kwargs):
        if filename == "<rulecraft steps>" and isinstance(source, str):
            source = stripped(source, side)
        return builtins.compile(source, filename, mode, *args, **kwargs)

    codegen.compile = compile_stripped
    import _internal
    import hand_written_game as hand
    ruleset = _internal.load_ruleset(ROOT / "rules" / "tanks" / "tanks.yaml")
    _internal.simulate(ruleset, None, 50, 2)
    summary = _internal.simulate(ruleset, None, games, 1)
    if (dict(summary.wins), dict(summary.turns), summary.survivors) != hand.simulate(games, 1):
        raise SystemExit(f"{side}: NOT THE SAME GAMES")
    if side != "as-is" and not STRIPPED[0]:
        raise SystemExit(f"{side}: nothing was taken out (the generated code has changed)")
    ratios = []
    for r in range(rounds):
        times = {}
        for who in (("ours", "hand") if r % 2 == 0 else ("hand", "ours")):
            start = time.process_time()
            if who == "ours":
                _internal.simulate(ruleset, None, games, 1)
            else:
                hand.simulate(games, 1)
            times[who] = time.process_time() - start
        ratios.append(times["ours"] / times["hand"])
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--sides", default=",".join(SIDES))
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        ratios = one_side(args.one, args.games, args.rounds)
        print(STRIPPED[0], " ".join(f"{x:.4f}" for x in ratios))
        return
    print(f"tanks default scenario, {args.games} games of seed 1, {args.rounds} rounds, "
          f"each side taking turns with the hand-written game (CPU time)\n")
    print("| side | checks taken out | interpreter / hand-written, median | range |\n"
          "|---|---:|---:|---:|")
    for side in args.sides.split(","):
        if side not in SIDES:
            raise SystemExit(f"no side {side!r}: one of {', '.join(SIDES)}")
        out = subprocess.run([sys.executable, __file__, "--one", side, "--games",
                              str(args.games), "--rounds", str(args.rounds)],
                             check=True, capture_output=True, text=True).stdout
        taken, *ratios = out.split()
        ratios = [float(x) for x in ratios]
        print(f"| {side} | {taken} | {statistics.median(ratios):.2f}x | "
              f"{min(ratios):.2f}x-{max(ratios):.2f}x |")


if __name__ == "__main__":
    main()
