"""Space primitives: hex and tabletop distances, arcs, movement; used from rules."""
import math
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.game.api import load_ruleset
from interpreter.state.space import (Position, arc, base_arc, distance, distance_from_edge,
                                     edge_distance, facing_towards, move_towards,
                                     step_forward, turned)

HERE = Path(__file__).parent


@pytest.mark.parametrize("a,b,expected", [
    ((0, 0), (0, 0), 0), ((0, 0), (1, 0), 1), ((0, 0), (1, -1), 1), ((0, 0), (2, -1), 2),
    ((0, 0), (3, 3), 6), ((-2, 1), (2, -3), 4),
])
def test_hex_distance(a, b, expected):
    assert distance(Position(*a), Position(*b), "hex") == expected


@pytest.mark.parametrize("a,b,expected", [
    ((0, 0), (3, 4), 5), ((0, 0), (1, 1), Fraction(141, 100)), ((2, 2), (2, 2), 0),
])
def test_tabletop_distance_is_exact_to_a_hundredth(a, b, expected):
    assert distance(Position(*a), Position(*b), "tabletop") == expected


# a unit at the origin facing east (hex facing 1), and where the other unit stands
@pytest.mark.parametrize("other,expected", [
    ((3, 0), "front"), ((-3, 0), "rear"), ((0, 2), "side"), ((2, -2), "side"),
    ((0, -2), "side"), ((3, -1), "front"), ((-1, -1), "rear"),
])
def test_hex_arcs_relative_to_facing(other, expected):
    assert arc(Position(0, 0, 1), Position(*other), "hex") == expected


@pytest.mark.parametrize("facing,other,expected", [
    (0, (10, 0), "front"), (0, (10, 9), "front"), (0, (0, 10), "side"), (0, (-10, 1), "rear"),
    (180, (-10, 0), "front"), (90, (0, 10), "front"),
])
def test_tabletop_arcs(facing, other, expected):
    assert arc(Position(0, 0, facing), Position(*other), "tabletop") == expected


@pytest.mark.parametrize("model,start,target,amount,expected", [
    ("hex", (0, 0), (6, 0), 2, (2, 0)),
    ("hex", (0, 0), (2, 0), 5, (2, 0)),                 # never past the target
    ("tabletop", (0, 0), (6, 8), 5, (3, 4)),
    ("tabletop", (0, 0), (6, 8), 50, (6, 8)),
])
def test_move_towards(model, start, target, amount, expected):
    moved = move_towards(Position(*start), Position(*target), amount, model)
    assert (moved.x, moved.y) == expected


@pytest.mark.parametrize("facing,expected", [(0, (2, -2)), (1, (2, 0)), (4, (-2, 0))])
def test_hex_step_forward_follows_the_facing(facing, expected):
    moved = step_forward(Position(0, 0, facing), 2, "hex")
    assert (moved.x, moved.y) == expected


def test_turning_by_sixty_degrees_wraps():
    assert turned(Position(0, 0, 5), 1, "hex").facing == 0
    assert turned(Position(0, 0, 0), -1, "hex").facing == 5


def test_facing_towards_picks_the_nearest_hex_side():
    assert facing_towards(Position(0, 0, 0), Position(-4, 0), "hex").facing == 4


def test_a_game_on_hexes_moves_and_rams():
    rules = load_ruleset(HERE / "rulesets" / "hexes.yaml")
    result = rules.play(None, 1)
    texts = [e["text"] for e in result.events]
    assert "Crusher moves towards Grinder to (3, 0) facing 1" in texts
    assert any("rams the front" in t for t in texts)
    assert result.winner in ("red", "blue")


@pytest.mark.parametrize("rammer,expected", [("[3, 0, 4]", "front"), ("[-3, 0, 1]", "rear"),
                                              ("[0, 3, 0]", "side")])
def test_arcs_from_run_inputs_in_exact_mode(rammer, expected):
    rules = load_ruleset(HERE / "rulesets" / "hexes.yaml")
    inputs = {"target.position": "[0, 0, 1]", "rammer.position": rammer}
    assert rules.run_odds("ram_arc", inputs).outcomes.probability(expected) == 1


