"""Rolling: rulecraft's sampled rolls per second against the d20 library and the floor,
all in one process, taking turns.

Our side parses and compiles each expression once, then calls the compiled sampler in a
loop: the fast path (`compile_sampler(tree, record=False)`) and the recording path that
builds the transcript (`record=True`, a fresh transcript list per roll).  The floor is
the same roll hand-written in plain Python (benchmarks/hand_written.py), drawing from the
random stream exactly as we do, so the script first asserts that both give the same
rolls for the same seed (a case where they do not is reported as NOT THE SAME ROLL and
not timed); the same rolls written with `randint` are timed too, for reference.  d20:
`d20.roll(expr)` (its API; it caches the parse of a string) and `roller.roll(tree)` with
the tree parsed once.

d20 depends on the old `lark-parser` distribution, which installs a `lark` module of its
own (0.9) where rulecraft needs lark 1.x, so it is installed in the peer environment
benchmarks/.venv-peers (created here on first use, with icepool for exact_odds.py; it
ignores itself in git) and loaded into this same process: rulecraft first, then d20 with
the peer environment's `lark` under the module name `lark`, then rulecraft's `lark` put
back; while d20 is timed the peer's `lark` modules are the ones in `sys.modules`, while
ours is timed ours are.  If the peer environment cannot be built or loaded, the script
says so and times the other sides without d20.

Timing: each side's call count is set once so that one batch takes about `--batch`
milliseconds; then `--rounds` rounds, each timing one batch of every side in CPU time
(`time.process_time`), the order rotated from round to round, so that a busy spell of a
shared machine hits every side alike.  Reported: each side's best round (rolls per
second), the median and the worst; the ratios ours/d20 and hand/ours of the best rounds,
of the medians, and their range within a round.  Sample means are compared so that the
two libraries are seen to roll the same thing.

    python benchmarks/rolling.py [--rounds 40] [--batch 10]
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import os
import random
import statistics
import subprocess
import sys
import time
import timeit
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import hand_written as hw  # noqa: E402

PEERS = ROOT / "benchmarks" / ".venv-peers"
PEER_PYTHON = PEERS / "bin" / "python"

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
    ("8d6>=5", "8d6k>4ma1", hw.eight_d6_successes, hw.randint_8d6_successes),
]


# `8d6>=5` counts the dice showing 5 or more (Roll20's target) and `3d6!` adds a die per
# explosion (its total is the chains' sum); the floor check reports a case instead of
# timing it if the meanings ever part.


def ensure_peers() -> tuple[str | None, str]:
    """The peer environment's site-packages with d20 in it (created once), or None and
    why not."""
    try:
        if not PEER_PYTHON.exists():
            print(f"creating {PEERS} with d20 and icepool ...", file=sys.stderr)
            venv.create(PEERS, with_pip=True)
            (PEERS / ".gitignore").write_text("*\n")  # the venv ignores itself
        probe = ("import sys, sysconfig; print(sys.version.split()[0]); "
                 "print(sysconfig.get_paths()['purelib'])")
        found = subprocess.run([str(PEER_PYTHON), "-c", "import d20"], capture_output=True)
        if found.returncode != 0:
            subprocess.run([str(PEER_PYTHON), "-m", "pip", "install", "-q", "d20", "icepool"],
                           check=True, capture_output=True)
        version, site = subprocess.run([str(PEER_PYTHON), "-c", probe], capture_output=True,
                                       text=True, check=True).stdout.split("\n")[:2]
    except (OSError, subprocess.CalledProcessError) as err:
        return None, f"the peer environment {PEERS} could not be built ({err})"
    if version != sys.version.split()[0]:
        return None, f"the peer environment runs Python {version}, this is {sys.version.split()[0]}"
    return site, ""


class Peer:
    """d20 loaded into this process beside rulecraft (each with its own `lark`)."""

    def __init__(self, site: str):
        importlib.import_module("lark")    # rulecraft's, first
        self.ours = self._take()
        sys.path.insert(0, site)
        try:
            import d20
            from importlib.metadata import version
            self.d20, self.version = d20, version("d20")
        finally:
            sys.path.remove(site)
            self.theirs = self._take()
            sys.modules.update(self.ours)

    @staticmethod
    def _take() -> dict:
        taken = {k: m for k, m in sys.modules.items() if k == "lark" or k.startswith("lark.")}
        for k in taken:
            del sys.modules[k]
        return taken

    @contextlib.contextmanager
    def active(self):
        """d20's `lark` in sys.modules for the duration (a lazy import inside lark finds
        its own modules)."""
        self._take()
        sys.modules.update(self.theirs)
        try:
            yield
        finally:
            self._take()
            sys.modules.update(self.ours)


def load_peer() -> tuple[Peer | None, str]:
    site, why = ensure_peers()
    if site is None:
        return None, why
    try:
        return Peer(site), ""
    except Exception as err:   # any failure to import a third-party library: say it, go on
        return None, f"d20 could not be loaded from {site}: {err!r}"


def same_rolls(fast, recording, context, hand, randint_hand) -> tuple[float, float] | str:
    """Our fast and recording samplers and the floor roll the same values for the same
    seed, and the randint floor has the same mean: (our mean, its standard error), or
    what differs."""
    n = 20000
    ctx = context(random.Random(7))
    ours = [fast(ctx) for _ in range(n)]
    ctx = context(random.Random(7), [])
    recorded = [recording(ctx) for _ in range(n)]
    rng = random.Random(7)
    floor = [hand(rng) for _ in range(n)]
    if not ours == recorded == floor:
        first = next(i for i in range(n) if not ours[i] == recorded[i] == floor[i])
        return (f"roll {first}: ours {ours[first]}, ours with transcript {recorded[first]}, "
                f"hand-written {floor[first]}")
    mean, se = statistics.fmean(ours), statistics.stdev(ours) / math.sqrt(n)
    rng = random.Random(7)
    other = statistics.fmean(randint_hand(rng) for _ in range(n))
    if abs(other - mean) > 6 * se * math.sqrt(2):
        return f"the randint floor's mean {other:.4f} is not ours {mean:.4f}"
    return mean, se


def calibrate(call, arg, batch_seconds: float) -> int:
    """A call count that takes about `batch_seconds` of CPU time."""
    timer = timeit.Timer("call(arg)", globals={"call": call, "arg": arg}, timer=time.process_time)
    number = 1
    while True:
        taken = timer.timeit(number)
        if taken >= batch_seconds / 4 or number >= 10**7:
            return max(1, int(number * batch_seconds / max(taken, 1e-9)))
        number *= 4


def take_turns(sides: dict, rounds: int, batch_seconds: float) -> dict[str, list[float]]:
    """sides: name -> (call, arg, context manager factory or None).  Rolls per second of
    each side in each round, the sides taking turns, the order rotated each round."""
    numbers = {}
    for name, (call, arg, within) in sides.items():
        with (within() if within else contextlib.nullcontext()):
            numbers[name] = calibrate(call, arg, batch_seconds)
    rates = {name: [] for name in sides}
    names = list(sides)
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            call, arg, within = sides[name]
            timer = timeit.Timer("call(arg)", globals={"call": call, "arg": arg},
                                 timer=time.process_time)
            with (within() if within else contextlib.nullcontext()):
                rates[name].append(numbers[name] / timer.timeit(numbers[name]))
    return rates


def summary(rates: list[float]) -> str:
    return f"{max(rates):,.0f} / {statistics.median(rates):,.0f} / {min(rates):,.0f}"


def ratio(a: list[float], b: list[float]) -> str:
    """a/b of the rates: best rounds, medians, and the range within a round."""
    per_round = [x / y for x, y in zip(a, b)]
    return (f"{max(a) / max(b):.2f}x, {statistics.median(a) / statistics.median(b):.2f}x "
            f"({min(per_round):.2f}x-{max(per_round):.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--batch", type=float, default=10, help="milliseconds per batch")
    args = parser.parse_args()
    from _internal import expression_sampler

    peer, why = load_peer()
    if peer is None:
        print(f"*** d20 IS NOT MEASURED: {why} ***\n", file=sys.stderr)
    print(f"rolls per second: {args.rounds} rounds taking turns, one process, CPU time, "
          f"batches of about {args.batch:g} ms; Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
          f"d20 {peer.version if peer else 'NOT MEASURED'}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    print("rates are best / median / worst round; ratios are of the best rounds, of the "
          "medians, and (the range within a round)\n")
    print("| expression | d20 spelling | ours | ours, transcript | d20 roll(str) "
          "| d20 roll(tree) | hand | hand, randint | ours/d20 | hand/ours |")
    print("|---|---|" + "---:|" * 8)
    for expr, d20_expr, hand, randint_hand in CASES:
        fast, context = expression_sampler(expr, record=False)
        recording, _ = expression_sampler(expr, record=True)
        checked = same_rolls(fast, recording, context, hand, randint_hand)
        if isinstance(checked, str):
            print(f"| `{expr}` | NOT THE SAME ROLL: {checked} | | | | | | | | |")
            continue
        mean, se = checked
        rec_ctx = context(random.Random(1), [])

        def recorded(ctx, recording=recording):   # a fresh transcript for each roll
            ctx.record = []
            return recording(ctx)
        sides = {"ours": (fast, context(random.Random(1)), None),
                 "ours, transcript": (recorded, rec_ctx, None),
                 "hand": (hand, random.Random(1), None),
                 "hand, randint": (randint_hand, random.Random(1), None)}
        note = ""
        if peer is not None:
            with peer.active():
                random.seed(1)
                d20_mean = statistics.fmean(peer.d20.roll(d20_expr).total for _ in range(20000))
                roller = peer.d20.Roller()
                tree = roller.parse(d20_expr)
            if abs(d20_mean - mean) > 6 * se * math.sqrt(2):
                note = f"  MEANS DIFFER: ours {mean:.4f}, d20 {d20_mean:.4f}"
            sides["d20 roll(str)"] = (peer.d20.roll, d20_expr, peer.active)
            sides["d20 roll(tree)"] = (roller.roll, tree, peer.active)
        rates = take_turns(sides, args.rounds, args.batch / 1000)
        if peer is not None:
            faster = max(("d20 roll(str)", "d20 roll(tree)"),
                         key=lambda n: statistics.median(rates[n]))
            d20_cells = (f"{summary(rates['d20 roll(str)'])} | {summary(rates['d20 roll(tree)'])}",
                         ratio(rates["ours"], rates[faster]))
        else:
            d20_cells = ("not measured | not measured", "not measured")
        print(f"| `{expr}` | `{d20_expr}` | {summary(rates['ours'])} | "
              f"{summary(rates['ours, transcript'])} | {d20_cells[0]} | {summary(rates['hand'])} | "
              f"{summary(rates['hand, randint'])} | {d20_cells[1]} | "
              f"{ratio(rates['hand'], rates['ours'])} |{note}", flush=True)


if __name__ == "__main__":
    main()
