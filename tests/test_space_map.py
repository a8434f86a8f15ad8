"""A hex map that blocks (tests/rulesets/map.yaml): occupancy, terrain with properties,
movement points per hex and per turn, paths, goals entered from one side, objects that
are not units, deflection."""
from fractions import Fraction
from pathlib import Path

import pytest

import random

from interpreter.errors import RulecraftError
from interpreter.expr.sampled import Context
from interpreter.game.play import build_world
from interpreter.state.builtins import ACTIONS
from interpreter.expr.values import json_value
from interpreter.game.api import load_ruleset

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(HERE / "rulesets" / "map.yaml")


@pytest.mark.parametrize("procedure,inputs,expected", [
    ("into_a_wall", {}, [1, "wall", 20]),          # a wall stops the mover and has hits
    # ahead into rough (2 points), ahead (1), turn right (1): the 4th order is not paid
    ("movement_points", {}, [2, 4, "out of movement points", 2]),
    ("goal_from", {}, ["goal", "done"]),             # across its open west side
    ("goal_from", {"from_east": "true"}, ["clear", "blocked"]),   # not from the east
    ("path_to_wall", {}, [[1, "clear"], [2, "wall"]]),             # the path ends at the wall
    ("deflected", {}, [5, 0]),                        # facing 1, 120° left, then 60° right
    # 90° right of east is due south, half way between two sides: 4 hexes along the edge
    ("ninety_right", {}, [Fraction(5, 2), -2, 4]),
])
def test_the_map_blocks_and_reports(rules, procedure, inputs, expected):
    assert json_value(rules.run(procedure, inputs, 1).result) == json_value(expected)
    assert [json_value(v) for v, _ in rules.run_odds(procedure, inputs).outcomes.items()] == \
        [json_value(expected)]


def test_a_ram_stops_in_front_of_its_target_and_hits_it_by_the_hexes_moved(rules):
    dist = rules.run_odds("ram", {}).outcomes
    # two hexes moved, then (d6 + sc 2) x 2 off the target's 10 hits
    expected = {(2, "blocked", 10 - (face + 2) * 2): Fraction(1, 6) for face in range(1, 7)}
    assert {tuple(v): Fraction(w, dist.total) for v, w in dist.items()} == expected


def test_a_stone_wall_keeps_its_own_hits_and_falls_when_they_are_gone(rules):
    # 2D10 hits against (1D6 + 2) x 2 damage: it falls with P(2D10 <= d) for d = 6 ... 16,
    # (15 + 28 + 45 + 64 + 79 + 90) / 600
    dist = rules.run_odds("stone_wall", {}).outcomes
    assert Fraction(dict(dist.items())["clear"], dist.total) == Fraction(321, 600)


def test_rolled_movement_points_buy_hexes_and_turns(rules):
    # orders: ahead, ahead, turn, ahead, ahead; 1D6 points buy 1, 2, 2, 3, 4, 4 hexes
    dist = rules.run_odds("rolled_movement", {}).outcomes
    got = {v: Fraction(w, dist.total) for v, w in dist.items()}
    assert got == {1: Fraction(1, 6), 2: Fraction(2, 6), 3: Fraction(1, 6), 4: Fraction(2, 6)}


def test_an_angle_off_the_30_degree_grid_is_an_error_not_a_rounding(rules):
    with pytest.raises(RulecraftError, match="45° is not a multiple of 30°"):
        rules.run("off_the_grid", {}, 1)


def test_the_bounce_table_sends_the_ball_six_ways(rules):
    # from (0, 0) rolling east into a wall, then 2 hexes: 1 back (west), 2 / 3 90° right /
    # left (along the edge between two hex sides), 4 / 5 120° right / left, 6 caught
    dist = rules.run_odds("bounced", {}).outcomes
    assert {tuple(v): Fraction(w, dist.total) for v, w in dist.items()} == {
        (-2, 0): Fraction(1, 6), (-1, 2): Fraction(1, 6), (1, -2): Fraction(1, 6),
        (-2, 2): Fraction(1, 6), (0, -2): Fraction(1, 6), (0, 0): Fraction(1, 6)}


def _world(path):
    rules = load_ruleset(path)
    world = build_world(rules, rules.scenarios["default"], random.Random(1), False)
    return world, Context(rules.globals, world.rng, None, world)


@pytest.mark.parametrize("ruleset,ends_on,hit", [
    ("hexes.yaml", (7, 0), None),           # no per_hex: Crusher passes through Grinder's hex
    ("map.yaml", (5, 0), "Grinder"),        # per_hex 1: it stops in front of it
])
def test_occupancy_is_what_the_space_declares(ruleset, ends_on, hit):
    world, ctx = _world(HERE / "rulesets" / ruleset)
    crusher, grinder = world.unit("Crusher", None), world.unit("Grinder", None)
    ACTIONS["place"].dsl_call([crusher, [0, 0, 1]], {}, None, ctx)
    ACTIONS["place"].dsl_call([grinder, [6, 0, 4]], {}, None, ctx)
    ACTIONS["step_forward"].dsl_call([crusher, 7], {}, None, ctx)
    pos = world.positions[crusher.uid]
    assert (pos.x, pos.y) == ends_on
    got = ACTIONS["last_move"].dsl_call([crusher], {}, None, ctx)["hit"]
    assert (got.name if got is not None else None) == hit