def test_terrain_of_a_hex_comes_from_the_scenario():
    import random
    from interpreter.game.play import build_world
    from interpreter.expr.sampled import Context
    from interpreter.state.actions import ACTIONS
    rules = load_ruleset(HERE / "rulesets" / "hexes.yaml")
    world = build_world(rules, rules.scenarios["default"], random.Random(1), False)
    crusher = world.unit("Crusher", None)
    ctx = Context(rules.globals, world.rng, None, world)
    assert ACTIONS["terrain_at"].dsl_call([crusher], {}, None, ctx) == "clear"
    ACTIONS["place"].dsl_call([crusher, [3, 0, 1]], {}, None, ctx)
    assert ACTIONS["terrain_at"].dsl_call([crusher], {}, None, ctx) == "forest"


# --------------------------------------------------- arcs of a rectangular base
#
# Drawn by hand: a base 4 long and 2 wide centred on the origin.  Its corner lines go
# from the centre through (±2, ±1): the front arc is |across| <= ahead / 2.  Facing 0°
# "ahead" is +x and the right-hand side is +y (y grows down, turns are clockwise).
BASE_ARCS = [
    # facing, other point, arc
    (0, (10, 0), "front"),
    (0, (10, 4.9), "front"),
    (0, (10, 5), "front"),        # on the corner line: front (or rear)
    (0, (10, 5.1), "right"),
    (0, (2, 1), "front"),         # the corner itself
    (0, (0, 3), "right"),
    (0, (0, -3), "left"),
    (0, (1, -3), "left"),         # ahead of the centre but through the long side
    (0, (-10, 0), "rear"),
    (0, (-10, -5), "rear"),       # on the rear corner line
    (0, (-10, -6), "left"),
    (0, (0, 0), "front"),
    (90, (0, 10), "front"),       # facing +y: its right is -x
    (90, (-10, 0), "right"),
    (90, (10, 0), "left"),
    (90, (0, -10), "rear"),
    (180, (-10, 0), "front"),
    (180, (0, -3), "right"),
    (270, (3, 0), "right"),
    (45, (10, 10), "front"),
    (45, (-10, 10), "right"),
    (45, (10, -10), "left"),
]


@pytest.mark.parametrize("facing, other, expected", BASE_ARCS)
def test_base_arcs_from_the_corner_lines(facing, other, expected):
    assert base_arc(Position(0, 0, facing), Position(*other), 4, 2) == expected


@pytest.mark.parametrize("length, width, other, expected", [
    (2, 2, (10, 9.99), "front"), (2, 2, (10, 10.01), "right"),   # a square base: 45° lines
    (6, 2, (3, 2), "right"),      # a long base has wide side arcs: |2| x 3 > 3 x 1
    (2, 6, (3, 2), "front"),      # a wide base has wide front and rear arcs
])
def test_base_arcs_depend_on_the_shape(length, width, other, expected):
    assert base_arc(Position(5, 5, 0), Position(5 + other[0], 5 + other[1]), length, width) == expected


@pytest.mark.parametrize("facing, other, expected", [
    (0, (10, 0), 8),                    # out through the front edge: 10 - 2
    (0, (0, 10), 9),                    # through the side edge: 10 - 1
    (0, (3, 4), Fraction(375, 100)),    # 5 along (0.6, 0.8): the side edge at 1 / 0.8
    (0, (1, 0), 0),                     # inside the base
    (90, (10, 0), 9),                   # facing +y: +x is through its left side
    (180, (-10, 0), 8),
])
def test_distance_from_the_edge_of_a_base(facing, other, expected):
    assert distance_from_edge(Position(0, 0, facing), Position(*other), 4, 2) == expected


def test_edge_distance_to_a_corner():
    assert edge_distance(Position(0, 0, 0), Position(4, 2), 4, 2) == pytest.approx(5 ** 0.5)


@pytest.mark.parametrize("length, width", [(0, 2), (4, -1), ("long", 2)])
def test_a_base_needs_a_size(length, width):
    from interpreter.errors import EvalError
    with pytest.raises(EvalError):
        base_arc(Position(0, 0, 0), Position(5, 0), length, width)


TABLE_RULES = """
ruleset: bases
title: Bases
space: tabletop
kinds:
  tank:
    stats: {length: 4, width: 2}
procedures:
  struck:
    params:
      shooter: {type: unit, kind: tank}
      target: {type: unit, kind: tank}
    steps:
      - return [base_arc(target, shooter, target.length, target.width), distance_from_edge(shooter, target, shooter.length, shooter.width)]
"""


