"""Playing a scenario: the world built from it, the initiative order as the ruleset
declares it, then turn after turn the start-of-turn steps and status triggers, each phase
for each side or unit in order, the end-of-turn bookkeeping and the victory conditions,
until one holds or the turn limit is reached.  Nothing here knows a rulebook."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import RulecraftError, UsageError
from ..expr.rolling import make_rng
from ..expr.sampled import Context, compiled
from ..expr.values import json_value
from ..run.frames import Frame
from ..expr import budget
from ..run.sampled import run_steps
from ..state.board import CLEAR, hex_key, hex_terrain, map_extent
from ..state.space import parse_position
from ..state.world import Side, World
from ..suggest import did_you_mean
from .lifecycle import expire_statuses as _expire_statuses
from .lifecycle import start_statuses as _start_statuses
from .lifecycle import status_triggers as _status_triggers
from .compiled import compiled_conditions, compiled_steps, names_for
from .policies import Chooser
from .reactions import begin_phase, end_phase, place_objects, reactor_for
from .runs import chain_json, make_unit, row_fields, set_nested, started


# ------------------------------------------------------------------------- games


NO_WINNER = "no winner"
"""How a game that ends with no side winning (a turn limit, a victory condition giving
no winner or "draw") is named: in `play`'s last line and in `simulate`'s results alike.
(`GameResult.winner` and the JSON `winner` are then None / null.)"""


@dataclass
class GameResult:
    scenario: str
    seed: int
    winner: str | None
    turns: int
    reason: str
    survivors: dict
    scores: dict
    events: list = field(default_factory=list)
    world: Any = field(default=None, repr=False, compare=False)
    chain: list = field(default_factory=list)   # the rulesets, base first (set by Rules.play)

    def as_json(self) -> dict:
        return {"event": "result", "scenario": self.scenario, "seed": self.seed,
                "winner": self.winner, "turns": self.turns, "reason": self.reason,
                "survivors": self.survivors, "scores": self.scores, **chain_json(self.chain)}


def build_world(ruleset, scenario, rng, record: bool) -> World:
    world = World(ruleset, rng, record)
    rolled: list = []   # units whose starting state rolled dice (shown, in order made)
    for side_name, side in scenario.sides.items():
        world.sides[side_name] = Side(side_name, side["policy"], world)
        for spec in side["units"]:
            count = spec.get("count", 1)
            for i in range(count):
                name = spec.get("name", spec["kind"])
                if count > 1:
                    name = f"{name} {i + 1}"
                overrides = {}
                if spec.get("_design") is not None:
                    row = compiled(spec["_design"])(Context(ruleset.globals, rng, None))
                    design = row_fields(row)
                    design.pop("name", None)   # the unit keeps its own name
                    overrides.update(design)
                    overrides.setdefault("design", str(getattr(row, "key", "") or spec["design"]))
                overrides.update(spec.get("stats", {}) or {})
                unit = make_unit(ruleset, spec["kind"], name, side_name, overrides,
                                 uid=_unique(world, name), loc=spec.get("_location"), rng=rng,
                                 rolled=rolled)
                for key, value in (spec.get("state") or {}).items():
                    set_nested(unit.fields, key, value, None)
                world.units[unit.uid] = unit
    world.default_distance = scenario.distance or 0
    for pair, value in scenario.distances.items():
        a, _, b = pair.partition("-")
        world.distances[frozenset((a.strip(), b.strip()))] = value
    _place_units(world, scenario)
    place_objects(ruleset, world, scenario, make_unit, parse_position)
    started(world, rolled)
    return world


def _place_units(world, scenario) -> None:
    """Scenario positions (by unit name) and hex terrain ("q,r": name)."""
    for name, where in (scenario.positions or {}).items():
        unit = next((u for u in world.units.values() if u.name == name or u.uid == name), None)
        if unit is None:
            raise RulecraftError(f"scenario {scenario.name!r}: a position for {name!r}, which is "
                                 f"no unit of the scenario", scenario.location, code="unknown-name",
                                 hint=did_you_mean(name, [u.name for u in world.units.values()]))
        try:
            world.positions[unit.uid] = parse_position(where, world.space, f"position of {name}")
        except RulecraftError as err:
            err.location = err.location or scenario.location
            raise
    world.extent = map_extent(scenario.map)
    for key, terrain in (scenario.terrain or {}).items():
        at = hex_key(key)
        if at is None:
            raise RulecraftError(f"scenario {scenario.name!r}: terrain is keyed by \"q,r\", not "
                                 f"{key!r}", scenario.location, code="schema-invalid")
        name, values = hex_terrain(terrain)
        if name != CLEAR:
            world.terrain[at] = name
        if values:
            world.terrain_values[at] = dict(values)


def _unique(world, name):
    uid, n = name, 2
    while uid in world.units:
        uid, n = f"{name} ({n})", n + 1
    return uid


def scenario_of(ruleset, name: str | None):
    if not ruleset.scenarios:
        raise UsageError(f"{ruleset.id} has no scenarios to play")
    if name is None:
        name = "default" if "default" in ruleset.scenarios else next(iter(ruleset.scenarios))
    scenario = ruleset.scenarios.get(name)
    if scenario is None:
        raise UsageError(f"{ruleset.id} has no scenario {name!r}",
                         hint=did_you_mean(name, ruleset.scenarios))
    return scenario


def _root(ruleset, run, *args) -> None:
    """Run one segment of a game as a call tree of its own (the step budget)."""
    budget.as_root(ruleset.budget("steps"), run, *args)


def _phase_frame(ruleset, world, names: dict) -> Frame:
    base = {"turn": world.turn, "sides": list(world.sides.values()),
            "units": [u for u in world.units.values() if u.alive]}
    base.update(names)
    return Frame(base, ruleset.globals, world, world.rng, world.record)


def initiative_order(ruleset, world) -> list[str]:
    """Sides in the order they act, by the ruleset's declared initiative.

    `per: side` rolls once per side; `per: unit` rolls per unit (the units then act in
    that order, and sides in the order of their first unit).  Ties are rerolled among the
    tied (`ties: reroll`, bounded) or left in declared order (`keep`).  Orders:
    highest_first, lowest_first, winner_chooses (the highest chooses to go first or
    last, the rest highest first) and winner_chooses_rest_lowest (the rest lowest first).
    """
    names = list(world.sides)
    ini = ruleset.turn.initiative if ruleset.turn else None
    world.unit_order = None
    if ini is None or ini.roll is None:
        return names
    roll = compiled(ini.roll, True)
    per_unit = ini.per == "unit"
    who = [u.uid for u in world.units.values() if u.alive] if per_unit else names
    if len(who) < 2:
        return names
    rolls: dict = {}
    contenders = who
    for _ in range(100):
        for w in contenders:
            rolls[w] = roll(Context(ruleset.globals, world.rng, [], world))
        values = [rolls[w] for w in who]
        if ini.ties != "reroll" or len(set(values)) == len(values):
            break
        contenders = [w for w in who if values.count(rolls[w]) > 1]
        world.log("initiative", "tie: " + ", ".join(f"{_who(world, w)} {rolls[w]}" for w in contenders)
                  + " — reroll")
    ranked = sorted(who, key=lambda w: (-rolls[w], who.index(w)))
    world.log("initiative", "rolls: " + ", ".join(f"{_who(world, w)} {rolls[w]}" for w in ranked),
              rolls={_who(world, w): json_value(rolls[w]) for w in who})
    if ini.order == "lowest_first":
        ranked = list(reversed(ranked))
    elif ini.order in ("winner_chooses", "winner_chooses_rest_lowest"):
        winner, rest = ranked[0], ranked[1:]
        if ini.order == "winner_chooses_rest_lowest":
            rest = list(reversed(rest))
        side = world.sides[world.units[winner].side if per_unit else winner]
        first = side.policy != "random" or world.rng.random() < 0.5
        world.log("initiative", f"{_who(world, winner)} chooses to go {'first' if first else 'last'}")
        ranked = [winner] + rest if first else rest + [winner]
    if not per_unit:
        return ranked
    world.unit_order = ranked
    order = []
    for uid in ranked:
        side = world.units[uid].side
        if side not in order:
            order.append(side)
    return order + [n for n in names if n not in order]


def _who(world, key) -> str:
    unit = world.units.get(key)
    return unit.name if unit is not None and key not in world.sides else key


def _rooted(ruleset, check, world):
    """`check(ruleset, world)` as a call tree of its own (the step budget): initiative and
    victory conditions read lists in comprehensions, which spend steps, and outside a
    tree what they spent would add up over the whole game."""
    before = budget.begin(ruleset.budget("steps"))
    try:
        return check(ruleset, world)
    finally:
        budget.end(before)


def _victory(ruleset, world):
    if not world.record:
        return _victory_compiled(ruleset, world)
    for v in (ruleset.turn.victory if ruleset.turn else []):
        for side in world.sides.values():
            frame = _phase_frame(ruleset, world, {"side": side})
            holds = compiled(v.when)(frame.ctx)
            if holds is True:
                winner = side.name
                if v.winner is not None:
                    winner = _winner_name(compiled(v.winner)(frame.ctx))
                return winner, v.description or "victory condition"
    return "unfinished", None


def _victory_compiled(ruleset, world):
    """`_victory` without a transcript: the same conditions, compiled (game/compiled.py)."""
    for v, when, winner, wanted in compiled_conditions(ruleset):
        for side in world.sides.values():
            names = names_for(world, wanted, {"side": side})
            if when.run_on(world, names) is True:
                name = side.name if winner is None else _winner_name(winner.run_on(world, names))
                return name, v.description or "victory condition"
    return "unfinished", None


def _winner_name(value):
    return value.name if isinstance(value, Side) else (None if value in (None, "draw") else str(value))


def play(ruleset, scenario_name: str | None = None, seed: int | None = None, *,
         record: bool = True, prompt=None, observer=None, ask=()) -> GameResult:
    """Play a whole scenario with seeded dice; every event goes to the transcript.

    `observer` (render/story.py) sees the world once it is set up (`begin`) and each event
    as it is written (`event(event, depth)`); `ask` names sides a person plays (policy
    ask) whatever the scenario says."""
    if ruleset.turn is None:
        raise UsageError(f"{ruleset.id} declares no turn structure to play")
    scenario = scenario_of(ruleset, scenario_name)
    rng, seed = make_rng(seed)
    world = build_world(ruleset, scenario, rng, record)
    ask_sides(world, ask)
    if observer is not None:
        world.listener = observer.event
        observer.begin(world)
        for event in world.events:   # written while the world was set up
            observer.event(event, 0)
    scripts = {n: s.get("script", []) for n, s in scenario.sides.items()}
    world.chooser = Chooser(world, scripts, prompt)
    world.reactor = reactor_for(ruleset)
    turn_def = ruleset.turn
    max_turns = scenario.max_turns or turn_def.max_turns
    order = None
    winner, reason = "unfinished", None
    try:
        for turn in range(1, max_turns + 1):
            world.turn, world.phase, world.turn_ended = turn, "", False
            world.log("turn", f"turn {turn}")
            if order is None or (turn_def.initiative and turn_def.initiative.when == "turn"):
                world.phase = "initiative"
                order = _rooted(ruleset, initiative_order, world)
            world.phase = "start"
            _start_statuses(world)
            _turn_steps(ruleset, world, turn_def.start_of_turn)
            _status_triggers(ruleset, world, "start_of_turn")
            for phase in turn_def.phases:
                if world.turn_ended:   # end_turn(): the later phases are skipped
                    break
                world.phase = phase.name
                world.log("phase", phase.name)
                begin_phase(world, phase)
                _run_phase(ruleset, world, phase, order)
                end_phase(ruleset, world)
                winner, reason = _rooted(ruleset, _victory, world)
                if reason:
                    break
            if reason:
                break
            world.phase = "end"
            _turn_steps(ruleset, world, turn_def.end_of_turn)
            _status_triggers(ruleset, world, "end_of_turn")
            _expire_statuses(world)
            winner, reason = _rooted(ruleset, _victory, world)
            if reason:
                break
    except RulecraftError as err:
        err.message = f"{err.message} (turn {world.turn}, phase {world.phase or 'start'})"
        raise
    if not reason:
        winner, reason = None, f"turn limit ({max_turns}) reached"
    result = GameResult(scenario.name, seed, winner, world.turn, reason,
                        {n: len([u for u in s.units() if u.alive]) for n, s in world.sides.items()},
                        {n: json_value(s.data.get("score", 0)) for n, s in world.sides.items()},
                        world.events, world)
    said = f"winner: {winner}" if winner else NO_WINNER
    world.log("result", f"{said} ({reason}) after {world.turn} turns")
    return result


def ask_sides(world, names) -> None:
    """`--ask SIDE`: these sides' choices are a person's."""
    for name in names:
        if name not in world.sides:
            raise UsageError(f"the scenario has no side {name!r} to ask",
                             hint=did_you_mean(name, world.sides) or
                             "its sides: " + ", ".join(world.sides))
        world.sides[name].policy = "ask"


_PHASE_NAMES = {"turn", "sides", "units", "side", "unit"}


def _turn_steps(ruleset, world, steps) -> None:
    """The start or end of the turn's steps."""
    if world.record:
        _root(ruleset, run_steps, steps, _phase_frame(ruleset, world, {}))
    elif steps:
        _root(ruleset, compiled_steps(ruleset, steps).run, world, {})


