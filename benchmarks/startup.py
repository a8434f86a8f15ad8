"""Cold start: the real `rulecraft` commands as fresh processes, against bare Python
importing the libraries they stand on.

Every command is a new process started as a user starts it (the `rulecraft` script of
this environment, its output thrown away), timed in CPU time (user + system of the child,
from `os.wait4`) and in wall-clock time.  The commands take turns: each round runs every
command once, the order rotated from round to round, so that a busy spell of the machine
hits them alike; one untimed round first fills the operating system's file cache (and any
cache rulecraft keeps).  Reported per command: the median of `--runs` rounds and the
spread (lowest - highest), then the ratios the goals of issue #19 are stated in.  A
command that fails is reported as FAILED with its error, never timed.

    python benchmarks/startup.py [--runs 20] [--before OTHER_TREE]

With `--before OTHER_TREE` (another source tree of rulecraft, say a checkout of `main`)
every `rulecraft` command runs twice a round, once by each tree (`python -c` with that
tree's `interpreter` first on `sys.path`, as `versions.py` runs one), taking turns with
the rest, and the last tables give after/before for each command with the per-round range,
then the goals' ratios of each tree against the same bare imports.

The script imports nothing of rulecraft itself: what it measures is the code as it is.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def rulecraft_command() -> list[str]:
    """The `rulecraft` script next to this Python (as installed by pip), else
    `python -m interpreter`."""
    script = Path(PYTHON).parent / "rulecraft"
    if script.exists():
        return [str(script)]
    found = shutil.which("rulecraft")
    return [found] if found else [PYTHON, "-m", "interpreter"]


RC = rulecraft_command()
# (label, argv)
COMMANDS = [
    ("python -c pass", [PYTHON, "-c", "pass"]),
    ('python -c "import lark"', [PYTHON, "-c", "import lark"]),
    ('python -c "import lark, yaml, rich"', [PYTHON, "-c", "import lark, yaml, rich"]),
    ("rulecraft roll 2d6", RC + ["roll", "2d6"]),
    ("rulecraft validate rules/tanks/tanks.yaml", RC + ["validate", "rules/tanks/tanks.yaml"]),
    ("rulecraft run tanks shoot --odds", RC + ["run", "tanks", "shoot", "--odds"]),
    ("rulecraft play tanks --seed 1", RC + ["play", "tanks", "--seed", "1"]),
]
LARK, BARE = 'python -c "import lark"', 'python -c "import lark, yaml, rich"'
# (what, numerator, denominator, goal) - the goals of issue #19
RATIOS = [
    ("roll / import lark, yaml, rich", "rulecraft roll 2d6", BARE, 1.3),
    ("roll / import lark", "rulecraft roll 2d6", LARK, 1.3),
    ("run --odds / import lark", "rulecraft run tanks shoot --odds", LARK, 2.0),
    ("play / import lark", "rulecraft play tanks --seed 1", LARK, 2.0),
    ("validate / import lark", "rulecraft validate rules/tanks/tanks.yaml", LARK, None),
]


# A user's Python keeps the bytecode of the modules it compiles (`__pycache__`); an
# environment that sets PYTHONDONTWRITEBYTECODE makes every start compile all of
# rulecraft's modules again (while the installed libraries keep the bytecode pip wrote),
# which is not what a user waits for.  The children run as a user's Python does (the
# untimed first round writes the bytecode).
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(argv: list[str]) -> tuple[float, float, int, str]:
    """(CPU seconds, wall seconds, exit status, the end of stderr) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**CHILD_ENV, "COLUMNS": "100"})
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)   # so Popen does not wait again
    proc.stderr.close()
    return (usage.ru_utime + usage.ru_stime, wall, proc.returncode,
            err.decode(errors="replace")[-400:])


RUN_TREE = ("import sys; sys.path.insert(0, sys.argv[1]); from interpreter.cli.main import "
            "main; sys.exit(main(sys.argv[2:]))")