@pytest.mark.parametrize("target, expected", [
    ("[0, 0, 0]", ["front", 8]), ("[0, 0, 180]", ["rear", 8]), ("[0, 0, 90]", ["left", 8]),
    ("[0, 0, 270]", ["right", 8]),
    # (10, -3) from the target: front (3 x 2 <= 10 x 1); the line of sqrt(109) = 10.44
    # leaves the shooter's front edge (2 ahead) at 2 x 10.44 / 10 = 2.09: 8.35 are left
    ("[0, 3, 0]", ["front", Fraction(835, 100)]),
])
def test_base_built_ins_from_run_inputs(tmp_path, target, expected):
    """The built-ins base_arc and distance_from_edge in a ruleset on a tabletop: a
    shooter at (10, 0) facing 180 (towards the origin)."""
    path = tmp_path / "bases.yaml"
    path.write_text(TABLE_RULES, encoding="utf-8")
    rules = load_ruleset(path)
    inputs = {"shooter.position": "[10, 0, 180]", "target.position": target}
    assert list(rules.run("struck", inputs, 1).result) == expected
    assert rules.run_odds("struck", inputs).outcomes.probability(tuple(expected)) == 1


def test_base_arcs_need_a_tabletop():
    import random
    from interpreter.game.play import build_world
    from interpreter.errors import EvalError
    from interpreter.expr.sampled import Context
    from interpreter.state.actions import ACTIONS
    rules = load_ruleset(HERE / "rulesets" / "hexes.yaml")
    world = build_world(rules, rules.scenarios["default"], random.Random(1), False)
    ctx = Context(rules.globals, world.rng, None, world)
    units = list(world.units.values())
    with pytest.raises(EvalError, match="tabletop"):
        ACTIONS["base_arc"].dsl_call([units[0], units[1], 4, 2], {}, None, ctx)


# the tabletop's distances and moves are computed on whole numbers (space._float_gap,
# space._moved_on_whole_numbers): hand-derived cases with fractional coordinates, and
# agreement with the plain Fraction arithmetic on any whole or fractional coordinates
@pytest.mark.parametrize("a,b,expected", [
    ((Fraction(1, 2), 0), (Fraction(7, 2), 4), 5),                     # 3-4-5 from a half
    ((Fraction(-3, 2), Fraction(1, 4)), (Fraction(3, 2), Fraction(17, 4)), 5),
    ((Fraction(1, 3), 0), (Fraction(4, 3), 1), Fraction(141, 100)),     # sqrt 2 to 1/100
    ((Fraction(1, 100), 0), (0, 0), Fraction(1, 100)),
])
def test_tabletop_distance_from_fractional_coordinates(a, b, expected):
    found = distance(Position(*a), Position(*b), "tabletop")
    assert found == expected and type(found) is type(expected)


@pytest.mark.parametrize("start,target,amount,away,expected", [
    ((0, 0), (3, 4), Fraction(5, 2), False, (Fraction(3, 2), 2)),    # half way
    ((0, 0), (3, 4), 10, False, (3, 4)),                             # never past it
    ((0, 0), (3, 4), 5, True, (-3, -4)),                             # away: as far again
    ((Fraction(1, 2), 0), (Fraction(7, 2), 4), 1, False, (Fraction(11, 10), Fraction(4, 5))),
])
def test_tabletop_move_towards_on_whole_numbers(start, target, amount, away, expected):
    moved = move_towards(Position(*start), Position(*target), amount, "tabletop", away)
    assert (moved.x, moved.y) == expected
    assert [type(v) for v in (moved.x, moved.y)] == [type(v) for v in expected]


def _to_hundredths(value: float):
    f = Fraction(round(value * 100), 100)
    return f.numerator if f.denominator == 1 else f


def _fraction_distance(a, b):
    """The tabletop distance as it was computed before, on Fractions."""
    return _to_hundredths(math.hypot(a.x - b.x, a.y - b.y))


def _fraction_move(a, b, amount, away):
    total = _fraction_distance(a, b)
    fraction = (min(Fraction(amount), Fraction(total)) / Fraction(total) if not away
                else -Fraction(amount) / Fraction(total))
    return (_to_hundredths(float(a.x + (b.x - a.x) * fraction)),
            _to_hundredths(float(a.y + (b.y - a.y) * fraction)))


_coordinate = st.one_of(st.integers(-5000, 5000),
                        st.fractions(min_value=-5000, max_value=5000, max_denominator=400))


@settings(max_examples=300, deadline=None)
@given(_coordinate, _coordinate, _coordinate, _coordinate,
       st.one_of(st.integers(0, 60), st.fractions(min_value=0, max_value=60, max_denominator=100)),
       st.booleans())
