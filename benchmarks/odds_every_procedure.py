"""`rulecraft run RULESET PROCEDURE --odds` for every procedure of every bundled ruleset,
with its default inputs: how long each takes (CPU seconds), how much memory the process
reached, and what came of it (answered, refused and by which limit, or another error).

Issue #20 asks that every exact request be answered or refused within about a second:
the slow rows of this table are the cases.  Each request runs in a child forked from a
process that has already loaded the ruleset (so the time is the request's own, not the
start-up's), with the command line's own entry point (`interpreter.cli.main`), its
output thrown away; the memory is the child's peak resident size (`ru_maxrss`, which
starts from the parent's size at the fork: the loaded ruleset, 40-60 MB).

    python benchmarks/odds_every_procedure.py [--tree PATH] [--ruleset ID ...]
        [--only RULESET:PROCEDURE ...] [--slower 0.5] [--timeout 120] [--json]

`--tree` runs another source tree's interpreter (a clean copy of main, to compare).
Without `--slower`, every row is printed; with it, only those at least that slow.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _child(ruleset: str, procedure: str, pipe_w: int) -> None:
    """Run the request, then write (code, cpu seconds, first error line) and exit."""
    from interpreter.cli.main import main
    sys.stdout = io.StringIO()
    err = sys.stderr = io.StringIO()
    start = time.process_time()
    try:
        code = main(["run", ruleset, procedure, "--odds"])
    except BaseException as exc:   # the survey reports it, whatever it is
        code, err = 99, io.StringIO(f"{type(exc).__name__}: {exc}")
    seconds = time.process_time() - start
    lines = [line for line in err.getvalue().splitlines() if line.strip()]
    said = next((line for line in lines if "error" in line.lower()), lines[0] if lines else "")
    os.write(pipe_w, json.dumps([code, seconds, said[:300]]).encode())
    os._exit(0)


def survey_one(ruleset: str, procedure: str, timeout: float) -> dict:
    """One request in a forked child: its outcome, CPU time and peak memory."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(ruleset, procedure, w)
    os.close(w)
    deadline = time.monotonic() + timeout
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            os.close(r)
            return {"ruleset": ruleset, "procedure": procedure, "outcome": "timeout",
                    "seconds": usage.ru_utime + usage.ru_stime, "mb": usage.ru_maxrss / 1024,
                    "said": f"killed after {timeout:.0f} s"}
        time.sleep(0.02)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    if not data:
        return {"ruleset": ruleset, "procedure": procedure, "outcome": "crashed",
                "seconds": usage.ru_utime + usage.ru_stime, "mb": usage.ru_maxrss / 1024,
                "said": f"exit status {status}"}
    code, seconds, said = json.loads(data)
    outcome = {0: "answered", 1: "refused" if "limit" in said.lower() or "budget" in said
               else "error", 2: "usage"}.get(code, "internal")
    return {"ruleset": ruleset, "procedure": procedure, "outcome": outcome, "code": code,
            "seconds": seconds, "mb": usage.ru_maxrss / 1024, "said": said}


def survey(rulesets: list[str] | None, timeout: float, only: list[str] | None = None) -> list[dict]:
    from interpreter.game.api import load_ruleset
    from interpreter.model.paths import bundled
    rows = []
    for entry in bundled():
        if rulesets and entry["id"] not in rulesets or \
                only and not any(o.split(":")[0] == entry["id"] for o in only):
            continue
        rules = load_ruleset(entry["id"])   # loaded (and cached) once, before the forks
        for procedure in rules.procedures:
            if only and f"{entry['id']}:{procedure}" not in only:
                continue
            rows.append(survey_one(entry["id"], procedure, timeout))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the source tree to run")
    parser.add_argument("--ruleset", action="append", help="only these bundled rulesets")
    parser.add_argument("--only", action="append", metavar="RULESET:PROCEDURE",
                        help="only these requests")
    parser.add_argument("--slower", type=float, default=None,
                        help="print only the requests taking at least this many CPU seconds")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    parser.add_argument("--json", action="store_true", help="the rows as JSON")
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    rows = survey(args.ruleset, args.timeout, args.only)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    shown = [r for r in rows if args.slower is None or r["seconds"] >= args.slower]
    for r in shown:
        print(f"{r['seconds']:7.2f} s {r['mb']:6.0f} MB  {r['outcome']:9} "
              f"{r['ruleset']} {r['procedure']}" + (f"  -- {r['said']}" if r["outcome"] != "answered" else ""))
    counts: dict = {}
    for r in rows:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    slowest = max(rows, key=lambda r: r["seconds"]) if rows else None
    print(f"{len(rows)} requests: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) +
          (f"; slowest {slowest['seconds']:.2f} s ({slowest['ruleset']} {slowest['procedure']}), "
           f"peak {max(r['mb'] for r in rows):.0f} MB" if slowest else ""))


if __name__ == "__main__":
    main()
