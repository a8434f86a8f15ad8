"""`rulecraft diff` shows the exact odds before and after of every changed formula: a
table cell written `=...`, a computed table's formula (at the inputs named with
`--with`), a kind's derived stat or `=...` state default (on a unit with its declared
defaults).  Odds by hand; the base is tests/rulesets/duel.yaml with two tables added by
an overlay, the house rule an overlay on that (so the two also stack)."""
from __future__ import annotations

from fractions import Fraction as F
from itertools import product
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.game.diff import diff_rulesets

DUEL = Path(__file__).resolve().parent / "rulesets" / "duel.yaml"

BASE = f"""ruleset: duel-tables
title: A duel with a blow table and a charge table
extends: {DUEL}
add:
  tables.blows: {{roll: d6, rows: {{"1-3": {{damage: "=d6"}}, "4-6": {{damage: "=2d6"}}}}}}
  tables.charge: {{computed: {{formula: (d6 + size) * speed, over: {{size: [1, 3], speed: [1, 3]}}}}}}
"""

HOUSE = """ruleset: duel-heavier
title: Heavier blows
extends: base.yaml
change:
  tables.blows.rows.4-6.damage: "=3d6"
  tables.charge.computed.formula: (d6 + size) * speed * 2
  kinds.fighter.derived.double: to_hit * 3
add:
  kinds.fighter.state.fury: "=to_hit + 1"
"""


def dice_sum(n: int) -> dict:
    """The distribution of n d6 by enumerating every face combination."""
    counts: dict = {}
    for faces in product(range(1, 7), repeat=n):
        counts[str(sum(faces))] = counts.get(str(sum(faces)), 0) + 1
    return {k: F(v, 6 ** n) for k, v in counts.items()}


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    folder = tmp_path_factory.mktemp("house")
    (folder / "base.yaml").write_text(BASE, encoding="utf-8")
    (folder / "house.yaml").write_text(HOUSE, encoding="utf-8")
    return load_ruleset(folder / "base.yaml"), load_ruleset(folder / "house.yaml")


def _formula(diff, path) -> tuple:
    (entry,) = [o for o in diff.odds if o.what == "formula" and o.name == path]
    return ({k: v for k, v, _, _ in entry.rows() if v}, {k: v for k, _, v, _ in entry.rows() if v},
            entry.error_before, entry.error_after)


# path, --with, the distribution before, after (None: the error given instead)
FORMULAS = [
    ("tables.blows.rows.4-6.damage", {}, dice_sum(2), dice_sum(3)),
    ("kinds.fighter.derived.double", {}, {"14": F(1)}, {"21": F(1)}),          # to_hit 7
    ("kinds.fighter.state.fury", {}, None, {"8": F(1)}),    # new: not in the base
    ("tables.charge.computed.formula", {"size": "2", "speed": "3"},
     {str((d + 2) * 3): F(1, 6) for d in range(1, 7)}, {str((d + 2) * 6): F(1, 6) for d in range(1, 7)}),
]


@pytest.mark.parametrize("path, inputs, before, after", FORMULAS, ids=[f[0] for f in FORMULAS])
def test_a_changed_formula_is_shown_as_its_distributions(pair, path, inputs, before, after):
    diff = diff_rulesets(*pair, inputs, skip={"attack"})
    got_before, got_after, error_before, error_after = _formula(diff, path)
    if before is None:
        assert error_before == "not in the base" and got_before == {}
    else:
        assert error_before is None and got_before == before
    assert error_after is None and got_after == after


def test_the_spot_checks_by_hand(pair):
    diff = diff_rulesets(*pair, skip={"attack"})
    before, after, _, _ = _formula(diff, "tables.blows.rows.4-6.damage")
    assert (before["2"], before["7"]) == (F(1, 36), F(1, 6))
    assert (after["3"], after["10"]) == (F(1, 216), F(27, 216))


def test_a_computed_formula_without_its_inputs_says_which_to_name(pair):
    diff = diff_rulesets(*pair, skip={"attack"})
    assert not [o for o in diff.odds if o.name == "tables.charge.computed.formula"]
    assert "formula tables.charge.computed.formula: depends on size, speed: name them with " \
           "--with size=... speed=..." in diff.not_computed