def by_trees(before: Path) -> list[tuple[str, list[str]]]:
    """The commands with each `rulecraft` one run by this tree and by `before`."""
    commands = []
    for label, argv in COMMANDS:
        if argv[: len(RC)] != RC:
            commands.append((label, argv))
            continue
        for side, tree in (("after", ROOT), ("before", before)):
            commands.append((f"{label} [{side}]",
                             [PYTHON, "-c", RUN_TREE, str(tree)] + argv[len(RC):]))
    return commands


def print_ratios(cpu: dict, side: str = "") -> None:
    """The goals' ratios; `side` (" [after]" or " [before]") picks one tree's commands of
    a `--before` run, against the same bare imports of the same rounds."""
    print(f"\n| ratio (CPU, medians){side} | measured | per-round range | goal | met |")
    print("|---|---:|---:|---:|---|")
    for what, num, den, goal in RATIOS:
        num = num + side if num.startswith("rulecraft") else num
        if num not in cpu or den not in cpu:
            print(f"| {what} | not measured (a command failed) | | | |")
            continue
        ratio = statistics.median(cpu[num]) / statistics.median(cpu[den])
        rounds = [a / b for a, b in zip(cpu[num], cpu[den])]
        met = "" if goal is None else ("yes" if ratio <= goal else "no")
        print(f"| {what} | {ratio:.2f}x | {min(rounds):.2f}x-{max(rounds):.2f}x | "
              f"{'-' if goal is None else f'{goal}x'} | {met} |")


def main() -> None:
    global COMMANDS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--before", type=Path, help="another source tree to compare with")
    args = parser.parse_args()
    rulecraft_labels = [label for label, argv in COMMANDS if argv[: len(RC)] == RC]
    if args.before:
        COMMANDS = by_trees(args.before.resolve())
    failed = {}
    for label, argv in COMMANDS:                       # the untimed round; failures
        _, _, code, err = run_once(argv)
        if code != 0:
            failed[label] = f"exit {code}: {err.strip().splitlines()[-1] if err.strip() else ''}"
    timed = [(label, argv) for label, argv in COMMANDS if label not in failed]
    cpu = {label: [] for label, _ in timed}
    wall = {label: [] for label, _ in timed}
    for r in range(args.runs):
        shift = r % len(timed)
        for label, argv in timed[shift:] + timed[:shift]:
            c, w, code, err = run_once(argv)
            if code != 0:
                failed[label] = f"exit {code} in round {r + 1}: {err.strip()[-200:]}"
            cpu[label].append(c)
            wall[label].append(w)

    print(f"cold start: fresh processes, {args.runs} rounds taking turns, after one untimed "
          f"round; Python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} "
          f"CPUs, load average {os.getloadavg()[0]:.2f}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; rulecraft = {' '.join(RC)}; "
          f"bytecode cache on\n")
    print("| command | CPU ms median | CPU ms spread | wall ms median | wall ms spread |")
    print("|---|---:|---:|---:|---:|")
    for label, _ in COMMANDS:
        if label in failed and label not in cpu:
            print(f"| `{label}` | FAILED: {failed[label]} | | | |")
            continue
        c, w = [x * 1000 for x in cpu[label]], [x * 1000 for x in wall[label]]
        note = f" (FAILED once: {failed[label]})" if label in failed else ""
        print(f"| `{label}`{note} | {statistics.median(c):.0f} | {min(c):.0f}-{max(c):.0f} | "
              f"{statistics.median(w):.0f} | {min(w):.0f}-{max(w):.0f} |")
    if args.before:
        print("\n| command | after/before (CPU, medians) | per-round range |")
        print("|---|---:|---:|")
        for label in rulecraft_labels:
            after, before = f"{label} [after]", f"{label} [before]"
            if after not in cpu or before not in cpu:
                print(f"| `{label}` | not measured (a command failed) | |")
                continue
            rounds = [a / b for a, b in zip(cpu[after], cpu[before])]
            print(f"| `{label}` | {statistics.median(cpu[after]) / statistics.median(cpu[before]):.2f}x"
                  f" | {min(rounds):.2f}x-{max(rounds):.2f}x |")
        print_ratios(cpu, " [after]")
        print_ratios(cpu, " [before]")
    else:
        print_ratios(cpu)
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