def _phase_steps(ruleset, world, steps):
    """How to run a phase's steps on a segment's names: the Steps on a phase frame when
    recording, else their compiled form (game/compiled.py)."""
    if world.record:
        return lambda names: run_steps(steps, _phase_frame(ruleset, world, names))
    body = compiled_steps(ruleset, steps)
    return lambda names: body.run(world, names)


def _run_phase(ruleset, world, phase, order) -> None:
    """A phase: for each side or unit in order (or once), its holders' `start_of_PHASE`
    triggers, the phase's steps, then their `end_of_PHASE` triggers — so a status acts
    in its holder's own segment ("flees on its next move")."""
    run = _phase_steps(ruleset, world, phase.steps)
    start, end = f"start_of_{phase.name}", f"end_of_{phase.name}"

    def segment(holders, names):
        if world.turn_ended:   # end_turn() in an earlier segment: this one is skipped
            return
        _status_triggers(ruleset, world, start, holders)
        if names is None or names.get("unit") is None or names["unit"].alive:
            _root(ruleset, run, names or {})
        _status_triggers(ruleset, world, end, holders)

    if phase.each == "none":
        segment(None, None)
        return
    if phase.each == "unit" and world.unit_order:
        for uid in world.unit_order:
            unit = world.units.get(uid)
            if unit is not None and unit.alive:
                segment([unit], {"side": world.sides[unit.side], "unit": unit})
        return
    for side_name in order:
        side = world.sides[side_name]
        if phase.each == "side":
            segment(side.units(), {"side": side})
            continue
        for unit in [u for u in side.units() if u.alive]:
            if unit.alive and unit.side == side_name:   # not captured meanwhile
                segment([unit], {"side": side, "unit": unit})
