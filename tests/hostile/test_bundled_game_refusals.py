"""`rulecraft odds-game R` on the bundled rulesets' default scenarios (issue #20): each is
refused in its first turn, at the step where the budget or the forecast stopped it, with
the located LimitError that names the budget and how to raise it.  Counted, not timed:
the message (the work so far, the states left) is the same on every machine; only the
time bound below depends on the machine.

Where the time goes (benchmarks/README.md, refuse2 and refuse3): each is refused in turn
1; with a turn's budget of three times `forks` the whole command took 0.9-4.3 s CPU at
idle (150,000-460,000 units at 150,000-200,000 units a second).  Now a turn may work
`forks` itself (FORKS_PER_TURN = 1; a scenario that means more, the Jugger duel, says so
in its `budgets:`), so tanks, legowars and jugger are foreseen after 40,000-60,000 units
and mech-d20 is refused by one segment's `forks`; issue #20 asks for under one second.
The bounds are the idle times with the room a loaded machine needs (about three times),
so that they catch a refusal that comes later, not the goal.  Each runs as its own
process, as a user runs it: the whole command's CPU, and the memory a refused game held
is not left to the tests after it (tests/hostile/test_memory.py reads the process's
size).  The ruleset's checked model is cached first (an untimed `validate`), as after a
user's first command: building jugger's model afresh is about 2 s more, once."""
import os
import resource
import subprocess
import sys
import tempfile
import time

import pytest

from interpreter.limits import BUDGETS, FORKS_PER_TURN, MAX_FORKS

TURN = f"exact odds of one turn would work out more than {MAX_FORKS * FORKS_PER_TURN:,} " \
       f"branches (the exact-work budget, `forks`, which every unit's or side's steps in " \
       f"every state of the turn share)"
SEGMENT = f"exact odds would work out more than {MAX_FORKS:,} branches (the exact-work " \
          f"budget, `forks`): this step is where they passed it"

# ruleset: (where, phase, what the message says, CPU seconds: session 12, refuse4, the
# median of five runs taking turns with main, on a machine where `import lark` takes
# 0.04-0.05 s, shared (load 2.6-3.4 on 2 cores) but where main took its idle times (tanks
# 0.39, legowars 0.31, jugger 0.57, mech-d20 1.04 s; the lead at idle: 0.39-0.45,
# 0.30-0.31, 0.55-0.58, 0.97-1.00), the model cached and the modules' compiled files kept;
# compiled afresh each run, as under PYTHONDONTWRITEBYTECODE, more: benchmarks/README.md,
# lead 11)
REFUSED = {
    "tanks": ("tanks.yaml:826:11", "shooting", TURN + ": after 59,648 in this turn, the 47 "
              "states still to play this part of it would work at least 358,140 more", 0.37),
    "legowars": ("legowars.yaml:1151:11", "movement", TURN + ": after 42,817 in this turn, the "
                 "252 states still to play this part of it would work at least 118,692 more", 0.29),
    "jugger": ("play.yaml:645:11", "movement", TURN + ": after 51,686 in this turn, the 25 "
               "states still to play this part of it would work at least 148,400 more", 0.42),
    # (the same step whatever the collector does: run/frames.derived_key holds the world a
    # copy came from, so no weight follows the collector's timing)
    "mech-d20": ("mech-d20.yaml:1160:15", "combat", SEGMENT, 0.65),
}


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def odds_game(ruleset):
    """`rulecraft odds-game RULESET` in a process of its own, its model cached by a
    `validate` before: (exit code, its output, CPU s, peak memory in pages, minor page
    faults), the last three of that process alone (`os.wait4`)."""
    env = {**os.environ, "PYTHONPATH": ROOT}
    warm = subprocess.run([sys.executable, "-m", "interpreter", "validate", ruleset],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert warm.returncode == 0, warm.stdout + warm.stderr
    with tempfile.TemporaryFile("w+") as out:
        child = subprocess.Popen([sys.executable, "-m", "interpreter", "odds-game", ruleset],
                                 stdout=out, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                                 env=env)
        usage = _waited(child, 300)
        out.seek(0)
        said = out.read()
    cpu = usage.ru_utime + usage.ru_stime
    return child.returncode, said, cpu, usage.ru_maxrss * 1024 // resource.getpagesize(), \
        usage.ru_minflt


def _waited(child, seconds: float):
    """The child's resource usage once it has ended (killed after `seconds`)."""
    deadline = time.monotonic() + seconds
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            child.returncode = os.waitstatus_to_exitcode(status)
            return usage
        if time.monotonic() > deadline:
            child.kill()
            raise AssertionError(f"{child.args} ran over {seconds} s")
        time.sleep(0.02)


@pytest.mark.parametrize("ruleset", sorted(REFUSED))
def test_a_bundled_default_scenario_is_refused_in_its_first_turn(ruleset):
    where, phase, says, idle = REFUSED[ruleset]
    code, err, seconds, pages, faults = odds_game(ruleset)
    assert code == 1, err
    assert "Traceback" not in err
    assert f"{where}: error: odds-game stopped in turn 1 ({phase}): {says}" in err, err
    # the first turn does not fit, so no `--turns`; the budget that stopped it, and how
    # to raise it
    assert "hint: the game's first turn does not fit exact odds; use `rulecraft simulate` " \
           "for this scenario; if the exact odds are meant, raise the budget with `budgets: " \
           "{forks: N}` in the ruleset, or for this scenario alone in `scenarios: {default: " \
           f"{{budgets: {{forks: N}}}}}}` (at most {BUDGETS['forks'][1]:,})" in err, err
    assert seconds < 3 * idle, seconds
    # the memory it touched is taken from the system about once: not a stack chunk
    # mapped and unmapped again at every branch (run/stack.py; 4 times its peak before)
    assert faults < 2 * pages, (faults, pages)
