"""The house rules shipped in rules/house/, and what `rulecraft diff` reports for each:
the changes item by item and the exact odds before and after, derived by hand from the
rulebook text and the house rule's ruling.  Also the diff's formats and
`simulate --compare` (paired seeds).
"""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest

from interpreter.game.api import check_ruleset, load_ruleset
from interpreter.game.compare import compare, paired_interval
from interpreter.game.diff import diff_rulesets, document_changes
from interpreter.game.simulate import simulate
from interpreter.model.build import bundled
from interpreter.render.diff import RENDERERS

ROOT = Path(__file__).resolve().parent.parent
HOUSE = ROOT / "rules" / "house"
TESTS_HOUSE = ROOT / "tests" / "rulesets" / "house"

SHIPPED = [("tanks", "veteran-crews"), ("legowars", "lance-formula"),
           ("jungle-warfare", "jungle-gap-straight"), ("jugger", "rear-ram-full"),
           ("mech-d20", "double-heat-sinks")]


def rulecraft(*args):
    return subprocess.run([sys.executable, "-m", "interpreter.cli.main", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def rules():
    return {name: load_ruleset(name) for pair in SHIPPED for name in pair}


@pytest.mark.parametrize("base, house", SHIPPED)
def test_a_shipped_house_rule_validates_and_names_its_base(rules, base, house):
    assert not [f for f in check_ruleset(HOUSE / f"{house}.yaml") if f.severity == "error"]
    assert rules[house].chain == [base, house]
    ruling = rules[house].rulings[-1]
    assert ruling["id"].startswith("house-") and ruling["text"] and ruling["ruling"] and ruling["why"]


def test_list_shows_the_house_rules_with_their_base():
    listed = {row["id"]: row for row in json.loads(rulecraft("list", "--json").stdout)}
    for base, house in SHIPPED:
        assert listed[house]["base"] == base and "error" not in listed[house]
        assert listed[base]["base"] is None
    assert {e["id"]: e.get("base") for e in bundled()}["veteran-crews"] == "tanks"


def _odds(diff, name, inputs=None):
    (entry,) = [o for o in diff.odds if o.name == name and o.inputs == (inputs or {})]
    return {label: (before, after, pp) for label, before, after, pp in entry.rows()}


def test_veteran_crews_reroll_ones_to_hit(rules):
    diff = diff_rulesets(rules["tanks"], rules["veteran-crews"])
    assert [(c.op, c.path) for c in diff.changes] == [
        ("added", "rulings.house-veteran-crews"), ("added", "procedures.shoot.steps.5")]
    shoot = _odds(diff, "shoot")
    # the default shooter, BS 3, needs 4+: hit 1/2; with a 1 rerolled 1/2 + 1/6 * 1/2 = 7/12.
    # Every damage result (hit, then strength 6 + D6 + 1 against front armour) grows by 7/6.
    assert shoot["miss"] == (F(1, 2), F(5, 12), pytest.approx(-8.333333))
    assert shoot["no effect"][:2] == (F(1, 3), F(1, 3) * F(7, 6))
    assert shoot["vehicle destroyed"][:2] == (F(1, 36), F(7, 216))
    assert sum(after for _, after, _ in shoot.values()) == 1


@pytest.mark.parametrize("bs, hit_before, hit_after", [
    (1, F(1, 6), F(1, 6) + F(1, 6) * F(1, 6)),     # needs 6
    (3, F(1, 2), F(1, 2) + F(1, 6) * F(1, 2)),     # needs 4+
    (5, F(5, 6), F(5, 6) + F(1, 6) * F(5, 6)),     # needs 2+: a 1 is the only miss
])
def test_veteran_crews_odds_for_an_input_named_with_with(rules, bs, hit_before, hit_after):
    diff = diff_rulesets(rules["tanks"], rules["veteran-crews"], {"shooter.bs": str(bs)})
    shoot = _odds(diff, "shoot", {"shooter.bs": str(bs)})
    assert shoot["miss"][:2] == (1 - hit_before, 1 - hit_after)


@pytest.mark.parametrize("bs, hit_before, hit_after", [
    (3, F(1, 2), F(7, 12)),       # the default shooter: BS 3 needs 4+
    (4, F(2, 3), F(2, 3) + F(1, 6) * F(2, 3)),   # needs 3+
    (5, F(5, 6), F(35, 36)),
])
def test_veteran_crews_chance_a_shot_destroys_the_target(rules, bs, hit_before, hit_after):
    # a hit destroys on 1/9: strength 6 + D6 + 1 (below half range) against the default
    # front armour, then the damage table's destroying rows
    diff = diff_rulesets(rules["tanks"], rules["veteran-crews"], {"shooter.bs": str(bs)},
                         track=["target.destroyed"])
    (entry,) = [o for o in diff.odds if o.tracked == "target.destroyed"
                and o.inputs == {"shooter.bs": str(bs)}]
    assert entry.before["True"] == hit_before / 9 and entry.after["True"] == hit_after / 9


def test_the_lance_on_foot_priced_by_the_formula(rules):
    diff = diff_rulesets(rules["legowars"], rules["lance-formula"],
                         {"gear": '["Lance (on foot)", "Shield"]'})
    paths = {(c.op, c.path): c for c in diff.changes}
    change = paths[("changed", "tables.melee_weapons.rows.Lance (on foot).points")]
    assert (change.before, change.after) == (25, 5)
    assert ("added", "tables.price_list.rows.Lance (on foot)") in paths
    assert ("changed", "kinds.figure.derived.gear") in paths
    entry = [o for o in diff.odds if o.name == "figure_cost"][0]
    # the base sells no foot lance; the house: man 10 + lance 5 + shield 5 = 20
    assert "no row 'Lance (on foot)'" in entry.error_before
    assert entry.after == {"20": F(1)}


@pytest.mark.parametrize("mounted, points_before, points_after", [
    (False, 10 + 25, 10 + 5),          # a foot soldier with a lance
    (True, 10 + 25 + 25 + 5, 10 + 25 + 25 + 5),   # the mounted lance keeps 25 (+ horse, saddle)
])
def test_a_figure_with_a_lance_is_priced_by_how_he_uses_it(rules, mounted, points_before, points_after):
    from interpreter.game.runs import make_unit
    for name, expected in (("legowars", points_before), ("lance-formula", points_after)):
        unit = make_unit(rules[name], "figure", "Lancer", "red",
                         {"weapon": "Lance", "mounted": mounted})
        assert unit.dsl_attr("points") == expected


def test_the_jungle_layout_gap_read_as_straight_track(rules):
    explore_and_table = {"explore"}
    skip = set(rules["jungle-gap-straight"].procedures) - explore_and_table
    diff = diff_rulesets(rules["jungle-warfare"], rules["jungle-gap-straight"], skip=skip)
    assert {(c.op, c.path) for c in diff.changes} >= {
        ("removed", "tables.layout.unhandled"), ("added", "tables.layout.rows.16-18")}
    layout = _odds(diff, "layout")
    # rerolled: 17 faces count, straight 5/17, the others 2/17; read as straight: /20
    assert layout["1-5 (straight)"][:2] == (F(5, 17), F(5, 20))
    assert layout["16-18 (straight)"] == (F(0), F(3, 20), 15.0)
    assert layout["19-20 (clearing)"][:2] == (F(2, 17), F(2, 20))
    explore = _odds(diff, "explore")
    assert explore["straight"][:2] == (F(5, 17), F(8, 20))
    assert explore["tee"][:2] == (F(2, 17), F(1, 10))


def test_the_diff_of_a_ruleset_with_itself_is_empty(rules):
    diff = diff_rulesets(rules["tanks"], rules["tanks"])
    assert diff.changes == [] and diff.odds == []


@pytest.mark.parametrize("base, house, changes", [
    ({"a": 1}, {"a": 2}, [("changed", "a")]),
    ({"rulings": [{"id": "x", "ruling": "1"}]}, {"rulings": []}, [("removed", "rulings.x")]),
    ({"procedures": {"p": {"steps": ["let a = d6", "return a"]}}},
     {"procedures": {"p": {"steps": ["let a = d6", "a += 1", "return a"]}}},
     [("added", "procedures.p.steps.2")]),
    ({"procedures": {"p": {"steps": ["let a = d6", "return a"]}}},
     {"procedures": {"p": {"steps": ["let a = d8", "return a"]}}},
     [("changed", "procedures.p.steps.a")]),
    ({"turn": {"phases": [{"name": "move", "each": "unit"}]}},
     {"turn": {"phases": [{"name": "move", "each": "side"}]}},
     [("changed", "turn.phases.move.each")]),
    ({"tables": {"t": {"rows": {"1": 2}}}}, {"tables": {"t": {"rows": {"1": 2, "2": 3}}}},
     [("added", "tables.t.rows.2")]),
])
def test_document_changes_are_named_by_id_path(base, house, changes):
    assert [(c.op, c.path) for c in document_changes(base, house)] == changes


def test_diff_formats(rules, tmp_path):
    diff = diff_rulesets(rules["tanks"], rules["veteran-crews"])
    text = RENDERERS["text"](diff)
    assert "tanks -> tanks + veteran-crews" in text
    assert "add    procedures.shoot.steps.5: {if: to_hit_roll == 1, then: [let to_hit_roll = d6]}" in text
    assert "miss" in text and "5/12" in text and "-8.33 pp" in text
    md = RENDERERS["md"](diff)
    assert "| miss | 1/2 | 50.00% | 5/12 | 41.67% | -8.33 pp |" in md
    data = json.loads(RENDERERS["json"](diff))
    assert data["house"] == "tanks + veteran-crews"
    miss = [o for o in data["odds"][0]["outcomes"] if o["value"] == "miss"][0]
    assert miss == {"value": "miss", "before": "1/2", "after": "5/12", "before_percent": 50.0,
                    "after_percent": 41.666667, "change_pp": -8.333333}
    page = RENDERERS["html"](diff)
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 1
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")


def test_diff_command_line(tmp_path):
    out = rulecraft("diff", "tanks", "veteran-crews", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["base"] == "tanks"
    page = tmp_path / "diff.html"
    assert rulecraft("diff", "tanks", "veteran-crews", "--format", "html", "--output", str(page)).returncode == 0
    assert "<svg" in page.read_text(encoding="utf-8")
    bad = rulecraft("diff", "tanks", "no-such-house")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_compare_plays_game_i_with_the_same_seed_on_both_sides():
    duel = load_ruleset(ROOT / "tests" / "rulesets" / "duel.yaml")
    veteran = load_ruleset(TESTS_HOUSE / "duel_veteran.yaml")
    result = compare(duel, veteran, None, 60, seed=7)
    # each side's summary is exactly the one `simulate` gives with the same seed
    assert result.before.as_json() == simulate(duel, None, 60, seed=7).as_json()
    assert result.after.as_json() == simulate(veteran, None, 60, seed=7).as_json()
    data = result.as_json()
    assert data["base"] == "duel" and data["house"] == "duel + duel-veteran"
    for side, diff in data["difference"]["win_rate"].items():
        before = data["before"]["results"].get(side, {"rate": 0})["rate"]
        after = data["after"]["results"].get(side, {"rate": 0})["rate"]
        assert diff["mean"] == pytest.approx(after - before)
        assert diff["ci95"][0] <= diff["mean"] <= diff["ci95"][1]


def test_compare_of_a_ruleset_with_itself_differs_by_exactly_nothing():
    duel = load_ruleset(ROOT / "tests" / "rulesets" / "duel.yaml")
    data = compare(duel, duel, None, 30, seed=3).as_json()
    assert data["difference"]["same_winner"] == 30
    assert all(d == {"mean": 0.0, "ci95": [0.0, 0.0]} for d in data["difference"]["win_rate"].values())
    assert data["difference"]["turns"] == {"mean": 0.0, "ci95": [0.0, 0.0]}


@pytest.mark.parametrize("diffs, mean, half", [
    ([1.0, -1.0, 1.0, -1.0], 0.0, 1.96 * (4 / 3) ** 0.5 / 2),   # sd = sqrt(4/3), n = 4
    ([0.0, 0.0, 1.0, 1.0], 0.5, 1.96 * (1 / 3) ** 0.5 / 2),
])
def test_the_paired_interval_by_hand(diffs, mean, half):
    result = paired_interval(diffs)
    assert result["mean"] == pytest.approx(mean)
    assert result["ci95"] == pytest.approx([mean - half, mean + half])


def test_simulate_compare_command_line():
    out = rulecraft("simulate", str(ROOT / "tests" / "rulesets" / "duel.yaml"), "--compare",
                    str(TESTS_HOUSE / "duel_veteran.yaml"), "--runs", "20", "--seed", "1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) >= {"before", "after", "difference", "base", "house"}
    assert data["before"]["runs"] == data["after"]["runs"] == 20
    text = rulecraft("simulate", str(ROOT / "tests" / "rulesets" / "duel.yaml"), "--compare",
                     str(TESTS_HOUSE / "duel_veteran.yaml"), "--runs", "20", "--seed", "1").stdout
    assert "duel vs duel + duel-veteran" in text and "paired 95% interval" in text


PLAIN = str(TESTS_HOUSE / "duel_veteran_plain.yaml")
CHAIN3 = ["duel", "duel-veteran", "duel-veteran-plain"]


@pytest.mark.parametrize("args, chain", [
    (["run", PLAIN, "attack", "--seed", "1", "--json"], CHAIN3),
    (["run", PLAIN, "attack", "--odds", "--json"], CHAIN3),
    (["play", PLAIN, "--seed", "1", "--json"], CHAIN3),
    (["simulate", PLAIN, "--runs", "3", "--seed", "1", "--json"], CHAIN3),
    (["run", str(ROOT / "tests" / "rulesets" / "duel.yaml"), "attack", "--seed", "1", "--json"], ["duel"]),
    (["play", str(ROOT / "tests" / "rulesets" / "duel.yaml"), "--seed", "1", "--json"], ["duel"]),
])
def test_json_output_names_the_chain_of_rulesets(capsys, args, chain):
    from interpreter.cli.main import main
    assert main(args) == 0
    last = json.loads(capsys.readouterr().out.splitlines()[-1])    # play: the result line
    assert last["chain"] == chain and last["ruleset"] == " + ".join(chain)


@pytest.mark.parametrize("workers, start", [(2, "fork"), (3, "fork"), (2, "spawn")])
def test_compare_gives_the_same_result_on_any_number_of_workers(monkeypatch, workers, start):
    import threading
    duel = load_ruleset(ROOT / "tests" / "rulesets" / "duel.yaml")
    veteran = load_ruleset(TESTS_HOUSE / "duel_veteran_plain.yaml")
    one = json.dumps(compare(duel, veteran, None, 40, seed=5, track=["turn"]).as_json())
    if start == "spawn":   # a running thread (a progress bar) rules forking out
        monkeypatch.setattr(threading, "active_count", lambda: 2)
    many = json.dumps(compare(duel, veteran, None, 40, seed=5, track=["turn"], workers=workers).as_json())
    assert many == one                     # byte for byte
    assert json.loads(one)["house"] == "duel + duel-veteran + duel-veteran-plain"


def test_simulate_compare_with_workers_on_the_command_line():
    args = ["simulate", str(ROOT / "tests" / "rulesets" / "duel.yaml"), "--compare",
            str(TESTS_HOUSE / "duel_veteran.yaml"), "--runs", "30", "--seed", "2", "--json"]
    outputs = {k: rulecraft(*args, "--workers", str(k)) for k in (1, 2)}
    assert all(out.returncode == 0 for out in outputs.values()), outputs[2].stderr
    assert outputs[1].stdout == outputs[2].stdout
