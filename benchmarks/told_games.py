"""Told games: `rulecraft play` of every bundled scenario, a story and `--quiet`, as the
fresh processes a user starts -- by this tree and, with `--before`, by another in turn.

A told game is what a player waits for at the terminal: the whole game with its story
(a 199-turn juggerball game prints 2,500 lines).  Each command runs once per round in
each tree, the order rotated from round to round, after one untimed round that also
checks that both trees print the same story byte for byte (a command whose output
differs is reported as DIFFERS and not timed).  CPU time of the child (user + system,
`os.wait4`), the median of `--rounds`, with the spread; then after/before per command.

    python benchmarks/told_games.py [--rounds 5] [--seed 1] [--before OTHER_TREE] [--only jugger]

The script imports nothing of rulecraft itself: each tree runs as `python -c` with its
own `interpreter` first on `sys.path` (as `startup.py --before` runs one).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
RUN_TREE = ("import sys; sys.path.insert(0, sys.argv[1]); from interpreter.cli.main import "
            "main; sys.exit(main(sys.argv[2:]))")
# every scenario of the five bundled rulesets
SCENARIOS = [("tanks", "default"), ("tanks", "tabletop"), ("tanks", "group_example"),
             ("legowars", "default"), ("legowars", "riderless_horse"),
             ("legowars", "mounted_knight"), ("jugger", "default"), ("jugger", "duel"),
             ("jugger", "juggerball"), ("jungle-warfare", "default"),
             ("jungle-warfare", "predrawn"), ("mech-d20", "default"), ("mech-d20", "peccary")]
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(tree: Path, argv: list[str]) -> tuple[float, int, bytes]:
    """(CPU seconds, exit status, stdout) of one fresh process of `tree`."""
    proc = subprocess.Popen([PYTHON, "-c", RUN_TREE, str(tree)] + argv, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**CHILD_ENV, "COLUMNS": "100"})
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)   # so Popen does not wait again
    proc.stdout.close()
    return usage.ru_utime + usage.ru_stime, proc.returncode, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--before", type=Path, help="another source tree to compare with")
    parser.add_argument("--only", help="the scenarios of this ruleset alone")
    parser.add_argument("--story-only", action="store_true", help="leave out --quiet")
    args = parser.parse_args()
    trees = [("after", ROOT)] + ([("before", args.before.resolve())] if args.before else [])
    commands = []
    for ruleset, scenario in SCENARIOS:
        if args.only and ruleset != args.only:
            continue
        for mode in ([] if args.story_only else ["--quiet"]) + [None]:
            argv = ["play", ruleset, "--scenario", scenario, "--seed", str(args.seed)]
            commands.append((" ".join(argv + ([mode] if mode else [])), argv + ([mode] if mode else [])))
    bad = {}
    for label, argv in commands:                  # untimed: caches, and the same story
        outputs = {}
        for side, tree in trees:
            _, code, out = run_once(tree, argv)
            if code != 0:
                bad[label] = f"{side} exit {code}"
            outputs[side] = out
        if len(set(outputs.values())) > 1:
            bad[label] = "DIFFERS between the trees"
    timed = [(label, argv, side, tree) for label, argv in commands if label not in bad
             for side, tree in trees]
    cpu: dict = {(label, side): [] for label, _, side, _ in timed}
    for r in range(args.rounds):
        shift = r % len(timed)
        for label, argv, side, tree in timed[shift:] + timed[:shift]:
            seconds, _, _ = run_once(tree, argv)
            cpu[(label, side)].append(seconds)
    print(f"told games: fresh processes, {args.rounds} rounds taking turns, after one untimed "
          f"round; Python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          "\n")
    head = "| command | " + " | ".join(f"{side + ' ' if args.before else ''}CPU s median (spread)"
                                      for side, _ in trees)
    print(head + (" | after/before | per-round range |" if args.before else " |"))
    print("|---|" + "---:|" * len(trees) + ("---:|---:|" if args.before else ""))
    for label, _ in commands:
        if label in bad:
            print(f"| `{label}` | {bad[label]} |")
            continue
        cells = []
        for side, _ in trees:
            times = cpu[(label, side)]
            cells.append(f"{statistics.median(times):.2f} ({min(times):.2f}-{max(times):.2f})")
        line = f"| `{label}` | " + " | ".join(cells)
        if args.before:
            after, before = cpu[(label, "after")], cpu[(label, "before")]
            rounds = [a / b for a, b in zip(after, before)]
            line += (f" | {statistics.median(after) / statistics.median(before):.2f}x | "
                     f"{min(rounds):.2f}x-{max(rounds):.2f}x")
        print(line + " |")
    if bad:
        sys.exit(1)


if __name__ == "__main__":
    main()
