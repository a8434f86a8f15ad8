"""A derived field is remembered by the values of the names it reads
(run/formulas.remembering): it must follow every change of what it depends on.  The
closures, which remember nothing, are the meaning: after each change the remembered
answer is the one they give."""
from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.run.formulas import closure_evaluator, derived_evaluator, remembering
from interpreter.state.world import Status, Unit

ROOT = Path(__file__).parent.parent
COMPILED = ROOT / "tests" / "rulesets" / "compiled.yaml"


def _scout(rules) -> Unit:
    kind = rules.kinds["scout"]
    fields = {**copy.deepcopy(kind.stats), **copy.deepcopy(kind.state), "destroyed": False}
    return Unit("s1", "Scout", kind, "blue", fields)


def _weakened(rules, unit):
    unit.statuses.append(Status("weakened", rules.statuses["weakened"], 1, 0))


class _Kit:
    """An equipment entry that is neither a record nor a plain value: its modifiers
    are asked for every time (a row does this)."""

    def __init__(self, modifiers):
        self.modifiers = modifiers

    def dsl_attr(self, name):
        if name != "modifiers":
            raise KeyError(name)
        return self.modifiers


def _set(name, value):
    return lambda rules, unit: unit.fields.__setitem__(name, value)


# each change made to the scout in turn, then every derived field compared
CHANGES = [
    ("as it starts", lambda rules, unit: None),
    ("a stat read by a formula changes", _set("bonus", 7)),
    ("the stat changes back", _set("bonus", 4)),
    ("a list is replaced by a longer one", _set("gear", ["rope", "torch", "map"])),
    ("a list is replaced by an equal one", _set("gear", ["rope", "torch", "map"])),
    ("a list is replaced by a shorter one", _set("gear", ["rope"])),
    ("a stat a status will modify", _set("armour", 5)),
    ("a status modifies a stat a formula reads", _weakened),
    ("the status is gone", lambda rules, unit: unit.statuses.clear()),
    ("a whole number where there was text", _set("gear", [1, 2])),
    ("true where there was 1", _set("bonus", True)),
    ("a whole number again", _set("bonus", 3)),
    # equipment: `Unit.dsl_attr` adds its modifiers to whole-number fields, so the fields
    # alone are the names only while the equipment adds nothing to what is read
    ("equipment that modifies nothing", _set("equipment", [{"item": "rope"}, "torch"])),
    ("equipment that raises a stat a formula reads",
     _set("equipment", [{"item": "belt", "modifiers": {"bonus": 2, "armour": 1}}])),
    ("equipment that lowers another stat", _set("equipment", [{"modifiers": {"armour": -1}}])),
    ("equipment whose modifiers cancel out",
     _set("equipment", [{"modifiers": {"bonus": 1}}, {"modifiers": {"bonus": -1}}])),
    ("equipment read through an entry's own names",
     _set("equipment", [_Kit({"bonus": 5})])),
    ("no equipment", lambda rules, unit: unit.fields.pop("equipment")),
]


def test_a_remembered_derived_field_follows_every_change_of_what_it_reads():
    rules = load_ruleset(COMPILED)
    unit, kind = _scout(rules), rules.kinds["scout"]
    remembered = {name: derived_evaluator(kind, name) for name in kind.derived}
    for what, change in CHANGES:
        change(rules, unit)
        for name in kind.derived:
            try:
                meaning = ("value", closure_evaluator(kind, name)(unit))
            except Exception as e:   # (a failing formula fails both ways, never kept)
                meaning = ("error", type(e).__name__)
            for _ in range(2):   # worked out, then answered from the memo
                try:
                    ours = ("value", remembered[name](unit))
                except Exception as e:
                    ours = ("error", type(e).__name__)
                assert ours == meaning, (what, name)


@pytest.mark.parametrize("kind, formula, kept", [
    ("scout", "[g for g in gear if bonus > 1]", True),     # the unit's names, a list walked
    ("scout", "sum([armour for g in gear]) + reach", True),  # ... another derived field
    ("scout", '[x for x in gear_list["pack"].items]', True),  # ... a fixed table
    ("scout", "bonus + count(gear)", False),               # no list walked: not worth a key
    ("scout", "[g for g in gear if d6 > 3]", False),       # dice
    ("scout", "[spend_once(g) for g in gear]", False),     # a procedure
    ("fighter", "[g for g in gear if bonus > 0]", False),  # a global a table cell binds
])
def test_a_derived_field_is_remembered_only_when_it_reads_nothing_else(kind, formula, kept):
    rules = load_ruleset(COMPILED)
    kind = rules.kinds[kind]
    from interpreter.lang.parse import parse_expression
    kind.derived["probe"] = parse_expression(formula)

    def evaluate(unit):
        return None
    try:
        assert (remembering(kind, "probe", evaluate) is not evaluate) is kept
    finally:
        del kind.derived["probe"]


def test_a_remembered_answer_spends_the_steps_working_it_out_spent():
    """The step budget runs out where it would without the memo: an answer kept spends
    again what the comprehension spent, and with fewer steps left the formula is worked
    out as usual, which stops with the budget's own error."""
    from interpreter.expr import budget
    from interpreter.errors import LimitError
    rules = load_ruleset(COMPILED)
    unit, kind = _scout(rules), rules.kinds["scout"]
    halves = derived_evaluator(kind, "halves")   # a comprehension over the two gear items
    before = budget.begin(100)
    try:
        spent = []
        for _ in range(3):   # worked out, then twice from the memo
            left = budget.WORK[0]
            assert halves(unit) == ["rope/2", "torch/2"]
            spent.append(left - budget.WORK[0])
        assert spent[0] > 0 and spent == [spent[0]] * 3
        budget.WORK[0] = spent[0] - 1
        with pytest.raises(LimitError):
            halves(unit)
    finally:
        budget.end(before)


@pytest.mark.parametrize("equipment", [
    [],
    ["rope", 3, None, True],
    [{"item": "rope"}],
    [{"modifiers": {"bonus": 2}}, {"modifiers": {"bonus": 3, "armour": -1}}],
    [{"modifiers": {"bonus": 1}}, {"modifiers": {"bonus": -1}}],        # a bonus of 0
    [{"modifiers": {"bonus": "2", "armour": 1.5, "reach": True}}],      # not whole numbers
    [{"modifiers": ["bonus"]}],                                         # not a record
    [_Kit({"bonus": 4})],                                               # asked each time
    ({"modifiers": {"bonus": 2}},),                                     # not a list
])
def test_equipment_bonuses_are_the_bonus_of_every_stat(equipment):
    """`equipment_bonuses` (kept by the list's identity) gives, for every stat, what
    `equipment_bonus` works out, or None when an entry must be asked each time."""
    from interpreter.state.world import equipment_bonus, equipment_bonuses
    for _ in range(2):   # worked out, then kept
        bonuses = equipment_bonuses(equipment)
        if bonuses is None:
            assert any(type(e) is _Kit for e in equipment) or type(equipment) is not list
            continue
        for stat in ("bonus", "armour", "reach", "gear"):
            assert bonuses.get(stat, 0) == equipment_bonus(equipment, stat), stat
