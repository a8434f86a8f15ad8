"""Hostile exact odds: how long `run --odds` (or `odds-game`, for a rule file with a turn)
takes to answer or refuse rule files whose work builds up (issue #20), this tree against
another (`--before`, say a clean checkout of main).

Each case is run in a fresh `python -c` process per side and run: the child loads the
command line, warms it on a one-roll rule file (the grammar and the schema loaded), then
times `run FILE p --odds` alone in CPU seconds (`time.process_time`).  The sides take
turns, case by case and run by run (which goes first alternating); the median of
`--runs` processes per side is reported with its range, and each side's exit code and
the start of what it said, so that a refusal is seen to be the same refusal (or not).

    python benchmarks/hostile_refusals.py [--runs 5] [--before OTHER_TREE]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAD = "ruleset: hostile\ntitle: hostile\n"


def chain(depth: int, *steps: str) -> str:
    return HEAD + f"procedures:\n  p:\n    steps: ['return q({depth})']\n" \
        "  q:\n    params: {n: integer}\n    steps:\n      - if: n == 0\n" \
        "        then: ['return 0']\n" + "".join(f"      - {s}\n" for s in steps)


MUTUAL = HEAD + "procedures:\n  p:\n    steps: ['return a(24)']\n" \
    "  a:\n    params: {n: integer}\n    steps:\n      - if: n == 0\n" \
    "        then: ['return 0']\n      - let t = b(n - 1)\n      - t += d100\n" \
    "      - return t\n  b:\n    params: {n: integer}\n    steps:\n      - let t = a(n)\n" \
    "      - return t\n"
LOOP = HEAD + "procedures:\n  p:\n    steps:\n      - let t = 0\n      - for: i\n" \
    "        in: range(10000)\n        do: ['t += d6']\n      - return t\n"

GAME = HEAD + """kinds:
  pilot:
    state: {t: START}
turn:
  phases:
    - name: act
      each: unit
      steps:
STEPS  victory:
    - when: count([u for u in side.units if u.t >= 99999]) > 0
      winner: side
  max_turns: 3
scenarios:
  default:
    sides:
      red: {policy: first, units: [{kind: pilot, name: Ace}]}
      blue: {policy: first, units: [{kind: pilot, name: Bo}]}
"""


def game(start: str, *steps: str) -> str:
    """A scenario of two pilots whose phase, for each unit, runs `steps` (odds-game)."""
    return GAME.replace("START", start).replace(
        "STEPS", "".join(f"        - {s}\n" for s in steps))


CASES = [
    ("q(n): let t = q(n-1); t += d20 (49 deep)",
     chain(49, "let t = q(n - 1)", "t += d20", "return t")),
    ("q(n): return q(n-1) + d100 (49 deep)", chain(49, "return q(n - 1) + d100")),
    ("q(n): twice per level, the second remembered (40 deep)",
     chain(40, "let a = q(n - 1)", "let b = q(n - 1)", "return a + b + d6")),
    ("q(n): return q(n-1) + q(n-1) + d6 (49 deep)",
     chain(49, "return q(n - 1) + q(n - 1) + d6")),
    ("a(n) and b(n) calling each other, + d100 (24 deep)", MUTUAL),
    ("fits: q(n) += d6, 49 deep (60,620 branches)",
     chain(49, "let t = q(n - 1)", "t += d6", "return t")),
    ("control: for 10,000 passes of t += d6 (loop forecast)", LOOP),
    ("odds-game: one unit's phase of 30 unit.t += d100 (tests/hostile/test_game_work.py)",
     game("0", *["unit.t += d100"] * 30)),
    ("odds-game: 10,000 starting states (=d100 twice), each phase x = d100, y = x + d100",
     game('"=d100"', "let x = d100", "let y = x + d100", "unit.t += y")),
]

CHILD = """
import io, sys, time, contextlib
sys.path.insert(0, {tree!r})
from interpreter.cli.main import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    main(["run", {warm!r}, "p", "--odds"])
err = io.StringIO()
command = ["odds-game", {path!r}] if "turn:" in open({path!r}).read() else \\
    ["run", {path!r}, "p", "--odds"]
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
    start = time.process_time()
    code = main(command)
    elapsed = time.process_time() - start
said = err.getvalue().split("error: ", 1)[-1][:90].replace("\\n", " ") if code else "computed"
print(elapsed, code, said)
"""


def once(tree: Path, path: Path, warm: Path) -> tuple[float, str, str]:
    done = subprocess.run([sys.executable, "-c", CHILD.format(tree=str(tree), path=str(path),
                                                              warm=str(warm))],
                          capture_output=True, text=True, timeout=600, cwd=str(tree))
    if done.returncode:
        raise SystemExit(f"the child failed on {path}:\n{done.stderr}")
    seconds, code, said = done.stdout.strip().split(" ", 2)
    return float(seconds), code, said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another rulecraft source tree")
    args = parser.parse_args()
    sides = [("after", ROOT)] + ([("before", args.before.resolve())] if args.before else [])
    folder = Path(tempfile.mkdtemp(prefix="hostile-"))
    warm = folder / "warm.yaml"
    warm.write_text(HEAD + "procedures:\n  p:\n    steps: ['return d6']\n")
    print(f"CPU seconds of `run FILE p --odds` alone, median of {args.runs} fresh processes "
          f"(range); sides taking turns")
    for number, (name, text) in enumerate(CASES):
        path = folder / f"case{number}.yaml"
        path.write_text(text)
        times: dict = {side: [] for side, _ in sides}
        said: dict = {}
        for run in range(args.runs):
            order = sides if run % 2 == 0 else sides[::-1]
            for side, tree in order:
                seconds, code, message = once(tree, path, warm)
                times[side].append(seconds)
                said[side] = f"exit {code}: {message}"
        print(f"\n{name}")
        for side, _ in sides:
            t = times[side]
            print(f"  {side:6} {statistics.median(t):6.2f} s ({min(t):.2f}-{max(t):.2f})  "
                  f"{said[side]}")
        if len(sides) == 2:
            ratio = statistics.median(times["before"]) / statistics.median(times["after"])
            print(f"  before / after: {ratio:.1f}x")


if __name__ == "__main__":
    main()
