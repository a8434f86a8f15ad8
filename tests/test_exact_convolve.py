"""Rolls kept as distributions (run/pending.py) and blocks worked out once per state
(run/block_memo.py): every result is the brute-force enumeration of the same rules,
written out here over every face of every die, exactly."""
from __future__ import annotations

import itertools
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.errors import LimitError
from interpreter.game.api import load_ruleset

# the benchmark's hand-written floor is the oracle: the test also keeps the baseline honest
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from exact_scale import volley_floor  # noqa: E402

HERE = Path(__file__).parent
RULES = load_ruleset(HERE / "rulesets" / "exact_convolve.yaml")
SCALE = load_ruleset(HERE / "rulesets" / "exact_scale.yaml")


def brute(dice, result):
    """The distribution of `result(*faces)` over every combination of the dice (each a
    number of faces), each combination equally likely."""
    out: dict = {}
    combos = list(itertools.product(*(range(1, n + 1) for n in dice)))
    for faces in combos:
        value = result(*faces)
        out[value] = out.get(value, 0) + Fraction(1, len(combos))
    return out


def odds(rules, name, inputs=None):
    dist = rules.run_odds(name, inputs or {}).outcomes
    return {v: dist.probability(v) for v in dist.values()}


def _counted(need):
    def hits(a, b, c, d):
        n = (a >= need) + (b >= need) + (c >= need + 2)
        return n + (10 if d == 6 or d + n >= 5 else 0)
    return hits


def _loop_state(attacks):
    def run(*faces):
        hits = 0
        for r, extra in zip(faces[::2], faces[1::2]):
            if r >= 3 and hits < 2:
                hits += 1 + (extra == 3)
        return hits
    return [6, 3] * attacks, run


def _first_six(*faces):
    return next((i for i, r in enumerate(faces, 1) if r == 6), 0)


def _until(*faces):
    return next((i for i, x in enumerate(faces, 1) if x >= 5), 4)


CASES = [
    ("sum_at_end", {}, [6, 6, 4, 8, 3], lambda a, b, c, d, e: a + b + c - d + 2 * e),
    ("counted", {}, [6, 6, 8, 6], _counted(4)),
    ("counted", {"need": 5}, [6, 6, 8, 6], _counted(5)),
    ("read_twice", {}, [6], lambda r: 2 * r),
    ("tested_then_read", {}, [6], lambda r: r if r >= 4 else 0),
    ("natural_after_copy", {}, [6, 6], lambda r, h: 10 * h + r),
    ("sum_then_tested", {}, [6, 4], lambda a, b: "big" if a + b >= 7 else a + b),
    ("two_in_one_test", {}, [6, 6], lambda a, b: "high" if a + b >= 10 else "low"),
    ("chained_sums", {}, [6, 6, 10], lambda a, b, c: 2 * (a + b) - c),
    ("loop_state", {"attacks": 3}, *_loop_state(3)),
    ("loop_state", {"attacks": 4}, *_loop_state(4)),
    ("loop_return", {}, [6] * 5, _first_six),
    ("loop_total", {}, [6, 6, 6], lambda a, b, c: a + b + c),
    ("until_roll", {}, [6] * 4, _until),
    ("flag_kept", {}, [6, 6, 6], lambda *rs: 10 * (6 in rs) + sum(r >= 4 for r in rs)),
    ("tested_once_each", {}, [6, 4, 8, 10],
     lambda a, b, c, d: "yes" if (not a > b) and c >= 5 or d - 7 == 2 else "no"),
    ("tested_once_each", {"need": 8}, [6, 4, 8, 10],
     lambda a, b, c, d: "yes" if (not a > b) and c >= 8 or d - 7 == 2 else "no"),
    ("tested_twice", {}, [6, 8], lambda a, c: "yes" if a >= 3 and c >= 5 or c == 1 else "no"),
]


@pytest.mark.parametrize("procedure, inputs, dice, result", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_kept_rolls_and_remembered_blocks_are_the_brute_force_odds(procedure, inputs, dice,
                                                                  result):
    assert odds(RULES, procedure, inputs) == brute(dice, result)


def _sum_of_d6(k):
    """k d6 summed, by hand: the number of ways to make each total."""
    ways = {0: 1}
    for _ in range(k):
        new: dict = {}
        for total, n in ways.items():
            for face in range(1, 7):
                new[total + face] = new.get(total + face, 0) + n
        ways = new
    return {t: Fraction(n, 6 ** k) for t, n in ways.items()}


def _ladder(k):
    lines = ["ruleset: ladder", "title: the k-roll ladder", "procedures:", "  at_end:",
             "    steps:"]
    lines += [f"      - let r{i} = d6" for i in range(k)]
    lines += ["      - return " + " + ".join(f"r{i}" for i in range(k))]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("k", [1, 3, 12])
def test_twelve_named_rolls_read_only_at_the_end_are_convolved_fast(tmp_path, k):
    path = tmp_path / "ladder.yaml"
    path.write_text(_ladder(k))
    rules = load_ruleset(path)
    started = time.process_time()
    got = odds(rules, "at_end")
    assert time.process_time() - started < 1
    assert got == _sum_of_d6(k)


def test_two_d10000_added_at_the_end_are_convolved_not_refused():
    """Refused before rolls could be kept (100,000,000 states); now the sum itself."""
    got = odds(SCALE, "two_big_sum")
    assert len(got) == 19999
    assert got[2] == got[20000] == Fraction(1, 10 ** 8)
    assert got[10001] == Fraction(10000, 10 ** 8)
    assert sum(got.values()) == 1


def test_a_test_of_two_kept_rolls_is_refused_by_the_work_budget_before_it_is_made():
    started = time.process_time()
    with pytest.raises(LimitError) as caught:
        RULES.run_odds("two_big_tested")
    assert time.process_time() - started < 2
    assert "this step would make 100,000,000 branches" in caught.value.message
    assert caught.value.location.line == 144


@pytest.mark.parametrize("attacks, models, wounds", [(1, 3, 2), (2, 1, 1), (5, 3, 2),
                                                     (8, 2, 3), (20, 3, 2)])
def test_the_volley_is_the_hand_written_dynamic_programme(attacks, models, wounds):
    inputs = {"attacks": attacks, "models": models, "wounds": wounds}
    assert odds(SCALE, "volley", inputs) == volley_floor(attacks, models, wounds)