def test_tabletop_measures_agree_with_fraction_arithmetic(ax, ay, bx, by, amount, away):
    a, b = Position(ax, ay), Position(bx, by)
    found = distance(a, b, "tabletop")
    assert found == _fraction_distance(a, b) and type(found) is type(_fraction_distance(a, b))
    if found != 0:
        moved = move_towards(a, b, amount, "tabletop", away)
        assert (moved.x, moved.y) == _fraction_move(a, b, amount, away)


def test_an_abstract_distance_key_is_the_pair_of_ids_made_once_either_way_round():
    # state/world.pair_key: the same frozenset by value, kept and found by identity; a
    # world whose keys were made elsewhere (a plain frozenset, a pickled world) is read
    # by value, as before
    from interpreter.state.actions import _distance, _set_distance
    from interpreter.state.world import PAIR_KEYS, PAIR_KEYS_KEPT, Unit, World, pair_key
    key = pair_key("pk-a", "pk-b")
    assert key == frozenset(("pk-a", "pk-b"))
    assert pair_key("pk-b", "pk-a") is key and pair_key("pk-a", "pk-b") is key
    assert pair_key("pk-c", "pk-c") == frozenset(("pk-c",))
    world = World(None, None, record=False)
    a, b = Unit("pk-a", "A", None, "x", {}), Unit("pk-b", "B", None, "y", {})
    world.units = {"pk-a": a, "pk-b": b}
    world.default_distance = 40
    assert _distance(world, None, None, a, b) == 40
    world.distances[frozenset(("pk-b", "pk-a"))] = 7   # not the kept key object
    assert _distance(world, None, None, a, b) == _distance(world, None, None, b, a) == 7
    _set_distance(world, None, None, b, a, 5)
    assert world.distances == {key: 5} and _distance(world, None, None, a, b) == 5
    for i in range(PAIR_KEYS_KEPT + 10):   # the kept keys are bounded, both ways
        pair_key("pk-a", f"pk-many-{i}")
    assert len(PAIR_KEYS["pk-a"]) <= PAIR_KEYS_KEPT
    for i in range(PAIR_KEYS_KEPT + 10):
        pair_key(f"pk-many-{i}", "pk-a")
    assert len(PAIR_KEYS) <= PAIR_KEYS_KEPT
    assert pair_key("pk-a", "pk-b") == key and world.distances[pair_key("pk-a", "pk-b")] == 5


@pytest.mark.parametrize("value, expected", [
    (1.5, Fraction(3, 2)), (1.414, Fraction(141, 100)), (-0.25, Fraction(-1, 4)),
    (2.0, 2), (0.004, 0), (12.345, Fraction(1234, 100)),
])
def test_a_measure_is_the_same_exact_number_each_time_it_is_made(value, expected):
    """`_exact` keeps the Fractions it made by their hundredths: a second measure of
    the same length is the same number, in lowest terms, of the same type."""
    from interpreter.state.space import _exact
    for _ in range(2):
        found = _exact(value)
        assert found == expected and type(found) is type(expected)
        if type(found) is Fraction:
            assert (found.numerator, found.denominator) == (expected.numerator, expected.denominator)


@pytest.mark.parametrize("space_model, where_a, where_b, expected", [
    ("hex", Position(0, 0), Position(3, -1), 3),        # both placed: the hexes counted
    ("hex", Position(2, 2), Position(2, 2), 0),
    ("hex", Position(0, 0), None, 40),                  # one unplaced: the pair's distance
    ("tabletop", Position(0, 0), Position(3, 4), 5),
])
def test_the_distance_built_in_is_the_worlds_distance(space_model, where_a, where_b, expected):
    """`distance(a, b)` (state/actions._distance, which counts hexes itself) gives what
    `World.distance` gives, either way round."""
    from interpreter.state.actions import _distance
    from interpreter.state.world import Unit, World
    world = World(None, None, record=False)
    world.space, world.default_distance = space_model, 40
    a, b = Unit("dx-a", "A", None, "x", {}), Unit("dx-b", "B", None, "y", {})
    world.units = {"dx-a": a, "dx-b": b}
    world.positions = {uid: p for uid, p in (("dx-a", where_a), ("dx-b", where_b)) if p}
    assert _distance(world, None, None, a, b) == _distance(world, None, None, b, a) == \
        world.distance(a, b) == expected
