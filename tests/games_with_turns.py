"""Every ruleset of the tree that can be played (bundled, house rules, test rulesets
with a turn) and its scenarios: the games the tests that compare two ways of playing
(tests/test_turn_loops.py, tests/test_told_quiet.py) play both ways."""
from __future__ import annotations

from pathlib import Path

from interpreter.errors import RulecraftError
from interpreter.game.api import load_ruleset

ROOT = Path(__file__).resolve().parent.parent
RULESETS = sorted(str(p.relative_to(ROOT)) for p in
                  [*ROOT.glob("rules/*/*.yaml"), *ROOT.glob("tests/rulesets/*.yaml")])


def scenarios_to_play():
    """(path relative to the tree, scenario name) of every playable scenario."""
    for path in RULESETS:
        try:
            rules = load_ruleset(ROOT / path)
        except RulecraftError:
            continue   # (the test rulesets that are meant to be refused)
        if rules.turn is None:
            continue
        for scenario in rules.scenarios:
            yield path, scenario
