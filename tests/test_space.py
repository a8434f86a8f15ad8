"""Space primitives: hex and tabletop distances, arcs, movement; used from rules."""
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.state.space import (Position, arc, distance, facing_towards, move_towards,
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
