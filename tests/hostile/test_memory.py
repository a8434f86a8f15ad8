"""The memory bound: a rule file that makes huge lists, texts or records, or nests them
deeply, is refused with a located error while the process is still small (well under
limits.MAX_MEMORY), on the sampled path with its transcript, the compiled path and
exact odds alike, within a CPU-time bound; three of them run in a process of their own
whose peak resident memory is measured (getrusage of the child, under an address-space
limit of 2 GB that keeps a regression from taking the machine with it)."""
import contextlib
import io
import random
import re
import resource
import subprocess
import sys
import time

import pytest

from interpreter.cli.main import main
from interpreter.errors import RulecraftError, format_error
from interpreter.expr import sizes
from interpreter.game.api import load_ruleset
from interpreter.limits import MAX_MEMORY, MAX_NESTING, MAX_VALUE_SIZE

HEAD = "ruleset: hostile\ntitle: hostile\nprocedures:\n  p:\n    steps:\n"

# name: (steps of `p`, the line of the refusal, what the message says)
CASES = {
    "a list times a huge number": (
        ["let xs = [0] * 1000000000", "return len(xs)"], 6, "items and characters"),
    "a text doubled in a loop": (
        ['let s = "ab"', "repeat:\n          - s = s + s\n        until: false\n        max: 40",
         "return len(s)"], 8, "a text of more than"),
    "a list doubled in a loop": (
        ["let s = [1]", "repeat:\n          - s = s + s\n        until: false\n        max: 40",
         "return len(s)"], 8, "items and characters"),
    "a join with a long separator": (
        ['let sep = join([0 for x in range(10000)], "")',
         'let big = join(range(10000), sep + sep + sep)', "return len(big)"], 7,
        "a text of more than"),
    "a list holding itself twice": (
        ["let s = [1]", "repeat:\n          - s = [s, s]\n        until: false\n        max: 60",
         "return text(s)"], 8, "items and characters"),
    "a record holding itself twice": (
        ["'let r = {a: 1}'", "repeat:\n          - 'r = {a: r, b: r}'\n        until: false\n"
         "        max: 60", "return r"], 8, "items and characters"),
    "lists nested deeply": (
        ["let s = [1]", "repeat:\n          - s = [s]\n        until: false\n        max: 5000",
         "return s"], 8, f"nested more than {MAX_NESTING} deep"),
    "appending long lists in a loop": (
        ["let s = []", "for: i\n        in: range(10000)\n        do:\n"
         "          - s = append(s, range(10000))", "return len(s)"], 10,
        "items and characters"),
    "a comprehension of long lists": (
        ["let big = range(10000)", "let s = [big for i in range(10000)]", "return len(s)"], 7,
        "items and characters"),
}

CHILD = """\
import random, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 * 2 ** 30, 2 * 2 ** 30))
from interpreter.cli.main import main
from interpreter.errors import RulecraftError, format_error
from interpreter.game.api import load_ruleset
def case():
    if sys.argv[1] != "compiled":
        return main(["run", sys.argv[2], "p", "--seed", "1"]
                    + (["--odds"] if sys.argv[1] == "exact" else []))
    try:
        load_ruleset(sys.argv[2]).sampler("p")(random.Random(1))
        return 0
    except RulecraftError as err:
        print(format_error(err))
        return 1
code = case()
try:   # this program's own high-water mark: ru_maxrss would keep the forking parent's
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("peak KB", peak, file=sys.stderr)
sys.exit(code)
"""


FRESH = """\
import interpreter.cli.main, interpreter.game.api
from interpreter.expr.sizes import resident_bytes
print(resident_bytes())
"""


@pytest.fixture(scope="module")
def runner_footprint():
    """What this test process holds beyond a fresh rulecraft process: the earlier tests'
    caches and freed-but-kept memory (a few hundred MB after the rest of tests/hostile/,
    more or less from run to run), which is not the rules'."""
    done = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True,
                          timeout=60, check=True)
    return max(0, sizes.resident_bytes() - int(done.stdout))


