"""The mech damage chain's exact odds (issues #12, #16): the test ruleset's mech volley
and rules/mech-d20's bare-card LRM 10 `hit_with` (the case of
tests/test_rules_mech-d20.py, test_multi_die_weapon_spreads_with_transfer_exact), with
and without the natural 20, and a whole `attack` of an LRM 10 (the Boar at the Warthog,
their own cards, range 8).  A case the exact-work budget refuses prints the refusal
(after the time it took to refuse).  CPU time of one run of each, in this process, after the
rulesets are loaded; the result's fingerprint is printed so that two trees can be seen
to agree.  Two trees are compared by running this once per tree, taking turns:

    for t in MAIN THIS MAIN THIS; do PYTHONPATH=$t python $t/benchmarks/exact_mech.py $t; done

`--lift` adds the whole `attack` again with the exact-work budget raised to its ceiling
(about 8-10 s on the idle machine in session 9; benchmarks/exact_census.py says where
that goes).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

LIFT = "--lift" in sys.argv[1:]
_TREES = [a for a in sys.argv[1:] if a != "--lift"]
TREE = Path(_TREES[0] if _TREES else Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(TREE))
sys.path.insert(0, str(TREE / "benchmarks"))
from _internal import load_ruleset  # noqa: E402
from interpreter.errors import RulecraftError  # noqa: E402

EMPTY_SLOTS = ("{head: [], centre_torso: [], left_torso: [], right_torso: [], left_arm: [], "
               "right_arm: [], left_leg: [], right_leg: []}")
BARE_CARD = {"weapons": "[]", "heat_sinks": "[]", "jump_jets": "[]", "ammo_bins": "[]",
             "critical_slots": EMPTY_SLOTS}
PARTS = ["left_torso", "right_torso", "left_arm", "right_arm", "left_leg", "right_leg", "head"]


def lrm10(mech, natural_20: bool):
    """The test's case: every part but the centre torso at 0 external and 0 internal."""
    inputs = {"weapon": 'weapons["LRM 10"]', "natural_20": str(natural_20).lower()}
    for part in PARTS:
        inputs[f"target.locations.{part}.armour"] = "0"
        inputs[f"target.locations.{part}.internal"] = "0"
    for unit in ("attacker", "target"):
        for field, value in BARE_CARD.items():
            inputs[f"{unit}.{field}"] = value
    odds = mech.run_odds("hit_with", inputs, track=["target.locations.centre_torso.armour"])
    dist = odds.tracked["target.locations.centre_torso.armour"]
    return hash(tuple(sorted((v, dist.probability(v)) for v, _ in dist.items())))


def attack(mech):
    """A whole attack: the roll, then every die's location and transfer, criticals and
    ammunition explosions of the cards."""
    inputs = {"weapon": 'weapons["LRM 10"]', "attacker": 'mechs["Boar"]',
              "target": 'mechs["Warthog"]', "range": "8"}
    odds = mech.run_odds("attack", inputs, track=["target.locations.centre_torso.armour"])
    dist = odds.tracked["target.locations.centre_torso.armour"]
    return hash(tuple(sorted((v, dist.probability(v)) for v, _ in dist.items())))


def main() -> None:
    scale = load_ruleset(TREE / "tests" / "rulesets" / "exact_scale.yaml")
    mech = load_ruleset(TREE / "rules" / "mech-d20" / "mech-d20.yaml")
    cases = [("mech volley", lambda: scale.run_odds("mech_volley").outcomes.probability(True)),
             ("LRM 10 hit_with", lambda: lrm10(mech, False)),
             ("LRM 10 hit_with, natural 20", lambda: lrm10(mech, True)),
             ("LRM 10 attack, Boar at Warthog", lambda: attack(mech))]
    if LIFT:
        lifted = load_ruleset(TREE / "rules" / "mech-d20" / "mech-d20.yaml")
        lifted.budgets["forks"] = 20_000_000   # limits.MAX_FORKS_CEILING
        cases.append(("the same, `forks` lifted", lambda: attack(lifted)))
    for name, case in cases:
        start = time.process_time()
        try:
            value = case()
        except RulecraftError as refused:
            value = f"refused: {str(refused).splitlines()[0]}"
        print(f"{TREE}: {name}: {time.process_time() - start:.2f} s CPU ({value})", flush=True)


if __name__ == "__main__":
    main()
