"""The compiled (no-transcript) form of steps agrees with the reference closures."""
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.errors import RulecraftError
from interpreter.ruleset import load_ruleset

ROOT = Path(__file__).parent.parent


def simulate_json(ruleset, codegen: bool) -> dict:
    env = {**os.environ}
    if not codegen:
        env["RULECRAFT_NO_CODEGEN"] = "1"
    out = subprocess.run([sys.executable, "-m", "interpreter", "simulate", ruleset, "--runs", "25",
                          "--seed", "9", "--json"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("ruleset", ["tanks", "legowars", "tests/rulesets/duel.yaml",
                                     "tests/rulesets/hexes.yaml"])
def test_simulation_is_the_same_compiled_or_not(ruleset):
    assert simulate_json(ruleset, True) == simulate_json(ruleset, False)


@pytest.mark.parametrize("path,procedure", [("tests/rulesets/duel.yaml", "attack"),
                                            ("rules/tanks/tanks.yaml", "shoot"),
                                            ("tests/rulesets/effects.yaml", "hit")])
def test_fast_runs_match_recorded_runs_seed_by_seed(path, procedure):
    rules = load_ruleset(ROOT / path)
    fast = rules.sampler(procedure, {})
    for seed in range(30):
        assert fast(random.Random(seed)) == rules.run(procedure, {}, seed).result


def test_compiled_steps_still_raise_located_errors():
    rules = load_ruleset(ROOT / "tests" / "rulesets" / "errors.yaml")
    with pytest.raises(RulecraftError) as info:
        rules.sampler("divide", {})(random.Random(1))
    assert "division by zero" in info.value.message
    assert info.value.location.line == 11