@pytest.fixture(autouse=True)
def as_in_a_fresh_process(runner_footprint, monkeypatch):
    """The cases here run in this process as they would in a fresh one: the memory bound
    (`sizes.check_memory`, `sizes.within`) counts what this process holds less what the
    test runner held before, so what the case itself makes still counts in full, and a
    bound fires where it would for a user and not because of the tests before it."""
    resident = sizes.resident_bytes
    monkeypatch.setattr(sizes, "resident_bytes", lambda: resident() - runner_footprint)


def _rule(steps) -> str:
    return HEAD + "".join(f"      - {step}\n" for step in steps)


def _child(path, how: str):
    """(exit code, output, peak resident MB, CPU seconds) of one case in a fresh process
    (the peak as the child itself measures it at its end)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", CHILD, how, str(path)], capture_output=True,
                          text=True, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak = re.search(r"peak KB (\d+)", done.stderr)
    assert peak, done.stderr
    return done.returncode, done.stdout + done.stderr, int(peak.group(1)) / 1024, seconds


def _in_process(path, how: str):
    """(exit code, output, CPU seconds) in this process (its memory: `_child`)."""
    start = time.process_time()
    if how == "compiled":
        try:
            load_ruleset(path).sampler("p")(random.Random(1))
            code, out = 0, ""
        except RulecraftError as err:
            code, out = 1, format_error(err)
    else:
        with contextlib.redirect_stdout(io.StringIO()) as told, \
                contextlib.redirect_stderr(io.StringIO()) as said:
            code = main(["run", str(path), "p", "--seed", "1"]
                        + (["--odds"] if how == "exact" else []))
        out = told.getvalue() + said.getvalue()
    return code, out, time.process_time() - start


@pytest.mark.parametrize("how", ["transcript", "compiled"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_huge_value_is_refused_where_it_is_made_before_it_grows(tmp_path, case, how):
    steps, line, message = CASES[case]
    path = tmp_path / "hostile.yaml"
    path.write_text(_rule(steps), encoding="utf-8")
    code, out, seconds = _in_process(path, how)
    assert code == 1, out
    assert f"hostile.yaml:{line}:" in out and message in out, out
    assert "internal error" not in out
    assert seconds < 15


@pytest.mark.parametrize("case", ["a list times a huge number", "a list doubled in a loop",
                                  "appending long lists in a loop"])
def test_the_whole_process_stays_small_when_a_huge_value_is_refused(tmp_path, case):
    steps, line, message = CASES[case]
    path = tmp_path / "hostile.yaml"
    path.write_text(_rule(steps), encoding="utf-8")
    code, out, peak_mb, seconds = _child(path, "transcript")
    assert code == 1 and f"hostile.yaml:{line}:" in out and message in out, out
    assert peak_mb < 200 < MAX_MEMORY / 2 ** 20
    assert seconds < 20


@pytest.mark.parametrize("case", ["a list times a huge number", "a list holding itself twice"])
def test_a_huge_value_is_refused_in_exact_odds_too(tmp_path, case):
    steps, line, message = CASES[case]
    path = tmp_path / "hostile.yaml"
    path.write_text(_rule(steps), encoding="utf-8")
    code, out, seconds = _in_process(path, "exact")
    assert code == 1 and f"hostile.yaml:{line}:" in out and message in out, out
    assert seconds < 15


@pytest.mark.parametrize("expression,value", [
    ("len([0] * 1000000)", MAX_VALUE_SIZE),            # at the limit: made
    ("len(join([1] * 1000, \"\"))", 1000),
    ("len(append(range(10000), range(10000)))", 10001),
])
def test_values_up_to_the_limit_are_made(cli, expression, value):
    result = cli("roll", expression, "--seed", "1")
    assert result.code == 0 and f"total: {value}" in result.text, result.text


def test_a_transcript_shows_a_long_list_cut_short(cli, write):
    path = write("long.yaml", HEAD + "      - let xs = range(1000)\n      - return len(xs)\n")
    result = cli("run", path, "p", "--seed", "1")
    assert result.code == 0 and "… 800 more]" in result.text and "result: 1000" in result.text