# the mover starts on (0, 2) facing east; in its way stands the other at (1, 2), or
# nothing (the map's wall is at (3, 2))
@pytest.mark.parametrize("mover,in_the_way,ends_on,hit", [
    ("Ball", "Grinder", (0, 2), "Grinder"),    # the ball rolls into a jug: stopped by it
    ("Grinder", "Ball", (0, 2), "Ball"),       # a jug runs into the ball: stopped by it
    ("Ball", None, (2, 2), "wall"),            # and both by terrain that blocks
])
def test_objects_take_up_a_hex_like_units(mover, in_the_way, ends_on, hit):
    world, ctx = _world(HERE / "rulesets" / "map.yaml")
    place = ACTIONS["place"]
    for name in ("Ball", "Grinder"):
        where = [0, 2, 1] if name == mover else [1, 2, 1] if name == in_the_way else [-5, 5, 1]
        place.dsl_call([world.unit(name, None), where], {}, None, ctx)
    moving = world.unit(mover, None)
    ACTIONS["step_forward"].dsl_call([moving, 4], {}, None, ctx)
    assert (world.positions[moving.uid].x, world.positions[moving.uid].y) == ends_on
    got = ACTIONS["last_move"].dsl_call([moving], {}, None, ctx)["hit"]
    assert (got["name"] if isinstance(got, dict) else got.name) == hit


@pytest.fixture(scope="module")
def game(rules):
    """Seed 1: the ball bounces off the wall back into the goal; Crusher rams Grinder."""
    return rules.play(None, 1)


def texts(game):
    return [e["text"] for e in game.events]


@pytest.mark.parametrize("line", [
    "Ball moves ahead to (2, 2) facing 1, stopped by wall",         # off the wall ...
    "b = row '1' of 'bounce'  (d6 [1]; bounce[1])",             # ... by the bounce table:
    "Ball is deflected 180° left: facing 4",                       # back the way it came
    "goal!",                                                       # into the goal, from the east
    "Crusher moves towards Grinder to (4, 0) facing 1, stopped by Grinder",
    "Crusher rams Grinder for 8",
])
def test_a_juggerball_game_bounces_scores_and_rams(game, line):
    assert line in texts(game)


def test_objects_are_no_side_and_no_unit(game):
    assert game.winner == "west" and game.scores["west"] == 1
    assert "Ball" in game.world.objects and "Ball" not in game.world.units


# the examples of docs/rule-format.md for the map, stacking statuses, use counts,
# reactions and simultaneous phases, put together: a ruleset without findings
DOCUMENTED = """\
ruleset: documented
title: the map, statuses and reactions sections of the rule format
space:
  model: hex
  per_hex: 1
  turn_cost: 1
  terrain:
    stone_wall: {blocks: true, values: {hits: 55}}
    rubble: {cost: 2}
    goal: {open_sides: [1]}
kinds:
  jug:
    stats: {sc: 2, velocity: 3}
    state: {hits: 20, toppled: false}
  ball:
    state: {velocity: 4}
tables:
  bounce:
    roll: d6
    columns: {angle: integer, side: text}
    rows:
      "1-3": {angle: 90, side: right}
      "4-6": {angle: 120, side: left}
statuses:
  burning:
    stack: separate
    on:
      end_of_turn: ["holder.hits -= status.size"]
  winch:
    on:
      start_of_turn:
        - let pull = d6
        - if: pull == 1
          then: ["holder.toppled = true", "remove(holder, status)"]
          else:
            - if: pull >= 4
              then: ["remove(holder, status)"]
procedures:
  attack:
    params: {shooter: {type: unit, kind: jug}, target: {type: unit, kind: jug}}
    steps:
      - let roll = d6
      - if: roll >= 4
        then: ["defer(apply_damage, target=target, damage=shooter.sc)"]
  apply_damage:
    params: {target: {type: unit, kind: jug}, damage: integer}
    steps: ["target.hits -= damage"]
turn:
  reactions:
    - name: opportunity_fire
      at: move
      by: others
      steps:
        - for: u
          in: side.units
          do:
            - if: distance(u, mover) <= 1 and uses(u, "gun") < 1
              then:
                - choose: fire
                  from: "[true, false]"
                  by: side
                - if: fire
                  then: ["use(u, \\"gun\\", limit=1)", "attack(u, mover)"]
  phases:
    - name: ball
      steps:
        - let ball = object("Ball")
        - step_forward(ball, ball.velocity)
        - if: last_move(ball).stopped == "blocked"
          then:
            - let b = bounce[d6]
            - deflect(ball, b.angle, b.side)
            - ball.velocity -= 1
    - name: movement
      each: unit
      steps:
        - let foe = enemies(unit)[1]
        - if: uses(unit, "ram") < 1
          then: ["use(unit, \\"ram\\", limit=1)", "move_towards(unit, foe, unit.velocity)"]
        - if: last_move(unit).hit == foe
          then: ["foe.hits -= (d6 + unit.sc) * last_move(unit).hexes"]
        - move_by(unit, ["forward", "right", "forward"], mp=d6)
        - apply(foe, "burning", turns=d6, size=1)
    - name: combat
      each: unit
      simultaneous: true
      steps: ["attack(unit, enemies(unit)[1])"]
  victory:
    - when: count(enemies(side)) == 0
  max_turns: 3
scenarios:
  default:
    sides:
      red: {units: [{kind: jug, name: Crusher}]}
      blue: {units: [{kind: jug, name: Grinder}]}
    positions: {Crusher: [0, 0, 1], Grinder: [4, 0, 4]}
    objects:
      Ball: {kind: ball, at: [0, 2, 1]}
    terrain: {"2,2": stone_wall, "1,1": rubble, "-3,2": goal}
"""


def test_the_documented_examples_validate_and_play(tmp_path):
    from interpreter.game.api import check_ruleset
    path = tmp_path / "documented.yaml"
    path.write_text(DOCUMENTED)
    assert [f.message for f in check_ruleset(path)] == []
    assert load_ruleset(path).play(None, 1).turns >= 1
