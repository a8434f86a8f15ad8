"""Rolling: rulecraft's sampled rolls per second against the d20 library and the floor.

Our side parses and compiles each expression once, then calls the compiled sampler in a
loop: the fast path (`compile_sampler(tree, record=False)`) and the recording path that
builds the transcript (`record=True`).  The floor is the same roll hand-written in plain
Python (benchmarks/hand_written.py), drawing from the random stream exactly as we do, so
the script first asserts that both give the same rolls for the same seed; the same rolls
written with `randint` are timed too, for reference.  d20 depends on the old
`lark-parser` distribution, which installs the same `lark` module as rulecraft, so it
lives in its own virtual environment (benchmarks/.venv-d20, created here on first use)
and is timed in a subprocess: `d20.roll(expr)` (its API; it caches the parse of a
string) and `roller.roll(tree)` with the tree parsed once.

Every rate is the best of 5 `timeit` repeats of a call count that `timeit` autoranges
to at least 0.2 s; the same timing function runs on both sides.  Sample means are
compared so that the two libraries are seen to roll the same thing.

    python benchmarks/rolling.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import inspect
import json
import math
import random
import statistics
import subprocess
import sys
import timeit
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import hand_written as hw  # noqa: E402

D20_ENV = ROOT / "benchmarks" / ".venv-d20"
D20_PYTHON = D20_ENV / "bin" / "python"

# (ours, d20's spelling or None, hand-written floor with random(), floor with randint)
CASES = [
    ("1d20+5", "1d20+5", hw.d20_plus_5, hw.randint_d20_plus_5),
    ("4d6kh3", "4d6kh3", hw.four_d6_keep_3, hw.randint_4d6_keep_3),
    ("8d6", "8d6", hw.eight_d6, hw.randint_8d6),
    ("(1d6+3)*4", "(1d6+3)*4", hw.d6_plus_3_times_4, hw.randint_d6_plus_3_times_4),
    # d20's `e6` explodes on a 6 with no depth (only its 1000-dice cap); ours `!` stops
    # after 10 explosions per die: the means differ by about 1e-8.
    ("3d6!", "3d6e6", hw.three_d6_exploding, hw.randint_3d6_exploding),
    # d20 has no success count: keep the dice above 4 (k>4), then cap each kept die at 1
    # (ma1) and sum - the number of dice showing 5 or 6.
    ("8d6cs>=5", "8d6k>4ma1", hw.eight_d6_successes, hw.randint_8d6_successes),
]


def rate(call, arg, repeat=5):
    """Calls per second of `call(arg)`: the best of `repeat` timeit runs."""
    timer = timeit.Timer("call(arg)", globals={"call": call, "arg": arg})
    number, _ = timer.autorange()
    number = max(number, 1)
    return number / min(timer.repeat(repeat, number))


PEER = inspect.getsource(rate) + """
import json, random, statistics, sys, timeit
import d20
exprs, repeat = json.loads(sys.argv[1]), int(sys.argv[2])
out = {}
for expr in exprs:
    random.seed(1)
    values = [d20.roll(expr).total for _ in range(20000)]
    roller = d20.Roller()
    tree = roller.parse(expr)
    out[expr] = {"mean": statistics.fmean(values),
                 "roll": rate(d20.roll, expr, repeat),
                 "parsed": rate(roller.roll, tree, repeat)}
print(json.dumps(out))
"""


def ensure_d20() -> str:
    """Create d20's venv once; its version."""
    if not D20_PYTHON.exists():
        print(f"creating {D20_ENV} with d20 ...", file=sys.stderr)
        venv.create(D20_ENV, with_pip=True)
        (D20_ENV / ".gitignore").write_text("*\n")  # the venv ignores itself
        subprocess.run([str(D20_PYTHON), "-m", "pip", "install", "-q", "d20"], check=True)
    return subprocess.run([str(D20_PYTHON), "-c",
                           "from importlib.metadata import version; print(version('d20'))"],
                          capture_output=True, text=True, check=True).stdout.strip()


def run_d20(exprs: list[str], repeat: int) -> dict:
    out = subprocess.run([str(D20_PYTHON), "-c", PEER, json.dumps(exprs), str(repeat)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def check_floor(fast, recording, hand, randint_hand, expr: str) -> tuple[float, float]:
    """Assert that our fast and recording samplers and the floor roll the same values
    for the same seed, and that the randint floor has the same mean; our mean and its
    standard error."""
    from interpreter.expr.sampled import Context
    n = 20000
    ctx = Context({}, random.Random(7))
    ours = [fast(ctx) for _ in range(n)]
    ctx = Context({}, random.Random(7), [])
    recorded = [recording(ctx) for _ in range(n)]
    rng = random.Random(7)
    floor = [hand(rng) for _ in range(n)]
    assert ours == recorded == floor, f"{expr}: ours and the hand-written floor differ"
    mean, se = statistics.fmean(ours), statistics.stdev(ours) / math.sqrt(n)
    rng = random.Random(7)
    other = statistics.fmean(randint_hand(rng) for _ in range(n))
    assert abs(other - mean) < 6 * se * math.sqrt(2), f"{expr}: randint floor mean {other} vs {mean}"
    return mean, se


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    from interpreter.lang.parse import parse_expression
    from interpreter.expr.sampled import Context, compile_sampler

    version = ensure_d20()
    peer = run_d20([d for _, d, _, _ in CASES if d], repeat)
    print(f"rolls per second, best of {repeat} timeit repeats; Python "
          f"{sys.version.split()[0]}, d20 {version}\n")
    header = ("| expression | d20 spelling | ours | ours, transcript | d20 roll(str) "
              "| d20 roll(tree) | hand | hand, randint | ours/d20 | hand/ours |")
    print(header)
    print("|---|---|" + "---:|" * 8)
    for expr, d20_expr, hand, randint_hand in CASES:
        tree = parse_expression(expr)
        fast, recording = compile_sampler(tree, record=False), compile_sampler(tree, record=True)
        mean, se = check_floor(fast, recording, hand, randint_hand, expr)
        ours = rate(fast, Context({}, random.Random(1)), repeat)
        rec_ctx = Context({}, random.Random(1), [])

        def recorded(ctx, recording=recording):  # a fresh transcript for each roll
            ctx.record = []
            return recording(ctx)
        ours_rec = rate(recorded, rec_ctx, repeat)
        floor = rate(hand, random.Random(1), repeat)
        floor_randint = rate(randint_hand, random.Random(1), repeat)
        p = peer.get(d20_expr) if d20_expr else None
        note = ""
        if p is not None and abs(p["mean"] - mean) > 6 * se * math.sqrt(2):
            note = f"  MEANS DIFFER: ours {mean:.4f}, d20 {p['mean']:.4f}"
        d20_best = max(p["roll"], p["parsed"]) if p else None
        print(f"| `{expr}` | `{d20_expr}` | {ours:,.0f} | {ours_rec:,.0f} | "
              f"{p['roll']:,.0f} | {p['parsed']:,.0f} | {floor:,.0f} | {floor_randint:,.0f} | "
              f"{ours / d20_best:.1f}x | {floor / ours:.2f}x |{note}")


if __name__ == "__main__":
    main()
