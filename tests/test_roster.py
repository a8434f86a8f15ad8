"""Who is on which side, kept as an index (state/roster.py), and the victory
checks remembered by it (game/victory.py): both must follow every change of side and
every unit destroyed, whoever made it."""
from pathlib import Path
import random
from types import SimpleNamespace

from interpreter.game.api import load_ruleset
from interpreter.game.compiled import compiled_conditions
from interpreter.game.victory import memo_for, reads_roster_only
from interpreter.lang.parse import parse_expression
from interpreter.state.roster import living, living_enemies

HERE = Path(__file__).parent
ROOT = HERE.parent
CAPTURE = load_ruleset(HERE / "rulesets" / "capture.yaml")
TANKS = load_ruleset(ROOT / "rules" / "tanks" / "tanks.yaml")


def test_a_bulk_run_putting_a_captured_unit_back_is_seen_by_the_roster():
    # each run captures the target, and the next run's reset puts it back on its side
    # (run/codegen.repeated_run sets `side` directly): a roster kept from the run
    # before would find no enemy and three units on the attacker's side
    run = CAPTURE.sampler("taken")
    rng = random.Random(3)
    assert [list(run(rng)) for _ in range(4)] == [[True, 0, 2]] * 4


def test_enemies_and_count_alive_follow_a_destroyed_field_and_a_capture():
    result = CAPTURE.play("two", 4, record=False)
    world = result.world
    red, blue = world.sides["red"], world.sides["blue"]
    standing = {n: [u.name for u in living(world, n)] for n in world.sides}
    assert sorted(standing["red"] + standing["blue"]) == sorted(
        u.name for u in world.units.values() if not u.fields.get("destroyed", False))
    boarder = next(u for u in world.units.values() if u.name == "Boarder")
    boarder.fields["destroyed"] = True       # a write no roster hears of
    assert boarder not in living(world, boarder.side)
    assert boarder not in living_enemies(world, "blue")
    gunner = next(u for u in world.units.values() if u.name == "Gunner")
    gunner.fields["destroyed"] = False
    gunner.side = "red" if gunner.side == "blue" else "blue"
    assert gunner in living(world, gunner.side) and gunner not in living_enemies(world, gunner.side)
    assert (red.dsl_attr("units"), blue.dsl_attr("enemies")) == \
        (living(world, "red"), living_enemies(world, "blue"))
    copy = world.copy()
    assert [u.name for u in living(copy, "red")] == [u.name for u in living(world, "red")]
    assert all(u in copy.units.values() for u in living_enemies(copy, "red"))


def condition(text: str, ruleset) -> bool:
    return reads_roster_only(parse_expression(text), ruleset.globals, set())


def test_only_conditions_reading_the_roster_alone_are_remembered():
    tanks = TANKS
    assert memo_for(tanks, compiled_conditions(tanks)) is not None
    # a check is remembered only if every condition and winner reads the roster alone
    # (Jugger's goals: `side.score >= goals_to_win`)
    def check(*whens):
        ruleset = SimpleNamespace(globals=tanks.globals)
        conditions = [(SimpleNamespace(when=parse_expression(w), winner=None), None, None, ())
                      for w in whens]
        return memo_for(ruleset, conditions)
    assert check("count_alive(side) == 0", "count(enemies(side)) == 0") is not None
    assert check("count_alive(side) == 0", "side.score >= 3") is None
    assert condition('side.name == "a" and count_alive(side) == 0 or turn > 3', tanks)
    for text in ("side.score > 2", "count([u for u in side.units if u.hits > 0]) > 0",
                 "count_alive(side) > d6", "terrain_speed(3) > 0", "side.units == []"):
        assert not condition(text, tanks), text


def test_a_condition_reading_the_turn_is_remembered_with_it():
    tanks = TANKS
    memo = memo_for(tanks, compiled_conditions(tanks))
    assert not memo.reads_turn
    world = tanks.play(None, 1, record=False).world
    key = memo.key(world)
    world.turn += 1
    assert memo.key(world) == key
    memo.reads_turn = True
    assert memo.key(world) != key


def test_the_victory_key_follows_who_stands_and_who_is_on_which_side():
    memo = memo_for(TANKS, compiled_conditions(TANKS))
    world = TANKS.play(None, 1, record=False).world
    copy = world.copy()
    key = memo.key(world)
    assert memo.key(copy) == key   # the same roster in another world: the same key
    unit = next(iter(world.units.values()))
    unit.fields["destroyed"] = not unit.fields["destroyed"]   # a write no roster hears of
    assert memo.key(world) != key
    unit.fields["destroyed"] = not unit.fields["destroyed"]
    assert memo.key(world) == key
    other = next(s for s in world.sides if s != unit.side)
    unit.side = other
    assert memo.key(world) != key
    copy.units[unit.uid].fields.pop("destroyed")   # a unit made without the field stands
    destroyed = memo.key(copy)[3]
    assert destroyed[0] is False and destroyed[1:] == key[3][1:]
