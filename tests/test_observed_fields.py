"""States merged on the unit fields read after them (run/observed.py): the last pass of
a loop ending its procedure keys the game only at what the caller's later statements
and the question (`--track`, `--given`) read.  The answers are those of the enumeration
keying the whole game, and of the rule worked out by hand."""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.lang.parse import parse_expression
from interpreter.run import call_memo, exact, observed

RULES = load_ruleset(Path(__file__).parent / "rulesets" / "observed_fields.yaml")


def as_dict(dist) -> dict:
    return {v: dist.probability(v) for v in dist.values()}


def odds_both_ways(monkeypatch, procedure, track):
    """(merged on what is read, keyed on the whole game) odds of one question."""
    merged = RULES.run_odds(procedure, {}, track=track)
    with monkeypatch.context() as m:
        m.setattr(exact, "_seen_after", lambda step, branches: None)
        whole = RULES.run_odds(procedure, {}, track=track)
    return merged, whole


@pytest.mark.parametrize("procedure, track", [
    ("volley", ["target.hits"]), ("volley", []), ("volley", ["target.log"]),
    ("volley", ["target.hits", "target.heat > 3"]), ("volley_then_heat", ["target.hits"]),
    ("volley_then_hits_by_call", []), ("volley_then_log_if_hit_hard", []),
    ("flinching_volley", ["target.hits"]), ("flinching_volley", ["target.log"]),
    ("flinching_volley", ["target.heat", "target.hits > 12"]), ("flinching_volley", ["target"]),
    ("flinching_volley_then_heat", ["target.hits"]),
])
def test_the_same_odds_as_keying_the_whole_game(monkeypatch, procedure, track):
    merged, whole = odds_both_ways(monkeypatch, procedure, track)
    assert as_dict(merged.outcomes) == as_dict(whole.outcomes)
    for text in track:
        assert as_dict(merged.tracked[text]) == as_dict(whole.tracked[text]), text


def test_the_same_odds_as_by_hand():
    """Hits are 2d6; heat 2d2 apart from them; the log's first entry is the first die."""
    hits: dict = {}
    first_when_hard: dict = {}
    for dice in product(range(1, 7), repeat=2):
        p = Fraction(1, 36)
        hits[sum(dice)] = hits.get(sum(dice), 0) + p
        key = dice[0] if sum(dice) > 8 else 0
        first_when_hard[key] = first_when_hard.get(key, 0) + p
    heat: dict = {}
    for dice in product(range(1, 3), repeat=2):
        heat[sum(dice)] = heat.get(sum(dice), 0) + Fraction(1, 4)
    odds = RULES.run_odds("volley_then_heat", {}, track=["target.hits"])
    assert as_dict(odds.outcomes) == heat
    assert as_dict(odds.tracked["target.hits"]) == hits
    assert as_dict(RULES.run_odds("volley_then_log_if_hit_hard", {}).outcomes) == first_when_hard


def test_what_the_last_pass_is_merged_on(monkeypatch):
    """From `volley_then_heat` the volley's last shot merges on the heat alone (the
    question reads nothing); a procedure called after the volley reads what no path
    says, so the whole game is kept."""
    seen = []
    original = exact._seen_after

    def recording(step, branches):
        found = original(step, branches)
        seen.append(found)
        return found
    monkeypatch.setattr(exact, "_seen_after", recording)
    RULES.run_odds("volley_then_heat", {})
    assert seen == [frozenset({("target", ("heat",))})]
    seen.clear()
    RULES.run_odds("volley_then_heat", {}, track=["target.log[2]"])
    assert seen == [frozenset({("target", ("heat",)), ("target", ("log",))})]
    seen.clear()
    RULES.run_odds("volley_then_hits_by_call", {})
    assert seen == [None]


@pytest.mark.parametrize("text, chains", [
    ("target.locations[at].armour + 1", {("target", ("locations",)), ("at", ())}),
    ('target.locations["arm"].armour', {("target", ("locations", "arm", "armour"))}),
    ("max(a.hp, 0) + count([x.hp for x in team])",
     {("a", ("hp",)), ("team", ()), ("max", None), ("count", None)}),
    ("target.log[1] + team[2].hp", {("target", ("log",)), ("team", ())}),   # a list's item
    ("units", {("units", ())}),            # (a name of the game: everything, when resolved)
    ("hurt(target)", None),                # a procedure (or an action, a table): unknown
])
def test_what_an_expression_reads(text, chains):
    found = observed.expression_reads([parse_expression(text)])
    assert found == (None if chains is None else frozenset(chains))


def test_remembered_ends_merged_without_making_their_games(monkeypatch):
    """The flinching volley's last shot: most remembered calls' ends (and the flinches
    they leave to the caller, answered the same way) are merged on the fields read
    after it without their games being made (call_memo.Unmade); only the states kept
    are made, and the odds are those of the enumeration that makes every game."""
    made, unmade = [], []
    original_made, original_init = call_memo.Unmade.made, call_memo.Unmade.__init__

    def init(self, base, changes):
        unmade.append(self)
        original_init(self, base, changes)

    def making(self):
        made.append(self)
        return original_made(self)
    monkeypatch.setattr(call_memo.Unmade, "__init__", init)
    monkeypatch.setattr(call_memo.Unmade, "made", making)
    merged, whole = odds_both_ways(monkeypatch, "flinching_volley_then_heat", ["target.hits"])
    assert as_dict(merged.outcomes) == as_dict(whole.outcomes)
    assert as_dict(merged.tracked["target.hits"]) == as_dict(whole.tracked["target.hits"])
    assert len(unmade) > 2 * len({id(u) for u in made}) > 0, (len(unmade), len(made))
